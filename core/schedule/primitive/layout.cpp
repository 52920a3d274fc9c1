// transform_layout and pad_einsum (shared/SCHEDULE.md §2.9).
//
// transform_layout re-lays a buffer out through an IndexMap. The buffer keeps its name and gets
// the map's image of its shape; every access anywhere in the function goes through the map, and
// so do the read/write regions (a point maps to a point; a range is relaxed over the map). A
// buffer that is a parameter changes the signature, as in TVM. Padding is not implemented: a map
// whose image is larger than the buffer is refused, with TVM's TransformationIntroducesPadding
// message when no `pad_value` is given; a pad_value is checked (TVM's padding type error) and is
// otherwise unused, as in TVM when the map introduces no padding.
//
// pad_einsum pads the iters of an einsum-like block up to multiples of the given factors: every
// buffer indexed by a padded iter is replaced by a `<buf>_pad` copy, filled with zeros outside the
// original shape before the block (inputs) or copied back after it (outputs).
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/annotate.h"
#include "schedule/recipe.h"
#include "tir/builtin.h"
#include "tir/expr_text.h"
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
  PrimExpr pad;
  if (pad_value.defined()) {
    const auto* e = pad_value.as<PrimExprNode>();
    if (!e) throw std::invalid_argument("transform_layout: pad_value must be a constant");
    pad = GetRef(e);
    if (pad->dtype != target->dtype) {
      throw ScheduleError(prim, "Buffer " + target->name + " has elements of type " +
                                    target->dtype.ToString() +
                                    ", but the transformation fills padding with " +
                                    ExprText(pad) + ", which is of type " +
                                    pad->dtype.ToString());
    }
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
  if (pad.defined() && known && after != before) {
    throw ScheduleError(prim, "The transformation " + IndexMapLambdaText(index_map) +
                                  " applied on buffer " + target->name +
                                  " would introduce padding, which transform_layout does not "
                                  "implement yet (with pad_value " + ExprText(pad) + ")");
  }
  if (!pad.defined() && !assume_injective_transform && known && after != before) {
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
           {"pad_value", pad.defined() ? TraceValue::Raw(ExprText(pad)) : TraceValue::None()},
           {"assume_injective_transform", TraceValue::Bool(assume_injective_transform)}},
          {},
          false});
}

}  // namespace wb::schedule

// --- pad_einsum -------------------------------------------------------------------------------

namespace wb::schedule {

using namespace tir;

namespace {

// The buffer positions of an einsum access: each index a block iter var or a constant.
bool IsTrivialAccess(const BufferRegion& region) {
  for (const Range& r : region->region) {
    auto* e = r->extent.as<IntImmNode>();
    if (!e || e->value != 1) return false;
    if (!r->min.as<IntImmNode>() && !r->min.as<VarNode>()) return false;
  }
  return true;
}

// Swaps buffers for their padded copies and widens padded iters and the loops bound to them, in
// every block of the rewritten subtree (as TVM's replacer, which rebuilds blocks without their
// alloc and match buffers).
class PadReplacer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  std::unordered_map<const VarNode*, PrimExpr> iter_extent;
  std::unordered_map<const VarNode*, PrimExpr> loop_extent;
  std::unordered_map<const BufferNode*, Buffer> buffers;

