#include "transform/tir/compact_buffer_allocation.h"

#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

// The box of each block-allocated buffer that its accesses cover, relaxed over the loops and
// iteration variables between the allocating block and the access.
class RegionCollector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  explicit RegionCollector(arith::Analyzer* analyzer) : analyzer_(analyzer) {}

  // Per buffer, per dimension: the covered interval (null ends: unbounded).
  std::unordered_map<const BufferNode*, std::vector<arith::IntSet>> boxes;

  void VisitStmt_(const ForNode* op) override {
    dom_.push_back({op->loop_var, ir::MakeRange(op->min, op->extent)});
    StmtExprVisitor::VisitStmt_(op);
    dom_.pop_back();
  }

  void VisitStmt_(const SBlockNode* op) override {
    for (const auto& b : op->alloc_buffers) owner_depth_[b.get()] = dom_.size();
    size_t mark = dom_.size();
    for (const auto& iv : op->iter_vars) dom_.push_back({iv->var, iv->dom});
    // Regions are not visited: the accesses themselves decide.
    if (op->init.defined()) VisitStmt(op->init);
    VisitStmt(op->body);
    dom_.resize(mark);
  }

  void VisitStmt_(const BufferStoreNode* op) override {
    Touch(op->buffer, op->indices);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Touch(op->buffer, op->indices);
    StmtExprVisitor::VisitExpr_(op);
  }

 private:
  void Touch(const Buffer& buffer, const std::vector<PrimExpr>& indices) {
    auto owner = owner_depth_.find(buffer.get());
    if (owner == owner_depth_.end()) return;
    arith::RangeMap relax;
    for (size_t k = owner->second; k < dom_.size(); ++k) relax[dom_[k].first] = dom_[k].second;
    std::vector<arith::IntSet> box;
    for (const auto& index : indices) {
      if (index->dtype.lanes() != 1) {
        box.push_back(arith::IntSet::Everything());
        continue;
      }
      box.push_back(arith::EvalSet(index, relax, analyzer_));
    }
    auto it = boxes.find(buffer.get());
    if (it == boxes.end()) {
      boxes[buffer.get()] = std::move(box);
      return;
    }
    for (size_t k = 0; k < box.size() && k < it->second.size(); ++k) {
      it->second[k] = arith::Union({it->second[k], box[k]}, analyzer_);
    }
  }

  arith::Analyzer* analyzer_;
  std::vector<std::pair<Var, Range>> dom_;
  std::unordered_map<const BufferNode*, size_t> owner_depth_;
};

struct Compacted {
  Buffer buffer;
  std::vector<PrimExpr> start;  // subtracted from each index
};

class BufferCompactor : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  BufferCompactor(std::unordered_map<const BufferNode*, Compacted> plan, arith::Analyzer* analyzer)
      : plan_(std::move(plan)), analyzer_(analyzer) {}

  Stmt VisitStmt_(const SBlockNode* op) override {
    Stmt visited = StmtExprMutator::VisitStmt_(op);
    SBlock block = Downcast<SBlockNode>(visited);
    bool changed = false;
    std::vector<Buffer> allocs;
    for (const auto& b : block->alloc_buffers) {
      auto it = plan_.find(b.get());
      allocs.push_back(it == plan_.end() ? b : it->second.buffer);
      changed |= it != plan_.end();
    }
    if (!changed) return visited;
    block.CopyOnWrite()->alloc_buffers = std::move(allocs);
    return block;
  }

  Stmt VisitStmt_(const ForNode* op) override {
    if (!op->step.defined() || IsConstInt(op->step, 1)) {
      analyzer_->Bind(op->loop_var, ir::MakeRange(op->min, op->extent), /*allow_override=*/true);
    }
    return StmtExprMutator::VisitStmt_(op);
  }

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr visited = StmtExprMutator::VisitExpr_(op);
    const auto* load = visited.as<BufferLoadNode>();
    auto it = plan_.find(load->buffer.get());
    if (it == plan_.end()) return visited;
    return MakeBufferLoad(it->second.buffer, Shift(it->second, load->indices), load->predicate,
                          load->span);
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt visited = StmtExprMutator::VisitStmt_(op);
    const auto* store = visited.as<BufferStoreNode>();
    auto it = plan_.find(store->buffer.get());
    if (it == plan_.end()) return visited;
    return MakeBufferStore(it->second.buffer, store->value, Shift(it->second, store->indices),
                           store->predicate, store->span);
  }

  BufferRegion VisitBufferRegion(const BufferRegion& region) override {
    BufferRegion visited = StmtExprMutator::VisitBufferRegion(region);
    auto it = plan_.find(visited->buffer.get());
    if (it == plan_.end()) return visited;
    std::vector<Range> ranges;
    for (size_t k = 0; k < visited->region.size(); ++k) {
      const Range& r = visited->region[k];
      ranges.push_back(ir::MakeRange(analyzer_->Simplify(sub(r->min, it->second.start[k])),
                                     r->extent));
    }
    return MakeBufferRegion(it->second.buffer, std::move(ranges), visited->span);
  }

 private:
  std::vector<PrimExpr> Shift(const Compacted& c, const std::vector<PrimExpr>& indices) {
    std::vector<PrimExpr> out;
    for (size_t k = 0; k < indices.size(); ++k) {
      out.push_back(IsConstInt(c.start[k], 0) ? indices[k]
                                              : analyzer_->Simplify(sub(indices[k], c.start[k])));
    }
    return out;
  }

  std::unordered_map<const BufferNode*, Compacted> plan_;
  arith::Analyzer* analyzer_;
};

