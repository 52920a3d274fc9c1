#include "meta_schedule/default_sketch.h"

#include <algorithm>

#include "dlight/schedule_rule.h"
#include "ir/structural_equal.h"
#include "meta_schedule/postproc.h"
#include "schedule/recipe.h"

namespace wb::meta_schedule {

namespace {

using schedule::Instruction;
using schedule::Trace;
using schedule::TraceValue;

TraceValue* ArgOf(Instruction& inst, const std::string& key) {
  for (schedule::TraceArg& a : inst.args) {
    if (a.key == key) return &a.value;
  }
  return nullptr;
}
const TraceValue* ArgOf(const Instruction& inst, const std::string& key) {
  return ArgOf(const_cast<Instruction&>(inst), key);
}

// The factors of a split by constants (None: inferred), when it can be a perfect tile: at least
// two factors, every one a constant but the outermost, which may be inferred.
std::optional<std::vector<std::optional<int64_t>>> ConstantFactors(const Instruction& inst) {
  if (inst.method != "split") return std::nullopt;
  const TraceValue* f = ArgOf(inst, "factors");
  if (!f || f->kind != TraceValue::Kind::kList || f->list.size() < 2) return std::nullopt;
  std::vector<std::optional<int64_t>> out;
  for (size_t k = 0; k < f->list.size(); ++k) {
    const TraceValue& v = f->list[k];
    const bool inferred = v.kind == TraceValue::Kind::kNone || (v.kind == TraceValue::Kind::kInt && v.i == -1);
    if (inferred && k == 0) {
      out.push_back(std::nullopt);
    } else if (v.kind == TraceValue::Kind::kInt && v.i > 0) {
      out.push_back(v.i);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

void MaxExprId(const TraceValue& v, int64_t* id) {
  if (v.kind == TraceValue::Kind::kExprRV) *id = std::max(*id, v.i);
  for (const TraceValue& item : v.list) MaxExprId(item, id);
}

// `trace` with the splits at the instruction indices `convert` written as sample_perfect_tile
// (its decision the split's factors, an inferred outermost one written 1 for the sampler's repair
// to fill in) and a split by the sampled values.
Trace Rewrite(const Trace& trace, const std::vector<size_t>& convert, int64_t max_innermost) {
  int64_t next = -1;
  for (const Instruction& inst : trace.instructions()) {
    for (const auto& a : inst.args) MaxExprId(a.value, &next);
    for (const auto& o : inst.outputs) MaxExprId(o, &next);
  }
  ++next;
  Trace out;
  const std::vector<Instruction>& insts = trace.instructions();
  for (size_t i = 0; i < insts.size(); ++i) {
    if (std::find(convert.begin(), convert.end(), i) == convert.end()) {
      out.Append(insts[i]);
      continue;
    }
    std::vector<std::optional<int64_t>> factors = *ConstantFactors(insts[i]);
    Instruction sample{"sample_perfect_tile",
                       {{"loop", *ArgOf(insts[i], "loop")},
                        {"n", TraceValue::Int(static_cast<int64_t>(factors.size()))},
                        {"max_innermost_factor", TraceValue::Int(std::max(max_innermost, *factors.back()))}},
                       {},
                       true};
    std::vector<TraceValue> decision, sampled;
    for (const auto& f : factors) {
      decision.push_back(TraceValue::Int(f.value_or(1)));
      sampled.push_back(TraceValue::Expr(next++));
    }
    sample.args.push_back({"decision", TraceValue::List(decision)});
    sample.outputs = sampled;
    Instruction split = insts[i];
    *ArgOf(split, "factors") = TraceValue::List(sampled);
    out.Append(std::move(sample));
    out.Append(std::move(split));
  }
  return out;
}

// The decision of a sample_perfect_tile instruction.
std::vector<int64_t> DecisionOf(const Instruction& inst) {
  std::vector<int64_t> out;
  const TraceValue* d = ArgOf(inst, "decision");
  if (d && d->kind == TraceValue::Kind::kList) {
    for (const TraceValue& v : d->list) out.push_back(v.i);
  }
  return out;
}

schedule::Schedule Replay(const tir::PrimFunc& func, const Trace& trace, int64_t seed, std::string* error) {
  schedule::Schedule sch(dlight::SingleFunctionModule(func));
  sch.Seed(CandidateScheduleSeed(seed));
  DiagnosticList d = schedule::ApplyRecipe(sch, trace.AsPython(), "<default schedule sketch>");
  if (!d.empty()) *error = RenderDiagnostics(d);
  return sch;
}

}  // namespace

std::optional<DefaultSketch> MakeDefaultSketch(const tir::PrimFunc& func, const schedule::Schedule& dflt,
                                               const std::string& rule, int64_t max_innermost_factor,
                                               std::string* why) {
  const Trace& trace = dflt.trace();
  std::vector<size_t> convert;
  for (size_t i = 0; i < trace.instructions().size(); ++i) {
    if (ConstantFactors(trace.instructions()[i])) convert.push_back(i);
  }
  if (convert.empty()) {
    *why = "the default schedule (" + rule + ") splits no loop by constant factors";
    return std::nullopt;
  }
  // A split whose factors do not tile its loop exactly is repaired by the sampler on replay (its
  // decision then differs from the factors written): such splits stay fixed, the first one found
  // at a time (a repair changes the loops after it, so the later ones are judged again).
  for (;;) {
    Trace rewritten = Rewrite(trace, convert, max_innermost_factor);
    std::string error;
    schedule::Schedule sch = Replay(func, rewritten, 1, &error);
    if (!error.empty()) {
      *why = "the default schedule's sketch does not replay: " + error;
      return std::nullopt;
    }
    std::optional<size_t> inexact;
    std::vector<std::vector<int64_t>> decisions;
    size_t k = 0;
    for (const Instruction& inst : sch.trace().instructions()) {
      if (inst.method != "sample_perfect_tile") continue;
      std::vector<int64_t> got = DecisionOf(inst);
      std::vector<std::optional<int64_t>> wanted = *ConstantFactors(trace.instructions()[convert[k]]);
      bool exact = got.size() == wanted.size();
      for (size_t f = 0; f < got.size() && exact; ++f) {
        exact = got[f] > 0 && (!wanted[f] || *wanted[f] == got[f]);
      }
      if (!exact && !inexact) inexact = k;
      decisions.push_back(got);
      ++k;
    }
    if (inexact) {
      convert.erase(convert.begin() + static_cast<long>(*inexact));
      if (convert.empty()) {
        *why = "no split of the default schedule (" + rule + ") tiles its loop exactly";
        return std::nullopt;
      }
      continue;
    }
    if (!ir::StructuralEqual(sch.Func()->body, dflt.Func()->body)) {
      *why = "the default schedule's sketch does not replay to the default schedule";
      return std::nullopt;
    }
    DefaultSketch out;
    out.trace = std::move(rewritten);
    out.decisions = std::move(decisions);
    out.rule = rule;
    return out;
  }
}

SampledSchedule ApplyDefaultSketch(const tir::PrimFunc& func, const SpaceOptions& options,
                                   const DefaultSketch& sketch, const Candidate& candidate, int64_t seed) {
  SampledSchedule out;
  out.candidate.sketch = kDefaultSketch;
  // The candidate's decisions written into the sketch's samplers; a missing one is sampled.
  Trace trace;
  size_t k = 0;
  for (Instruction inst : sketch.trace.instructions()) {
    if (inst.method == "sample_perfect_tile") {
      const std::vector<int64_t>* given =
          k < candidate.decisions.size() && !candidate.decisions[k].empty() ? &candidate.decisions[k] : nullptr;
      const TraceValue* n = ArgOf(inst, "n");
      if (given && n && static_cast<int64_t>(given->size()) == n->i) {
        std::vector<TraceValue> d;
        for (int64_t f : *given) d.push_back(TraceValue::Int(f));
        *ArgOf(inst, "decision") = TraceValue::List(d);
      } else {
        inst.args.erase(std::remove_if(inst.args.begin(), inst.args.end(),
                                       [](const schedule::TraceArg& a) { return a.key == "decision"; }),
                        inst.args.end());
      }
      ++k;
    }
    trace.Append(std::move(inst));
  }
  try {
    std::string error;
    schedule::Schedule sch = Replay(func, trace, seed, &error);
    if (!error.empty()) {
      out.error = error;
      return out;
    }
    for (const Instruction& inst : sch.trace().instructions()) {
      if (inst.method != "sample_perfect_tile") continue;
      SampleSite site;
      site.kind = SampleSite::Kind::kTile;
      std::vector<int64_t> decision = DecisionOf(inst);
      site.extent = 1;
      for (int64_t f : decision) site.extent *= f;
      const TraceValue* bound = ArgOf(inst, "max_innermost_factor");
      site.max_innermost_factor = bound ? bound->i : -1;
      out.sites.push_back(site);
      out.candidate.decisions.push_back(decision);
    }
    if (options.cuda && !VerifyGPUCode(sch, options, &error, &out.lowered)) {
      out.error = error;
      return out;
    }
    out.schedule = std::move(sch);
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace wb::meta_schedule
