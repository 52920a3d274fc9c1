#include "schedule/region.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "tir/block_access.h"
#include "tir/builtin.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

bool UsesAny(const PrimExpr& e, const arith::RangeMap& dom) {
  bool used = false;
  PostOrderVisit(e, [&](const ir::Object* n) {
    if (const auto* v = NodeAs<VarNode>(n)) used |= dom.count(GetRef(v)) > 0;
  });
  return used;
}

// One end of the hull of `e` over `dom`, relaxing again while the bound still uses a relaxed
// variable (an inner loop's extent may depend on an outer relaxed loop).
PrimExpr RelaxBound(PrimExpr e, const arith::RangeMap& dom, bool upper,
                    arith::Analyzer* analyzer) {
  for (int round = 0; round < 8 && e.defined() && UsesAny(e, dom); ++round) {
    arith::IntSet set = arith::EvalSet(e, dom, analyzer);
    e = upper ? set.max_value : set.min_value;
  }
  return e;
}

// The conjuncts `x < c`, `x <= c`, `c <= x`, `c < x` of `predicate` on a variable of `dom` with
// a constant range narrow that range; other conjuncts are left out (the range stays wider).
void NarrowByPredicate(const PrimExpr& predicate, arith::RangeMap* dom) {
  if (const auto* a = predicate.as<AndNode>()) {
    NarrowByPredicate(a->a, dom);
    NarrowByPredicate(a->b, dom);
    return;
  }
  const auto* cmp = predicate.as<BinaryNode>();
  if (!cmp) return;
  bool lt = predicate.as<LTNode>() != nullptr, le = predicate.as<LENode>() != nullptr;
  if (!lt && !le) return;
  const auto* var = cmp->a.as<VarNode>();
  const int64_t* c = AsConstInt(cmp->b);
  bool upper = true;
  if (!var || !c) {
    var = cmp->b.as<VarNode>();
    c = AsConstInt(cmp->a);
    upper = false;
  }
  if (!var || !c) return;
  auto it = dom->find(GetRef(var));
  if (it == dom->end()) return;
  const int64_t* mn = AsConstInt(it->second->min);
  const int64_t* ext = AsConstInt(it->second->extent);
  if (!mn || !ext) return;
  int64_t lo = *mn, hi = *mn + *ext;  // [lo, hi)
  if (upper) {
    hi = std::min(hi, lt ? *c : *c + 1);
  } else {
    lo = std::max(lo, lt ? *c + 1 : *c);
  }
  if (hi <= lo) return;
  DataType t = it->second->min->dtype;
  it->second = ir::MakeRange(make_const(t, lo), make_const(t, hi - lo));
}

}  // namespace

std::vector<arith::IntSet> RelaxRegionBounds(const PrimFunc& func, const SBlockNode* block,
                                             const BufferRegion& buffer_region, const StmtNode* top,
                                             arith::Analyzer* analyzer, bool relax_threads,
                                             std::set<const ir::Object*>* outer,
                                             const PrimExpr& predicate) {
  std::vector<const StmtNode*> path = PathIn(func, block);
  VarMap bindings;
  if (path.size() >= 2) {
    if (const auto* realize = NodeAs<SBlockRealizeNode>(path[path.size() - 2])) {
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        bindings[block->iter_vars[i]->var.get()] = realize->iter_values[i];
      }
    }
  }
  arith::RangeMap dom;
  std::set<const ir::Object*> outer_loops;  // loops at or above `top`: symbolic in the region
  bool below_top = false;
  for (const StmtNode* s : path) {
    // The iters of the blocks around stay symbolic too, within their domains.
    if (const auto* outer = NodeAs<SBlockNode>(s); outer && outer != block) {
      for (const IterVar& iv : outer->iter_vars) {
        analyzer->Bind(iv->var, iv->dom, true);
        outer_loops.insert(iv->var.get());
      }
    }
    if (s == top) {
      below_top = true;
      if (const auto* loop = NodeAs<ForNode>(s)) {
        analyzer->Bind(loop->loop_var, ir::MakeRange(loop->min, loop->extent), true);
        outer_loops.insert(loop->loop_var.get());
      }
      continue;
    }
    const auto* loop = NodeAs<ForNode>(s);
    if (!loop) continue;
    const bool shared_thread = relax_threads && loop->kind == ForKind::kThreadBinding &&
                               loop->thread_binding.defined() &&
                               CanRelaxUnderThread(buffer_region->buffer->scope(),
                                                   loop->thread_binding->thread_tag);
    if (below_top || shared_thread) {
      dom[loop->loop_var] = ir::MakeRange(loop->min, loop->extent);
    } else {
      // Loops outside `top` stay symbolic, but their ranges let the clipping below prove bounds.
      analyzer->Bind(loop->loop_var, ir::MakeRange(loop->min, loop->extent), true);
      outer_loops.insert(loop->loop_var.get());
    }
  }
  if (predicate.defined()) NarrowByPredicate(Substitute(predicate, bindings), &dom);
  const Buffer& buffer = buffer_region->buffer;
  std::vector<arith::IntSet> out;
  for (size_t d = 0; d < buffer_region->region.size(); ++d) {
    const Range& r = buffer_region->region[d];
    PrimExpr lo_expr = Substitute(r->min, bindings);
    PrimExpr hi_expr = Substitute(add(r->min, sub(r->extent, make_const(r->extent->dtype,
                                                                          int64_t(1)))),
                                  bindings);
    PrimExpr shape = buffer->shape[d];
    PrimExpr lo_v = RelaxBound(lo_expr, dom, false, analyzer);
    PrimExpr hi_v = RelaxBound(hi_expr, dom, true, analyzer);
    if (!lo_v.defined() || UsesAny(lo_v, dom)) lo_v = make_const(shape->dtype, int64_t(0));
    if (!hi_v.defined() || UsesAny(hi_v, dom)) hi_v = sub(shape, make_const(shape->dtype, int64_t(1)));
    out.push_back(arith::IntSet::Interval(lo_v, hi_v));
  }
  if (outer) outer->insert(outer_loops.begin(), outer_loops.end());
  return out;
}

