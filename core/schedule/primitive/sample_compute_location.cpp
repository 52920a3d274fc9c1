// sample_compute_location (primitives.h): TVM's candidate locations of a block, found by asking
// compute_inline and compute_at themselves on copies of the schedule (a copy shares the immutable
// IR, so a probe costs one primitive's checks), and the sampled choice with its decision in the
// trace.
#include <algorithm>
#include <stdexcept>

#include "schedule/primitive/primitives.h"
#include "schedule/recipe.h"
#include "tir/functor.h"

namespace wb::schedule {

using namespace tir;

namespace {

// TVM's GetLoopIterType: reduction when only reduction iterators of the blocks directly under
// the loop bind its variable, data-parallel when only spatial ones (or none) do, else opaque.
enum class LoopType { kDataPar, kReduce, kOpaque };

// Counts how the blocks directly under a loop bind its variable; not into the blocks, whose own
// loops are another scope.
class BindingCounter : public StmtVisitor {
 public:
  explicit BindingCounter(const VarNode* var) : var_(var) {}
  int spatial = 0, reduce = 0, other = 0;
  using StmtVisitor::VisitStmt_;
  void VisitStmt_(const SBlockRealizeNode* realize) override {
    for (size_t i = 0; i < realize->iter_values.size() && i < realize->block->iter_vars.size(); ++i) {
      int uses = 0;
      PostOrderVisit(realize->iter_values[i], [&](const Object* o) { uses += o == var_; });
      if (!uses) continue;
      IterVarType t = realize->block->iter_vars[i]->iter_type;
      (t == IterVarType::kDataPar ? spatial : t == IterVarType::kCommReduce ? reduce : other) += uses;
    }
  }

 private:
  const VarNode* var_;
};

LoopType LoopIterType(const For& loop) {
  BindingCounter count(loop->loop_var.get());
  count(loop->body);
  if (count.other || (count.spatial && count.reduce)) return LoopType::kOpaque;
  return count.reduce ? LoopType::kReduce : LoopType::kDataPar;
}

template <typename F>
bool Succeeds(const Schedule& sch, F f) {
  Schedule probe = sch;
  try {
    f(probe);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// The loops of the first consumer's get_loops (as loops of `probe`) that may be candidates, and
// how many of them lie at or above the consumers' lowest common loop; 0 when none does.
struct ConsumerLoops {
  std::vector<For> loops;
  size_t n_candidate = 0;
};

ConsumerLoops LoopsOfConsumers(Schedule& probe, const SBlockRV& block) {
  ConsumerLoops out;
  std::vector<SBlockRV> consumers = probe.GetConsumers(block);
  if (consumers.empty()) return out;
  std::vector<std::vector<For>> nests;
  for (const SBlockRV& c : consumers) {
    std::vector<For> nest;
    for (const LoopRV& l : probe.GetLoops(c)) nest.push_back(probe.Get(l));
    nests.push_back(std::move(nest));
  }
  // The deepest loop above every consumer (TVM: the consumer's parent, or the consumers' LCA,
  // when that is a loop).
  size_t common = nests[0].size();
  for (const auto& nest : nests) {
    size_t k = 0;
    while (k < common && k < nest.size() && nest[k].same_as(nests[0][k])) ++k;
    common = k;
  }
  out.loops = nests[0];
  out.n_candidate = common;
  return out;
}

// The candidates, and for each loop candidate the loop's variable (the i-th loop of the first
// consumer).
struct Locations {
  std::vector<int64_t> decisions;
  std::vector<Var> loop_vars;  // parallel to the decisions >= 0
};

Locations CollectLocations(const Schedule& sch, const SBlockRV& block) {
  sch.Get(block);  // an unknown handle is the caller's error
  Locations out;
  if (Succeeds(sch, [&](Schedule& s) { s.ComputeInline(block); })) out.decisions.push_back(-2);
  out.decisions.push_back(-1);
  Schedule probe = sch;
  ConsumerLoops c = LoopsOfConsumers(probe, block);
  std::vector<LoopType> types;
  int last_datapar = -1;
  for (size_t i = 0; i < c.n_candidate; ++i) {
    types.push_back(LoopIterType(c.loops[i]));
    if (types.back() == LoopType::kDataPar) last_datapar = static_cast<int>(i);
  }
  bool visited_reduce = false;
  for (size_t i = 0; i < c.n_candidate; ++i) {
    const auto* extent = c.loops[i]->extent.as<IntImmNode>();
    if (extent && extent->value == 1) continue;
    if (types[i] == LoopType::kDataPar) {
      if (visited_reduce) break;
    } else {
      visited_reduce = true;
      if (static_cast<int>(i) > last_datapar) break;
    }
    const Var loop_var = c.loops[i]->loop_var;
    if (Succeeds(sch, [&](Schedule& s) { s.ComputeAt(block, s.NewLoopRV(loop_var), true, -1); })) {
      out.decisions.push_back(static_cast<int64_t>(i));
      out.loop_vars.push_back(loop_var);
    }
  }
  return out;
}

}  // namespace

std::vector<int64_t> ComputeLocationCandidates(const Schedule& sch, const SBlockRV& block) {
  return CollectLocations(sch, block).decisions;
}

LoopRV SampleComputeLocation(Schedule& sch, const SBlockRV& block, std::optional<int64_t> decision,
                             std::vector<int64_t>* candidates_out, int64_t* taken) {
  Locations locations = CollectLocations(sch, block);
  const std::vector<int64_t>& candidates = locations.decisions;
  size_t index;
  if (decision) {
    // Kept when still a candidate, else the candidate before it, else root (index of -1).
    auto it = std::upper_bound(candidates.begin(), candidates.end(), *decision);
    index = it == candidates.begin() ? static_cast<size_t>(std::find(candidates.begin(), candidates.end(), -1) -
                                                           candidates.begin())
                                     : static_cast<size_t>(it - candidates.begin()) - 1;
  } else {
    index = static_cast<size_t>(sch.SampleInt(0, static_cast<int64_t>(candidates.size())));
  }
  const int64_t chosen = candidates[index];
  LoopRV out;
  if (chosen == -2) {
    out = LoopRV{kInlineLoopRV};
  } else if (chosen == -1) {
    out = LoopRV{kRootLoopRV};
  } else {
    // The loop candidates follow -1 in order.
    size_t first_loop = static_cast<size_t>(std::find(candidates.begin(), candidates.end(), -1) - candidates.begin()) + 1;
    out = sch.NewLoopRV(locations.loop_vars.at(index - first_loop));
  }
  sch.Record({"sample_compute_location",
              {{"block", TraceValue::Block(block.id)}, {"decision", TraceValue::Int(chosen)}},
              {TraceValue::Loop(out.id)},
              false});
  if (candidates_out) *candidates_out = candidates;
  if (taken) *taken = chosen;
  return out;
}

namespace {

RecipeMethodRegistrar reg_sample_compute_location(
    "sample_compute_location",
    {{"block", "decision"}, false, RecipeReturns::kSingle,
     [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       std::optional<int64_t> decision;
       if (args.Has("decision")) decision = args.Int("decision");
       return {SampleComputeLocation(sch, args.Block("block"), decision)};
     }},
    {"sampling",
     "sample where the block is computed: inlined, at the root, or at a loop of its consumer",
     {{"block", RecipeParamKind::kBlock, "the block", ""},
      {"decision", RecipeParamKind::kInt,
       "-2 inline, -1 root, i the i-th loop of the first consumer, instead of sampling", "None"}}});

}  // namespace

}  // namespace wb::schedule
