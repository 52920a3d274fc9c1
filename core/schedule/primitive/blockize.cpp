// blockize (shared/SCHEDULE.md §2.7): the loops under a loop, with their single block, become the
// body of a new outer block `<name>_o` whose iters are the "outer" part of each original iter.
//
// The subspace division is ours, not TVM's arith::SubspaceDivide: each binding must be a sum of
// terms that use either only loops under the target (the inner part, starting at 0) or only loops
// above it (the outer part, a multiple of the inner extent). That covers what split and reorder
// produce (`i_0 * 16 + i_1` blockized at `i_1`); anything else is SubspaceNotDivisibleError.
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "arith/iter_affine_map.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/blockize.h"
#include "schedule/primitive/reduction.h"
#include "schedule/recipe.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace detail {

BufferRegion RelaxRegion(const BufferRegion& region, const arith::RangeMap& dom,
                         arith::Analyzer* analyzer) {
  std::vector<Range> out;
  for (size_t d = 0; d < region->region.size(); ++d) {
    const Range& r = region->region[d];
    arith::IntSet lo = arith::EvalSet(r->min, dom, analyzer);
    PrimExpr last = sub(add(r->min, r->extent), make_const(r->extent->dtype, int64_t(1)));
    arith::IntSet hi = arith::EvalSet(last, dom, analyzer);
    Range full = ir::MakeRange(Zero(region->buffer->shape[d]->dtype), region->buffer->shape[d]);
    if (!lo.HasLowerBound() || !hi.HasUpperBound()) {
      out.push_back(full);
      continue;
    }
    arith::IntSet s = arith::IntSet::Interval(lo.min_value, hi.max_value);
    Range c = s.CoverRange(full);
    out.push_back(ir::MakeRange(analyzer->Simplify(c->min), analyzer->Simplify(c->extent)));
  }
  return MakeBufferRegion(region->buffer, out, region->span);
}

Stmt IndexSimplifier::VisitStmt_(const BufferStoreNode* op) {
  Stmt s = StmtExprMutator::VisitStmt_(op);
  auto* store = s.as<BufferStoreNode>();
  std::vector<PrimExpr> idx;
  for (const PrimExpr& i : store->indices) idx.push_back(analyzer_->Simplify(i));
  return MakeBufferStore(store->buffer, store->value, idx, store->predicate, store->span);
}

PrimExpr IndexSimplifier::VisitExpr_(const BufferLoadNode* op) {
  PrimExpr e = StmtExprMutator::VisitExpr_(op);
  auto* load = e.as<BufferLoadNode>();
  std::vector<PrimExpr> idx;
  for (const PrimExpr& i : load->indices) idx.push_back(analyzer_->Simplify(i));
  return MakeBufferLoad(load->buffer, idx, load->predicate, load->span);
}

BufferRegion IndexSimplifier::VisitBufferRegion(const BufferRegion& region) {
  std::vector<Range> out;
  for (const Range& r : region->region) {
    out.push_back(ir::MakeRange(analyzer_->Simplify(r->min), analyzer_->Simplify(r->extent)));
  }
  return MakeBufferRegion(region->buffer, out, region->span);
}

}  // namespace detail

