// Inference of a block's T.reads / T.writes when the source omits them (CONVENTIONS.md): every
// BufferLoad / BufferStore of the block body and init, nested blocks contributing their own
// regions, with the loops inside the block relaxed to their full ranges.
#include <unordered_set>

#include "script/parser_core.h"
#include "tir/block_access.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace wb::script::detail {

using namespace wb::tir;

// Structural equality of the small index expressions met in regions.
bool SameExpr(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a->type_index() != b->type_index() || a->dtype != b->dtype) return false;
  if (auto* x = a.as<IntImmNode>()) return x->value == b.as<IntImmNode>()->value;
  if (auto* x = a.as<FloatImmNode>()) return x->value == b.as<FloatImmNode>()->value;
  if (auto* x = a.as<BinaryNode>()) {
    auto* y = b.as<BinaryNode>();
    return SameExpr(x->a, y->a) && SameExpr(x->b, y->b);
  }
  if (auto* x = a.as<CastNode>()) return SameExpr(x->value, b.as<CastNode>()->value);
  if (auto* x = a.as<BufferLoadNode>()) {
    auto* y = b.as<BufferLoadNode>();
    if (!x->buffer.same_as(y->buffer) || x->indices.size() != y->indices.size()) return false;
    for (size_t i = 0; i < x->indices.size(); ++i) {
      if (!SameExpr(x->indices[i], y->indices[i])) return false;
    }
    return true;
  }
  return false;
}

namespace {

// Flattens a +/- chain into signed terms and a constant.
void FlattenSum(const PrimExpr& e, int sign, std::vector<std::pair<int, PrimExpr>>& terms, int64_t& c) {
  if (const int64_t* v = AsConstInt(e); v && e->dtype.is_integer()) {
    c += sign * *v;
  } else if (auto* a = e.as<AddNode>()) {
    FlattenSum(a->a, sign, terms, c);
    FlattenSum(a->b, sign, terms, c);
  } else if (auto* s = e.as<SubNode>()) {
    FlattenSum(s->a, sign, terms, c);
    FlattenSum(s->b, -sign, terms, c);
  } else {
    terms.emplace_back(sign, e);
  }
}

}  // namespace

PrimExpr RangeExtent(const PrimExpr& lo, const PrimExpr& hi) {
  // TVM simplifies stop - start: `start + X` gives X; terms that cancel give a constant.
  if (auto* a = hi.as<AddNode>(); a && SameExpr(a->a, lo)) return a->b;
  if (lo->dtype.is_integer() && hi->dtype.is_integer() && lo->dtype == hi->dtype) {
    std::vector<std::pair<int, PrimExpr>> terms;
    int64_t c = 0;
    FlattenSum(hi, 1, terms, c);
    FlattenSum(lo, -1, terms, c);
    for (size_t i = 0; i < terms.size(); ++i) {
      if (terms[i].first == 0) continue;
      for (size_t j = i + 1; j < terms.size(); ++j) {
        if (terms[j].first == -terms[i].first && SameExpr(terms[i].second, terms[j].second)) {
          terms[i].first = terms[j].first = 0;
          break;
        }
      }
    }
    bool all_cancelled = true;
    for (const auto& t : terms) all_cancelled = all_cancelled && t.first == 0;
    if (all_cancelled) return make_const(hi->dtype, c);
  }
  return sub(hi, lo);
}

namespace {

class VarSubstituter : public ExprMutator {
 public:
  explicit VarSubstituter(const std::unordered_map<const VarNode*, PrimExpr>& map) : map_(map) {}
  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = map_.find(op);
    return it == map_.end() ? GetRef(op) : it->second;
  }

 private:
  const std::unordered_map<const VarNode*, PrimExpr>& map_;
};

// [min, min + extent) of an index expression with some variables ranging over intervals.
struct Interval {
  PrimExpr min;
  PrimExpr extent;
  bool known = false;
};

