// transform_block_layout (primitives.h): re-index a block's iteration space by an index map, e.g.
// fuse or permute its iterators, with a fresh loop nest over the new space. Every point of the
// old space is still visited once (the map must be bijective), in the order of the new one.
#include <algorithm>
#include <unordered_map>

#include "arith/analyzer.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/primitives.h"
#include "schedule/primitive/reduction.h"
#include "schedule/recipe.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

const char* kPrim = "transform_block_layout";

// Simplifies the indices of loads and stores and the access regions.
class AccessSimplifier : public StmtExprMutator {
 public:
  explicit AccessSimplifier(arith::Analyzer* ana) : ana_(ana) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* store = s.as<BufferStoreNode>();
    return MakeBufferStore(store->buffer, store->value, Simplify(store->indices), store->predicate,
                           store->span);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    return MakeBufferLoad(load->buffer, Simplify(load->indices), load->predicate, load->span);
  }

 protected:
  BufferRegion VisitBufferRegion(const BufferRegion& region) override {
    BufferRegion r = StmtExprMutator::VisitBufferRegion(region);
    std::vector<Range> out;
    for (const Range& rg : r->region) {
      out.push_back(ir::MakeRange(NonTrivial(rg->min), ana_->Simplify(rg->extent)));
    }
    return MakeBufferRegion(r->buffer, out, r->span);
  }

 private:
  // As TVM's IterMapSimplifyWithContext with non_trivial_only: an index that is a variable stays
  // one even where its range makes it a constant (a unit iterator).
  PrimExpr NonTrivial(const PrimExpr& e) {
    PrimExpr s = ana_->Simplify(e);
    return s.as<IntImmNode>() && e.as<VarNode>() ? e : s;
  }
  std::vector<PrimExpr> Simplify(const std::vector<PrimExpr>& es) {
    std::vector<PrimExpr> out;
    for (const PrimExpr& e : es) out.push_back(NonTrivial(e));
    return out;
  }
  arith::Analyzer* ana_;
};

}  // namespace

