#include "schedule/block_scope.h"

#include <algorithm>

#include "arith/analyzer.h"
#include "arith/iter_affine_map.h"
#include "schedule/ir_path.h"
#include "schedule/region.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

void PushUnique(std::vector<SBlock>& out, const SBlock& b) {
  for (const SBlock& x : out) {
    if (x.same_as(b)) return;
  }
  out.push_back(b);
}

bool UsesAnyVar(const PrimExpr& e, const std::vector<const VarNode*>& vars) {
  bool used = false;
  PostOrderVisit(e, [&](const ir::Object* n) {
    for (const VarNode* v : vars) used |= n == v;
  });
  return used;
}

}  // namespace

std::vector<SBlock> ChildBlocks(const Stmt& stmt) {
  struct Collector : StmtVisitor {
    using StmtVisitor::VisitStmt_;
    void VisitStmt_(const SBlockNode* op) override { blocks.push_back(GetRef(op)); }
    std::vector<SBlock> blocks;
  } c;
  if (const auto* block = stmt.as<SBlockNode>()) {
    c(block->body);
  } else if (const auto* realize = stmt.as<SBlockRealizeNode>()) {
    c(realize->block->body);
  } else {
    c(stmt);
  }
  return c.blocks;
}

BlockScope::BlockScope(const Stmt& root) : root_(root), children_(ChildBlocks(root)) {
  auto add_edge = [&](const SBlock& src, const SBlock& dst, DepKind kind) {
    if (!src.same_as(dst)) deps_.push_back({src, dst, kind});
  };
  for (const SBlock& child : children_) {
    for (const BufferRegion& r : child->reads) readers_[r->buffer.get()].push_back(child);
    for (const BufferRegion& r : child->writes) writers_[r->buffer.get()].push_back(child);
    for (const BufferRegion& r : child->reads) {
      for (const SBlock& from : writers_[r->buffer.get()]) add_edge(from, child, DepKind::kRAW);
    }
    for (const BufferRegion& r : child->writes) {
      for (const SBlock& from : writers_[r->buffer.get()]) add_edge(from, child, DepKind::kWAW);
    }
    for (const BufferRegion& r : child->writes) {
      for (const SBlock& from : readers_[r->buffer.get()]) add_edge(from, child, DepKind::kWAR);
    }
  }
}

std::vector<Dependency> BlockScope::DepsBySrc(const SBlockNode* block) const {
  std::vector<Dependency> out;
  for (const Dependency& d : deps_) {
    if (d.src.get() == block) out.push_back(d);
  }
  return out;
}

std::vector<Dependency> BlockScope::DepsByDst(const SBlockNode* block) const {
  std::vector<Dependency> out;
  for (const Dependency& d : deps_) {
    if (d.dst.get() == block) out.push_back(d);
  }
  return out;
}

std::vector<SBlock> BlockScope::Producers(const SBlockNode* block) const {
  std::vector<SBlock> out;
  for (const Dependency& d : DepsByDst(block)) {
    if (d.kind != DepKind::kWAR) PushUnique(out, d.src);
  }
  return out;
}

std::vector<SBlock> BlockScope::Consumers(const SBlockNode* block) const {
  std::vector<SBlock> out;
  for (const Dependency& d : DepsBySrc(block)) {
    if (d.kind != DepKind::kWAR) PushUnique(out, d.dst);
  }
  return out;
}

std::vector<SBlock> BlockScope::WritersOf(const BufferNode* buffer) const {
  auto it = writers_.find(buffer);
  return it == writers_.end() ? std::vector<SBlock>{} : it->second;
}

std::vector<SBlock> BlockScope::ReadersOf(const BufferNode* buffer) const {
  auto it = readers_.find(buffer);
  return it == readers_.end() ? std::vector<SBlock>{} : it->second;
}

bool BlockScope::HasWAR() const {
  return std::any_of(deps_.begin(), deps_.end(),
                     [](const Dependency& d) { return d.kind == DepKind::kWAR; });
}

