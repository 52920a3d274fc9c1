#include "transform/tir/plan_and_update_buffer_allocation_location.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

// Finds, for every block-allocated buffer, the lowest loop or block enclosing all its accesses.
class AccessLCADetector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  struct Scope {
    const Object* parent = nullptr;
    int depth = 0;
  };

  std::unordered_map<const Object*, Scope> scopes;
  // Buffer -> LCA (a ForNode or SBlockNode); buffers never accessed are absent.
  std::unordered_map<const BufferNode*, const Object*> lca;

  void VisitStmt_(const ForNode* op) override {
    Enter(op);
    loop_of_[op->loop_var.get()] = op;
    StmtExprVisitor::VisitStmt_(op);
    stack_.pop_back();
  }

  // A block whose iterations carry values from one to the next (a reduction, an ordered or
  // opaque iteration) needs what it writes to outlive those iterations: the buffers it writes
  // are used, in effect, just above the outermost loop its carried iteration variables bind to.
  // (TVM does this for opaque iteration variables that appear in the written region; a
  // reduction's accumulator indexed by spatial variables only needs it as much, and without it
  // the accumulator would be allocated afresh in every iteration.)
  void VisitStmt_(const SBlockRealizeNode* op) override {
    const SBlockNode* block = op->block.get();
    const Object* dominating = nullptr;
    int best_depth = -1;
    bool carried = false;
    for (size_t i = 0; i < block->iter_vars.size() && i < op->iter_values.size(); ++i) {
      if (block->iter_vars[i]->iter_type == IterVarType::kDataPar) continue;
      PostOrderVisit(op->iter_values[i], [&](const Object* node) {
        if (node->type_index() != ir::TypeIndex::kVar) return;
        auto it = loop_of_.find(static_cast<const VarNode*>(node));
        if (it == loop_of_.end()) return;
        const Scope& loop = scopes.at(it->second);
        if (!carried || loop.depth < best_depth) {
          dominating = loop.parent;
          best_depth = loop.depth;
          carried = true;
        }
      });
    }
    if (carried) {
      for (const auto& region : block->writes) AccessAt(region->buffer.get(), dominating);
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const SBlockNode* op) override {
    Enter(op);
    StmtExprVisitor::VisitStmt_(op);
    stack_.pop_back();
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Access(op->buffer.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Access(op->buffer.get());
    StmtExprVisitor::VisitExpr_(op);
  }

 protected:
  void VisitBufferRegion(const BufferRegion& region) override {
    // A block's read/write regions and match_buffer sources count as uses at the block.
    Access(region->buffer.get());
    StmtExprVisitor::VisitBufferRegion(region);
  }

 private:
  void Enter(const Object* node) {
    const Object* parent = stack_.empty() ? nullptr : stack_.back();
    scopes[node] = {parent, static_cast<int>(stack_.size())};
    stack_.push_back(node);
  }

  void Access(const BufferNode* buffer) {
    AccessAt(buffer, stack_.empty() ? nullptr : stack_.back());
  }

  void AccessAt(const BufferNode* buffer, const Object* here) {
    auto it = lca.find(buffer);
    if (it == lca.end()) {
      lca[buffer] = here;
      return;
    }
    it->second = Common(it->second, here);
  }

  const Object* Common(const Object* a, const Object* b) const {
    auto depth = [&](const Object* n) { return n ? scopes.at(n).depth : -1; };
    while (depth(a) > depth(b)) a = scopes.at(a).parent;
    while (depth(b) > depth(a)) b = scopes.at(b).parent;
    while (a != b) {
      a = scopes.at(a).parent;
      b = scopes.at(b).parent;
    }
    return a;
  }

  std::vector<const Object*> stack_;
  std::unordered_map<const VarNode*, const ForNode*> loop_of_;
};

// The regions a statement reads and writes, for the T.reads / T.writes of a new block: every
// load and store, with nested blocks' iteration variables replaced by their bindings and the
// loops inside the statement relaxed to their ranges, so the region is in terms of what is
// fixed where the statement runs. Buffers allocated inside are left out.
class AccessRegionCollector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  struct Access {
    Buffer buffer;
    std::vector<arith::IntSet> box;
  };
  std::vector<Access> reads, writes;
  std::unordered_set<const BufferNode*> local;

  void VisitStmt_(const ForNode* op) override {
    dom_[op->loop_var] = ir::MakeRange(op->min, op->extent);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const SBlockRealizeNode* op) override {
    const SBlockNode* block = op->block.get();
    for (size_t i = 0; i < block->iter_vars.size() && i < op->iter_values.size(); ++i) {
      bindings_[block->iter_vars[i]->var.get()] = Substitute(op->iter_values[i], bindings_);
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const SBlockNode* op) override {
    for (const auto& b : op->alloc_buffers) local.insert(b.get());
    if (op->init.defined()) VisitStmt(op->init);
    VisitStmt(op->body);
  }
  void VisitStmt_(const AllocBufferNode* op) override { local.insert(op->buffer.get()); }
  void VisitStmt_(const BufferStoreNode* op) override {
    Add(&writes, op->buffer, op->indices);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Add(&reads, op->buffer, op->indices);
    StmtExprVisitor::VisitExpr_(op);
  }

  // The collected accesses as regions; a dimension with an unbounded end covers the buffer.
  std::vector<BufferRegion> Regions(const std::vector<Access>& accesses) {
    std::vector<BufferRegion> out;
    for (const auto& a : accesses) {
      if (local.count(a.buffer.get())) continue;
      std::vector<Range> ranges;
      for (size_t k = 0; k < a.buffer->shape.size(); ++k) {
        const arith::IntSet& s = a.box[k];
        if (!s.HasLowerBound() || !s.HasUpperBound()) {
          ranges.push_back(ir::MakeRange(make_const(a.buffer->shape[k]->dtype, int64_t(0)),
                                         a.buffer->shape[k]));
          continue;
        }
        PrimExpr extent = analyzer_.Simplify(
            add(sub(s.max_value, s.min_value), make_const(s.min_value->dtype, int64_t(1))));
        ranges.push_back(ir::MakeRange(s.min_value, extent));
      }
      out.push_back(MakeBufferRegion(a.buffer, std::move(ranges)));
    }
    return out;
  }

 private:
  void Add(std::vector<Access>* list, const Buffer& buffer, const std::vector<PrimExpr>& indices) {
    if (indices.size() != buffer->shape.size()) return;
    std::vector<arith::IntSet> box;
    for (const auto& index : indices) {
      if (index->dtype.lanes() != 1) {
        box.push_back(arith::IntSet::Everything());
        continue;
      }
      box.push_back(arith::EvalSet(Substitute(index, bindings_), dom_, &analyzer_));
    }
    for (auto& a : *list) {
      if (!a.buffer.same_as(buffer)) continue;
      for (size_t k = 0; k < box.size(); ++k) a.box[k] = arith::Union({a.box[k], box[k]}, &analyzer_);
      return;
    }
    list->push_back({buffer, std::move(box)});
  }

  arith::RangeMap dom_;
  VarMap bindings_;
  arith::Analyzer analyzer_;
};

class AllocationMover : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;

  AllocationMover(const std::unordered_map<const BufferNode*, const Object*>& lca,
                  std::vector<Buffer> order)
      : lca_(lca) {
    for (const auto& buffer : order) {
      auto it = lca_.find(buffer.get());
      if (it != lca_.end() && it->second) at_[it->second].push_back(buffer);
    }
  }

  Stmt VisitStmt_(const SBlockNode* op) override {
    Stmt visited = StmtExprMutator::VisitStmt_(op);
    std::vector<Buffer> allocs;
    for (const auto& b : op->alloc_buffers) {
      auto it = lca_.find(b.get());
      if (it == lca_.end() || !it->second) allocs.push_back(b);  // never accessed: stays
    }
    auto here = at_.find(op);
    if (here != at_.end()) allocs.insert(allocs.end(), here->second.begin(), here->second.end());
    if (SameBuffers(allocs, op->alloc_buffers)) return visited;
    SBlock block = Downcast<SBlockNode>(visited);
    block.CopyOnWrite()->alloc_buffers = std::move(allocs);
    return block;
  }

  Stmt VisitStmt_(const ForNode* op) override {
    Stmt visited = StmtExprMutator::VisitStmt_(op);
    auto here = at_.find(op);
    if (here == at_.end()) return visited;
    For loop = Downcast<ForNode>(visited);
    const std::vector<Buffer>& allocs = here->second;
    AccessRegionCollector collector;
    collector(loop->body);
    for (const auto& b : allocs) collector.local.insert(b.get());
    SBlock block = MakeSBlock({}, collector.Regions(collector.reads),
                              collector.Regions(collector.writes), "", loop->body, {}, allocs);
    loop.CopyOnWrite()->body = MakeSBlockRealize({}, MakeIntImm(DataType::Bool(), 1), block);
    return loop;
  }

 private:
  static bool SameBuffers(const std::vector<Buffer>& a, const std::vector<Buffer>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].same_as(b[i])) return false;
    }
    return true;
  }

  const std::unordered_map<const BufferNode*, const Object*>& lca_;
  std::unordered_map<const Object*, std::vector<Buffer>> at_;
};

