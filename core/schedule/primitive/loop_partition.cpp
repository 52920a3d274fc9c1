// loop_partition (primitives.h): cut a loop into consecutive ranges, each a copy of the loop's
// body under its own opaque block, as TVM's LoopPartition does.

#include "arith/analyzer.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/primitives.h"
#include "schedule/recipe.h"
#include "schedule/region.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

const char* kPrim = "loop_partition";

// One partition's copy of the loop body: every loop and block iterator gets a fresh variable of
// the same name, every block is renamed `<name>_<loop var>`, and a block bound directly to the
// partition's loop variable has that iterator's domain narrowed to the partition's range. The
// regions stay per-instance: TVM widens those of buffers indexed by plain iterators to the
// iterators' whole domains, which a later cache_write takes for what one instance writes (and
// then copies back values the block never wrote).
class PartitionCopier : public StmtExprMutator {
 public:
  PartitionCopier(const Var& old_var, const Var& new_var, PrimExpr begin, PrimExpr end)
      : old_var_(old_var.get()), new_var_(new_var), begin_(std::move(begin)), end_(std::move(end)) {
    vmap_[old_var_] = new_var;
  }

 private:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = vmap_.find(op);
    return it == vmap_.end() ? PrimExpr(GetRef(op)) : it->second;
  }

  Stmt VisitStmt_(const ForNode* op) override {
    Var v = MakeVar(op->loop_var->name_hint, op->loop_var->dtype, op->loop_var->span);
    vmap_[op->loop_var.get()] = v;
    PrimExpr step = op->step.defined() ? VisitExpr(op->step) : op->step;
    return MakeFor(v, VisitExpr(op->min), VisitExpr(op->extent), op->kind, VisitStmt(op->body),
                   op->thread_binding, op->annotations, step, op->span);
  }

  Stmt VisitStmt_(const SBlockRealizeNode* op) override {
    int direct = -1;
    for (size_t i = 0; i < op->iter_values.size(); ++i) {
      if (op->iter_values[i].get() == old_var_) {
        direct = static_cast<int>(i);
        break;
      }
    }
    std::vector<PrimExpr> values;
    for (const PrimExpr& v : op->iter_values) values.push_back(VisitExpr(v));
    PrimExpr pred = VisitExpr(op->predicate);
    SBlock block = CopyBlock(op->block.get(), direct);
    return MakeSBlockRealize(std::move(values), pred, block, op->span);
  }

  SBlock CopyBlock(const SBlockNode* op, int direct) {
    std::string name = op->name_hint + "_" + new_var_->name_hint;
    if (op->iter_vars.empty() || direct < 0) {
      SBlock copy = Downcast<SBlockNode>(StmtExprMutator::VisitStmt_(op));
      if (copy.same_as(GetRef(op))) {
        copy = MakeSBlock(op->iter_vars, op->reads, op->writes, name, op->body, op->init,
                          op->alloc_buffers, op->match_buffers, op->annotations, op->span);
      }
      copy.CopyOnWrite()->name_hint = name;
      return copy;
    }
      std::vector<IterVar> iters;
    for (size_t i = 0; i < op->iter_vars.size(); ++i) {
      const IterVar& iv = op->iter_vars[i];
      Range dom = static_cast<int>(i) == direct
                      ? ir::MakeRange(cast(iv->var->dtype, begin_),
                                      cast(iv->var->dtype, sub(end_, begin_)))
                      : ir::MakeRange(VisitExpr(iv->dom->min), VisitExpr(iv->dom->extent));
      Var v = MakeVar(iv->var->name_hint, iv->var->dtype, iv->var->span);
      vmap_[iv->var.get()] = v;
      iters.push_back(MakeIterVar(dom, v, iv->iter_type, iv->thread_tag, iv->span));
    }
    auto regions = [&](const std::vector<BufferRegion>& in) {
      std::vector<BufferRegion> out;
      for (const BufferRegion& r : in) out.push_back(VisitBufferRegion(r));
      return out;
    };
    std::vector<MatchBufferRegion> matches;
    for (const MatchBufferRegion& m : op->match_buffers) {
      matches.push_back(MakeMatchBufferRegion(m->buffer, VisitBufferRegion(m->source), m->span));
    }
    Stmt init = op->init.defined() ? VisitStmt(op->init) : op->init;
    return MakeSBlock(std::move(iters), regions(op->reads), regions(op->writes), name,
                      VisitStmt(op->body), init, op->alloc_buffers, std::move(matches),
                      op->annotations, op->span);
  }

  const VarNode* old_var_;
  Var new_var_;
  PrimExpr begin_, end_;
  VarMap vmap_;
};

