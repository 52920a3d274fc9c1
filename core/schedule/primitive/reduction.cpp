// decompose_reduction and rfactor (shared/SCHEDULE.md §2.6): splitting a reduction block's init
// out into its own block, and factoring a reduction loop into a separate rfactor block.
#include <cmath>
#include <limits>
#include <unordered_set>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/reduction.h"
#include "schedule/recipe.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace detail {

bool UsesAnyVar(const PrimExpr& e, const std::unordered_set<const VarNode*>& vars) {
  bool found = false;
  PostOrderVisit(e, [&](const Object* n) {
    if (auto* v = dynamic_cast<const VarNode*>(n); v && vars.count(v)) found = true;
  });
  return found;
}

std::vector<For> LoopsAbove(const PrimFunc& func, const StmtNode* node) {
  std::vector<const StmtNode*> path = PathTo(func->body, node);
  std::vector<For> loops;
  for (size_t i = path.size() - 1; i-- > 0;) {
    if (detail::NodeAs<SBlockNode>(path[i])) break;
    if (auto* f = detail::NodeAs<ForNode>(path[i])) loops.push_back(GetRef(f));
  }
  return {loops.rbegin(), loops.rend()};
}

Stmt SpliceInto(const Stmt& body, const StmtNode* target, const std::vector<Stmt>& stmts) {
  std::vector<const StmtNode*> path = PathTo(body, target);
  if (path.size() >= 2) {
    if (auto* seq = detail::NodeAs<SeqStmtNode>(path[path.size() - 2])) {
      std::vector<Stmt> items;
      for (const Stmt& s : seq->seq) {
        if (s.get() == target) {
          items.insert(items.end(), stmts.begin(), stmts.end());
        } else {
          items.push_back(s);
        }
      }
      return ReplaceStmt(body, seq, MakeSeq(items, seq->span));
    }
  }
  return ReplaceStmt(body, target, MakeSeq(stmts));
}

void ReplaceBySeq(Schedule& sch, const StmtNode* target, std::vector<Stmt> stmts,
                  const ReplaceOptions& options) {
  std::vector<const StmtNode*> path = PathTo(sch.Func()->body, target);
  if (path.size() >= 2) {
    if (auto* seq = detail::NodeAs<SeqStmtNode>(path[path.size() - 2])) {
      sch.Replace(seq, SpliceInto(GetRef(seq), target, stmts), options);
      return;
    }
  }
  sch.Replace(target, MakeSeq(std::move(stmts)), options);
}

}  // namespace detail

namespace {

// The conjuncts of an init predicate that do not use a loop the init nest leaves out.
PrimExpr InitPredicate(const PrimExpr& pred, const std::unordered_set<const VarNode*>& dropped) {
  if (auto* imm = pred.as<IntImmNode>(); imm && imm->value != 0) return pred;
  if (auto* a = pred.as<AndNode>()) {
    return logical_and(InitPredicate(a->a, dropped), InitPredicate(a->b, dropped));
  }
  if (detail::UsesAnyVar(pred, dropped)) return make_const(DataType::Bool(), int64_t(1));
  return pred;
}

}  // namespace

