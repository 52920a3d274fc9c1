#include "meta_schedule/search.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>

#include "codegen/build.h"
#include "codegen/cuda/codegen_cuda.h"
#include "dlight/cpu/rules.h"
#include "dlight/gpu/rules.h"
#include "dlight/schedule_rule.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "meta_schedule/cost_model.h"
#include "meta_schedule/database.h"
#include "meta_schedule/default_sketch.h"
#include "meta_schedule/feature_extractor.h"
#include "meta_schedule/mutator.h"
#include "meta_schedule/schedule_rules.h"
#include "runtime/cuda/cuda_driver.h"
#include "schedule/recipe.h"
#include "tir/expr.h"
#include "workbench/isolated_build.h"

namespace wb::meta_schedule {

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

tir::PrimFunc MarkScheduled(tir::PrimFunc f) {
  f.CopyOnWrite()->attrs["tir.is_scheduled"] = ir::MakeBool(true);
  return f;
}

// A candidate applied: its schedule's function, trace, hash and features.
struct Scheduled {
  Candidate candidate;
  std::vector<SampleSite> sites;
  tir::PrimFunc func;
  std::string trace;
  uint64_t hash = 0;
  std::vector<float> features;
  ir::IRModule lowered;  // cuda: what VerifyGPUCode lowered
  bool random = false;   // a random sample of the design space, or a mutation of one (Evolve)
};

std::optional<Scheduled> Realize(const TuneTask& task, const SpaceOptions& space, const Candidate& c,
                                 int64_t seed) {
  SampledSchedule s = ApplyDesignSpace(task.func, space, c, seed);
  if (!s.schedule) return std::nullopt;
  Scheduled out;
  out.candidate = s.candidate;
  out.sites = s.sites;
  out.func = MarkScheduled(s.schedule->Func());
  out.trace = s.schedule->trace().AsPython();
  out.hash = ir::StructuralHash(out.func);
  out.features = ExtractFeatures(out.func);
  out.lowered = s.lowered;
  return out;
}

// The decisions a record's trace holds, in the order the rules sample them.
std::vector<std::vector<int64_t>> DecisionsOf(const schedule::Trace& trace) {
  std::vector<std::vector<int64_t>> out;
  for (const schedule::Instruction& inst : trace.instructions()) {
    if (inst.method == "sample_perfect_tile" || inst.method == "sample_categorical") {
      for (const schedule::TraceArg& arg : inst.args) {
        if (arg.key != "decision") continue;
        std::vector<int64_t> d;
        if (arg.value.kind == schedule::TraceValue::Kind::kList) {
          for (const auto& v : arg.value.list) d.push_back(v.i);
        } else {
          d.push_back(arg.value.i);
        }
        out.push_back(d);
      }
    } else if (inst.method == "annotate") {
      bool parallel = false;
      int64_t value = 0;
      for (const schedule::TraceArg& arg : inst.args) {
        if (arg.key == "ann_key") parallel = arg.value.s == "meta_schedule.parallel";
        if (arg.key == "ann_val") value = arg.value.i;
      }
      if (parallel) out.push_back({value});
    }
  }
  return out;
}

// The candidate of the design space that a record's trace is, or nullopt (a default schedule's
// trace, or a record made by another design space).
std::optional<Scheduled> FromRecord(const TuneTask& task, const SpaceOptions& space, int sketches,
                                    const std::string& trace) {
  schedule::Schedule replay(dlight::SingleFunctionModule(task.func));
  if (!schedule::ApplyRecipe(replay, trace).empty()) return std::nullopt;
  Candidate c;
  c.decisions = DecisionsOf(replay.trace());
  for (int s = space.blocked_sketch ? kBlockedSketch : space.default_sketch ? kDefaultSketch : 0; s < sketches; ++s) {
    c.sketch = s;
    std::optional<Scheduled> r = Realize(task, space, c, 1);
    if (r && ir::StructuralEqual(r->func->body, replay.Func()->body)) return r;
  }
  return std::nullopt;
}

bool DynamicShape(const tir::PrimFunc& f) {
  for (const auto& b : f->buffer_map) {
    if (!b.defined()) return true;
    for (const auto& d : b->shape) {
      if (!tir::AsConstInt(d)) return true;
    }
  }
  return false;
}

struct TaskState {
  const TuneTask* task = nullptr;
  size_t index = 0;
  SpaceOptions space;
  int sketches = 1;
  std::mt19937_64 rng;
  std::unique_ptr<XGBoostCostModel> model;
  std::set<uint64_t> seen;  // measured (or recorded) candidates
  std::vector<std::pair<Scheduled, double>> good;  // measured, with their seconds
  // Parents of mutations beside the measured ones: the blocked default sketch's candidate with
  // the default's decisions (SeedWithDefault), measured in the task's first batch.
  std::vector<Scheduled> parents;
  Outputs expected;
  std::optional<size_t> workload;
  TaskReport report;
  bool active = true;
  bool measured_default = false;  // the default schedule ran and checked
  tir::PrimFunc baseline;         // the default schedule (or the function as written)
  std::string baseline_trace;     // its trace; empty: the function as written
};

class Tuner {
 public:
  Tuner(const TuneOptions& options, const codegen::Target& target, std::optional<JSONDatabase> db,
        const workbench::CancellationToken& token, const TuneProgressFn& progress, TuneResult* result)
      : options_(options), target_(target), key_(DatabaseTarget(target)), db_(std::move(db)), token_(token),
        progress_(progress), result_(result), start_(Clock::now()) {
    if (options.builder) {
      builder_ = options.builder;
    } else if (!options.runner) {
      builder_ = BuildInChildren(options.target, options.build_jobs, options.build_timeout_s);
    }
    runner_ = options.runner ? options.runner : MeasureWithRunCheck(options.target, options.timing);
  }

