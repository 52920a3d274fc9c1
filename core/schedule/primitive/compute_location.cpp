// compute_at and reverse_compute_at (shared/SCHEDULE.md §2.5): a block's loop nest is removed and
// rebuilt under a loop of its consumers (or producers), covering exactly the region they need
// there. The region comes from the core/arith integer-set evaluation of the other blocks'
// accesses with the loops below the target loop relaxed; the block's iterator domains are solved
// from it.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/iter_affine_map.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/primitives.h"
#include "schedule/primitive/reduction.h"
#include "schedule/recipe.h"
#include "schedule/region.h"
#include "schedule/schedule.h"
#include "tir/expr_text.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

// An optional integer set: absent is the empty set (TVM's IntSet::Nothing).
using MaybeSet = std::optional<arith::IntSet>;

MaybeSet UnionOf(const MaybeSet& a, const MaybeSet& b, arith::Analyzer* analyzer) {
  if (!a) return b;
  if (!b) return a;
  return arith::Union({*a, *b}, analyzer);
}

bool SameEnd(const PrimExpr& a, const PrimExpr& b, arith::Analyzer* analyzer) {
  if (!a.defined() || !b.defined()) return !a.defined() && !b.defined();
  return analyzer->CanProveEqual(a, b);
}

// TVM's BlockVarDomainInfo: the range a block iterator must cover (`dom`, always bounded once
// solved), and the bound of the buffer's shape it must stay inside (`bound`), which becomes a
// predicate where the loop range cannot be narrowed to it.
struct VarDomain {
  MaybeSet dom, bound;

  void Union(const VarDomain& other, arith::Analyzer* analyzer) {
    // (d0 ^ b0) v (d1 ^ b1) relaxed to (d0 v d1) ^ (b0 v b1).
    dom = UnionOf(dom, other.dom, analyzer);
    bound = UnionOf(bound, other.bound, analyzer);
  }

  void Simplify(arith::Analyzer* analyzer) {
    auto simplified = [&](const arith::IntSet& set) {
      return arith::IntSet::Interval(
          set.HasLowerBound() ? analyzer->Simplify(set.min_value) : PrimExpr(),
          set.HasUpperBound() ? analyzer->Simplify(set.max_value) : PrimExpr());
    };
    if (!dom) {
      // Nothing required: the bound (the iterator's whole domain at least) is the range.
      if (bound && bound->HasLowerBound() && bound->HasUpperBound()) {
        dom = simplified(*bound);
        bound.reset();
      }
      return;
    }
    dom = simplified(*dom);
    if (!bound) return;
    bound = simplified(*bound);
    arith::IntSet common = simplified(arith::Intersect({*dom, *bound}, analyzer));
    auto equals = [&](const arith::IntSet& x) {
      return SameEnd(x.min_value, common.min_value, analyzer) &&
             SameEnd(x.max_value, common.max_value, analyzer);
    };
    if (equals(*dom)) {
      bound.reset();  // provably inside the bound
    } else if (equals(*bound)) {
      dom = bound;
      bound.reset();
    } else if (common.HasLowerBound() && common.HasUpperBound() && AsConstInt(common.min_value) &&
               AsConstInt(common.max_value)) {
      dom = common;  // a constant range: the loop itself stays inside the bound
      bound.reset();
    }
  }
};

