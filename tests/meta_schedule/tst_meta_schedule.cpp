// core/meta_schedule: tasks, the design space (every sampled schedule valid and equal to the
// original under the reference interpreter), postprocessors, mutators, features, the database,
// determinism for a seed, cancellation, the builder (child processes; crashing and hanging builds
// are failed trials), and one real tuning run through run-and-check.
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>

#include "dlight/cpu/rules.h"
#include "dlight/schedule_rule.h"
#include "driver/driver.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "meta_schedule/apply.h"
#include "meta_schedule/database.h"
#include "meta_schedule/default_sketch.h"
#include "meta_schedule/feature_extractor.h"
#include "meta_schedule/mutator.h"
#include "meta_schedule/postproc.h"
#include "meta_schedule/replay.h"
#include "meta_schedule/schedule_rules.h"
#include "meta_schedule/search.h"
#include "meta_schedule/task.h"
#include "schedule/recipe.h"
#include "script/tvmscript.h"
#include "tir/functor.h"
#include "transform/registry.h"
#include "workbench/equivalence.h"
#include "workbench/isolated_build.h"

using namespace wb;
using namespace wb::meta_schedule;

namespace {

ir::IRModule ParseOrDie(const std::string& text) {
  script::ParseResult parsed = script::Parse(text, "case.py");
  if (!parsed.ok()) qFatal("does not parse: %s\n%s", RenderDiagnostics(parsed.diagnostics).c_str(), text.c_str());
  return parsed.module;
}

// The bundled workloads at small shapes: conv2d + relu, matmul + bias, softmax, in one Relax
// module whose fused kernels are the tasks.
const char* kWorkloads = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 6, 6), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32"), a: R.Tensor((6, 20), dtype="float32"), b: R.Tensor((20, 12), dtype="float32"), bias: R.Tensor((12,), dtype="float32"), s: R.Tensor((4, 24), dtype="float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            r = R.nn.relu(c)
            m = R.matmul(a, b)
            m2 = R.add(m, bias)
            p = R.nn.softmax(s, axis=-1)
            q = R.nn.softmax(s, axis=-1)
            gv = (r, m2, p, q)
            R.output(gv)
        return gv
)";

const char* kMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32, 48), "float32"), B: T.Buffer((48, 40), "float32"), C: T.Buffer((32, 40), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(32, 40, 48):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kScale = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2.0) + T.float32(1.0)
)";

tir::PrimFunc MainOf(const ir::IRModule& m) { return m->Lookup("main").as_ref<tir::PrimFuncNode>(); }

// The matmul workload as a hand-built tuning task, as most cases below tune it.
TuneTask MatmulTask() {
  TuneTask mm;
  mm.name = "matmul";
  mm.func = MainOf(ParseOrDie(kMatmul));
  return mm;
}

// MatmulTask and the bundled workloads' tasks whose names contain one of `parts`.
std::vector<TuneTask> MatmulAndWorkloadTasks(std::initializer_list<std::string_view> parts) {
  std::vector<TuneTask> tasks = {MatmulTask()};
  for (const TuneTask& t : ExtractTasks(ParseOrDie(kWorkloads)).tasks) {
    for (std::string_view part : parts) {
      if (t.name.find(part) != std::string::npos) {
        tasks.push_back(t);
        break;
      }
    }
  }
  return tasks;
}

SpaceOptions TwoCores() {
  SpaceOptions o;
  o.num_cores = 2;
  return o;
}

bool HasLoopKind(const tir::PrimFunc& f, tir::ForKind kind) {
  bool found = false;
  tir::PostOrderVisit(f->body, [&](const ir::Object* n) {
    if (auto* loop = dynamic_cast<const tir::ForNode*>(n)) found |= loop->kind == kind;
  });
  return found;
}

// A runner that measures nothing: a latency derived from the candidate's structure, so runs are
// reproducible; `fail` decides which candidates "compute wrong numbers".
RunnerFn FakeRunner(std::function<bool(uint64_t)> fail = {}, int* calls = nullptr,
                    std::function<void(int, const workbench::CancellationToken&)> on_call = {}) {
  return [=](const BuiltCandidate& built, const tir::PrimFunc&, const Outputs&, const RunLimits&,
             const workbench::CancellationToken& token) {
    const tir::PrimFunc& scheduled = built.func;
    if (calls) ++*calls;
    if (on_call) on_call(calls ? *calls : 0, token);
    Measurement m;
    m.result.name = "main";
    uint64_t h = ir::StructuralHash(scheduled);
    if (fail && fail(h)) {
      m.result.status = workbench::RunStatus::kMismatch;
      m.result.message = "C differs";
      return m;
    }
    m.result.samples_s = {1e-3 * (1.0 + static_cast<double>(h % 1000) / 100.0)};
    m.result.number = 1;
    return m;
  };
}

}  // namespace

