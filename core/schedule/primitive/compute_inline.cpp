// compute_inline and reverse_compute_inline (shared/SCHEDULE.md §2.5): a producer's expression
// substituted into its consumers (the producer block and its buffer disappear), or a consumer's
// store folded into its single producer (the consumer disappears, the producer keeps its name).
// Checks in TVM's order with TVM's messages.
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "arith/iter_affine_map.h"
#include "ir/structural_equal.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/recipe.h"
#include "schedule/region.h"
#include "schedule/schedule.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

const char kErrBodyInline[] =
    "The body of the inlined block should be in form of\n"
    "    'A[f(i, j, k, ...)] = g(i, j, k, ...)',\n"
    "where the store indices mapping f on the left are bijective affine.";
const char kErrBodyReverseInline[] =
    "The body of the inlined block should be in form of\n"
    "    `B[...] = g(i, j, k, A[f(i, j, k, ...)] ...)`,\n"
    "where A is the only buffer the block consumes, whose indices are distinct atomic variables,\n"
    "and there should be no variables other than the index variables), and f is a bijective "
    "affine\nmapping and there should not be predicates in the inlined block. The iter domains "
    "of the inlined\nblock should be covered by the producer block.";

void CheckNoInit(const char* prim, const SBlockNode* block) {
  if (block->init.defined()) {
    throw ScheduleError(prim, "The block has init statement: " + Quote(block), block->span);
  }
}

bool UsesVar(const ir::ObjectRef& node, const VarNode* var) {
  bool used = false;
  auto check = [&](const ir::Object* n) { used |= n == var; };
  if (const auto* e = node.as<PrimExprNode>()) PostOrderVisit(GetRef(e), check);
  if (const auto* s = node.as<StmtNode>()) PostOrderVisit(GetRef(s), check);
  return used;
}

// The buffer's data variable used other than through loads and stores of the buffer, or the
// buffer matched by a match_buffer in the scope: TVM's OpaqueAccessError.
void CheckOpaqueAccess(const char* prim, const SBlock& scope, const Buffer& buffer) {
  bool opaque = false;
  struct Finder : StmtExprVisitor {
    using StmtExprVisitor::VisitExpr_;
    using StmtExprVisitor::VisitStmt_;
    void VisitExpr_(const VarNode* op) override { *opaque |= op == data; }
    void VisitStmt_(const SBlockNode* op) override {
      for (const MatchBufferRegion& m : op->match_buffers) {
        *opaque |= m->source->buffer.get() == buffer;
      }
      StmtExprVisitor::VisitStmt_(op);
    }
    const VarNode* data = nullptr;
    const BufferNode* buffer = nullptr;
    bool* opaque = nullptr;
  } f;
  f.data = buffer->data.get();
  f.buffer = buffer.get();
  f.opaque = &opaque;
  f(scope->body);
  if (opaque) {
    throw ScheduleError(prim,
                        "The buffer to be inlined has opaque access (e.g. `B.data`), or its "
                        "subregion is matched into other blocks: " +
                            Quote(scope.get()), scope->span);
  }
}

const StmtNode* CheckLeafRemovable(const char* prim, const PrimFunc& func, const SBlock& scope,
                                   const SBlockNode* block) {
  const StmtNode* target = LeafRemovalTarget(func, scope.get(), block);
  if (!target) {
    throw ScheduleError(prim, "The block " + Quote(block) + " is the only leaf in the scope " +
                                  Quote(scope.get()) +
                                  ", which cannot be removed; Otherwise the scope will be empty.", block->span);
  }
  return target;
}

void CheckNotOutput(const char* prim, const SBlock& scope, const SBlockNode* block) {
  if (IsOutputBlock(scope.get(), block)) {
    throw ScheduleError(prim, "The block " + Quote(block) +
                                  " is an output block: it writes a buffer that its scope does "
                                  "not allocate", block->span);
  }
}

