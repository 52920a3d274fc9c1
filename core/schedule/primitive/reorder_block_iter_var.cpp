// reorder_block_iter_var: permutes a block's iter vars with their bindings. Nothing computed
// changes; what does is the order in which later primitives (blockize, tensorize, the printer's
// T.axis.remap) see the iterators.
#include <algorithm>
#include <set>

#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/recipe.h"

namespace wb::schedule {

using namespace tir;

void Schedule::ReorderBlockIterVar(const SBlockRV& block_rv, const std::vector<int64_t>& new_order) {
  SBlock block = Get(block_rv);
  size_t n = block->iter_vars.size();
  std::set<int64_t> seen(new_order.begin(), new_order.end());
  bool in_range = std::all_of(new_order.begin(), new_order.end(),
                              [&](int64_t k) { return k >= 0 && k < static_cast<int64_t>(n); });
  if (new_order.size() != n || seen.size() != n || !in_range) {
    std::string order;
    for (int64_t k : new_order) order += (order.empty() ? "" : ", ") + std::to_string(k);
    throw ScheduleError("reorder_block_iter_var",
                        "The user provided block itervar index order [" + order +
                            "] is not a valid permutation of [0, 1, ..., num_block_iter_vars-1] "
                            "in block " +
                            Quote(block.get()) + ".",
                        block->span);
  }
  std::vector<const StmtNode*> path = PathTo(Func()->body, block.get());
  auto* realize =
      path.size() >= 2 ? NodeAs<SBlockRealizeNode>(path[path.size() - 2]) : nullptr;
  if (!realize) throw std::invalid_argument("reorder_block_iter_var: the block has no realize");
  std::vector<IterVar> iter_vars;
  std::vector<PrimExpr> iter_values;
  for (int64_t k : new_order) {
    iter_vars.push_back(block->iter_vars[k]);
    iter_values.push_back(realize->iter_values[k]);
  }
  SBlock new_block = block;
  new_block.CopyOnWrite()->iter_vars = std::move(iter_vars);
  SBlockRealize new_realize = GetRef(realize);
  SBlockRealizeNode* r = new_realize.CopyOnWrite();
  r->iter_values = std::move(iter_values);
  r->block = new_block;
  Replace(realize, new_realize);
  std::vector<TraceValue> order;
  for (int64_t k : new_order) order.push_back(TraceValue::Int(k));
  Record({"reorder_block_iter_var",
          {{"block", TraceValue::Block(block_rv.id)}, {"new_order", TraceValue::List(order)}},
          {},
          false});
}

namespace {

RecipeMethodRegistrar reg_reorder_block_iter_var(
    "reorder_block_iter_var",
    {{"block", "new_order"}, false, RecipeReturns::kNothing,
     [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       const RecipeValue& v = args.Require("new_order");
       if (v.kind != RecipeValue::Kind::kList) {
         throw RecipeArgs::TypeError(v, "new_order", "a list of integers");
       }
       std::vector<int64_t> order;
       for (const RecipeValue& k : v.list) order.push_back(args.IntOf(k, "new_order"));
       sch.ReorderBlockIterVar(args.Block("block"), order);
       return {};
     }},
    {"loop transformations",
     "permute the block's iterators (and their bindings)",
     {{"block", RecipeParamKind::kBlock, "the block", ""},
      {"new_order", RecipeParamKind::kIntList,
       "for each new position, the old position of the iterator", ""}}});

}  // namespace
}  // namespace wb::schedule