// Allocation sites, for the analyzer facts (loop ranges) that hold where the buffer lives.
std::vector<Buffer> BlockAllocations(const Stmt& body) {
  std::vector<Buffer> out;
  PostOrderVisit(body, [&](const Object* node) {
    if (node->type_index() == ir::TypeIndex::kSBlock) {
      for (const auto& b : static_cast<const SBlockNode*>(node)->alloc_buffers) out.push_back(b);
    }
  });
  return out;
}

Stmt Compact(const Stmt& body) {
  std::vector<Buffer> allocated = BlockAllocations(body);
  if (allocated.empty()) return body;
  arith::Analyzer analyzer;
  RegionCollector collector(&analyzer);
  collector(body);
  std::unordered_map<const BufferNode*, Compacted> plan;
  for (const auto& buffer : allocated) {
    auto it = collector.boxes.find(buffer.get());
    if (it == collector.boxes.end() || !buffer->strides.empty() ||
        (buffer->elem_offset.defined() && !IsConstInt(buffer->elem_offset, 0)) ||
        it->second.size() != buffer->shape.size()) {
      continue;
    }
    std::vector<PrimExpr> shape, start;
    bool shrunk = false;
    for (size_t k = 0; k < buffer->shape.size(); ++k) {
      const arith::IntSet& s = it->second[k];
      PrimExpr old_extent = buffer->shape[k];
      if (s.HasLowerBound() && s.HasUpperBound()) {
        PrimExpr extent = analyzer.Simplify(add(sub(s.max_value, s.min_value),
                                                make_const(old_extent->dtype, int64_t(1))));
        // Only a constant extent is worth taking: one smaller than a constant one, or any in place
        // of a symbolic one (a tile of a symbolic dimension, e.g. a matmul's register tile whose
        // rows past the end are predicated: a fixed-size stack buffer that LLVM keeps in
        // registers instead of a heap workspace the size of the whole dimension).
        const int64_t* e = AsConstInt(extent);
        const int64_t* o = AsConstInt(old_extent);
        bool smaller = e && (o ? *e < *o : true);
        if (smaller && *e > 0) {
          shape.push_back(make_const(old_extent->dtype, *e));
          start.push_back(analyzer.Simplify(s.min_value));
          shrunk = true;
          continue;
        }
      }
      shape.push_back(old_extent);
      start.push_back(make_const(old_extent->dtype, int64_t(0)));
    }
    if (!shrunk) continue;
    Buffer compact = buffer;
    compact.CopyOnWrite()->shape = std::move(shape);
    plan[buffer.get()] = {compact, std::move(start)};
  }
  if (plan.empty()) return body;
  arith::Analyzer rewrite_analyzer;
  return BufferCompactor(std::move(plan), &rewrite_analyzer)(body);
}

}  // namespace

ir::Pass CompactBufferAllocation() {
  return tir::CreateBodyRewritePass(Compact, 0, "CompactBufferAllocation");
}

static PassRegistrar registrar({"CompactBufferAllocation",
                                "shrinks block allocations to the region their accesses cover",
                                {},
                                [](const PassArgs&) { return CompactBufferAllocation(); }});

}  // namespace wb::transform
