#include "transform/tir/lower_match_buffer.h"

#include <unordered_map>

#include "arith/analyzer.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

// Where a matched buffer's element 0 lives in its source, and the source itself.
struct MatchedView {
  Buffer source;
  std::vector<PrimExpr> start;  // one per source dimension
};

// A's strides, row-major when it declares none.
std::vector<PrimExpr> StridesOf(const Buffer& buffer) {
  if (!buffer->strides.empty()) return buffer->strides;
  std::vector<PrimExpr> strides(buffer->shape.size());
  PrimExpr s;
  for (size_t k = buffer->shape.size(); k-- > 0;) {
    strides[k] = s.defined() ? s : make_const(buffer->shape[k]->dtype, int64_t(1));
    s = s.defined() ? mul(s, buffer->shape[k]) : buffer->shape[k];
  }
  return strides;
}

class MatchBufferLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? PrimExpr(GetRef(op)) : it->second;
  }

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr visited = StmtExprMutator::VisitExpr_(op);
    const auto* load = visited.as<BufferLoadNode>();
    auto it = views_.find(load->buffer.get());
    if (it == views_.end()) return visited;
    return MakeBufferLoad(it->second.source, Translate(it->second, load->indices, load->span),
                          load->predicate, load->span);
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt visited = StmtExprMutator::VisitStmt_(op);
    const auto* store = visited.as<BufferStoreNode>();
    auto it = views_.find(store->buffer.get());
    if (it == views_.end()) return visited;
    return MakeBufferStore(it->second.source, store->value,
                           Translate(it->second, store->indices, store->span), store->predicate,
                           store->span);
  }

  BufferRegion VisitBufferRegion(const BufferRegion& region) override {
    BufferRegion visited = StmtExprMutator::VisitBufferRegion(region);
    auto it = views_.find(visited->buffer.get());
    if (it == views_.end()) return visited;
    const MatchedView& view = it->second;
    size_t lead = view.start.size() - visited->region.size();
    std::vector<Range> ranges;
    for (size_t k = 0; k < view.start.size(); ++k) {
      if (k < lead) {
        ranges.push_back(ir::MakeRange(view.start[k], make_const(view.start[k]->dtype, int64_t(1))));
      } else {
        const Range& r = visited->region[k - lead];
        ranges.push_back(ir::MakeRange(analyzer_.Simplify(add(view.start[k], r->min)), r->extent));
      }
    }
    return MakeBufferRegion(view.source, std::move(ranges), visited->span);
  }

  Stmt VisitStmt_(const SBlockNode* op) override {
    if (op->match_buffers.empty()) return StmtExprMutator::VisitStmt_(op);
    for (const auto& match : op->match_buffers) Bind(match);
    Stmt visited = StmtExprMutator::VisitStmt_(op);
    SBlock block = Downcast<SBlockNode>(visited);
    block.CopyOnWrite()->match_buffers.clear();
    return block;
  }

 private:
  void Bind(const MatchBufferRegion& match) {
    const Buffer& b = match->buffer;
    // The source region may itself be a view bound further out.
    BufferRegion source = VisitBufferRegion(match->source);
    const Buffer& a = source->buffer;
    const size_t nd = b->shape.size();
    if (source->region.size() < nd) {
      throw ir::PassError(Diagnostic::Error(
          "match_buffer " + b->name + " has " + std::to_string(nd) +
              " dimensions, more than its source region of " + a->name,
          match->span));
    }
    MatchedView view{a, {}};
    for (const auto& r : source->region) view.start.push_back(r->min);
    const size_t lead = source->region.size() - nd;
    // Shape: each dimension is the region's extent there.
    for (size_t k = 0; k < nd; ++k) {
      const Range& r = source->region[lead + k];
      BindField(b->shape[k], r->extent, "dimension " + std::to_string(k) + " of " + b->name,
                match->span);
    }
    std::vector<PrimExpr> a_strides = StridesOf(a);
    if (!b->strides.empty()) {
      for (size_t k = 0; k < nd; ++k) {
        BindField(b->strides[k], a_strides[lead + k], "stride " + std::to_string(k) + " of " + b->name,
                  match->span);
      }
    }
    if (b->elem_offset.defined()) {
      PrimExpr offset = a->elem_offset.defined() ? a->elem_offset : make_const(DataType::Int(32), int64_t(0));
      for (size_t k = 0; k < view.start.size(); ++k) offset = add(offset, mul(view.start[k], a_strides[k]));
      BindField(b->elem_offset, analyzer_.Simplify(offset), "the element offset of " + b->name,
                match->span);
    }
    vars_[b->data.get()] = a->data;
    views_[b.get()] = std::move(view);
  }

  // A field of the matched buffer is either a variable (bound here) or must equal `value`.
  void BindField(const PrimExpr& field, const PrimExpr& value, const std::string& what,
                 const Span& span) {
    if (auto* v = field.as<VarNode>()) {
      if (!vars_.count(v)) {
        vars_[v] = value;
        return;
      }
    }
    PrimExpr expected = analyzer_.Simplify(VisitExpr(field));
    PrimExpr actual = analyzer_.Simplify(value);
    const int64_t* e = AsConstInt(expected);
    const int64_t* a = AsConstInt(actual);
    if (e && a && *e != *a) {
      throw ir::PassError(Diagnostic::Error(what + " is " + std::to_string(*e) +
                                                ", but the matched region gives " +
                                                std::to_string(*a),
                                            span));
    }
  }

  std::vector<PrimExpr> Translate(const MatchedView& view, const std::vector<PrimExpr>& indices,
                                  const Span& span) {
    if (indices.size() > view.start.size()) {
      throw ir::PassError(Diagnostic::Error("access with more indices than its source buffer " +
                                                view.source->name + " has dimensions",
                                            span));
    }
    size_t lead = view.start.size() - indices.size();
    std::vector<PrimExpr> out;
    for (size_t k = 0; k < view.start.size(); ++k) {
      out.push_back(k < lead ? view.start[k] : analyzer_.Simplify(add(view.start[k], indices[k - lead])));
    }
    return out;
  }

  std::unordered_map<const VarNode*, PrimExpr> vars_;
  std::unordered_map<const BufferNode*, MatchedView> views_;
  arith::Analyzer analyzer_;
};

}  // namespace

ir::Pass LowerMatchBuffer() {
  return tir::CreateBodyRewritePass([](const Stmt& body) { return MatchBufferLowerer()(body); },
                                   0, "LowerMatchBuffer");
}

static PassRegistrar registrar({"LowerMatchBuffer",
                                "replaces match_buffer views by accesses of their source buffers",
                                {},
                                [](const PassArgs&) { return LowerMatchBuffer(); }});

}  // namespace wb::transform