namespace {

void FlattenSum(const PrimExpr& e, std::vector<PrimExpr>* terms) {
  if (auto* a = e.as<AddNode>()) {
    FlattenSum(a->a, terms);
    FlattenSum(a->b, terms);
  } else {
    terms->push_back(e);
  }
}

struct Division {
  PrimExpr outer_binding, inner_binding;
  int64_t outer_extent = 1, inner_extent = 1;
};

// Divides `binding` (over an iter of extent `extent`) into outer * inner_extent + inner; false
// when it does not divide that way.
bool Divide(const PrimExpr& binding, int64_t extent,
            const std::unordered_set<const VarNode*>& inner_vars,
            const std::unordered_set<const VarNode*>& outer_vars,
            const arith::RangeMap& inner_dom, const std::vector<std::pair<Var, Range>>& inner_iters,
            arith::Analyzer* analyzer, Division* out) {
  DataType t = binding->dtype;
  bool in = detail::UsesAnyVar(binding, inner_vars);
  bool outv = detail::UsesAnyVar(binding, outer_vars);
  if (!in) {
    *out = {binding, Zero(t), extent, 1};
    return true;
  }
  if (!outv) {
    *out = {Zero(t), binding, 1, extent};
    return true;
  }
  std::vector<PrimExpr> terms;
  FlattenSum(binding, &terms);
  PrimExpr inner, outer;
  for (const PrimExpr& term : terms) {
    bool ti = detail::UsesAnyVar(term, inner_vars);
    bool to = detail::UsesAnyVar(term, outer_vars);
    if (ti && to) return false;
    PrimExpr& acc = ti ? inner : outer;
    acc = acc.defined() ? add(acc, term) : term;
  }
  if (!outer.defined()) outer = Zero(t);
  arith::IterMapResult affine =
      arith::DetectIterMap({inner}, inner_iters, make_const(DataType::Bool(), int64_t(1)),
                           arith::IterMapLevel::kSurjective, analyzer);
  if (!affine.ok()) return false;
  arith::IntSet s = arith::EvalSet(inner, inner_dom, analyzer);
  if (!s.HasLowerBound() || !s.HasUpperBound() || !analyzer->CanProve(equal(s.min_value, Zero(t)))) {
    return false;
  }
  PrimExpr max_value = analyzer->Simplify(s.max_value);  // keeps the node `hi` points into
  auto* hi = max_value.as<IntImmNode>();
  if (!hi) return false;
  int64_t inner_extent = hi->value + 1;
  if (inner_extent <= 0 || extent % inner_extent != 0) return false;
  PrimExpr ie = make_const(t, inner_extent);
  if (!analyzer->CanProve(equal(floormod(outer, ie), Zero(t)))) return false;
  *out = {analyzer->Simplify(floordiv(outer, ie)), analyzer->Simplify(inner), extent / inner_extent,
          inner_extent};
  return true;
}

// The init of the blockized reduction: a block `<name>_init` over the inner loops it needs.
Stmt OuterInit(const SBlock& inner_block, const std::vector<PrimExpr>& inner_values,
               const PrimExpr& inner_pred, const Stmt& init,
               const std::vector<For>& inner_loops_innermost_first, const std::string& name) {
  VarMap subst;
  std::vector<IterVar> iters;
  std::vector<PrimExpr> values;
  for (size_t i = 0; i < inner_block->iter_vars.size(); ++i) {
    const IterVar& iv = inner_block->iter_vars[i];
    if (iv->iter_type != IterVarType::kDataPar) continue;
    bool used = false;
    PostOrderVisit(init, [&](const Object* n) { used |= n == iv->var.get(); });
    if (!used) continue;
    Var v = MakeVar(iv->var->name_hint + "_init", iv->var->dtype);
    subst[iv->var.get()] = v;
    iters.push_back(MakeIterVar(iv->dom, v, iv->iter_type, iv->thread_tag));
    values.push_back(inner_values[i]);
  }
  Stmt stmt = MakeSBlockRealize(
      values, inner_pred, MakeSBlock(iters, {}, inner_block->writes, name, init));
  for (const For& loop : inner_loops_innermost_first) {
    bool used = false;
    for (const PrimExpr& v : values) used |= detail::UsesAnyVar(v, {loop->loop_var.get()});
    if (!used) continue;
    Var v = MakeVar(loop->loop_var->name_hint, loop->loop_var->dtype);
    subst[loop->loop_var.get()] = v;
    stmt = MakeFor(v, loop->min, loop->extent, loop->kind, stmt, loop->thread_binding,
                   loop->annotations, loop->step);
  }
  return Substitute(stmt, subst);
}

}  // namespace

