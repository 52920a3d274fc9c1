// decompose_padding (primitives.h): split a padding block into a constant fill of the whole region
// and a copy of the in-bound region, so that the copy runs without a condition per element.
//
// The in-bound region of each iterator is its domain, narrowed to the values its binding takes
// (constant bounds over the loops) and to the bounds the in-bound conjuncts put on it. That is an
// over-approximation whenever the binding does not reach every value (the in-bound block keeps
// the whole in-bound condition as its predicate, so it is exact where it shrinks loops: there
// the binding is the loop variable itself and the bounds are the loop's own).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/primitives.h"
#include "schedule/primitive/reduction.h"
#include "schedule/recipe.h"
#include "schedule/region.h"
#include "tir/builtin.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

const char* kPrim = "decompose-padding";

// The conjuncts of `e`, with `T.likely` hints dropped.
void Conjuncts(const PrimExpr& e, std::vector<PrimExpr>* out) {
  if (auto* a = e.as<AndNode>()) {
    Conjuncts(a->a, out);
    Conjuncts(a->b, out);
    return;
  }
  if (auto* call = e.as<CallNode>()) {
    if (call->op.same_as(GetOp("tirx.likely")) && call->args.size() == 1) {
      Conjuncts(call->args[0], out);
      return;
    }
  }
  out->push_back(e);
}

PrimExpr AndAll(const std::vector<PrimExpr>& conds) {
  PrimExpr all = make_const(DataType::Bool(), int64_t(1));
  for (const PrimExpr& c : conds) all = logical_and(all, c);
  return all;
}

