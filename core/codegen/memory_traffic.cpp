#include "codegen/memory_traffic.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace wb::codegen {

using namespace tir;

namespace {

// The bounding box of one buffer's accesses, and how it is accessed.
struct Box {
  std::vector<int64_t> lo, hi;  // inclusive, per dimension
  int64_t element_bytes = 0;
  bool read = false;
  bool written = false;
};

// Per buffer (its data variable and rank: views of one allocation share a box).
using Footprint = std::map<std::pair<const Object*, size_t>, Box>;

bool HasChildBlock(const Stmt& body) {
  bool found = false;
  PostOrderVisit(body,
                 [&](const Object* n) { found = found || ir::IsInstance<SBlockRealizeNode>(n); });
  return found;
}

class TrafficModel {
 public:
  TrafficModel(const VarBindings& bindings, int64_t cache_bytes)
      : env_(bindings), cache_bytes_(cache_bytes) {}

  // The function's body: its top-level sequence (inside the root block) nest by nest.
  double Nests(const Stmt& s, arith::DomMap& dom) {
    if (!s.defined()) return 0;
    if (const auto* seq = s.as<SeqStmtNode>()) {
      double sum = 0;
      for (const Stmt& child : seq->seq) sum += Nests(child, dom);
      return sum;
    }
    if (const auto* realize = s.as<SBlockRealizeNode>();
        realize && HasChildBlock(realize->block->body)) {
      BindIterators(realize, dom);
      return Nests(realize->block->body, dom);
    }
    return Cost(s, dom);
  }

  bool known() const { return known_; }

  // Adds the box of `region` (block iterators and loops bound in `dom`) to `fp`.
  void AddRegion(const Buffer& buffer, const std::vector<PrimExpr>& mins,
                 const std::vector<PrimExpr>& extents, bool write, const arith::DomMap& dom,
                 Footprint* fp) {
    if (buffer->scope() != "global") return;
    const size_t ndim = buffer->shape.size();
    Box box;
    box.element_bytes = static_cast<int64_t>(buffer->dtype.bytes()) * buffer->dtype.lanes();
    for (size_t d = 0; d < ndim; ++d) {
      std::optional<int64_t> shape = EvalIndex(buffer->shape[d], env_);
      if (!shape) {
        known_ = false;
        return;
      }
      std::optional<int64_t> lo, hi;
      if (d < mins.size()) {
        arith::IntSet low = arith::EvalSet(mins[d], dom, &analyzer_);
        PrimExpr last = extents[d].defined() ? sub(add(mins[d], extents[d]),
                                                   make_const(extents[d]->dtype, int64_t(1)))
                                             : mins[d];
        arith::IntSet high = arith::EvalSet(last, dom, &analyzer_);
        if (low.HasLowerBound()) lo = EvalIndex(low.min_value, env_);
        if (high.HasUpperBound()) hi = EvalIndex(high.max_value, env_);
      }
      box.lo.push_back(std::clamp<int64_t>(lo.value_or(0), 0, std::max<int64_t>(*shape - 1, 0)));
      box.hi.push_back(std::clamp<int64_t>(hi.value_or(*shape - 1), -1, *shape - 1));
    }
    (write ? box.written : box.read) = true;
    auto key = std::make_pair(static_cast<const Object*>(buffer->data.get()), ndim);
    auto [it, inserted] = fp->emplace(key, box);
    if (inserted) return;
    Box& into = it->second;
    for (size_t d = 0; d < ndim; ++d) {
      into.lo[d] = std::min(into.lo[d], box.lo[d]);
      into.hi[d] = std::max(into.hi[d], box.hi[d]);
    }
    into.read = into.read || box.read;
    into.written = into.written || box.written;
  }

  void AddBlockRegions(const SBlockNode* block, const arith::DomMap& dom, Footprint* fp) {
    auto add_region = [&](const BufferRegion& r, bool write) {
      std::vector<PrimExpr> mins, extents;
      for (const Range& range : r->region) {
        mins.push_back(range->min);
        extents.push_back(range->extent);
      }
      AddRegion(r->buffer, mins, extents, write, dom, fp);
    };
    for (const BufferRegion& w : block->writes) add_region(w, true);
    for (const BufferRegion& r : block->reads) {
      // A reduction's accumulator: T.init writes it first, so its old value is never loaded.
      bool accumulator =
          block->init.defined() &&
          std::any_of(block->writes.begin(), block->writes.end(), [&](const BufferRegion& w) {
            return w->buffer->data.get() == r->buffer->data.get();
          });
      if (!accumulator) add_region(r, false);
    }
  }

  // Binds each block iterator to the set its value covers.
  void BindIterators(const SBlockRealizeNode* realize, arith::DomMap& dom) {
    const SBlockNode* block = realize->block.get();
    for (size_t i = 0; i < block->iter_vars.size() && i < realize->iter_values.size(); ++i) {
      dom[block->iter_vars[i]->var] = arith::EvalSet(realize->iter_values[i], dom, &analyzer_);
    }
  }

