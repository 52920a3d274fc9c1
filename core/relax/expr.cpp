#include "relax/expr.h"

#include <stdexcept>

#include "tir/expr.h"

namespace wb::relax {

namespace {

// Non-variable expressions derive their type, so it does not take part in equality.
void VisitDerivedType(Fields f, Type& type) { f("struct_info", type, FieldKind::kIgnore); }

}  // namespace

bool IsExpr(const Object* node) {
  if (!node) return false;
  TypeIndex t = node->type_index();
  return t >= TypeIndex::kRelaxFunction && t < TypeIndex::kRelaxExprEnd;
}

void VarNode::VisitFields(FieldVisitor* v) {
  Fields{v}("name_hint", name_hint, FieldKind::kIgnore)("struct_info", struct_info);
}

void ConstantNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("dtype", dtype);
  // Value fields only (no temporary nodes: reflection visitors may keep node pointers).
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += (i ? "," : "") + std::to_string(shape[i]);
  f("shape", dims);
  v->VisitBytes("data", &data, FieldKind::kNormal);
  if (v->writes()) {
    shape.clear();
    size_t pos = 0;
    while (pos < dims.size()) {
      size_t comma = dims.find(',', pos);
      if (comma == std::string::npos) comma = dims.size();
      try {
        shape.push_back(std::stoll(dims.substr(pos, comma - pos)));
      } catch (const std::exception&) {
        throw std::invalid_argument("relax.Constant: shape \"" + dims +
                                    "\" is not a list of integers");
      }
      pos = comma + 1;
    }
  }
  VisitDerivedType(f, struct_info);
}

void TupleNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("fields", fields);
  VisitDerivedType(f, struct_info);
}

void TupleGetItemNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("tuple", tuple)("index", index);
  VisitDerivedType(f, struct_info);
}

void ShapeExprNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("values", values);
  VisitDerivedType(f, struct_info);
}

void PrimValueNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("value", value);
  VisitDerivedType(f, struct_info);
}

void StringImmNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("value", value);
  VisitDerivedType(f, struct_info);
}

void DataTypeImmNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("value", value);
  VisitDerivedType(f, struct_info);
}

void CallNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("op", op)("args", args)("attrs", attrs)("sinfo_args", sinfo_args);
  VisitDerivedType(f, struct_info);
}

void IfNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("cond", cond)("true_branch", true_branch)("false_branch", false_branch);
  VisitDerivedType(f, struct_info);
}

void VarBindingNode::VisitFields(FieldVisitor* v) {
  Fields{v}("var", var, FieldKind::kDef)("value", value);
}

void MatchCastNode::VisitFields(FieldVisitor* v) {
  // The target type binds the symbolic vars it introduces; the var's own type repeats them.
  Fields{v}("value", value)("struct_info", struct_info, FieldKind::kDef)("var", var,
                                                                         FieldKind::kDef);
}

void BindingBlockNode::VisitFields(FieldVisitor* v) { Fields{v}("bindings", bindings); }

void SeqExprNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("blocks", blocks)("body", body);
  VisitDerivedType(f, struct_info);
}

void FunctionNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("params", params, FieldKind::kDef)("body", body)("ret_struct_info", ret_struct_info)(
      "is_pure", is_pure)("attrs", attrs);
  VisitDerivedType(f, struct_info);
}

void ExternFuncNode::VisitFields(FieldVisitor* v) {
  Fields f{v};
  f("global_symbol", global_symbol)("attrs", attrs);
  VisitDerivedType(f, struct_info);
}

WB_REGISTER_NODE(VarNode);
WB_REGISTER_NODE(DataflowVarNode);
WB_REGISTER_NODE(ConstantNode);
WB_REGISTER_NODE(TupleNode);
WB_REGISTER_NODE(TupleGetItemNode);
WB_REGISTER_NODE(ShapeExprNode);
WB_REGISTER_NODE(PrimValueNode);
WB_REGISTER_NODE(StringImmNode);
WB_REGISTER_NODE(DataTypeImmNode);
WB_REGISTER_NODE(CallNode);
WB_REGISTER_NODE(IfNode);
WB_REGISTER_NODE(VarBindingNode);
WB_REGISTER_NODE(MatchCastNode);
WB_REGISTER_NODE(BindingBlockNode);
WB_REGISTER_NODE(DataflowBlockNode);
WB_REGISTER_NODE(SeqExprNode);
WB_REGISTER_NODE(FunctionNode);
WB_REGISTER_NODE(ExternFuncNode);

