#include "codegen/flop_count.h"

#include <algorithm>

#include "tir/functor.h"

namespace wb::codegen {

using namespace tir;

std::optional<int64_t> EvalIndex(const PrimExpr& e, const VarBindings& bindings) {
  if (!e.defined()) return std::nullopt;
  if (auto* i = e.as<IntImmNode>()) return i->value;
  if (auto* v = e.as<VarNode>()) {
    auto it = bindings.find(v);
    if (it == bindings.end()) return std::nullopt;
    return it->second;
  }
  if (auto* c = e.as<CastNode>()) return EvalIndex(c->value, bindings);
  if (auto* b = e.as<BinaryNode>()) {
    auto x = EvalIndex(b->a, bindings), y = EvalIndex(b->b, bindings);
    if (!x || !y) return std::nullopt;
    switch (e->type_index()) {
      case ir::TypeIndex::kAdd: return *x + *y;
      case ir::TypeIndex::kSub: return *x - *y;
      case ir::TypeIndex::kMul: return *x * *y;
      case ir::TypeIndex::kMin: return std::min(*x, *y);
      case ir::TypeIndex::kMax: return std::max(*x, *y);
      case ir::TypeIndex::kFloorDiv:
        if (*y == 0) return std::nullopt;
        return (*x / *y) - ((*x % *y != 0) && ((*x < 0) != (*y < 0)));
      case ir::TypeIndex::kFloorMod: {
        if (*y == 0) return std::nullopt;
        int64_t r = *x % *y;
        return (r != 0 && ((r < 0) != (*y < 0))) ? r + *y : r;
      }
      default: return std::nullopt;
    }
  }
  return std::nullopt;
}

namespace {

class FlopCounter : public StmtExprVisitor {
 public:
  // count_all: every expression node and store of any dtype (CountOperations), not only
  // floating-point arithmetic.
  FlopCounter(const VarBindings& bindings, bool count_all) : bindings_(bindings), count_all_(count_all) {}

  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  void VisitStmt_(const ForNode* op) override {
    auto extent = EvalIndex(op->extent, bindings_);
    if (!extent) {
      known = false;
      return;
    }
    double saved = scale_;
    int64_t step = 1;
    if (op->step.defined()) step = EvalIndex(op->step, bindings_).value_or(1);
    scale_ *= static_cast<double>((std::max<int64_t>(*extent, 0) + step - 1) / std::max<int64_t>(step, 1));
    VisitStmt(op->body);
    scale_ = saved;
  }

  void VisitExpr(const PrimExpr& e) override {
    if (count_all_ && e.defined()) flops += scale_;
    StmtExprVisitor::VisitExpr(e);
  }
  void VisitStmt(const Stmt& s) override {
    if (count_all_ && s.as<BufferStoreNode>()) flops += scale_;
    StmtExprVisitor::VisitStmt(s);
  }

  void VisitExpr_(const AddNode* op) override { Count(op); StmtExprVisitor::VisitExpr_(op); }
  void VisitExpr_(const SubNode* op) override { Count(op); StmtExprVisitor::VisitExpr_(op); }
  void VisitExpr_(const MulNode* op) override { Count(op); StmtExprVisitor::VisitExpr_(op); }
  void VisitExpr_(const DivNode* op) override { Count(op); StmtExprVisitor::VisitExpr_(op); }
  void VisitExpr_(const MinNode* op) override { Count(op); StmtExprVisitor::VisitExpr_(op); }
  void VisitExpr_(const MaxNode* op) override { Count(op); StmtExprVisitor::VisitExpr_(op); }
  void VisitExpr_(const CallNode* op) override { Count(op); StmtExprVisitor::VisitExpr_(op); }

  bool known = true;
  double flops = 0;

 private:
  void Count(const PrimExprNode* op) {
    if (!count_all_ && op->dtype.is_floating_point()) flops += scale_ * op->dtype.lanes();
  }

  const VarBindings& bindings_;
  bool count_all_;
  double scale_ = 1;
};

}  // namespace

std::optional<double> CountFlops(const PrimFunc& func, const VarBindings& bindings) {
  FlopCounter counter(bindings, false);
  counter(func->body);
  if (!counter.known) return std::nullopt;
  return counter.flops;
}

std::optional<double> CountOperations(const PrimFunc& func, const VarBindings& bindings) {
  FlopCounter counter(bindings, true);
  counter(func->body);
  if (!counter.known) return std::nullopt;
  return counter.flops;
}

}  // namespace wb::codegen
