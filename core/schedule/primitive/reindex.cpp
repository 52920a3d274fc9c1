// reindex (shared/SCHEDULE.md §2.4): a stage that copies a buffer to (or from) a new one indexed
// directly by the block iterators the access uses, so that the block itself accesses
// `B_reindex[vi, vj]`. Checks and names follow TVM's cache_read_write.cc.
#include <set>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/cache.h"
#include "schedule/recipe.h"
#include "schedule/region.h"
#include "schedule/schedule.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

// ReIndex's rewrite of the block: every access of the buffer becomes reindex[covered iters].
class ReIndexRewriter : public StmtExprMutator {
 public:
  ReIndexRewriter(const SBlockNode* block, Buffer buffer, Buffer reindex,
                  std::vector<PrimExpr> indices)
      : block_(block),
        buffer_(std::move(buffer)),
        reindex_(std::move(reindex)),
        indices_(std::move(indices)) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const SBlockNode* op) override {
    SBlock block = Downcast<SBlockNode>(StmtMutator::VisitStmt_(op));
    if (op != block_) return block;
    SBlockNode* n = block.CopyOnWrite();
    auto redirect = [&](const std::vector<BufferRegion>& regions) {
      std::vector<BufferRegion> out;
      for (const BufferRegion& r : regions) {
        out.push_back(r->buffer.same_as(buffer_) ? MakeBufferRegion(reindex_, Point()) : r);
      }
      return out;
    };
    n->reads = redirect(n->reads);
    n->writes = redirect(n->writes);
    return block;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    if (!store || !store->buffer.same_as(buffer_)) return s;
    return MakeBufferStore(reindex_, store->value, indices_, store->predicate, store->span);
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = ExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (!load || !load->buffer.same_as(buffer_)) return e;
    return MakeBufferLoad(reindex_, indices_, load->predicate);
  }

 private:
  std::vector<Range> Point() const {
    std::vector<Range> out;
    for (const PrimExpr& e : indices_) {
      out.push_back(ir::MakeRange(e, make_const(e->dtype, int64_t(1))));
    }
    return out;
  }

  const SBlockNode* block_;
  Buffer buffer_;
  Buffer reindex_;
  std::vector<PrimExpr> indices_;
};

// Replaces `target` by `target'` plus the stage, before or after it.
class StageInserter : public StmtMutator {
 public:
  StageInserter(const StmtNode* target, Stmt stage, bool before, const SBlockNode* scope,
                Buffer alloc, ReIndexRewriter* rewriter)
      : target_(target),
        stage_(std::move(stage)),
        before_(before),
        scope_(scope),
        alloc_(std::move(alloc)),
        rewriter_(rewriter) {}
  using StmtMutator::VisitStmt_;
  Stmt VisitStmt(const Stmt& s) override {
    if (s.get() != target_) return StmtMutator::VisitStmt(s);
    Stmt rewritten = (*rewriter_)(s);
    return before_ ? MakeSeq({stage_, rewritten}) : MakeSeq({rewritten, stage_});
  }
  Stmt VisitStmt_(const SBlockNode* op) override {
    SBlock block = Downcast<SBlockNode>(StmtMutator::VisitStmt_(op));
    if (op == scope_) block.CopyOnWrite()->alloc_buffers.push_back(alloc_);
    return block;
  }

 private:
  const StmtNode* target_;
  Stmt stage_;
  bool before_;
  const SBlockNode* scope_;
  Buffer alloc_;
  ReIndexRewriter* rewriter_;
};

}  // namespace

