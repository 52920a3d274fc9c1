// transform_layout and pad_einsum (shared/SCHEDULE.md §2.9).
//
// transform_layout re-lays a buffer out through an IndexMap. The buffer keeps its name and gets
// the map's image of its shape; every access anywhere in the function goes through the map, and
// so do the read/write regions (a point maps to a point; a range is relaxed over the map). A
// buffer that is a parameter changes the signature, as in TVM. A map whose image is larger than
// the buffer (padding) needs a `pad_value`, which the padding then holds (PaddingPlan says how);
// without one it is refused with TVM's TransformationIntroducesPadding message.
//
// pad_einsum pads the iters of an einsum-like block up to multiples of the given factors: every
// buffer indexed by a padded iter is replaced by a `<buf>_pad` copy, filled with zeros outside the
// original shape before the block (inputs) or copied back after it (outputs).
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "arith/iter_affine_map.h"
#include "ir/structural_equal.h"
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

// The padding transform_layout fills when its map lays the buffer out larger (TVM's
// TransformLayoutPlanner), in order of preference:
//  - none: the map adds no element, only the accesses change;
//  - prologue: the buffer is only read (an input): `T.assume` that the padding holds the pad
//    value, in a block before the scope's body;
//  - replacement: a write of the buffer that sweeps it row-major (one serial loop per dimension,
//    the store's indices those loops, nothing else stored) is rebuilt as a sweep of the new
//    layout that stores the pad value in the padding, through `T.if_then_else`;
//  - epilogue: otherwise a block after the last write stores the pad value in the padding.
struct PaddingPlan {
  Stmt prologue;
  std::unordered_map<const ForNode*, Stmt> replacements;
  const StmtNode* insert_after = nullptr;
  Stmt epilogue;
};

struct PaddingInputs {
  Buffer old_buffer, new_buffer;
  IndexMap inverse;  // new indices -> old indices
  PrimExpr padding;  // in the inverse's initial indices
  IndexMap pad;      // new indices -> the value
};

std::vector<const VarNode*> VarsOf(const PrimExpr& e) {
  std::vector<const VarNode*> out;
  PostOrderVisit(e, [&](const ir::Object* n) {
    if (auto* v = dynamic_cast<const VarNode*>(n)) out.push_back(v);
  });
  return out;
}

// The loop nest for the new layout: one serial loop per dimension, the inverse's variables.
Stmt NewLayoutLoops(const PaddingInputs& in, Stmt body) {
  const std::vector<Var>& vars = in.inverse->initial_indices;
  for (size_t i = vars.size(); i-- > 0;) {
    body = MakeFor(vars[i], Zero(vars[i]->dtype), cast(vars[i]->dtype, in.new_buffer->shape[i]),
                   ForKind::kSerial, body);
  }
  return body;
}

// Fresh block iters `v_<axis>` over the new shape, bound to the inverse's variables.
void NewLayoutIters(const PaddingInputs& in, std::vector<IterVar>* iters,
                    std::vector<PrimExpr>* values, VarMap* to_iters) {
  const std::vector<Var>& vars = in.inverse->initial_indices;
  for (size_t i = 0; i < vars.size(); ++i) {
    Var v = MakeVar("v_" + vars[i]->name_hint, vars[i]->dtype);
    iters->push_back(MakeIterVar(
        ir::MakeRange(Zero(v->dtype), cast(v->dtype, in.new_buffer->shape[i])), v,
        IterVarType::kDataPar));
    values->push_back(vars[i]);
    if (to_iters) (*to_iters)[vars[i].get()] = v;
  }
}

class PaddingPlanner : public StmtExprVisitor {
 public:
  explicit PaddingPlanner(const PaddingInputs& in) : in_(in) {}
  using StmtExprVisitor::VisitStmt_;

