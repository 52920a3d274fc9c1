#include "schedule/binding_simplify.h"

#include <algorithm>
#include <climits>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/iter_affine_map.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

// Orders the top-level terms of `e` as IterMap does, by scale (largest first) and then by loop
// order: the simplifier may put a restored unit-loop term anywhere, TVM keeps `i_0*64 + i_1*64`.
PrimExpr OrderTermsByScale(const PrimExpr& e, const LoopRanges& loops) {
  std::vector<PrimExpr> terms;
  std::vector<PrimExpr> stack{e};
  while (!stack.empty()) {
    PrimExpr t = stack.back();
    stack.pop_back();
    if (const auto* add = t.as<AddNode>()) {
      stack.push_back(add->b);
      stack.push_back(add->a);
    } else {
      terms.push_back(t);
    }
  }
  auto key = [&](const PrimExpr& t) {
    int64_t scale = 1;
    if (const auto* mul = t.as<MulNode>()) {
      if (const int64_t* c = AsConstInt(mul->b)) scale = *c;
    }
    if (AsConstInt(t)) return std::pair<int64_t, size_t>(INT64_MIN, 0);
    size_t position = loops.size();
    PostOrderVisit(t, [&](const ir::Object* n) {
      for (size_t i = 0; i < loops.size(); ++i) {
        if (loops[i].first.get() == n) position = std::min(position, i);
      }
    });
    return std::pair<int64_t, size_t>(-scale, position);
  };
  std::stable_sort(terms.begin(), terms.end(),
                   [&](const PrimExpr& x, const PrimExpr& y) { return key(x) < key(y); });
  PrimExpr out;
  for (const PrimExpr& t : terms) out = out.defined() ? add(out, t) : t;
  return out;
}

class BindingSimplifier : public StmtMutator {
 public:
  BindingSimplifier(LoopRanges loops, bool preserve_unit_iters)
      : loops_(std::move(loops)), preserve_unit_iters_(preserve_unit_iters) {}
  using StmtMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    loops_.emplace_back(op->loop_var, ir::MakeRange(op->min, op->extent));
    Stmt s = StmtMutator::VisitStmt_(op);
    loops_.pop_back();
    return s;
  }

  Stmt VisitStmt_(const SBlockNode* op) override {
    // A nested block starts a new scope: the loops outside it are not its iterators.
    LoopRanges saved;
    std::swap(saved, loops_);
    Stmt s = StmtMutator::VisitStmt_(op);
    std::swap(saved, loops_);
    return s;
  }

  Stmt VisitStmt_(const SBlockRealizeNode* op) override {
    Stmt visited = StmtMutator::VisitStmt_(op);
    const auto* realize = visited.as<SBlockRealizeNode>();
    if (realize->iter_values.empty()) return visited;
    std::vector<std::pair<Var, ir::Range>> iters;
    VarMap trivial;
    VarMap restore;
    // A binding over a loop of symbolic extent is no map DetectIterMap reads (TVM's fails on
    // `f // 128` of such a loop): it stays as substituted, not with the loop taken for a constant.
    std::unordered_set<const ir::Object*> symbolic;
    for (const auto& [var, range] : loops_) {
      const int64_t* mn = AsConstInt(range->min);
      const int64_t* ext = AsConstInt(range->extent);
      if (!mn || *mn != 0 || !ext) {
        symbolic.insert(var.get());
        continue;
      }
      if (*ext == 1) {
        // Kept unit loops stay in the binding, as TVM's simplify_trivial=false keeps them: as a
        // symbol outside the iterator set, put back after simplification.
        if (preserve_unit_iters_) {
          Var stand_in = MakeVar(var->name_hint, var->dtype);
          trivial[var.get()] = stand_in;
          restore[stand_in.get()] = var;
        } else {
          trivial[var.get()] = make_const(var->dtype, int64_t(0));
        }
        continue;
      }
      iters.emplace_back(var, range);
    }
    std::vector<PrimExpr> values;
    for (const PrimExpr& v : realize->iter_values) values.push_back(Substitute(v, trivial));
    PrimExpr predicate = Substitute(realize->predicate, trivial);
    bool over_symbolic = false;
    for (const PrimExpr& v : values) {
      PostOrderVisit(v, [&](const ir::Object* n) { over_symbolic |= symbolic.count(n) > 0; });
    }
    if (over_symbolic) {
      return MakeSBlockRealize(realize->iter_values, realize->predicate, realize->block,
                               realize->span);
    }
    arith::Analyzer analyzer;
    arith::IterMapResult result =
        arith::DetectIterMap(values, iters, predicate, arith::IterMapLevel::kSurjective, &analyzer);
    if (result.ok()) {
      for (size_t i = 0; i < values.size(); ++i) {
        values[i] = arith::NormalizeIterMapToExpr(result.indices[i], values[i]->dtype);
        if (!restore.empty()) values[i] = OrderTermsByScale(Substitute(values[i], restore), loops_);
      }
    }
    // Without a simplification the binding stays as substituted (unit loops included).
    if (!result.ok()) values = realize->iter_values;
    return MakeSBlockRealize(values, realize->predicate, realize->block, realize->span);
  }

 private:
  LoopRanges loops_;
  bool preserve_unit_iters_;
};

}  // namespace

LoopRanges OuterLoopRanges(const std::vector<const StmtNode*>& path) {
  LoopRanges out;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (ir::IsInstance<SBlockNode>(path[i])) out.clear();
    if (ir::IsInstance<ForNode>(path[i])) {
      const auto* loop = static_cast<const ForNode*>(path[i]);
      out.emplace_back(loop->loop_var, ir::MakeRange(loop->min, loop->extent));
    }
  }
  return out;
}

Stmt SimplifyBindings(const Stmt& body, const LoopRanges& outer, bool preserve_unit_iters) {
  return BindingSimplifier(outer, preserve_unit_iters)(body);
}

}  // namespace wb::schedule
