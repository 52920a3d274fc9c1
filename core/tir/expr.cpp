#include "tir/expr.h"

#include "tir/stmt.h"

namespace wb::tir {

using ir::TypeIndex;

void IntImmNode::VisitFields(FieldVisitor* v) { Fields{v}("dtype", dtype)("value", value); }
void FloatImmNode::VisitFields(FieldVisitor* v) { Fields{v}("dtype", dtype)("value", value); }
void StringImmNode::VisitFields(FieldVisitor* v) { Fields{v}("value", value); }
void VarNode::VisitFields(FieldVisitor* v) {
  Fields{v}("dtype", dtype)("type_annotation", type_annotation)("name_hint", name_hint,
                                                                 FieldKind::kIgnore);
}
void CastNode::VisitFields(FieldVisitor* v) { Fields{v}("dtype", dtype)("value", value); }
void BinaryNode::VisitFields(FieldVisitor* v) { Fields{v}("dtype", dtype)("a", a)("b", b); }
void NotNode::VisitFields(FieldVisitor* v) { Fields{v}("dtype", dtype)("a", a); }
void SelectNode::VisitFields(FieldVisitor* v) {
  Fields{v}("dtype", dtype)("condition", condition)("true_value", true_value)("false_value",
                                                                              false_value);
}
void BufferLoadNode::VisitFields(FieldVisitor* v) {
  Fields{v}("dtype", dtype)("buffer", buffer)("indices", indices)("predicate", predicate);
}
void RampNode::VisitFields(FieldVisitor* v) {
  Fields{v}("dtype", dtype)("base", base)("stride", stride)("lanes", lanes);
}
void BroadcastNode::VisitFields(FieldVisitor* v) {
  Fields{v}("dtype", dtype)("value", value)("lanes", lanes);
}
void ShuffleNode::VisitFields(FieldVisitor* v) {
  Fields{v}("dtype", dtype)("vectors", vectors)("indices", indices);
}
void LetNode::VisitFields(FieldVisitor* v) {
  Fields{v}("dtype", dtype)("var", var, FieldKind::kDef)("value", value)("body", body);
}
void CallNode::VisitFields(FieldVisitor* v) { Fields{v}("dtype", dtype)("op", op)("args", args); }
void CommReducerNode::VisitFields(FieldVisitor* v) {
  Fields{v}("lhs", lhs, FieldKind::kDef)("rhs", rhs, FieldKind::kDef)("result", result)(
      "identity_element", identity_element);
}
void ReduceNode::VisitFields(FieldVisitor* v) {
  Fields{v}("dtype", dtype)("combiner", combiner)("axis", axis, FieldKind::kDef)("source", source)(
      "init", init)("condition", condition)("value_index", value_index);
}

WB_REGISTER_NODE(IntImmNode);
WB_REGISTER_NODE(FloatImmNode);
WB_REGISTER_NODE(StringImmNode);
WB_REGISTER_NODE(VarNode);
WB_REGISTER_NODE(SizeVarNode);
WB_REGISTER_NODE(CastNode);
WB_REGISTER_NODE(AddNode);
WB_REGISTER_NODE(SubNode);
WB_REGISTER_NODE(MulNode);
WB_REGISTER_NODE(DivNode);
WB_REGISTER_NODE(ModNode);
WB_REGISTER_NODE(FloorDivNode);
WB_REGISTER_NODE(FloorModNode);
WB_REGISTER_NODE(MinNode);
WB_REGISTER_NODE(MaxNode);
WB_REGISTER_NODE(EQNode);
WB_REGISTER_NODE(NENode);
WB_REGISTER_NODE(LTNode);
WB_REGISTER_NODE(LENode);
WB_REGISTER_NODE(GTNode);
WB_REGISTER_NODE(GENode);
WB_REGISTER_NODE(AndNode);
WB_REGISTER_NODE(OrNode);
WB_REGISTER_NODE(NotNode);
WB_REGISTER_NODE(SelectNode);
WB_REGISTER_NODE(BufferLoadNode);
WB_REGISTER_NODE(RampNode);
WB_REGISTER_NODE(BroadcastNode);
WB_REGISTER_NODE(ShuffleNode);
WB_REGISTER_NODE(LetNode);
WB_REGISTER_NODE(CallNode);
WB_REGISTER_NODE(CommReducerNode);
WB_REGISTER_NODE(ReduceNode);

IntImm MakeIntImm(DataType dtype, int64_t value, Span span) {
  NodeBuilder<IntImmNode> n;
  n->dtype = dtype;
  n->value = value;
  n->span = std::move(span);
  return n.Finish();
}

FloatImm MakeFloatImm(DataType dtype, double value, Span span) {
  NodeBuilder<FloatImmNode> n;
  n->dtype = dtype;
  n->value = value;
  n->span = std::move(span);
  return n.Finish();
}

StringImm MakeStringImm(std::string value, Span span) {
  NodeBuilder<StringImmNode> n;
  n->dtype = DataType::Handle();
  n->value = std::move(value);
  n->span = std::move(span);
  return n.Finish();
}

Var MakeVar(std::string name, DataType dtype, Span span) {
  NodeBuilder<VarNode> n;
  n->dtype = dtype;
  n->name_hint = std::move(name);
  n->span = std::move(span);
  return n.Finish();
}

Var MakeVar(std::string name, Type type_annotation, Span span) {
  NodeBuilder<VarNode> n;
  if (auto* prim = type_annotation.as<ir::PrimTypeNode>()) {
    n->dtype = prim->dtype;
  } else {
    n->dtype = DataType::Handle();
    n->type_annotation = std::move(type_annotation);
  }
  n->name_hint = std::move(name);
  n->span = std::move(span);
  return n.Finish();
}

SizeVar MakeSizeVar(std::string name, DataType dtype, Span span) {
  NodeBuilder<SizeVarNode> n;
  n->dtype = dtype;
  n->name_hint = std::move(name);
  n->span = std::move(span);
  return n.Finish();
}

Var MakePointerVar(std::string name, DataType element, std::string scope, Span span) {
  return MakeVar(std::move(name), ir::MakePointerType(ir::MakePrimType(element), std::move(scope)),
                 std::move(span));
}

PrimExpr MakeCast(DataType dtype, PrimExpr value, Span span) {
  NodeBuilder<CastNode> n;
  n->dtype = dtype;
  n->value = std::move(value);
  n->span = std::move(span);
  return n.Finish();
}

bool IsComparison(TypeIndex kind) { return kind >= TypeIndex::kEQ && kind <= TypeIndex::kGE; }

namespace {

template <typename T>
PrimExpr FinishBinary(PrimExpr a, PrimExpr b, Span span) {
  NodeBuilder<T> n;
  TypeIndex kind = T::kTypeIndexBegin;
  DataType t = a->dtype;
  if (IsComparison(kind) || kind == TypeIndex::kAnd || kind == TypeIndex::kOr) {
    t = DataType::Bool(std::max(a->dtype.lanes(), b->dtype.lanes()));
  }
  n->dtype = t;
  n->a = std::move(a);
  n->b = std::move(b);
  n->span = std::move(span);
  return n.Finish();
}

}  // namespace

PrimExpr MakeBinary(TypeIndex kind, PrimExpr a, PrimExpr b, Span span) {
  switch (kind) {
    case TypeIndex::kAdd:
      return FinishBinary<AddNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kSub:
      return FinishBinary<SubNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kMul:
      return FinishBinary<MulNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kDiv:
      return FinishBinary<DivNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kMod:
      return FinishBinary<ModNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kFloorDiv:
      return FinishBinary<FloorDivNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kFloorMod:
      return FinishBinary<FloorModNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kMin:
      return FinishBinary<MinNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kMax:
      return FinishBinary<MaxNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kEQ:
      return FinishBinary<EQNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kNE:
      return FinishBinary<NENode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kLT:
      return FinishBinary<LTNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kLE:
      return FinishBinary<LENode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kGT:
      return FinishBinary<GTNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kGE:
      return FinishBinary<GENode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kAnd:
      return FinishBinary<AndNode>(std::move(a), std::move(b), std::move(span));
    case TypeIndex::kOr:
      return FinishBinary<OrNode>(std::move(a), std::move(b), std::move(span));
    default:
      throw std::logic_error("MakeBinary: not a binary node kind");
  }
}

PrimExpr MakeNot(PrimExpr a, Span span) {
  NodeBuilder<NotNode> n;
  n->dtype = DataType::Bool(a->dtype.lanes());
  n->a = std::move(a);
  n->span = std::move(span);
  return n.Finish();
}

PrimExpr MakeSelect(PrimExpr cond, PrimExpr t, PrimExpr f, Span span) {
  NodeBuilder<SelectNode> n;
  n->dtype = t->dtype;
  n->condition = std::move(cond);
  n->true_value = std::move(t);
  n->false_value = std::move(f);
  n->span = std::move(span);
  return n.Finish();
}

PrimExpr MakeBufferLoad(Buffer buffer, std::vector<PrimExpr> indices, PrimExpr predicate,
                        Span span) {
  NodeBuilder<BufferLoadNode> n;
  int lanes = 1;
  for (const auto& index : indices) {
    if (index.defined()) lanes = std::max(lanes, index->dtype.lanes());
  }
  n->dtype = buffer->dtype.with_lanes(buffer->dtype.lanes() * lanes);
  n->buffer = std::move(buffer);
  n->indices = std::move(indices);
  n->predicate = std::move(predicate);
  n->span = std::move(span);
  return n.Finish();
}

PrimExpr MakeRamp(PrimExpr base, PrimExpr stride, int64_t lanes, Span span) {
  NodeBuilder<RampNode> n;
  n->dtype = base->dtype.with_lanes(static_cast<int>(lanes));
  n->base = std::move(base);
  n->stride = std::move(stride);
  n->lanes = lanes;
  n->span = std::move(span);
  return n.Finish();
}

PrimExpr MakeBroadcast(PrimExpr value, int64_t lanes, Span span) {
  NodeBuilder<BroadcastNode> n;
  n->dtype = value->dtype.with_lanes(static_cast<int>(lanes));
  n->value = std::move(value);
  n->lanes = lanes;
  n->span = std::move(span);
  return n.Finish();
}

PrimExpr MakeShuffle(std::vector<PrimExpr> vectors, std::vector<PrimExpr> indices, Span span) {
  NodeBuilder<ShuffleNode> n;
  DataType elem = vectors.empty() ? DataType::Int(32) : vectors[0]->dtype.element_of();
  n->dtype = elem.with_lanes(static_cast<int>(indices.size()));
  n->vectors = std::move(vectors);
  n->indices = std::move(indices);
  n->span = std::move(span);
  return n.Finish();
}

PrimExpr MakeLet(Var var, PrimExpr value, PrimExpr body, Span span) {
  NodeBuilder<LetNode> n;
  n->dtype = body->dtype;
  n->var = std::move(var);
  n->value = std::move(value);
  n->body = std::move(body);
  n->span = std::move(span);
  return n.Finish();
}

PrimExpr MakeCall(DataType dtype, ObjectRef op, std::vector<PrimExpr> args, Span span) {
  NodeBuilder<CallNode> n;
  n->dtype = dtype;
  n->op = std::move(op);
  n->args = std::move(args);
  n->span = std::move(span);
  return n.Finish();
}

CommReducer MakeCommReducer(std::vector<Var> lhs, std::vector<Var> rhs,
                            std::vector<PrimExpr> result, std::vector<PrimExpr> identity,
                            Span span) {
  NodeBuilder<CommReducerNode> n;
  n->lhs = std::move(lhs);
  n->rhs = std::move(rhs);
  n->result = std::move(result);
  n->identity_element = std::move(identity);
  n->span = std::move(span);
  return n.Finish();
}

const int64_t* AsConstInt(const PrimExpr& e) {
  if (auto* imm = e.as<IntImmNode>()) return &imm->value;
  return nullptr;
}

bool IsConstInt(const PrimExpr& e, int64_t value) {
  const int64_t* v = AsConstInt(e);
  return v && *v == value;
}

}  // namespace wb::tir
