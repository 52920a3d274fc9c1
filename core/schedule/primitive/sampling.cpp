// sample_perfect_tile and sample_categorical (shared/SCHEDULE.md §2.10), and split by sampled
// factors. Sampling draws from TVM's Park-Miller generator (s = s * 48271 mod 2^31-1) seeded per
// schedule, so a schedule with the same seed samples the same values; the trace records each
// decision (`decision=[8, 16]`) and replaying a recorded decision reproduces it exactly, which is
// what makes a recipe with samplers deterministic.
//
// The mapping from generator states to choices is our own (TVM goes through libstdc++'s
// distributions), so the same seed does not give TVM's values; decisions, not seeds, are what
// travel between tools.
#include <algorithm>
#include <cstdio>
#include <numeric>

#include "schedule/recipe.h"
#include "schedule/schedule.h"

namespace wb::schedule {

using namespace tir;

namespace {

constexpr int64_t kModulus = 2147483647;  // 2^31 - 1

std::vector<int64_t> PrimeFactors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      out.push_back(p);
      n /= p;
    }
  }
  if (n > 1) out.push_back(n);
  return out;
}

std::string FloatText(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

}  // namespace

void Schedule::Seed(int64_t seed) {
  if (seed < 1 || seed > kModulus - 1) {
    throw std::invalid_argument("seed must be in [1, 2147483646], got " + std::to_string(seed));
  }
  rand_state_ = seed;
}

int64_t Schedule::NextRandom() {
  rand_state_ = rand_state_ * 48271 % kModulus;
  return rand_state_;
}

int64_t Schedule::SampleInt(int64_t lo, int64_t hi) {
  // [lo, hi): the high bits of the state are the better-mixed ones.
  double u = static_cast<double>(NextRandom() - 1) / static_cast<double>(kModulus - 1);
  int64_t v = lo + static_cast<int64_t>(u * static_cast<double>(hi - lo));
  return v >= hi ? hi - 1 : v;
}

int64_t Schedule::Get(const ExprRV& rv) const {
  if (rv.id < 0 || rv.id >= static_cast<int>(expr_values_.size())) {
    throw std::invalid_argument("The expression random variable is not defined in this schedule");
  }
  if (!expr_values_[rv.id]) {
    throw std::invalid_argument("The sampled value is undefined (the loop extent is not constant)");
  }
  return *expr_values_[rv.id];
}

Schedule::ExprRV Schedule::NewExprRV(std::optional<int64_t> value) {
  expr_values_.push_back(value);
  return ExprRV{static_cast<int>(expr_values_.size()) - 1};
}