std::vector<const VarNode*> VarsOf(const PrimExpr& e) {
  std::vector<const VarNode*> vars;
  PostOrderVisit(e, [&](const ir::Object* n) {
    if (auto* v = dynamic_cast<const VarNode*>(n)) {
      if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
    }
  });
  return vars;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The bound the comparison `cond` (in the one variable `v`) puts on v: narrows [lo, hi).
// False when `cond` is not a comparison linear in v with constant coefficients.
bool NarrowByComparison(const PrimExpr& cond, const Var& v, int64_t* lo, int64_t* hi) {
  auto* bin = cond.as<BinaryNode>();
  if (!bin) return false;
  ir::TypeIndex kind = static_cast<ir::TypeIndex>(bin->type_index());
  if (kind != ir::TypeIndex::kLT && kind != ir::TypeIndex::kLE && kind != ir::TypeIndex::kGT &&
      kind != ir::TypeIndex::kGE && kind != ir::TypeIndex::kEQ) {
    return false;
  }
  if (!bin->a->dtype.is_int() && !bin->a->dtype.is_uint()) return false;
  arith::Analyzer ana;
  PrimExpr d = ana.Simplify(sub(bin->a, bin->b));
  PrimExpr d0 = ana.Simplify(Substitute(d, VarMap{{v.get(), make_const(v->dtype, int64_t(0))}}));
  PrimExpr d1 = ana.Simplify(Substitute(d, VarMap{{v.get(), make_const(v->dtype, int64_t(1))}}));
  auto* c0 = d0.as<IntImmNode>();
  auto* c1 = d1.as<IntImmNode>();
  if (!c0 || !c1 || c1->value == c0->value) return false;
  int64_t c = c1->value - c0->value;
  PrimExpr rest = ana.Simplify(sub(d, add(mul(make_const(v->dtype, c), v), d0)));
  auto* zero = rest.as<IntImmNode>();
  if (!zero || zero->value != 0) return false;
  // Every form as `c*v + e < 0` (integers: `x <= 0` is `x - 1 < 0`, `x > 0` is `-x < 0`).
  auto less_than_zero = [&](int64_t cc, int64_t e) {
    if (cc > 0) {  // v < -e / cc, i.e. v <= floor((-e - 1) / cc)
      *hi = std::min(*hi, FloorDiv(-e - 1, cc) + 1);
    } else {  // v > e / |cc|
      *lo = std::max(*lo, FloorDiv(e, -cc) + 1);
    }
  };
  int64_t e = c0->value;
  switch (kind) {
    case ir::TypeIndex::kLT: less_than_zero(c, e); break;
    case ir::TypeIndex::kLE: less_than_zero(c, e - 1); break;
    case ir::TypeIndex::kGT: less_than_zero(-c, -e); break;
    case ir::TypeIndex::kGE: less_than_zero(-c, -e - 1); break;
    default:  // kEQ: both c*v + e <= 0 and c*v + e >= 0
      less_than_zero(c, e - 1);
      less_than_zero(-c, -e - 1);
      break;
  }
  return true;
}

ScheduleError PatternError(const SBlock& block, const std::string& detail) {
  return ScheduleError(kPrim,
                       "decompose_padding expect the block " + Quote(block.get()) +
                           " to match padding pattern\n  " + detail,
                       block->span);
}

struct PaddingInfo {
  PrimExpr in_bound_value;      // in block iterators
  PrimExpr in_bound_predicate;  // in loop variables, with the realize's predicate
  PrimExpr pad_value;
  std::vector<int64_t> lo, hi;  // in-bound region of each iterator
};

PaddingInfo MatchPadding(const SBlock& block, const SBlockRealizeNode* realize,
                         const std::vector<For>& loops) {
  auto* store = block->body.as<BufferStoreNode>();
  if (!store || block->writes.size() != 1 || !store->buffer.same_as(block->writes[0]->buffer)) {
    throw PatternError(block, "Block body expect a BufferStore to the write buffer");
  }
  auto* ite = store->value.as<CallNode>();
  if (!ite || !ite->op.same_as(GetOp("tirx.if_then_else")) || ite->args.size() != 3) {
    throw PatternError(block, "Value of BufferStore expect to be constrained by a padding "
                              "predicate");
  }
  PaddingInfo info;
  info.in_bound_value = ite->args[1];
  info.pad_value = ite->args[2];
  if (!info.pad_value.as<IntImmNode>() && !info.pad_value.as<FloatImmNode>()) {
    throw PatternError(block, "Pad value should be constant");
  }
  bool side_effect = false;
  PostOrderVisit(info.in_bound_value, [&](const ir::Object* n) {
    auto* call = dynamic_cast<const CallNode*>(n);
    if (!call) return;
    auto* op = call->op.as<ir::OpNode>();
    const OpInfo* op_info = op ? InfoOf(GetRef(op)) : nullptr;
    if (!op_info || !op_info->pure) side_effect = true;
  });
  if (side_effect) throw PatternError(block, "Inbound computation should not have side-effect");

  // The in-bound condition over the loops must not be always true.
  VarMap bindings;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    bindings[block->iter_vars[i]->var.get()] = realize->iter_values[i];
  }
  std::vector<PrimExpr> conds;
  Conjuncts(ite->args[0], &conds);
  std::vector<PrimExpr> over_loops;
  for (const PrimExpr& c : conds) over_loops.push_back(Substitute(c, bindings));
  Conjuncts(realize->predicate, &over_loops);
  arith::Analyzer ana;
  for (const For& l : loops) ana.Bind(l->loop_var, ir::MakeRange(l->min, l->extent), true);
  info.in_bound_predicate = ana.Simplify(AndAll(over_loops));
  if (ana.CanProve(info.in_bound_predicate)) {
    throw PatternError(block, "The in-bound predicate is trivial");
  }

  // Each iterator's region: its domain, the values its binding takes, the conjuncts on it.
  size_t n = block->iter_vars.size();
  info.lo.resize(n);
  info.hi.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const IterVar& iv = block->iter_vars[i];
    auto* dmin = iv->dom->min.as<IntImmNode>();
    auto* dext = iv->dom->extent.as<IntImmNode>();
    if (!dmin || !dext) {
      throw PatternError(block, "The domain of block iter " + iv->var->name_hint +
                                    " is not constant");
    }
    info.lo[i] = dmin->value;
    info.hi[i] = dmin->value + dext->value;
    arith::ConstIntBound b = ana.const_int_bound(realize->iter_values[i]);
    if (b.min_value != arith::ConstIntBound::kNegInf) info.lo[i] = std::max(info.lo[i], b.min_value);
    if (b.max_value != arith::ConstIntBound::kPosInf) {
      info.hi[i] = std::min(info.hi[i], b.max_value + 1);
    }
  }
  for (const PrimExpr& c : conds) {
    std::vector<const VarNode*> vars = VarsOf(c);
    size_t which = n;
    for (size_t i = 0; i < n && vars.size() == 1; ++i) {
      if (block->iter_vars[i]->var.get() == vars[0]) which = i;
    }
    if (which == n ||
        !NarrowByComparison(c, block->iter_vars[which]->var, &info.lo[which], &info.hi[which])) {
      throw PatternError(block, "Block iters are not independent wrt padding condition");
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (info.hi[i] <= info.lo[i]) {
      throw PatternError(block, "The in-bound region of block iter " +
                                    block->iter_vars[i]->var->name_hint + " is empty");
    }
  }
  return info;
}

