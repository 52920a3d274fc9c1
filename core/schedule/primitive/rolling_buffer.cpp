// rolling_buffer (primitives.h): shrink a tiled intermediate buffer along one axis to the tile
// it needs, indexing that axis modulo the tile and not recomputing the rows that consecutive
// tiles share, as TVM's RollingBuffer does.
#include <algorithm>

#include "arith/analyzer.h"
#include "relax/dim_text.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/cache.h"
#include "schedule/primitive/primitives.h"
#include "schedule/recipe.h"
#include "schedule/region.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

const char* kPrim = "rolling-buffer";

// One dimension of the relaxed written region: min = floordiv(var * stride, divisor),
// var * stride, var or a constant; a dimension whose consecutive tiles overlap rolls.
struct AxisPattern {
  Var var;          // null: no rolling pattern
  int64_t overlap = 0;
};

bool MatchAxis(const Range& range, AxisPattern* out) {
  const PrimExpr& min = range->min;
  int64_t stride = 0;
  Var var;
  auto var_times = [&](const PrimExpr& e, int64_t* s) -> bool {
    if (auto* v = e.as<VarNode>()) {
      var = GetRef(v);
      *s = 1;
      return true;
    }
    auto* mul = e.as<MulNode>();
    if (!mul) return false;
    auto* v = mul->a.as<VarNode>();
    const int64_t* c = AsConstInt(mul->b);
    if (!v || !c) return false;
    var = GetRef(v);
    *s = *c;
    return true;
  };
  if (auto* div = min.as<FloorDivNode>()) {
    const int64_t* d = AsConstInt(div->b);
    int64_t s = 0;
    if (!d || *d <= 0 || !var_times(div->a, &s) || div->a.as<VarNode>()) return false;
    stride = (s + *d - 1) / *d;
  } else if (!var_times(min, &stride)) {
    if (!AsConstInt(min)) return false;
    *out = {};
    return true;
  }
  const int64_t* extent = AsConstInt(range->extent);
  if (!extent) return false;
  *out = {};
  if (*extent - stride > 0) *out = {var, *extent - stride};
  return true;
}

class RollingRewriter : public StmtExprMutator {
 public:
  RollingRewriter(const SBlockNode* scope, Buffer old_buffer, Buffer new_buffer, size_t axis,
                  PrimExpr extent, std::vector<AxisPattern> patterns)
      : scope_(scope),
        old_(std::move(old_buffer)),
        new_(std::move(new_buffer)),
        axis_(axis),
        extent_(std::move(extent)),
        patterns_(std::move(patterns)) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const SBlockRealizeNode* op) override {
    bool saved = stores_;
    stores_ = false;
    SBlockRealize realize = Downcast<SBlockRealizeNode>(StmtMutator::VisitStmt_(op));
    if (stores_) {
      // The rows the previous tile computed are still in the buffer: compute them only in the
      // first tile (var < 1), elsewhere only the rows past the overlap.
      arith::Analyzer analyzer;
      PrimExpr cond = realize->predicate;
      for (size_t i = 0; i < patterns_.size(); ++i) {
        if (!patterns_[i].var.defined()) continue;
        const Var& var = patterns_[i].var;
        PrimExpr first_tile = analyzer.Simplify(
            Substitute(op->iter_values[i], VarMap{{var.get(), make_const(var->dtype, int64_t(0))}}));
        PrimExpr overlap = make_const(first_tile->dtype, patterns_[i].overlap);
        cond = analyzer.Simplify(logical_and(
            cond, logical_or(less(var, make_const(var->dtype, int64_t(1))),
                             greater_equal(first_tile, overlap))));
      }
      realize.CopyOnWrite()->predicate = cond;
    }
    stores_ = saved;
    return realize;
  }
  Stmt VisitStmt_(const SBlockNode* op) override {
    SBlock block = Downcast<SBlockNode>(StmtMutator::VisitStmt_(op));
    SBlockNode* n = block.CopyOnWrite();
    if (op == scope_) {
      for (Buffer& b : n->alloc_buffers) {
        if (b.same_as(old_)) b = new_;
      }
      return block;
    }
    bool accesses = FindRegion(op->reads, old_).defined() || FindRegion(op->writes, old_).defined();
    if (!accesses) return block;
    // TVM makes the iterator at the rolled axis' position opaque: its accesses wrap around.
    if (axis_ < n->iter_vars.size()) {
      const IterVar& iv = n->iter_vars[axis_];
      n->iter_vars[axis_] = MakeIterVar(iv->dom, iv->var, IterVarType::kOpaque, iv->thread_tag,
                                        iv->span);
    }
    std::vector<BufferRegion> reads, writes;
    InferAccessRegions(block.get(), &reads, &writes);
    auto redirect = [&](std::vector<BufferRegion>& regions,
                        const std::vector<BufferRegion>& inferred) {
      for (BufferRegion& r : regions) {
        if (!r->buffer.same_as(old_)) continue;
        BufferRegion now = FindRegion(inferred, new_);
        r = now.defined() ? now : MakeBufferRegion(new_, r->region, r->span);
      }
    };
    redirect(n->reads, reads);
    redirect(n->writes, writes);
    return block;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    if (!store || !store->buffer.same_as(old_)) return s;
    stores_ = true;
    return MakeBufferStore(new_, store->value, Wrap(store->indices), store->predicate,
                           store->span);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = ExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (!load || !load->buffer.same_as(old_)) return e;
    return MakeBufferLoad(new_, Wrap(load->indices), load->predicate);
  }

 private:
  std::vector<PrimExpr> Wrap(std::vector<PrimExpr> indices) const {
    indices[axis_] = floormod(indices[axis_], cast(indices[axis_]->dtype, extent_));
    return indices;
  }

  const SBlockNode* scope_;
  Buffer old_, new_;
  size_t axis_;
  PrimExpr extent_;
  std::vector<AxisPattern> patterns_;
  bool stores_ = false;
};

}  // namespace

