// transform_layout (shared/SCHEDULE.md §2.9): re-lays a buffer out through an IndexMap. The
// buffer keeps its name and gets the map's image of its shape; every access anywhere in the
// function goes through the map, and so do the read/write regions (a point maps to a point; a
// range is relaxed over the map). A buffer that is a parameter changes the signature, as in TVM.
//
// Padding is not implemented: a map whose image is larger than the buffer (TVM would pad with
// `pad_value`) is refused with TVM's TransformationIntroducesPaddingError message.
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "schedule/block_scope.h"
#include "schedule/recipe.h"
#include "schedule/primitive/annotate.h"
#include "tir/functor.h"
#include "tir/index_map.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

class LayoutRewriter : public StmtExprMutator {
 public:
  LayoutRewriter(Buffer old_buffer, Buffer new_buffer, IndexMap map)
      : old_(std::move(old_buffer)), new_(std::move(new_buffer)), map_(std::move(map)) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* store = s.as<BufferStoreNode>();
    if (store->buffer.get() != new_.get()) return s;
    return MakeBufferStore(new_, store->value, MapIndices(map_, store->indices), store->predicate,
                           store->span);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    if (load->buffer.get() != new_.get()) return e;
    return MakeBufferLoad(new_, MapIndices(map_, load->indices), load->predicate, load->span);
  }

 protected:
  Buffer VisitBufferUse(const Buffer& b) override { return b.same_as(old_) ? new_ : b; }
  Buffer VisitBufferDef(const Buffer& b) override { return b.same_as(old_) ? new_ : b; }
  BufferRegion VisitBufferRegion(const BufferRegion& region) override {
    BufferRegion r = StmtExprMutator::VisitBufferRegion(region);
    if (!r->buffer.same_as(new_)) return r;
    return MapRegion(r);
  }

 private:
  // A point maps to a point; a range is relaxed: fresh variables sweep it, the map's image of
  // them is bounded with EvalSet.
  BufferRegion MapRegion(const BufferRegion& r) {
    arith::Analyzer analyzer;
    bool point = true;
    for (const Range& rg : r->region) {
      auto* e = rg->extent.as<IntImmNode>();
      point &= e && e->value == 1;
    }
    std::vector<PrimExpr> mins;
    for (const Range& rg : r->region) mins.push_back(rg->min);
    std::vector<Range> out;
    if (point) {
      for (const PrimExpr& i : MapIndices(map_, mins)) {
        out.push_back(ir::MakeRange(i, make_const(i->dtype, int64_t(1))));
      }
      return MakeBufferRegion(new_, out, r->span);
    }
    arith::RangeMap dom;
    std::vector<PrimExpr> points;
    for (size_t d = 0; d < r->region.size(); ++d) {
      const Range& rg = r->region[d];
      Var v = MakeVar("r" + std::to_string(d), rg->min->dtype);
      dom[v] = ir::MakeRange(Zero(v->dtype), rg->extent);
      points.push_back(add(rg->min, v));
    }
    std::vector<PrimExpr> mapped = MapIndices(map_, points);
    for (size_t d = 0; d < mapped.size(); ++d) {
      arith::IntSet s = arith::EvalSet(mapped[d], dom, &analyzer);
      out.push_back(s.CoverRange(ir::MakeRange(Zero(new_->shape[d]->dtype), new_->shape[d])));
    }
    return MakeBufferRegion(new_, out, r->span);
  }

  Buffer old_, new_;
  IndexMap map_;
};

int64_t ConstProduct(const std::vector<PrimExpr>& shape, bool* known) {
  int64_t p = 1;
  for (const PrimExpr& d : shape) {
    auto* i = d.as<IntImmNode>();
    if (!i) {
      *known = false;
      return 0;
    }
    p *= i->value;
  }
  return p;
}

}  // namespace

void Schedule::ReplaceFunc(const PrimFunc& func) {
  ir::IRModule mod = mod_;
  auto* m = mod.CopyOnWrite();
  for (size_t i = 0; i < m->global_vars.size(); ++i) {
    if (m->global_vars[i]->name_hint == func_name_) m->functions[i] = func;
  }
  mod_ = mod;
}