  void Run(const std::vector<TuneTask>& tasks) {
    std::vector<TaskState> states(tasks.size());
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (token_.cancelled()) break;
      Init(states[i], tasks[i], i);
    }
    // TVM's gradient-based task scheduler: a round-robin warm-up (one batch per task, a small
    // budget shared among them), then the task of the largest weighted gradient each time.
    std::vector<std::vector<double>> history(states.size());  // best latency after each batch
    size_t warm = 0;
    while (result_->trials < options_.max_trials && !token_.cancelled()) {
      std::optional<size_t> pick;
      int warming = 0;
      for (size_t i = warm; i < states.size(); ++i) warming += states[i].active ? 1 : 0;
      while (warm < states.size() && !pick) {
        if (states[warm].active) pick = warm;
        ++warm;
      }
      if (!pick) pick = NextByGradient(states, history);
      if (!pick) break;
      TaskState& st = states[*pick];
      int n = std::min(options_.num_trials_per_iter, options_.max_trials - result_->trials);
      if (warming > 0) n = std::min(n, std::max(1, (options_.max_trials - result_->trials) / warming));
      std::vector<Scheduled> batch = NextBatch(st, n);
      result_->batches.push_back(static_cast<int>(*pick));
      if (batch.empty()) {
        st.active = false;
        if (st.report.message.empty()) st.report.message = "the design space has no new candidate";
        continue;
      }
      std::vector<BuildInput> inputs;
      for (const Scheduled& s : batch) inputs.push_back({s.func, s.lowered});
      std::vector<BuiltCandidate> built = Build(inputs);
      std::vector<std::vector<float>> features;
      std::vector<double> seconds;
      for (size_t i = 0; i < batch.size(); ++i) {
        if (token_.cancelled() || result_->trials >= options_.max_trials) break;
        const Scheduled& s = batch[i];
        std::optional<double> t = MeasureCandidate(st, s, built[i]);
        ++result_->trials;
        features.push_back(s.features);
        seconds.push_back(t.value_or(0));
        Report(st);
      }
      history[*pick].push_back(st.report.best_s.value_or(kFailedRunSeconds));
      auto t0 = Clock::now();
      st.model->Update(features, seconds);
      result_->model_s += Since(t0);
    }
    // No task is left out silently.
    for (TaskState& st : states) {
      if (st.task && st.active && st.report.trials == 0 && st.report.message.empty()) {
        st.report.message = token_.cancelled() ? "cancelled before its first batch"
                                               : "the trial budget was spent before its first batch";
      }
    }
    if (!token_.cancelled() && options_.verify_top_k > 0 && options_.verify_rounds > 0) {
      for (TaskState& st : states) {
        if (token_.cancelled()) break;
        if (st.task && st.measured_default) Verify(st);
      }
    }
    result_->cancelled = token_.cancelled();
    for (TaskState& st : states) {
      if (st.task) result_->tasks.push_back(st.report);
    }
  }