// Block allocations in the order they appear.
std::vector<Buffer> AllocatedInBlocks(const Stmt& body) {
  std::vector<Buffer> out;
  PostOrderVisit(body, [&](const Object* node) {
    if (node->type_index() == ir::TypeIndex::kSBlock) {
      for (const auto& b : static_cast<const SBlockNode*>(node)->alloc_buffers) out.push_back(b);
    }
  });
  return out;
}

Stmt Plan(const Stmt& body) {
  std::vector<Buffer> allocated = AllocatedInBlocks(body);
  if (allocated.empty()) return body;
  AccessLCADetector detector;
  detector(body);
  std::unordered_map<const BufferNode*, const Object*> lca;
  for (const auto& b : allocated) {
    auto it = detector.lca.find(b.get());
    if (it != detector.lca.end()) lca[b.get()] = it->second;
  }
  return AllocationMover(lca, allocated)(body);
}

}  // namespace

ir::Pass PlanAndUpdateBufferAllocationLocation() {
  return tir::CreateBodyRewritePass(Plan, 0, "PlanAndUpdateBufferAllocationLocation");
}

static PassRegistrar registrar({"PlanAndUpdateBufferAllocationLocation",
                                "moves block allocations down to the lowest scope covering their uses",
                                {},
                                [](const PassArgs&) {
                                  return PlanAndUpdateBufferAllocationLocation();
                                }});

}  // namespace wb::transform