// Rewrites the scope after an inlining: the removed leaf is dropped from its sequence, the
// inlined buffer's allocation goes, and blocks that touched the buffer get their access regions
// inferred again.
class InlineRewriter : public StmtExprMutator {
 public:
  InlineRewriter(const SBlockNode* scope, Buffer buffer, const StmtNode* removed)
      : scope_(scope), buffer_(std::move(buffer)), removed_(removed) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  // Loads of the inlined buffer are replaced by this (compute_inline), and one block's body is
  // swapped (reverse_compute_inline).
  std::function<PrimExpr(const BufferLoadNode*)> replace_load;
  const SBlockNode* swap_block = nullptr;
  Stmt swap_body;
  PrimExpr swap_predicate;  // for the realize of swap_block; null: unchanged
  Stmt swap_init;  // for swap_block; null: unchanged

  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> seq;
    for (const Stmt& s : op->seq) {
      if (s.get() == removed_) continue;
      seq.push_back(VisitStmt(s));
    }
    return MakeSeq(seq, op->span);
  }
  Stmt VisitStmt_(const SBlockRealizeNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    if (op->block.get() == swap_block && swap_predicate.defined()) {
      SBlockRealize r = Downcast<SBlockRealizeNode>(s);
      r.CopyOnWrite()->predicate = swap_predicate;
      return r;
    }
    return s;
  }
  Stmt VisitStmt_(const SBlockNode* op) override {
    SBlock block = Downcast<SBlockNode>(StmtMutator::VisitStmt_(op));
    if (op == swap_block) {
      block.CopyOnWrite()->body = swap_body;
      if (swap_init.defined()) block.CopyOnWrite()->init = swap_init;
    }
    if (op == scope_) {
      std::vector<Buffer> allocs;
      for (const Buffer& b : block->alloc_buffers) {
        if (!b.same_as(buffer_)) allocs.push_back(b);
      }
      block.CopyOnWrite()->alloc_buffers = allocs;
      return block;
    }
    if (FindRegion(op->reads, buffer_).defined() || FindRegion(op->writes, buffer_).defined() ||
        op == swap_block) {
      SBlockNode* n = block.CopyOnWrite();
      InferAccessRegions(n, &n->reads, &n->writes);
    }
    return block;
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = ExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (replace_load && load && load->buffer.same_as(buffer_)) return replace_load(load);
    return e;
  }

 private:
  const SBlockNode* scope_;
  Buffer buffer_;
  const StmtNode* removed_;
};

}  // namespace

void Schedule::ComputeInline(const SBlockRV& block_rv) {
  const char* prim = "compute-inline";
  SBlock block = Get(block_rv);
  PrimFunc func = Func();
  CheckNoInit(prim, block.get());
  if (block->writes.size() != 1) {
    throw ScheduleError(prim,
                        "The block is only allowed to write a single buffer region, but it "
                        "writes " +
                            std::to_string(block->writes.size()) + " region(s): " +
                            Quote(block.get()), block->span);
  }
  Buffer buffer = block->writes[0]->buffer;
  SBlock scope = GetScopeRoot(*this, prim, block.get(), true);
  CheckNotOutput(prim, scope, block.get());
  CheckCompleteBlock(prim, BlockScope(scope), block.get());
  // The body must be `B[v0, v1, ...] = value` with distinct iterators as indices, so that a load
  // `B[e0, e1, ...]` is the value with each iterator replaced by its index.
  const auto* store = block->body.as<BufferStoreNode>();
  std::unordered_map<const VarNode*, size_t> position;
  bool ok = store && store->buffer.same_as(buffer);
  if (ok) {
    std::unordered_set<const VarNode*> iters;
    for (const IterVar& iv : block->iter_vars) iters.insert(iv->var.get());
    for (size_t i = 0; i < store->indices.size() && ok; ++i) {
      const auto* v = store->indices[i].as<VarNode>();
      ok = v && iters.count(v) && position.emplace(v, i).second;
    }
    // Every iterator the value uses must be recoverable from the indices.
    for (const IterVar& iv : block->iter_vars) {
      if (ok && !position.count(iv->var.get()) && UsesVar(store->value, iv->var.get())) {
        ok = false;
      }
    }
  }
  if (!ok) throw ScheduleError(prim, kErrBodyInline, block->span);
  const StmtNode* removed = CheckLeafRemovable(prim, func, scope, block.get());
  CheckOpaqueAccess(prim, scope, buffer);

  InlineRewriter rewriter(scope.get(), buffer, removed);
  BufferStore producer = GetRef(store);
  rewriter.replace_load = [&](const BufferLoadNode* load) {
    VarMap vmap;
    for (const auto& [var, i] : position) vmap[var] = load->indices[i];
    return Substitute(producer->value, vmap);
  };
  Stmt new_scope = rewriter(scope);
  Replace(scope.get(), new_scope, {{}, {block->name_hint}});
  Record({"compute_inline", {{"block", TraceValue::Block(block_rv.id)}}, {}, false});
}

