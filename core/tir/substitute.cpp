#include "tir/substitute.h"

#include "tir/functor.h"

namespace wb::tir {

namespace {

class Substituter : public StmtExprMutator {
 public:
  explicit Substituter(const VarMap& vmap) : vmap_(vmap) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitBufferRegion;

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = vmap_.find(op);
    return it == vmap_.end() ? PrimExpr(GetRef(op)) : it->second;
  }

 private:
  const VarMap& vmap_;
};

}  // namespace

Stmt Substitute(const Stmt& stmt, const VarMap& vmap) {
  if (vmap.empty() || !stmt.defined()) return stmt;
  return Substituter(vmap)(stmt);
}

PrimExpr Substitute(const PrimExpr& expr, const VarMap& vmap) {
  if (vmap.empty() || !expr.defined()) return expr;
  return Substituter(vmap)(expr);
}

BufferRegion Substitute(const BufferRegion& region, const VarMap& vmap) {
  if (vmap.empty()) return region;
  Substituter s(vmap);
  return s.VisitBufferRegion(region);
}

}  // namespace wb::tir
