// get_child_blocks, get_producers, get_consumers (shared/SCHEDULE.md §2.1): lookups over the
// sref tree and the block scope; they change nothing but the trace.
#include "schedule/block_scope.h"
#include "schedule/recipe.h"
#include "schedule/schedule.h"

namespace wb::schedule {

using namespace tir;

namespace {

std::vector<SBlockRV> Handles(Schedule& sch, const std::vector<SBlock>& blocks,
                              Instruction& inst) {
  std::vector<SBlockRV> out;
  for (const SBlock& b : blocks) {
    out.push_back(sch.NewBlockRV(b->name_hint));
    inst.outputs.push_back(TraceValue::Block(out.back().id));
  }
  return out;
}

std::vector<RecipeRV> ToRecipe(const std::vector<SBlockRV>& blocks) {
  return std::vector<RecipeRV>(blocks.begin(), blocks.end());
}

RecipeMethodRegistrar reg_children("get_child_blocks",
                                   {{"block_or_loop"}, false, RecipeReturns::kList,
                                    [](Schedule& sch, RecipeArgs& args) {
                                      return ToRecipe(sch.GetChildBlocks(
                                          args.BlockOrLoop("block_or_loop")));
                                    }},
                                   {"lookup",
                                    "the blocks directly below a block or loop",
                                    {{"block_or_loop", RecipeParamKind::kBlockOrLoop,
                                      "the block or loop", ""}}});
RecipeMethodRegistrar reg_producers("get_producers",
                                    {{"block"}, false, RecipeReturns::kList,
                                     [](Schedule& sch, RecipeArgs& args) {
                                       return ToRecipe(sch.GetProducers(args.Block("block")));
                                     }},
                                    {"lookup",
                                     "the blocks whose results the block reads",
                                     {{"block", RecipeParamKind::kBlock, "the block", ""}}});
RecipeMethodRegistrar reg_consumers("get_consumers",
                                    {{"block"}, false, RecipeReturns::kList,
                                     [](Schedule& sch, RecipeArgs& args) {
                                       return ToRecipe(sch.GetConsumers(args.Block("block")));
                                     }},
                                    {"lookup",
                                     "the blocks that read the block's results",
                                     {{"block", RecipeParamKind::kBlock, "the block", ""}}});

}  // namespace

std::vector<SBlockRV> Schedule::GetChildBlocks(const std::variant<SBlockRV, LoopRV>& block_or_loop) {
  Stmt root;
  TraceValue input;
  if (const auto* b = std::get_if<SBlockRV>(&block_or_loop)) {
    root = Get(*b);
    input = TraceValue::Block(b->id);
  } else {
    const LoopRV& l = std::get<LoopRV>(block_or_loop);
    root = Get(l);
    input = TraceValue::Loop(l.id);
  }
  Instruction inst{"get_child_blocks", {{"", input}}, {}, true};
  std::vector<SBlockRV> out = Handles(*this, ChildBlocks(root), inst);
  Record(std::move(inst));
  return out;
}

std::vector<SBlockRV> Schedule::GetProducers(const SBlockRV& block) {
  SBlock b = Get(block);
  BlockScope scope(GetScopeRoot(*this, "get-producers", b.get(), false));
  Instruction inst{"get_producers", {{"block", TraceValue::Block(block.id)}}, {}, true};
  std::vector<SBlockRV> out = Handles(*this, scope.Producers(b.get()), inst);
  Record(std::move(inst));
  return out;
}

std::vector<SBlockRV> Schedule::GetConsumers(const SBlockRV& block) {
  SBlock b = Get(block);
  BlockScope scope(GetScopeRoot(*this, "get-consumers", b.get(), false));
  Instruction inst{"get_consumers", {{"block", TraceValue::Block(block.id)}}, {}, true};
  std::vector<SBlockRV> out = Handles(*this, scope.Consumers(b.get()), inst);
  Record(std::move(inst));
  return out;
}

}  // namespace wb::schedule