// `x + -c` as `x - c`, as TVMScript writes it.
PrimExpr Readable(const PrimExpr& e) {
  if (auto* a = e.as<AddNode>()) {
    if (auto* c = a->b.as<IntImmNode>(); c && c->value < 0) {
      return sub(a->a, make_const(c->dtype, -c->value));
    }
  }
  return e;
}

std::vector<Range> MapRegion(const std::vector<Range>& region, const VarMap& map,
                             arith::Analyzer* ana) {
  std::vector<Range> out;
  for (const Range& r : region) {
    out.push_back(ir::MakeRange(ana->Simplify(Substitute(r->min, map)),
                                ana->Simplify(Substitute(r->extent, map))));
  }
  return out;
}

std::vector<PrimExpr> MapAll(const std::vector<PrimExpr>& es, const VarMap& map,
                             arith::Analyzer* ana) {
  std::vector<PrimExpr> out;
  for (const PrimExpr& e : es) out.push_back(ana->Simplify(Substitute(e, map)));
  return out;
}

}  // namespace

SBlockRV DecomposePadding(Schedule& sch, const SBlockRV& block_rv, const LoopRV& loop_rv) {
  SBlock block = sch.Get(block_rv);
  For loop = sch.Get(loop_rv);
  PrimFunc func = sch.Func();
  SBlock scope_root = GetScopeRoot(sch, kPrim, block.get(), false);
  CheckCompleteBlock(kPrim, BlockScope(scope_root), block.get());
  std::vector<For> loops = detail::LoopsAbove(func, block.get());
  size_t loop_pos = loops.size();
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].same_as(loop)) loop_pos = i;
  }
  if (loop_pos == loops.size()) {
    throw ScheduleError(kPrim,
                        "The input loop " + Quote(loop.get()) +
                            " of decompose_padding is required to be an ancestor of block " +
                            Quote(block.get()) + ".",
                        loop->span);
  }
  const SBlockRealizeNode* realize = RealizeOf(func, block.get());
  PaddingInfo info = MatchPadding(block, realize, loops);
  auto* store = block->body.as<BufferStoreNode>();
  size_t n = block->iter_vars.size();

  // --- The constant fill: fresh copies of the loops from the innermost up to `loop`. ---------
  arith::Analyzer ana;
  for (const For& l : loops) ana.Bind(l->loop_var, ir::MakeRange(l->min, l->extent), true);
  VarMap const_map;
  std::vector<IterVar> const_iters;
  for (const IterVar& iv : block->iter_vars) {
    Var fresh = MakeVar(iv->var->name_hint, iv->var->dtype);
    const_iters.push_back(MakeIterVar(iv->dom, fresh, IterVarType::kDataPar));
    const_map[iv->var.get()] = fresh;
  }
  VarMap const_loops;
  for (size_t k = loops.size(); k-- > loop_pos;) {
    const_loops[loops[k]->loop_var.get()] = MakeVar(loops[k]->loop_var->name_hint,
                                                     loops[k]->loop_var->dtype);
  }
  BufferRegion const_write = MakeBufferRegion(
      store->buffer, MapRegion(block->writes[0]->region, const_map, &ana));
  SBlock const_block = MakeSBlock(
      const_iters, {}, {const_write},
      UniqueBlockName(func, block->name_hint + "_pad_const"),
      MakeBufferStore(store->buffer, info.pad_value, MapAll(store->indices, const_map, &ana)));
  Stmt const_nest = MakeSBlockRealize(MapAll(realize->iter_values, const_loops, &ana),
                                      ana.Simplify(Substitute(realize->predicate, const_loops)),
                                      const_block);
  for (size_t k = loops.size(); k-- > loop_pos;) {
    const For& l = loops[k];
    const_nest = MakeFor(Downcast<VarNode>(const_loops.at(l->loop_var.get())),
                         Substitute(l->min, const_loops), Substitute(l->extent, const_loops),
                         ForKind::kSerial, const_nest);
  }

  // --- The in-bound copy. -----------------------------------------------------------------
  // The single-child chain of loops above the block, up to `loop` at most: loops of it that bind
  // an iterator directly shrink to the in-bound region.
  size_t chain_top = loops.size();  // index of the outermost loop of the chain; size: none
  for (size_t k = loops.size(); k-- > loop_pos;) {
    const Stmt& body = loops[k]->body;
    if (!body.as<ForNode>() && !body.as<SBlockRealizeNode>()) break;
    chain_top = k;
  }
  std::unordered_map<const VarNode*, Range> shrunk;
  VarMap loop_shift;  // a shrunk loop variable -> its old value
  VarMap iter_map;    // an old iterator -> its new one plus the region's minimum
  std::vector<IterVar> new_iters;
  std::vector<PrimExpr> new_bindings;
  for (size_t i = 0; i < n; ++i) {
    const IterVar& iv = block->iter_vars[i];
    DataType t = iv->var->dtype;
    Var fresh = MakeVar(iv->var->name_hint, t);
    PrimExpr lo = make_const(t, info.lo[i]);
    Range dom = ir::MakeRange(make_const(t, int64_t(0)), make_const(t, info.hi[i] - info.lo[i]));
    new_iters.push_back(MakeIterVar(dom, fresh, IterVarType::kDataPar));
    iter_map[iv->var.get()] = add(fresh, lo);
    const PrimExpr& binding = realize->iter_values[i];
    auto* lv = binding.as<VarNode>();
    bool in_chain = false;
    for (size_t k = chain_top; k < loops.size() && lv; ++k) {
      in_chain |= loops[k]->loop_var.get() == lv;
    }
    bool used_elsewhere = false;
    for (size_t j = 0; j < n && lv; ++j) {
      if (j != i && detail::UsesAnyVar(realize->iter_values[j], {lv})) used_elsewhere = true;
    }
    if (in_chain && !used_elsewhere && !shrunk.count(lv)) {
      Range r = ir::MakeRange(make_const(lv->dtype, int64_t(0)),
                              make_const(lv->dtype, info.hi[i] - info.lo[i]));
      shrunk.emplace(lv, r);
      loop_shift[lv] = add(GetRef(lv), make_const(lv->dtype, info.lo[i]));
      new_bindings.push_back(binding);
    } else {
      new_bindings.push_back(
          Readable(ana.Simplify(sub(binding, make_const(binding->dtype, info.lo[i])))));
    }
  }
  for (const auto& [var, range] : shrunk) ana.Bind(GetRef(var), range, true);
  std::vector<BufferRegion> reads, writes;
  for (const BufferRegion& r : block->reads) {
    reads.push_back(MakeBufferRegion(r->buffer, MapRegion(r->region, iter_map, &ana), r->span));
  }
  for (const BufferRegion& w : block->writes) {
    writes.push_back(MakeBufferRegion(w->buffer, MapRegion(w->region, iter_map, &ana), w->span));
  }
  SBlock in_block = block;
  {
    SBlockNode* b = in_block.CopyOnWrite();
    b->iter_vars = new_iters;
    b->reads = reads;
    b->writes = writes;
    b->body = MakeBufferStore(store->buffer, ana.Simplify(Substitute(info.in_bound_value, iter_map)),
                              MapAll(store->indices, iter_map, &ana), store->predicate,
                              store->span);
    std::vector<MatchBufferRegion> matches;
    for (const MatchBufferRegion& m : block->match_buffers) {
      matches.push_back(MakeMatchBufferRegion(m->buffer, Substitute(m->source, iter_map)));
    }
    b->match_buffers = matches;
  }
  PrimExpr in_pred = ana.Simplify(Substitute(info.in_bound_predicate, loop_shift));
  Stmt in_nest = MakeSBlockRealize(new_bindings, in_pred, in_block, realize->span);
  Stmt new_loop;
  if (chain_top == loops.size()) {
    new_loop = ReplaceStmt(loop, realize, in_nest);
  } else {
    for (size_t k = loops.size(); k-- > chain_top;) {
      const For& l = loops[k];
      auto it = shrunk.find(l->loop_var.get());
      PrimExpr min = it != shrunk.end() ? it->second->min : Substitute(l->min, loop_shift);
      PrimExpr extent = it != shrunk.end() ? it->second->extent : Substitute(l->extent, loop_shift);
      in_nest = MakeFor(l->loop_var, min, extent, l->kind, in_nest, l->thread_binding,
                        l->annotations, l->step, l->span);
    }
    new_loop = chain_top == loop_pos ? in_nest : ReplaceStmt(loop, loops[chain_top].get(), in_nest);
  }

  detail::ReplaceBySeq(sch, loop.get(), {const_nest, new_loop});
  SBlockRV out = sch.NewBlockRV(const_block->name_hint);
  sch.Record({"decompose_padding",
              {{"block", TraceValue::Block(block_rv.id)}, {"loop", TraceValue::Loop(loop_rv.id)}},
              {TraceValue::Block(out.id)},
              false});
  return out;
}

