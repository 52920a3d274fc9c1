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
  if (auto* n = e.as<NotNode>()) {
    auto x = EvalIndex(n->a, bindings);
    if (!x) return std::nullopt;
    return *x == 0;
  }
  if (auto* b = e.as<BinaryNode>()) {
    auto x = EvalIndex(b->a, bindings), y = EvalIndex(b->b, bindings);
    if (!x || !y) return std::nullopt;
    switch (e->type_index()) {
      case ir::TypeIndex::kAdd: return *x + *y;
      case ir::TypeIndex::kSub: return *x - *y;
      case ir::TypeIndex::kMul: return *x * *y;
      case ir::TypeIndex::kMin: return std::min(*x, *y);
      case ir::TypeIndex::kMax: return std::max(*x, *y);
      case ir::TypeIndex::kEQ: return *x == *y;
      case ir::TypeIndex::kNE: return *x != *y;
      case ir::TypeIndex::kLT: return *x < *y;
      case ir::TypeIndex::kLE: return *x <= *y;
      case ir::TypeIndex::kGT: return *x > *y;
      case ir::TypeIndex::kGE: return *x >= *y;
      case ir::TypeIndex::kAnd: return *x && *y;
      case ir::TypeIndex::kOr: return *x || *y;
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

// Whether `e` reads the variable `var`.
class VarReads : public ExprVisitor {
 public:
  explicit VarReads(const VarNode* var) : var_(var) {}
  using ExprVisitor::VisitExpr_;
  void VisitExpr_(const VarNode* op) override { found = found || op == var_; }
  bool found = false;

 private:
  const VarNode* var_;
};

bool Reads(const PrimExpr& e, const VarNode* var) {
  VarReads reads(var);
  reads.VisitExpr(e);
  return reads.found;
}

// A tile guard reads a tile loop and a loop inside it: a few thousand points for real kernels.
constexpr double kMaxGuardPoints = 1 << 16;

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
    loops_.push_back(Loop{op->loop_var.get(), EvalIndex(op->min, bindings_).value_or(0), *extent, step});
    VisitStmt(op->body);
    loops_.pop_back();
    scale_ = saved;
  }

  // A guard (the padded last tile of a split, a block predicate) runs its body on part of the
  // iterations only: count that part, so a scheduled kernel counts the work of the one as written.
  void VisitStmt_(const IfThenElseNode* op) override {
    VisitExpr(op->condition);
    double taken = Fraction(op->condition);
    double saved = scale_;
    scale_ = saved * taken;
    VisitStmt(op->then_case);
    if (op->else_case.defined()) {
      scale_ = saved * (1 - taken);
      VisitStmt(op->else_case);
    }
    scale_ = saved;
  }
  void VisitStmt_(const SBlockRealizeNode* op) override {
    double saved = scale_;
    if (op->predicate.defined()) scale_ *= Fraction(op->predicate);
    StmtExprVisitor::VisitStmt_(op);
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

  struct Loop {
    const VarNode* var;
    int64_t min, extent, step;
  };

  // The fraction of the enclosing loops' iterations on which `condition` holds, by enumerating
  // the loops it reads; 1 where it cannot be told, or where they span more than kMaxGuardPoints
  // (a count runs on every checked kernel call, so it must stay cheap).
  double Fraction(const PrimExpr& condition) {
    if (auto* imm = condition.as<IntImmNode>()) return imm->value ? 1 : 0;
    std::vector<const Loop*> used;
    double points = 1;
    for (const Loop& loop : loops_) {
      if (!Reads(condition, loop.var)) continue;
      used.push_back(&loop);
      points *= static_cast<double>((loop.extent + loop.step - 1) / std::max<int64_t>(loop.step, 1));
    }
    if (used.empty() || points <= 0 || points > kMaxGuardPoints) {
      if (used.empty()) {
        auto value = EvalIndex(condition, bindings_);
        if (value) return *value ? 1 : 0;
      }
      return 1;
    }
    VarBindings env = bindings_;
    std::vector<int64_t> at(used.size(), 0);
    double hits = 0;
    for (double n = 0; n < points; ++n) {
      for (size_t k = 0; k < used.size(); ++k) env[used[k]->var] = used[k]->min + at[k] * used[k]->step;
      auto value = EvalIndex(condition, env);
      if (!value) return 1;
      hits += *value != 0;
      for (size_t k = used.size(); k-- > 0;) {
        if (++at[k] * used[k]->step < used[k]->extent) break;
        at[k] = 0;
      }
    }
    return hits / points;
  }

  const VarBindings& bindings_;
  bool count_all_;
  double scale_ = 1;
  std::vector<Loop> loops_;
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