  PaddingPlan Plan(const SBlockNode* scope) {
    VisitStmt(GetRef(scope));
    PaddingPlan plan;
    if (writes_.empty()) {
      plan.prologue = Prologue();
      return plan;
    }
    for (const WriteInfo& info : writes_) {
      if (info.loops.empty() || !info.row_major) continue;
      if (Stmt s = Replacement(info); s.defined()) plan.replacements[info.loops[0].get()] = s;
    }
    if (!plan.replacements.empty()) return plan;
    const WriteInfo& last = writes_.back();
    plan.insert_after = last.loops.empty() ? static_cast<const StmtNode*>(last.realize)
                                           : last.loops.front().get();
    plan.epilogue = Epilogue();
    return plan;
  }

 private:
  struct WriteInfo {
    BufferStore store;
    const SBlockRealizeNode* realize = nullptr;
    std::vector<For> loops;  // from the outermost to the innermost loop the indices use
    bool row_major = false;
  };

  void VisitStmt_(const ForNode* op) override {
    depth_[op->loop_var.get()] = {loops_.size(), loops_.size()};
    loops_.push_back(GetRef(op));
    StmtExprVisitor::VisitStmt_(op);
    loops_.pop_back();
    depth_.erase(op->loop_var.get());
  }
  void VisitStmt_(const BindNode* op) override {
    Define(op->var, op->value);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const SBlockRealizeNode* op) override {
    for (size_t i = 0; i < op->iter_values.size() && i < op->block->iter_vars.size(); ++i) {
      Define(op->block->iter_vars[i]->var, op->iter_values[i]);
    }
    const SBlockRealizeNode* outer = realize_;
    realize_ = op;
    StmtExprVisitor::VisitStmt_(op);
    realize_ = outer;
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (!op->buffer.same_as(in_.old_buffer)) return;
    WriteInfo info;
    info.store = GetRef(op);
    info.realize = realize_;
    std::optional<std::pair<size_t, size_t>> range;
    for (const PrimExpr& index : op->indices) Widen(&range, DepthOf(index));
    if (range) info.loops.assign(loops_.begin() + range->first, loops_.begin() + range->second + 1);
    info.row_major = RowMajor(info);
    writes_.push_back(info);
  }

  std::optional<std::pair<size_t, size_t>> DepthOf(const PrimExpr& e) const {
    std::optional<std::pair<size_t, size_t>> range;
    for (const VarNode* v : VarsOf(e)) {
      auto it = depth_.find(v);
      if (it != depth_.end()) Widen(&range, it->second);
    }
    return range;
  }
  static void Widen(std::optional<std::pair<size_t, size_t>>* acc,
                    const std::optional<std::pair<size_t, size_t>>& r) {
    if (!r) return;
    if (!*acc) {
      *acc = r;
      return;
    }
    (*acc)->first = std::min((*acc)->first, r->first);
    (*acc)->second = std::max((*acc)->second, r->second);
  }
  void Define(const Var& var, const PrimExpr& value) {
    if (auto d = DepthOf(value)) {
      depth_[var.get()] = *d;
      bindings_[var.get()] = Substitute(value, bindings_);
    }
  }
  bool RowMajor(const WriteInfo& info) const {
    const std::vector<PrimExpr>& shape = in_.old_buffer->shape;
    if (info.loops.empty() || info.loops.size() != shape.size() ||
        info.loops.size() != info.store->indices.size()) {
      return false;
    }
    for (size_t i = 0; i < info.loops.size(); ++i) {
      const For& loop = info.loops[i];
      PrimExpr index = Substitute(info.store->indices[i], bindings_);
      if (!index.same_as(loop->loop_var) || !IsConstInt(loop->min, 0) ||
          !ir::StructuralEqual(loop->extent, shape[i], false) || loop->kind != ForKind::kSerial) {
        return false;
      }
    }
    return true;
  }