 private:
  void Init(TaskState& st, const TuneTask& task, size_t index) {
    st.task = &task;
    st.index = index;
    st.space = DefaultSpaceOptions(target_);
    st.rng.seed(options_.seed * 1000003u + index);
    st.model = std::make_unique<XGBoostCostModel>(options_.seed + index, options_.cost_model_min_train);
    st.report.name = task.name;
    st.report.weight = task.weight;
    st.report.flops = task.flops;
    if (DynamicShape(task.func)) {
      st.active = false;
      st.report.message = "symbolic shapes: not tuned, the default schedule applies";
      return;
    }
    st.sketches = NumSketches(task.func, st.space);
    if (db_) {
      std::string error;
      // Keyed as ApplyDatabase looks it up, whatever symbol the task's function carries.
      st.workload = db_->CommitWorkload(WorkloadFunc(task.func), &error);
      if (!st.workload) result_->warnings.push_back(error);
    }
    // The default schedule: the baseline, and the carrier of the checked outputs.
    std::optional<dlight::AppliedRule> applied = dlight::ApplyRules(
        task.func, target_, target_.is_cuda() ? dlight::gpu::DefaultRules() : dlight::cpu::DefaultRules());
    tir::PrimFunc baseline = applied ? MarkScheduled(applied->schedule.Func()) : task.func;
    // Its checked run also runs the reference (for large work, the unscheduled module compiled).
    Measurement m = Measure(Build({{baseline, {}}})[0], task.func, {}, {10 * options_.timeout_s, 0});
    if (!m.result.ok()) {
      st.active = false;
      st.report.message = "the default schedule does not run and check: " +
                          std::string(workbench::RunStatusName(m.result.status)) + ": " + m.result.message;
      return;
    }
    st.expected = m.result.outputs;
    st.measured_default = true;
    st.baseline = baseline;
    st.baseline_trace = applied ? applied->schedule.trace().AsPython() : "";
    st.report.default_s = m.result.median_s();
    // The default schedule is the first candidate: the best until one beats it.
    st.report.best_s = st.report.default_s;
    if (applied) st.report.best_trace = applied->schedule.trace().AsPython();
    if (applied) Record(st, applied->schedule.trace().AsPython(), m.result);
    st.seen.insert(ir::StructuralHash(baseline));
    if (applied) SeedWithDefault(st, *applied, baseline);
    // The database's best candidates of this design space seed the population.
    if (st.workload) {
      for (const TuningRecord& r : db_->TopK(*st.workload, key_, 16)) {
        auto t0 = Clock::now();
        std::optional<Scheduled> s = FromRecord(task, st.space, st.sketches, r.trace);
        result_->generate_s += Since(t0);
        if (!s || st.seen.count(s->hash)) continue;
        st.seen.insert(s->hash);
        st.good.push_back({*s, r.mean_s()});
        st.model->Update({s->features}, {r.mean_s()});
        if (!st.report.best_s || r.mean_s() < *st.report.best_s) {
          st.report.best_s = r.mean_s();
          st.report.best_trace = r.trace;
        }
      }
    }
  }

  // The default schedule as a candidate of its own sketch (default_sketch.h), measured already:
  // the population starts from it, and its tiles are what the mutators change first.
  void SeedWithDefault(TaskState& st, const dlight::AppliedRule& applied, const tir::PrimFunc& baseline) {
    auto t0 = Clock::now();
    std::string why;
    std::optional<DefaultSketch> sketch =
        MakeDefaultSketch(st.task->func, applied.schedule, applied.rule, st.space.max_innermost_factor, &why);
    std::optional<Scheduled> seed;
    if (sketch) {
      st.space.default_sketch = std::make_shared<const DefaultSketch>(std::move(*sketch));
      Candidate c;
      c.sketch = kDefaultSketch;
      c.decisions = st.space.default_sketch->decisions;
      seed = Realize(*st.task, st.space, c, 1);
      if (!seed || seed->hash != ir::StructuralHash(baseline)) {
        why = "the default schedule's sketch does not give the default schedule";
        seed.reset();
        st.space.default_sketch.reset();
      }
    }
    result_->generate_s += Since(t0);
    if (!seed) {
      st.report.seed_message = why;
      return;
    }
    st.good.push_back({*seed, *st.report.default_s});
    st.model->Update({seed->features}, {*st.report.default_s});
    st.report.seeded = true;
    // The default with its reduction blocked: its candidate with the default's decisions computes
    // as the default does (with unit loops); its mutations block the reduction.
    t0 = Clock::now();
    std::optional<DefaultSketch> blocked = MakeBlockedSketch(st.task->func, *st.space.default_sketch, &why);
    if (blocked) {
      st.space.blocked_sketch = std::make_shared<const DefaultSketch>(std::move(*blocked));
      Candidate c;
      c.sketch = kBlockedSketch;
      c.decisions = st.space.blocked_sketch->decisions;
      std::optional<Scheduled> b = Realize(*st.task, st.space, c, 1);
      if (b) {
        st.parents.push_back(*b);
        st.report.blocked = true;
      } else {
        st.space.blocked_sketch.reset();
        why = "the blocked sketch's default candidate does not apply";
      }
    }
    if (!st.report.blocked) st.report.blocked_message = why;
    result_->generate_s += Since(t0);
  }