std::vector<const StmtNode*> PathIn(const PrimFunc& func, const StmtNode* node) {
  return PathTo(func->body, node);
}

const SBlockRealizeNode* RealizeOf(const PrimFunc& func, const SBlockNode* block) {
  std::vector<const StmtNode*> path = PathIn(func, block);
  if (path.size() < 2) return nullptr;
  return NodeAs<SBlockRealizeNode>(path[path.size() - 2]);
}

SBlock ParentBlock(const PrimFunc& func, const StmtNode* node) {
  std::vector<const StmtNode*> path = PathIn(func, node);
  for (size_t i = path.size() - 1; i-- > 0;) {
    if (const auto* b = NodeAs<SBlockNode>(path[i])) return GetRef(b);
  }
  return SBlock();
}

std::vector<For> LoopsUnderScope(const PrimFunc& func, const SBlockNode* block) {
  std::vector<const StmtNode*> path = PathIn(func, block);
  std::vector<For> loops;
  for (size_t i = path.size() - 1; i-- > 0;) {
    if (NodeAs<SBlockNode>(path[i])) break;
    if (const auto* f = NodeAs<ForNode>(path[i])) loops.push_back(GetRef(f));
  }
  std::reverse(loops.begin(), loops.end());
  return loops;
}

SBlock GetScopeRoot(const Schedule& sch, const char* primitive, const StmtNode* node,
                    bool require_stage_pipeline) {
  SBlock scope = ParentBlock(sch.Func(), node);
  if (!scope.defined()) {
    throw ScheduleError(primitive, "The primitive does not operate on the root block", node->span);
  }
  if (!require_stage_pipeline || !sch.enable_check()) return scope;
  BlockScope deps(scope);
  if (deps.HasWAR()) {
    throw ScheduleError(primitive,
                        "The scope " + Quote(scope.get()) +
                            " is not a stage pipeline: a block of it overwrites a buffer that an "
                            "earlier block reads (a write-after-read dependence)", scope->span);
  }
  for (const SBlock& child : deps.children()) {
    if (!HasRegionCover(sch.Func(), deps, child.get())) {
      throw ScheduleError(primitive, "The scope " + Quote(scope.get()) +
                                         " is not a stage pipeline: the region cover property "
                                         "does not hold for its child block " +
                                         Quote(child.get()), child->span);
    }
  }
  return scope;
}

int CompleteBlockViolation(const BlockScope& scope, const SBlockNode* block) {
  for (const IterVar& iv : block->iter_vars) {
    if (iv->iter_type != IterVarType::kDataPar) return 1;
  }
  // Under a loop root TVM merges the children's own writers, so a leaf block always dominates.
  if (!scope.root().as<ForNode>()) {
    for (const BufferRegion& w : block->writes) {
      if (scope.WritersOf(w->buffer.get()).size() != 1) return 2;
    }
  }
  for (const BufferRegion& r : block->reads) {
    for (const BufferRegion& w : block->writes) {
      if (r->buffer.same_as(w->buffer)) return 3;
    }
  }
  return 0;
}

int ReductionBlockViolation(const PrimFunc& func, const BlockScope& scope,
                            const SBlockNode* block) {
  if (!block->init.defined()) return 1;
  if (!IsAffineBinding(func, block)) return 2;
  std::vector<const VarNode*> reduce_vars;
  for (const IterVar& iv : block->iter_vars) {
    if (iv->iter_type != IterVarType::kDataPar && iv->iter_type != IterVarType::kCommReduce) {
      return 3;
    }
    if (iv->iter_type == IterVarType::kCommReduce) reduce_vars.push_back(iv->var.get());
  }
  if (!scope.root().as<ForNode>()) {
    for (const BufferRegion& w : block->writes) {
      if (scope.WritersOf(w->buffer.get()).size() != 1) return 4;
    }
  }
  bool indexed = false;
  auto check_store = [&](const ir::Object* n) {
    const auto* store = NodeAs<BufferStoreNode>(n);
    if (!store) return;
    for (const PrimExpr& idx : store->indices) indexed |= UsesAnyVar(idx, reduce_vars);
  };
  PostOrderVisit(block->body, check_store);
  PostOrderVisit(block->init, check_store);
  return indexed ? 5 : 0;
}

