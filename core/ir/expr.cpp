#include "ir/expr.h"

#include <algorithm>

namespace wb::ir {

void PrimTypeNode::VisitFields(FieldVisitor* v) { Fields{v}("dtype", dtype); }
void PointerTypeNode::VisitFields(FieldVisitor* v) {
  Fields{v}("element_type", element_type)("storage_scope", storage_scope);
}
void TupleTypeNode::VisitFields(FieldVisitor* v) { Fields{v}("fields", fields); }
void RangeNode::VisitFields(FieldVisitor* v) { Fields{v}("min", min)("extent", extent); }
void OpNode::VisitFields(FieldVisitor* v) { Fields{v}("name", name); }
void GlobalVarNode::VisitFields(FieldVisitor* v) { Fields{v}("name_hint", name_hint); }
void IRModuleNode::VisitFields(FieldVisitor* v) {
  Fields{v}("global_vars", global_vars, FieldKind::kDef)("functions", functions)("attrs", attrs)(
      "global_infos", global_infos);
}

WB_REGISTER_NODE(PrimTypeNode);
WB_REGISTER_NODE(PointerTypeNode);
WB_REGISTER_NODE(TupleTypeNode);
WB_REGISTER_NODE(RangeNode);
WB_REGISTER_NODE(OpNode);
WB_REGISTER_NODE(GlobalVarNode);
WB_REGISTER_NODE(IRModuleNode);

PrimType MakePrimType(DataType dtype) {
  NodeBuilder<PrimTypeNode> n;
  n->dtype = dtype;
  return n.Finish();
}

PointerType MakePointerType(Type element_type, std::string storage_scope) {
  NodeBuilder<PointerTypeNode> n;
  n->element_type = std::move(element_type);
  n->storage_scope = std::move(storage_scope);
  return n.Finish();
}

TupleType MakeTupleType(std::vector<Type> fields) {
  NodeBuilder<TupleTypeNode> n;
  n->fields = std::move(fields);
  return n.Finish();
}

Range MakeRange(PrimExpr min, PrimExpr extent, Span span) {
  NodeBuilder<RangeNode> n;
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->span = std::move(span);
  return n.Finish();
}

const Object* BaseFuncNode::GetAttr(const std::string& key) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? nullptr : it->second.get();
}

std::string BaseFuncNode::global_symbol() const {
  auto it = attrs.find("global_symbol");
  if (it == attrs.end()) return "";
  if (auto* s = it->second.as<StringObj>()) return s->value;
  return "";
}

GlobalVar MakeGlobalVar(std::string name, Span span) {
  NodeBuilder<GlobalVarNode> n;
  n->name_hint = std::move(name);
  n->span = std::move(span);
  return n.Finish();
}

GlobalVar IRModuleNode::GetGlobalVar(const std::string& name) const {
  for (const auto& gv : global_vars) {
    if (gv->name_hint == name) return gv;
  }
  return GlobalVar();
}

BaseFunc IRModuleNode::Lookup(const std::string& name) const {
  for (size_t i = 0; i < global_vars.size(); ++i) {
    if (global_vars[i]->name_hint == name) return functions[i];
  }
  return BaseFunc();
}

BaseFunc IRModuleNode::Lookup(const GlobalVar& var) const {
  for (size_t i = 0; i < global_vars.size(); ++i) {
    if (global_vars[i].same_as(var)) return functions[i];
  }
  return BaseFunc();
}

IRModule MakeIRModule(std::vector<GlobalVar> vars, std::vector<BaseFunc> funcs, AttrMap attrs,
                      Span span) {
  // Functions are kept sorted by name: a module is a map from names to functions, so two
  // modules holding the same functions in another order are the same module.
  std::vector<size_t> order(vars.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return vars[a]->name_hint < vars[b]->name_hint;
  });
  std::vector<GlobalVar> sorted_vars;
  std::vector<BaseFunc> sorted_funcs;
  for (size_t i : order) {
    sorted_vars.push_back(std::move(vars[i]));
    sorted_funcs.push_back(i < funcs.size() ? std::move(funcs[i]) : BaseFunc());
  }
  vars = std::move(sorted_vars);
  funcs = std::move(sorted_funcs);
  NodeBuilder<IRModuleNode> n;
  n->global_vars = std::move(vars);
  n->functions = std::move(funcs);
  n->attrs = std::move(attrs);
  n->span = std::move(span);
  return n.Finish();
}

IRModule WithFunctions(const IRModule& module, std::vector<GlobalVar> vars,
                       std::vector<BaseFunc> funcs) {
  IRModule out = MakeIRModule(std::move(vars), std::move(funcs), module->attrs, module->span);
  out.CopyOnWrite()->global_infos = module->global_infos;
  return out;
}

IRModule WithFunction(const IRModule& module, const GlobalVar& var, const BaseFunc& func) {
  IRModule copy = module;
  IRModuleNode* n = copy.CopyOnWrite();
  for (size_t i = 0; i < n->global_vars.size(); ++i) {
    if (n->global_vars[i].same_as(var) || n->global_vars[i]->name_hint == var->name_hint) {
      n->global_vars[i] = var;
      n->functions[i] = func;
      return copy;
    }
  }
  auto pos = std::lower_bound(n->global_vars.begin(), n->global_vars.end(), var,
                              [](const GlobalVar& a, const GlobalVar& b) {
                                return a->name_hint < b->name_hint;
                              });
  size_t index = static_cast<size_t>(pos - n->global_vars.begin());
  n->global_vars.insert(pos, var);
  n->functions.insert(n->functions.begin() + index, func);
  return copy;
}

}  // namespace wb::ir