class AccessCollector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  std::unordered_map<const VarNode*, std::pair<PrimExpr, PrimExpr>> relax;
  std::unordered_set<const BufferNode*> local;  // allocated inside the block
  std::unordered_map<const BufferNode*, BufferRegion> match_source;
  struct Access {
    Buffer buffer;
    std::vector<Interval> dims;
  };
  std::vector<Access> reads, writes;

  void VisitExpr_(const BufferLoadNode* op) override {
    Record(reads, op->buffer, op->indices);
    ExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Record(writes, op->buffer, op->indices);
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ForNode* op) override {
    relax[op->loop_var.get()] = {op->min, op->extent};
    StmtVisitor::VisitStmt_(op);
    relax.erase(op->loop_var.get());
  }
  void VisitStmt_(const AllocBufferNode* op) override {
    local.insert(op->buffer.get());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const DeclBufferNode* op) override {
    local.insert(op->buffer.get());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const SBlockRealizeNode* op) override {
    for (const auto& v : op->iter_values) VisitExpr(v);
    VisitExpr(op->predicate);
    std::unordered_map<const VarNode*, PrimExpr> bind;
    for (size_t i = 0; i < op->block->iter_vars.size() && i < op->iter_values.size(); ++i) {
      bind[op->block->iter_vars[i]->var.get()] = op->iter_values[i];
    }
    VarSubstituter subst(bind);
    auto add = [&](std::vector<Access>& out, const std::vector<BufferRegion>& regions) {
      for (const auto& r : regions) {
        // A buffer this block allocates is not accessed from outside it, as for direct accesses
        // (TVM's ScriptCompleter leaves the block's own buffers out of its regions).
        if (local.count(r->buffer.get())) continue;
        auto m = match_source.find(r->buffer.get());
        if (m != match_source.end()) {
          std::vector<Interval> src;
          for (const auto& sr : m->second->region) src.push_back({sr->min, sr->extent, true});
          RecordDims(out, m->second->buffer, std::move(src));
          continue;
        }
        std::vector<Interval> dims;
        for (const auto& range : r->region) {
          Interval lo = Relax(subst(range->min));
          if (lo.known) lo.extent = add_(lo.extent, sub(range->extent, make_const(range->extent->dtype, int64_t(1))));
          dims.push_back(lo);
        }
        RecordDims(out, r->buffer, std::move(dims));
      }
    };
    add(reads, op->block->reads);
    add(writes, op->block->writes);
  }

  Interval Relax(const PrimExpr& e) {
    Interval out;
    if (!UsesRelaxed(e)) {
      out.min = e;
      out.extent = make_const(e->dtype, int64_t(1));
      out.known = true;
      return out;
    }
    if (auto* v = e.as<VarNode>()) {
      auto it = relax.find(v);
      out.min = it->second.first;
      out.extent = it->second.second;
      out.known = true;
      return out;
    }
    auto one = [&](const PrimExpr& x) { return make_const(x->dtype, int64_t(1)); };
    if (auto* add = e.as<AddNode>()) {
      Interval a = Relax(add->a), b = Relax(add->b);
      if (!a.known || !b.known) return out;
      return {tir::add(a.min, b.min), sub(tir::add(a.extent, b.extent), one(a.extent)), true};
    }
    if (auto* s = e.as<SubNode>()) {
      Interval a = Relax(s->a), b = Relax(s->b);
      if (!a.known || !b.known) return out;
      PrimExpr bmax = sub(tir::add(b.min, b.extent), one(b.extent));
      return {sub(a.min, bmax), sub(tir::add(a.extent, b.extent), one(a.extent)), true};
    }
    if (auto* m = e.as<MulNode>()) {
      const int64_t* c = AsConstInt(m->b);
      PrimExpr other = m->a;
      if (!c) {
        c = AsConstInt(m->a);
        other = m->b;
      }
      if (!c) return out;
      Interval a = Relax(other);
      if (!a.known) return out;
      PrimExpr cc = make_const(other->dtype, *c);
      PrimExpr span = mul(sub(a.extent, one(a.extent)), make_const(other->dtype, *c < 0 ? -*c : *c));
      if (*c >= 0) return {mul(a.min, cc), tir::add(span, one(span)), true};
      return {mul(sub(tir::add(a.min, a.extent), one(a.extent)), cc), tir::add(span, one(span)), true};
    }
    if (auto* d = e.as<FloorDivNode>()) {
      const int64_t* c = AsConstInt(d->b);
      if (!c || *c <= 0) return out;
      Interval a = Relax(d->a);
      if (!a.known) return out;
      PrimExpr lo = floordiv(a.min, d->b);
      PrimExpr hi = floordiv(sub(tir::add(a.min, a.extent), one(a.extent)), d->b);
      return {lo, tir::add(sub(hi, lo), one(lo)), true};
    }
    if (auto* m = e.as<FloorModNode>()) {
      const int64_t* c = AsConstInt(m->b);
      if (!c || *c <= 0) return out;
      return {make_const(e->dtype, int64_t(0)), m->b, true};
    }
    if (auto* c = e.as<CastNode>()) {
      Interval a = Relax(c->value);
      if (!a.known) return out;
      return {cast(e->dtype, a.min), cast(e->dtype, a.extent), true};
    }
    return out;
  }

 private:
  static PrimExpr add_(const PrimExpr& a, const PrimExpr& b) { return tir::add(a, b); }

  bool UsesRelaxed(const PrimExpr& e) {
    if (relax.empty()) return false;
    struct Finder : ExprVisitor {
      const std::unordered_map<const VarNode*, std::pair<PrimExpr, PrimExpr>>* relax;
      bool found = false;
      void VisitExpr_(const VarNode* op) override {
        if (relax->count(op)) found = true;
      }
    } finder;
    finder.relax = &relax;
    finder(e);
    return finder.found;
  }

  void Record(std::vector<Access>& out, const Buffer& buffer, const std::vector<PrimExpr>& indices) {
    if (local.count(buffer.get())) return;
    std::vector<Interval> dims;
    for (const auto& idx : indices) {
      if (auto* ramp = idx.as<RampNode>()) {
        Interval base = Relax(ramp->base);
        const int64_t* st = AsConstInt(ramp->stride);
        if (base.known && st && *st >= 0) {
          base.extent = tir::add(base.extent, make_const(base.extent->dtype, (ramp->lanes - 1) * *st));
        } else {
          base.known = false;
        }
        dims.push_back(base);
      } else {
        dims.push_back(Relax(idx));
      }
    }
    auto m = match_source.find(buffer.get());
    if (m != match_source.end()) {
      std::vector<Interval> src;
      for (const auto& r : m->second->region) src.push_back({r->min, r->extent, true});
      RecordDims(out, m->second->buffer, std::move(src));
      return;
    }
    RecordDims(out, buffer, std::move(dims));
  }

  // `e` as `base + c` (c a constant, 0 when there is none).
  static PrimExpr SplitOffset(const PrimExpr& e, int64_t* c) {
    *c = 0;
    if (auto* add = e.as<AddNode>()) {
      if (const int64_t* v = AsConstInt(add->b)) {
        *c = *v;
        return add->a;
      }
    }
    if (auto* s = e.as<SubNode>()) {
      if (const int64_t* v = AsConstInt(s->b)) {
        *c = -*v;
        return s->a;
      }
    }
    return e;
  }

  // The union of [x + c1, +e1) and [x + c2, +e2) with constant extents: [x + min(c), ...), as
  // TVM's interval union simplifies it (`B[vj]` and `B[vj + 1]` give `B[vj:vj + 2]`).
  static bool UnionOfOffsets(Interval& a, const Interval& b) {
    const int64_t *aext = AsConstInt(a.extent), *bext = AsConstInt(b.extent);
    if (!aext || !bext || !a.min->dtype.is_integer() || a.min->dtype != b.min->dtype) return false;
    int64_t ca = 0, cb = 0;
    PrimExpr xa = SplitOffset(a.min, &ca), xb = SplitOffset(b.min, &cb);
    if (!SameExpr(xa, xb)) return false;
    int64_t lo = std::min(ca, cb), hi = std::max(ca + *aext, cb + *bext);
    if (lo != ca) {
      a.min = lo == 0  ? xa
              : lo > 0 ? tir::add(xa, make_const(xa->dtype, lo))
                       : sub(xa, make_const(xa->dtype, -lo));
    }
    a.extent = make_const(a.extent->dtype, hi - lo);
    return true;
  }

  static void RecordDims(std::vector<Access>& out, const Buffer& buffer, std::vector<Interval> dims) {
    for (auto& acc : out) {
      if (!acc.buffer.same_as(buffer)) continue;
      for (size_t d = 0; d < acc.dims.size() && d < dims.size(); ++d) {
        Interval& a = acc.dims[d];
        const Interval& b = dims[d];
        if (!a.known) continue;
        if (!b.known) {
          a.known = false;
          continue;
        }
        if (SameExpr(a.min, b.min) && SameExpr(a.extent, b.extent)) continue;
        const int64_t *amin = AsConstInt(a.min), *aext = AsConstInt(a.extent);
        const int64_t *bmin = AsConstInt(b.min), *bext = AsConstInt(b.extent);
        if (amin && aext && bmin && bext) {
          int64_t lo = std::min(*amin, *bmin), hi = std::max(*amin + *aext, *bmin + *bext);
          a.min = make_const(a.min->dtype, lo);
          a.extent = make_const(a.extent->dtype, hi - lo);
        } else if (!UnionOfOffsets(a, b)) {
          a.known = false;
        }
      }
      return;
    }
    out.push_back({buffer, std::move(dims)});
  }
};