namespace {

bool MentionsVar(const PrimExpr& e, const VarNode* var) {
  bool found = false;
  PostOrderVisit(e, [&](const Object* n) { found |= n == var; });
  return found;
}

// `value` as `var * c + rest` (or `rest + var * c`, `var * c`, `var`): rest (zero when absent), or
// null when `var` is not the leading term alone.
PrimExpr WithoutLeadingTerm(const PrimExpr& value, const VarNode* var, int64_t* scale) {
  auto term_scale = [&](const PrimExpr& e) -> std::optional<int64_t> {
    if (e.get() == var) return 1;
    if (auto* mul = e.as<MulNode>()) {
      if (mul->a.get() == var) {
        if (const int64_t* c = AsConstInt(mul->b)) return *c;
      }
    }
    return std::nullopt;
  };
  if (auto c = term_scale(value)) {
    *scale = *c;
    return make_const(value->dtype, int64_t(0));
  }
  if (auto* add = value.as<AddNode>()) {
    if (auto c = term_scale(add->a); c && !MentionsVar(add->b, var)) {
      *scale = *c;
      return add->b;
    }
    if (auto c = term_scale(add->b); c && !MentionsVar(add->a, var)) {
      *scale = *c;
      return add->a;
    }
  }
  return PrimExpr();
}

void Conjuncts(const PrimExpr& e, std::vector<PrimExpr>* out) {
  if (auto* a = e.as<AndNode>()) {
    Conjuncts(a->a, out);
    Conjuncts(a->b, out);
  } else if (e.defined()) {
    out->push_back(e);
  }
}

}  // namespace

arith::IterMapResult DetectLoopIterMap(std::vector<PrimExpr> values,
                                       const std::vector<std::pair<Var, Range>>& loops,
                                       const PrimExpr& given_predicate, arith::IterMapLevel level) {
  arith::IterMapResult failed;
  failed.errors.push_back("a loop does not start at 0, or a loop of symbolic extent is not the "
                          "leading term of one binding alone");
  std::vector<std::pair<Var, Range>> iters;
  std::vector<PrimExpr> conjuncts;
  Conjuncts(given_predicate, &conjuncts);
  for (const auto& [loop_var, range] : loops) {
    const int64_t* mn = AsConstInt(range->min);
    if (!mn || *mn != 0) return failed;
    if (AsConstInt(range->extent)) {
      iters.emplace_back(loop_var, range);
      continue;
    }
    // A loop of symbolic extent (the integer analysis wants constant extents) is affine when it
    // is the leading term of one binding alone (`i`, or `io * 6 + ii` after a split of a
    // symbolic loop) and the predicate bounds only that binding (`io * 6 + ii < n`, which keeps
    // a prefix of it): the binding is then checked with the loop standing in at a constant
    // extent, which decides the same structure.
    const VarNode* var = loop_var.get();
    size_t uses = 0, at = 0;
    for (size_t k = 0; k < values.size(); ++k) {
      if (MentionsVar(values[k], var)) {
        ++uses;
        at = k;
      }
    }
    if (uses > 1) return failed;
    if (uses == 0) continue;
    int64_t scale = 1;
    if (!WithoutLeadingTerm(values[at], var, &scale).defined() || scale <= 0) return failed;
    std::vector<PrimExpr> kept;
    for (const PrimExpr& c : conjuncts) {
      if (!MentionsVar(c, var)) {
        kept.push_back(c);
        continue;
      }
      auto* lt = c.as<LTNode>();
      if (!lt || !lt->a.same_as(values[at]) || MentionsVar(lt->b, var)) return failed;
    }
    conjuncts = std::move(kept);
    Var stand_in = MakeVar(loop_var->name_hint, loop_var->dtype);
    values[at] = Substitute(values[at], {{var, stand_in}});
    iters.emplace_back(stand_in, ir::MakeRange(make_const(loop_var->dtype, int64_t(0)),
                                               make_const(loop_var->dtype, int64_t(2))));
  }
  PrimExpr predicate;
  for (const PrimExpr& c : conjuncts) predicate = predicate.defined() ? logical_and(predicate, c) : c;
  if (!predicate.defined() && given_predicate.defined()) predicate = make_const(DataType::Bool(), int64_t(1));
  arith::Analyzer analyzer;
  return arith::DetectIterMap(values, iters, predicate, level, &analyzer);
}