SBlockRV Schedule::ReIndex(const SBlockRV& block_rv, const std::string& buffer_type,
                           int buffer_index) {
  const char* prim = "reindex";
  if (buffer_type != "read" && buffer_type != "write") {
    throw std::invalid_argument("reindex: the buffer type must be \"read\" or \"write\", not \"" +
                                buffer_type + "\"");
  }
  bool is_read = buffer_type == "read";
  SBlock block = Get(block_rv);
  PrimFunc func = Func();
  Buffer buffer = NthAccessBuffer(prim, block.get(), buffer_index, is_read);
  SBlock scope = GetScopeRoot(*this, prim, block.get(), true);
  if (!ChildBlocks(block).empty()) {
    throw ScheduleError(prim, "The block " + Quote(block.get()) +
                                  " is not a leaf block: reindex needs a block without child "
                                  "blocks", block->span);
  }
  // The single way the block indexes the buffer.
  std::vector<PrimExpr> indices;
  bool found = false, unique = true, opaque = false;
  // As TVM, the indices are simplified within the iterators' domains (`co // 64 * 3 + rc` over
  // co < 64 is `rc`), except where that leaves a constant.
  arith::Analyzer analyzer;
  for (const IterVar& iv : block->iter_vars) analyzer.Bind(iv->var, iv->dom, true);
  auto simplify = [&](const PrimExpr& e) {
    PrimExpr s = analyzer.Simplify(e);
    return s.as<IntImmNode>() ? e : s;
  };
  auto visit = [&](const ir::Object* n) {
    const std::vector<PrimExpr>* idx = nullptr;
    if (const auto* load = NodeAs<BufferLoadNode>(n); load && load->buffer.same_as(buffer)) {
      idx = &load->indices;
    } else if (const auto* store = NodeAs<BufferStoreNode>(n);
               store && store->buffer.same_as(buffer)) {
      idx = &store->indices;
    } else if (n == buffer->data.get()) {
      opaque = true;
    }
    if (!idx) return;
    std::vector<PrimExpr> simplified;
    for (const PrimExpr& e : *idx) simplified.push_back(simplify(e));
    if (!found) {
      indices = simplified;
      found = true;
    } else {
      // TVM compares with ExprDeepEqual: variables by identity.
      bool same = indices.size() == simplified.size();
      for (size_t i = 0; same && i < indices.size(); ++i) {
        same = ir::StructuralEqual(indices[i], simplified[i], /*map_free_vars=*/false);
      }
      unique = unique && same;
    }
  };
  PostOrderVisit(block->body, visit);
  if (block->init.defined()) PostOrderVisit(block->init, visit);
  std::string what = "The target buffer " + buffer->name + " in block " + Quote(block.get());
  if (opaque) throw ScheduleError(prim, what + " should not be used as a buffer variable", block->span);
  if (!found) {
    throw ScheduleError(prim, what + " should be accessed via BufferLoad or BufferStore", block->span);
  }
  if (!unique) {
    throw ScheduleError(prim, what + " should be accessed with the same indices everywhere", block->span);
  }
  // A buffer the block both reads and writes would be redirected for both while the stage only
  // copies one way; a reduction's output is the exception: its init writes every element before
  // the update reads it, so the write stage after it copies the whole result.
  bool reduction_output = !is_read && block->init.defined();
  if (!reduction_output && FindRegion(block->reads, buffer).defined() &&
      FindRegion(block->writes, buffer).defined()) {
    throw ScheduleError(prim,
                        what + " is both read and written: reindex needs a buffer the block only "
                               "reads or only writes",
                        block->span);
  }
  // The chain of loops from the scope down to the block; its top statement gets the stage.
  std::vector<const StmtNode*> path = PathIn(func, block.get());
  const StmtNode* top = nullptr;
  for (size_t i = path.size() - 1; i-- > 0;) {
    if (path[i] == scope.get()) break;
    if (NodeAs<SeqStmtNode>(path[i])) {
      // A sequence inside a loop of the block: the stage would sit inside that loop, copying the
      // whole buffer on every iteration (TVM refuses this too).
      for (size_t k = i; k-- > 0 && path[k] != scope.get();) {
        if (NodeAs<ForNode>(path[k])) {
          throw ScheduleError(prim, "The loops above block " + Quote(block.get()) +
                                        " are not a single chain up to its scope",
                              block->span);
        }
      }
      break;
    }
    if (!NodeAs<ForNode>(path[i]) && !NodeAs<SBlockRealizeNode>(path[i])) {
      throw std::invalid_argument("reindex: the loops above block " + Quote(block.get()) +
                                  " are not a single chain");
    }
    top = path[i];
  }

  // The stage iterates over the covered iterators' whole domains once, at the top of the chain:
  // an iterator bound to a variable from outside the scope (a loop above a partition or an outer
  // block) takes only part of its domain there, and the copy would overwrite the rest.
  const SBlockRealizeNode* realize = RealizeOf(func, block.get());
  std::vector<For> chain = LoopsUnderScope(func, block.get());
  // What a binding may name from outside the chain without harm: the function's own variables
  // (a symbolic extent `n`); what it may not: loops and block iterators above the scope.
  std::set<const ir::Object*> bound_above;
  PostOrderVisit(func->body, [&](const ir::Object* n) {
    if (auto* f = NodeAs<ForNode>(n)) bound_above.insert(f->loop_var.get());
    if (auto* b = NodeAs<SBlockNode>(n)) {
      for (const IterVar& iv : b->iter_vars) bound_above.insert(iv->var.get());
    }
  });
  for (size_t i = 0; realize && i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    bool covered = false;
    for (const PrimExpr& e : indices) {
      PostOrderVisit(e, [&](const ir::Object* n) { covered |= n == iv->var.get(); });
    }
    if (!covered) continue;
    PostOrderVisit(realize->iter_values[i], [&](const ir::Object* n) {
      auto* v = NodeAs<VarNode>(n);
      if (!v || !bound_above.count(v)) return;
      for (const For& l : chain) {
        if (l->loop_var.get() == v) return;
      }
      throw ScheduleError(prim, "The iterator " + iv->var->name_hint + " of block " +
                                    Quote(block.get()) + " is bound to `" + v->name_hint +
                                    "`, which is defined outside the block's scope: the reindex "
                                    "stage would copy its whole domain for every value of it",
                          block->span);
    });
  }

  // Covered iterators, in the block's order, give the reindex buffer's shape and indices.
  std::vector<IterVar> stage_iters;
  std::vector<PrimExpr> shape, reindex_idx, stage_values;
  std::vector<Var> loop_vars;
  VarMap to_stage;
  for (const IterVar& iv : block->iter_vars) {
    bool used = false;
    for (const PrimExpr& e : indices) {
      PostOrderVisit(e, [&](const ir::Object* n) { used |= n == iv->var.get(); });
    }
    if (!used) continue;
    Var v = MakeVar("v" + std::to_string(stage_iters.size()), iv->var->dtype);
    Var ax = MakeVar("ax" + std::to_string(loop_vars.size()), iv->var->dtype);
    stage_iters.push_back(MakeIterVar(iv->dom, v, IterVarType::kDataPar));
    to_stage[iv->var.get()] = v;
    shape.push_back(analyzer.Simplify(add(iv->dom->min, iv->dom->extent)));
    reindex_idx.push_back(iv->var);
    loop_vars.push_back(ax);
    stage_values.push_back(ax);
  }
  BufferOptions options;
  options.scope = buffer->scope();
  Buffer reindex = MakeBuffer(buffer->name + "_reindex", shape, buffer->dtype, options);
  std::vector<PrimExpr> target_idx, stage_reindex_idx;
  for (const PrimExpr& e : indices) target_idx.push_back(Substitute(e, to_stage));
  for (const IterVar& iv : stage_iters) stage_reindex_idx.push_back(iv->var);
  const Buffer& src = is_read ? buffer : reindex;
  const Buffer& dst = is_read ? reindex : buffer;
  const std::vector<PrimExpr>& src_idx = is_read ? target_idx : stage_reindex_idx;
  const std::vector<PrimExpr>& dst_idx = is_read ? stage_reindex_idx : target_idx;
  auto point = [](const std::vector<PrimExpr>& idx) {
    std::vector<Range> out;
    for (const PrimExpr& e : idx) out.push_back(ir::MakeRange(e, make_const(e->dtype, int64_t(1))));
    return out;
  };
  std::string name = UniqueBlockName(func, dst->name + "_reindex");
  SBlock stage_block =
      MakeSBlock(stage_iters, {MakeBufferRegion(src, point(src_idx))},
                 {MakeBufferRegion(dst, point(dst_idx))}, name,
                 MakeBufferStore(dst, MakeBufferLoad(src, src_idx), dst_idx));
  Stmt stage = MakeSBlockRealize(stage_values, make_const(DataType::Bool(), int64_t(1)),
                                 stage_block);
  for (size_t i = loop_vars.size(); i-- > 0;) {
    stage = MakeFor(loop_vars[i], stage_iters[i]->dom->min, stage_iters[i]->dom->extent,
                    ForKind::kSerial, stage);
  }
  ReIndexRewriter rewriter(block.get(), buffer, reindex, reindex_idx);
  Stmt new_scope = StageInserter(top, stage, is_read, scope.get(), reindex, &rewriter)(scope);
  Replace(scope.get(), new_scope);
  SBlockRV out = NewBlockRV(name);
  Record({"reindex",
          {{"block", TraceValue::Block(block_rv.id)},
           {"buffer", TraceValue::Tuple({TraceValue::String(buffer_type),
                                         TraceValue::Int(buffer_index)})}},
          {TraceValue::Block(out.id)},
          false});
  return out;
}