namespace detail {

SBlockRealize BlockizeLoop(const PrimFunc& func, const For& loop, bool preserve_unit_iters,
                           const char* prim) {
  std::vector<SBlock> children = ChildBlocks(loop);
  if (children.size() != 1) {
    throw ScheduleError(prim, "The loop " + Quote(loop.get()) +
                                  " is required to have exactly one child block, but it has " +
                                  std::to_string(children.size()));
  }
  SBlock block = children[0];
  const SBlockRealizeNode* realize = RealizeOf(func, block.get());
  std::vector<For> all_loops = detail::LoopsAbove(func, block.get());
  // Loops under the target (inclusive) form the inner space; the rest of the scope the outer.
  std::vector<For> inner_loops;  // innermost first
  std::unordered_set<const VarNode*> inner_vars, outer_vars;
  bool inner = true;
  arith::Analyzer analyzer;
  arith::RangeMap inner_dom;
  std::vector<std::pair<Var, Range>> inner_iters;
  for (size_t k = all_loops.size(); k-- > 0;) {
    const For& l = all_loops[k];
    analyzer.Bind(l->loop_var, ir::MakeRange(l->min, l->extent));
    if (inner) {
      inner_loops.push_back(l);
      inner_vars.insert(l->loop_var.get());
      inner_dom[l->loop_var] = ir::MakeRange(l->min, l->extent);
      inner_iters.insert(inner_iters.begin(), {l->loop_var, ir::MakeRange(l->min, l->extent)});
    } else {
      outer_vars.insert(l->loop_var.get());
    }
    if (l.same_as(loop)) inner = false;
  }
  auto not_divisible = [&]() {
    return ScheduleError(prim, "The bindings of the inner block " + Quote(block.get()) +
                                   " can not be blockized by the loops starting at " +
                                   Quote(loop.get()) + ".");
  };
  // The predicate goes to the side whose loops it uses.
  PrimExpr outer_pred = make_const(DataType::Bool(), int64_t(1));
  PrimExpr inner_pred = outer_pred;
  {
    std::vector<PrimExpr> conj{realize->predicate}, flat;
    while (!conj.empty()) {
      PrimExpr c = conj.back();
      conj.pop_back();
      if (auto* a = c.as<AndNode>()) {
        conj.push_back(a->b);
        conj.push_back(a->a);
      } else if (!(c.as<IntImmNode>() && c.as<IntImmNode>()->value != 0)) {
        flat.push_back(c);
      }
    }
    for (const PrimExpr& c : flat) {
      bool ui = detail::UsesAnyVar(c, inner_vars), uo = detail::UsesAnyVar(c, outer_vars);
      if (ui && uo) throw not_divisible();
      PrimExpr& p = ui ? inner_pred : outer_pred;
      p = (p.as<IntImmNode>() ? c : logical_and(p, c));
    }
  }
  std::vector<IterVar> outer_iters, inner_iter_vars;
  std::vector<PrimExpr> outer_values, inner_values;
  VarMap subst;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    auto* ext = iv->dom->extent.as<IntImmNode>();
    Division d;
    if (!ext || !Divide(realize->iter_values[i], ext->value, inner_vars, outer_vars, inner_dom,
                        inner_iters, &analyzer, &d)) {
      throw not_divisible();
    }
    // Kept unit loops stay in the outer binding (`i0 * 16 // 16` is i0, not 0), as TVM's
    // division with simplify_trivial_iterators off keeps them.
    if (preserve_unit_iters && d.outer_binding.as<IntImmNode>() &&
        detail::UsesAnyVar(realize->iter_values[i], outer_vars)) {
      Division kept;
      arith::Analyzer unbound;
      for (const auto& [var, range] : inner_iters) unbound.Bind(var, range);
      if (Divide(realize->iter_values[i], ext->value, inner_vars, outer_vars, inner_dom,
                 inner_iters, &unbound, &kept)) {
        d.outer_binding = kept.outer_binding;
      }
    }
    DataType t = iv->var->dtype;
    Var vo = MakeVar(iv->var->name_hint + "_o", t);
    outer_iters.push_back(MakeIterVar(ir::MakeRange(Zero(t), make_const(t, d.outer_extent)), vo,
                                      iv->iter_type));
    outer_values.push_back(d.outer_binding);
    if (d.inner_extent == 1) {
      subst[iv->var.get()] = d.outer_extent == 1 && !preserve_unit_iters ? Zero(t) : PrimExpr(vo);
    } else {
      Var vi = MakeVar(iv->var->name_hint + "_i", t);
      inner_iter_vars.push_back(
          MakeIterVar(ir::MakeRange(Zero(t), make_const(t, d.inner_extent)), vi, iv->iter_type));
      inner_values.push_back(d.inner_binding);
      subst[iv->var.get()] =
          d.outer_extent == 1 ? PrimExpr(vi) : add(mul(vo, make_const(t, d.inner_extent)), vi);
    }
  }
  arith::Analyzer iter_analyzer;
  arith::RangeMap inner_iter_dom;
  for (const IterVar& iv : inner_iter_vars) {
    iter_analyzer.Bind(iv->var, iv->dom);
    inner_iter_dom[iv->var] = iv->dom;
  }
  SBlock substituted = Downcast<SBlockNode>(
      detail::IndexSimplifier(&iter_analyzer)(Substitute(Stmt(block), subst)));
  bool has_outer_reduction = false;
  if (substituted->init.defined()) {
    for (const IterVar& iv : outer_iters) has_outer_reduction |= iv->iter_type == IterVarType::kCommReduce;
  }
  SBlock inner_block = substituted;
  {
    SBlockNode* n = inner_block.CopyOnWrite();
    n->iter_vars = inner_iter_vars;
    n->init = Stmt();
    if (has_outer_reduction) {
      std::vector<BufferRegion> reads = substituted->writes;
      reads.insert(reads.end(), substituted->reads.begin(), substituted->reads.end());
      n->reads = reads;
    }
  }
  Stmt body = MakeSBlockRealize(inner_values, inner_pred, inner_block);
  for (const For& l : inner_loops) {
    For copy = l;
    copy.CopyOnWrite()->body = body;
    body = copy;
  }
  std::vector<BufferRegion> reads, writes;
  for (const BufferRegion& r : substituted->reads) {
    reads.push_back(detail::RelaxRegion(r, inner_iter_dom, &iter_analyzer));
  }
  for (const BufferRegion& w : substituted->writes) {
    writes.push_back(detail::RelaxRegion(w, inner_iter_dom, &iter_analyzer));
  }
  Stmt init;
  if (substituted->init.defined()) {
    init = OuterInit(inner_block, inner_values, inner_pred, substituted->init, inner_loops,
                     block->name_hint + "_init");
  }
  SBlock outer = MakeSBlock(outer_iters, reads, writes, block->name_hint + "_o", body, init);
  return Downcast<SBlockRealizeNode>(MakeSBlockRealize(outer_values, outer_pred, outer));
}

}  // namespace detail

