// get_child_blocks, get_producers, get_consumers, get_output_blocks (shared/SCHEDULE.md §2.1):
// lookups over the sref tree and the block scope; they change nothing but the trace.
#include "schedule/block_scope.h"
#include "schedule/primitive/primitives.h"
#include "schedule/recipe.h"
#include "schedule/schedule.h"
#include "tir/functor.h"

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

RecipeMethodRegistrar reg_output_blocks(
    "get_output_blocks",
    {{"scope_block"}, false, RecipeReturns::kList,
     [](Schedule& sch, RecipeArgs& args) {
       return ToRecipe(GetOutputBlocks(sch, args.Block("scope_block")));
     }},
    {"lookup",
     "the blocks under a scope block that write a buffer their own scope does not allocate",
     {{"scope_block", RecipeParamKind::kBlock, "the scope block (\"root\" for the function)",
       ""}}});

// TVM's ScheduleState._get_cached_flags as a dict of the three flags.
RecipeValue FlagsValue(const CachedFlags& flags) {
  RecipeValue v;
  v.kind = RecipeValue::Kind::kDict;
  for (const auto& [key, value] : {std::pair<const char*, bool>{"affine_binding", flags.affine_binding},
                                   {"region_cover", flags.region_cover},
                                   {"stage_pipeline", flags.stage_pipeline}}) {
    RecipeValue k;
    k.kind = RecipeValue::Kind::kString;
    k.s = key;
    RecipeValue b;
    b.kind = RecipeValue::Kind::kBool;
    b.i = value;
    v.list.push_back(std::move(k));
    v.list.push_back(std::move(b));
  }
  return v;
}

RecipeMethodRegistrar reg_cached_flags(
    "_get_cached_flags",
    {{"block"}, false, RecipeReturns::kValue, {},
     [](Schedule& sch, RecipeArgs& args) {
       return FlagsValue(GetCachedFlags(sch, args.Block("block")));
     }},
    {"lookup",
     "the block's affine_binding, region_cover and stage_pipeline flags, as a dict",
     {{"block", RecipeParamKind::kBlock, "the block", ""}}});

}  // namespace

CachedFlags GetCachedFlags(const Schedule& sch, const SBlockRV& block_rv) {
  SBlock block = sch.Get(block_rv);
  PrimFunc func = sch.Func();
  CachedFlags flags;
  flags.affine_binding = IsAffineBinding(func, block.get());
  SBlock parent = ParentBlock(func, block.get());
  flags.region_cover = !parent.defined() || HasRegionCover(func, BlockScope(parent), block.get());
  BlockScope scope(block);
  flags.stage_pipeline = !scope.HasWAR();
  for (const SBlock& child : scope.children()) {
    flags.stage_pipeline = flags.stage_pipeline && HasRegionCover(func, scope, child.get());
  }
  return flags;
}

std::vector<SBlockRV> GetOutputBlocks(Schedule& sch, const SBlockRV& scope_block) {
  SBlock scope = sch.Get(scope_block);
  PrimFunc func = sch.Func();
  // Every block below the scope's body, nested ones too, in pre-order (init statements hold
  // none); each is judged against its own scope root.
  struct Collector : StmtVisitor {
    using StmtVisitor::VisitStmt_;
    void VisitStmt_(const SBlockNode* op) override {
      blocks.push_back(GetRef(op));
      VisitStmt(op->body);
    }
    std::vector<SBlock> blocks;
  } collect;
  collect(scope->body);
  std::vector<SBlock> outputs;
  for (const SBlock& b : collect.blocks) {
    SBlock parent = ParentBlock(func, b.get());
    if (parent.defined() && IsOutputBlock(parent.get(), b.get())) outputs.push_back(b);
  }
  Instruction inst{"get_output_blocks", {{"scope_block", TraceValue::Block(scope_block.id)}}, {},
                   true};
  std::vector<SBlockRV> out = Handles(sch, outputs, inst);
  sch.Record(std::move(inst));
  return out;
}

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