std::vector<Range> RelaxRegion(const PrimFunc& func, const SBlockNode* block,
                               const BufferRegion& buffer_region, const StmtNode* top,
                               arith::Analyzer* analyzer, bool clip, bool relax_threads,
                               const PrimExpr& predicate) {
  std::set<const ir::Object*> outer_loops;
  std::vector<arith::IntSet> bounds = RelaxRegionBounds(func, block, buffer_region, top, analyzer,
                                                        relax_threads, &outer_loops, predicate);
  const Buffer& buffer = buffer_region->buffer;
  std::vector<Range> out;
  for (size_t d = 0; d < bounds.size(); ++d) {
    PrimExpr shape = buffer->shape[d];
    PrimExpr zero = make_const(shape->dtype, int64_t(0));
    PrimExpr last = sub(shape, make_const(shape->dtype, int64_t(1)));
    PrimExpr lo_v = bounds[d].min_value;
    PrimExpr hi_v = bounds[d].max_value;
    // Without the predicate a non-dividing split reaches past the buffer: clip to its shape.
    bool clipped = false;
    if (clip && !analyzer->CanProve(greater_equal(lo_v, zero))) {
      lo_v = max(lo_v, zero);
      clipped = true;
    }
    if (clip && !analyzer->CanProve(less_equal(hi_v, last))) {
      hi_v = min(hi_v, last);
      clipped = true;
    }
    lo_v = analyzer->Simplify(lo_v);
    PrimExpr extent =
        analyzer->Simplify(add(sub(hi_v, lo_v), make_const(lo_v->dtype, int64_t(1))));
    // Clipped to nothing for some iterations of the loops outside (a row the predicate turns off
    // entirely): an empty, not negative, region there. An extent that also depends on the
    // function's own variables (a row count `n`, not provably positive) stays as it is: those are
    // sizes, and the region-cover checks downstream must compare it as written.
    if (clipped && !analyzer->CanProve(greater_equal(extent, zero))) {
      bool loops_only = true;
      PostOrderVisit(extent, [&](const ir::Object* n) {
        if (NodeAs<VarNode>(n) && !outer_loops.count(n)) loops_only = false;
      });
      if (loops_only) extent = analyzer->Simplify(max(extent, make_const(extent->dtype, int64_t(0))));
    }
    out.push_back(ir::MakeRange(lo_v, extent));
  }
  return out;
}

bool CanRelaxUnderThread(const std::string& storage_scope, const std::string& thread_tag) {
  auto starts = [](const std::string& s, const char* p) { return s.rfind(p, 0) == 0; };
  int thread_rank;
  if (starts(thread_tag, "blockIdx.")) {
    thread_rank = 0;
  } else if (starts(thread_tag, "threadIdx.") || starts(thread_tag, "vthread")) {
    thread_rank = 1;
  } else {
    return false;
  }
  if (starts(storage_scope, "warp")) return thread_tag == "threadIdx.x";
  int storage_rank;
  if (storage_scope.empty() || starts(storage_scope, "global")) {
    storage_rank = 0;
  } else if (starts(storage_scope, "shared")) {
    storage_rank = 1;
  } else {
    storage_rank = 3;  // local and the special scopes: one thread's
  }
  return storage_rank <= thread_rank;
}