// TVM's SolveBlockVarDomain: the range of the variable that one dimension of the provided
// (written or read) region is indexed by, such that it covers the required range of that
// dimension: `v`, `v * c`, `v // c` (and nested `(e // c1) // c2`, `(e // c) % m`) are solved;
// `v % c` constrains nothing. `dim_max` is the last index of the dimension.
std::optional<std::pair<Var, VarDomain>> SolveVarDomain(const arith::IntSet& provided,
                                         const arith::IntSet& required, const PrimExpr& dim_max,
                                         arith::Analyzer* analyzer) {
  PrimExpr provided_min = analyzer->Simplify(provided.min_value);
  PrimExpr provided_max = analyzer->Simplify(provided.max_value);
  PrimExpr required_min = analyzer->Simplify(required.min_value);
  PrimExpr required_max =
      required.HasUpperBound() ? analyzer->Simplify(required.max_value) : PrimExpr();
  auto interval = [](PrimExpr lo, PrimExpr hi) { return arith::IntSet::Interval(lo, hi); };
  auto ceil_end = [&](const PrimExpr& e, const PrimExpr& fac) {
    return e.defined() ? analyzer->Simplify(add(mul(e, fac), sub(fac, make_const(fac->dtype,
                                                                                  int64_t(1)))))
                       : PrimExpr();
  };
  if (const auto* m = provided_min.as<MulNode>()) {
    const VarNode* v = m->a.as<VarNode>();
    PrimExpr e = m->b;
    if (!v) {
      v = m->b.as<VarNode>();
      e = m->a;
    }
    if (v) {
      return std::pair{GetRef(v),
              VarDomain{interval(floordiv(required_min, e),
                                 required_max.defined() ? floordiv(required_max, e) : PrimExpr()),
                        interval(make_const(dim_max->dtype, int64_t(0)), floordiv(dim_max, e))}};
    }
  } else if (analyzer->CanProveEqual(provided_min, provided_max)) {
    if (const auto* v = provided_min.as<VarNode>()) {
      return std::pair{GetRef(v), VarDomain{interval(required_min, required_max),
                                   interval(make_const(dim_max->dtype, int64_t(0)), dim_max)}};
    }
    if (const auto* d = provided_min.as<FloorDivNode>()) {
      const PrimExpr& fac = d->b;
      if (analyzer->CanProveGreaterEqual(fac, 1)) {
        // a <= x // fac <= b with fac > 0: a * fac <= x <= b * fac + fac - 1.
        arith::IntSet need = interval(mul(required_min, fac), ceil_end(required_max, fac));
        if (const auto* v = d->a.as<VarNode>()) {
          return std::pair{GetRef(v),
                  VarDomain{need, interval(make_const(dim_max->dtype, int64_t(0)),
                                           ceil_end(dim_max, fac))}};
        }
        return SolveVarDomain(arith::IntSet::SinglePoint(d->a), need, dim_max, analyzer);
      }
    } else if (const auto* md = provided_min.as<FloorModNode>()) {
      // The remainder of a variable does not narrow the variable.
      if (const auto* v = md->a.as<VarNode>()) return std::pair{GetRef(v), VarDomain{}};
      if (analyzer->CanProveGreaterEqual(md->a, 1) && analyzer->CanProveGreaterEqual(md->b, 1) &&
          analyzer->CanProveGreaterEqual(required_min, 0)) {
        return SolveVarDomain(arith::IntSet::SinglePoint(md->a),
                              interval(required_min, PrimExpr()), dim_max, analyzer);
      }
    }
  }
  return std::nullopt;
}