  // The batch built by the builder (in parallel); without one, handed over unbuilt.
  std::vector<BuiltCandidate> Build(const std::vector<BuildInput>& inputs) {
    if (!builder_) {
      std::vector<BuiltCandidate> out;
      for (const BuildInput& in : inputs) out.push_back({in.func, nullptr, "", 0});
      return out;
    }
    auto t0 = Clock::now();
    std::vector<BuiltCandidate> out = builder_(inputs, token_);
    const double wall = Since(t0);
    result_->build_s += wall;
    result_->measure_s += wall;
    for (const BuiltCandidate& b : out) result_->build_cpu_s += b.build_s;
    return out;
  }

  // The run limits of a candidate of `st` (search.h: slow_limit).
  RunLimits LimitsOf(const TaskState& st) const {
    RunLimits limits{options_.timeout_s, 0};
    if (options_.slow_limit <= 0 || !st.report.best_s) return limits;
    const workbench::TimingOptions& t = options_.timing;
    // The checked call, the warm-up, the timed calls (at least min_repeat_ms a sample).
    const double at_best =
        (2 + t.number * t.repeat) * *st.report.best_s + t.repeat * t.min_repeat_ms / 1e3;
    limits.timeout_s = std::min(options_.timeout_s, 2 + options_.slow_limit * at_best);
    // A call shorter than a sample's minimum is not cut: timing it in full costs little, while its
    // checked call, the first and cold, is often several times a small kernel's warm best (the
    // MLP's kernels were all cut, each timed by that cold call alone).
    limits.slow_call_s = std::max(options_.slow_limit * *st.report.best_s, t.min_repeat_ms / 1e3);
    return limits;
  }

  // A built candidate's run; one whose build failed is that failure, not run.
  Measurement Measure(const BuiltCandidate& built, const tir::PrimFunc& original,
                      const Outputs& expected, const RunLimits& limits) {
    Measurement m;
    if (!built.error.empty()) {
      m.result.name = "main";
      m.result.status =
          token_.cancelled() ? workbench::RunStatus::kCancelled : workbench::RunStatus::kFailed;
      m.result.message = "build failed: " + built.error;
      return m;
    }
    m = runner_(built, original, expected, limits, token_);
    result_->measure_s += m.run_s;
    result_->run_s += m.run_s;
    return m;
  }

  void Record(TaskState& st, const std::string& trace, const workbench::FunctionResult& r) {
    if (!db_ || !st.workload) return;
    TuningRecord rec;
    rec.workload = *st.workload;
    rec.trace = trace;
    rec.run_secs = r.ok() && !r.samples_s.empty() ? r.samples_s : std::vector<double>{kFailedRunSeconds};
    rec.target = key_;
    rec.args_info = JSONDatabase::ArgsInfo(st.task->func);
    std::string error;
    if (!db_->CommitRecord(rec, &error)) result_->warnings.push_back(error);
  }

  std::optional<double> MeasureCandidate(TaskState& st, const Scheduled& s,
                                         const BuiltCandidate& built) {
    st.seen.insert(s.hash);
    result_->measured.push_back(s.hash);
    const RunLimits limits = LimitsOf(st);
    Measurement m = Measure(built, st.task->func, st.expected, limits);
    ++st.report.trials;
    if (s.candidate.sketch == kDefaultSketch) ++st.report.default_sketch_trials;
    if (s.candidate.sketch == kBlockedSketch) ++st.report.blocked_sketch_trials;
    if (m.result.status == workbench::RunStatus::kCancelled) return std::nullopt;
    Record(st, s.trace, m.result);
    if (!m.result.ok() || m.result.samples_s.empty()) {
      ++st.report.failed;
      if (m.result.status == workbench::RunStatus::kTimedOut && limits.timeout_s < options_.timeout_s)
        ++st.report.too_slow;
      return std::nullopt;
    }
    if (m.result.too_slow) ++st.report.too_slow;
    double t = m.result.median_s();
    st.good.push_back({s, t});
    if (!st.report.best_s || t < *st.report.best_s) {
      st.report.best_s = t;
      st.report.best_trace = s.trace;
    }
    return t;
  }

  void Report(const TaskState& st) {
    if (!progress_) return;
    TuneProgress p;
    p.task = st.task->name;
    p.trial = result_->trials;
    p.total = options_.max_trials;
    p.best_s = st.report.best_s;
    double elapsed = Since(start_);
    p.eta_s = p.trial > 0 ? elapsed / p.trial * (p.total - p.trial) : 0;
    progress_(p);
  }

  std::vector<Scheduled> NextBatch(TaskState& st, int n) {
    auto t0 = Clock::now();
    std::vector<Scheduled> batch = Evolve(st, n);
    result_->generate_s += Since(t0);
    return batch;
  }

  std::vector<double> Score(TaskState& st, const std::vector<Scheduled>& pop) {
    auto t0 = Clock::now();
    std::vector<std::vector<float>> f;
    for (const auto& s : pop) f.push_back(s.features);
    std::vector<double> scores = st.model->Predict(f);
    result_->model_s += Since(t0);
    return scores;
  }