  Stmt Prologue() const {
    std::vector<IterVar> iters;
    std::vector<PrimExpr> values, indices;
    VarMap to_iters;
    NewLayoutIters(in_, &iters, &values, &to_iters);
    for (const IterVar& iv : iters) indices.push_back(iv->var);
    PrimExpr pad = MapIndices(in_.pad, indices)[0];
    PrimExpr holds = logical_or(logical_not(Substitute(in_.padding, to_iters)),
                                equal(MakeBufferLoad(in_.new_buffer, indices), pad));
    Stmt body = MakeEvaluate(MakeCall(DataType::Bool(), GetOp("tirx.assume"), {holds}));
    std::vector<Range> point;
    for (const PrimExpr& i : indices) point.push_back(ir::MakeRange(i, make_const(i->dtype, int64_t(1))));
    SBlock block = MakeSBlock(iters, {MakeBufferRegion(in_.new_buffer, point)}, {},
                              "buffer_" + in_.new_buffer->name + "_assumptions", body);
    return NewLayoutLoops(in_, MakeSBlockRealize(values, make_const(DataType::Bool(), int64_t(1)), block));
  }

  Stmt Epilogue() const {
    std::vector<IterVar> iters;
    std::vector<PrimExpr> values, indices;
    NewLayoutIters(in_, &iters, &values, nullptr);
    for (const IterVar& iv : iters) indices.push_back(iv->var);
    std::vector<Range> point;
    for (const PrimExpr& i : indices) point.push_back(ir::MakeRange(i, make_const(i->dtype, int64_t(1))));
    Stmt body = MakeBufferStore(in_.new_buffer, MapIndices(in_.pad, indices)[0], indices);
    SBlock block = MakeSBlock(iters, {}, {MakeBufferRegion(in_.new_buffer, point)},
                              "buffer_" + in_.new_buffer->name + "_padding", body);
    return NewLayoutLoops(in_, MakeSBlockRealize(values, in_.padding, block));
  }

  // The write's loop nest as a sweep of the new layout; null when another store in it (of this
  // buffer at other indices, or of anything else) would be swept too.
  Stmt Replacement(const WriteInfo& info) const;

  const PaddingInputs& in_;
  std::vector<WriteInfo> writes_;
  std::vector<For> loops_;
  std::unordered_map<const VarNode*, std::pair<size_t, size_t>> depth_;
  VarMap bindings_;
  const SBlockRealizeNode* realize_ = nullptr;

  friend class PaddedStoreReplacer;
};

// Rewrites the body of a row-major write's loop nest for the new layout: the nest's loop vars
// become the inverse of the new loop vars; when the store's indices are exactly data-parallel
// iters of its block (in order), those iters are replaced by fresh ones over the new shape. The
// store goes to the new buffer, `if_then_else(padding, pad value, value)`.
class PaddedStoreReplacer : public StmtExprMutator {
 public:
  PaddedStoreReplacer(const PaddingInputs& in, const BufferStore& store,
                      const SBlockRealizeNode* realize, const std::vector<For>& loops)
      : in_(in), store_(store), realize_(realize) {
    for (const Var& v : in.inverse->initial_indices) new_indices_.push_back(v);
    padding_ = in.padding;
    for (size_t i = 0; i < loops.size(); ++i) {
      remap_[loops[i]->loop_var.get()] = in.inverse->final_indices[i];
    }
    if (realize) DefineBlockUpdates();
  }
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  bool all_replaced = true;

