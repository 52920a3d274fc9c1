// reorder (shared/SCHEDULE.md §2.2): permutes loops of one single-branch chain in place. The loops
// keep their variables, kinds and annotations, so their handles stay valid and no binding changes.
#include <algorithm>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/iter_affine_map.h"
#include "schedule/binding_simplify.h"
#include "schedule/ir_path.h"
#include "schedule/block_scope.h"
#include "schedule/schedule.h"
#include "tir/functor.h"

namespace wb::schedule {

using namespace tir;

void Schedule::Reorder(const std::vector<LoopRV>& loop_rvs) {
  const char* prim = "reorder";
  std::vector<For> loops;
  for (const LoopRV& rv : loop_rvs) loops.push_back(Get(rv));
  std::unordered_set<const ForNode*> listed;
  for (const For& l : loops) {
    if (!listed.insert(l.get()).second) {
      throw ScheduleError(prim, "Some loop appears in the input array for multiple times: `" +
                                    l->loop_var->name_hint + "`", l->span);
    }
  }
  Instruction inst{"reorder", {}, {}, false};
  for (const LoopRV& rv : loop_rvs) inst.args.push_back({"", TraceValue::Loop(rv.id)});
  if (loops.size() <= 1) {
    trace_.Append(std::move(inst));
    return;
  }
  // Order the listed loops by depth; each must lie under the previous one in the same scope.
  Stmt body = Func()->body;
  std::vector<std::pair<size_t, const ForNode*>> by_depth;
  for (const For& l : loops) by_depth.emplace_back(PathTo(body, l.get()).size(), l.get());
  std::sort(by_depth.begin(), by_depth.end());
  const ForNode* top = by_depth.front().second;
  const ForNode* bottom = by_depth.back().second;
  std::vector<const StmtNode*> chain = PathTo(GetRef(top), bottom);
  for (const auto& [depth, loop] : by_depth) {
    std::vector<const StmtNode*> sub = PathTo(GetRef(top), loop);
    bool crosses_block = sub.empty();
    for (const StmtNode* s : sub) crosses_block |= ir::IsInstance<SBlockNode>(s);
    if (crosses_block || std::find(chain.begin(), chain.end(), loop) == chain.end()) {
      throw ScheduleError(prim,
                          "The loops are not in a chain because they are not in the same "
                          "block scope (loop `" +
                              loop->loop_var->name_hint + "`)", loop->span);
    }
  }
  // Every statement from top to bottom must be a loop whose body is exactly the next one.
  std::vector<For> chain_loops;
  for (size_t i = 0; i < chain.size(); ++i) {
    const auto* loop =
        ir::IsInstance<ForNode>(chain[i]) ? static_cast<const ForNode*>(chain[i]) : nullptr;
    if (!loop || (i + 1 < chain.size() && loop->body.get() != chain[i + 1])) {
      throw ScheduleError(
          prim,
          "The loops are not in a chain because there is a "
          "non-single-branch stmt in between, under loop `" +
              (loop ? loop->loop_var->name_hint : chain_loops.back()->loop_var->name_hint) + "`", Span());
    }
    chain_loops.push_back(GetRef(loop));
  }
  // Blocks directly under the chain: only data-parallel and reduction iterators, affine bindings.
  LoopRanges ranges = OuterLoopRanges(PathTo(body, bottom));
  ranges.emplace_back(bottom->loop_var, ir::MakeRange(bottom->min, bottom->extent));
  std::string failure;
  PostOrderVisit(bottom->body, [&](const ir::Object* n) {
    if (!failure.empty() || !ir::IsInstance<SBlockRealizeNode>(n)) return;
    const auto* realize = static_cast<const SBlockRealizeNode*>(n);
    for (const IterVar& iv : realize->block->iter_vars) {
      if (iv->iter_type != IterVarType::kDataPar && iv->iter_type != IterVarType::kCommReduce) {
        failure = "The block `" + realize->block->name_hint +
                  "` has an iterator that is neither data-parallel nor reduction, which "
                  "reorder does not support";
        return;
      }
    }
    // Loops of symbolic extent take part as DetectLoopIterMap allows; failing that, as constants.
    std::vector<std::pair<Var, ir::Range>> iters, constant_iters;
    for (const auto& r : ranges) {
      const int64_t* mn = AsConstInt(r.second->min);
      if (mn && *mn == 0) iters.push_back(r);
      if (mn && *mn == 0 && AsConstInt(r.second->extent)) constant_iters.push_back(r);
    }
    arith::Analyzer analyzer;
    if (!DetectLoopIterMap(realize->iter_values, iters, realize->predicate, arith::IterMapLevel::kNoCheck).ok() &&
        !arith::DetectIterMap(realize->iter_values, constant_iters, realize->predicate,
                              arith::IterMapLevel::kNoCheck, &analyzer)
             .ok()) {
      failure =
          "The block `" + realize->block->name_hint + "` is required to have an affine binding";
    }
  });
  if (!failure.empty()) throw ScheduleError(prim, failure, Span());

  // The new order: listed loops take the listed positions, in the order given.
  std::vector<For> order = chain_loops;
  size_t next = 0;
  for (For& slot : order) {
    if (listed.count(slot.get())) slot = loops[next++];
  }
  for (size_t i = 0; i < order.size(); ++i) {
    for (size_t j = i + 1; j < order.size(); ++j) {
      const VarNode* inner = order[j]->loop_var.get();
      bool dependent = false;
      auto check = [&](const ir::Object* n) { dependent |= n == inner; };
      PostOrderVisit(order[i]->min, check);
      PostOrderVisit(order[i]->extent, check);
      if (dependent) {
        throw ScheduleError(prim, "Outer Loop `" + order[i]->loop_var->name_hint +
                                      "`'s `min` or `extent` is dependent on an inner loop `" +
                                      inner->name_hint + "` in the new order", order[i]->span);
      }
    }
  }
  Stmt rebuilt = bottom->body;
  for (size_t i = order.size(); i-- > 0;) {
    const For& l = order[i];
    rebuilt = MakeFor(l->loop_var, l->min, l->extent, l->kind, rebuilt, l->thread_binding,
                      l->annotations, l->step, l->span);
  }
  Replace(top, rebuilt);
  trace_.Append(std::move(inst));
}

}  // namespace wb::schedule