  double Bytes(const Footprint& fp) const {
    double bytes = 0;
    for (const auto& [key, box] : fp) {
      double elements = 1;
      for (size_t d = 0; d < box.lo.size(); ++d)
        elements *= static_cast<double>(std::max<int64_t>(box.hi[d] - box.lo[d] + 1, 0));
      bytes += elements * static_cast<double>(box.element_bytes) * (box.read + box.written);
    }
    return bytes;
  }

  Footprint FootprintOf(const Stmt& s, const arith::DomMap& dom);

  // One nest: once when it fits, else split at its outermost loop.
  double Cost(const Stmt& s, arith::DomMap& dom) {
    double whole = Bytes(FootprintOf(s, dom));
    if (whole <= static_cast<double>(cache_bytes_)) return whole;
    if (const auto* seq = s.as<SeqStmtNode>()) {
      double sum = 0;
      for (const Stmt& child : seq->seq) sum += Cost(child, dom);
      return sum;
    }
    if (const auto* loop = s.as<ForNode>()) {
      std::optional<int64_t> extent = EvalIndex(loop->extent, env_);
      std::optional<int64_t> min = EvalIndex(loop->min, env_);
      int64_t step = loop->step.defined() ? EvalIndex(loop->step, env_).value_or(1) : 1;
      if (!extent || !min) {
        known_ = false;
        return 0;
      }
      double trips = static_cast<double>((std::max<int64_t>(*extent, 0) + step - 1) /
                                         std::max<int64_t>(step, 1));
      // One iteration stands for all: the first.
      env_[loop->loop_var.get()] = *min;
      double body = Cost(loop->body, dom);
      env_.erase(loop->loop_var.get());
      return trips * body;
    }
    if (const auto* realize = s.as<SBlockRealizeNode>();
        realize && HasChildBlock(realize->block->body)) {
      arith::DomMap inner = dom;
      BindIterators(realize, inner);
      return Cost(realize->block->body, inner);
    }
    if (const auto* guard = s.as<IfThenElseNode>()) {
      return Cost(guard->then_case, dom) +
             (guard->else_case.defined() ? Cost(guard->else_case, dom) : 0);
    }
    return whole;
  }

 private:
  VarBindings env_;  // the shape variables, and the loops fixed at their first iteration
  int64_t cache_bytes_;
  arith::Analyzer analyzer_;
  bool known_ = true;
};

// The footprint of a statement: its loops over their ranges, its leaf blocks' regions, and the
// loads and stores outside any block.
class FootprintWalker : public StmtExprVisitor {
 public:
  FootprintWalker(TrafficModel* model, arith::DomMap dom, Footprint* fp)
      : model_(model), dom_(std::move(dom)), fp_(fp) {}

  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    dom_[op->loop_var] = arith::IntSet::FromRange(ir::MakeRange(op->min, op->extent));
    VisitStmt(op->body);
    dom_.erase(op->loop_var);
  }
  void VisitStmt_(const SBlockRealizeNode* op) override {
    arith::DomMap saved = dom_;
    model_->BindIterators(op, dom_);
    if (HasChildBlock(op->block->body)) {
      VisitStmt(op->block->body);
    } else {
      model_->AddBlockRegions(op->block.get(), dom_, fp_);
    }
    dom_ = std::move(saved);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    model_->AddRegion(op->buffer, op->indices, std::vector<PrimExpr>(op->indices.size()), true,
                      dom_, fp_);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    model_->AddRegion(op->buffer, op->indices, std::vector<PrimExpr>(op->indices.size()), false,
                      dom_, fp_);
    StmtExprVisitor::VisitExpr_(op);
  }

 private:
  TrafficModel* model_;
  arith::DomMap dom_;
  Footprint* fp_;
};

Footprint TrafficModel::FootprintOf(const Stmt& s, const arith::DomMap& dom) {
  Footprint fp;
  FootprintWalker walker(this, dom, &fp);
  walker(s);
  return fp;
}

}  // namespace

MemoryTraffic CountMemoryTraffic(const PrimFunc& func, const VarBindings& bindings,
                                 int64_t cache_bytes) {
  MemoryTraffic out;
  PostOrderVisit(func->body, [&](const Object* n) {
    if (ir::IsInstance<ForNode>(n) && static_cast<const ForNode*>(n)->kind == ForKind::kParallel)
      out.parallel = true;
  });
  TrafficModel model(bindings, cache_bytes);
  arith::DomMap dom;
  double bytes = model.Nests(func->body, dom);
  if (model.known()) out.bytes = bytes;
  return out;
}

}  // namespace wb::codegen