bool IsAffineBinding(const PrimFunc& func, const SBlockNode* block) {
  const SBlockRealizeNode* realize = RealizeOf(func, block);
  if (!realize) return block->iter_vars.empty();
  if (!ParentBlock(func, block).defined()) return block->iter_vars.empty();
  std::vector<std::pair<Var, Range>> loops;
  for (const For& loop : LoopsUnderScope(func, block)) {
    loops.emplace_back(loop->loop_var, ir::MakeRange(loop->min, loop->extent));
  }
  arith::IterMapResult res = DetectLoopIterMap(realize->iter_values, loops, realize->predicate,
                                               arith::IterMapLevel::kSurjective);

  if (!res.ok()) return false;
  for (const arith::IterSumExpr& sum : res.indices) {
    if (!sum.args.empty() && sum.args[0].scale != 1) return false;
  }
  return true;
}

namespace {

// floordiv(x, c) * c as x - floormod(x, c): a split of a symbolic loop produces a region ending
// at floordiv(n + c - 1, c) * c - 1, which covers n - 1 by the floormod's bound.
class FloorDivTimesDivisor : public ExprMutator {
 public:
  using ExprMutator::VisitExpr_;
  PrimExpr VisitExpr_(const MulNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (auto* div = a.as<FloorDivNode>()) {
      const int64_t* c = AsConstInt(b);
      const int64_t* d = AsConstInt(div->b);
      if (c && d && *c == *d && *c > 0) return sub(div->a, floormod(div->a, div->b));
    }
    return mul(a, b);
  }
};

bool ProveLessEqual(const PrimExpr& a, const PrimExpr& b, arith::Analyzer* analyzer, int depth = 0);

bool ProveLessEqualParts(const PrimExpr& a, const PrimExpr& b, arith::Analyzer* analyzer, int depth) {
  if (const auto* m = a.as<MaxNode>()) {
    return ProveLessEqual(m->a, b, analyzer, depth + 1) && ProveLessEqual(m->b, b, analyzer, depth + 1);
  }
  if (const auto* m = b.as<MinNode>()) {
    return ProveLessEqual(a, m->a, analyzer, depth + 1) && ProveLessEqual(a, m->b, analyzer, depth + 1);
  }
  if (const auto* m = b.as<MaxNode>()) {
    if (ProveLessEqual(a, m->a, analyzer, depth + 1) || ProveLessEqual(a, m->b, analyzer, depth + 1)) return true;
  }
  if (const auto* m = a.as<MinNode>()) {
    if (ProveLessEqual(m->a, b, analyzer, depth + 1) || ProveLessEqual(m->b, b, analyzer, depth + 1)) return true;
  }
  return false;
}

bool ProveLessEqual(const PrimExpr& a, const PrimExpr& b, arith::Analyzer* analyzer, int depth) {
  if (analyzer->CanProve(less_equal(a, b))) return true;
  FloorDivTimesDivisor rewrite;
  PrimExpr diff = analyzer->Simplify(rewrite(sub(b, a)));
  if (analyzer->CanProveGreaterEqual(diff, 0)) return true;
  // Regions clipped to a buffer's edge are min/max of bounds (a tile near the padding): compare
  // them part by part, which the simplifier does not do across both sides.
  if (depth >= 6) return false;
  return ProveLessEqualParts(a, b, analyzer, depth);
}

// The last index of a relaxed range. A range clipped at a buffer's edge has the extent
// max(last - first + 1, 0) (empty where the clip leaves nothing): without the outer max its
// last index simplifies to the clipped bound itself. Where the range is empty this is below
// its first index, which only makes a cover harder to prove.
PrimExpr LastIndex(const Range& r, arith::Analyzer* analyzer) {
  PrimExpr extent = r->extent;
  if (const auto* m = extent.as<MaxNode>()) {
    if (IsConstInt(m->b, 0)) extent = m->a;
  }
  return analyzer->Simplify(add(r->min, sub(extent, make_const(extent->dtype, int64_t(1)))));
}

}  // namespace