std::vector<Range> RegionHull(const std::vector<Range>& a, const std::vector<Range>& b,
                              arith::Analyzer* analyzer) {
  std::vector<Range> out;
  for (size_t d = 0; d < a.size(); ++d) {
    DataType t = a[d]->min->dtype;
    PrimExpr one = make_const(t, int64_t(1));
    PrimExpr lo = analyzer->Simplify(min(a[d]->min, b[d]->min));
    PrimExpr hi = analyzer->Simplify(max(add(a[d]->min, sub(a[d]->extent, one)),
                                         add(b[d]->min, sub(b[d]->extent, one))));
    out.push_back(ir::MakeRange(lo, analyzer->Simplify(add(sub(hi, lo), one))));
  }
  return out;
}

Stmt InsertStmt(const Stmt& body, size_t pos, const Stmt& stmt) {
  std::vector<Stmt> seq;
  if (const auto* s = body.as<SeqStmtNode>()) {
    seq = s->seq;
  } else {
    seq.push_back(body);
  }
  pos = std::min(pos, seq.size());
  seq.insert(seq.begin() + static_cast<std::ptrdiff_t>(pos), stmt);
  return MakeSeq(seq);
}

Buffer WithScope(const Buffer& buffer, const std::string& scope, std::vector<PrimExpr> shape) {
  BufferOptions options;
  options.strides = buffer->strides;
  options.scope = scope.empty() ? "global" : scope;
  options.data_alignment = buffer->data_alignment;
  options.offset_factor = buffer->offset_factor;
  return MakeBuffer(buffer->name + "_" + (scope.empty() ? "global" : scope),
                    shape.empty() ? buffer->shape : std::move(shape), buffer->dtype, options);
}

bool IsValidStorageScope(const std::string& scope) {
  static const char* kPrefixes[] = {"global", "shared", "warp",    "local", "wmma.",
                                    "texture", "amx.tmm", "m16n8k8.", "metal.", "trn."};
  if (scope.empty()) return true;
  for (const char* p : kPrefixes) {
    if (scope.rfind(p, 0) == 0) return true;
  }
  return false;
}

std::string UniqueBlockName(const PrimFunc& func, const std::string& base) {
  std::vector<SBlock> all = CollectBlocks(func->body);
  auto taken = [&](const std::string& name) {
    for (const SBlock& b : all) {
      if (b->name_hint == name) return true;
    }
    return false;
  };
  if (!taken(base)) return base;
  for (int i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (!taken(name)) return name;
  }
}

BufferRegion FindRegion(const std::vector<BufferRegion>& regions, const Buffer& buffer) {
  for (const BufferRegion& r : regions) {
    if (r->buffer.same_as(buffer)) return r;
  }
  return BufferRegion();
}

}  // namespace wb::schedule

namespace wb::schedule {

using namespace tir;

namespace {

class AccessCollector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  void VisitStmt_(const ForNode* op) override {
    dom_[op->loop_var] = ir::MakeRange(op->min, op->extent);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const SBlockRealizeNode* op) override {
    Declare(op->block.get());
    for (size_t i = 0; i < op->block->iter_vars.size(); ++i) {
      nested_[op->block->iter_vars[i]->var.get()] = Substitute(op->iter_values[i], nested_);
    }
    VisitExpr(op->predicate);
    VisitStmt(op->block->body);
    if (op->block->init.defined()) VisitStmt(op->block->init);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    VisitExpr(op->value);
    for (const PrimExpr& i : op->indices) VisitExpr(i);
    Add(&writes_, op->buffer, op->indices);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    for (const PrimExpr& i : op->indices) VisitExpr(i);
    Add(&reads_, op->buffer, op->indices);
  }
  // `T.tvm_access_ptr(type, B.data, offset, extent, mask)` accesses the whole of B, as TVM's
  // region detection counts it: a read (mask 1), a write (mask 2) or both.
  void VisitExpr_(const CallNode* op) override {
    static const ir::Op access_ptr = GetOp("tirx.tvm_access_ptr");
    if (op->op.same_as(access_ptr) && op->args.size() == 5) {
      const auto* data = op->args[1].as<VarNode>();
      const int64_t* mask = AsConstInt(op->args[4]);
      auto it = data ? buffers_.find(data) : buffers_.end();
      if (mask && it != buffers_.end()) {
        const Buffer& buffer = it->second;
        std::vector<PrimExpr> lo, hi;
        for (const PrimExpr& dim : buffer->shape) {
          lo.push_back(make_const(dim->dtype, int64_t(0)));
          hi.push_back(analyzer_.Simplify(sub(dim, make_const(dim->dtype, int64_t(1)))));
        }
        if (*mask & 1) Merge(&reads_, buffer, lo, hi);
        if (*mask & 2) Merge(&writes_, buffer, lo, hi);
        return;
      }
    }
    StmtExprVisitor::VisitExpr_(op);
  }
  // The buffers whose data variables an access pointer may name: those the block declares.
  void Declare(const SBlockNode* block) {
    auto add = [&](const Buffer& b) { buffers_.emplace(b->data.get(), b); };
    for (const BufferRegion& r : block->reads) add(r->buffer);
    for (const BufferRegion& r : block->writes) add(r->buffer);
    for (const Buffer& b : block->alloc_buffers) add(b);
    for (const MatchBufferRegion& m : block->match_buffers) add(m->buffer);
  }