  std::vector<Scheduled> Evolve(TaskState& st, int n) {
    const int population = std::max(options_.population_size, n);
    std::map<uint64_t, Scheduled> pool;  // unmeasured candidates seen in this batch
    std::vector<Scheduled> randoms;
    std::vector<Scheduled> pop;
    std::set<uint64_t> in_pop;
    // The best measured ones first.
    std::vector<std::pair<Scheduled, double>> good = st.good;
    std::stable_sort(good.begin(), good.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
    size_t keep = static_cast<size_t>(options_.init_measured_ratio * population);
    for (size_t i = 0; i < good.size() && i < keep; ++i) {
      if (in_pop.insert(good[i].first.hash).second) pop.push_back(good[i].first);
    }
    std::vector<Mutator> mutators = DefaultMutators(st.space);
    std::vector<double> mprobs;
    for (const Mutator& m : mutators) mprobs.push_back(m.probability);
    std::discrete_distribution<size_t> which(mprobs.begin(), mprobs.end());
    // Fewer measured candidates than their share (the first batches: the default schedule alone):
    // the share is filled with their mutations, so that the search explores around what it knows
    // is good instead of leaving it one parent among random samples.
    std::vector<Scheduled> parents = pop;
    parents.insert(parents.end(), st.parents.begin(), st.parents.end());
    for (size_t attempt = 0; !parents.empty() && pop.size() < keep && attempt < 4 * keep; ++attempt) {
      const Scheduled& parent = parents[attempt % parents.size()];
      std::optional<Candidate> c = mutators[which(st.rng)].apply(parent.candidate, parent.sites, st.rng);
      if (!c) continue;
      std::optional<Scheduled> child = Realize(*st.task, st.space, *c, static_cast<int64_t>(st.rng() % 2147483645));
      if (!child || !in_pop.insert(child->hash).second) continue;
      if (!st.seen.count(child->hash)) pool.emplace(child->hash, *child);
      pop.push_back(*child);
    }
    for (int attempt = 0; static_cast<int>(pop.size()) < population && attempt < 4 * population; ++attempt) {
      Candidate c;
      c.sketch = static_cast<int>(st.rng() % static_cast<uint64_t>(st.sketches));
      std::optional<Scheduled> s = Realize(*st.task, st.space, c, static_cast<int64_t>(st.rng() % 2147483645));
      if (!s || !in_pop.insert(s->hash).second) continue;
      s->random = true;
      if (!st.seen.count(s->hash)) {
        pool.emplace(s->hash, *s);
        randoms.push_back(*s);
      }
      pop.push_back(*s);
    }
    if (pop.empty()) return {};
    std::uniform_real_distribution<double> u(0, 1);
    for (int iter = 0; iter < options_.genetic_num_iters; ++iter) {
      std::vector<double> scores = Score(st, pop);
      for (double& s : scores) s = std::max(s, 1e-6);
      std::discrete_distribution<size_t> pick(scores.begin(), scores.end());
      std::vector<Scheduled> next;
      std::set<uint64_t> in_next;
      for (int tries = 0; static_cast<int>(next.size()) < population && tries < 2 * population; ++tries) {
        const Scheduled& parent = pop[pick(st.rng)];
        std::optional<Scheduled> child;
        if (u(st.rng) < options_.genetic_mutate_prob) {
          const Mutator& m = mutators[which(st.rng)];
          std::optional<Candidate> c = m.apply(parent.candidate, parent.sites, st.rng);
          if (c) child = Realize(*st.task, st.space, *c, static_cast<int64_t>(st.rng() % 2147483645));
          if (child) child->random = parent.random;
        }
        const Scheduled& chosen = child ? *child : parent;
        if (!in_next.insert(chosen.hash).second) continue;
        if (!st.seen.count(chosen.hash)) pool.emplace(chosen.hash, chosen);
        next.push_back(chosen);
      }
      if (!next.empty()) pop = std::move(next);
    }
    // The best predicted unmeasured candidates, a few random ones among them.
    std::vector<Scheduled> unmeasured;
    for (auto& [h, s] : pool) unmeasured.push_back(s);
    // Deterministic order before scoring: the pool is keyed by hash.
    std::vector<double> scores = Score(st, unmeasured);
    std::vector<size_t> order(unmeasured.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    int num_random = static_cast<int>(options_.eps_greedy * n + 0.5);
    std::vector<Scheduled> batch;
    std::set<uint64_t> chosen;
    // Seeded by the default schedule, and the cost model not trained yet (its ranking is a random
    // draw): the best predicted come from the seeds' neighbourhood (their mutations), random
    // samples of the design space only in the eps-greedy share (and where the neighbourhood runs
    // short). Random samples are mostly 10-20x slower than the default: ranked at random, they
    // filled three quarters of the first batches, each a cut, slow run.
    const bool neighbourhood = st.report.seeded && !st.model->trained();
    for (size_t i : order) {
      if (static_cast<int>(batch.size()) >= n - num_random) break;
      if (neighbourhood && unmeasured[i].random) continue;
      if (chosen.insert(unmeasured[i].hash).second) batch.push_back(unmeasured[i]);
    }
    // The parents not measured yet (the blocked sketch's default candidate) go first: measured,
    // they join the population by their own times and the cost model learns their sketch.
    for (const Scheduled& p : st.parents) {
      if (st.seen.count(p.hash) || !chosen.insert(p.hash).second) continue;
      batch.insert(batch.begin(), p);
      if (static_cast<int>(batch.size()) > n) {
        chosen.erase(batch.back().hash);
        batch.pop_back();
      }
    }
    std::shuffle(randoms.begin(), randoms.end(), st.rng);
    for (const Scheduled& s : randoms) {
      if (static_cast<int>(batch.size()) >= n) break;
      if (chosen.insert(s.hash).second) batch.push_back(s);
    }
    for (size_t i : order) {
      if (static_cast<int>(batch.size()) >= n) break;
      if (chosen.insert(unmeasured[i].hash).second) batch.push_back(unmeasured[i]);
    }
    return batch;
  }

  // TVM's gradient: for each active task, alpha * (the best latency `window` batches ago - the
  // best now) / window + (1 - alpha) * best / batches, times the task's weight; the largest
  // wins (the first on ties). A task without a valid latency is not picked. nullopt: no task
  // is active.
  std::optional<size_t> NextByGradient(const std::vector<TaskState>& states,
                                       const std::vector<std::vector<double>>& history) const {
    constexpr double kAlpha = 0.2;
    constexpr size_t kWindow = 3;
    std::optional<size_t> best;
    double best_grad = 0;
    for (size_t i = 0; i < states.size(); ++i) {
      if (!states[i].active) continue;
      const std::vector<double>& h = history[i];
      double g = -1e9;
      if (!h.empty() && h.back() < kFailedRunSeconds) {
        const size_t n = h.size();
        double g1 = n >= 1 + kWindow ? (h[n - 1 - kWindow] - h.back()) / kWindow : 0.0;
        double g2 = h.back() / static_cast<double>(n);
        g = (kAlpha * g1 + (1 - kAlpha) * g2) * states[i].report.weight;
      }
      if (!best || g > best_grad) {
        best = i;
        best_grad = g;
      }
    }
    return best;
  }

  // The closing re-measurement (search.h): the best candidates and the default schedule,
  // interleaved round by round; the winner is the task's verified choice.
  void Verify(TaskState& st) {
    struct Finalist {
      tir::PrimFunc func;
      ir::IRModule lowered;
      std::string trace;
      std::vector<double> medians;  // one per round that ran and checked
      bool failed = false;
    };
    std::vector<Finalist> finalists;
    finalists.push_back({st.baseline, {}, st.baseline_trace, {}, false});
    std::vector<std::pair<Scheduled, double>> good = st.good;
    std::stable_sort(good.begin(), good.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
    std::set<uint64_t> taken = {ir::StructuralHash(st.baseline)};
    for (const auto& [s, t] : good) {
      if (static_cast<int>(finalists.size()) > options_.verify_top_k) break;
      if (taken.insert(s.hash).second) finalists.push_back({s.func, s.lowered, s.trace, {}, false});
    }
    st.report.search_best_s = st.report.best_s;
    if (finalists.size() < 2) return;
    std::vector<BuildInput> inputs;
    for (const Finalist& f : finalists) inputs.push_back({f.func, f.lowered});
    // Built once for every round.
    std::vector<BuiltCandidate> built = Build(inputs);
    for (int round = 0; round < options_.verify_rounds; ++round) {
      for (size_t k = 0; k < finalists.size(); ++k) {
        if (token_.cancelled()) return;
        const size_t i = (k + round) % finalists.size();
        Finalist& f = finalists[i];
        if (f.failed) continue;
        Measurement m = Measure(built[i], st.task->func, st.expected, {options_.timeout_s, 0});
        ++result_->verify_runs;
        if (m.result.status == workbench::RunStatus::kCancelled) return;
        if (!f.trace.empty()) Record(st, f.trace, m.result);
        if (!m.result.ok() || m.result.samples_s.empty()) {
          f.failed = true;  // a flaky candidate: never chosen
          ++st.report.failed;
          continue;
        }
        f.medians.push_back(m.result.median_s());
      }
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      size_t n = v.size();
      return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    };
    const Finalist* best = nullptr;
    double best_s = 0;
    for (const Finalist& f : finalists) {
      if (f.failed || f.medians.empty()) continue;
      double t = median(f.medians);
      if (!best || t < best_s) {
        best = &f;
        best_s = t;
      }
    }
    if (!best) return;
    const Finalist& dflt = finalists[0];
    if (!dflt.failed && !dflt.medians.empty()) st.report.default_s = median(dflt.medians);
    st.report.best_s = best_s;
    st.report.best_trace = best->trace;
    st.report.verified = true;
    if (!db_ || !st.workload) return;
    TuningRecord rec;
    rec.workload = *st.workload;
    rec.trace = best->trace;
    rec.run_secs = best->medians;
    rec.target = key_;
    rec.args_info = JSONDatabase::ArgsInfo(st.task->func);
    std::string error;
    if (!db_->CommitVerified(rec, &error)) result_->warnings.push_back(error);
  }

  const TuneOptions& options_;
  codegen::Target target_;
  std::string key_;  // DatabaseTarget(target_)
  std::optional<JSONDatabase> db_;
  workbench::CancellationToken token_;
  TuneProgressFn progress_;
  TuneResult* result_;
  BuilderFn builder_;  // empty: candidates go to the runner unbuilt
  RunnerFn runner_;
  Clock::time_point start_;
};

}  // namespace

bool SpaceSummary::ok() const {
  if (sketches.empty()) return false;
  for (const SketchSummary& s : sketches) {
    if (s.valid == 0 || (built && s.compiled == 0)) return false;
  }
  return true;
}

std::vector<SpaceSummary> VerifyDesignSpace(const ExtractedTasks& tasks, const codegen::Target& target,
                                            uint64_t seed, int samples) {
  std::vector<SpaceSummary> out;
  const SpaceOptions space = DefaultSpaceOptions(target);
  for (size_t t = 0; t < tasks.tasks.size(); ++t) {
    const TuneTask& task = tasks.tasks[t];
    SpaceSummary summary;
    summary.task = task.name;
    if (DynamicShape(task.func)) {
      summary.message = "symbolic shapes: not tuned, the default schedule applies";
      out.push_back(summary);
      continue;
    }
    std::mt19937_64 rng(seed * 1000003u + t);
    summary.built = !target.is_cuda() || codegen::NvrtcAvailable();
    const int sketches = NumSketches(task.func, space);
    for (int k = 0; k < sketches; ++k) {
      SketchSummary sk;
      sk.sketch = k;
      std::set<uint64_t> hashes;
      // Drawn until `samples` are valid, at most 16 times as many: a GPU space rejects most random
      // tilings by its thread limits.
      while (sk.valid < samples && sk.sampled < 16 * samples) {
        Candidate c;
        c.sketch = k;
        SampledSchedule s = ApplyDesignSpace(task.func, space, c, static_cast<int64_t>(rng() % 2147483645));
        ++sk.sampled;
        if (!s.schedule) {
          if (sk.first_error.empty()) sk.first_error = s.error;
          continue;
        }
        ++sk.valid;
        tir::PrimFunc f = MarkScheduled(s.schedule->Func());
        hashes.insert(ir::StructuralHash(f));
        if (sk.trace.empty()) sk.trace = s.schedule->trace().AsPython();
        if (!summary.built) continue;
        codegen::BuildOptions build;
        build.default_schedule = false;
        // A cuda candidate: the module VerifyGPUCode lowered, which the build does not lower again.
        codegen::BuildResult built = codegen::Build(
            s.lowered.defined() ? s.lowered : dlight::SingleFunctionModule(f), target, build);
        if (built.ok()) {
          ++sk.compiled;
        } else if (sk.first_error.empty()) {
          sk.first_error = "build failed: " + RenderDiagnostics(built.diagnostics);
        }
      }
      sk.distinct = static_cast<int>(hashes.size());
      summary.sketches.push_back(sk);
    }
    out.push_back(summary);
  }
  return out;
}

std::optional<double> TaskReport::gflops() const {
  if (!best_s || flops <= 0) return std::nullopt;
  return flops / *best_s / 1e9;
}

std::optional<double> TaskReport::speedup() const {
  if (!best_s || !default_s) return std::nullopt;
  return *default_s / *best_s;
}

BuilderFn BuildInChildren(const std::string& target_text, int jobs, double timeout_s) {
  return [=](const std::vector<BuildInput>& batch, const workbench::CancellationToken& token) {
    std::vector<BuiltCandidate> out;
    for (const BuildInput& in : batch) out.push_back({in.func, nullptr, "", 0});
    std::string error;
    std::optional<codegen::Target> target = codegen::ParseTarget(target_text, &error);
    if (!target) {
      for (BuiltCandidate& b : out) b.error = "target '" + target_text + "': " + error;
      return out;
    }
    std::vector<ir::IRModule> modules;
    for (const BuildInput& in : batch) {
      modules.push_back(in.lowered.defined() ? in.lowered : dlight::SingleFunctionModule(in.func));
    }
    workbench::IsolatedBuildOptions options;
    options.jobs = jobs;
    options.timeout_s = timeout_s;
    // A candidate is scheduled: no default schedule over it.
    options.default_schedule = false;
    std::vector<workbench::IsolatedBuild> built =
        workbench::CompileIsolated(modules, *target, options, token);
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].build_s = built[i].seconds;
      if (!built[i].compiled.ok()) {
        out[i].error = RenderDiagnostics(built[i].compiled.diagnostics);
        continue;
      }
      // What the run reads its functions and parameters from: the scheduled function.
      built[i].compiled.source = dlight::SingleFunctionModule(batch[i].func);
      out[i].compiled =
          std::make_shared<const workbench::CompiledModule>(std::move(built[i].compiled));
    }
    return out;
  };
}