 private:
  void DefineBlockUpdates() {
    const SBlock& block = realize_->block;
    const std::vector<PrimExpr>& old = store_->indices;
    new_iters_ = block->iter_vars;
    new_values_ = realize_->iter_values;
    if (old.empty() || block->iter_vars.size() < old.size()) return;
    size_t start = 0, span = block->iter_vars.size() - old.size();
    while (start < span && !old[0].same_as(block->iter_vars[start]->var)) ++start;
    for (size_t i = 0; i < old.size(); ++i) {
      const IterVar& iv = block->iter_vars[start + i];
      if (!old[i].same_as(iv->var) || iv->iter_type != IterVarType::kDataPar) return;
    }
    std::vector<IterVar> iters(block->iter_vars.begin(), block->iter_vars.begin() + start);
    std::vector<PrimExpr> values(realize_->iter_values.begin(),
                                 realize_->iter_values.begin() + start);
    VarMap to_iters;
    NewLayoutIters(in_, &iters, &values, &to_iters);
    new_indices_.clear();
    for (size_t i = start; i < iters.size(); ++i) new_indices_.push_back(iters[i]->var);
    iters.insert(iters.end(), block->iter_vars.begin() + start + old.size(), block->iter_vars.end());
    values.insert(values.end(), realize_->iter_values.begin() + start + old.size(),
                  realize_->iter_values.end());
    for (size_t i = 0; i < old.size(); ++i) {
      remap_[old[i].as<VarNode>()] = Substitute(in_.inverse->final_indices[i], to_iters);
    }
    padding_ = Substitute(padding_, to_iters);
    new_iters_ = iters;
    new_values_ = values;
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    bool same = op->buffer.same_as(store_->buffer) && op->indices.size() == store_->indices.size();
    for (size_t i = 0; same && i < op->indices.size(); ++i) {
      same = ir::StructuralEqual(op->indices[i], store_->indices[i], false);
    }
    if (!same) {
      all_replaced = false;
      return StmtExprMutator::VisitStmt_(op);
    }
    std::vector<PrimExpr> indices(new_indices_.begin(), new_indices_.end());
    PrimExpr pad = MapIndices(in_.pad, indices)[0];
    PrimExpr value = VisitExpr(op->value);
    return MakeBufferStore(in_.new_buffer,
                           MakeCall(value->dtype, GetOp("tirx.if_then_else"), {padding_, pad, value}),
                           indices);
  }
  Stmt VisitStmt_(const SBlockRealizeNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    if (op != realize_) return s;
    SBlockRealize realize = Downcast<SBlockRealizeNode>(s);
    SBlock block = realize->block;
    block.CopyOnWrite()->iter_vars = new_iters_;
    SBlockRealizeNode* n = realize.CopyOnWrite();
    n->block = block;
    n->iter_values = new_values_;
    return realize;
  }
  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = remap_.find(op);
    return it == remap_.end() ? GetRef(op) : it->second;
  }

  const PaddingInputs& in_;
  BufferStore store_;
  const SBlockRealizeNode* realize_;
  std::vector<Var> new_indices_;
  std::vector<IterVar> new_iters_;
  std::vector<PrimExpr> new_values_;
  PrimExpr padding_;
  VarMap remap_;
};

Stmt PaddingPlanner::Replacement(const WriteInfo& info) const {
  PaddedStoreReplacer replacer(in_, info.store, info.realize, info.loops);
  Stmt body = replacer(info.loops.back()->body);
  if (!replacer.all_replaced) return Stmt();
  return NewLayoutLoops(in_, body);
}

// Rewrites every access of the old buffer through the map (and performs the padding plan). The
// mapped indices are simplified as TVM's IterMapSimplifyWithContext does: an affine map of the
// enclosing loops and block iters takes its normal form (`(v0 * 4 + v1) // 4` is `v0`).
class LayoutRewriter : public StmtExprMutator {
 public:
  LayoutRewriter(Buffer old_buffer, Buffer new_buffer, IndexMap map, const PaddingPlan* plan,
                 const SBlockNode* scope)
      : old_(std::move(old_buffer)), new_(std::move(new_buffer)), map_(std::move(map)),
        plan_(plan), scope_(scope) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt(const Stmt& stmt) override {
    Stmt out = StmtExprMutator::VisitStmt(stmt);
    if (plan_ && plan_->insert_after && stmt.get() == plan_->insert_after) {
      return MakeSeq({out, plan_->epilogue});
    }
    return out;
  }
  Stmt VisitStmt_(const ForNode* op) override {
    if (plan_) {
      auto it = plan_->replacements.find(op);
      if (it != plan_->replacements.end()) return VisitStmt(it->second);
    }
    iters_.push_back({op->loop_var, ir::MakeRange(op->min, op->extent)});
    Stmt s = StmtExprMutator::VisitStmt_(op);
    iters_.pop_back();
    return s;
  }
  Stmt VisitStmt_(const SBlockNode* op) override {
    for (const IterVar& iv : op->iter_vars) iters_.push_back({iv->var, iv->dom});
    Stmt s = StmtExprMutator::VisitStmt_(op);
    iters_.resize(iters_.size() - op->iter_vars.size());
    if (op == scope_ && plan_ && plan_->prologue.defined()) {
      SBlock block = Downcast<SBlockNode>(s);
      block.CopyOnWrite()->body = MakeSeq({plan_->prologue, block->body});
      return block;
    }
    return s;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    if (!op->buffer.same_as(old_)) return s;
    auto* store = s.as<BufferStoreNode>();
    return MakeBufferStore(new_, store->value, Map(store->indices), store->predicate, store->span);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    if (!op->buffer.same_as(old_)) return e;
    auto* load = e.as<BufferLoadNode>();
    return MakeBufferLoad(new_, Map(load->indices), load->predicate, load->span);
  }

