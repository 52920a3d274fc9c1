// merge (primitives.h): fold loop nests of equal shape into one nest. TVM checks only the loops'
// shape; here the nests must also be independent, since merging interleaves their iterations.
#include <algorithm>
#include <set>

#include "arith/analyzer.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/primitives.h"
#include "schedule/recipe.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

const char* kPrim = "merge";

struct Accesses {
  std::set<const BufferNode*> reads, writes;
};

Accesses AccessesOf(const Stmt& stmt) {
  Accesses a;
  PostOrderVisit(stmt, [&](const ir::Object* n) {
    if (auto* store = dynamic_cast<const BufferStoreNode*>(n)) a.writes.insert(store->buffer.get());
    if (auto* load = dynamic_cast<const BufferLoadNode*>(n)) a.reads.insert(load->buffer.get());
  });
  return a;
}

// A buffer one of them writes and the other reads or writes; null when independent.
const BufferNode* Conflict(const Accesses& a, const Accesses& b) {
  for (const BufferNode* w : a.writes) {
    if (b.reads.count(w) || b.writes.count(w)) return w;
  }
  for (const BufferNode* w : b.writes) {
    if (a.reads.count(w)) return w;
  }
  return nullptr;
}

// "the nest of loop `i`", "the loop nest of block `B`", ..., for messages.
std::string Describe(const Stmt& stmt, const For* nest_loop) {
  if (nest_loop) return "the nest of loop " + Quote(nest_loop->get());
  std::vector<SBlock> blocks = ChildBlocks(stmt);
  if (auto* realize = stmt.as<SBlockRealizeNode>()) return "block " + Quote(realize->block.get());
  if (blocks.empty()) return "a statement between them";
  return (stmt.as<ForNode>() ? "the loop nest of block " : "the statement holding block ") +
         Quote(blocks[0].get());
}

}  // namespace