class TestMetaSchedule : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void tasksOfRelaxAreFusedKernelsWeightedByCalls() {
    ExtractedTasks t = ExtractTasks(ParseOrDie(kWorkloads));
    QVERIFY2(t.error.empty(), t.error.c_str());
    // conv2d+relu, matmul+add, softmax (called twice, one task).
    QCOMPARE(t.tasks.size(), size_t(3));
    int total = 0;
    bool twice = false;
    for (const TuneTask& task : t.tasks) {
      total += task.weight;
      twice |= task.weight == 2;
      QVERIFY(task.flops > 0);
      QCOMPARE(task.shash, ir::StructuralHash(task.func));
    }
    QCOMPARE(total, 4);
    QVERIFY(twice);
  }

  void tasksOfTirDeduplicateEqualFunctions() {
    std::string text = kMatmul;
    std::string second = std::string(kMatmul).substr(std::string(kMatmul).find("    @T.prim_func"));
    size_t at = second.find("def main");
    second.replace(at, 8, "def other");
    ExtractedTasks t = ExtractTasks(ParseOrDie(text + "\n" + second));
    QCOMPARE(t.tasks.size(), size_t(1));
    QCOMPARE(t.tasks[0].weight, 2);
    QCOMPARE(t.tasks[0].functions.size(), size_t(2));
  }

  // The property: every sampled schedule of every workload is valid, replays from its trace, and
  // computes what the original computes (reference interpreter, random inputs).
  void everySampledScheduleIsEquivalent() {
    ExtractedTasks t = ExtractTasks(ParseOrDie(kWorkloads));
    std::vector<TuneTask> tasks = t.tasks;
    TuneTask mm = MatmulTask();
    tasks.push_back(mm);
    int checked = 0;
    for (const TuneTask& task : tasks) {
      const int sketches = NumSketches(task.func, TwoCores());
      std::set<uint64_t> distinct;
      bool parallel = false, vectorized = false;
      for (int64_t seed = 1; seed <= 60; ++seed) {
        Candidate c;
        c.sketch = static_cast<int>(seed % sketches);
        SampledSchedule s = ApplyDesignSpace(task.func, TwoCores(), c, seed);
        QVERIFY2(s.schedule.has_value(), (task.name + ": " + s.error).c_str());
        tir::PrimFunc f = s.schedule->Func();
        distinct.insert(ir::StructuralHash(f));
        parallel |= HasLoopKind(f, tir::ForKind::kParallel);
        vectorized |= HasLoopKind(f, tir::ForKind::kVectorized);
        // The trace alone rebuilds it.
        std::string trace = s.schedule->trace().AsPython();
        schedule::Schedule replay(dlight::SingleFunctionModule(task.func));
        DiagnosticList diags = schedule::ApplyRecipe(replay, trace);
        QVERIFY2(diags.empty(), (task.name + ": " + (diags.empty() ? "" : diags[0].message) + "\n" + trace).c_str());
        QVERIFY2(ir::StructuralEqual(replay.mod(), s.schedule->mod()), trace.c_str());
        // The same decisions rebuild it too.
        SampledSchedule again = ApplyDesignSpace(task.func, TwoCores(), s.candidate, 999);
        QVERIFY(again.schedule.has_value());
        QVERIFY(ir::StructuralEqual(again.schedule->mod(), s.schedule->mod()));
        workbench::EquivalenceOptions eq;
        eq.seed = static_cast<uint64_t>(seed);
        for (const auto& check : workbench::CheckEquivalence(dlight::SingleFunctionModule(task.func),
                                                             s.schedule->mod(), eq)) {
          QVERIFY2(check.outcome == workbench::FunctionCheck::Outcome::kEqual,
                   (task.name + " seed " + std::to_string(seed) + ": " + check.detail + "\n" + trace).c_str());
        }
        ++checked;
      }
      QVERIFY2(distinct.size() > 1 || task.name.find("softmax") != std::string::npos, task.name.c_str());
      QVERIFY2(parallel, task.name.c_str());
      QVERIFY2(vectorized || task.name.find("softmax") != std::string::npos, task.name.c_str());
    }
    QVERIFY(checked >= 240);
  }

  // AddRFactor: a reduction with little spatial work (a row sum of 2 rows, a 4-row GEMV) gets
  // three variants (no rfactor, rfactor over the outer or the inner part of its split reduction
  // loop), times MultiLevelTiling's three write levels where the block is tiled; the factored
  // sketches have an "_rf" block, replay from their traces and compute what the original does.
  void addRFactorSketches() {
    const char* sum = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((2, 512), "float32"), B: T.Buffer((2,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, k in T.grid(2, 512):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A[vi, vk]
)";
    const char* gemv = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(W: T.Buffer((4, 256), "float32"), x: T.Buffer((256,), "float32"), y: T.Buffer((4,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, k in T.grid(4, 256):
            with T.sblock("y"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(W[vi, vk], x[vk])
                T.writes(y[vi])
                with T.init():
                    y[vi] = T.float32(0.0)
                y[vi] = y[vi] + W[vi, vk] * x[vk]
)";
    for (auto [text, sketches] : std::vector<std::pair<const char*, int>>{{sum, 3}, {gemv, 9}}) {
      tir::PrimFunc f = MainOf(ParseOrDie(text));
      QCOMPARE(NumSketches(f, TwoCores()), sketches);
      const int levels = sketches / 3;
      for (int sketch = 0; sketch < sketches; ++sketch) {
        for (int64_t seed = 1; seed <= 6; ++seed) {
          Candidate c;
          c.sketch = sketch;
          SampledSchedule s = ApplyDesignSpace(f, TwoCores(), c, seed * 31);
          QVERIFY2(s.schedule.has_value(), s.error.c_str());
          std::string trace = s.schedule->trace().AsPython();
          const bool factored = sketch / levels != 0;
          QCOMPARE(trace.find("sch.rfactor(") != std::string::npos, factored);
          schedule::Schedule replay(dlight::SingleFunctionModule(f));
          DiagnosticList diags = schedule::ApplyRecipe(replay, trace);
          QVERIFY2(diags.empty(), trace.c_str());
          QVERIFY2(ir::StructuralEqual(replay.mod(), s.schedule->mod()), trace.c_str());
          workbench::EquivalenceOptions eq;
          eq.seed = static_cast<uint64_t>(seed);
          for (const auto& check : workbench::CheckEquivalence(dlight::SingleFunctionModule(f),
                                                               s.schedule->mod(), eq)) {
            QVERIFY2(check.outcome == workbench::FunctionCheck::Outcome::kEqual,
                     (check.detail + "\n" + trace).c_str());
          }
        }
      }
    }
    // Enough spatial work: no rfactor (the matmul's 32 x 40 outputs against its 48-long sums).
    QCOMPARE(NumSketches(MainOf(ParseOrDie(kMatmul)), TwoCores()), 3);
  }

  void multiLevelTilingSamplesSSRSRS() {
    tir::PrimFunc f = MainOf(ParseOrDie(kMatmul));
    QCOMPARE(NumSketches(f, TwoCores()), 3);
    Candidate c;
    c.sketch = 1;
    SampledSchedule s = ApplyDesignSpace(f, TwoCores(), c, 7);
    QVERIFY(s.schedule.has_value());
    // i and j in 4 tiles, k in 2, then the parallel limit and the unroll step.
    QCOMPARE(s.sites.size(), size_t(5));
    QCOMPARE(s.candidate.decisions[0].size(), size_t(4));
    QCOMPARE(s.candidate.decisions[2].size(), size_t(2));
    int64_t p = 1;
    for (int64_t x : s.candidate.decisions[0]) p *= x;
    QCOMPARE(p, int64_t(32));
    QVERIFY(s.candidate.decisions[0].back() <= 64);
    QVERIFY(s.sites[3].kind == SampleSite::Kind::kParallel);
    QVERIFY(s.sites[4].kind == SampleSite::Kind::kUnroll);
    std::string trace = s.schedule->trace().AsPython();
    QVERIFY(trace.find("cache_write") != std::string::npos);
    QVERIFY(trace.find("decompose_reduction") != std::string::npos);
    QVERIFY(trace.find("sample_categorical") != std::string::npos);
  }

  void postprocsRewriteAnnotations() {
    schedule::Schedule sch(ParseOrDie(kMatmul));
    schedule::SBlockRV root = sch.GetSBlock("root");
    sch.Annotate(root, "meta_schedule.parallel", ir::MakeInt(64));
    sch.Annotate(root, "meta_schedule.vectorize", ir::MakeInt(64));
    sch.Annotate(root, "meta_schedule.unroll_explicit", ir::MakeInt(16));
    std::string error;
    QVERIFY(RewriteParallelVectorizeUnroll(sch, &error));
    tir::PrimFunc f = sch.Func();
    auto* realize = dynamic_cast<const tir::SBlockRealizeNode*>(f->body.get());
    QVERIFY(realize);
    QVERIFY(realize->block->annotations.empty());
    // i (32) alone: i*j = 1280 is over the limit of 64.
    auto* outer = dynamic_cast<const tir::ForNode*>(realize->block->body.get());
    QVERIFY(outer);
    QCOMPARE(outer->kind, tir::ForKind::kParallel);
    QCOMPARE(*tir::AsConstInt(outer->extent), int64_t(32));
    QVERIFY(outer->annotations.count("pragma_auto_unroll_max_step"));
    // k is a reduction loop: not vectorized.
    QVERIFY(!HasLoopKind(f, tir::ForKind::kVectorized));
    QVERIFY(RewriteReductionBlock(sch, &error));
    QVERIFY(sch.trace().AsPython().find("decompose_reduction") != std::string::npos);
    for (const auto& check : workbench::CheckEquivalence(ParseOrDie(kMatmul), sch.mod())) {
      QVERIFY2(check.outcome == workbench::FunctionCheck::Outcome::kEqual, check.detail.c_str());
    }
    // A malformed annotation is an error, not a silent skip.
    schedule::Schedule bad(ParseOrDie(kMatmul));
    bad.Annotate(bad.GetSBlock("root"), "meta_schedule.parallel", ir::MakeString("x"));
    QVERIFY(!RewriteParallelVectorizeUnroll(bad, &error));
    QVERIFY(error.find("meta_schedule.parallel") != std::string::npos);
  }

  void mutatorsChangeOneDecision() {
    tir::PrimFunc f = MainOf(ParseOrDie(kMatmul));
    Candidate c;
    c.sketch = 2;
    SampledSchedule s = ApplyDesignSpace(f, TwoCores(), c, 3);
    QVERIFY(s.schedule.has_value());
    std::mt19937_64 rng(5);
    for (int i = 0; i < 50; ++i) {
      std::optional<Candidate> m = MutateTileSize(s.candidate, s.sites, rng);
      QVERIFY(m.has_value());
      int changed = 0;
      for (size_t k = 0; k < m->decisions.size(); ++k) {
        if (m->decisions[k] == s.candidate.decisions[k]) continue;
        ++changed;
        QVERIFY(s.sites[k].kind == SampleSite::Kind::kTile);
        int64_t before = 1, after = 1;
        for (int64_t x : s.candidate.decisions[k]) before *= x;
        for (int64_t x : m->decisions[k]) after *= x;
        QCOMPARE(after, before);
        QVERIFY(m->decisions[k].back() <= s.sites[k].max_innermost_factor);
      }
      QCOMPARE(changed, 1);
      SampledSchedule r = ApplyDesignSpace(f, TwoCores(), *m, 1);
      QVERIFY(r.schedule.has_value());
      QCOMPARE(r.candidate.decisions, m->decisions);
    }
    std::optional<Candidate> u = MutateUnroll(s.candidate, s.sites, rng);
    QVERIFY(u.has_value());
    QVERIFY(u->decisions[4] != s.candidate.decisions[4]);
    QVERIFY(u->decisions[4][0] >= 0 && u->decisions[4][0] < 4);
    SampledSchedule r = ApplyDesignSpace(f, TwoCores(), *u, 1);
    QVERIFY(r.schedule.has_value());
    std::string step = std::to_string(TwoCores().unroll_max_steps[u->decisions[4][0]]);
    QVERIFY(r.schedule->trace().AsPython().find("ann_val=" + step) != std::string::npos || step == "0");
    std::optional<Candidate> p = MutateParallel(s.candidate, s.sites, rng);
    QVERIFY(p.has_value());
    QVERIFY(p->decisions[3] != s.candidate.decisions[3]);
  }

  // RandomComputeLocation: softmax's blocks that AutoInline leaves (the reductions, the exp) get a
  // sample_compute_location each; the seeds reach different locations, MutateComputeLocation
  // moves one to another candidate, and every result computes the softmax.
  void randomComputeLocationOnSoftmax() {
    ExtractedTasks t = ExtractTasks(ParseOrDie(kWorkloads));
    const TuneTask* softmax = nullptr;
    for (const TuneTask& task : t.tasks) {
      if (task.name.find("softmax") != std::string::npos) softmax = &task;
    }
    QVERIFY(softmax);
    std::set<int64_t> decisions;
    std::optional<SampledSchedule> sample;
    for (int64_t seed = 1; seed <= 30; ++seed) {
      SampledSchedule s = ApplyDesignSpace(softmax->func, TwoCores(), Candidate{}, seed * 7919);
      QVERIFY2(s.schedule.has_value(), s.error.c_str());
      for (size_t k = 0; k < s.sites.size(); ++k) {
        if (s.sites[k].kind != SampleSite::Kind::kComputeLocation) continue;
        decisions.insert(s.candidate.decisions[k][0]);
        QVERIFY(std::find(s.sites[k].choices.begin(), s.sites[k].choices.end(), s.candidate.decisions[k][0]) !=
                s.sites[k].choices.end());
        if (!sample && s.sites[k].choices.size() > 1) sample = s;
      }
    }
    QVERIFY2(decisions.size() > 1, "every seed took the same compute location");
    QVERIFY(sample.has_value());
    QVERIFY(sample->schedule->trace().AsPython().find("sch.sample_compute_location(") != std::string::npos);
    std::mt19937_64 rng(11);
    for (int i = 0; i < 10; ++i) {
      std::optional<Candidate> m = MutateComputeLocation(sample->candidate, sample->sites, rng);
      QVERIFY(m.has_value());
      SampledSchedule r = ApplyDesignSpace(softmax->func, TwoCores(), *m, 1);
      QVERIFY2(r.schedule.has_value(), r.error.c_str());
      for (const auto& check : workbench::CheckEquivalence(dlight::SingleFunctionModule(softmax->func),
                                                           r.schedule->mod())) {
        QVERIFY2(check.outcome == workbench::FunctionCheck::Outcome::kEqual,
                 (check.detail + "\n" + r.schedule->trace().AsPython()).c_str());
      }
    }
  }

  void featuresOfAScaleLoop() {
    std::vector<std::vector<double>> rows = ExtractStoreFeatures(MainOf(ParseOrDie(kScale)));
    QCOMPARE(rows.size(), size_t(1));
    const std::vector<double>& r = rows[0];
    QCOMPARE(r[0], 16.0);  // one add per iteration
    QCOMPARE(r[1], 16.0);  // one mul
    QCOMPARE(r[2], 0.0);
    QCOMPARE(r[13], 1.0);   // one loop
    QCOMPARE(r[14], 16.0);  // 16 iterations
    QCOMPARE(r[15], 64.0);  // 16 floats stored
    QCOMPARE(r[16], 64.0);  // all distinct
    QCOMPARE(r[17], 1.0);   // unit stride
    QCOMPARE(r[18], 1.0);   // no reuse
    QCOMPARE(r[27], 32.0 / 128.0);  // 32 flops over 128 unique bytes
    QCOMPARE(r[6], 0.0);
    schedule::Schedule sch(ParseOrDie(kScale));
    std::vector<schedule::LoopRV> loops = sch.GetLoops(sch.GetSBlock("B"));
    std::vector<schedule::LoopRV> split = sch.Split(loops[0], {std::nullopt, 8});
    sch.Vectorize(split[1]);
    std::vector<std::vector<double>> v = ExtractStoreFeatures(sch.Func());
    QCOMPARE(v[0][6], 1.0);
    QCOMPARE(v[0][7], 8.0);
    QCOMPARE(v[0][13], 2.0);
    QCOMPARE(v[0][17], 1.0);
    QCOMPARE(ExtractFeatures(sch.Func()).size(), size_t(kFunctionFeatures));
  }

  void databaseRoundTripAndCorruptLines() {
    QTemporaryDir dir;
    std::string path = dir.path().toStdString() + "/work";
    tir::PrimFunc f = MainOf(ParseOrDie(kMatmul));
    std::string error;
    {
      std::optional<JSONDatabase> db = JSONDatabase::Open(path, &error);
      QVERIFY2(db.has_value(), error.c_str());
      std::optional<size_t> w = db->CommitWorkload(f, &error);
      QVERIFY(w.has_value());
      QCOMPARE(*db->CommitWorkload(f, &error), *w);  // found, not appended again
      TuningRecord r;
      r.workload = *w;
      r.trace = "b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n";
      r.run_secs = {2e-3, 3e-3};
      r.target = "llvm -mcpu=test";
      r.args_info = JSONDatabase::ArgsInfo(f);
      QVERIFY(db->CommitRecord(r, &error));
      r.run_secs = {1e-3};
      QVERIFY(db->CommitRecord(r, &error));
      r.run_secs = {kFailedRunSeconds};
      QVERIFY(db->CommitRecord(r, &error));
    }
    // Damage: garbage, a partial line (a crash mid-write), a record of an unknown workload, and
    // a damaged workload line (which must not shift the workload indices).
    {
      std::ofstream rec(path + "/database_tuning_record.json", std::ios::app);
      rec << "this is not json\n[7, [\"t\", [1.0], \"llvm -mcpu=test\", []]]\n[0, [\"half";
      std::ofstream wl(path + "/database_workload.json", std::ios::app);
      wl << "{\"bad\": 1}\n";
    }
    std::optional<JSONDatabase> db = JSONDatabase::Open(path, &error);
    QVERIFY(db.has_value());
    QCOMPARE(db->warnings().size(), size_t(4));
    for (const std::string& w : db->warnings()) QVERIFY2(w.find(".json:") != std::string::npos, w.c_str());
    QCOMPARE(db->num_records(), size_t(3));
    std::optional<size_t> w = db->FindWorkload(f);
    QVERIFY(w.has_value());
    std::vector<TuningRecord> top = db->TopK(*w, "llvm -mcpu=test", 5);
    QCOMPARE(top.size(), size_t(2));  // the failed one never counts
    QCOMPARE(top[0].run_secs, std::vector<double>{1e-3});
    QCOMPARE(top[0].args_info.size(), size_t(3));
    QVERIFY(db->TopK(*w, "llvm -mcpu=other", 5).empty());
    // A new line after the damaged ones still loads.
    TuningRecord r = top[0];
    r.run_secs = {5e-4};
    QVERIFY(db->CommitRecord(r, &error));
    std::optional<JSONDatabase> again = JSONDatabase::Open(path, &error);
    QCOMPARE(again->TopK(*w, "llvm -mcpu=test", 1)[0].run_secs, std::vector<double>{5e-4});
    // An unwritable place is an error with the path, not a crash.
    QVERIFY(!JSONDatabase::Open("/proc/no/such/dir", &error).has_value());
    QVERIFY(error.find("/proc/no/such/dir") != std::string::npos);
  }

  // The default schedule as a sketch: core/dlight's trace with its exact splits as sampled tiles
  // replays to the default schedule itself (its trace text too), and chains of MutateTileSize on
  // it give valid schedules that compute what the original does (reference interpreter, random
  // inputs), with the default's structure and other tiles.
  void defaultScheduleSketchReplaysAndMutates() {
    std::vector<TuneTask> tasks = MatmulAndWorkloadTasks({"matmul"});  // with its bias epilogue
    QCOMPARE(tasks.size(), size_t(2));
    for (const TuneTask& task : tasks) {
      const codegen::Target host = codegen::Target::Host();
      std::optional<dlight::AppliedRule> dflt = dlight::ApplyRules(task.func, host, dlight::cpu::DefaultRules());
      QVERIFY(dflt.has_value());
      std::string why;
      std::optional<DefaultSketch> sketch = MakeDefaultSketch(task.func, dflt->schedule, dflt->rule, 64, &why);
      QVERIFY2(sketch.has_value(), (task.name + ": " + why).c_str());
      QVERIFY(!sketch->decisions.empty());
      SpaceOptions space = DefaultSpaceOptions(host);
      space.default_sketch = std::make_shared<const DefaultSketch>(*sketch);
      Candidate c;
      c.sketch = kDefaultSketch;
      c.decisions = sketch->decisions;
      SampledSchedule seed = ApplyDesignSpace(task.func, space, c, 7);
      QVERIFY2(seed.schedule.has_value(), seed.error.c_str());
      QVERIFY(ir::StructuralEqual(seed.schedule->Func()->body, dflt->schedule.Func()->body));
      QCOMPARE(seed.candidate.decisions, sketch->decisions);
      QCOMPARE(seed.sites.size(), sketch->decisions.size());
      const std::string trace = seed.schedule->trace().AsPython();
      QVERIFY(trace.find("sample_perfect_tile") != std::string::npos);
      schedule::Schedule replay(dlight::SingleFunctionModule(task.func));
      DiagnosticList diags = schedule::ApplyRecipe(replay, trace);
      QVERIFY2(diags.empty(), (diags.empty() ? "" : diags[0].message + "\n" + trace).c_str());
      QVERIFY(ir::StructuralEqual(replay.Func()->body, dflt->schedule.Func()->body));
      std::mt19937_64 rng(11);
      SampledSchedule at = seed;
      std::set<uint64_t> distinct;
      int rejected = 0;
      for (int i = 0; i < 24; ++i) {
        std::optional<Candidate> m = MutateTileSize(at.candidate, at.sites, rng);
        QVERIFY(m.has_value());
        QCOMPARE(m->sketch, kDefaultSketch);
        SampledSchedule next = ApplyDesignSpace(task.func, space, *m, i);
        if (!next.schedule) {
          QVERIFY(!next.error.empty());
          ++rejected;
          continue;
        }
        // A split of a split's part (the rule splits B's panel, then the panel's row into
        // vectors) is repaired on replay when its loop changed: the decisions taken rebuild it.
        SampledSchedule again = ApplyDesignSpace(task.func, space, next.candidate, 99);
        QVERIFY(again.schedule.has_value());
        QVERIFY(ir::StructuralEqual(again.schedule->mod(), next.schedule->mod()));
        distinct.insert(ir::StructuralHash(next.schedule->Func()));
        workbench::EquivalenceOptions eq;
        eq.seed = static_cast<uint64_t>(i + 1);
        for (const auto& check : workbench::CheckEquivalence(dlight::SingleFunctionModule(task.func),
                                                             next.schedule->mod(), eq)) {
          QVERIFY2(check.outcome == workbench::FunctionCheck::Outcome::kEqual,
                   (task.name + " mutation " + std::to_string(i) + ": " + check.detail + "\n" +
                    next.schedule->trace().AsPython()).c_str());
        }
        at = next;
      }
      QVERIFY2(distinct.size() > 6, task.name.c_str());
      // The sketch's compute_at steps keep their unit loops: a tile of 1 leaves the loops the
      // rule's later get_loops count, so no mutation of the matmul's tiles is rejected.
      QCOMPARE(rejected, 0);
    }
  }

  // A trace replayed instruction by instruction (replay.h) does what its text does: the default
  // schedules of the bundled workloads (packing, padding, caches, layouts, fusion), replayed both
  // ways, give equal functions and equal traces; a value the replay does not convert (an
  // annotation's dict) leaves the text to the caller, with nothing applied.
  void traceReplayEqualsTextReplay() {
    int replayed = 0;
    for (const TuneTask& task : ExtractTasks(ParseOrDie(kWorkloads)).tasks) {
      std::optional<dlight::AppliedRule> dflt =
          dlight::ApplyRules(task.func, codegen::Target::Host(), dlight::cpu::DefaultRules());
      if (!dflt) continue;
      const schedule::Trace& trace = dflt->schedule.trace();
      schedule::Schedule by_trace(dlight::SingleFunctionModule(task.func));
      std::string error;
      QCOMPARE(ReplayTrace(by_trace, trace, &error), ReplayOutcome::kApplied);
      schedule::Schedule by_text(dlight::SingleFunctionModule(task.func));
      QVERIFY(schedule::ApplyRecipe(by_text, trace.AsPython()).empty());
      QVERIFY2(ir::StructuralEqual(by_trace.mod(), by_text.mod()), task.name.c_str());
      QCOMPARE(by_trace.trace().AsPython(), by_text.trace().AsPython());
      ++replayed;
    }
    QVERIFY(replayed >= 3);
    // A failing step is reported, the steps before it stay.
    schedule::Schedule sch(dlight::SingleFunctionModule(MainOf(ParseOrDie(kMatmul))));
    schedule::Trace bad;
    bad.Append({"get_sblock", {{"name", schedule::TraceValue::String("C")}, {"func_name", schedule::TraceValue::String("main")}},
                {schedule::TraceValue::Block(0)}, false});
    bad.Append({"get_loops", {{"block", schedule::TraceValue::Block(0)}},
                {schedule::TraceValue::Loop(1), schedule::TraceValue::Loop(2)}, false});
    std::string error;
    QCOMPARE(ReplayTrace(sch, bad, &error), ReplayOutcome::kFailed);
    QVERIFY2(error.find("returned 3 values") != std::string::npos, error.c_str());
    // A dict annotation value is raw text the replay does not read.
    schedule::Trace dict;
    dict.Append({"get_sblock", {{"name", schedule::TraceValue::String("C")}, {"func_name", schedule::TraceValue::String("main")}},
                 {schedule::TraceValue::Block(0)}, false});
    dict.Append({"annotate", {{"block_or_loop", schedule::TraceValue::Block(0)}, {"ann_key", schedule::TraceValue::String("k")},
                              {"ann_val", schedule::TraceValue::Raw("{\"a\": 1}")}}, {}, false});
    schedule::Schedule untouched(dlight::SingleFunctionModule(MainOf(ParseOrDie(kMatmul))));
    QCOMPARE(ReplayTrace(untouched, dict, &error), ReplayOutcome::kUnsupported);
  }

  // The blocked default sketch (MakeBlockedSketch): the matmul's k and the conv2d's reduction
  // loops split, the tiles around them one level deeper; its default decisions and its mutations
  // (those that block the reduction among them) compute what the function computes.
  void blockedDefaultSketchIsEquivalent() {
    std::vector<TuneTask> tasks = MatmulAndWorkloadTasks({"matmul", "conv2d"});
    QCOMPARE(tasks.size(), size_t(3));
    for (const TuneTask& task : tasks) {
      const codegen::Target host = codegen::Target::Host();
      std::optional<dlight::AppliedRule> dflt = dlight::ApplyRules(task.func, host, dlight::cpu::DefaultRules());
      QVERIFY(dflt.has_value());
      std::string why;
      std::optional<DefaultSketch> sketch = MakeDefaultSketch(task.func, dflt->schedule, dflt->rule, 64, &why);
      QVERIFY2(sketch.has_value(), (task.name + ": " + why).c_str());
      std::optional<DefaultSketch> blocked = MakeBlockedSketch(task.func, *sketch, &why);
      QVERIFY2(blocked.has_value(), (task.name + ": " + why).c_str());
      // One sampled tile more than the default sketch per reduction loop blocked.
      QVERIFY(blocked->decisions.size() > sketch->decisions.size());
      SpaceOptions space = DefaultSpaceOptions(host);
      space.default_sketch = std::make_shared<const DefaultSketch>(*sketch);
      space.blocked_sketch = std::make_shared<const DefaultSketch>(*blocked);
      Candidate c;
      c.sketch = kBlockedSketch;
      c.decisions = blocked->decisions;
      SampledSchedule at = ApplyDesignSpace(task.func, space, c, 3);
      QVERIFY2(at.schedule.has_value(), at.error.c_str());
      QCOMPARE(at.candidate.sketch, kBlockedSketch);
      // The reduction split with an outer factor of 1 (the default's k whole).
      const std::string trace = at.schedule->trace().AsPython();
      QVERIFY2(trace.find("max_innermost_factor=-1, decision=[1, ") != std::string::npos, trace.c_str());
      std::mt19937_64 rng(5);
      int checked = 0, blocked_k = 0;
      for (int i = 0; i < 16; ++i) {
        std::optional<Candidate> m = MutateTileSize(at.candidate, at.sites, rng);
        QVERIFY(m.has_value());
        SampledSchedule next = ApplyDesignSpace(task.func, space, *m, i);
        QVERIFY2(next.schedule.has_value(), (task.name + ": " + next.error).c_str());
        // Replayed from its trace (as the database replays it), the same function.
        schedule::Schedule replay(dlight::SingleFunctionModule(task.func));
        DiagnosticList diags = schedule::ApplyRecipe(replay, next.schedule->trace().AsPython());
        QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
        QVERIFY(ir::StructuralEqual(replay.Func()->body, next.schedule->Func()->body));
        // The reduction's sampled splits: n=2 with no bound on the inner factor.
        for (size_t k = 0; k < next.sites.size(); ++k) {
          if (next.sites[k].kind == SampleSite::Kind::kTile && next.sites[k].max_innermost_factor == -1 &&
              next.candidate.decisions[k].size() == 2 && next.candidate.decisions[k][0] > 1) {
            ++blocked_k;
            break;
          }
        }
        workbench::EquivalenceOptions eq;
        eq.seed = static_cast<uint64_t>(i + 1);
        for (const auto& check : workbench::CheckEquivalence(dlight::SingleFunctionModule(task.func),
                                                             next.schedule->mod(), eq)) {
          QVERIFY2(check.outcome == workbench::FunctionCheck::Outcome::kEqual,
                   (task.name + " blocked mutation " + std::to_string(i) + ": " + check.detail + "\n" +
                    next.schedule->trace().AsPython()).c_str());
        }
        ++checked;
        at = next;
      }
      QCOMPARE(checked, 16);
      QVERIFY2(blocked_k > 0, task.name.c_str());
    }
  }

  // The tuner seeds the population with the default schedule: its candidate is recorded as
  // measured (not measured again), mutations of it are measured, and every record of the run
  // replays from its trace to a function that was measured.
  void defaultScheduleSeedsThePopulation() {
    QTemporaryDir dir;
    ExtractedTasks tasks;
    TuneTask mm = MatmulTask();
    tasks.tasks = {mm};
    TuneOptions o;
    o.max_trials = 24;
    o.num_trials_per_iter = 8;
    o.population_size = 24;
    o.verify_top_k = 0;
    // The whole population from the measured ones: the first batch is the default's neighbours.
    o.init_measured_ratio = 1;
    o.work_dir = dir.path().toStdString();
    std::optional<dlight::AppliedRule> dflt =
        dlight::ApplyRules(mm.func, codegen::Target::Host(), dlight::cpu::DefaultRules());
    QVERIFY(dflt.has_value());
    std::set<uint64_t> measured;
    int default_runs = 0;
    RunnerFn fake = FakeRunner();
    o.runner = [&](const BuiltCandidate& built, const tir::PrimFunc& original, const Outputs& expected,
                   const RunLimits& limits, const workbench::CancellationToken& token) {
      measured.insert(ir::StructuralHash(built.func));
      default_runs += ir::StructuralEqual(built.func->body, dflt->schedule.Func()->body);
      return fake(built, original, expected, limits, token);
    };
    TuneResult r = Tune(tasks, o);
    QVERIFY2(r.error.empty(), r.error.c_str());
    const TaskReport& t = r.tasks[0];
    QVERIFY2(t.seeded, t.seed_message.c_str());
    QCOMPARE(default_runs, 1);  // its first, checked run only: the seed is that measurement
    // The first batch: the default's neighbours and the blocked sketch's default candidate.
    QVERIFY(t.default_sketch_trials + t.blocked_sketch_trials >= o.num_trials_per_iter);
    QVERIFY(t.blocked_sketch_trials >= 1);
    std::string error;
    std::optional<JSONDatabase> db = JSONDatabase::Open(o.work_dir, &error);
    QVERIFY2(db.has_value(), error.c_str());
    std::optional<size_t> w = db->FindWorkload(WorkloadFunc(mm.func));
    QVERIFY(w.has_value());
    int sketch_records = 0;
    for (const TuningRecord& rec : db->Records(*w, DatabaseTarget(codegen::Target::Host()))) {
      schedule::Schedule replay(dlight::SingleFunctionModule(mm.func));
      DiagnosticList diags = schedule::ApplyRecipe(replay, rec.trace);
      QVERIFY2(diags.empty(), rec.trace.c_str());
      tir::PrimFunc f = replay.Func();
      f.CopyOnWrite()->attrs["tir.is_scheduled"] = ir::MakeBool(true);
      QVERIFY2(measured.count(ir::StructuralHash(f)), rec.trace.c_str());
      // A mutation of the default: the rule's pad/pack steps with sampled tiles.
      sketch_records += rec.trace.find("sample_perfect_tile") != std::string::npos &&
                        rec.trace.find("decompose_reduction") != std::string::npos &&
                        rec.trace.find("meta_schedule.parallel") == std::string::npos;
    }
    // The blocked sketch's candidates are the rule's steps with sampled tiles too.
    QVERIFY2(t.blocked, t.blocked_message.c_str());
    QCOMPARE(sketch_records, t.default_sketch_trials + t.blocked_sketch_trials);
  }

  void sameSeedSameCandidates() {
    ExtractedTasks tasks;
    TuneTask mm = MatmulTask();
    mm.shash = ir::StructuralHash(mm.func);
    tasks.tasks = {mm};
    auto run = [&](uint64_t seed) {
      TuneOptions o;
      o.max_trials = 24;
      o.num_trials_per_iter = 8;
      o.population_size = 24;
      o.cost_model_min_train = 8;  // the model ranks the last batches
      o.seed = seed;
      o.runner = FakeRunner();
      return Tune(tasks, o);
    };
    TuneResult a = run(3), b = run(3), c = run(4);
    QVERIFY2(a.error.empty(), a.error.c_str());
    QCOMPARE(a.trials, 24);
    QCOMPARE(a.measured.size(), size_t(24));
    QCOMPARE(a.measured, b.measured);
    QVERIFY(a.measured != c.measured);
    std::set<uint64_t> distinct(a.measured.begin(), a.measured.end());
    QCOMPARE(distinct.size(), a.measured.size());  // no candidate measured twice
  }

  void wrongCandidatesAreRecordedFailedAndNeverChosen() {
    QTemporaryDir dir;
    ExtractedTasks tasks;
    TuneTask mm = MatmulTask();
    tasks.tasks = {mm};
    TuneOptions o;
    o.max_trials = 16;
    o.num_trials_per_iter = 8;
    o.population_size = 16;
    o.work_dir = dir.path().toStdString();
    std::set<uint64_t> failed;
    int runs = 0;
    uint64_t dflt = 0;
    o.runner = FakeRunner([&](uint64_t h) {
      if (++runs == 1) dflt = h;
      bool bad = h != dflt && h % 2 == 0;  // the default schedule (run 1) passes
      if (bad) failed.insert(h);
      return bad;
    });
    TuneResult r = Tune(tasks, o);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QCOMPARE(r.tasks.size(), size_t(1));
    QVERIFY(r.tasks[0].failed > 0);
    QVERIFY(r.tasks[0].best_s.has_value());
    std::string error;
    std::optional<JSONDatabase> db = JSONDatabase::Open(o.work_dir, &error);
    QVERIFY(db.has_value());
    std::optional<size_t> w = db->FindWorkload(WorkloadFunc(mm.func));
    QVERIFY(w.has_value());
    size_t failed_records = 0;
    for (const TuningRecord& rec : db->Records(*w, DatabaseTarget(codegen::Target::Host()))) {
      failed_records += rec.failed();
    }
    QCOMPARE(failed_records, static_cast<size_t>(r.tasks[0].failed));
    // The best record is one that passed.
    ir::IRModule applied = ApplyDatabase(dlight::SingleFunctionModule(mm.func), *db, codegen::Target::Host()).module;
    QVERIFY(!failed.count(ir::StructuralHash(MainOf(applied))));
  }

  // The search's measurements are lucky (every candidate 0.5 ms, the default 1 ms), the closing
  // re-measurement is not (candidates 2 ms): the default schedule stays, in the report and in
  // the build, although the fastest record is a candidate's.
  void luckySearchMeasurementsLoseToTheDefault() {
    QTemporaryDir dir;
    ExtractedTasks tasks;
    TuneTask mm = MatmulTask();
    tasks.tasks = {mm};
    TuneOptions o;
    o.max_trials = 8;
    o.num_trials_per_iter = 8;
    o.population_size = 16;
    o.work_dir = dir.path().toStdString();
    std::optional<dlight::AppliedRule> dflt =
        dlight::ApplyRules(mm.func, codegen::Target::Host(), dlight::cpu::DefaultRules());
    QVERIFY(dflt.has_value());
    const tir::PrimFunc dflt_func = dflt->schedule.Func();
    int calls = 0;
    o.runner = [&](const BuiltCandidate& built, const tir::PrimFunc&, const Outputs&, const RunLimits&,
                   const workbench::CancellationToken&) {
      const tir::PrimFunc& scheduled = built.func;
      ++calls;
      Measurement m;
      m.result.name = "main";
      bool is_default = ir::StructuralEqual(scheduled->body, dflt_func->body);
      bool verifying = calls > 1 + o.max_trials;
      m.result.samples_s = {is_default ? 1e-3 : verifying ? 2e-3 : 0.5e-3};
      m.result.number = 1;
      return m;
    };
    TuneResult r = Tune(tasks, o);
    QVERIFY2(r.error.empty(), r.error.c_str());
    const TaskReport& t = r.tasks[0];
    QVERIFY(t.verified);
    QCOMPARE(r.verify_runs, 4 * 3);
    QCOMPARE(*t.search_best_s, 0.5e-3);
    QCOMPARE(*t.best_s, 1e-3);
    QCOMPARE(*t.default_s, 1e-3);
    QCOMPARE(t.best_trace, dflt->schedule.trace().AsPython());
    std::string error;
    std::optional<JSONDatabase> db = JSONDatabase::Open(o.work_dir, &error);
    std::optional<size_t> w = db->FindWorkload(WorkloadFunc(mm.func));
    const std::string key = DatabaseTarget(codegen::Target::Host());
    QVERIFY(db->TopK(*w, key, 1)[0].trace != t.best_trace);  // the lucky record
    AppliedDatabase applied = ApplyDatabase(dlight::SingleFunctionModule(mm.func), *db, codegen::Target::Host());
    QCOMPARE(applied.applied, std::vector<std::string>{"main"});  // the verified trace, replayed
    QVERIFY(ir::StructuralEqual(MainOf(applied.module)->body, dflt_func->body));
    // Records are kept per thread count: none applies to a build on another number of cores.
    std::optional<codegen::Target> other = codegen::ParseTarget(
        "llvm -num-cores=" + std::to_string(codegen::Target::Host().num_cores + 1), &error);
    QVERIFY2(other.has_value(), error.c_str());
    QVERIFY(!db->Verified(*w, DatabaseTarget(*other)).has_value());
    QVERIFY(db->TopK(*w, DatabaseTarget(*other), 1).empty());
    std::optional<codegen::Target> back = codegen::ParseTarget(key, &error);
    QVERIFY2(back.has_value(), error.c_str());
    QCOMPARE(DatabaseTarget(*back), key);
  }

  // The converse: a candidate that is faster in the re-measurement too is applied, and the
  // build's function is the one that was measured (the trace replays to it).
  void verifiedCandidateIsTheMeasuredFunction() {
    QTemporaryDir dir;
    ExtractedTasks tasks;
    TuneTask mm = MatmulTask();
    tasks.tasks = {mm};
    TuneOptions o;
    o.max_trials = 8;
    o.num_trials_per_iter = 8;
    o.population_size = 16;
    o.work_dir = dir.path().toStdString();
    std::map<uint64_t, tir::PrimFunc> measured;
    RunnerFn fake = FakeRunner();
    o.runner = [&](const BuiltCandidate& built, const tir::PrimFunc& original,
                   const Outputs& expected, const RunLimits& limits,
                   const workbench::CancellationToken& token) {
      const tir::PrimFunc& scheduled = built.func;
      measured[ir::StructuralHash(scheduled)] = scheduled;
      return fake(built, original, expected, limits, token);
    };
    TuneResult r = Tune(tasks, o);
    QVERIFY2(r.error.empty(), r.error.c_str());
    const TaskReport& t = r.tasks[0];
    QVERIFY(t.verified);
    QVERIFY(t.best_s && t.search_best_s);
    QCOMPARE(*t.best_s, *t.search_best_s);  // the fake runner's times do not change
    std::string error;
    std::optional<JSONDatabase> db = JSONDatabase::Open(o.work_dir, &error);
    ir::IRModule applied = ApplyDatabase(dlight::SingleFunctionModule(mm.func), *db, codegen::Target::Host()).module;
    tir::PrimFunc built = MainOf(applied);
    // It is the fastest one measured (the fake time is a function of the hash).
    bool found = false;
    for (const auto& [h, f] : measured) {
      found |= ir::StructuralEqual(f->body, built->body) &&
               1e-3 * (1.0 + static_cast<double>(h % 1000) / 100.0) == *t.best_s;
    }
    QVERIFY(found);
  }

  // TVM's gradient-based task scheduler: a round-robin warm-up, then the task of the largest
  // weighted gradient; with equal latencies the heavier task gets the batches; a budget too
  // small for every task says which were left out.
  void gradientSchedulerFavoursTheWeightedTask() {
    ExtractedTasks tasks;
    TuneTask heavy, light;
    heavy.name = "heavy";
    heavy.func = MainOf(ParseOrDie(kMatmul));
    heavy.weight = 10;
    light.name = "light";
    light.func = MainOf(ParseOrDie(kScale));
    tasks.tasks = {light, heavy};
    TuneOptions o;
    o.max_trials = 12;
    o.num_trials_per_iter = 2;
    o.population_size = 8;
    o.verify_top_k = 0;
    // Every candidate of a task as fast as its default: the gradient is best / batches * weight.
    o.runner = [](const BuiltCandidate& built, const tir::PrimFunc&, const Outputs&, const RunLimits&,
                  const workbench::CancellationToken&) {
      const tir::PrimFunc& scheduled = built.func;
      Measurement m;
      m.result.name = "main";
      m.result.samples_s = {scheduled->buffer_map.size() == 3 ? 1e-3 : 2e-3};
      m.result.number = 1;
      return m;
    };
    TuneResult r = Tune(tasks, o);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QVERIFY(r.batches.size() >= 3);
    QCOMPARE(r.batches[0], 0);  // the warm-up, in task order
    QCOMPARE(r.batches[1], 1);
    // light: 2e-3 / b_l * 1, heavy: 1e-3 / b_h * 10: heavy until b_h reaches 5 b_l.
    for (size_t i = 2; i < r.batches.size(); ++i) QCOMPARE(r.batches[i], 1);
    QCOMPARE(r.trials, 12);
    QCOMPARE(r.tasks[0].trials, 2);
    QCOMPARE(r.tasks[1].trials, 10);
    // A budget of 1 trial for 2 tasks: the second is not tuned, and says so.
    o.max_trials = 1;
    TuneResult small = Tune(tasks, o);
    QCOMPARE(small.tasks[0].trials, 1);
    QCOMPARE(small.tasks[1].trials, 0);
    QCOMPARE(small.tasks[1].message, std::string("the trial budget was spent before its first batch"));
  }

  // The slow limit: after the default schedule (run with ten times timeout_s: it runs the
  // reference too), a candidate whose checked call takes more than slow_limit times the best
  // latency so far (and longer than a sample's minimum) is timed by that call alone (a
  // measurement, counted too slow), and its run is killed past slow_limit times what its calls
  // would take at the best latency (failed, too slow).
  void slowCandidatesAreCut() {
    ExtractedTasks tasks;
    tasks.tasks = {MatmulTask()};
    TuneOptions o;
    o.max_trials = 16;
    o.num_trials_per_iter = 16;
    o.population_size = 24;
    o.verify_top_k = 0;
    std::vector<RunLimits> limits;
    int timed_once = 0, killed = 0;
    o.runner = [&](const BuiltCandidate& built, const tir::PrimFunc&, const Outputs&,
                   const RunLimits& run_limits, const workbench::CancellationToken&) {
      const bool first = limits.empty();
      limits.push_back(run_limits);
      Measurement m;
      m.result.name = "main";
      const uint64_t h = ir::StructuralHash(built.func);
      // 1 ms a call; every fourth candidate 0.5 s, every eighth one 100 s (it never ends).
      const double latency = first || h % 4 != 0 ? 1e-3 : h % 8 == 0 ? 100.0 : 0.5;
      if (latency > run_limits.timeout_s) {
        ++killed;
        m.result.status = workbench::RunStatus::kTimedOut;
        return m;
      }
      m.result.number = 1;
      if (run_limits.slow_call_s > 0 && latency > run_limits.slow_call_s) {
        ++timed_once;
        m.result.too_slow = true;
        m.result.samples_s = {latency};
        return m;
      }
      m.result.samples_s = {latency};
      return m;
    };
    TuneResult r = Tune(tasks, o);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QCOMPARE(limits.size(), size_t(17));
    QCOMPARE(limits[0].timeout_s, 10 * o.timeout_s);
    QCOMPARE(limits[0].slow_call_s, 0.0);
    for (size_t i = 1; i < limits.size(); ++i) {
      // 2 s + slow_limit x (5 calls at 1 ms + the 100 ms sample); a call past slow_limit x 1 ms,
      // and not shorter than the 100 ms sample (a small kernel's cold first call is not cut).
      QVERIFY(std::abs(limits[i].timeout_s - (2 + o.slow_limit * (5e-3 + 0.1))) < 1e-9);
      QVERIFY(std::abs(limits[i].slow_call_s - std::max(o.slow_limit * 1e-3, 0.1)) < 1e-12);
    }
    QVERIFY(timed_once > 0);
    QVERIFY(killed > 0);
    QCOMPARE(r.tasks[0].too_slow, timed_once + killed);
    QCOMPARE(r.tasks[0].failed, killed);
    QCOMPARE(*r.tasks[0].best_s, 1e-3);
    // Without the limit, only timeout_s.
    o.slow_limit = 0;
    limits.clear();
    Tune(tasks, o);
    for (size_t i = 1; i < limits.size(); ++i) {
      QCOMPARE(limits[i].timeout_s, o.timeout_s);
      QCOMPARE(limits[i].slow_call_s, 0.0);
    }
  }

  void cancelStopsTuning() {
    ExtractedTasks tasks;
    TuneTask mm = MatmulTask();
    tasks.tasks = {mm};
    TuneOptions o;
    o.max_trials = 64;
    int calls = 0;
    workbench::CancellationToken token;
    // The default schedule is call 1; cancel during the third candidate.
    o.runner = FakeRunner({}, &calls, [](int n, const workbench::CancellationToken& t) {
      if (n == 4) t.Cancel();
    });
    TuneResult r = Tune(tasks, o, token);
    QVERIFY(r.cancelled);
    QCOMPARE(r.trials, 3);
    QCOMPARE(calls, 4);
  }

  // A real run: candidates built with LLVM, run in child processes, checked and timed; the
  // records then schedule the function in the build, and it still computes the same.
  void tunesAndAppliesForReal() {
    QTemporaryDir dir;
    ir::IRModule module = ParseOrDie(kMatmul);
    TuneOptions o;
    o.max_trials = 6;
    o.num_trials_per_iter = 6;
    o.population_size = 12;
    o.timing = {1, 2, 0, 0, false};
    o.work_dir = dir.path().toStdString();
    std::vector<TuneProgress> progress;
    TuneResult r = Tune(ExtractTasks(module), o, {}, [&](const TuneProgress& p) { progress.push_back(p); });
    QVERIFY2(r.error.empty(), r.error.c_str());
    QCOMPARE(r.trials, 6);
    QCOMPARE(progress.size(), size_t(6));
    QCOMPARE(progress.back().trial, 6);
    const TaskReport& t = r.tasks[0];
    QVERIFY2(t.message.empty(), t.message.c_str());
    QCOMPARE(t.failed, 0);
    QVERIFY(t.best_s && t.default_s && t.gflops());
    std::string error;
    std::optional<JSONDatabase> db = JSONDatabase::Open(o.work_dir, &error);
    QCOMPARE(db->num_workloads(), size_t(1));
    // The default schedule and 6 candidates, then the re-measurements of the best 3 and the
    // default, 3 rounds.
    QVERIFY(t.verified);
    QCOMPARE(r.verify_runs, 12);
    QCOMPARE(db->num_records(), size_t(7 + 12));
    std::optional<size_t> w = db->FindWorkload(WorkloadFunc(MainOf(module)));
    QVERIFY(w.has_value());
    std::optional<TuningRecord> chosen = db->Verified(*w, DatabaseTarget(codegen::Target::Host()));
    QVERIFY(chosen.has_value());
    QCOMPARE(chosen->trace, t.best_trace);
    QCOMPARE(chosen->run_secs.size(), size_t(3));
    AppliedDatabase applied = ApplyDatabase(module, *db, codegen::Target::Host());
    // The verified choice (a candidate's trace or the default schedule's) replays.
    QCOMPARE(applied.applied, std::vector<std::string>{"main"});
    QVERIFY(dlight::IsScheduled(MainOf(applied.module)));
    for (const auto& check : workbench::CheckEquivalence(module, applied.module)) {
      QVERIFY2(check.outcome == workbench::FunctionCheck::Outcome::kEqual, check.detail.c_str());
    }
    // The same records through the pass, as a pipeline names it.
    DiagnosticList diags;
    std::optional<ir::Pass> pass =
        transform::BuildPipeline("MetaScheduleApplyDatabase(work_dir=\"" + o.work_dir + "\")", diags);
    QVERIFY2(pass.has_value(), RenderDiagnostics(diags).c_str());
    ir::IRModule passed = (*pass)(module);
    QVERIFY(ir::StructuralEqual(MainOf(passed), MainOf(applied.module)));
    std::optional<ir::Pass> nowhere =
        transform::BuildPipeline("MetaScheduleApplyDatabase(work_dir=\"/no/such/dir\")", diags);
    QVERIFY(nowhere.has_value());
    bool refused = false;
    try {
      (*nowhere)(module);
    } catch (const ir::PassError& e) {
      refused = std::string(e.what()).find("/no/such/dir") != std::string::npos;
    }
    QVERIFY(refused);
    // Without a record, a function gets its default schedule.
    std::optional<JSONDatabase> empty = JSONDatabase::Open(dir.path().toStdString() + "/empty", &error);
    AppliedDatabase none = ApplyDatabase(module, *empty, codegen::Target::Host());
    QCOMPARE(none.defaulted, std::vector<std::string>{"main"});
  }

  // The builder: modules built in child processes, several at once; what comes back runs and
  // computes what the interpreter does; a build that aborts is kCrashed, one that hangs is
  // kTimedOut, each with a message, and neither takes this process down.
  void isolatedBuildsContainCrashesAndHangs() {
    ir::IRModule mm = ParseOrDie(kMatmul);
    ir::IRModule scale = ParseOrDie(kScale);
    const codegen::Target host = codegen::Target::Host();
    workbench::IsolatedBuildOptions options;
    options.jobs = 2;
    std::vector<workbench::IsolatedBuild> built =
        workbench::CompileIsolated({mm, scale, mm}, host, options);
    QCOMPARE(built.size(), size_t(3));
    for (size_t i = 0; i < built.size(); ++i) {
      QVERIFY2(built[i].compiled.ok(), RenderDiagnostics(built[i].compiled.diagnostics).c_str());
      QCOMPARE(built[i].end, ChildEnd::kFinished);
      QVERIFY(built[i].seconds > 0);
      workbench::RunCheckRequest req;
      req.module = i == 1 ? scale : mm;
      req.reference = workbench::ReferenceKind::kInterpreter;
      req.seed = i;
      workbench::RunCheckResult run = workbench::RunCompiled(built[i].compiled, req);
      QVERIFY2(run.ok(),
               (run.message + (run.functions.empty() ? "" : run.functions[0].message)).c_str());
      QCOMPARE(run.functions[0].reference, std::string("interpreter"));
    }
    workbench::IsolatedBuildOptions crash = options;
    crash.pipeline = "TestingAbort";
    std::vector<workbench::IsolatedBuild> crashed = workbench::CompileIsolated({mm}, host, crash);
    QCOMPARE(crashed[0].end, ChildEnd::kCrashed);
    QVERIFY(!crashed[0].compiled.ok());
    const std::string why = RenderDiagnostics(crashed[0].compiled.diagnostics);
    QVERIFY2(why.find("SIGABRT") != std::string::npos, why.c_str());
    workbench::IsolatedBuildOptions hang = options;
    hang.pipeline = "TestingSleep(seconds=60)";
    hang.timeout_s = 1;
    std::vector<workbench::IsolatedBuild> hung =
        workbench::CompileIsolated({mm, scale}, host, hang);
    for (const workbench::IsolatedBuild& b : hung) {
      QCOMPARE(b.end, ChildEnd::kTimedOut);
      QVERIFY(!b.compiled.ok());
      QVERIFY(!b.compiled.diagnostics.empty());
    }
    // A cancel before the start builds nothing.
    workbench::CancellationToken token;
    token.Cancel();
    std::vector<workbench::IsolatedBuild> none =
        workbench::CompileIsolated({mm, scale}, host, options, token);
    for (const workbench::IsolatedBuild& b : none) {
      QCOMPARE(b.end, ChildEnd::kCancelled);
      QVERIFY(!b.compiled.ok());
    }
  }

  // The search with the real builder and runner, where some candidates' builds crash and others
  // hang: each such one is a failed trial and a failed record, the search goes on, and what the
  // database applies is none of them.
  void crashingAndHangingBuildsAreFailedTrials() {
    QTemporaryDir dir;
    ExtractedTasks tasks;
    TuneTask mm = MatmulTask();
    tasks.tasks = {mm};
    TuneOptions o;
    o.max_trials = 8;
    o.num_trials_per_iter = 8;
    o.population_size = 16;
    o.timing = {1, 1, 0, 0, false};
    o.verify_top_k = 1;
    o.verify_rounds = 1;
    o.work_dir = dir.path().toStdString();
    const codegen::Target host = codegen::Target::Host();
    BuilderFn real = BuildInChildren("llvm", 2, 30);
    std::set<uint64_t> broken;
    int batches = 0;
    o.builder = [&](const std::vector<BuildInput>& batch,
                    const workbench::CancellationToken& token) {
      // Only in the search's batch (the first is the default schedule's, the last the closing
      // re-measurement's): every third candidate's build aborts, every third but one hangs.
      std::vector<BuiltCandidate> out = real(batch, token);
      if (batches++ != 1) return out;
      for (size_t i = 0; i < batch.size(); ++i) {
        if (i % 3 == 2) continue;
        workbench::IsolatedBuildOptions bad;
        bad.pipeline = i % 3 == 0 ? "TestingAbort" : "TestingSleep(seconds=60)";
        bad.timeout_s = 1;
        workbench::IsolatedBuild b = workbench::CompileIsolated(
            {dlight::SingleFunctionModule(batch[i].func)}, host, bad, token)[0];
        out[i] = {batch[i].func, nullptr, RenderDiagnostics(b.compiled.diagnostics), b.seconds};
        broken.insert(ir::StructuralHash(batch[i].func));
      }
      return out;
    };
    TuneResult r = Tune(tasks, o);
    QVERIFY2(r.error.empty(), r.error.c_str());
    const TaskReport& t = r.tasks[0];
    QCOMPARE(r.trials, 8);
    QVERIFY(!broken.empty());
    QCOMPARE(t.failed, static_cast<int>(broken.size()));
    QVERIFY(t.best_s.has_value());
    std::string error;
    std::optional<JSONDatabase> db = JSONDatabase::Open(o.work_dir, &error);
    std::optional<size_t> w = db->FindWorkload(WorkloadFunc(mm.func));
    QVERIFY(w.has_value());
    size_t failed_records = 0;
    for (const TuningRecord& rec : db->Records(*w, DatabaseTarget(host)))
      failed_records += rec.failed();
    QCOMPARE(failed_records, broken.size());
    ir::IRModule applied = ApplyDatabase(dlight::SingleFunctionModule(mm.func), *db, host).module;
    QVERIFY(!broken.count(ir::StructuralHash(MainOf(applied))));
    QVERIFY(r.build_s > 0 && r.build_cpu_s > 0);
  }

  // The batch face: --tune writes the work directory and prints the table; --run --work-dir
  // builds with the records and checks against the reference.
  void batchTuneThenRun() {
    QTemporaryDir dir;
    std::string file = dir.path().toStdString() + "/matmul.py";
    std::ofstream(file) << kMatmul;
    std::string work = dir.path().toStdString() + "/work";
    std::string report = dir.path().toStdString() + "/tune.json";
    std::ostringstream out, err;
    int rc = driver::RunBatch({file, "--tune", "--target", "llvm", "--trials", "3", "--work-dir", work, "--seed",
                               "2", "--json", report},
                              out, err);
    QVERIFY2(rc == 0, (out.str() + err.str()).c_str());
    QVERIFY2(out.str().find("[3/3] main") != std::string::npos, out.str().c_str());
    QVERIFY2(out.str().find("speedup") != std::string::npos, out.str().c_str());
    QVERIFY(std::filesystem::exists(work + "/database_tuning_record.json"));
    std::ifstream in(report);
    nlohmann::json j = nlohmann::json::parse(in);
    QCOMPARE(j["tasks"][0]["trials"].get<int>(), 3);
    QVERIFY(j["tasks"][0]["best_median_s"].is_number());
    std::ostringstream out2, err2;
    rc = driver::RunBatch({file, "--run", "--work-dir", work}, out2, err2);
    QVERIFY2(rc == 0, (out2.str() + err2.str()).c_str());
    QVERIFY2(out2.str().find("tuning records applied: main") != std::string::npos, out2.str().c_str());
    QVERIFY2(out2.str().find("matches") != std::string::npos, out2.str().c_str());
    // Misuse is told, not guessed.
    std::ostringstream out3, err3;
    QCOMPARE(driver::RunBatch({file, "--tune", "--trials", "3"}, out3, err3), 2);
    QVERIFY(err3.str().find("--work-dir") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestMetaSchedule)
#include "tst_meta_schedule.moc"