void Schedule::TransformLayout(const SBlockRV& block_rv, const BufferSpec& buffer,
                               const IndexMap& index_map, const ObjectRef& pad_value,
                               bool assume_injective_transform) {
  const char* prim = "transform_layout";
  SBlock block = Get(block_rv);
  PrimFunc func = Func();
  Buffer target;
  TraceValue buffer_value;
  if (auto* by_index = std::get_if<std::pair<std::string, int64_t>>(&buffer)) {
    if (by_index->first != "read" && by_index->first != "write") {
      throw std::invalid_argument("transform_layout: the buffer type must be \"read\" or "
                                  "\"write\", got \"" + by_index->first + "\"");
    }
    target = detail::NthAccessBuffer(prim, block, by_index->second, by_index->first == "write");
    buffer_value = TraceValue::Raw("(\"" + by_index->first + "\", " +
                                   std::to_string(by_index->second) + ")");
  } else {
    const std::string& name = std::get<std::string>(buffer);
    std::vector<Buffer> hits;
    for (const auto* regions : {&block->reads, &block->writes}) {
      for (const BufferRegion& r : *regions) {
        if (r->buffer->name == name) {
          bool seen = false;
          for (const Buffer& h : hits) seen |= h.same_as(r->buffer);
          if (!seen) hits.push_back(r->buffer);
        }
      }
    }
    if (hits.size() != 1) {
      throw std::invalid_argument("transform_layout: the block " + Quote(block.get()) +
                                  (hits.empty() ? " accesses no buffer named "
                                                : " accesses several buffers named ") +
                                  name);
    }
    target = hits[0];
    // The trace records the resolved position, as TVM's Python front end does.
    bool is_write = false;
    int64_t idx = -1;
    for (size_t i = 0; i < block->reads.size() && idx < 0; ++i) {
      if (block->reads[i]->buffer.same_as(target)) idx = static_cast<int64_t>(i);
    }
    if (idx < 0) {
      is_write = true;
      for (size_t i = 0; i < block->writes.size() && idx < 0; ++i) {
        if (block->writes[i]->buffer.same_as(target)) idx = static_cast<int64_t>(i);
      }
    }
    buffer_value = TraceValue::Raw(std::string("(\"") + (is_write ? "write" : "read") + "\", " +
                                   std::to_string(idx) + ")");
  }
  if (index_map->initial_indices.size() != target->shape.size()) {
    throw ScheduleError(prim, "The index map takes " +
                                  std::to_string(index_map->initial_indices.size()) +
                                  " indices, but the buffer " + target->name + " has " +
                                  std::to_string(target->shape.size()) + " dimensions");
  }
  if (pad_value.defined()) {
    throw ScheduleError(prim, "transform_layout with a pad_value is not supported yet");
  }
  std::vector<PrimExpr> new_shape;
  try {
    new_shape = MapShape(index_map, target->shape);
  } catch (const std::invalid_argument& e) {
    throw ScheduleError(prim, e.what());
  }
  bool known = true;
  int64_t before = ConstProduct(target->shape, &known);
  int64_t after = ConstProduct(new_shape, &known);
  if (!assume_injective_transform && known && after != before) {
    throw ScheduleError(prim, "The transformation " + IndexMapLambdaText(index_map) +
                                  " applied on buffer " + target->name +
                                  " would introduce padding: the buffer has " +
                                  std::to_string(before) + " elements, the new layout " +
                                  std::to_string(after) + ". Give a pad_value.");
  }
  BufferOptions opts;
  opts.scope = target->scope();
  opts.data_alignment = target->data_alignment;
  opts.offset_factor = target->offset_factor;
  opts.data = target->data;
  Buffer replaced = MakeBuffer(target->name, new_shape, target->dtype, opts, target->span);
  LayoutRewriter rewriter(target, replaced, index_map);
  PrimFunc updated = func;
  {
    PrimFuncNode* n = updated.CopyOnWrite();
    n->body = rewriter(func->body);
    for (Buffer& b : n->buffer_map) {
      if (b.same_as(target)) b = replaced;
    }
  }
  ReplaceFunc(updated);
  Record({"transform_layout",
          {{"block", TraceValue::Block(block_rv.id)},
           {"buffer", buffer_value},
           {"index_map", TraceValue::Raw(IndexMapLambdaText(index_map))},
           {"pad_value", TraceValue::None()},
           {"assume_injective_transform", TraceValue::Bool(assume_injective_transform)}},
          {},
          false});
}

}  // namespace wb::schedule

// --- recipe methods ------------------------------------------------------------------------------

namespace wb::schedule {
namespace {

// `("write", 0)` / `["read", 1]`, or a buffer name.
Schedule::BufferSpec BufferOf(RecipeArgs& args, const RecipeValue& v) {
  if (v.kind == RecipeValue::Kind::kString) return v.s;
  if (v.kind == RecipeValue::Kind::kList && v.list.size() == 2) {
    return std::pair<std::string, int64_t>{args.StringOf(v.list[0], "the buffer type"),
                                           args.IntOf(v.list[1], "the buffer index")};
  }
  throw RecipeArgs::TypeError(v, "buffer", "(\"read\" or \"write\", index) or a buffer name");
}

RecipeMethodRegistrar reg_transform_layout(
    "transform_layout",
    {{"block", "buffer", "index_map", "pad_value", "assume_injective_transform"}, false,
     RecipeReturns::kNothing, [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       SBlockRV block = args.Block("block");
       Schedule::BufferSpec buffer = BufferOf(args, args.Require("buffer"));
       const RecipeValue& m = args.Require("index_map");
       if (m.kind != RecipeValue::Kind::kLambda) {
         throw RecipeArgs::TypeError(m, "index_map", "a lambda");
       }
       // TVM's Python front end gives the lambda's variables the dtype of the block's first
       // iter var (int64 without one).
       tir::SBlock b = sch.Get(block);
       ir::DataType dtype =
           b->iter_vars.empty() ? ir::DataType::Int(64) : b->iter_vars[0]->var->dtype;
       std::string error;
       size_t offset = 0;
       tir::IndexMap map = tir::ParseIndexMapLambda(m.s, dtype, &error, &offset);
       if (!map.defined()) {
         uint32_t at = m.begin + static_cast<uint32_t>(offset);
         throw RecipeError{error, at, std::min(at + 1, m.end)};
       }
       if (args.Has("pad_value")) {
         const RecipeValue* p = args.Get("pad_value");
         throw RecipeError{"transform_layout with a pad_value is not supported yet", p->begin,
                           p->end};
       }
       sch.TransformLayout(block, buffer, map, {},
                           args.Bool("assume_injective_transform", false));
       return {};
     }});

}  // namespace
}  // namespace wb::schedule