// `regions` clipped to their buffers' shapes: the inference ignores block predicates and the
// guards of if_then_else, so a non-dividing split or a padding read reaches past the buffer,
// where a cache stage built on the region would then copy. `analyzer` knows the enclosing loops.
std::vector<BufferRegion> Clipped(const std::vector<BufferRegion>& regions,
                                  arith::Analyzer& analyzer) {
  std::vector<BufferRegion> out;
  for (const BufferRegion& r : regions) {
    std::vector<Range> ranges;
    for (size_t d = 0; d < r->region.size(); ++d) {
      const Range& range = r->region[d];
      DataType t = range->min->dtype;
      PrimExpr zero = make_const(t, int64_t(0));
      PrimExpr last = analyzer.Simplify(sub(cast(t, r->buffer->shape[d]), make_const(t, int64_t(1))));
      PrimExpr lo = range->min;
      PrimExpr hi = analyzer.Simplify(add(lo, sub(range->extent, make_const(t, int64_t(1)))));
      if (!analyzer.CanProve(greater_equal(lo, zero))) lo = analyzer.Simplify(max(lo, zero));
      if (!analyzer.CanProve(less_equal(hi, last))) hi = analyzer.Simplify(min(hi, last));
      // Where the clipped part is all of it (a predicated-off row), the region is empty.
      PrimExpr extent = analyzer.Simplify(add(sub(hi, lo), make_const(t, int64_t(1))));
      if (!analyzer.CanProve(greater_equal(extent, zero))) {
        extent = analyzer.Simplify(max(extent, zero));
      }
      ranges.push_back(ir::MakeRange(lo, extent));
    }
    out.push_back(MakeBufferRegion(r->buffer, std::move(ranges), r->span));
  }
  return out;
}

// `block` with the regions its body accesses. TVM leaves the partition and common blocks'
// regions empty, which hides their accesses from the dependence analysis of later primitives
// (a cache_write then puts its write-back after a partitioned consumer).
SBlock WithAccessRegions(SBlock block, arith::Analyzer& analyzer) {
  std::vector<BufferRegion> reads, writes;
  InferAccessRegions(block.get(), &reads, &writes);
  SBlockNode* n = block.CopyOnWrite();
  n->reads = Clipped(reads, analyzer);
  n->writes = Clipped(writes, analyzer);
  return block;
}

}  // namespace