  Stmt VisitStmt_(const SBlockNode* op) override {
    SBlock block = Downcast<SBlockNode>(StmtExprMutator::VisitStmt_(op));
    std::vector<IterVar> iters;
    for (const IterVar& iv : block->iter_vars) {
      auto it = iter_extent.find(iv->var.get());
      iters.push_back(it == iter_extent.end()
                          ? iv
                          : MakeIterVar(ir::MakeRange(iv->dom->min, it->second), iv->var,
                                        iv->iter_type, iv->thread_tag));
    }
    auto swap = [&](const std::vector<BufferRegion>& regions) {
      std::vector<BufferRegion> out;
      for (const BufferRegion& r : regions) {
        auto it = buffers.find(r->buffer.get());
        out.push_back(it == buffers.end() ? r : MakeBufferRegion(it->second, r->region));
      }
      return out;
    };
    return MakeSBlock(iters, swap(block->reads), swap(block->writes), block->name_hint,
                      block->body, block->init, {}, {}, block->annotations);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    For loop = Downcast<ForNode>(StmtExprMutator::VisitStmt_(op));
    auto it = loop_extent.find(loop->loop_var.get());
    if (it != loop_extent.end()) loop.CopyOnWrite()->extent = it->second;
    return loop;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto* store = s.as<BufferStoreNode>();
    auto it = buffers.find(store->buffer.get());
    if (it == buffers.end()) return s;
    return MakeBufferStore(it->second, store->value, store->indices);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    auto it = buffers.find(load->buffer.get());
    if (it == buffers.end()) return e;
    return MakeBufferLoad(it->second, load->indices);
  }
};

// The copy into (is_read) or out of the padded buffer: loops `i<k>`, iters `v<k>`, one block
// named after the padded buffer; reading pads with zeros outside the original shape.
Stmt CopyBlock(const Buffer& buffer, const Buffer& padded, bool is_read) {
  arith::Analyzer analyzer;
  size_t ndim = buffer->shape.size();
  std::vector<Var> loop_vars;
  std::vector<IterVar> iters;
  std::vector<PrimExpr> idx;
  std::vector<Range> point;
  for (size_t i = 0; i < ndim; ++i) {
    PrimExpr dim = is_read ? padded->shape[i] : buffer->shape[i];
    Range dom = ir::MakeRange(Zero(dim->dtype), dim);
    loop_vars.push_back(MakeVar("i" + std::to_string(i), dim->dtype));
    Var v = MakeVar("v" + std::to_string(i), dim->dtype);
    iters.push_back(MakeIterVar(dom, v, IterVarType::kDataPar));
    idx.push_back(v);
    point.push_back(ir::MakeRange(v, make_const(dim->dtype, int64_t(1))));
  }
  Stmt body;
  if (is_read) {
    PrimExpr pred = make_const(DataType::Bool(), int64_t(1));
    for (size_t i = 0; i < ndim; ++i) {
      if (!analyzer.CanProveEqual(buffer->shape[i], padded->shape[i])) {
        pred = logical_and(pred, less(idx[i], buffer->shape[i]));
      }
    }
    PrimExpr load = MakeBufferLoad(buffer, idx);
    PrimExpr value = MakeCall(load->dtype, GetOp("tirx.if_then_else"),
                              {pred, load, make_const(load->dtype, int64_t(0))});
    body = MakeBufferStore(padded, value, idx);
  } else {
    body = MakeBufferStore(buffer, MakeBufferLoad(padded, idx), idx);
  }
  BufferRegion read = MakeBufferRegion(buffer, point), write = MakeBufferRegion(padded, point);
  if (!is_read) std::swap(read, write);
  std::vector<PrimExpr> values(loop_vars.begin(), loop_vars.end());
  Stmt stmt = MakeSBlockRealize(values, make_const(DataType::Bool(), int64_t(1)),
                                MakeSBlock(iters, {read}, {write}, padded->name, body));
  for (size_t i = ndim; i-- > 0;) {
    stmt = MakeFor(loop_vars[i], Zero(loop_vars[i]->dtype), is_read ? padded->shape[i] : buffer->shape[i],
                   ForKind::kSerial, stmt);
  }
  return stmt;
}

std::string PaddingText(const std::vector<int64_t>& padding) {
  std::string out = "[";
  for (size_t i = 0; i < padding.size(); ++i) out += (i ? ", " : "") + std::to_string(padding[i]);
  return out + "]";
}

}  // namespace