void TransformBlockLayout(Schedule& sch, const SBlockRV& block_rv, const IndexMap& index_map) {
  SBlock block = sch.Get(block_rv);
  PrimFunc func = sch.Func();
  std::vector<For> loops = detail::LoopsAbove(func, block.get());
  for (const For& l : loops) {
    auto* min = l->min.as<IntImmNode>();
    if (!min || min->value != 0) {
      throw ScheduleError(kPrim, "The loop " + Quote(l.get()) +
                                     " does not start with 0, which is not supported", l->span);
    }
  }
  if (!loops.empty() && ChildBlocks(loops.front()).size() != 1) {
    throw ScheduleError(kPrim, "The loop " + Quote(loops.front().get()) +
                                   " is required to have only one child block", loops.front()->span);
  }
  const SBlockRealizeNode* realize = RealizeOf(func, block.get());
  bool trivial = loops.size() == realize->iter_values.size();
  for (size_t i = 0; trivial && i < loops.size(); ++i) {
    trivial = realize->iter_values[i].get() == loops[i]->loop_var.get();
  }
  if (!trivial) {
    throw ScheduleError(kPrim, "The binding values of the block " + Quote(block.get()) +
                                   " are not variables of outer loops.", block->span);
  }
  std::vector<PrimExpr> vars, extents;
  std::unordered_map<const VarNode*, IterVarType> kinds;
  for (const IterVar& iv : block->iter_vars) {
    auto* min = iv->dom->min.as<IntImmNode>();
    if (!min || min->value != 0) {
      throw ScheduleError(kPrim, "The domain of the iterator " + iv->var->name_hint +
                                     " of block " + Quote(block.get()) + " does not start at 0",
                          block->span);
    }
    vars.push_back(iv->var);
    extents.push_back(iv->dom->extent);
    kinds[iv->var.get()] = iv->iter_type;
  }
  std::string map_text = IndexMapLambdaText(index_map);
  if (index_map->initial_indices.size() != block->iter_vars.size()) {
    throw ScheduleError(kPrim, "The index map " + map_text + " can't be applied to block iters of " +
                                   Quote(block.get()) +
                                   " because the number of parameters mismatch. Expected: " +
                                   std::to_string(index_map->initial_indices.size()) +
                                   ", actual: " + std::to_string(block->iter_vars.size()),
                        block->span);
  }
  std::vector<PrimExpr> mapped = MapIndices(index_map, vars);
  std::vector<PrimExpr> new_extents;
  try {
    new_extents = MapShape(index_map, extents);
  } catch (const std::invalid_argument& e) {
    throw ScheduleError(kPrim, e.what(), block->span);
  }
  // The kind of each new iterator: the one kind of the old iterators it mixes.
  std::vector<IterVar> new_iters;
  std::vector<PrimExpr> new_vars;
  arith::Analyzer ana;
  for (size_t i = 0; i < mapped.size(); ++i) {
    DataType t = mapped[i]->dtype;
    Var v = MakeVar("v" + std::to_string(i), t);
    IterVarType kind = IterVarType::kDataPar;
    auto* one = new_extents[i].as<IntImmNode>();
    if (!one || one->value != 1) {
      bool found = false, mixed = false;
      PostOrderVisit(mapped[i], [&](const ir::Object* n) {
        auto it = kinds.find(dynamic_cast<const VarNode*>(n));
        if (it == kinds.end()) return;
        if (found && it->second != kind) mixed = true;
        kind = it->second;
        found = true;
      });
      if (!found || mixed ||
          (kind != IterVarType::kDataPar && kind != IterVarType::kCommReduce)) {
        throw ScheduleError(kPrim, "Cannot detect the block iter type for new iter value #" +
                                       std::to_string(i) + " of " + map_text + " in " +
                                       Quote(block.get()) +
                                       " because it contains more than one type of original "
                                       "iter vars.",
                            block->span);
      }
    }
    PrimExpr extent = cast(t, new_extents[i]);
    new_iters.push_back(MakeIterVar(ir::MakeRange(make_const(t, int64_t(0)), extent), v, kind));
    new_vars.push_back(v);
  }
  InverseResult inverse = Inverse(index_map, extents);
  if (!inverse.inverse.defined()) {
    throw ScheduleError(kPrim, "The index map " + map_text + " is not bijective affine.",
                        block->span);
  }
  // The accesses are simplified within the new iterators' ranges, as TVM's block mutator binds
  // them (`v1 // 64 * 3 + v2 % 3` over v1 < 64 is `v2 % 3`); an index that is a unit iterator
  // stays a variable.
  std::vector<PrimExpr> old_of_new = MapIndices(inverse.inverse, new_vars);
  VarMap old_iters, old_loops;
  for (size_t i = 0; i < vars.size(); ++i) {
    old_iters[block->iter_vars[i]->var.get()] = old_of_new[i];
    if (i < loops.size()) old_loops[loops[i]->loop_var.get()] = old_of_new[i];
  }

  SBlock new_block = Downcast<SBlockNode>(Substitute(Stmt(block), old_iters));
  new_block.CopyOnWrite()->iter_vars = new_iters;
  for (const IterVar& iv : new_iters) ana.Bind(iv->var, iv->dom, true);
  new_block = Downcast<SBlockNode>(AccessSimplifier(&ana)(Stmt(new_block)));
  std::vector<Var> loop_vars;
  std::vector<PrimExpr> bindings;
  for (size_t i = 0; i < new_iters.size(); ++i) {
    loop_vars.push_back(MakeVar("ax" + std::to_string(i), new_iters[i]->var->dtype));
    bindings.push_back(loop_vars.back());
  }
  // The predicate (true for the one-to-one bindings TVM allows, in practice) over the new nest.
  VarMap pred_map;
  for (size_t i = 0; i < new_vars.size(); ++i) pred_map[Downcast<VarNode>(new_vars[i]).get()] = loop_vars[i];
  PrimExpr predicate = ana.Simplify(Substitute(Substitute(realize->predicate, old_loops), pred_map));
  Stmt body = MakeSBlockRealize(bindings, predicate, new_block, realize->span);
  for (size_t i = new_iters.size(); i-- > 0;) {
    body = MakeFor(loop_vars[i], make_const(loop_vars[i]->dtype, int64_t(0)),
                   new_iters[i]->dom->extent, ForKind::kSerial, body);
  }
  const StmtNode* target = loops.empty() ? static_cast<const StmtNode*>(realize)
                                         : static_cast<const StmtNode*>(loops.front().get());
  sch.Replace(target, body);
  sch.Record({"transform_block_layout",
              {{"block", TraceValue::Block(block_rv.id)},
               {"index_map", TraceValue::Raw(map_text)}},
              {},
              false});
}

namespace {

RecipeMethodRegistrar reg_transform_block_layout(
    "transform_block_layout",
    {{"block", "index_map"}, false, RecipeReturns::kNothing,
     [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       SBlockRV block = args.Block("block");
       IndexMap map =
           args.IndexMapOf(args.Require("index_map"), "index_map", args.LambdaDType(block));
       TransformBlockLayout(sch, block, map);
       return {};
     }},
    {"layout",
     "re-index the block's iteration space by an index map, with a new loop nest",
     {{"block", RecipeParamKind::kBlock, "the block (bound one to one by its loops)", ""},
      {"index_map", RecipeParamKind::kIndexMap,
       "the new iterators from the old, e.g. lambda i, j: (i * 16 + j,)", ""}}});

}  // namespace
}  // namespace wb::schedule