SBlockRV Schedule::DecomposeReduction(const SBlockRV& block_rv, const LoopRV& loop_rv) {
  const char* prim = "decompose-reduction";
  SBlock block = Get(block_rv);
  For loop = Get(loop_rv);
  PrimFunc func = Func();
  SBlock scope_root = GetScopeRoot(*this, prim, block.get(), false);
  std::vector<For> loops = detail::LoopsAbove(func, block.get());
  const SBlockRealizeNode* realize = RealizeOf(func, block.get());
  size_t loop_pos = loops.size();
  for (size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].same_as(loop)) loop_pos = i;
  }
  if (enable_check()) {
    if (loop_pos == loops.size()) {
      throw ScheduleError(prim, "The input loop " + Quote(loop.get()) +
                                    " of decompose_reduction is required to be an ancestor of "
                                    "block " + Quote(block.get()) + ".");
    }
    CheckReductionBlock(prim, func, BlockScope(scope_root), block.get());
    // No loop above `loop` may feed a reduction iter: the init would run inside the reduction.
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i]->iter_type != IterVarType::kCommReduce) continue;
      for (size_t k = 0; k < loop_pos; ++k) {
        if (detail::UsesAnyVar(realize->iter_values[i], {loops[k]->loop_var.get()})) {
          throw ScheduleError(prim, "decompose_reduction expect the loop " + Quote(loop.get()) +
                                        " to be higher than all the loops related to reduce "
                                        "block var of block " + Quote(block.get()));
        }
      }
    }
  }
  if (!block->init.defined()) {
    throw ScheduleError(prim, "The block " + Quote(block.get()) + " has no init to decompose");
  }
  // The init block: the data-parallel iters as fresh variables of the same names.
  std::vector<IterVar> init_iters;
  std::vector<PrimExpr> init_values;
  VarMap iter_map;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    if (iv->iter_type != IterVarType::kDataPar) continue;
    Var fresh = MakeVar(iv->var->name_hint, iv->var->dtype);
    init_iters.push_back(MakeIterVar(iv->dom, fresh, iv->iter_type, iv->thread_tag));
    init_values.push_back(realize->iter_values[i]);
    iter_map[iv->var.get()] = fresh;
  }
  std::vector<BufferRegion> init_writes;
  for (const BufferRegion& w : block->writes) init_writes.push_back(Substitute(w, iter_map));
  SBlock init_block = MakeSBlock(init_iters, {}, init_writes, block->name_hint + "_init",
                                 Substitute(block->init, iter_map), {}, {}, {},
                                 block->annotations);
  // The loops from the innermost up to `loop` that the init bindings use are copied.
  std::unordered_set<const VarNode*> dropped;
  std::vector<For> chosen;  // innermost first
  for (size_t k = loops.size(); k-- > 0;) {
    bool used = false;
    for (const PrimExpr& v : init_values) used |= detail::UsesAnyVar(v, {loops[k]->loop_var.get()});
    if (used) {
      chosen.push_back(loops[k]);
    } else {
      dropped.insert(loops[k]->loop_var.get());
    }
    if (k == loop_pos) break;
  }
  Stmt init = MakeSBlockRealize(init_values, InitPredicate(realize->predicate, dropped), init_block);
  VarMap loop_map;
  for (const For& l : chosen) {
    Var v = MakeVar(l->loop_var->name_hint + "_init", l->loop_var->dtype);
    loop_map[l->loop_var.get()] = v;
    init = MakeFor(v, l->min, l->extent, l->kind, init, l->thread_binding, l->annotations, l->step);
  }
  init = Substitute(init, loop_map);
  // The update block: renamed `<name>_update`, no init, its writes also read (prepended).
  SBlock update = block;
  {
    SBlockNode* n = update.CopyOnWrite();
    n->name_hint = block->name_hint + "_update";
    n->init = Stmt();
    std::vector<BufferRegion> reads;
    for (const BufferRegion& w : block->writes) {
      bool read = false;
      for (const BufferRegion& r : block->reads) read |= r->buffer.same_as(w->buffer);
      if (!read) reads.push_back(w);
    }
    reads.insert(reads.end(), block->reads.begin(), block->reads.end());
    n->reads = reads;
  }
  Stmt new_loop = ReplaceStmt(loop, block.get(), update);
  ReplaceOptions options;
  options.renamed_blocks[block->name_hint] = update->name_hint;
  detail::ReplaceBySeq(*this, loop.get(), {init, new_loop}, options);
  SBlockRV out = NewBlockRV(init_block->name_hint);
  Record({"decompose_reduction",
          {{"block", TraceValue::Block(block_rv.id)}, {"loop", TraceValue::Loop(loop_rv.id)}},
          {TraceValue::Block(out.id)},
          false});
  return out;
}


// --- rfactor ----------------------------------------------------------------------------------