SBlockRV Schedule::Blockize(const LoopRV& loop_rv, bool preserve_unit_iters) {
  For loop = Get(loop_rv);
  SBlockRealize realize = detail::BlockizeLoop(Func(), loop, preserve_unit_iters, "blockize");
  Replace(loop.get(), realize);
  SBlockRV out = NewBlockRV(realize->block->name_hint);
  Record({"blockize",
          {{"target", TraceValue::Loop(loop_rv.id)},
           {"preserve_unit_iters", TraceValue::Bool(preserve_unit_iters)}},
          {TraceValue::Block(out.id)},
          false});
  return out;
}

}  // namespace wb::schedule

// --- recipe methods ------------------------------------------------------------------------------

namespace wb::schedule {
namespace {

RecipeMethodRegistrar reg_blockize(
    "blockize", {{"target", "preserve_unit_iters"}, false, RecipeReturns::kSingle,
                 [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
                   const RecipeValue& target = args.Require("target");
                   if (target.kind == RecipeValue::Kind::kList) {
                     throw RecipeError{"blockize of a list of blocks is not supported yet; give "
                                       "the loop whose subtree becomes the block",
                                       target.begin, target.end};
                   }
                   return {sch.Blockize(args.LoopOf(target),
                                        args.Bool("preserve_unit_iters", true))};
                 }},
    {"loop transformations",
     "turn the loop's subtree into one outer block",
     {{"target", RecipeParamKind::kLoop, "the loop whose subtree becomes a block", ""},
      {"preserve_unit_iters", RecipeParamKind::kBool,
       "keep iterators of extent 1 in bindings", "True"}}});

}  // namespace
}  // namespace wb::schedule
