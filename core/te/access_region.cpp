#include "te/access_region.h"

#include <unordered_map>

#include "ir/structural_equal.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::te {

namespace {

using namespace wb::tir;

struct Interval {
  PrimExpr min;
  PrimExpr extent;
  bool known = false;
};

struct Access {
  Buffer buffer;
  std::vector<Interval> dims;
};

bool Same(const PrimExpr& a, const PrimExpr& b) {
  return a.same_as(b) || ir::StructuralEqual(a, b, /*map_free_vars=*/false);
}

class Collector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

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
    loops_[op->loop_var.get()] = {op->min, op->extent};
    StmtVisitor::VisitStmt_(op);
    loops_.erase(op->loop_var.get());
  }
  void VisitStmt_(const SBlockRealizeNode* op) override {
    // An inner block contributes its own regions, seen through its bindings.
    VarMap bind;
    for (size_t i = 0; i < op->block->iter_vars.size() && i < op->iter_values.size(); ++i) {
      bind[op->block->iter_vars[i]->var.get()] = op->iter_values[i];
    }
    auto add = [&](std::vector<Access>& out, const std::vector<BufferRegion>& regions) {
      for (const BufferRegion& r : regions) {
        std::vector<Interval> dims;
        for (const Range& range : r->region) {
          Interval iv = Relax(Substitute(range->min, bind));
          if (iv.known && !IsConstInt(range->extent, 1)) {
            iv.extent =
                sub(add_(iv.extent, range->extent), make_const(range->extent->dtype, int64_t(1)));
          }
          dims.push_back(iv);
        }
        Merge(out, r->buffer, std::move(dims));
      }
    };
    add(reads, op->block->reads);
    add(writes, op->block->writes);
  }

 private:
  static PrimExpr add_(const PrimExpr& a, const PrimExpr& b) { return tir::add(a, b); }

  bool MentionsLoop(const PrimExpr& e) const {
    if (loops_.empty()) return false;
    bool found = false;
    PostOrderVisit(e, [&](const ir::Object* n) {
      if (auto* v = dynamic_cast<const VarNode*>(n); v && loops_.count(v)) found = true;
    });
    return found;
  }

  // The values `e` takes while the loops inside the block run: a point when it mentions none,
  // `loop` or `expr + loop` shifted ranges, otherwise unknown (the whole dim).
  Interval Relax(const PrimExpr& e) const {
    if (!MentionsLoop(e)) return {e, make_const(e->dtype, int64_t(1)), true};
    auto loop_range = [&](const PrimExpr& x) -> const std::pair<PrimExpr, PrimExpr>* {
      auto* v = x.as<VarNode>();
      if (!v) return nullptr;
      auto it = loops_.find(v);
      return it == loops_.end() ? nullptr : &it->second;
    };
    if (auto* r = loop_range(e)) return {r->first, r->second, true};
    if (auto* a = e.as<AddNode>()) {
      if (auto* r = loop_range(a->b); r && !MentionsLoop(a->a)) {
        return {tir::add(a->a, r->first), r->second, true};
      }
      if (auto* r = loop_range(a->a); r && !MentionsLoop(a->b)) {
        return {tir::add(r->first, a->b), r->second, true};
      }
    }
    return {};
  }

  void Record(std::vector<Access>& out, const Buffer& buffer,
              const std::vector<PrimExpr>& indices) {
    std::vector<Interval> dims;
    for (const PrimExpr& i : indices) dims.push_back(Relax(i));
    Merge(out, buffer, std::move(dims));
  }

  static void Merge(std::vector<Access>& out, const Buffer& buffer, std::vector<Interval> dims) {
    for (Access& acc : out) {
      if (!acc.buffer.same_as(buffer)) continue;
      for (size_t d = 0; d < acc.dims.size() && d < dims.size(); ++d) {
        Interval& a = acc.dims[d];
        const Interval& b = dims[d];
        if (!a.known) continue;
        if (!b.known) {
          a.known = false;
          continue;
        }
        if (Same(a.min, b.min) && Same(a.extent, b.extent)) continue;
        const int64_t *amin = AsConstInt(a.min), *aext = AsConstInt(a.extent);
        const int64_t *bmin = AsConstInt(b.min), *bext = AsConstInt(b.extent);
        if (amin && aext && bmin && bext) {
          int64_t lo = std::min(*amin, *bmin), hi = std::max(*amin + *aext, *bmin + *bext);
          a.min = make_const(a.min->dtype, lo);
          a.extent = make_const(a.extent->dtype, hi - lo);
        } else {
          a.known = false;
        }
      }
      return;
    }
    out.push_back({buffer, std::move(dims)});
  }

  std::unordered_map<const VarNode*, std::pair<PrimExpr, PrimExpr>> loops_;
};

std::vector<BufferRegion> ToRegions(const std::vector<Access>& accesses) {
  std::vector<BufferRegion> out;
  for (const Access& acc : accesses) {
    std::vector<Range> region;
    for (size_t d = 0; d < acc.dims.size(); ++d) {
      const Interval& iv = acc.dims[d];
      if (iv.known) {
        region.push_back(ir::MakeRange(iv.min, iv.extent));
      } else {
        const PrimExpr& dim = acc.buffer->shape[d];
        region.push_back(ir::MakeRange(make_const(dim->dtype, int64_t(0)), dim));
      }
    }
    out.push_back(MakeBufferRegion(acc.buffer, std::move(region)));
  }
  return out;
}

class Completer : public StmtMutator {
 public:
  using StmtMutator::VisitStmt_;
  Stmt VisitStmt_(const SBlockNode* op) override {
    Stmt visited = StmtMutator::VisitStmt_(op);
    auto* block = visited.as<SBlockNode>();
    Collector collector;
    if (block->init.defined()) collector(block->init);
    collector(block->body);
    std::vector<Access> reads;
    for (const Access& r : collector.reads) {
      bool written = false;
      for (const Access& w : collector.writes) written = written || w.buffer.same_as(r.buffer);
      if (!written) reads.push_back(r);
    }
    return MakeSBlock(block->iter_vars, ToRegions(reads), ToRegions(collector.writes),
                      block->name_hint, block->body, block->init, block->alloc_buffers,
                      block->match_buffers, block->annotations, block->span);
  }
};

}  // namespace

Stmt CompleteAccessRegions(const Stmt& stmt) { return Completer()(stmt); }

}  // namespace wb::te