// TVM's UpdateBlockVarDomainAffine: when the provided region is a point that is a bijective
// affine map of the block's iterators, the iterators' ranges are the inverse map's values at the
// required region's corners (and the buffer's corners for the bound).
bool SolveAffine(const Buffer& buffer, const std::vector<IterVar>& iter_vars,
                 const std::vector<arith::IntSet>& provided,
                 const std::vector<arith::IntSet>& required, arith::Analyzer* analyzer,
                 std::unordered_map<const VarNode*, VarDomain>* doms) {
  std::vector<PrimExpr> indices;
  for (const arith::IntSet& p : provided) {
    if (!p.HasLowerBound() || !p.HasUpperBound() ||
        !analyzer->CanProveEqual(p.min_value, p.max_value)) {
      return false;
    }
    indices.push_back(p.min_value);
  }
  std::vector<std::pair<Var, Range>> iters;
  for (const IterVar& iv : iter_vars) iters.emplace_back(iv->var, iv->dom);
  arith::IterMapResult map =
      arith::DetectIterMap(indices, iters, make_const(DataType::Bool(), int64_t(1)),
                           arith::IterMapLevel::kBijective, analyzer,
                           /*simplify_trivial_iterators=*/false);
  if (!map.ok() || map.indices.empty()) return false;
  std::vector<PrimExpr> req_min, req_max, shape_min, shape_max;
  for (size_t d = 0; d < required.size(); ++d) {
    if (!required[d].HasLowerBound() || !required[d].HasUpperBound()) return false;
    req_min.push_back(required[d].min_value);
    req_max.push_back(required[d].max_value);
    const PrimExpr& extent = buffer->shape[d];
    shape_min.push_back(make_const(extent->dtype, int64_t(0)));
    shape_max.push_back(max(sub(extent, make_const(extent->dtype, int64_t(1))),
                            make_const(extent->dtype, int64_t(0))));
  }
  auto corners = [&](const std::vector<PrimExpr>& lo, const std::vector<PrimExpr>& hi) {
    std::vector<std::pair<Var, PrimExpr>> a = arith::InverseAffineIterMap(map.indices, lo);
    std::vector<std::pair<Var, PrimExpr>> b = arith::InverseAffineIterMap(map.indices, hi);
    std::unordered_map<const VarNode*, arith::IntSet> out;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      out[a[i].first.get()] = arith::IntSet::Interval(analyzer->Simplify(min(a[i].second, b[i].second)),
                                                      analyzer->Simplify(max(a[i].second, b[i].second)));
    }
    return out;
  };
  std::unordered_map<const VarNode*, arith::IntSet> var_dom = corners(req_min, req_max);
  std::unordered_map<const VarNode*, arith::IntSet> var_bound = corners(shape_min, shape_max);
  for (const IterVar& iv : iter_vars) {
    auto it = var_dom.find(iv->var.get());
    if (it == var_dom.end()) continue;
    (*doms)[iv->var.get()].Union(VarDomain{it->second, var_bound.at(iv->var.get())}, analyzer);
  }
  return true;
}

// TVM's UpdateBlockVarDomainDimwise: each dimension solved on its own. Returns the index of a
// dimension that no form above solves (null when all are solved).
PrimExpr SolveDimwise(const Buffer& buffer, const std::vector<arith::IntSet>& provided,
                      const std::vector<arith::IntSet>& required, arith::Analyzer* analyzer,
                      std::unordered_map<const VarNode*, VarDomain>* doms) {
  for (size_t d = 0; d < provided.size() && d < required.size(); ++d) {
    const arith::IntSet& p = provided[d];
    if (analyzer->CanProveEqual(p.min_value, p.max_value) &&
        AsConstInt(analyzer->Simplify(p.min_value))) {
      continue;  // a constant index constrains no iterator
    }
    const PrimExpr& extent = buffer->shape[d];
    PrimExpr dim_max = max(sub(extent, make_const(extent->dtype, int64_t(1))),
                           make_const(extent->dtype, int64_t(0)));
    auto solved = SolveVarDomain(p, required[d], dim_max, analyzer);
    if (!solved) return p.min_value;
    auto it = doms->find(solved->first.get());
    if (it != doms->end()) it->second.Union(solved->second, analyzer);
  }
  return PrimExpr();
}

// The regions of `regions` per buffer, each dimension an interval, unioned per buffer.
void AddRegion(std::vector<std::pair<Buffer, std::vector<arith::IntSet>>>* acc, const Buffer& buffer,
               std::vector<arith::IntSet> region, arith::Analyzer* analyzer) {
  for (auto& [b, r] : *acc) {
    if (!b.same_as(buffer)) continue;
    for (size_t d = 0; d < r.size() && d < region.size(); ++d) {
      r[d] = arith::Union({r[d], region[d]}, analyzer);
    }
    return;
  }
  acc->emplace_back(buffer, std::move(region));
}