  struct Access {
    Buffer buffer;
    std::vector<PrimExpr> lo, hi;
  };
  std::vector<Access> reads_, writes_;

  std::vector<BufferRegion> Regions(const std::vector<Access>& accesses) {
    std::vector<BufferRegion> out;
    for (const Access& a : accesses) {
      std::vector<Range> region;
      for (size_t d = 0; d < a.lo.size(); ++d) {
        PrimExpr ext = analyzer_.Simplify(add(sub(a.hi[d], a.lo[d]), make_const(a.lo[d]->dtype,
                                                                                int64_t(1))));
        region.push_back(ir::MakeRange(a.lo[d], ext));
      }
      out.push_back(MakeBufferRegion(a.buffer, region));
    }
    return out;
  }

 private:
  void Add(std::vector<Access>* list, const Buffer& buffer, const std::vector<PrimExpr>& idx) {
    std::vector<PrimExpr> lo, hi;
    for (const PrimExpr& e : idx) {
      PrimExpr s = Substitute(e, nested_);
      if (!UsesAny(s, dom_)) {
        // A point access stays as written, as TVM's interval evaluation keeps single points
        // (folding constants only): `(vj + vi * 128) // 64 % 32` is not rewritten.
        lo.push_back(s);
        hi.push_back(s);
        continue;
      }
      arith::IntSet set = arith::EvalSet(s, dom_, &analyzer_);
      lo.push_back(set.HasLowerBound() ? set.min_value : s);
      hi.push_back(set.HasUpperBound() ? set.max_value : s);
    }
    Merge(list, buffer, lo, hi);
  }
  void Merge(std::vector<Access>* list, const Buffer& buffer, const std::vector<PrimExpr>& lo,
             const std::vector<PrimExpr>& hi) {
    for (Access& a : *list) {
      if (!a.buffer.same_as(buffer)) continue;
      for (size_t d = 0; d < lo.size() && d < a.lo.size(); ++d) {
        if (!analyzer_.CanProve(less_equal(a.lo[d], lo[d]))) {
          a.lo[d] = analyzer_.CanProve(less_equal(lo[d], a.lo[d]))
                        ? lo[d]
                        : analyzer_.Simplify(min(a.lo[d], lo[d]));
        }
        if (!analyzer_.CanProve(greater_equal(a.hi[d], hi[d]))) {
          a.hi[d] = analyzer_.CanProve(greater_equal(hi[d], a.hi[d]))
                        ? hi[d]
                        : analyzer_.Simplify(max(a.hi[d], hi[d]));
        }
      }
      return;
    }
    list->push_back({buffer, lo, hi});
  }

  arith::RangeMap dom_;
  VarMap nested_;
  arith::Analyzer analyzer_;
  std::unordered_map<const VarNode*, Buffer> buffers_;
};

}  // namespace

void InferAccessRegions(const SBlockNode* block, std::vector<BufferRegion>* reads,
                        std::vector<BufferRegion>* writes) {
  AccessCollector c;
  c.Declare(block);
  if (block->init.defined()) c(block->init);
  c(block->body);
  *writes = c.Regions(c.writes_);
  *reads = WithoutAccumulatorReads(c.Regions(c.reads_), *writes, block->init.defined());
}

const StmtNode* LeafRemovalTarget(const PrimFunc& func, const SBlockNode* scope,
                                  const SBlockNode* block) {
  std::vector<const StmtNode*> path = PathIn(func, block);
  // path: ..., scope, [stmts...], realize, block
  size_t i = path.size() - 1;  // the block
  if (i == 0) return nullptr;
  --i;  // the realize
  const StmtNode* target = path[i];
  while (i > 0) {
    const StmtNode* parent = path[i - 1];
    if (parent == scope) return nullptr;  // the scope's whole body
    if (NodeAs<SeqStmtNode>(parent)) return target;
    if (!NodeAs<ForNode>(parent)) return nullptr;
    target = parent;
    --i;
  }
  return nullptr;
}

}  // namespace wb::schedule