void RollingBuffer(Schedule& sch, const SBlockRV& block_rv, int write_buffer_index) {
  SBlock block = sch.Get(block_rv);
  PrimFunc func = sch.Func();
  Buffer buffer = NthAccessBuffer(kPrim, block.get(), write_buffer_index, false);
  BufferRegion written = FindRegion(block->writes, buffer);
  SBlock scope = GetScopeRoot(sch, kPrim, block.get(), false);
  if (IsOutputBlock(scope.get(), block.get())) {
    throw ScheduleError(kPrim, "The block " + Quote(block.get()) +
                                   " is an output block: it writes a buffer that its scope does "
                                   "not allocate",
                        block->span);
  }
  BlockScope deps(scope);
  for (const auto& list : {deps.DepsByDst(block.get()), deps.DepsBySrc(block.get())}) {
    for (const Dependency& d : list) {
      if (d.kind != DepKind::kRAW) {
        throw ScheduleError(kPrim, "The target block " + Quote(block.get()) +
                                       " is required to have only RAW dependencies",
                            block->span);
      }
    }
  }
  // The lowest common ancestor of the block and its consumers must be a loop: the tile loop.
  std::vector<SBlock> consumers = deps.Consumers(block.get());
  std::vector<const StmtNode*> lca_path = PathIn(func, block.get());
  for (const SBlock& c : consumers) {
    std::vector<const StmtNode*> p = PathIn(func, c.get());
    size_t k = 0;
    while (k < p.size() && k < lca_path.size() && p[k] == lca_path[k]) ++k;
    lca_path.resize(k);
  }
  // Only loops and blocks count as ancestors (TVM's srefs): step over sequences.
  while (!lca_path.empty() && !NodeAs<ForNode>(lca_path.back()) &&
         !NodeAs<SBlockNode>(lca_path.back())) {
    lca_path.pop_back();
  }
  auto* lca = lca_path.empty() ? nullptr : NodeAs<ForNode>(lca_path.back());
  if (!lca || consumers.empty()) {
    throw ScheduleError(kPrim, "rolling_buffer injection is invalid. The block " +
                                   Quote(block.get()) +
                                   " should be tiled so that the lca of the access location of "
                                   "the target buffer " +
                                   buffer->name + " is a for loop.",
                        block->span);
  }
  for (const SBlock& c : consumers) {
    if (!HasRegionCover(func, deps, c.get(), buffer.get())) {
      throw ScheduleError(kPrim, "The block " + Quote(c.get()) + " reads more of " +
                                     buffer->name + " than block " + Quote(block.get()) +
                                     " writes under their common loop " + Quote(lca) +
                                     ", so the buffer cannot keep only the tile",
                          c->span);
    }
  }
  arith::Analyzer analyzer;
  std::vector<Range> region = RelaxRegion(func, block.get(), written, lca, &analyzer);
  for (Range& r : region) r = ir::MakeRange(analyzer.Simplify(r->min), analyzer.Simplify(r->extent));

  auto mismatch = [&] {
    std::string text;
    for (size_t d = 0; d < region.size(); ++d) {
      text += (d ? ", " : "") + relax::DimToString(region[d]->min) + ":" +
              relax::DimToString(analyzer.Simplify(add(region[d]->min, region[d]->extent)));
    }
    return ScheduleError(kPrim, "The target buffer " + buffer->name + " with region [" + text +
                                    "] should have at least one dimension range that matches a "
                                    "rolling pattern such as hh.outer * stride + hh.inner. ",
                         block->span);
  };
  std::vector<AxisPattern> patterns(region.size());
  for (size_t d = 0; d < region.size(); ++d) {
    if (!MatchAxis(region[d], &patterns[d])) throw mismatch();
  }
  // The rolled axis: the one whose tile moves with the outermost of the block's loops.
  std::vector<For> loops;
  for (const StmtNode* s : PathIn(func, block.get())) {
    if (auto* f = NodeAs<ForNode>(s)) loops.push_back(GetRef(f));
  }
  int axis = -1;
  for (const For& l : loops) {
    for (size_t d = 0; d < patterns.size() && axis < 0; ++d) {
      if (patterns[d].var.same_as(l->loop_var)) axis = static_cast<int>(d);
    }
    if (axis >= 0) break;
  }
  if (axis < 0) throw mismatch();

  // What TVM assumes without checking: the tile loops run in order from 0 (the rows a tile skips
  // are the previous tile's), and the block's iterator d indexes dimension d of the buffer (its
  // binding gives the rows of the tile).
  std::vector<PrimExpr> store_indices;
  PostOrderVisit(block->body, [&](const ir::Object* n) {
    auto* store = NodeAs<BufferStoreNode>(n);
    if (store && store->buffer.same_as(buffer) && store_indices.empty()) {
      store_indices = store->indices;
    }
  });
  for (size_t d = 0; d < patterns.size(); ++d) {
    if (!patterns[d].var.defined()) continue;
    For loop;
    for (const For& l : loops) {
      if (l->loop_var.same_as(patterns[d].var)) loop = l;
    }
    if (!loop.defined() || !IsConstInt(loop->min, 0) ||
        (loop->kind != ForKind::kSerial && loop->kind != ForKind::kUnrolled)) {
      throw ScheduleError(kPrim, "The tile loop `" + patterns[d].var->name_hint +
                                     "` must be a serial loop starting at 0: each tile reuses "
                                     "the rows the previous one computed",
                          loop.defined() ? loop->span : block->span);
    }
    bool direct = d < store_indices.size() && d < block->iter_vars.size() &&
                  store_indices[d].get() == block->iter_vars[d]->var.get();
    if (!direct) {
      throw ScheduleError(kPrim, "The block " + Quote(block.get()) + " must index dimension " +
                                     std::to_string(d) + " of " + buffer->name +
                                     " by its iterator " + std::to_string(d) +
                                     ", whose binding gives the rows a tile may skip",
                          block->span);
    }
  }

  Buffer rolled = buffer;
  rolled.CopyOnWrite()->shape[axis] = region[axis]->extent;
  Stmt new_scope = RollingRewriter(scope.get(), buffer, rolled, static_cast<size_t>(axis),
                                   region[axis]->extent, patterns)(scope);
  sch.Replace(scope.get(), new_scope);
  sch.Record({"rolling_buffer",
              {{"block", TraceValue::Block(block_rv.id)},
               {"write_buffer_index", TraceValue::Int(write_buffer_index)}},
              {},
              false});
}

namespace {

RecipeMethodRegistrar reg_rolling_buffer(
    "rolling_buffer",
    {{"block", "write_buffer_index"}, false, RecipeReturns::kNothing,
     [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       RollingBuffer(sch, args.Block("block"),
                     static_cast<int>(args.Int("write_buffer_index")));
       return {};
     }},
    {"caching",
     "keep only the tile of an intermediate buffer along its tiled axis, reusing overlaps",
     {{"block", RecipeParamKind::kBlock, "the block writing the buffer, computed at a tile loop",
       ""},
      {"write_buffer_index", RecipeParamKind::kWriteBuffer, "the buffer (one the block writes)",
       ""}}});

}  // namespace
}  // namespace wb::schedule