LoopRV Merge(Schedule& sch, const std::vector<LoopRV>& loop_rvs) {
  if (loop_rvs.size() < 2) throw std::invalid_argument("merge expects at least 2 loops");
  PrimFunc func = sch.Func();
  std::vector<For> given;
  std::vector<std::vector<const StmtNode*>> paths;
  for (const LoopRV& rv : loop_rvs) {
    For l = sch.Get(rv);
    for (const For& g : given) {
      if (g.same_as(l)) {
        throw ScheduleError(kPrim, "The loop " + Quote(l.get()) + " is given more than once",
                            l->span);
      }
    }
    given.push_back(l);
    paths.push_back(PathTo(func->body, l.get()));
  }
  // The lowest common ancestor (a loop or a block) of all the loops.
  size_t common = 0;
  while (true) {
    bool same = std::all_of(paths.begin(), paths.end(), [&](const auto& p) {
      return common < p.size() && p[common] == paths[0][common];
    });
    if (!same) break;
    ++common;
  }
  size_t lca = common;  // index into the paths; the LCA is paths[*][lca]
  while (lca-- > 0) {
    const StmtNode* s = paths[0][lca];
    if (NodeAs<ForNode>(s) || NodeAs<SBlockNode>(s)) break;
  }
  // Each loop's nest up to the LCA, the given loop first.
  arith::Analyzer analyzer;
  std::vector<std::vector<For>> nests;
  SBlock scope;
  for (size_t k = 0; k < given.size(); ++k) {
    SBlock root = GetScopeRoot(sch, kPrim, given[k].get(), false);
    std::vector<For> nest;
    for (size_t i = paths[k].size(); i-- > lca + 1;) {
      auto* f = NodeAs<ForNode>(paths[k][i]);
      if (!f) continue;
      For loop = GetRef(f);
      if (!loop->annotations.empty() || loop->thread_binding.defined() ||
          loop->kind == ForKind::kThreadBinding) {
        throw ScheduleError(kPrim, "The primitive can't be applied because the loop " +
                                       Quote(f) + " has annotation or thread binding",
                            loop->span);
      }
      if (!analyzer.CanProve(equal(loop->min, make_const(loop->min->dtype, int64_t(0))))) {
        throw ScheduleError(kPrim, "The loop " + Quote(f) +
                                       " does not start with 0, which is not supported",
                            loop->span);
      }
      nest.push_back(loop);
    }
    for (size_t i = nest.size(); i-- > 1;) {
      if (nest[i]->body.get() != nest[i - 1].get()) {
        throw ScheduleError(kPrim, "The inner loop " + Quote(nest[i - 1].get()) +
                                       " is not the only child of outer loop " +
                                       Quote(nest[i].get()),
                            nest[i - 1]->span);
      }
    }
    if (k == 0) {
      scope = root;
    } else {
      if (!root.same_as(scope)) {
        throw ScheduleError(kPrim, "Expected the loops to be under the same block scope.");
      }
      if (nest.size() != nests[0].size()) {
        throw ScheduleError(kPrim, "Merge loop's nesting depth must be same, but not.");
      }
      for (size_t j = 0; j < nest.size(); ++j) {
        if (!analyzer.CanProveEqual(nest[j]->extent, nests[0][j]->extent)) {
          throw ScheduleError(kPrim, "Merge loop's `extent` must be same, but not. The loop " +
                                         Quote(nest[j].get()) + " and the loop " +
                                         Quote(nests[0][j].get()) + " differ",
                              nest[j]->span);
        }
      }
    }
    nests.push_back(std::move(nest));
  }
  if (nests[0].empty()) {
    throw ScheduleError(kPrim, "Merge loop's nesting depth must be same, but not.");
  }
  // The nests' outermost loops are items of one sequence.
  const SeqStmtNode* seq = nullptr;
  std::vector<size_t> pos;
  for (size_t k = 0; k < nests.size(); ++k) {
    const ForNode* top = nests[k].back().get();
    const std::vector<const StmtNode*>& p = paths[k];
    size_t at = std::find(p.begin(), p.end(), top) - p.begin();
    auto* parent = at > 0 ? NodeAs<SeqStmtNode>(p[at - 1]) : nullptr;
    if (!parent || (seq && parent != seq)) {
      throw ScheduleError(kPrim, "The loop nests to merge are not statements of one sequence");
    }
    seq = parent;
    for (size_t i = 0; i < seq->seq.size(); ++i) {
      if (seq->seq[i].get() == top) pos.push_back(i);
    }
  }
  // Dependences: every two nests interleave; a nest moved to the last given nest's place passes
  // the statements in between.
  size_t target = pos.back();
  std::vector<Accesses> nest_access;
  for (size_t k = 0; k < nests.size(); ++k) nest_access.push_back(AccessesOf(nests[k].back()));
  auto refuse = [&](const std::string& a, const std::string& b, const BufferNode* buf) {
    return ScheduleError(kPrim, "The loops cannot be merged: " + a + " and " + b +
                                    " access buffer " + buf->name +
                                    " and one of them writes it; merging would change the "
                                    "order of these accesses");
  };
  for (size_t a = 0; a < nests.size(); ++a) {
    for (size_t b = a + 1; b < nests.size(); ++b) {
      if (const BufferNode* buf = Conflict(nest_access[a], nest_access[b])) {
        throw refuse(Describe(nests[a].back(), &nests[a].back()),
                     Describe(nests[b].back(), &nests[b].back()), buf);
      }
    }
    size_t lo = std::min(pos[a], target), hi = std::max(pos[a], target);
    for (size_t i = lo + 1; i < hi; ++i) {
      if (std::find(pos.begin(), pos.end(), i) != pos.end()) continue;
      if (const BufferNode* buf = Conflict(nest_access[a], AccessesOf(seq->seq[i]))) {
        throw refuse(Describe(nests[a].back(), &nests[a].back()), Describe(seq->seq[i], nullptr),
                     buf);
      }
    }
  }

  // The merged nest, named after the first nest's loops.
  std::vector<Var> vars;
  for (const For& l : nests[0]) vars.push_back(MakeVar(l->loop_var->name_hint + "_m", l->loop_var->dtype));
  std::vector<Stmt> bodies;
  for (const std::vector<For>& nest : nests) {
    VarMap map;
    for (size_t j = 0; j < nest.size(); ++j) {
      map[nest[j]->loop_var.get()] = cast(nest[j]->loop_var->dtype, vars[j]);
    }
    bodies.push_back(Substitute(nest[0]->body, map));
  }
  Stmt merged = MakeSeq(bodies);
  for (size_t j = 0; j < vars.size(); ++j) {
    merged = MakeFor(vars[j], make_const(vars[j]->dtype, int64_t(0)), nests[0][j]->extent,
                     ForKind::kSerial, merged);
  }
  std::vector<Stmt> items;
  for (size_t i = 0; i < seq->seq.size(); ++i) {
    if (i == target) {
      items.push_back(merged);
    } else if (std::find(pos.begin(), pos.end(), i) == pos.end()) {
      items.push_back(seq->seq[i]);
    }
  }
  sch.Replace(seq, MakeSeq(items, seq->span));
  LoopRV out = sch.NewLoopRV(vars[0]);
  Instruction inst{"merge", {}, {TraceValue::Loop(out.id)}, false};
  for (const LoopRV& rv : loop_rvs) inst.args.push_back({"", TraceValue::Loop(rv.id)});
  sch.Record(std::move(inst));
  return out;
}

namespace {

RecipeMethodRegistrar reg_merge(
    "merge", {{}, true, RecipeReturns::kSingle,
              [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
                std::vector<LoopRV> loops;
                for (const RecipeValue& v : args.varargs()) {
                  if (v.kind == RecipeValue::Kind::kList) {
                    for (const RecipeValue& e : v.list) loops.push_back(args.LoopOf(e));
                  } else {
                    loops.push_back(args.LoopOf(v));
                  }
                }
                return {Merge(sch, loops)};
              }},
    {"loop transformations",
     "merge loop nests of the same extents into one nest",
     {{"loops", RecipeParamKind::kLoops,
       "one loop of each nest, at the same depth (name another block's loop as B.i)", ""}}});

}  // namespace
}  // namespace wb::schedule