bool HasRegionCover(const PrimFunc& func, const BlockScope& scope, const SBlockNode* consumer,
                    const BufferNode* buffer) {
  std::vector<const StmtNode*> cpath = PathIn(func, consumer);
  arith::Analyzer analyzer;
  for (const BufferRegion& read : consumer->reads) {
    if (buffer && read->buffer.get() != buffer) continue;
    std::vector<SBlock> producers;
    for (const Dependency& d : scope.DepsByDst(consumer)) {
      if (d.kind == DepKind::kRAW && FindRegion(d.src->writes, read->buffer).defined()) {
        PushUnique(producers, d.src);
      }
    }
    if (producers.empty()) continue;
    // Per dimension, the produced intervals [lo, hi] (inclusive). Loops bound to threads that
    // the buffer's memory is shared across are relaxed too, as TVM relaxes them for its scope.
    std::vector<std::vector<std::pair<PrimExpr, PrimExpr>>> produced_dims;
    std::vector<Range> consumed;
    for (const SBlock& p : producers) {
      std::vector<const StmtNode*> ppath = PathIn(func, p.get());
      const StmtNode* lca = nullptr;
      for (size_t i = 0; i < cpath.size() && i < ppath.size() && cpath[i] == ppath[i]; ++i) {
        lca = cpath[i];
      }
      std::vector<Range> produced = RelaxRegion(func, p.get(), FindRegion(p->writes, read->buffer),
                                                lca, &analyzer, true, /*relax_threads=*/true);
      std::vector<Range> need =
          RelaxRegion(func, consumer, read, lca, &analyzer, true, /*relax_threads=*/true);
      produced_dims.resize(std::max(produced_dims.size(), produced.size()));
      for (size_t d = 0; d < produced.size(); ++d) {
        produced_dims[d].push_back({produced[d]->min, LastIndex(produced[d], &analyzer)});
      }
      consumed = need;
    }
    for (size_t d = 0; d < consumed.size() && d < produced_dims.size(); ++d) {
      // TVM's lower-bound union: intervals join only where they provably overlap or touch; a
      // gap between two producers' writes leaves the union smaller than their hull.
      std::vector<std::pair<PrimExpr, PrimExpr>> pending = produced_dims[d];
      PrimExpr lo = pending[0].first, hi = pending[0].second;
      pending.erase(pending.begin());
      for (bool grew = true; grew && !pending.empty();) {
        grew = false;
        for (size_t k = 0; k < pending.size(); ++k) {
          const auto& [plo, phi] = pending[k];
          PrimExpr one = make_const(plo->dtype, int64_t(1));
          if (ProveLessEqual(plo, add(hi, one), &analyzer) &&
              ProveLessEqual(lo, add(phi, one), &analyzer)) {
            lo = analyzer.Simplify(min(lo, plo));
            hi = analyzer.Simplify(max(hi, phi));
            pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
            grew = true;
            break;
          }
        }
      }
      PrimExpr clo = consumed[d]->min;
      PrimExpr chi = LastIndex(consumed[d], &analyzer);
      if (!ProveLessEqual(lo, clo, &analyzer) || !ProveLessEqual(chi, hi, &analyzer)) {
        return false;
      }
    }
  }
  return true;
}

