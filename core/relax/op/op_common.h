// What the op family files share: registration with error handling, argument checks that name
// the operand in the message, axis normalization and the symbolic-dim arithmetic that inference
// needs (equality, constant folding, products). Private to relax/op/.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "relax/op/registry.h"
#include "tir/expr.h"

namespace wb::relax::op_common {

// Thrown by inference code, turned into InferResult::Error by the registration wrapper.
class TypeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OpDef {
  std::string name;  // "relax.add"
  std::vector<std::string> args;
  OpPatternKind pattern = OpPatternKind::kOpaque;
  // Throws TypeError on a bad call; the op's script name is prefixed to the message.
  std::function<Type(const Call&, const std::vector<Type>&)> infer;
  std::string attrs_type_key;
  std::vector<AttrField> attrs;
  FNormalize normalize;
  bool pure = true;
  bool variadic = false;
  size_t optional_args = 0;
  bool ty_args = false;  // OpInfo::ty_args
  std::function<Expr(size_t)> default_arg;  // OpInfo::default_arg
  std::string call_packed;  // OpInfo::call_packed
};
OpInfo Define(OpDef def);

// Ordinal for messages: 0 -> "first".
std::string Ordinal(size_t i);

// The tensor type of argument i, or a TypeError naming it ("the first operand", `role`).
const TensorTypeNode* TensorArg(const std::vector<Type>& types, size_t i,
                                const std::string& role = "");
// Argument i as a ShapeExpr's dims or a shape-typed value with known dims; nullopt when the
// value is a shape of unknown dims; TypeError when it is no shape.
std::optional<std::vector<PrimExpr>> ShapeArg(const Call& call, const std::vector<Type>& types,
                                              size_t i);
// A TypeError "the <i-th> argument must be <what>, got <its type>" unless `ok`.
void ExpectArg(bool ok, const std::vector<Type>& types, size_t i, const char* what);
// Argument i as an R.dtype(...) immediate; TypeError otherwise.
DataType DTypeArg(const Call& call, size_t i);
// Argument i as a Tuple of PrimValues holding integer constants.
std::vector<int64_t> IntTupleArg(const Call& call, size_t i, const char* what);

// `axis` in [-ndim, ndim) -> [0, ndim); TypeError otherwise.
int64_t NormalizeAxis(int64_t axis, int64_t ndim);
std::vector<int64_t> NormalizeAxes(const std::vector<int64_t>& axes, int64_t ndim);

PrimExpr Int64(int64_t value);
std::optional<int64_t> AsConstInt(const PrimExpr& e);
// True when a and b are provably equal (same constant, or the same expression).
bool ProveEqual(const PrimExpr& a, const PrimExpr& b);
// True when a and b are provably different (different constants).
bool ProveNotEqual(const PrimExpr& a, const PrimExpr& b);
std::string DimText(const PrimExpr& e);
std::string ShapeText(const std::vector<PrimExpr>& dims);

// Arithmetic on dims: folds constants (through tir's folding constructors).
PrimExpr Add(PrimExpr a, PrimExpr b);
PrimExpr Sub(PrimExpr a, PrimExpr b);
PrimExpr Mul(PrimExpr a, PrimExpr b);
PrimExpr FloorDiv(PrimExpr a, PrimExpr b);
// The product of dims, with the constant factors gathered: (n, 4, 2) -> n * 8.
PrimExpr Product(const std::vector<PrimExpr>& dims);
// `total / divisor` where divisor is a constant: cancels against the constant factor of a product
// of dims when it divides it ((n * 8) / 2 -> n * 4); nullopt when it provably does not divide.
std::optional<PrimExpr> DivideProduct(const std::vector<PrimExpr>& dims, int64_t divisor);

// Numpy broadcasting of two shapes, right-aligned. `nullopt` when a pair of dims is symbolic and
// not provably equal (the result's rank is still known); TypeError when two constants differ.
std::optional<std::vector<PrimExpr>> BroadcastShapes(const std::vector<PrimExpr>& a,
                                                     const std::vector<PrimExpr>& b,
                                                     const char* lhs_role = "first operand",
                                                     const char* rhs_role = "second operand");

// A tensor type of `dtype` with `shape` when known, else of rank `ndim`.
TensorType TensorOf(const std::optional<std::vector<PrimExpr>>& shape, DataType dtype,
                    int64_t ndim);

// TVM's InferBinaryArithOpOutVDevice over any number of operands: the vdevice of those whose
// vdevice is known (null when none is); two operands on different vdevices are a TypeError.
ir::VDevice OutVDevice(const std::vector<const TensorTypeNode*>& operands);

AttrField IntAttr(std::string name, int64_t value);
AttrField FloatAttr(std::string name, double value);
AttrField BoolAttr(std::string name, bool value);
AttrField StringAttr(std::string name, std::string value);
// A string attribute that, when not given, takes the value of attribute `from` (declared before).
AttrField StringAttrFrom(std::string name, std::string from);
AttrField DTypeField(std::string name, DataType value = DataType::Void());
AttrField IntsAttr(std::string name, std::vector<int64_t> value);
AttrField OptionalIntAttr(std::string name);
AttrField OptionalIntsAttr(std::string name);

}  // namespace wb::relax::op_common
