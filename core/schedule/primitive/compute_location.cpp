// compute_at and reverse_compute_at (shared/SCHEDULE.md §2.5): a block's loop nest is removed and
// rebuilt under a loop of its consumers (or producers), covering exactly the region they need
// there. The region comes from the core/arith integer-set evaluation of the other blocks'
// accesses with the loops below the target loop relaxed; the block's iterator domains are solved
// from it.
#include <algorithm>
#include <unordered_set>

#include "arith/analyzer.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/primitives.h"
#include "schedule/recipe.h"
#include "schedule/region.h"
#include "schedule/schedule.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

// An interval [lo, hi] per buffer dimension.
struct Interval {
  PrimExpr lo, hi;
};

void UnionInto(std::vector<Interval>* acc, const std::vector<Range>& region,
               arith::Analyzer* analyzer) {
  std::vector<Interval> next;
  for (const Range& r : region) {
    next.push_back({r->min, analyzer->Simplify(sub(add(r->min, r->extent),
                                                   make_const(r->min->dtype, int64_t(1))))});
  }
  if (acc->empty()) {
    *acc = next;
    return;
  }
  for (size_t d = 0; d < acc->size() && d < next.size(); ++d) {
    Interval& a = (*acc)[d];
    const Interval& b = next[d];
    if (!analyzer->CanProve(less_equal(a.lo, b.lo))) {
      a.lo = analyzer->CanProve(less_equal(b.lo, a.lo)) ? b.lo : analyzer->Simplify(min(a.lo, b.lo));
    }
    if (!analyzer->CanProve(greater_equal(a.hi, b.hi))) {
      a.hi = analyzer->CanProve(greater_equal(b.hi, a.hi)) ? b.hi
                                                           : analyzer->Simplify(max(a.hi, b.hi));
    }
  }
}

// `e` as `var + offset` for a block iterator var; false for any other form.
bool AsVarPlusConst(const PrimExpr& e, const std::unordered_set<const VarNode*>& iters,
                    const VarNode** var, PrimExpr* offset) {
  if (const auto* v = e.as<VarNode>()) {
    if (!iters.count(v)) return false;
    *var = v;
    *offset = make_const(e->dtype, int64_t(0));
    return true;
  }
  if (const auto* a = e.as<AddNode>()) {
    const auto* v = a->a.as<VarNode>();
    if (v && iters.count(v) && AsConstInt(a->b)) {
      *var = v;
      *offset = a->b;
      return true;
    }
  }
  if (const auto* s = e.as<SubNode>()) {
    const auto* v = s->a.as<VarNode>();
    if (v && iters.count(v) && AsConstInt(s->b)) {
      *var = v;
      *offset = sub(make_const(e->dtype, int64_t(0)), s->b);
      return true;
    }
  }
  return false;
}

// One digit of an iterator in mixed radix: `(v // lower) % extent` (`v`, `v // c`, `v % c` and
// `v // c1 % c2`); `extent` 0 stands for "up to the iterator's end".
struct Digit {
  const VarNode* var = nullptr;
  int64_t lower = 1;
  int64_t extent = 0;
};

bool AsDigit(const PrimExpr& e, const std::unordered_set<const VarNode*>& iters, Digit* out) {
  PrimExpr x = e;
  int64_t extent = 0, lower = 1;
  if (auto* m = x.as<FloorModNode>()) {
    const int64_t* c = AsConstInt(m->b);
    if (!c || *c <= 0) return false;
    extent = *c;
    x = m->a;
  }
  if (auto* d = x.as<FloorDivNode>()) {
    const int64_t* c = AsConstInt(d->b);
    if (!c || *c <= 0) return false;
    lower = *c;
    x = d->a;
  }
  auto* v = x.as<VarNode>();
  if (!v || !iters.count(v)) return false;
  *out = {v, lower, extent};
  return true;
}