std::vector<arith::IntSet> RegionSets(const std::vector<Range>& region) {
  std::vector<arith::IntSet> out;
  for (const Range& r : region) {
    const int64_t* ext = AsConstInt(r->extent);
    out.push_back(ext && *ext == 1 ? arith::IntSet::SinglePoint(r->min) : arith::IntSet::FromRange(r));
  }
  return out;
}

class MoveRewriter : public StmtMutator {
 public:
  MoveRewriter(const StmtNode* removed, const ForNode* loop, size_t pos, Stmt nest)
      : removed_(removed), loop_(loop), pos_(pos), nest_(std::move(nest)) {}
  using StmtMutator::VisitStmt_;
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> seq;
    for (const Stmt& s : op->seq) {
      if (s.get() == removed_) continue;
      seq.push_back(VisitStmt(s));
    }
    return MakeSeq(seq, op->span);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = StmtMutator::VisitStmt_(op);
    if (op != loop_) return s;
    For loop = Downcast<ForNode>(s);
    loop.CopyOnWrite()->body = InsertStmt(loop->body, pos_, nest_);
    return loop;
  }

 private:
  const StmtNode* removed_;
  const ForNode* loop_;
  size_t pos_;
  Stmt nest_;
};

// The block's own predicate (the guard of a non-dividing split, or the one reverse_compute_inline
// puts on an over-computing producer) in terms of the block's iterators, so that it survives the
// move. Undefined when there is none, or when it holds wherever the bindings stay inside the
// iterators' domains (the split's guard): the new loops keep to those domains, and TVM drops it
// then. Where it is neither, the loops it is written in are recovered from the bindings through
// the inverse affine map; a predicate that cannot be carried so is a ScheduleError, since
// dropping it would compute outside the block's guard.
PrimExpr CarriedPredicate(const char* prim, const PrimFunc& func, const SBlockNode* block,
                          const ForNode* target) {
  const SBlockRealizeNode* realize = RealizeOf(func, block);
  if (!realize || IsConstInt(realize->predicate, 1)) return {};
  // The loops the move takes away: those around the block that are not the target loop or
  // around it.
  std::vector<const StmtNode*> around = PathIn(func, target);
  std::unordered_set<const StmtNode*> kept(around.begin(), around.end());
  kept.insert(target);
  arith::Analyzer analyzer;
  std::vector<std::pair<Var, Range>> inner;
  for (const StmtNode* s : PathIn(func, realize)) {
    const auto* f = NodeAs<ForNode>(s);
    if (!f) continue;
    analyzer.Bind(f->loop_var, ir::MakeRange(f->min, f->extent), true);
    if (!kept.count(s)) inner.push_back({f->loop_var, ir::MakeRange(f->min, f->extent)});
  }
  PrimExpr in_domains = make_const(DataType::Bool(), int64_t(1));
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const Range& dom = block->iter_vars[i]->dom;
    const PrimExpr& value = realize->iter_values[i];
    in_domains = logical_and(in_domains, logical_and(greater_equal(value, dom->min),
                                                     less(value, add(dom->min, dom->extent))));
  }
  {
    auto scope = analyzer.constraint(in_domains);
    if (analyzer.CanProve(realize->predicate)) return {};
  }
  auto fail = [&]() {
    return ScheduleError(prim,
                         "The block " + Quote(block) + " has the predicate `" +
                             ExprText(realize->predicate) +
                             "`, which its new location cannot express: its loops are not "
                             "an invertible affine map of the block's iterators",
                         block->span);
  };
  arith::IterMapResult map = arith::DetectIterMap(
      realize->iter_values, inner, make_const(DataType::Bool(), int64_t(1)),
      arith::IterMapLevel::kSurjective, &analyzer, /*simplify_trivial_iterators=*/false);
  if (!map.ok()) throw fail();
  std::vector<PrimExpr> iters;
  for (const IterVar& iv : block->iter_vars) iters.push_back(iv->var);
  VarMap loops;
  for (const auto& [var, value] : arith::InverseAffineIterMap(map.indices, iters)) {
    loops[var.get()] = value;
  }
  for (const auto& [var, range] : inner) {
    if (!loops.count(var.get()) && detail::UsesAnyVar(realize->predicate, {var.get()}))
      throw fail();
  }
  arith::Analyzer in_block;
  for (const IterVar& iv : block->iter_vars) in_block.Bind(iv->var, iv->dom, true);
  return in_block.Simplify(Substitute(realize->predicate, loops));
}