std::vector<BufferRegion> ToRegions(const std::vector<AccessCollector::Access>& accesses) {
  std::vector<BufferRegion> out;
  for (const auto& acc : accesses) {
    std::vector<ir::Range> region;
    for (size_t d = 0; d < acc.dims.size(); ++d) {
      const Interval& iv = acc.dims[d];
      if (iv.known) {
        region.push_back(ir::MakeRange(iv.min, iv.extent));
      } else if (d < acc.buffer->shape.size()) {
        const PrimExpr& dim = acc.buffer->shape[d];
        region.push_back(ir::MakeRange(make_const(dim->dtype, int64_t(0)), dim));
      }
    }
    out.push_back(MakeBufferRegion(acc.buffer, std::move(region)));
  }
  return out;
}

}  // namespace

void Parser::InferAccess(BlockFrame& frame, const Stmt& body, bool need_reads, bool need_writes) {
  AccessCollector collector;
  for (const auto& b : frame.allocs) collector.local.insert(b.get());
  for (const auto& m : frame.match_buffers) collector.match_source[m->buffer.get()] = m->source;
  if (frame.init.defined()) collector.VisitStmt(frame.init);
  collector.VisitStmt(body);
  std::vector<BufferRegion> writes = ToRegions(collector.writes);
  if (need_reads) {
    frame.reads = WithoutAccumulatorReads(ToRegions(collector.reads), writes, frame.init.defined());
  }
  if (need_writes) frame.writes = std::move(writes);
}

}  // namespace wb::script::detail