void Schedule::PadEinsum(const SBlockRV& block_rv, const std::vector<int64_t>& padding) {
  const char* prim = "pad-einsum";
  SBlock block = Get(block_rv);
  PrimFunc func = Func();
  SBlock scope = GetScopeRoot(*this, prim, block.get(), true);
  const SBlockRealizeNode* realize = RealizeOf(func, block.get());
  bool valid = padding.size() == block->iter_vars.size();
  for (int64_t p : padding) valid &= p > 0;
  if (!valid) {
    throw ScheduleError(prim, "The padding for the block " + Quote(block.get()) +
                                  " are invalid. It should be a list of " +
                                  std::to_string(block->iter_vars.size()) +
                                  " positive integers. Got " + PaddingText(padding));
  }
  // The einsum pattern: every buffer accessed once, at iter vars or constants.
  std::unordered_set<const BufferNode*> seen;
  for (const auto* regions : {&block->reads, &block->writes}) {
    for (const BufferRegion& r : *regions) {
      if (!seen.insert(r->buffer.get()).second || !IsTrivialAccess(r)) {
        throw ScheduleError(prim, "The block " + Quote(block.get()) +
                                      " not a computation of Einsum pattern.");
      }
    }
  }
  arith::Analyzer analyzer;
  PadReplacer replacer;
  for (size_t i = 0; i < padding.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    PrimExpr dom = iv->dom->extent;
    PrimExpr pad = make_const(dom->dtype, padding[i]);
    PrimExpr padded = analyzer.Simplify(mul(floordiv(sub(add(dom, pad), make_const(dom->dtype, int64_t(1))), pad), pad));
    if (analyzer.CanProveEqual(padded, dom)) continue;
    replacer.iter_extent[iv->var.get()] = padded;
    if (auto* lv = realize->iter_values[i].as<VarNode>()) {
      replacer.iter_extent[lv] = padded;
      replacer.loop_extent[lv] = padded;
    }
  }
  auto needs_padding = [&](const BufferRegion& r) {
    for (const Range& rg : r->region) {
      if (auto* v = rg->min.as<VarNode>(); v && replacer.iter_extent.count(v)) return true;
    }
    return false;
  };
  auto padded_buffer = [&](const BufferRegion& r) {
    std::vector<PrimExpr> shape;
    for (size_t d = 0; d < r->region.size(); ++d) {
      const PrimExpr& pos = r->region[d]->min;
      if (pos.as<IntImmNode>()) {
        shape.push_back(make_const(pos->dtype, int64_t(1)));
      } else if (auto it = replacer.iter_extent.find(pos.as<VarNode>()); it != replacer.iter_extent.end()) {
        shape.push_back(it->second);
      } else {
        shape.push_back(r->buffer->shape[d]);
      }
    }
    BufferOptions opts;
    opts.scope = r->buffer->scope();
    return MakeBuffer(r->buffer->name + "_pad", shape, r->buffer->dtype, opts);
  };
  std::vector<Stmt> reads, writes;
  std::vector<Buffer> allocs;
  for (const BufferRegion& r : block->reads) {
    if (!needs_padding(r)) continue;
    Buffer p = padded_buffer(r);
    replacer.buffers[r->buffer.get()] = p;
    reads.push_back(CopyBlock(r->buffer, p, true));
    allocs.push_back(p);
  }
  for (const BufferRegion& w : block->writes) {
    if (!needs_padding(w)) continue;
    Buffer p = padded_buffer(w);
    replacer.buffers[w->buffer.get()] = p;
    writes.push_back(CopyBlock(w->buffer, p, false));
    allocs.push_back(p);
  }
  // The scope's top statement holding the block is rewritten, with the copies around it.
  std::vector<Stmt> body;
  if (auto* seq = scope->body.as<SeqStmtNode>()) {
    body = seq->seq;
  } else {
    body.push_back(scope->body);
  }
  std::vector<Stmt> new_body;
  for (const Stmt& s : body) {
    if (PathTo(s, block.get()).empty()) {
      new_body.push_back(s);
      continue;
    }
    new_body.insert(new_body.end(), reads.begin(), reads.end());
    new_body.push_back(replacer(s));
    new_body.insert(new_body.end(), writes.begin(), writes.end());
  }
  SBlock new_scope = scope;
  {
    SBlockNode* n = new_scope.CopyOnWrite();
    n->body = MakeSeq(new_body);
    n->alloc_buffers.insert(n->alloc_buffers.end(), allocs.begin(), allocs.end());
  }
  Replace(scope.get(), new_scope);
  std::vector<TraceValue> pads;
  for (int64_t p : padding) pads.push_back(TraceValue::Int(p));
  Record({"pad_einsum",
          {{"block", TraceValue::Block(block_rv.id)}, {"padding", TraceValue::List(pads)}},
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

// TVM's Python conversion of a scalar pad value: an int for an integer buffer and a float for
// a float buffer take the buffer's dtype; other literals are int32 / float32; a typed constant
// (`T.int8(0)`, `tvm.tirx.IntImm("int8", 0)`) keeps its dtype. A function of the indices is not
// supported yet.
tir::PrimExpr PadValueOf(Schedule& sch, const SBlockRV& block, const Schedule::BufferSpec& spec,
                         const RecipeValue& v) {
  if (v.kind == RecipeValue::Kind::kLambda) {
    throw RecipeError{"transform_layout with a pad_value computed from the indices is not "
                      "supported yet: give a constant",
                      v.begin, v.end};
  }
  if (v.kind != RecipeValue::Kind::kInt && v.kind != RecipeValue::Kind::kFloat &&
      v.kind != RecipeValue::Kind::kBool) {
    throw RecipeArgs::TypeError(v, "pad_value", "a number");
  }
  ir::DataType buffer_dtype = ir::DataType::Int(32);
  tir::SBlock b = sch.Get(block);
  if (auto* by_index = std::get_if<std::pair<std::string, int64_t>>(&spec)) {
    const auto& regions = by_index->first == "write" ? b->writes : b->reads;
    if (by_index->second >= 0 && by_index->second < int64_t(regions.size())) {
      buffer_dtype = regions[by_index->second]->buffer->dtype;
    }
  } else {
    for (const auto* regions : {&b->reads, &b->writes}) {
      for (const tir::BufferRegion& r : *regions) {
        if (r->buffer->name == std::get<std::string>(spec)) buffer_dtype = r->buffer->dtype;
      }
    }
  }
  ir::DataType dtype;
  if (!v.dtype.empty()) {
    dtype = *ir::DataType::Parse(v.dtype);
  } else if (v.kind == RecipeValue::Kind::kFloat) {
    dtype = buffer_dtype.is_floating_point() ? buffer_dtype : ir::DataType::Float(32);
  } else if (v.kind == RecipeValue::Kind::kBool) {
    dtype = ir::DataType::Bool();
  } else {
    dtype = buffer_dtype.is_int() || buffer_dtype.is_uint() ? buffer_dtype : ir::DataType::Int(32);
  }
  if (dtype.is_floating_point()) {
    return tir::make_const(dtype, v.kind == RecipeValue::Kind::kFloat ? v.f : double(v.i));
  }
  return tir::make_const(dtype, v.i);
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
       tir::PrimExpr pad;
       if (args.Has("pad_value")) pad = PadValueOf(sch, block, buffer, *args.Get("pad_value"));
       sch.TransformLayout(block, buffer, map, pad,
                           args.Bool("assume_injective_transform", false));
       return {};
     }},
    {"layout",
     "change a buffer's layout by an index map",
     {{"block", RecipeParamKind::kBlock, "a block accessing the buffer", ""},
      {"buffer", RecipeParamKind::kBuffer, "the buffer, as the block reads or writes it", ""},
      {"index_map", RecipeParamKind::kIndexMap,
       "the new indices from the old, e.g. lambda i, j: (j, i)", ""},
      {"pad_value", RecipeParamKind::kAnnValue,
       "a constant of the buffer's dtype (padding itself is not implemented yet)", "None"},
      {"assume_injective_transform", RecipeParamKind::kBool,
       "skip the check that the map introduces no padding", "False"}}});

RecipeMethodRegistrar reg_pad_einsum(
    "pad_einsum", {{"block", "padding"}, false, RecipeReturns::kNothing,
                   [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
                     const RecipeValue& v = args.Require("padding");
                     if (v.kind != RecipeValue::Kind::kList) {
                       throw RecipeArgs::TypeError(v, "padding", "a list of integers");
                     }
                     std::vector<int64_t> padding;
                     for (const RecipeValue& p : v.list) padding.push_back(args.IntOf(p, "padding"));
                     sch.PadEinsum(args.Block("block"), padding);
                     return {};
                   }},
    {"layout",
     "pad an einsum block's iteration extents to multiples",
     {{"block", RecipeParamKind::kBlock, "the einsum block", ""},
      {"padding", RecipeParamKind::kIntList, "a multiple per block iterator", ""}}});

}  // namespace
}  // namespace wb::schedule