std::vector<LoopRV> LoopPartition(Schedule& sch, const LoopRV& loop_rv,
                                  const std::vector<Schedule::Factor>& factors,
                                  bool preserve_unit_iters) {
  For loop = sch.Get(loop_rv);
  const int64_t* min = AsConstInt(loop->min);
  const int64_t* extent = AsConstInt(loop->extent);
  if (!min || !extent) {
    throw ScheduleError(kPrim,
                        "Detected dynamic shape in either min or extent of a loop " +
                            Quote(loop.get()) +
                            ": the min and extent values of the loop are required to be known "
                            "at compile time",
                        loop->span);
  }
  // The partitions' lengths; at most one is inferred (the rest of the extent).
  int infer_index = -1;
  int64_t total = 0;
  std::vector<int64_t> lengths;
  for (size_t i = 0; i < factors.size(); ++i) {
    const Schedule::Factor& f = factors[i];
    if (std::holds_alternative<std::monostate>(f)) {
      if (infer_index != -1) {
        throw ScheduleError(kPrim, "Only one factor can be specified as -1 or none", loop->span);
      }
      infer_index = static_cast<int>(i);
      lengths.push_back(0);
      continue;
    }
    int64_t v = std::holds_alternative<int64_t>(f) ? std::get<int64_t>(f)
                                                   : sch.Get(std::get<Schedule::ExprRV>(f));
    if (v <= 0) {
      throw ScheduleError(kPrim,
                          "All the constant factors are required to be positive. However, the "
                          "factor at position " +
                              std::to_string(i) + " is " + std::to_string(v),
                          loop->span);
    }
    lengths.push_back(v);
    total += v;
  }
  if (total >= *extent) {
    throw ScheduleError(kPrim,
                        "The sum of factors is larger than or equal to the extent of loop " +
                            Quote(loop.get()),
                        loop->span);
  }
  if (!loop->annotations.empty() || loop->thread_binding.defined() ||
      loop->kind == ForKind::kThreadBinding) {
    throw ScheduleError(kPrim, "The primitive can't be applied because the loop " +
                                   Quote(loop.get()) + " has annotation or thread binding",
                        loop->span);
  }
  // A reduction with an init over the loop: each partition's copy would restart the reduction
  // (TVM's result) or, were the init kept to the first partition, leave the later copies
  // updating what another block produced, which later primitives do not expect.
  PostOrderVisit(loop->body, [&](const ir::Object* n) {
    auto* realize = NodeAs<SBlockRealizeNode>(n);
    if (!realize || !realize->block->init.defined()) return;
    for (size_t i = 0; i < realize->iter_values.size(); ++i) {
      const IterVar& iv = realize->block->iter_vars[i];
      if (iv->iter_type != IterVarType::kCommReduce) continue;
      bool uses = false;
      PostOrderVisit(realize->iter_values[i],
                     [&](const ir::Object* m) { uses |= m == loop->loop_var.get(); });
      if (uses) {
        throw ScheduleError(kPrim, "The loop " + Quote(loop.get()) +
                                       " binds the reduction iterator " + iv->var->name_hint +
                                       " of block " + Quote(realize->block.get()) +
                                       ", which has an init: partitioning it would split the "
                                       "reduction, each part restarting it",
                            loop->span);
      }
    }
  });
  std::vector<SBlock> blocks = ChildBlocks(loop);
  if (blocks.empty()) {
    throw ScheduleError(kPrim, "The loop " + Quote(loop.get()) + " has no block under it",
                        loop->span);
  }
  if (infer_index != -1) {
    lengths[infer_index] = *extent - total;
  } else {
    lengths.push_back(*extent - total);
  }

  arith::Analyzer analyzer;
  for (const StmtNode* s : PathTo(sch.Func()->body, loop.get())) {
    if (auto* f = NodeAs<ForNode>(s); f && f != loop.get()) {
      analyzer.Bind(f->loop_var, ir::MakeRange(f->min, f->extent));
    }
  }
  DataType dtype = loop->loop_var->dtype;
  std::string base = blocks[0]->name_hint + "_" + loop->loop_var->name_hint;
  std::vector<Stmt> partitions;
  std::vector<Var> vars;
  int64_t begin = *min;
  for (size_t i = 0; i < lengths.size(); ++i) {
    Var v = MakeVar(loop->loop_var->name_hint + std::to_string(i), dtype, loop->loop_var->span);
    PrimExpr lo = make_const(dtype, begin), hi = make_const(dtype, begin + lengths[i]);
    Stmt body = PartitionCopier(loop->loop_var, v, lo, hi)(loop->body);
    Stmt inner = MakeFor(v, lo, make_const(dtype, lengths[i]), ForKind::kSerial, body);
    SBlock block = WithAccessRegions(
        MakeSBlock({}, {}, {}, base + std::to_string(i) + "_partition", inner), analyzer);
    partitions.push_back(MakeSBlockRealize({}, make_const(DataType::Bool(), int64_t(1)), block));
    vars.push_back(v);
    begin += lengths[i];
  }
  SBlock common = WithAccessRegions(MakeSBlock({}, {}, {}, base + "_common", MakeSeq(partitions)), analyzer);
  ReplaceOptions options;
  for (const SBlock& b : CollectBlocks(loop)) options.removed_blocks.push_back(b->name_hint);
  sch.Replace(loop.get(),
              MakeSBlockRealize({}, make_const(DataType::Bool(), int64_t(1)), common, loop->span),
              options);

  std::vector<LoopRV> out;
  Instruction inst{"loop_partition", {{"loop", TraceValue::Loop(loop_rv.id)}}, {}, true};
  std::vector<TraceValue> given;
  for (const Schedule::Factor& f : factors) {
    if (std::holds_alternative<std::monostate>(f)) {
      given.push_back(TraceValue::None());
    } else if (std::holds_alternative<int64_t>(f)) {
      given.push_back(TraceValue::Int(std::get<int64_t>(f)));
    } else {
      given.push_back(TraceValue::Expr(std::get<Schedule::ExprRV>(f).id));
    }
  }
  inst.args.push_back({"factors", TraceValue::List(std::move(given))});
  inst.args.push_back({"preserve_unit_iters", TraceValue::Bool(preserve_unit_iters)});
  for (const Var& v : vars) {
    out.push_back(sch.NewLoopRV(v));
    inst.outputs.push_back(TraceValue::Loop(out.back().id));
  }
  sch.Record(std::move(inst));
  return out;
}

namespace {

RecipeMethodRegistrar reg_loop_partition(
    "loop_partition",
    {{"loop", "factors", "preserve_unit_iters"}, false, RecipeReturns::kList,
     [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       const RecipeValue& fv = args.Require("factors");
       if (fv.kind != RecipeValue::Kind::kList) {
         throw RecipeArgs::TypeError(fv, "factors", "a list");
       }
       std::vector<Schedule::Factor> factors;
       for (const RecipeValue& f : fv.list) {
         if (f.kind == RecipeValue::Kind::kNone) {
           factors.push_back(std::monostate{});
         } else if (f.kind == RecipeValue::Kind::kInt) {
           factors.push_back(f.i);
         } else if (args.IsExpr(f)) {
           factors.push_back(args.ExprOf(f));
         } else {
           throw RecipeArgs::TypeError(f, "a factor", "an integer, a sampled value or None");
         }
       }
       std::vector<LoopRV> loops = LoopPartition(sch, args.Loop("loop"), factors,
                                                 args.Bool("preserve_unit_iters", true));
       return std::vector<RecipeRV>(loops.begin(), loops.end());
     }},
    {"loop transformations",
     "partition the loop into consecutive ranges, each its own loop under its own block",
     {{"loop", RecipeParamKind::kLoop, "the loop to partition", ""},
      {"factors", RecipeParamKind::kFactors,
       "the partitions' lengths, in order; one None takes the rest, else a last partition does",
       ""},
      {"preserve_unit_iters", RecipeParamKind::kBool, "kept for TVM's signature (unused)",
       "True"}}});

}  // namespace
}  // namespace wb::schedule