bool IsOutputBlock(const SBlockNode* scope_root, const SBlockNode* block) {
  for (const BufferRegion& w : block->writes) {
    bool allocated = false;
    for (const Buffer& b : scope_root->alloc_buffers) allocated |= b.same_as(w->buffer);
    if (!allocated) return true;
  }
  return false;
}

void CheckCompleteBlock(const char* primitive, const BlockScope& scope, const SBlockNode* block) {
  if (int c = CompleteBlockViolation(scope, block)) {
    throw ScheduleError(primitive, "The block " + Quote(block) +
                                       " is not a complete block - it violates condition #" +
                                       std::to_string(c), block->span);
  }
}

void CheckReductionBlock(const char* primitive, const PrimFunc& func, const BlockScope& scope,
                         const SBlockNode* block) {
  if (int c = ReductionBlockViolation(func, scope, block)) {
    throw ScheduleError(primitive, "The block " + Quote(block) +
                                       " is not a reduction block - it violates condition #" +
                                       std::to_string(c), block->span);
  }
}

void CheckCompleteOrReductionBlock(const char* primitive, const PrimFunc& func,
                                   const BlockScope& scope, const SBlockNode* block) {
  int complete = CompleteBlockViolation(scope, block);
  if (complete == 0) return;
  int reduction = ReductionBlockViolation(func, scope, block);
  if (reduction == 0) return;
  throw ScheduleError(primitive, "The block " + Quote(block) +
                                     " is not a complete block - it violates condition #" +
                                     std::to_string(complete) +
                                     ".\nThe block is not a reduction block either - it "
                                     "violates condition #" +
                                     std::to_string(reduction), block->span);
}

void CheckAffineBinding(const char* primitive, const PrimFunc& func, const SBlockNode* block) {
  if (!IsAffineBinding(func, block)) {
    throw ScheduleError(primitive,
                        "The block " + Quote(block) + " is required to have an affine binding", block->span);
  }
}

SBlock CheckSingleProducer(const char* primitive, const BlockScope& scope,
                           const SBlockNode* block) {
  std::vector<SBlock> producers = scope.Producers(block);
  if (producers.size() != 1 || CompleteBlockViolation(scope, producers[0].get()) != 0) {
    throw ScheduleError(primitive, "The consumer block " + Quote(block) +
                                       " to be inlined is required to have only a single "
                                       "producer block, and the producer block should be a "
                                       "complete block who has only a single consumer", block->span);
  }
  return producers[0];
}

void CheckSubtreeCompactDataflow(const char* primitive, const PrimFunc& func,
                                 const Stmt& subtree_root) {
  BlockScope scope(subtree_root);
  for (const SBlock& child : scope.children()) {
    int complete = CompleteBlockViolation(scope, child.get());
    if (complete == 0) continue;
    int reduction = ReductionBlockViolation(func, scope, child.get());
    if (reduction == 0) continue;
    std::string root_name;
    if (const auto* loop = subtree_root.as<ForNode>()) root_name = Quote(loop);
    if (const auto* block = subtree_root.as<SBlockNode>()) root_name = Quote(block);
    throw ScheduleError(primitive,
                        "The queried subtree root " + root_name +
                            " in SRef tree does not have compact dataflow, because its child "
                            "block " +
                            Quote(child.get()) +
                            " on SRef tree is neither a local complete block nor a local "
                            "reduction block.\nIt violates condition #" +
                            std::to_string(complete) +
                            " as a local complete block.\nIt violates condition #" +
                            std::to_string(reduction) + " as a local reduction block.", child->span);
  }
}

std::string Quote(const SBlockNode* block) { return "`" + block->name_hint + "`"; }
std::string Quote(const ForNode* loop) { return "`" + loop->loop_var->name_hint + "`"; }

}  // namespace wb::schedule
