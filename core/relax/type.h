// Relax types: what TVM calls StructInfo. Every Relax expression carries one (its inferred type),
// and tensor and shape types carry symbolic shapes: the dims are TensorIR PrimExprs, so the `n`
// in `R.Tensor((n, 4), "float32")` is a tirx.Var shared with the PrimFuncs that the module calls.
//
// Unknowns are explicit, as in TVM: a TensorType without a shape knows only its rank (ndim, or
// kUnknownNDim), a dtype of DataType::Void() is unknown, ObjectType is the top of the lattice.
// PrimType and TupleType are the ir module's nodes, shared with TensorIR.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/global_info.h"

namespace wb::relax {

using ir::DataType;
using ir::FieldKind;
using ir::Fields;
using ir::FieldVisitor;
using ir::NodeBuilder;
using ir::Object;
using ir::ObjectRef;
using ir::PrimExpr;
using ir::PrimType;
using ir::PrimTypeNode;
using ir::Ref;
using ir::TupleType;
using ir::TupleTypeNode;
using ir::Type;
using ir::TypeNode;
using wb::Span;

constexpr int64_t kUnknownNDim = -1;

// R.Shape([n, 4]) / R.Shape(ndim=2) / R.Shape(): the type of a ShapeExpr.
class ShapeTypeNode : public TypeNode {
 public:
  WB_NODE_FINAL(ShapeTypeNode, kShapeType, TypeNode)
  std::optional<std::vector<PrimExpr>> values;  // the dims, when known
  int64_t ndim = kUnknownNDim;                  // == values->size() when values are known
  void VisitFields(FieldVisitor* v) override;
};
using ShapeType = Ref<ShapeTypeNode>;
ShapeType MakeShapeType(std::vector<PrimExpr> values, Span span = {});
ShapeType MakeShapeType(int64_t ndim = kUnknownNDim, Span span = {});

// R.Tensor((n, 4), "float32") / R.Tensor("float32", ndim=2) / R.Tensor(ndim=-1).
class TensorTypeNode : public TypeNode {
 public:
  WB_NODE_FINAL(TensorTypeNode, kTensorType, TypeNode)
  std::optional<std::vector<PrimExpr>> shape;  // the dims, when known
  DataType dtype = DataType::Void();           // Void: unknown
  int64_t ndim = kUnknownNDim;                 // == shape->size() when the shape is known
  // The virtual device the tensor lives on (one of the module's global_infos["vdevice"]),
  // null when unknown, as TVM's Optional<VDevice>.
  ir::VDevice vdevice;

  bool IsUnknownNdim() const { return ndim == kUnknownNDim; }
  bool IsUnknownDtype() const { return dtype.is_void(); }
  void VisitFields(FieldVisitor* v) override;
};
using TensorType = Ref<TensorTypeNode>;
TensorType MakeTensorType(std::vector<PrimExpr> shape, DataType dtype, Span span = {});
TensorType MakeTensorType(DataType dtype, int64_t ndim, Span span = {});
// `type` with its vdevice replaced (null clears it).
TensorType WithVDevice(const TensorType& type, ir::VDevice vdevice);

// R.Object: any value (the top type).
class ObjectTypeNode : public TypeNode {
 public:
  WB_NODE_FINAL(ObjectTypeNode, kObjectType, TypeNode)
  void VisitFields(FieldVisitor*) override {}
};
using ObjectType = Ref<ObjectTypeNode>;
ObjectType MakeObjectType(Span span = {});

// R.Callable((params...), ret, purity): a function whose parameter types are known.
class FuncTypeNode : public TypeNode {
 public:
  WB_NODE_FINAL(FuncTypeNode, kFuncType, TypeNode)
  std::vector<Type> params;
  Type ret;
  bool purity = true;
  void VisitFields(FieldVisitor* v) override;
};
using FuncType = Ref<FuncTypeNode>;
FuncType MakeFuncType(std::vector<Type> params, Type ret, bool purity = true, Span span = {});

// An opaque function (TVM's FuncStructInfo::OpaqueFunc): callable with any arguments, returning
// `ret`. The type of ExternFuncs and of packed functions called through call_dps_packed.
class PackedFuncTypeNode : public TypeNode {
 public:
  WB_NODE_FINAL(PackedFuncTypeNode, kPackedFuncType, TypeNode)
  Type ret;
  bool purity = false;
  void VisitFields(FieldVisitor* v) override;
};
using PackedFuncType = Ref<PackedFuncTypeNode>;
PackedFuncType MakePackedFuncType(Type ret, bool purity = false, Span span = {});

// --- Queries used by inference and the normalizer ---------------------------------------------

// True when a value of type `sub` is always a valid value of type `base` (TVM's
// IsBaseOf(base, sub) with symbolic dims compared structurally: `n` fits `n`, not `m`).
bool IsBaseOf(const Type& base, const Type& sub);
// The most precise type that both `a` and `b` fit (TVM's StructInfoLCA): used for If.
Type TypeLCA(const Type& a, const Type& b);
// The canonical text of a type as TVMScript writes it (`R.Tensor((n, 4), "float32")`), for
// diagnostics.
std::string TypeToString(const Type& type);
// Two virtual devices are the same when target, id and memory scope agree (nulls: both null).
bool SameVDevice(const ir::VDevice& a, const ir::VDevice& b);
// `I.vdevice("llvm", 0, "global")`, for diagnostics that have no module to index the device in.
std::string VDeviceToString(const ir::VDevice& vdevice);
// Static rank of a tensor type, kUnknownNDim otherwise.
int64_t NDimOf(const Type& type);

}  // namespace wb::relax
