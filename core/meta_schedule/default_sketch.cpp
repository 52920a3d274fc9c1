#include "meta_schedule/default_sketch.h"

#include <algorithm>
#include <map>

#include "dlight/schedule_rule.h"
#include "ir/structural_equal.h"
#include "meta_schedule/postproc.h"
#include "meta_schedule/replay.h"
#include "schedule/recipe.h"
#include "tir/functor.h"

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
// to fill in) and a split by the sampled values. With `preserve_unit_loops`, every compute_at and
// reverse_compute_at keeps the unit loops it makes: a tile of 1 then leaves the loops a later
// get_loops of the rule's trace counts (without, a mutated tile of 1 removes one and the rest of
// the trace no longer applies: the replay fails).
Trace Rewrite(const Trace& trace, const std::vector<size_t>& convert, int64_t max_innermost,
              bool preserve_unit_loops) {
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
      Instruction inst = insts[i];
      if (preserve_unit_loops && (inst.method == "compute_at" || inst.method == "reverse_compute_at")) {
        if (TraceValue* p = ArgOf(inst, "preserve_unit_loops")) {
          *p = TraceValue::Bool(true);
        } else {
          inst.args.push_back({"preserve_unit_loops", TraceValue::Bool(true)});
        }
      }
      out.Append(std::move(inst));
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

// The trace replayed instruction by instruction (replay.h: no print and parse per candidate);
// read from its text where the replay does not convert a value.
schedule::Schedule Replay(const tir::PrimFunc& func, const Trace& trace, int64_t seed, std::string* error) {
  schedule::Schedule sch(dlight::SingleFunctionModule(func));
  sch.Seed(CandidateScheduleSeed(seed));
  if (ReplayTrace(sch, trace, error) != ReplayOutcome::kUnsupported) return sch;
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
  // Unit loops preserved where that replays to the default schedule too (it has no unit loop
  // that its compute_at steps remove), else as the rule wrote them.
  bool preserve = true;
  for (;;) {
    Trace rewritten = Rewrite(trace, convert, max_innermost_factor, preserve);
    std::string error;
    schedule::Schedule sch = Replay(func, rewritten, 1, &error);
    if (!error.empty()) {
      if (preserve) {
        preserve = false;
        continue;
      }
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
      if (preserve) {
        preserve = false;
        continue;
      }
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


namespace {

void MaxId(const TraceValue& v, TraceValue::Kind kind, int64_t* id) {
  if (v.kind == kind) *id = std::max(*id, v.i);
  for (const TraceValue& item : v.list) MaxId(item, kind, id);
}

int64_t NextId(const Trace& trace, TraceValue::Kind kind) {
  int64_t id = -1;
  for (const Instruction& inst : trace.instructions()) {
    for (const auto& a : inst.args) MaxId(a.value, kind, &id);
    for (const auto& o : inst.outputs) MaxId(o, kind, &id);
  }
  return id + 1;
}

bool UsesId(const TraceValue& v, TraceValue::Kind kind, int64_t id) {
  if (v.kind == kind && v.i == id) return true;
  for (const TraceValue& item : v.list) {
    if (UsesId(item, kind, id)) return true;
  }
  return false;
}

// Whether `loop` drives a reduction iterator of the first block under it and no data-parallel
// one (nullopt: no block under it).
std::optional<bool> IsReductionLoop(const tir::For& loop) {
  const tir::SBlockRealizeNode* realize = nullptr;
  tir::PostOrderVisit(loop->body, [&](const ir::Object* n) {
    if (!realize) realize = dynamic_cast<const tir::SBlockRealizeNode*>(n);
  });
  if (!realize) return std::nullopt;
  bool reduce = false, spatial = false;
  const auto& ivs = realize->block->iter_vars;
  for (size_t k = 0; k < ivs.size() && k < realize->iter_values.size(); ++k) {
    bool uses = false;
    tir::PostOrderVisit(realize->iter_values[k], [&](const ir::Object* n) { uses |= n == loop->loop_var.get(); });
    if (!uses) continue;
    (ivs[k]->iter_type == tir::IterVarType::kCommReduce ? reduce : spatial) = true;
  }
  return reduce && !spatial;
}

// Removes the queries (get_sblock, get_loops, get_consumers, get_producers) whose outputs
// nothing after them uses: a rule's trace ends with queries of the loops it made, whose number
// blocking changes.
Trace WithoutDeadQueries(const Trace& trace) {
  std::vector<Instruction> insts = trace.instructions();
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = insts.size(); i-- > 0;) {
      const std::string& m = insts[i].method;
      if (m != "get_sblock" && m != "get_loops" && m != "get_consumers" && m != "get_producers") continue;
      bool used = false;
      for (const TraceValue& o : insts[i].outputs) {
        for (size_t j = i + 1; j < insts.size() && !used; ++j) {
          for (const auto& a : insts[j].args) used |= UsesId(a.value, o.kind, o.i);
        }
      }
      if (used) continue;
      insts.erase(insts.begin() + static_cast<long>(i));
      changed = true;
    }
  }
  Trace out;
  for (Instruction& inst : insts) out.Append(std::move(inst));
  return out;
}

}  // namespace

std::optional<DefaultSketch> MakeBlockedSketch(const tir::PrimFunc& func, const DefaultSketch& sketch, std::string* why) {
  const std::vector<Instruction>& insts = sketch.trace.instructions();
  // The loops that a split made, and the split (with its sample_perfect_tile) that made each.
  std::map<int64_t, size_t> made_by;
  for (size_t i = 0; i < insts.size(); ++i) {
    if (insts[i].method != "split") continue;
    for (const TraceValue& o : insts[i].outputs) made_by[o.i] = i;
  }
  for (size_t r = 0; r < insts.size(); ++r) {
    if (insts[r].method != "reorder") continue;
    std::vector<int64_t> order;
    for (const auto& a : insts[r].args) {
      if (a.value.kind == TraceValue::Kind::kLoopRV) order.push_back(a.value.i);
    }
    // Which loops of the order are reduction loops: the trace up to the reorder replayed, its
    // loops read from the schedule (the replay's instructions are the sketch's, one for one).
    Trace prefix;
    for (size_t i = 0; i < r; ++i) prefix.Append(insts[i]);
    std::string error;
    schedule::Schedule sch = Replay(func, prefix, 1, &error);
    if (!error.empty() || sch.trace().instructions().size() != r) continue;
    std::map<int64_t, int64_t> to_replay;
    for (size_t i = 0; i < r; ++i) {
      const auto& mine = insts[i].outputs;
      const auto& theirs = sch.trace().instructions()[i].outputs;
      for (size_t j = 0; j < mine.size() && j < theirs.size(); ++j) {
        if (mine[j].kind == TraceValue::Kind::kLoopRV) to_replay[mine[j].i] = theirs[j].i;
      }
    }
    // The reduction loops no split made, one run of them in the order (p .. q).
    std::vector<size_t> reduce;
    for (size_t k = 0; k < order.size(); ++k) {
      if (made_by.count(order[k]) || !to_replay.count(order[k])) continue;
      std::optional<bool> red = IsReductionLoop(sch.Get(schedule::LoopRV{static_cast<int>(to_replay[order[k]])}));
      if (red && *red) reduce.push_back(k);
    }
    if (reduce.empty() || reduce.back() - reduce.front() + 1 != reduce.size()) continue;
    const size_t p = reduce.front(), q = reduce.back();
    // The sampled splits with parts on both sides of them: each gets a level between.
    std::map<size_t, size_t> widen;  // split instruction -> the index of its new factor
    for (size_t k = 0; k < p; ++k) {
      auto it = made_by.find(order[k]);
      if (it == made_by.end() || it->second == 0 || insts[it->second - 1].method != "sample_perfect_tile") continue;
      const Instruction& split = insts[it->second];
      size_t at = 0;
      while (at < split.outputs.size() && split.outputs[at].i != order[k]) ++at;
      bool inner_after = false;
      for (size_t j = at + 1; j < split.outputs.size(); ++j) {
        inner_after |= std::find(order.begin() + static_cast<long>(q) + 1, order.end(), split.outputs[j].i) != order.end();
      }
      if (inner_after) widen[it->second] = std::max(widen[it->second], at + 1);
    }
    int64_t next_loop = NextId(sketch.trace, TraceValue::Kind::kLoopRV);
    int64_t next_expr = NextId(sketch.trace, TraceValue::Kind::kExprRV);
    Trace out;
    std::vector<int64_t> mids;
    std::map<int64_t, std::pair<int64_t, int64_t>> parts;  // reduction loop -> (outer, inner)
    for (size_t i = 0; i < insts.size(); ++i) {
      Instruction inst = insts[i];
      if (i + 1 < insts.size() && widen.count(i + 1) && inst.method == "sample_perfect_tile") {
        // The sampler of a widened split: one factor more, 1 in the default.
        const size_t at = widen[i + 1];
        TraceValue* n = ArgOf(inst, "n");
        TraceValue* d = ArgOf(inst, "decision");
        if (!n || !d || d->kind != TraceValue::Kind::kList) return std::nullopt;
        ++n->i;
        d->list.insert(d->list.begin() + static_cast<long>(at), TraceValue::Int(1));
        inst.outputs.insert(inst.outputs.begin() + static_cast<long>(at), TraceValue::Expr(next_expr));
        Instruction widened = insts[i + 1];
        TraceValue* f = ArgOf(widened, "factors");
        if (!f) return std::nullopt;
        f->list.insert(f->list.begin() + static_cast<long>(at), TraceValue::Expr(next_expr++));
        widened.outputs.insert(widened.outputs.begin() + static_cast<long>(at), TraceValue::Loop(next_loop));
        mids.push_back(next_loop++);
        out.Append(std::move(inst));
        out.Append(std::move(widened));
        ++i;
        continue;
      }
      if (i == r) {
        // Each reduction loop split in two, the outer parts outside the new levels.
        for (size_t k = p; k <= q; ++k) {
          Instruction sample{"sample_perfect_tile",
                             {{"loop", TraceValue::Loop(order[k])},
                              {"n", TraceValue::Int(2)},
                              {"max_innermost_factor", TraceValue::Int(-1)},
                              {"decision", TraceValue::List({TraceValue::Int(1), TraceValue::Int(0)})}},
                             {TraceValue::Expr(next_expr), TraceValue::Expr(next_expr + 1)},
                             true};
          Instruction split{"split",
                            {{"loop", TraceValue::Loop(order[k])},
                             {"factors", TraceValue::List({TraceValue::Expr(next_expr), TraceValue::Expr(next_expr + 1)})},
                             {"preserve_unit_iters", TraceValue::Bool(true)},
                             {"disable_predication", TraceValue::Bool(false)}},
                            {TraceValue::Loop(next_loop), TraceValue::Loop(next_loop + 1)},
                            true};
          parts[order[k]] = {next_loop, next_loop + 1};
          next_expr += 2;
          next_loop += 2;
          out.Append(std::move(sample));
          out.Append(std::move(split));
        }
        std::vector<int64_t> now(order.begin(), order.begin() + static_cast<long>(p));
        for (size_t k = p; k <= q; ++k) now.push_back(parts[order[k]].first);
        now.insert(now.end(), mids.begin(), mids.end());
        for (size_t k = p; k <= q; ++k) now.push_back(parts[order[k]].second);
        now.insert(now.end(), order.begin() + static_cast<long>(q) + 1, order.end());
        Instruction reorder{"reorder", {}, {}, false};
        for (int64_t l : now) reorder.args.push_back({"", TraceValue::Loop(l)});
        out.Append(std::move(reorder));
        continue;
      }
      if (i > r) {
        // Later uses of a reduction loop: the init goes outside the outermost part, anything
        // else takes the inner part.
        for (auto& a : inst.args) {
          if (a.value.kind != TraceValue::Kind::kLoopRV || !parts.count(a.value.i)) continue;
          a.value.i = inst.method == "decompose_reduction" ? parts[order[p]].first : parts[a.value.i].second;
        }
      }
      out.Append(std::move(inst));
    }
    Trace blocked = WithoutDeadQueries(out);
    std::string error2;
    schedule::Schedule replayed = Replay(func, blocked, 1, &error2);
    if (!error2.empty()) {
      *why = "the blocked sketch does not replay: " + error2;
      return std::nullopt;
    }
    DefaultSketch result;
    result.trace = std::move(blocked);
    result.rule = sketch.rule;
    for (const Instruction& inst : replayed.trace().instructions()) {
      if (inst.method == "sample_perfect_tile") result.decisions.push_back(DecisionOf(inst));
    }
    return result;
  }
  *why = "the default schedule orders no unsplit reduction loop between its tiles";
  return std::nullopt;
}

SampledSchedule ApplyDefaultSketch(const tir::PrimFunc& func, const SpaceOptions& options,
                                   const DefaultSketch& sketch, const Candidate& candidate, int64_t seed) {
  SampledSchedule out;
  out.candidate.sketch = candidate.sketch;
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