namespace {

// The reducers rfactor recognises, as TVM's registry: `x + y` (0), `x * y` (1), `min(x, y)` (the
// dtype's largest value) and `max(x, y)` (its smallest).
enum class Reducer { kSum, kProd, kMin, kMax };

double Largest(DataType t) {
  if (t.is_floating_point()) {
    return t.bits() == 64 ? std::numeric_limits<double>::max()
           : t.bits() == 16 ? 65504.0
                            : double(std::numeric_limits<float>::max());
  }
  if (t.is_int()) {
    return t.bits() >= 64 ? double(std::numeric_limits<int64_t>::max())
                          : double((int64_t(1) << (t.bits() - 1)) - 1);
  }
  return t.bits() >= 64 ? double(std::numeric_limits<uint64_t>::max())
                        : double((int64_t(1) << t.bits()) - 1);
}

std::optional<double> ConstValue(const PrimExpr& e) {
  if (auto* i = e.as<IntImmNode>()) return double(i->value);
  if (auto* f = e.as<FloatImmNode>()) return f->value;
  return std::nullopt;
}

bool IsIdentity(Reducer r, const PrimExpr& init) {
  std::optional<double> v = ConstValue(init);
  if (!v) return false;
  DataType t = init->dtype;
  switch (r) {
    case Reducer::kSum: return *v == 0;
    case Reducer::kProd: return *v == 1;
    case Reducer::kMin: return std::isinf(*v) ? *v > 0 : *v == Largest(t);
    case Reducer::kMax:
      if (std::isinf(*v)) return *v < 0;
      return t.is_uint() ? *v == 0 : t.is_floating_point() ? *v == -Largest(t) : *v == -Largest(t) - 1;
  }
  return false;
}

PrimExpr Combine(Reducer r, const PrimExpr& a, const PrimExpr& b) {
  switch (r) {
    case Reducer::kSum: return add(a, b);
    case Reducer::kProd: return mul(a, b);
    case Reducer::kMin: return min(a, b);
    case Reducer::kMax: return max(a, b);
  }
  return a;
}

bool SameIndices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!ir::StructuralEqual(a[i], b[i], /*map_free_vars=*/false)) return false;
  }
  return true;
}

// `B[idx] = B[idx] op rhs` with init `B[idx] = identity`: the reducer and rhs, or nullopt.
std::optional<std::pair<Reducer, PrimExpr>> MatchReducer(const SBlock& block) {
  auto* store = block->body.as<BufferStoreNode>();
  auto* init = block->init.as<BufferStoreNode>();
  if (!store || !init || !store->buffer.same_as(init->buffer) ||
      !SameIndices(store->indices, init->indices)) {
    return std::nullopt;
  }
  auto* bin = store->value.as<BinaryNode>();
  if (!bin) return std::nullopt;
  std::optional<Reducer> r;
  switch (bin->type_index()) {
    case ir::TypeIndex::kAdd: r = Reducer::kSum; break;
    case ir::TypeIndex::kMul: r = Reducer::kProd; break;
    case ir::TypeIndex::kMin: r = Reducer::kMin; break;
    case ir::TypeIndex::kMax: r = Reducer::kMax; break;
    default: return std::nullopt;
  }
  auto* lhs = bin->a.as<BufferLoadNode>();
  if (!lhs || !lhs->buffer.same_as(store->buffer) || !SameIndices(lhs->indices, store->indices)) {
    return std::nullopt;
  }
  if (!IsIdentity(*r, init->value)) return std::nullopt;
  return std::make_pair(*r, bin->b);
}

PrimExpr DropPredicateOn(const PrimExpr& pred, const std::unordered_set<const VarNode*>& dropped) {
  if (auto* a = pred.as<AndNode>()) {
    return logical_and(DropPredicateOn(a->a, dropped), DropPredicateOn(a->b, dropped));
  }
  if (detail::UsesAnyVar(pred, dropped)) return make_const(DataType::Bool(), int64_t(1));
  return pred;
}

}  // namespace