// The interval of an iterator whose digits index the dimensions of a point access, from the
// intervals needed in those dimensions: exact when the digits tile the iterator (lower factors
// 1, e1, e1 * e2, ... up to its extent) and every digit below the highest one that varies is
// needed whole; false otherwise.
bool SolveDigits(const VarNode* var, int64_t var_extent, std::vector<std::pair<Digit, Interval>> digits,
                 arith::Analyzer* analyzer, Interval* out) {
  std::sort(digits.begin(), digits.end(),
            [](const auto& a, const auto& b) { return a.first.lower < b.first.lower; });
  int64_t expect = 1;
  for (auto& [digit, need] : digits) {
    if (digit.lower != expect) return false;
    if (digit.extent == 0) {
      if (var_extent % digit.lower != 0) return false;
      digit.extent = var_extent / digit.lower;
    }
    expect = digit.lower * digit.extent;
  }
  if (expect != var_extent) return false;
  // From the top: once a digit varies, every digit below must be whole.
  bool varied = false;
  for (size_t k = digits.size(); k-- > 0;) {
    const auto& [digit, need] = digits[k];
    PrimExpr last = make_const(need.lo->dtype, digit.extent - 1);
    if (varied && !(analyzer->CanProveEqual(need.lo, Zero(need.lo->dtype)) &&
                    analyzer->CanProveEqual(need.hi, last))) {
      return false;
    }
    if (!analyzer->CanProveEqual(need.lo, need.hi)) varied = true;
  }
  PrimExpr lo, hi;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    const auto& [digit, need] = *it;
    PrimExpr scale = make_const(need.lo->dtype, digit.lower);
    PrimExpr l = mul(need.lo, scale), h = mul(need.hi, scale);
    lo = lo.defined() ? add(lo, l) : l;
    hi = hi.defined() ? add(hi, h) : h;
  }
  (void)var;
  *out = {analyzer->Simplify(lo), analyzer->Simplify(hi)};
  return true;
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
      throw ScheduleError(prim, "The block " + Quote(block.get()) + " and the loop " +
                                    Quote(loop.get()) +
                                    " are required to be under the same block scope, and the "
                                    "loop should not be an ancestor of the block", loop->span);
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

  // The region the other blocks need of each buffer the block writes (reads, when reverse),
  // with the loops under the target loop relaxed.
  arith::Analyzer analyzer;
  for (const StmtNode* s : PathIn(func, loop.get())) {
    if (const auto* f = NodeAs<ForNode>(s)) analyzer.Bind(f->loop_var, ir::MakeRange(f->min, f->extent), true);
  }
  const std::vector<BufferRegion>& own = reverse ? block->reads : block->writes;
  std::unordered_set<const VarNode*> iter_set;
  for (const IterVar& iv : block->iter_vars) iter_set.insert(iv->var.get());
  std::unordered_map<const VarNode*, Interval> solved;
  for (const BufferRegion& mine : own) {
    std::vector<Interval> need;
    for (const SBlock& other : required) {
      const std::vector<BufferRegion>& theirs = reverse ? other->writes : other->reads;
      BufferRegion r = FindRegion(theirs, mine->buffer);
      if (!r.defined()) continue;
      // Unclipped: where the hull passes the buffer's edge, a predicate guards the block
      // instead of a loop extent that depends on outer loops.
      // The thread-bound loops above the target that the buffer is shared across count as
      // relaxed (TVM's compute_at): a shared tile is fetched for every thread of the block.
      UnionInto(&need,
                RelaxRegion(func, other.get(), r, loop.get(), &analyzer, /*clip=*/false,
                            /*relax_threads=*/true),
                &analyzer);
    }
    if (need.empty()) continue;
    // Iterators indexing several dimensions through their digits (`v // 16`, `v % 16`).
    std::unordered_map<const VarNode*, std::vector<std::pair<Digit, Interval>>> digits;
    for (size_t d = 0; d < mine->region.size() && d < need.size(); ++d) {
      Digit digit;
      const int64_t* ext = AsConstInt(mine->region[d]->extent);
      if (!ext || *ext != 1 || !AsDigit(mine->region[d]->min, iter_set, &digit)) continue;
      if (digit.lower == 1 && digit.extent == 0) continue;  // a plain `v`: solved below
      digits[digit.var].push_back({digit, need[d]});
    }
    for (const IterVar& iv : block->iter_vars) {
      auto it = digits.find(iv->var.get());
      const int64_t* dom_ext = AsConstInt(iv->dom->extent);
      if (it == digits.end() || !dom_ext || !IsConstInt(iv->dom->min, 0) ||
          solved.count(iv->var.get())) {
        continue;
      }
      Interval range;
      if (SolveDigits(iv->var.get(), *dom_ext, it->second, &analyzer, &range)) {
        solved.emplace(iv->var.get(), range);
      }
    }
    for (size_t d = 0; d < mine->region.size() && d < need.size(); ++d) {
      const VarNode* var = nullptr;
      PrimExpr offset;
      const int64_t* ext = AsConstInt(mine->region[d]->extent);
      if (!ext || *ext != 1 || !AsVarPlusConst(mine->region[d]->min, iter_set, &var, &offset)) {
        continue;
      }
      Interval iv{analyzer.Simplify(sub(need[d].lo, offset)),
                  analyzer.Simplify(sub(need[d].hi, offset))};
      auto it = solved.find(var);
      if (it == solved.end()) {
        solved.emplace(var, iv);
      } else {
        std::vector<Interval> acc{it->second};
        UnionInto(&acc, {ir::MakeRange(iv.lo, analyzer.Simplify(add(sub(iv.hi, iv.lo),
                                                                     make_const(iv.lo->dtype,
                                                                                int64_t(1)))))},
                  &analyzer);
        it->second = acc[0];
      }
    }
  }

  // New loops over the solved domains (the whole domain for an iterator nothing constrains, and
  // always for reduction iterators: a partial reduction range would re-run the init).
  std::vector<PrimExpr> values;
  std::vector<std::pair<Var, PrimExpr>> new_loops;
  PrimExpr predicate;
  for (const IterVar& iv : block->iter_vars) {
    PrimExpr dom_lo = iv->dom->min;
    PrimExpr dom_hi = analyzer.Simplify(sub(add(iv->dom->min, iv->dom->extent),
                                            make_const(iv->dom->min->dtype, int64_t(1))));
    Interval range{dom_lo, dom_hi};
    auto it = solved.find(iv->var.get());
    if (it != solved.end() && iv->iter_type != IterVarType::kCommReduce) range = it->second;
    // Clip to the domain where that is provable; guard with a predicate where it is not.
    if (!analyzer.CanProve(greater_equal(range.lo, dom_lo)) &&
        analyzer.CanProve(less_equal(range.lo, dom_lo))) {
      range.lo = dom_lo;
    }
    if (!analyzer.CanProve(less_equal(range.hi, dom_hi)) &&
        analyzer.CanProve(greater_equal(range.hi, dom_hi))) {
      range.hi = dom_hi;
    }
    PrimExpr extent = analyzer.Simplify(
        add(sub(range.hi, range.lo), make_const(range.lo->dtype, int64_t(1))));
    const int64_t* ext = AsConstInt(extent);
    PrimExpr value;
    if (ext && *ext == 1 && !preserve_unit_loops) {
      value = range.lo;
    } else {
      Var ax = MakeVar("ax" + std::to_string(new_loops.size()), iv->var->dtype);
      new_loops.emplace_back(ax, extent);
      analyzer.Bind(ax, ir::MakeRange(make_const(extent->dtype, int64_t(0)), extent), true);
      value = add(range.lo, ax);
    }
    values.push_back(value);
    // TVM's bounds `v >= lo` and `v < hi + 1`, the conjunction simplified as a whole.
    PrimExpr past = add(dom_hi, make_const(dom_hi->dtype, int64_t(1)));
    for (PrimExpr c : {greater_equal(value, dom_lo), less(value, past)}) {
      if (analyzer.CanProve(c)) continue;
      predicate = predicate.defined() ? logical_and(predicate, c) : c;
    }
  }
  predicate = predicate.defined() ? analyzer.Simplify(predicate)
                                  : make_const(DataType::Bool(), int64_t(1));
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