bool Contains(const Stmt& stmt, const std::vector<SBlock>& blocks) {
  bool found = false;
  PostOrderVisit(stmt, [&](const ir::Object* n) {
    for (const SBlock& b : blocks) found |= n == b.get();
  });
  return found;
}

std::string NameList(const std::vector<SBlock>& blocks) {
  std::string out;
  for (const SBlock& b : blocks) out += (out.empty() ? "" : ", ") + Quote(b.get());
  return out;
}

}  // namespace

void Schedule::ComputeAtImpl(const SBlockRV& block_rv, const LoopRV& loop_rv,
                             bool preserve_unit_loops, int index, bool reverse) {
  const char* prim = reverse ? "reverse-compute-at" : "compute-at";
  auto instruction = [&] {
    return Instruction{reverse ? "reverse_compute_at" : "compute_at",
                       {{"block", TraceValue::Block(block_rv.id)},
                        {"loop", TraceValue::Loop(loop_rv.id)},
                        {"preserve_unit_loops", TraceValue::Bool(preserve_unit_loops)},
                        {"index", TraceValue::Int(index)}},
                       {},
                       false};
  };
  // The locations of sample_compute_location that are not loops (primitives.h).
  if (loop_rv.id == kRootLoopRV) {
    Get(block_rv);
    Record(instruction());
    return;
  }
  if (loop_rv.id == kInlineLoopRV) {
    if (reverse) {
      ReverseComputeInline(block_rv);
    } else {
      ComputeInline(block_rv);
    }
    // Recorded as the compute_at that asked for it, as TVM's trace has it.
    trace_.Last() = instruction();
    return;
  }
  SBlock block = Get(block_rv);
  For loop = Get(loop_rv);
  PrimFunc func = Func();
  SBlock scope = GetScopeRoot(*this, prim, block.get(), true);
  BlockScope deps(scope);
  CheckCompleteOrReductionBlock(prim, func, deps, block.get());
  {
    std::vector<const StmtNode*> loop_path = PathIn(func, loop.get());
    bool same_scope = !loop_path.empty() && ParentBlock(func, loop.get()).same_as(scope);
    bool ancestor = !PathTo(loop, block.get()).empty();
    if (!same_scope || ancestor) {
      throw ScheduleError(prim, "Expected the block " + Quote(block.get()) + " and the loop " +
                                    Quote(loop.get()) +
                                    " to be under the same block scope, and the loop not to be "
                                    "the ancestor of block", loop->span);
    }
  }
  if (!reverse && IsOutputBlock(scope.get(), block.get())) {
    throw ScheduleError(prim, "The block " + Quote(block.get()) +
                                  " is an output block: it writes a buffer that its scope does "
                                  "not allocate", block->span);
  }
  const StmtNode* removed = LeafRemovalTarget(func, scope.get(), block.get());
  if (!removed) {
    throw ScheduleError(prim, "The block " + Quote(block.get()) + " is the only leaf in the scope " +
                                  Quote(scope.get()) +
                                  ", which cannot be removed; Otherwise the scope will be empty.", block->span);
  }
  // compute_at rebuilds the loops from the block's iterators: a block that uses a loop variable
  // itself, not through its bindings (an opaque block such as loop_partition's), would be left
  // with the variable undefined.
  for (const StmtNode* s : PathTo(GetRef(removed), block.get())) {
    auto* f = NodeAs<ForNode>(s);
    if (!f) continue;
    bool uses = false;
    PostOrderVisit(block, [&](const ir::Object* n) { uses |= n == f->loop_var.get(); });
    if (uses) {
      throw ScheduleError(prim, "The block " + Quote(block.get()) + " uses the loop variable `" +
                                    f->loop_var->name_hint +
                                    "` other than through its iterator bindings, so its loops "
                                    "cannot be regenerated at the new location",
                          block->span);
    }
  }
  // Where the nest may go among the loop body's statements: after every producer there and
  // before every consumer.
  std::vector<SBlock> producers = deps.Producers(block.get());
  std::vector<SBlock> consumers = deps.Consumers(block.get());
  std::vector<Stmt> children;
  if (const auto* seq = loop->body.as<SeqStmtNode>()) {
    children = seq->seq;
  } else {
    children.push_back(loop->body);
  }
  int last_producer = -1;
  int first_consumer = static_cast<int>(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    if (Contains(children[i], producers)) last_producer = static_cast<int>(i);
    if (Contains(children[i], consumers) && first_consumer == static_cast<int>(children.size())) {
      first_consumer = static_cast<int>(i);
    }
  }
  if (last_producer >= first_consumer) {
    throw ScheduleError(prim, "Cannot find the insertion point that satisfies the "
                              "producer-consumer constraint: under the loop " +
                                  Quote(loop.get()) + ", a producer of block " +
                                  Quote(block.get()) + " comes after one of its consumers", loop->span);
  }
  // The blocks whose accesses decide the region: all of them must be under the loop.
  const std::vector<SBlock>& required = reverse ? producers : consumers;
  std::vector<SBlock> missing;
  for (const SBlock& b : required) {
    if (PathTo(loop, b.get()).empty()) missing.push_back(b);
  }
  if (!missing.empty()) {
    const char* who = reverse ? "producer" : "consumer";
    throw ScheduleError(prim, std::string("The primitive requires all the ") + who +
                                  "(s) of the given block to be present under the target loop. "
                                  "However, there are " +
                                  std::to_string(missing.size()) + " " + who +
                                  "(s) not satisfying the constraint. List of the " + who +
                                  "(s): " + NameList(missing), loop->span);
  }
  int lo_pos = last_producer + 1;
  int hi_pos = first_consumer;
  int pos;
  if (index == -1) {
    pos = hi_pos;
  } else if (index == -2) {
    pos = lo_pos;
  } else if (index >= lo_pos && index <= hi_pos) {
    pos = index;
  } else {
    throw std::invalid_argument(std::string(prim) + ": index " + std::to_string(index) +
                                " is not a valid insertion point; it must be -1, -2 or in [" +
                                std::to_string(lo_pos) + ", " + std::to_string(hi_pos) + "]");
  }

  // TVM's region estimation: the region each iteration of the block provides (its writes, or
  // its reads when reverse) against the region the other blocks require under the loop (their
  // accesses with the loops below the target loop relaxed), solved for the block's iterators.
  arith::Analyzer analyzer;
  for (const StmtNode* s : PathIn(func, loop.get())) {
    if (const auto* f = NodeAs<ForNode>(s)) analyzer.Bind(f->loop_var, ir::MakeRange(f->min, f->extent), true);
  }
  std::vector<std::pair<Buffer, std::vector<arith::IntSet>>> provided, needed;
  for (const BufferRegion& mine : reverse ? block->reads : block->writes) {
    AddRegion(&provided, mine->buffer, RegionSets(mine->region), &analyzer);
  }
  for (const SBlock& other : reverse ? producers : consumers) {
    for (const BufferRegion& r : reverse ? other->writes : other->reads) {
      bool wanted = std::any_of(provided.begin(), provided.end(),
                                [&](const auto& p) { return p.first.same_as(r->buffer); });
      if (!wanted) continue;
      // compute_at also relaxes the thread-bound loops above the target that the buffer is
      // shared across: a shared tile is fetched for every thread of the block.
      AddRegion(&needed, r->buffer,
                RelaxRegionBounds(func, other.get(), r, loop.get(), &analyzer,
                                  /*relax_threads=*/!reverse),
                &analyzer);
    }
  }
  std::unordered_map<const VarNode*, VarDomain> doms;
  for (const IterVar& iv : block->iter_vars) doms[iv->var.get()];
  for (const auto& [buffer, given] : provided) {
    auto it = std::find_if(needed.begin(), needed.end(),
                           [&](const auto& r) { return r.first.same_as(buffer); });
    if (it == needed.end()) continue;
    if (!SolveAffine(buffer, block->iter_vars, given, it->second, &analyzer, &doms)) {
      PrimExpr unsolved = SolveDimwise(buffer, given, it->second, &analyzer, &doms);
      if (unsolved.defined()) {
        throw ScheduleError(prim, "The region of buffer " + buffer->name + " that the block " +
                                      Quote(block.get()) + (reverse ? " reads" : " writes") +
                                      " is indexed by `" + ExprText(unsolved) +
                                      "`, which is not a block iterator `v`, `v * c`, `v // c` "
                                      "or `v % c`, so the iterator ranges that cover what the " +
                                      (reverse ? "producers write" : "consumers read") +
                                      " cannot be derived", block->span);
      }
    }
  }

  PrimExpr carried = CarriedPredicate(prim, func, block.get(), loop.get());

  // New loops `ax0...` over the solved ranges (of extent other than 1, or all of them when unit
  // loops are preserved), and a predicate for the bounds the ranges do not provably keep.
  std::vector<PrimExpr> values;
  std::vector<std::pair<Var, PrimExpr>> new_loops;
  PrimExpr predicate = make_const(DataType::Bool(), int64_t(1));
  for (const IterVar& iv : block->iter_vars) {
    VarDomain& info = doms.at(iv->var.get());
    arith::IntSet whole = arith::IntSet::FromRange(iv->dom);
    info.bound = info.bound ? arith::Intersect({*info.bound, whole}, &analyzer) : whole;
    info.Simplify(&analyzer);
    Range range = info.dom ? info.dom->CoverRange(iv->dom) : iv->dom;
    PrimExpr value;
    if (preserve_unit_loops || !IsConstInt(range->extent, 1)) {
      int bits = std::max(range->min->dtype.bits(), range->extent->dtype.bits());
      DataType dtype = DataType::Int(bits);
      Var ax = MakeVar("ax" + std::to_string(new_loops.size()), dtype);
      PrimExpr extent = analyzer.Simplify(range->extent);
      new_loops.emplace_back(ax, extent);
      analyzer.Bind(ax, ir::MakeRange(make_const(dtype, int64_t(0)), range->extent), true);
      value = IsConstInt(range->min, 0) ? PrimExpr(ax) : add(range->min, ax);
    } else {
      value = range->min;
    }
    values.push_back(value);
    if (info.bound) {
      if (info.bound->HasLowerBound()) {
        PrimExpr c = greater_equal(value, info.bound->min_value);
        if (!analyzer.CanProve(c)) predicate = logical_and(predicate, c);
      }
      if (info.bound->HasUpperBound()) {
        PrimExpr c = less(value, add(info.bound->max_value,
                                     make_const(info.bound->max_value->dtype, int64_t(1))));
        if (!analyzer.CanProve(c)) predicate = logical_and(predicate, c);
      }
    }
  }
  if (carried.defined()) {
    VarMap at_new;
    for (size_t i = 0; i < values.size(); ++i) at_new[block->iter_vars[i]->var.get()] = values[i];
    predicate = logical_and(predicate, Substitute(carried, at_new));
  }
  predicate = analyzer.Simplify(predicate);
  Stmt nest = MakeSBlockRealize(values, predicate, block);
  for (size_t i = new_loops.size(); i-- > 0;) {
    const PrimExpr& extent = new_loops[i].second;
    nest = MakeFor(new_loops[i].first, make_const(extent->dtype, int64_t(0)), extent,
                   ForKind::kSerial, nest);
  }
  Stmt new_scope = MoveRewriter(removed, loop.get(), static_cast<size_t>(pos), nest)(scope);
  // Producers and consumers that are not under the loop must still run before (after) the moved
  // block: a consumer ahead of the loop would read the buffer before the block writes it.
  {
    std::vector<SBlock> order = CollectBlocks(new_scope);
    auto position = [&](const SBlockNode* b) {
      for (size_t i = 0; i < order.size(); ++i) {
        if (order[i].get() == b) return i;
      }
      return order.size();
    };
    size_t at = position(block.get());
    for (const SBlock& p : producers) {
      if (position(p.get()) > at) {
        throw ScheduleError(prim, "Cannot find the insertion point that satisfies the "
                                  "producer-consumer constraint: the producer " +
                                      Quote(p.get()) + " of block " + Quote(block.get()) +
                                      " would run after it under the loop " + Quote(loop.get()), loop->span);
      }
    }
    for (const SBlock& c : consumers) {
      if (position(c.get()) < at) {
        throw ScheduleError(prim, "Cannot find the insertion point that satisfies the "
                                  "producer-consumer constraint: the consumer " +
                                      Quote(c.get()) + " of block " + Quote(block.get()) +
                                      " would run before it under the loop " + Quote(loop.get()), loop->span);
      }
    }
  }
  Replace(scope.get(), new_scope);
  Record(instruction());
}