RunnerFn MeasureWithRunCheck(const std::string& target_text,
                             const workbench::TimingOptions& timing) {
  return [=](const BuiltCandidate& built, const tir::PrimFunc& original, const Outputs& expected,
             const RunLimits& limits, const workbench::CancellationToken& token) {
    Measurement m;
    m.result.name = "main";
    workbench::RunCheckRequest req;
    req.module = dlight::SingleFunctionModule(built.func);
    req.reference_module = dlight::SingleFunctionModule(original);
    req.target = target_text;
    req.functions = {"main"};
    req.reference = expected.empty() ? workbench::ReferenceKind::kAuto : workbench::ReferenceKind::kNone;
    req.profile = true;
    req.timing = timing;
    req.isolate = true;
    req.timeout_s = limits.timeout_s;
    req.slow_call_s = limits.slow_call_s;
    // A candidate is checked in its child against the default schedule's outputs; only the
    // default schedule's run (checked by the reference) brings its outputs back.
    req.keep_outputs = expected.empty();
    if (!expected.empty()) req.expected_outputs = std::make_shared<const Outputs>(expected);
    std::string error;
    std::optional<codegen::Target> target = codegen::ParseTarget(target_text, &error);
    if (!target) {
      m.result.status = workbench::RunStatus::kFailed;
      m.result.message = error;
      return m;
    }
    // As the build for this target runs: on its cores.
    req.num_threads = std::max(1, target->num_cores);
    if (!built.compiled) {
      m.result.status = workbench::RunStatus::kFailed;
      m.result.message = "the candidate was not built (a runner of run-and-check needs a builder)";
      return m;
    }
    auto t0 = Clock::now();
    workbench::RunCheckResult res = workbench::RunCompiled(*built.compiled, req, token);
    m.run_s = Since(t0);
    if (res.functions.empty()) {
      m.result.status = res.cancelled ? workbench::RunStatus::kCancelled : workbench::RunStatus::kFailed;
      m.result.message = res.message;
      return m;
    }
    m.result = res.functions[0];
    return m;
  };
}