namespace {

RecipeMethodRegistrar reg_decompose_padding(
    "decompose_padding",
    {{"block", "loop"}, false, RecipeReturns::kSingle,
     [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       return {DecomposePadding(sch, args.Block("block"), args.Loop("loop"))};
     }},
    {"layout",
     "split a padding block into a constant fill and an in-bound copy without a condition",
     {{"block", RecipeParamKind::kBlock, "the padding block (a store of T.if_then_else)", ""},
      {"loop", RecipeParamKind::kLoop,
       "the loop of the block above which the constant fill goes", ""}}});

RecipeMethodRegistrar reg_can_decompose_padding(
    "can_decompose_padding",
    {{"block", "loop"}, false, RecipeReturns::kValue, {},
     [](Schedule& sch, RecipeArgs& args) {
       RecipeValue v;
       v.kind = RecipeValue::Kind::kBool;
       v.i = CanDecomposePadding(sch, args.Block("block"), args.Loop("loop"));
       return v;
     }},
    {"lookup",
     "whether decompose_padding applies to the block at the loop",
     {{"block", RecipeParamKind::kBlock, "the padding block", ""},
      {"loop", RecipeParamKind::kLoop, "the loop above which the constant fill would go", ""}}});

}  // namespace

bool CanDecomposePadding(const Schedule& sch, const SBlockRV& block, const LoopRV& loop) {
  // The primitive checks everything before it changes anything; trying it on a copy (the IR is
  // shared, not copied) answers without a second copy of its checks.
  Schedule trial = sch;
  try {
    DecomposePadding(trial, block, loop);
  } catch (const ScheduleError&) {
    return false;
  } catch (const std::invalid_argument&) {
    return false;
  }
  return true;
}
}  // namespace wb::schedule
