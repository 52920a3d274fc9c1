#include "relax/type_analysis.h"

#include <unordered_set>

#include "tir/functor.h"

namespace wb::relax {

namespace {

class DimSubstituter : public tir::ExprMutator {
 public:
  explicit DimSubstituter(const DimMap& map) : map_(map) {}
  PrimExpr VisitExpr_(const tir::VarNode* op) override { return Lookup(op); }
  PrimExpr VisitExpr_(const tir::SizeVarNode* op) override { return Lookup(op); }

 private:
  PrimExpr Lookup(const tir::VarNode* op) {
    auto it = map_.find(op);
    return it == map_.end() ? PrimExpr(GetRef<ir::PrimExprNode>(op)) : it->second;
  }
  const DimMap& map_;
};

// Rebuilds a type, mapping each optional dim list through `fn` (which may drop it).
using DimsFn = std::function<std::optional<std::vector<PrimExpr>>(const std::vector<PrimExpr>&)>;

Type RewriteDims(const Type& type, const DimsFn& fn) {
  if (!type.defined()) return type;
  if (auto* t = type.as<TensorTypeNode>()) {
    if (!t->shape) return type;
    auto dims = fn(*t->shape);
    // The dims change; the vdevice stays.
    if (dims) return WithVDevice(MakeTensorType(*dims, t->dtype, t->span), t->vdevice);
    return WithVDevice(MakeTensorType(t->dtype, t->ndim, t->span), t->vdevice);
  }
  if (auto* t = type.as<ShapeTypeNode>()) {
    if (!t->values) return type;
    auto dims = fn(*t->values);
    if (dims) return MakeShapeType(*dims, t->span);
    return MakeShapeType(t->ndim, t->span);
  }
  if (auto* t = type.as<TupleTypeNode>()) {
    std::vector<Type> fields;
    for (const Type& f : t->fields) fields.push_back(RewriteDims(f, fn));
    return ir::MakeTupleType(std::move(fields));
  }
  if (auto* t = type.as<FuncTypeNode>()) {
    std::vector<Type> params;
    for (const Type& p : t->params) params.push_back(RewriteDims(p, fn));
    return MakeFuncType(std::move(params), RewriteDims(t->ret, fn), t->purity, t->span);
  }
  if (auto* t = type.as<PackedFuncTypeNode>()) {
    return MakePackedFuncType(RewriteDims(t->ret, fn), t->purity, t->span);
  }
  return type;
}

}  // namespace

void ForEachDim(const Type& type, const std::function<void(const PrimExpr&)>& fn) {
  if (!type.defined()) return;
  if (auto* t = type.as<TensorTypeNode>()) {
    if (t->shape) {
      for (const PrimExpr& d : *t->shape) fn(d);
    }
  } else if (auto* t = type.as<ShapeTypeNode>()) {
    if (t->values) {
      for (const PrimExpr& d : *t->values) fn(d);
    }
  } else if (auto* t = type.as<TupleTypeNode>()) {
    for (const Type& f : t->fields) ForEachDim(f, fn);
  } else if (auto* t = type.as<FuncTypeNode>()) {
    for (const Type& p : t->params) ForEachDim(p, fn);
    ForEachDim(t->ret, fn);
  } else if (auto* t = type.as<PackedFuncTypeNode>()) {
    ForEachDim(t->ret, fn);
  }
}

std::vector<tir::Var> VarsOf(const PrimExpr& expr) {
  std::vector<tir::Var> out;
  std::unordered_set<const Object*> seen;
  if (!expr.defined()) return out;
  tir::PostOrderVisit(expr, [&](const Object* node) {
    if (ir::IsInstance<tir::VarNode>(node) && seen.insert(node).second) {
      out.push_back(GetRef(static_cast<const tir::VarNode*>(node)));
    }
  });
  return out;
}

std::vector<tir::Var> VarsOf(const Type& type) {
  std::vector<tir::Var> out;
  std::unordered_set<const Object*> seen;
  ForEachDim(type, [&](const PrimExpr& d) {
    for (const tir::Var& v : VarsOf(d)) {
      if (seen.insert(v.get()).second) out.push_back(v);
    }
  });
  return out;
}

PrimExpr SubstituteDims(const PrimExpr& expr, const DimMap& map) {
  if (!expr.defined() || map.empty()) return expr;
  DimSubstituter sub(map);
  return sub(expr);
}

Type SubstituteDims(const Type& type, const DimMap& map) {
  if (map.empty()) return type;
  bool mentions = false;
  for (const tir::Var& v : VarsOf(type)) mentions = mentions || map.count(v.get());
  if (!mentions) return type;
  return RewriteDims(type, [&](const std::vector<PrimExpr>& dims) {
    std::vector<PrimExpr> out;
    for (const PrimExpr& d : dims) out.push_back(SubstituteDims(d, map));
    return std::optional<std::vector<PrimExpr>>(std::move(out));
  });
}

Type MapDims(const Type& type, const std::function<PrimExpr(const PrimExpr&)>& fn) {
  bool changed = false;
  ForEachDim(type, [&](const PrimExpr& d) { changed = changed || !fn(d).same_as(d); });
  if (!changed) return type;
  return RewriteDims(type, [&](const std::vector<PrimExpr>& dims) {
    std::vector<PrimExpr> out;
    for (const PrimExpr& d : dims) out.push_back(fn(d));
    return std::optional<std::vector<PrimExpr>>(std::move(out));
  });
}

void MatchDims(const Type& param, const Type& arg, DimMap* map) {
  if (!param.defined() || !arg.defined()) return;
  auto match_list = [&](const std::vector<PrimExpr>& p, const std::vector<PrimExpr>& a) {
    if (p.size() != a.size()) return;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i].as<tir::VarNode>() && !map->count(p[i].get())) map->emplace(p[i].get(), a[i]);
    }
  };
  if (auto* p = param.as<TensorTypeNode>()) {
    auto* a = arg.as<TensorTypeNode>();
    if (a && p->shape && a->shape) match_list(*p->shape, *a->shape);
  } else if (auto* p = param.as<ShapeTypeNode>()) {
    auto* a = arg.as<ShapeTypeNode>();
    if (a && p->values && a->values) match_list(*p->values, *a->values);
  } else if (auto* p = param.as<TupleTypeNode>()) {
    auto* a = arg.as<TupleTypeNode>();
    if (a && a->fields.size() == p->fields.size()) {
      for (size_t i = 0; i < p->fields.size(); ++i) MatchDims(p->fields[i], a->fields[i], map);
    }
  }
}

Type EraseToWellDefined(const Type& type,
                        const std::function<bool(const tir::VarNode*)>& in_scope) {
  bool all_in_scope = true;
  for (const tir::Var& v : VarsOf(type)) all_in_scope = all_in_scope && in_scope(v.get());
  if (all_in_scope) return type;
  return RewriteDims(type, [&](const std::vector<PrimExpr>& dims) {
    for (const PrimExpr& d : dims) {
      for (const tir::Var& v : VarsOf(d)) {
        if (!in_scope(v.get())) return std::optional<std::vector<PrimExpr>>();
      }
    }
    return std::optional<std::vector<PrimExpr>>(dims);
  });
}

}  // namespace wb::relax