TuneResult Tune(const ExtractedTasks& tasks, const TuneOptions& options,
                const workbench::CancellationToken& token, const TuneProgressFn& progress) {
  TuneResult result;
  auto t0 = Clock::now();
  if (tasks.tasks.empty()) {
    result.error = tasks.error.empty() ? "no tasks to tune" : tasks.error;
    return result;
  }
  std::string error;
  std::optional<codegen::Target> target = codegen::ParseTarget(options.target, &error);
  if (!target) {
    result.error = "target '" + options.target + "': " + error;
    return result;
  }
  if (target->kind != "llvm" && !target->is_cuda()) {
    result.error = "tuning needs an llvm (CPU) or cuda target, not '" + target->kind + "'";
    return result;
  }
  if (target->is_cuda() && !options.runner) {
    std::string why;
    if (!runtime::cuda::CudaAvailable(&why)) {
      result.space = VerifyDesignSpace(tasks, *target, options.seed, options.space_samples);
      result.no_device = true;
      result.error = "no CUDA device: " + why +
                     "; the design space was built and verified, but its candidates cannot be measured";
      result.total_s = Since(t0);
      return result;
    }
  }
  std::optional<JSONDatabase> db;
  if (!options.work_dir.empty()) {
    db = JSONDatabase::Open(options.work_dir, &error);
    if (!db) {
      result.error = error;
      return result;
    }
    result.warnings = db->warnings();
  }
  Tuner tuner(options, *target, std::move(db), token, progress, &result);
  tuner.Run(tasks.tasks);
  result.total_s = Since(t0);
  return result;
}

}  // namespace wb::meta_schedule