Var MakeVar(std::string name, Type struct_info, Span span) {
  NodeBuilder<VarNode> n;
  n->name_hint = std::move(name);
  n->struct_info = std::move(struct_info);
  n->span = std::move(span);
  return n.Finish();
}

DataflowVar MakeDataflowVar(std::string name, Type struct_info, Span span) {
  NodeBuilder<DataflowVarNode> n;
  n->name_hint = std::move(name);
  n->struct_info = std::move(struct_info);
  n->span = std::move(span);
  return n.Finish();
}

Constant MakeConstant(DataType dtype, std::vector<int64_t> shape, std::string data, Span span) {
  int64_t elements = 1;
  std::vector<PrimExpr> dims;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("relax.Constant: negative dimension");
    elements *= d;
    dims.push_back(tir::MakeIntImm(DataType::Int(64), d));
  }
  size_t expected = static_cast<size_t>(elements) * static_cast<size_t>(dtype.bytes()) *
                    static_cast<size_t>(dtype.lanes());
  if (data.size() != expected) {
    throw std::invalid_argument("relax.Constant: " + std::to_string(data.size()) +
                                " bytes of data for " + std::to_string(expected) +
                                " expected by shape and dtype " + dtype.ToString());
  }
  NodeBuilder<ConstantNode> n;
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->data = std::move(data);
  n->struct_info = MakeTensorType(std::move(dims), dtype);
  n->span = std::move(span);
  return n.Finish();
}

Tuple MakeTuple(std::vector<Expr> fields, Span span) {
  NodeBuilder<TupleNode> n;
  n->fields = std::move(fields);
  n->span = std::move(span);
  return n.Finish();
}

TupleGetItem MakeTupleGetItem(Expr tuple, int64_t index, Span span) {
  NodeBuilder<TupleGetItemNode> n;
  n->tuple = std::move(tuple);
  n->index = index;
  n->span = std::move(span);
  return n.Finish();
}

ShapeExpr MakeShapeExpr(std::vector<PrimExpr> values, Span span) {
  NodeBuilder<ShapeExprNode> n;
  n->struct_info = MakeShapeType(values);
  n->values = std::move(values);
  n->span = std::move(span);
  return n.Finish();
}

PrimValue MakePrimValue(PrimExpr value, Span span) {
  NodeBuilder<PrimValueNode> n;
  n->struct_info = ir::MakePrimType(value.defined() ? value->dtype : DataType::Void());
  n->value = std::move(value);
  n->span = std::move(span);
  return n.Finish();
}

StringImm MakeStringImm(std::string value, Span span) {
  NodeBuilder<StringImmNode> n;
  n->value = std::move(value);
  n->struct_info = MakeObjectType();
  n->span = std::move(span);
  return n.Finish();
}

DataTypeImm MakeDataTypeImm(DataType value, Span span) {
  NodeBuilder<DataTypeImmNode> n;
  n->value = value;
  n->struct_info = MakeObjectType();
  n->span = std::move(span);
  return n.Finish();
}

Call MakeCall(Expr op, std::vector<Expr> args, AttrMap attrs, std::vector<Type> sinfo_args,
              Span span) {
  NodeBuilder<CallNode> n;
  n->op = std::move(op);
  n->args = std::move(args);
  n->attrs = std::move(attrs);
  n->sinfo_args = std::move(sinfo_args);
  n->span = std::move(span);
  return n.Finish();
}

If MakeIf(Expr cond, Expr true_branch, Expr false_branch, Span span) {
  NodeBuilder<IfNode> n;
  n->cond = std::move(cond);
  n->true_branch = std::move(true_branch);
  n->false_branch = std::move(false_branch);
  n->span = std::move(span);
  return n.Finish();
}