 protected:
  Buffer VisitBufferUse(const Buffer& b) override { return b.same_as(old_) ? new_ : b; }
  Buffer VisitBufferDef(const Buffer& b) override { return b.same_as(old_) ? new_ : b; }
  BufferRegion VisitBufferRegion(const BufferRegion& region) override {
    BufferRegion r = StmtExprMutator::VisitBufferRegion(region);
    if (!region->buffer.same_as(old_)) return r;
    return MapRegion(r);
  }

 private:
  std::vector<PrimExpr> Map(const std::vector<PrimExpr>& indices) {
    std::vector<PrimExpr> mapped = MapIndices(map_, indices);
    std::vector<std::pair<Var, Range>> inputs;
    std::unordered_set<const VarNode*> used;
    for (const PrimExpr& e : mapped) {
      for (const VarNode* v : VarsOf(e)) used.insert(v);
    }
    for (const auto& [var, range] : iters_) {
      auto* ext = range->extent.as<IntImmNode>();
      if (used.count(var.get()) && IsConstInt(range->min, 0) && ext && ext->value > 0) {
        inputs.push_back({var, range});
      }
    }
    if (inputs.empty()) return mapped;
    arith::Analyzer analyzer;
    arith::IterMapResult r = arith::DetectIterMap(mapped, inputs,
                                                  make_const(DataType::Bool(), int64_t(1)),
                                                  arith::IterMapLevel::kSurjective, &analyzer);
    if (!r.ok()) return mapped;
    std::vector<PrimExpr> out;
    for (size_t i = 0; i < mapped.size(); ++i) {
      PrimExpr e = arith::NormalizeIterMapToExpr(r.indices[i], mapped[i]->dtype);
      out.push_back(e.as<IntImmNode>() && mapped[i].as<VarNode>() ? mapped[i] : e);
    }
    return out;
  }

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
      for (const PrimExpr& i : Map(mins)) {
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
  const PaddingPlan* plan_;
  const SBlockNode* scope_;
  std::vector<std::pair<Var, Range>> iters_;
};

// A constant pad value prints as the constant, one computed from the indices as its lambda.
std::string PadValueText(const IndexMap& pad) {
  const PrimExpr& value = pad->final_indices[0];
  bool uses_indices = false;
  for (const Var& v : pad->initial_indices) {
    PostOrderVisit(value, [&](const ir::Object* n) { uses_indices |= n == v.get(); });
  }
  return uses_indices ? IndexMapLambdaText(pad) : ExprText(value);
}

std::string ShapeText(const std::vector<PrimExpr>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + ExprText(shape[i]);
  return out + "]";
}

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
  // The pad value as TVM takes it: a map from the new indices to the value (a constant is a map
  // that ignores them).
  IndexMap pad;
  if (pad_value.defined()) {
    if (auto* m = pad_value.as<IndexMapNode>()) {
      pad = GetRef(m);
    } else if (auto* e = pad_value.as<PrimExprNode>()) {
      std::vector<Var> vars;
      for (size_t i = 0; i < index_map->final_indices.size(); ++i) {
        vars.push_back(MakeVar("i" + std::to_string(i), index_map->final_indices[i]->dtype));
      }
      pad = MakeIndexMap(vars, {GetRef(e)});
    } else {
      throw std::invalid_argument("transform_layout: pad_value must be a constant or a lambda");
    }
    if (pad->final_indices.size() != 1) {
      throw ScheduleError(prim, "Pad value is specified as " + IndexMapLambdaText(pad) +
                                    " which has " + std::to_string(pad->final_indices.size()) +
                                    " outputs, but should only have one output");
    }
    const PrimExpr& value = pad->final_indices[0];
    if (value->dtype != target->dtype) {
      throw ScheduleError(prim, "Buffer " + target->name + " has elements of type " +
                                    target->dtype.ToString() +
                                    ", but the transformation fills padding with " +
                                    PadValueText(pad) + ", which is of type " +
                                    value->dtype.ToString());
    }
    PostOrderVisit(value, [&](const ir::Object* n) {
      auto* load = dynamic_cast<const BufferLoadNode*>(n);
      if (load && !load->buffer.same_as(target)) {
        throw ScheduleError(prim, "Pad value may only contain BufferLoad from the transformed "
                                  "buffer " + target->name + ", but pad_value " +
                                  PadValueText(pad) + " contains expression " +
                                  ExprText(GetRef(load)));
      }
    });
  }
  std::vector<PrimExpr> new_shape;
  try {
    new_shape = MapShape(index_map, target->shape);
  } catch (const std::invalid_argument& e) {
    throw ScheduleError(prim, e.what());
  }
  // The padding the map introduces: from its inverse over the padded shape where there is one;
  // otherwise (a map we cannot invert) only a change in the number of elements tells.
  PrimExpr padding = make_const(DataType::Bool(), int64_t(0));
  IndexMap inverse;
  if (!assume_injective_transform) {
    PaddedInverseResult inv = NonSurjectiveInverse(index_map, target->shape);
    bool known = true;
    int64_t before = ConstProduct(target->shape, &known);
    int64_t after = ConstProduct(new_shape, &known);
    if (inv.inverse.defined()) {
      inverse = inv.inverse;
      padding = inv.padding;
    } else if (known && after != before) {
      throw ScheduleError(prim, "The transformation " + IndexMapLambdaText(index_map) +
                                    " applied on buffer " + target->name +
                                    " would introduce padding: the buffer has " +
                                    std::to_string(before) + " elements, the new layout " +
                                    std::to_string(after) + ", and the padding cannot be "
                                    "described (" + inv.error + ")");
    }
  }
  bool has_padding = !IsConstInt(padding, 0);
  if (has_padding && !pad.defined()) {
    throw ScheduleError(prim, "The transformation " + IndexMapLambdaText(index_map) +
                                  " applied on buffer " + target->name + " of shape " +
                                  ShapeText(target->shape) + " would result in shape " +
                                  ShapeText(new_shape) +
                                  ".  However, this would introduce padding wherever " +
                                  ExprText(padding) + " is true.");
  }
  BufferOptions opts;
  opts.scope = target->scope();
  opts.data_alignment = target->data_alignment;
  opts.offset_factor = target->offset_factor;
  opts.data = target->data;
  Buffer replaced = MakeBuffer(target->name, new_shape, target->dtype, opts, target->span);
  // The statement holding every access: the block allocating the buffer, else the scope.
  SBlock scope = detail::AllocatingBlock(func, block.get(), target.get());
  if (!scope.defined()) scope = ParentBlock(func, block.get());
  PaddingPlan plan;
  if (has_padding && pad.defined() && scope.defined()) {
    PaddingInputs in{target, replaced, inverse, padding, pad};
    plan = PaddingPlanner(in).Plan(scope.get());
    if (plan.prologue.defined() == false && plan.replacements.empty() && !plan.insert_after) {
      throw ScheduleError(prim, "The buffer " + target->name +
                                    " is written outside of any block or loop");
    }
  }
  LayoutRewriter rewriter(target, replaced, index_map, has_padding ? &plan : nullptr,
                          scope.get());
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
           {"pad_value", pad.defined() ? TraceValue::Raw(PadValueText(pad)) : TraceValue::None()},
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
                      block->body, block->init, {}, {}, block->annotations, block->span);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    For loop = Downcast<ForNode>(StmtExprMutator::VisitStmt_(op));
    auto it = loop_extent.find(loop->loop_var.get());
    if (it != loop_extent.end()) loop.CopyOnWrite()->extent = it->second;
    return loop;
  }
  // Only the buffer changes: the predicate and the span (the source map's line) stay.
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    BufferStore store = Downcast<BufferStoreNode>(StmtExprMutator::VisitStmt_(op));
    auto it = buffers.find(store->buffer.get());
    if (it == buffers.end()) return store;
    store.CopyOnWrite()->buffer = it->second;
    return store;
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    BufferLoad load = Downcast<BufferLoadNode>(StmtExprMutator::VisitExpr_(op));
    auto it = buffers.find(load->buffer.get());
    if (it == buffers.end()) return load;
    load.CopyOnWrite()->buffer = it->second;
    return load;
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