void Schedule::ComputeAt(const SBlockRV& block, const LoopRV& loop, bool preserve_unit_loops,
                         int index) {
  ComputeAtImpl(block, loop, preserve_unit_loops, index, false);
}

void Schedule::ReverseComputeAt(const SBlockRV& block, const LoopRV& loop,
                                bool preserve_unit_loops, int index) {
  ComputeAtImpl(block, loop, preserve_unit_loops, index, true);
}

namespace {

RecipeMethod ComputeAtMethod(bool reverse) {
  return {{"block", "loop", "preserve_unit_loops", "index"}, false, RecipeReturns::kNothing,
          [reverse](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
            SBlockRV block = args.Block("block");
            LoopRV loop = args.Loop("loop");
            bool preserve = args.Bool("preserve_unit_loops", false);
            int index = static_cast<int>(args.Int("index", -1));
            if (reverse) {
              sch.ReverseComputeAt(block, loop, preserve, index);
            } else {
              sch.ComputeAt(block, loop, preserve, index);
            }
            return {};
          }};
}
RecipeDoc ComputeAtDoc(bool reverse) {
  return {"compute location",
          reverse ? "move the block under a loop of its producers' nest"
                  : "move the block under a loop of its consumers' nest",
          {{"block", RecipeParamKind::kBlock, "the block to move", ""},
           {"loop", reverse ? RecipeParamKind::kProducerLoop : RecipeParamKind::kConsumerLoop,
            reverse ? "the producer's loop to move it under" : "the consumer's loop to move it under",
            ""},
           {"preserve_unit_loops", RecipeParamKind::kBool, "keep the new loops of extent 1",
            "False"},
           {"index", RecipeParamKind::kInt,
            "where in the loop's body: -1 the last valid place, -2 the first", "-1"}}};
}
RecipeMethodRegistrar reg_compute_at("compute_at", ComputeAtMethod(false), ComputeAtDoc(false));
RecipeMethodRegistrar reg_reverse_compute_at("reverse_compute_at", ComputeAtMethod(true),
                                             ComputeAtDoc(true));

}  // namespace

}  // namespace wb::schedule