std::vector<Schedule::ExprRV> Schedule::SamplePerfectTile(
    const LoopRV& loop_rv, int64_t n, int64_t max_innermost_factor,
    const std::optional<std::vector<int64_t>>& decision) {
  For loop = Get(loop_rv);
  if (n < 1) throw std::invalid_argument("sample_perfect_tile: n must be positive, got " +
                                         std::to_string(n));
  if (max_innermost_factor != -1 && max_innermost_factor < 1) {
    throw std::invalid_argument("sample_perfect_tile: max_innermost_factor must be positive or -1");
  }
  if (decision && static_cast<int64_t>(decision->size()) != n) {
    throw std::invalid_argument("sample_perfect_tile: the decision has " +
                                std::to_string(decision->size()) + " factors, but n is " +
                                std::to_string(n));
  }
  std::vector<int64_t> result;
  const auto* ext = loop->extent.as<IntImmNode>();
  if (!ext) {
    // TVM's answer for a symbolic extent: the outer factor unknown, the others 1.
    result.assign(n, 1);
    result[0] = -1;
  } else if (ext->value < 1) {
    throw std::invalid_argument("sample_perfect_tile: cannot tile a loop of extent " +
                                std::to_string(ext->value));
  } else if (decision) {
    // A recorded decision is kept when it still tiles the loop; otherwise it is repaired from
    // the innermost factor out, as TVM does on replay.
    result = *decision;
    int64_t remaining = ext->value;
    for (int64_t i = n - 1; i >= 1; --i) {
      if (result[i] < 1 || remaining % result[i] != 0) result[i] = remaining;
      remaining /= result[i];
    }
    result[0] = remaining;
  } else {
    std::vector<int64_t> primes = PrimeFactors(ext->value);
    if (max_innermost_factor != -1 && n == 1 && ext->value > max_innermost_factor) {
      throw std::invalid_argument("sample_perfect_tile: one factor cannot keep the innermost "
                                  "factor within " + std::to_string(max_innermost_factor));
    }
    // As TVM draws it: for each prime power p^e, the exponents of the n factors are a uniform
    // draw among the solutions of x_1 + ... + x_n = e (stars and bars: n - 1 bars among
    // e + n - 1 places, drawn without replacement), so that one factor takes a large power as
    // often as TVM's tiles do; retried until the innermost one is small enough (it always can
    // be: all primes outward is a valid draw when n >= 2).
    std::vector<std::pair<int64_t, int64_t>> powers;  // (prime, exponent)
    for (int64_t p : primes) {
      if (!powers.empty() && powers.back().first == p) {
        ++powers.back().second;
      } else {
        powers.push_back({p, 1});
      }
    }
    for (int attempt = 0;; ++attempt) {
      result.assign(n, 1);
      for (const auto& [p, e] : powers) {
        if (e == 1 || n == 1) {
          int64_t& f = result[SampleInt(0, n)];
          for (int64_t k = 0; k < e; ++k) f *= p;
          continue;
        }
        const int64_t places = e + n - 1;
        std::vector<int64_t> slots(places);
        for (int64_t k = 0; k < places; ++k) slots[k] = k;
        for (int64_t k = 0; k < n - 1; ++k) std::swap(slots[k], slots[SampleInt(k, places)]);
        std::vector<int64_t> bars(slots.begin(), slots.begin() + (n - 1));
        std::sort(bars.begin(), bars.end());
        bars.push_back(places);
        for (int64_t i = 0, last = -1; i < n; ++i) {
          for (int64_t k = 0; k < bars[i] - last - 1; ++k) result[i] *= p;
          last = bars[i];
        }
      }
      if (max_innermost_factor == -1 || result.back() <= max_innermost_factor) break;
      if (attempt > 10000) {
        result.assign(n, 1);
        result[0] = ext->value;
        break;
      }
    }
  }
  std::vector<ExprRV> out;
  Instruction inst{"sample_perfect_tile",
                   {{"loop", TraceValue::Loop(loop_rv.id)},
                    {"n", TraceValue::Int(n)},
                    {"max_innermost_factor", TraceValue::Int(max_innermost_factor)}},
                   {},
                   true};
  std::vector<TraceValue> decided;
  for (int64_t i = 0; i < n; ++i) {
    decided.push_back(TraceValue::Int(result[i]));
    bool unknown = result[i] == -1;
    out.push_back(NewExprRV(unknown ? std::nullopt : std::optional<int64_t>(result[i])));
    inst.outputs.push_back(unknown ? TraceValue::None() : TraceValue::Expr(out.back().id));
  }
  inst.args.push_back({"decision", TraceValue::List(decided)});
  Record(std::move(inst));
  return out;
}

Schedule::ExprRV Schedule::SampleCategorical(const std::vector<int64_t>& candidates,
                                             const std::vector<double>& probs,
                                             std::optional<int64_t> decision) {
  if (candidates.size() != probs.size()) {
    throw std::invalid_argument("sample_categorical: " + std::to_string(candidates.size()) +
                                " candidates but " + std::to_string(probs.size()) +
                                " probabilities");
  }
  if (candidates.empty()) throw std::invalid_argument("sample_categorical: no candidates");
  double total = 0;
  for (double p : probs) {
    if (!(p >= 0)) throw std::invalid_argument("sample_categorical: a probability is negative");
    total += p;
  }
  if (!(total > 0)) throw std::invalid_argument("sample_categorical: the probabilities sum to 0");
  int64_t index;
  if (decision) {
    index = *decision;
    if (index < 0 || index >= static_cast<int64_t>(candidates.size())) {
      throw std::invalid_argument("sample_categorical: the decision " + std::to_string(index) +
                                  " is not an index of the " + std::to_string(candidates.size()) +
                                  " candidates");
    }
  } else {
    double u = static_cast<double>(NextRandom() - 1) / static_cast<double>(kModulus - 1) * total;
    index = static_cast<int64_t>(candidates.size()) - 1;
    double acc = 0;
    for (size_t i = 0; i < probs.size(); ++i) {
      acc += probs[i];
      if (u < acc && probs[i] > 0) {
        index = static_cast<int64_t>(i);
        break;
      }
    }
  }
  ExprRV out = NewExprRV(candidates[index]);
  std::vector<TraceValue> cand, prob;
  for (int64_t c : candidates) cand.push_back(TraceValue::Int(c));
  for (double p : probs) prob.push_back(TraceValue::Raw(FloatText(p)));
  Record({"sample_categorical",
          {{"candidates", TraceValue::List(cand)},
           {"probs", TraceValue::List(prob)},
           {"decision", TraceValue::Int(index)}},
          {TraceValue::Expr(out.id)},
          false});
  return out;
}