// The buffer a BufferSpec names in the block, or null (the primitive reports that).
tir::Buffer SpecBuffer(Schedule& sch, const SBlockRV& block, const Schedule::BufferSpec& spec) {
  tir::SBlock b = sch.Get(block);
  if (auto* by_index = std::get_if<std::pair<std::string, int64_t>>(&spec)) {
    const auto& regions = by_index->first == "write" ? b->writes : b->reads;
    if (by_index->second >= 0 && by_index->second < int64_t(regions.size())) {
      return regions[by_index->second]->buffer;
    }
    return {};
  }
  tir::Buffer found;
  for (const auto* regions : {&b->reads, &b->writes}) {
    for (const tir::BufferRegion& r : *regions) {
      if (r->buffer->name == std::get<std::string>(spec)) found = r->buffer;
    }
  }
  return found;
}

// TVM's Python conversion of a scalar pad value: an int for an integer buffer and a float for
// a float buffer take the buffer's dtype; other literals are int32 / float32; a typed constant
// (`T.int8(0)`, `tvm.tirx.IntImm("int8", 0)`) keeps its dtype.
// A lambda of the new indices is an index map over `index_dtype`.
ir::ObjectRef PadValueOf(Schedule& sch, RecipeArgs& args, const SBlockRV& block, const Schedule::BufferSpec& spec,
                         const RecipeValue& v, ir::DataType index_dtype) {
  if (v.kind == RecipeValue::Kind::kLambda) return args.IndexMapOf(v, "pad_value", index_dtype);
  if (v.kind != RecipeValue::Kind::kInt && v.kind != RecipeValue::Kind::kFloat &&
      v.kind != RecipeValue::Kind::kBool) {
    throw RecipeArgs::TypeError(v, "pad_value", "a number");
  }
  tir::Buffer target = SpecBuffer(sch, block, spec);
  ir::DataType buffer_dtype = target.defined() ? target->dtype : ir::DataType::Int(32);
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
       ir::DataType dtype = args.LambdaDType(block);
       // TVM then retypes the map's indices to the buffer's shape (LegalizeIndexMapDType).
       ir::DataType map_dtype = dtype;
       if (tir::Buffer t = SpecBuffer(sch, block, buffer); t.defined() && !t->shape.empty()) {
         map_dtype = t->shape[0]->dtype;
       }
       tir::IndexMap map = args.IndexMapOf(args.Require("index_map"), "index_map", map_dtype);
       ir::ObjectRef pad;
       if (args.Has("pad_value")) {
         pad = PadValueOf(sch, args, block, buffer, *args.Get("pad_value"), dtype);
       }
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
       "what the padding holds: a constant of the buffer's dtype, or a lambda of the new "
       "indices", "None"},
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