namespace {

// reindex(block, buffer=("read"|"write", index)), or the buffer by name as TVM's Python allows.
RecipeMethodRegistrar reg_reindex(
    "reindex", {{"block", "buffer"}, false, RecipeReturns::kSingle,
                [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
                  SBlockRV block = args.Block("block");
                  const RecipeValue& v = args.Require("buffer");
                  if (v.kind == RecipeValue::Kind::kString) {
                    SBlock b = sch.Get(block);
                    int read = -1, write = -1;
                    for (size_t i = 0; i < b->reads.size(); ++i) {
                      if (b->reads[i]->buffer->name == v.s) read = static_cast<int>(i);
                    }
                    for (size_t i = 0; i < b->writes.size(); ++i) {
                      if (b->writes[i]->buffer->name == v.s) write = static_cast<int>(i);
                    }
                    if (read < 0 && write < 0) {
                      throw RecipeError{"the block does not access a buffer named " + v.s,
                                        v.begin, v.end};
                    }
                    // A buffer read and written is the write, as TVM's Python resolves names.
                    return {write >= 0 ? sch.ReIndex(block, "write", write)
                                       : sch.ReIndex(block, "read", read)};
                  }
                  if (v.kind != RecipeValue::Kind::kList || v.list.size() != 2) {
                    throw RecipeArgs::TypeError(v, "buffer",
                                                "a buffer name or (\"read\"|\"write\", index)");
                  }
                  return {sch.ReIndex(block, args.StringOf(v.list[0], "buffer type"),
                                      static_cast<int>(args.IntOf(v.list[1], "buffer index")))};
                }},
    {"layout",
     "copy a buffer through a new block indexed by the block's iterators",
     {{"block", RecipeParamKind::kBlock, "the block", ""},
      {"buffer", RecipeParamKind::kBuffer, "the buffer, as the block reads or writes it", ""}}});

}  // namespace

}  // namespace wb::schedule