SBlockRV Schedule::RFactor(const LoopRV& loop_rv, int64_t factor_axis) {
  const char* prim = "rfactor";
  For rf_loop = Get(loop_rv);
  PrimFunc func = Func();
  std::vector<SBlock> children = ChildBlocks(rf_loop);
  if (children.size() != 1) {
    throw ScheduleError(prim, "The loop " + Quote(rf_loop.get()) +
                                  " is required to have exactly one child block, but it has " +
                                  std::to_string(children.size()));
  }
  SBlock block = children[0];
  SBlock scope_root = GetScopeRoot(*this, prim, block.get(), true);
  if (enable_check()) CheckReductionBlock(prim, func, BlockScope(scope_root), block.get());
  if (rf_loop->kind != ForKind::kSerial) {
    throw ScheduleError(prim, "The input loop " + Quote(rf_loop.get()) +
                                  " of rfactor is required to be `Serial`. However, the kind of " +
                                  Quote(rf_loop.get()) + " is `" + ForKindName(rf_loop->kind) +
                                  "`");
  }
  const SBlockRealizeNode* realize = RealizeOf(func, block.get());
  std::vector<For> loops = detail::LoopsAbove(func, block.get());
  // Which loops the data-parallel and the reduction iters touch.
  std::unordered_set<const VarNode*> dp_loops, red_loops;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    bool reduce = block->iter_vars[i]->iter_type == IterVarType::kCommReduce;
    for (const For& l : loops) {
      if (detail::UsesAnyVar(realize->iter_values[i], {l->loop_var.get()})) {
        (reduce ? red_loops : dp_loops).insert(l->loop_var.get());
      }
    }
  }
  for (const For& l : loops) {
    if (dp_loops.count(l->loop_var.get()) && red_loops.count(l->loop_var.get())) {
      throw ScheduleError(prim, "The loop " + Quote(l.get()) +
                                    " is touched by both data-parallel and reduction block iters "
                                    "of block " + Quote(block.get()));
    }
  }
  const VarNode* rf_var = rf_loop->loop_var.get();
  // A loop no iterator uses is factored only with extent 1 (TVM accepts any extent, and the
  // write-back then sums as many copies of the whole reduction as the loop has iterations).
  if (!red_loops.count(rf_var) && !(dp_loops.count(rf_var) == 0 && IsConstInt(rf_loop->extent, 1))) {
    throw ScheduleError(prim, "The loop " + Quote(rf_loop.get()) +
                                  " is not touched by any reduction block iter of block " +
                                  Quote(block.get()) + ", so it cannot be factored");
  }
  std::optional<std::pair<Reducer, PrimExpr>> matched = MatchReducer(block);
  if (!matched) {
    throw ScheduleError(prim, "No matched reducer for the identity and the combiner of block " +
                                  Quote(block.get()) +
                                  ": the body must be `B[...] = B[...] + x` (or *, T.min, T.max) "
                                  "with the matching identity as init");
  }
  auto [reducer, rhs] = *matched;
  auto* store = block->body.as<BufferStoreNode>();
  const Buffer& out_buf = store->buffer;
  int64_t ndim = static_cast<int64_t>(out_buf->shape.size());
  if (factor_axis < -(ndim + 1) || factor_axis > ndim) {
    throw ScheduleError(prim, "The input `factor_axis` " + std::to_string(factor_axis) +
                                  " is out of range. It is required to be in range [-" +
                                  std::to_string(ndim + 1) + ", " + std::to_string(ndim) +
                                  "] where `ndim` is the number of dimensions of the write buffer");
  }
  const int64_t given_axis = factor_axis;
  if (factor_axis < 0) factor_axis += ndim + 1;

  // The rfactor buffer: the output with the rf loop's extent inserted at factor_axis.
  std::vector<PrimExpr> rf_shape = out_buf->shape;
  rf_shape.insert(rf_shape.begin() + factor_axis, rf_loop->extent);
  BufferOptions rf_opts;
  rf_opts.scope = out_buf->scope();
  // A copy of the output buffer with the new shape, as TVM makes it: a constant element offset
  // keeps its dtype (int64 for a 0-d buffer).
  if (out_buf->elem_offset.defined() && out_buf->elem_offset.as<IntImmNode>()) {
    rf_opts.elem_offset = out_buf->elem_offset;
  }
  Buffer rf_buf = MakeBuffer(out_buf->name + "_rf", rf_shape, out_buf->dtype, rf_opts);

  // Fresh copies of every loop for the rfactor nest.
  VarMap loop_copy;
  for (const For& l : loops) {
    loop_copy[l->loop_var.get()] = MakeVar(l->loop_var->name_hint, l->loop_var->dtype);
  }
  DataType rf_dtype = rf_loop->loop_var->dtype;
  Var v_rf = MakeVar("v" + rf_loop->loop_var->name_hint, rf_dtype);
  Var v_rf_wb = MakeVar("v" + rf_loop->loop_var->name_hint, rf_dtype);
  // The rf block's iters.
  std::vector<IterVar> rf_iters{MakeIterVar(ir::MakeRange(Zero(rf_dtype), rf_loop->extent), v_rf,
                                            IterVarType::kDataPar)};
  std::vector<PrimExpr> rf_values{loop_copy[rf_var]};
  VarMap rf_subst;  // original iter var -> its expression in the rf block
  std::unordered_map<const VarNode*, Var> new_reduce;  // loop var -> new reduction iter
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    const PrimExpr& binding = realize->iter_values[i];
    bool touches_rf = detail::UsesAnyVar(binding, {rf_var});
    if (iv->iter_type == IterVarType::kCommReduce && touches_rf) {
      // Replaced by one reduction iter per other loop of its binding; the rf loop's part is v_rf.
      VarMap loop_to_iter{{rf_var, v_rf}};
      for (const For& l : loops) {
        const VarNode* lv = l->loop_var.get();
        if (lv == rf_var || !detail::UsesAnyVar(binding, {lv})) continue;
        if (!new_reduce.count(lv)) {
          Var nv = MakeVar("v" + l->loop_var->name_hint, l->loop_var->dtype);
          new_reduce[lv] = nv;
          rf_iters.push_back(MakeIterVar(ir::MakeRange(l->min, l->extent), nv,
                                         IterVarType::kCommReduce));
          rf_values.push_back(loop_copy[lv]);
        }
        loop_to_iter[lv] = new_reduce[lv];
      }
      rf_subst[iv->var.get()] = Substitute(binding, loop_to_iter);
    } else {
      Var nv = MakeVar(iv->var->name_hint, iv->var->dtype);
      rf_iters.push_back(MakeIterVar(iv->dom, nv, iv->iter_type, iv->thread_tag));
      rf_values.push_back(Substitute(binding, loop_copy));
      rf_subst[iv->var.get()] = nv;
    }
  }
  std::vector<PrimExpr> out_idx = store->indices;
  auto rf_indices = [&](const VarMap& subst, const PrimExpr& rf_index) {
    std::vector<PrimExpr> idx;
    for (const PrimExpr& e : out_idx) idx.push_back(Substitute(e, subst));
    idx.insert(idx.begin() + factor_axis, rf_index);
    return idx;
  };
  std::vector<PrimExpr> rf_idx = rf_indices(rf_subst, v_rf);
  auto point = [](const Buffer& b, const std::vector<PrimExpr>& idx) {
    std::vector<Range> region;
    for (const PrimExpr& i : idx) region.push_back(ir::MakeRange(i, make_const(i->dtype, int64_t(1))));
    return MakeBufferRegion(b, region);
  };
  bool has_reduce = false;
  for (const IterVar& iv : rf_iters) has_reduce |= iv->iter_type == IterVarType::kCommReduce;
  PrimExpr rf_rhs = Substitute(rhs, rf_subst);
  PrimExpr identity = block->init.as<BufferStoreNode>()->value;
  Stmt rf_body = has_reduce ? MakeBufferStore(rf_buf, Combine(reducer, MakeBufferLoad(rf_buf, rf_idx), rf_rhs), rf_idx)
                            : MakeBufferStore(rf_buf, rf_rhs, rf_idx);
  Stmt rf_init = has_reduce ? MakeBufferStore(rf_buf, identity, rf_idx) : Stmt();
  std::vector<BufferRegion> rf_reads;
  for (const BufferRegion& r : block->reads) {
    if (!r->buffer.same_as(out_buf)) rf_reads.push_back(Substitute(r, rf_subst));
  }
  SBlock rf_block = MakeSBlock(rf_iters, rf_reads, {point(rf_buf, rf_idx)},
                               block->name_hint + "_rf", rf_body, rf_init, {}, {},
                               block->annotations);
  Stmt rf_nest = MakeSBlockRealize(rf_values, Substitute(realize->predicate, loop_copy), rf_block);
  for (size_t k = loops.size(); k-- > 0;) {
    const For& l = loops[k];
    rf_nest = MakeFor(Downcast<VarNode>(loop_copy[l->loop_var.get()]), l->min, l->extent, l->kind,
                      rf_nest, l->thread_binding, l->annotations, l->step);
  }

  // The write-back block keeps the name: it reduces the rfactor buffer over the rf loop.
  std::vector<IterVar> wb_iters{MakeIterVar(ir::MakeRange(Zero(rf_dtype), rf_loop->extent),
                                            v_rf_wb, IterVarType::kCommReduce)};
  std::vector<PrimExpr> wb_values{rf_loop->loop_var};
  VarMap wb_subst;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    if (iv->iter_type != IterVarType::kDataPar) continue;
    Var nv = MakeVar(iv->var->name_hint, iv->var->dtype);
    wb_iters.push_back(MakeIterVar(iv->dom, nv, iv->iter_type, iv->thread_tag));
    wb_values.push_back(realize->iter_values[i]);
    wb_subst[iv->var.get()] = nv;
  }
  std::vector<PrimExpr> wb_out_idx;
  for (const PrimExpr& e : out_idx) wb_out_idx.push_back(Substitute(e, wb_subst));
  std::vector<PrimExpr> wb_rf_idx = rf_indices(wb_subst, v_rf_wb);
  Stmt wb_body = MakeBufferStore(
      out_buf, Combine(reducer, MakeBufferLoad(out_buf, wb_out_idx), MakeBufferLoad(rf_buf, wb_rf_idx)),
      wb_out_idx);
  SBlock wb_block = MakeSBlock(wb_iters, {point(rf_buf, wb_rf_idx)}, {point(out_buf, wb_out_idx)},
                               block->name_hint, wb_body,
                               MakeBufferStore(out_buf, identity, wb_out_idx), {}, {},
                               block->annotations);
  std::unordered_set<const VarNode*> removed;
  for (const For& l : loops) {
    if (red_loops.count(l->loop_var.get()) && l->loop_var.get() != rf_var) {
      removed.insert(l->loop_var.get());
    }
  }
  Stmt wb_nest = MakeSBlockRealize(wb_values, DropPredicateOn(realize->predicate, removed), wb_block);
  // The write-back takes the block's place: from the first loop the reduction touches (a single
  // child chain, as TVM requires) down, the reduction loops other than the rf loop go; the loops
  // above it, and whatever else they hold, stay.
  size_t first = loops.size();
  for (size_t k = 0; k < loops.size() && first == loops.size(); ++k) {
    const VarNode* lv = loops[k]->loop_var.get();
    if (red_loops.count(lv) || lv == rf_var) first = k;
  }
  if (first < loops.size() && ChildBlocks(loops[first]).size() != 1) {
    throw ScheduleError(prim, "The loop " + Quote(loops[first].get()) +
                                  " is required to have only one child block, the reduction "
                                  "block " + Quote(block.get()),
                        loops[first]->span);
  }
  for (size_t k = loops.size(); k-- > first;) {
    const For& l = loops[k];
    if (removed.count(l->loop_var.get())) continue;
    For copy = l;
    copy.CopyOnWrite()->body = wb_nest;
    wb_nest = copy;
  }
  const StmtNode* replaced = first < loops.size() ? static_cast<const StmtNode*>(loops[first].get())
                                                  : static_cast<const StmtNode*>(realize);

  // The rfactor nest goes before the outermost loop; its buffer is allocated by the scope root.
  const StmtNode* top = loops.empty() ? static_cast<const StmtNode*>(RealizeOf(func, block.get()))
                                      : loops.front().get();
  SBlock root = scope_root;
  Stmt new_top = ReplaceStmt(GetRef(top), replaced, wb_nest);
  Stmt root_body = detail::SpliceInto(root->body, top, {rf_nest, new_top});
  SBlock new_root = root;
  {
    SBlockNode* n = new_root.CopyOnWrite();
    n->body = root_body;
    n->alloc_buffers.push_back(rf_buf);
  }
  Replace(root.get(), new_root);
  SBlockRV out = NewBlockRV(rf_block->name_hint);
  Record({"rfactor",
          {{"loop", TraceValue::Loop(loop_rv.id)}, {"factor_axis", TraceValue::Int(given_axis)}},
          {TraceValue::Block(out.id)},
          false});
  return out;
}

}  // namespace wb::schedule

