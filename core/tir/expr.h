// TensorIR expressions: the scalar/vector computations of a PrimFunc, in TVM's tirx node set.
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"

namespace wb::tir {

using ir::AttrMap;
using ir::DataType;
using ir::Downcast;
using ir::GetRef;
using ir::FieldKind;
using ir::FieldVisitor;
using ir::Fields;
using ir::NodeBuilder;
using ir::Object;
using ir::ObjectRef;
using ir::PrimExpr;
using ir::PrimExprNode;
using ir::Range;
using ir::Ref;
using wb::Span;
using ir::Type;

class BufferNode;
using Buffer = Ref<BufferNode>;

class IntImmNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(IntImmNode, kIntImm, PrimExprNode)
  int64_t value = 0;
  void VisitFields(FieldVisitor* v) override;
};
using IntImm = Ref<IntImmNode>;

class FloatImmNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(FloatImmNode, kFloatImm, PrimExprNode)
  double value = 0;
  void VisitFields(FieldVisitor* v) override;
};
using FloatImm = Ref<FloatImmNode>;

class StringImmNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(StringImmNode, kStringImm, PrimExprNode)
  std::string value;
  void VisitFields(FieldVisitor* v) override;
};
using StringImm = Ref<StringImmNode>;

// A variable. Structural equality maps variables at their binding sites; the name is a hint.
class VarNode : public PrimExprNode {
 public:
  WB_NODE_BASE(VarNode, kVar, kCast, PrimExprNode)
  std::string name_hint;
  Type type_annotation;  // PointerType for handles; may be null for plain scalars
  ir::Object* Clone() const override { return new VarNode(*this); }
  void VisitFields(FieldVisitor* v) override;
};
using Var = Ref<VarNode>;

// A variable known to be non-negative (shape sizes).
class SizeVarNode : public VarNode {
 public:
  WB_NODE_FINAL(SizeVarNode, kSizeVar, VarNode)
};
using SizeVar = Ref<SizeVarNode>;

class CastNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(CastNode, kCast, PrimExprNode)
  PrimExpr value;
  void VisitFields(FieldVisitor* v) override;
};
using Cast = Ref<CastNode>;

// Binary arithmetic, comparison and logic nodes all have operands `a` and `b`.
class BinaryNode : public PrimExprNode {
 public:
  WB_NODE_BASE(BinaryNode, kAdd, kNot, PrimExprNode)
  PrimExpr a;
  PrimExpr b;
  void VisitFields(FieldVisitor* v) override;
};

#define WB_BINARY_NODE(Name)                          \
  class Name##Node : public BinaryNode {              \
   public:                                            \
    WB_NODE_FINAL(Name##Node, k##Name, BinaryNode)    \
  };                                                  \
  using Name = Ref<Name##Node>;

WB_BINARY_NODE(Add)
WB_BINARY_NODE(Sub)
WB_BINARY_NODE(Mul)
WB_BINARY_NODE(Div)
WB_BINARY_NODE(Mod)
WB_BINARY_NODE(FloorDiv)
WB_BINARY_NODE(FloorMod)
WB_BINARY_NODE(Min)
WB_BINARY_NODE(Max)
WB_BINARY_NODE(EQ)
WB_BINARY_NODE(NE)
WB_BINARY_NODE(LT)
WB_BINARY_NODE(LE)
WB_BINARY_NODE(GT)
WB_BINARY_NODE(GE)
WB_BINARY_NODE(And)
WB_BINARY_NODE(Or)
#undef WB_BINARY_NODE

class NotNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(NotNode, kNot, PrimExprNode)
  PrimExpr a;
  void VisitFields(FieldVisitor* v) override;
};
using Not = Ref<NotNode>;

// Evaluates both branches (unlike if_then_else).
class SelectNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(SelectNode, kSelect, PrimExprNode)
  PrimExpr condition;
  PrimExpr true_value;
  PrimExpr false_value;
  void VisitFields(FieldVisitor* v) override;
};
using Select = Ref<SelectNode>;

class BufferLoadNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(BufferLoadNode, kBufferLoad, PrimExprNode)
  Buffer buffer;
  std::vector<PrimExpr> indices;
  PrimExpr predicate;  // optional lane mask
  void VisitFields(FieldVisitor* v) override;
};
using BufferLoad = Ref<BufferLoadNode>;

// base, base + stride, ..., base + (lanes - 1) * stride
class RampNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(RampNode, kRamp, PrimExprNode)
  PrimExpr base;
  PrimExpr stride;
  int64_t lanes = 1;
  void VisitFields(FieldVisitor* v) override;
};
using Ramp = Ref<RampNode>;

class BroadcastNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(BroadcastNode, kBroadcast, PrimExprNode)
  PrimExpr value;
  int64_t lanes = 1;
  void VisitFields(FieldVisitor* v) override;
};
using Broadcast = Ref<BroadcastNode>;

class ShuffleNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(ShuffleNode, kShuffle, PrimExprNode)
  std::vector<PrimExpr> vectors;
  std::vector<PrimExpr> indices;
  void VisitFields(FieldVisitor* v) override;
};
using Shuffle = Ref<ShuffleNode>;

class LetNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(LetNode, kLet, PrimExprNode)
  Var var;
  PrimExpr value;
  PrimExpr body;
  void VisitFields(FieldVisitor* v) override;
};
using Let = Ref<LetNode>;

// A call to a builtin op (ir::Op) or to a function of the module (ir::GlobalVar).
class CallNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(CallNode, kCall, PrimExprNode)
  ObjectRef op;
  std::vector<PrimExpr> args;
  void VisitFields(FieldVisitor* v) override;
};
using Call = Ref<CallNode>;

class IterVarNode;
using IterVar = Ref<IterVarNode>;

// A commutative reducer: `T.comm_reducer(lambda x, y: x + y, [T.float32(0)])`.
class CommReducerNode : public Object {
 public:
  WB_NODE_FINAL(CommReducerNode, kCommReducer, Object)
  std::vector<Var> lhs;
  std::vector<Var> rhs;
  std::vector<PrimExpr> result;
  std::vector<PrimExpr> identity_element;
  void VisitFields(FieldVisitor* v) override;
};
using CommReducer = Ref<CommReducerNode>;

class ReduceNode : public PrimExprNode {
 public:
  WB_NODE_FINAL(ReduceNode, kReduce, PrimExprNode)
  CommReducer combiner;
  std::vector<PrimExpr> source;
  std::vector<PrimExpr> init;
  std::vector<IterVar> axis;
  PrimExpr condition;
  int64_t value_index = 0;
  void VisitFields(FieldVisitor* v) override;
};
using Reduce = Ref<ReduceNode>;

// --- Constructors (no folding; see tir/op.h for the folding arithmetic) ------------------------

IntImm MakeIntImm(DataType dtype, int64_t value, Span span = {});
FloatImm MakeFloatImm(DataType dtype, double value, Span span = {});
StringImm MakeStringImm(std::string value, Span span = {});
Var MakeVar(std::string name, DataType dtype, Span span = {});
Var MakeVar(std::string name, Type type_annotation, Span span = {});
SizeVar MakeSizeVar(std::string name, DataType dtype, Span span = {});
// A handle variable pointing to `element` in `scope` (buffer data pointers).
Var MakePointerVar(std::string name, DataType element, std::string scope, Span span = {});
PrimExpr MakeCast(DataType dtype, PrimExpr value, Span span = {});
// Builds a binary node of `kind` (kAdd ... kOr) with the dtype it implies.
PrimExpr MakeBinary(ir::TypeIndex kind, PrimExpr a, PrimExpr b, Span span = {});
PrimExpr MakeNot(PrimExpr a, Span span = {});
PrimExpr MakeSelect(PrimExpr cond, PrimExpr t, PrimExpr f, Span span = {});
PrimExpr MakeBufferLoad(Buffer buffer, std::vector<PrimExpr> indices, PrimExpr predicate = {},
                        Span span = {});
PrimExpr MakeRamp(PrimExpr base, PrimExpr stride, int64_t lanes, Span span = {});
PrimExpr MakeBroadcast(PrimExpr value, int64_t lanes, Span span = {});
PrimExpr MakeShuffle(std::vector<PrimExpr> vectors, std::vector<PrimExpr> indices, Span span = {});
PrimExpr MakeLet(Var var, PrimExpr value, PrimExpr body, Span span = {});
PrimExpr MakeCall(DataType dtype, ObjectRef op, std::vector<PrimExpr> args, Span span = {});
CommReducer MakeCommReducer(std::vector<Var> lhs, std::vector<Var> rhs,
                            std::vector<PrimExpr> result, std::vector<PrimExpr> identity,
                            Span span = {});

// Helpers.
const int64_t* AsConstInt(const PrimExpr& e);
bool IsConstInt(const PrimExpr& e, int64_t value);
bool IsComparison(ir::TypeIndex kind);

}  // namespace wb::tir
