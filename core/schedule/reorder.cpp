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
  // Blocks under the chain: only data-parallel and reduction iterators, and TVM's
  // CheckPartialAffineBinding: the block's affine flag, or else bindings affine (surjective, each
  // first split of scale 1) in the loops from the chain's top down to the block, the loops
  // outside it being constants.
  const StmtNode* above_top = nullptr;
  {
    std::vector<const StmtNode*> to_top = PathTo(body, top);
    for (size_t i = to_top.size() - 1; i-- > 0;) {
      if (ir::IsInstance<ForNode>(to_top[i]) || ir::IsInstance<SBlockNode>(to_top[i])) {
        above_top = to_top[i];
        break;
      }
    }
  }
  PrimFunc func = Func();
  std::string failure;
  PostOrderVisit(bottom->body, [&](const ir::Object* n) {
    if (!failure.empty() || !ir::IsInstance<SBlockRealizeNode>(n)) return;
    const auto* realize = static_cast<const SBlockRealizeNode*>(n);
    for (const IterVar& iv : realize->block->iter_vars) {
      if (iv->iter_type != IterVarType::kDataPar && iv->iter_type != IterVarType::kCommReduce) {
        failure = "The block `" + realize->block->name_hint +
                  "` under the loops to be reordered have block iter type other than "
                  "data-parallel or reduction";
        return;
      }
    }
    if (IsAffineBinding(func, realize->block.get())) return;
    std::vector<std::pair<Var, ir::Range>> iters;
    std::vector<const StmtNode*> path = PathTo(GetRef(top), realize);
    for (const StmtNode* st : path) {
      if (const auto* loop = ir::IsInstance<ForNode>(st) ? static_cast<const ForNode*>(st) : nullptr) {
        iters.emplace_back(loop->loop_var, ir::MakeRange(loop->min, loop->extent));
      }
    }
    arith::IterMapResult res = DetectLoopIterMap(realize->iter_values, iters, realize->predicate,
                                                 arith::IterMapLevel::kSurjective);
    bool affine = res.ok();
    for (const arith::IterSumExpr& sum : res.indices) {
      affine = affine && (sum.args.empty() || sum.args[0].scale == 1);
    }
    if (affine) return;
    const auto* outer = above_top && ir::IsInstance<ForNode>(above_top)
                            ? static_cast<const ForNode*>(above_top)
                            : nullptr;
    failure = "The block `" + realize->block->name_hint + "` is required to have an " +
              (outer ? "partial affine binding under " + outer->loop_var->name_hint
                     : std::string("affine binding"));
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