std::vector<LoopRV> Schedule::SplitBy(const LoopRV& loop, const std::vector<Factor>& factors,
                                      bool preserve_unit_iters, bool disable_predication) {
  std::vector<std::optional<int64_t>> values;
  for (const Factor& f : factors) {
    if (auto* i = std::get_if<int64_t>(&f)) {
      values.push_back(*i);
    } else if (auto* e = std::get_if<ExprRV>(&f)) {
      values.push_back(Get(*e));
    } else {
      values.push_back(std::nullopt);
    }
  }
  std::vector<LoopRV> out = Split(loop, values, preserve_unit_iters, disable_predication);
  // Split recorded the values; the trace names the sampled ones instead, as TVM's does.
  Instruction& inst = trace_.Last();
  for (TraceArg& arg : inst.args) {
    if (arg.key != "factors") continue;
    for (size_t i = 0; i < factors.size() && i < arg.value.list.size(); ++i) {
      if (auto* e = std::get_if<ExprRV>(&factors[i])) arg.value.list[i] = TraceValue::Expr(e->id);
    }
  }
  return out;
}

}  // namespace wb::schedule

// --- recipe methods ------------------------------------------------------------------------------

namespace wb::schedule {
namespace {

std::vector<int64_t> IntList(RecipeArgs& args, const RecipeValue& v, const std::string& what) {
  if (v.kind != RecipeValue::Kind::kList) throw RecipeArgs::TypeError(v, what, "a list");
  std::vector<int64_t> out;
  for (const RecipeValue& item : v.list) out.push_back(args.IntOf(item, what));
  return out;
}

RecipeMethodRegistrar reg_sample_perfect_tile(
    "sample_perfect_tile",
    {{"loop", "n", "max_innermost_factor", "decision"}, false, RecipeReturns::kList,
     [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       std::optional<std::vector<int64_t>> decision;
       if (args.Has("decision")) decision = IntList(args, *args.Get("decision"), "decision");
       std::vector<Schedule::ExprRV> vs =
           sch.SamplePerfectTile(args.Loop("loop"), args.Int("n"),
                                 args.Int("max_innermost_factor", 16), decision);
       return std::vector<RecipeRV>(vs.begin(), vs.end());
     }},
    {"sampling",
     "sample factors that tile the loop perfectly",
     {{"loop", RecipeParamKind::kLoop, "the loop", ""},
      {"n", RecipeParamKind::kInt, "how many factors", ""},
      {"max_innermost_factor", RecipeParamKind::kInt, "the innermost factor's bound", "16"},
      {"decision", RecipeParamKind::kIntList, "the factors to take instead of sampling",
       "None"}}});

RecipeMethodRegistrar reg_sample_categorical(
    "sample_categorical",
    {{"candidates", "probs", "decision"}, false, RecipeReturns::kSingle,
     [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       std::vector<int64_t> candidates =
           IntList(args, args.Require("candidates"), "candidates");
       const RecipeValue& pv = args.Require("probs");
       if (pv.kind != RecipeValue::Kind::kList) throw RecipeArgs::TypeError(pv, "probs", "a list");
       std::vector<double> probs;
       for (const RecipeValue& p : pv.list) {
         if (p.kind == RecipeValue::Kind::kFloat) {
           probs.push_back(p.f);
         } else if (p.kind == RecipeValue::Kind::kInt) {
           probs.push_back(static_cast<double>(p.i));
         } else {
           throw RecipeArgs::TypeError(p, "a probability", "a number");
         }
       }
       std::optional<int64_t> decision;
       if (args.Has("decision")) decision = args.Int("decision");
       return {sch.SampleCategorical(candidates, probs, decision)};
     }},
    {"sampling",
     "sample one of the candidates",
     {{"candidates", RecipeParamKind::kIntList, "the candidates", ""},
      {"probs", RecipeParamKind::kFloatList, "their probabilities", ""},
      {"decision", RecipeParamKind::kInt, "the index to take instead of sampling", "None"}}});

}  // namespace
}  // namespace wb::schedule