VarBinding MakeVarBinding(Var var, Expr value, Span span) {
  NodeBuilder<VarBindingNode> n;
  n->var = std::move(var);
  n->value = std::move(value);
  n->span = std::move(span);
  return n.Finish();
}

MatchCast MakeMatchCast(Var var, Expr value, Type struct_info, Span span) {
  NodeBuilder<MatchCastNode> n;
  n->var = std::move(var);
  n->value = std::move(value);
  n->struct_info = std::move(struct_info);
  n->span = std::move(span);
  return n.Finish();
}

BindingBlock MakeBindingBlock(std::vector<Binding> bindings, Span span) {
  NodeBuilder<BindingBlockNode> n;
  n->bindings = std::move(bindings);
  n->span = std::move(span);
  return n.Finish();
}

DataflowBlock MakeDataflowBlock(std::vector<Binding> bindings, Span span) {
  NodeBuilder<DataflowBlockNode> n;
  n->bindings = std::move(bindings);
  n->span = std::move(span);
  return n.Finish();
}

SeqExpr MakeSeqExpr(std::vector<BindingBlock> blocks, Expr body, Span span) {
  NodeBuilder<SeqExprNode> n;
  n->blocks = std::move(blocks);
  n->struct_info = GetType(body);
  n->body = std::move(body);
  n->span = std::move(span);
  return n.Finish();
}

Function MakeFunction(std::vector<Var> params, Expr body, Type ret_struct_info, bool is_pure,
                      AttrMap attrs, Span span) {
  if (!ret_struct_info.defined()) ret_struct_info = GetType(body);
  std::vector<Type> param_types;
  for (const Var& p : params) param_types.push_back(p->struct_info);
  NodeBuilder<FunctionNode> n;
  n->params = std::move(params);
  n->body = std::move(body);
  n->ret_struct_info = ret_struct_info;
  n->is_pure = is_pure;
  n->attrs = std::move(attrs);
  n->struct_info = MakeFuncType(std::move(param_types), ret_struct_info, is_pure);
  n->span = std::move(span);
  return n.Finish();
}

ExternFunc MakeExternFunc(std::string global_symbol, Type struct_info, Span span) {
  NodeBuilder<ExternFuncNode> n;
  n->global_symbol = std::move(global_symbol);
  n->struct_info = struct_info.defined() ? std::move(struct_info) : Type(MakePackedFuncType({}));
  n->span = std::move(span);
  return n.Finish();
}

Type GetType(const Expr& expr) {
  if (auto* e = expr.as<ExprNode>()) return e->struct_info;
  if (auto* f = expr.as<FunctionNode>()) return f->struct_info;
  if (auto* f = expr.as<ExternFuncNode>()) return f->struct_info;
  if (expr.as<ir::OpNode>()) return MakeObjectType();
  return Type();
}

Expr WithType(const Expr& expr, Type type) {
  switch (expr->type_index()) {
#define WB_WITH_TYPE(Index, Node)                      \
  case TypeIndex::Index: {                             \
    Ref<Node> copy = Downcast<Node>(expr);             \
    copy.CopyOnWrite()->struct_info = std::move(type); \
    return copy;                                       \
  }
    WB_WITH_TYPE(kConstant, ConstantNode)
    WB_WITH_TYPE(kTuple, TupleNode)
    WB_WITH_TYPE(kTupleGetItem, TupleGetItemNode)
    WB_WITH_TYPE(kShapeExpr, ShapeExprNode)
    WB_WITH_TYPE(kPrimValue, PrimValueNode)
    WB_WITH_TYPE(kRelaxStringImm, StringImmNode)
    WB_WITH_TYPE(kDataTypeImm, DataTypeImmNode)
    WB_WITH_TYPE(kRelaxCall, CallNode)
    WB_WITH_TYPE(kRelaxIf, IfNode)
    WB_WITH_TYPE(kSeqExpr, SeqExprNode)
    WB_WITH_TYPE(kRelaxFunction, FunctionNode)
    WB_WITH_TYPE(kExternFunc, ExternFuncNode)
#undef WB_WITH_TYPE
    default:
      throw std::logic_error(std::string("WithType: cannot retype ") + expr->type_key());
  }
}

}  // namespace wb::relax