void Schedule::ReverseComputeInline(const SBlockRV& block_rv) {
  const char* prim = "reverse-compute-inline";
  SBlock block = Get(block_rv);
  PrimFunc func = Func();
  CheckNoInit(prim, block.get());
  SBlock scope = GetScopeRoot(*this, prim, block.get(), true);
  BlockScope deps(scope);
  // The single buffer the consumer reads that some block of the scope writes.
  Buffer buffer;
  bool single = true;
  for (const BufferRegion& r : block->reads) {
    if (buffer.same_as(r->buffer) || deps.WritersOf(r->buffer.get()).empty()) continue;
    if (buffer.defined()) single = false;
    buffer = r->buffer;
  }
  if (!buffer.defined() || !single) {
    throw ScheduleError(prim,
                        "The block is only allowed to read a single buffer region, but it reads " +
                            std::to_string(block->reads.size()) + " region(s): " +
                            Quote(block.get()), block->span);
  }
  CheckCompleteBlock(prim, deps, block.get());
  std::vector<SBlock> writers = deps.WritersOf(buffer.get());
  // The producer's only consumer must be this block: its writes of the buffer go away.
  bool single_consumer = true;
  for (const SBlock& reader : deps.ReadersOf(buffer.get())) {
    single_consumer = single_consumer && reader.same_as(block);
  }
  if (writers.size() != 1 || CompleteBlockViolation(deps, writers[0].get()) != 0 ||
      !single_consumer) {
    throw ScheduleError(prim, "The consumer block " + Quote(block.get()) +
                                  " to be inlined is required to have only a single producer "
                                  "block, and the producer block should be a complete block "
                                  "who has only a single consumer", block->span);
  }
  SBlock producer = writers[0];
  CheckNotOutput(prim, scope, producer.get());

  // Body analysis: consumer `C[f(v)] = g(v, B[h(v)])`, where every load of B has the same
  // indices h and h is an affine map of the consumer's iterators that DetectIterMap can invert;
  // producer `B[e(w)] = p(w)`. Each consumer iterator is then the inverse of h applied to e(w)
  // (a unit iterator that h does not use is its domain's minimum), as TVM's
  // ReverseComputeInliner does, and must be covered by the producer's domain.
  const SBlockRealizeNode* realize = RealizeOf(func, block.get());
  const auto* store = block->body.as<BufferStoreNode>();
  const auto* pstore = producer->body.as<BufferStoreNode>();
  bool ok = realize && store && pstore && pstore->buffer.same_as(buffer) &&
            !store->buffer.same_as(buffer);
  if (ok) {
    const int64_t* pred = AsConstInt(realize->predicate);
    ok = pred && *pred == 1;
  }
  std::vector<PrimExpr> load_indices;
  bool loaded = false;
  if (ok) {
    auto collect = [&](const ir::Object* n) {
      const auto* load = NodeAs<BufferLoadNode>(n);
      if (!ok || !load || !load->buffer.same_as(buffer)) return;
      if (!loaded) {
        load_indices = load->indices;
        loaded = true;
        return;
      }
      ok = load_indices.size() == load->indices.size();
      for (size_t i = 0; ok && i < load_indices.size(); ++i) {
        ok = ir::StructuralEqual(load_indices[i], load->indices[i], false);
      }
    };
    for (const PrimExpr& i : store->indices) PostOrderVisit(i, collect);
    PostOrderVisit(store->value, collect);
    ok = ok && loaded && load_indices.size() == pstore->indices.size();
  }
  VarMap vmap;
  arith::Analyzer analyzer;
  if (ok) {
    std::vector<std::pair<Var, Range>> iters;
    for (const IterVar& iv : block->iter_vars) {
      iters.push_back({iv->var, iv->dom});
      const int64_t* extent = AsConstInt(iv->dom->extent);
      if (extent && *extent == 1 && AsConstInt(iv->dom->min)) vmap[iv->var.get()] = iv->dom->min;
    }
    // As TVM, only affinity is checked (a split that does not divide the iterator, as
    // `B[v // 16, v % 16]` over v < 127, is inverted too); coverage is checked below. Each
    // index must be one iterator (a loop variable or a fusion of several) with scale 1, the
    // form the inverse splits back (TVM asserts it).
    arith::IterMapResult map =
        arith::DetectIterMap(load_indices, iters, make_const(DataType::Bool(), int64_t(1)),
                             arith::IterMapLevel::kNoCheck, &analyzer);
    ok = map.ok() && !map.indices.empty();
    for (const arith::IterSumExpr& sum : map.indices) {
      ok = ok && sum.args.size() <= 1 && (sum.args.empty() || sum.args[0].scale == 1);
    }
    if (ok) {
      for (const auto& [var, value] : arith::InverseAffineIterMap(map.indices, pstore->indices)) {
        vmap[var.get()] = value;
      }
      // A unit iterator that is an index by itself takes the producer's index there, as TVM's
      // detection with trivial iterators kept inverts it (not its domain's minimum).
      for (size_t i = 0; i < load_indices.size(); ++i) {
        const auto* v = load_indices[i].as<VarNode>();
        if (!v) continue;
        for (const IterVar& iv : block->iter_vars) {
          if (iv->var.get() == v && IsConstInt(iv->dom->extent, 1)) vmap[v] = pstore->indices[i];
        }
      }
      arith::RangeMap producer_doms;
      for (const IterVar& iv : producer->iter_vars) producer_doms[iv->var] = iv->dom;
      for (const IterVar& iv : block->iter_vars) {
        auto it = vmap.find(iv->var.get());
        if (it == vmap.end()) {
          ok = false;
          break;
        }
        arith::IntSet range = arith::EvalSet(it->second, producer_doms, &analyzer);
        PrimExpr last = sub(add(iv->dom->min, iv->dom->extent), make_const(iv->dom->min->dtype, int64_t(1)));
        if ((range.HasLowerBound() && analyzer.CanProve(greater(range.min_value, iv->dom->min))) ||
            (range.HasUpperBound() && analyzer.CanProve(less(range.max_value, last)))) {
          ok = false;
          break;
        }
      }
    }
  }
  if (!ok) throw ScheduleError(prim, kErrBodyReverseInline, block->span);
  const StmtNode* removed = CheckLeafRemovable(prim, func, scope, block.get());
  CheckOpaqueAccess(prim, scope, buffer);

  BufferStore consumer = GetRef(store);
  struct LoadReplacer : ExprMutator {
    using ExprMutator::VisitExpr_;
    PrimExpr VisitExpr_(const BufferLoadNode* op) override {
      if (op->buffer.same_as(buffer)) return value;
      return ExprMutator::VisitExpr_(op);
    }
    Buffer buffer;
    PrimExpr value;
  } replacer;
  replacer.buffer = buffer;
  replacer.value = pstore->value;
  PrimExpr value = Substitute(replacer(consumer->value), vmap);
  std::vector<PrimExpr> indices;
  for (const PrimExpr& i : consumer->indices) indices.push_back(Substitute(i, vmap));
  // The producer may compute more than the consumer uses: its realize is guarded to the
  // consumer's iteration domain where that is not provably the whole producer domain (the
  // producer's domain itself stays, as TVM keeps it).
  for (const IterVar& iv : producer->iter_vars) analyzer.Bind(iv->var, iv->dom);
  PrimExpr guard;
  for (const IterVar& iv : block->iter_vars) {
    PrimExpr e = vmap.at(iv->var.get());
    PrimExpr lo = iv->dom->min;
    PrimExpr hi = add(iv->dom->min, iv->dom->extent);
    for (PrimExpr c : {greater_equal(e, lo), less(e, hi)}) {
      if (analyzer.CanProve(c)) continue;
      c = analyzer.Simplify(c);
      guard = guard.defined() ? logical_and(guard, c) : c;
    }
  }
  // A producer that accumulates into the buffer (an init, or a body reading what it writes)
  // accumulates into the consumer's buffer instead; that keeps the meaning only when the
  // consumer copies the element and the producer reads no other element than the one it writes.
  Stmt swap_init;
  bool accumulates = producer->init.defined();
  PostOrderVisit(pstore->value, [&](const ir::Object* n) {
    const auto* load = NodeAs<BufferLoadNode>(n);
    accumulates |= load && load->buffer.same_as(buffer);
  });
  if (accumulates) {
    const auto* copied = store->value.as<BufferLoadNode>();
    bool ok_copy = copied && copied->buffer.same_as(buffer);
    auto same_element = [&](const std::vector<PrimExpr>& idx) {
      if (idx.size() != pstore->indices.size()) return false;
      for (size_t i = 0; i < idx.size(); ++i) {
        if (!ir::StructuralEqual(idx[i], pstore->indices[i], false)) return false;
      }
      return true;
    };
    PostOrderVisit(pstore->value, [&](const ir::Object* n) {
      const auto* load = NodeAs<BufferLoadNode>(n);
      if (load && load->buffer.same_as(buffer)) ok_copy = ok_copy && same_element(load->indices);
    });
    const auto* pinit = producer->init.defined() ? producer->init.as<BufferStoreNode>() : nullptr;
    if (producer->init.defined()) {
      ok_copy = ok_copy && pinit && pinit->buffer.same_as(buffer) && same_element(pinit->indices);
    }
    if (!ok_copy) throw ScheduleError(prim, kErrBodyReverseInline, block->span);
    struct Redirect : ExprMutator {
      using ExprMutator::VisitExpr_;
      PrimExpr VisitExpr_(const BufferLoadNode* op) override {
        if (op->buffer.same_as(from)) return MakeBufferLoad(to, indices, {}, op->span);
        return ExprMutator::VisitExpr_(op);
      }
      Buffer from, to;
      std::vector<PrimExpr> indices;
    } redirect;
    redirect.from = buffer;
    redirect.to = consumer->buffer;
    redirect.indices = indices;
    value = redirect(pstore->value);
    if (pinit) swap_init = MakeBufferStore(consumer->buffer, pinit->value, indices, {}, pinit->span);
  }
  InlineRewriter rewriter(scope.get(), buffer, removed);
  rewriter.swap_block = producer.get();
  rewriter.swap_init = swap_init;
  rewriter.swap_body =
      MakeBufferStore(consumer->buffer, value, indices, consumer->predicate, consumer->span);
  if (guard.defined()) {
    const SBlockRealizeNode* prealize = RealizeOf(func, producer.get());
    VarMap bindings;
    for (size_t i = 0; i < producer->iter_vars.size(); ++i) {
      bindings[producer->iter_vars[i]->var.get()] = prealize->iter_values[i];
    }
    // As TVM, the guard in terms of the loops, simplified, replaces a producer predicate it
    // implies; one it does not imply is kept beside it.
    arith::Analyzer outer;
    for (const StmtNode* s : PathIn(func, prealize)) {
      if (auto* loop = NodeAs<ForNode>(s)) outer.Bind(loop->loop_var, ir::MakeRange(loop->min, loop->extent), true);
    }
    guard = outer.Simplify(Substitute(guard, bindings));
    const int64_t* trivially = AsConstInt(prealize->predicate);
    bool implied = false;
    if (!(trivially && *trivially == 1)) {
      auto holds = outer.constraint(guard);
      implied = outer.CanProve(prealize->predicate);
    }
    rewriter.swap_predicate = (trivially && *trivially == 1) || implied
                                  ? guard
                                  : logical_and(prealize->predicate, guard);
  }
  Stmt new_scope = rewriter(scope);
  Replace(scope.get(), new_scope, {{}, {block->name_hint}});
  Record({"reverse_compute_inline", {{"block", TraceValue::Block(block_rv.id)}}, {}, false});
}

namespace {

RecipeMethod InlineMethod(void (Schedule::*apply)(const SBlockRV&)) {
  return {{"block"}, false, RecipeReturns::kNothing,
          [apply](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
            (sch.*apply)(args.Block("block"));
            return {};
          }};
}
RecipeMethodRegistrar reg_compute_inline(
    "compute_inline", InlineMethod(&Schedule::ComputeInline),
    {"compute location",
     "inline the block into its consumers",
     {{"block", RecipeParamKind::kBlock, "the block to inline", ""}}});
RecipeMethodRegistrar reg_reverse_compute_inline(
    "reverse_compute_inline", InlineMethod(&Schedule::ReverseComputeInline),
    {"compute location",
     "inline the block into its producer",
     {{"block", RecipeParamKind::kBlock, "the block to inline", ""}}});

}  // namespace

}  // namespace wb::schedule