// --- recipe methods ------------------------------------------------------------------------------

namespace wb::schedule {
namespace {

using Outputs = std::vector<RecipeRV>;

RecipeMethodRegistrar reg_decompose_reduction(
    "decompose_reduction", {{"block", "loop"}, false, RecipeReturns::kSingle,
                            [](Schedule& sch, RecipeArgs& args) -> Outputs {
                              return {sch.DecomposeReduction(args.Block("block"),
                                                             args.Loop("loop"))};
                            }},
    {"reduction",
     "split a reduction block into its init and its update, the init above the loop",
     {{"block", RecipeParamKind::kBlock, "the reduction block", ""},
      {"loop", RecipeParamKind::kLoop, "the loop of its nest to put the init above", ""}}});

RecipeMethodRegistrar reg_rfactor("rfactor", {{"loop", "factor_axis"}, false,
                                              RecipeReturns::kSingle,
                                              [](Schedule& sch, RecipeArgs& args) -> Outputs {
                                                return {sch.RFactor(args.Loop("loop"),
                                                                    args.Int("factor_axis"))};
                                              }},
    {"reduction",
     "factor the reduction over the loop into a partial-result buffer",
     {{"loop", RecipeParamKind::kLoop, "a reduction loop", ""},
      {"factor_axis", RecipeParamKind::kInt, "where the new buffer axis goes", ""}}});

}  // namespace
}  // namespace wb::schedule
