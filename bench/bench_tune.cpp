// Tuning cost and result: a workload tuned by core/meta_schedule for TRIALS trials on each thread
// count (records are per thread count), then the tuner's choice built and timed against the
// reference users would pick instead and against the default schedule (core/dlight), interleaved
// in the same run, on that many threads. Prints what the search measured, what the closing
// re-measurement chose (search.h), and what the build gives; trials per second and where the
// tuning time went (builds, in parallel child processes; the candidates' runs; the search:
// sampling, mutation, postprocessors and features; the cost model).
//   bench_tune [WORKLOAD] [TRIALS] [WORK_DIR] [ROUNDS] [THREADS]
// WORKLOAD: N, an NxNxN float32 sgemm against OpenBLAS cblas_sgemm (default 1024); or conv2d, 3x3
// 64->64 channels over 56x56, batch 1, NCHW, padding 1 (R.nn.conv2d legalized and fused) against
// oneDNN where libdnnl-dev is installed. TRIALS default 64; THREADS: 1, 2 or 1,2 (the default).
// Not a test: it prints figures.
#include <cblas.h>

#ifdef WB_HAVE_DNNL
#include "onednn_conv2d.h"
#endif

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "codegen/build.h"
#include "dlight/cpu/rules.h"
#include "dlight/schedule_rule.h"
#include "ir/structural_equal.h"
#include "meta_schedule/apply.h"
#include "meta_schedule/database.h"
#include "meta_schedule/search.h"
#include "meta_schedule/task.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"
#include "script/tvmscript.h"
#include "workbench/run_check.h"

using namespace wb;
using runtime::NDArray;

namespace {

std::string MatmulScript(int n) {
  std::string s = std::to_string(n);
  return "@I.ir_module\nclass Module:\n    @T.prim_func(s_tir=True)\n"
         "    def main(A: T.Buffer((" + s + ", " + s + "), \"float32\"), B: T.Buffer((" + s + ", " + s +
         "), \"float32\"), C: T.Buffer((" + s + ", " + s + "), \"float32\")):\n"
         "        T.func_attr({\"tirx.noalias\": True})\n"
         "        for i, j, k in T.grid(" + s + ", " + s + ", " + s + "):\n"
         "            with T.sblock(\"C\"):\n"
         "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
         "                T.reads(A[vi, vk], B[vk, vj])\n"
         "                T.writes(C[vi, vj])\n"
         "                with T.init():\n"
         "                    C[vi, vj] = T.float32(0.0)\n"
         "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
}

const char* kConv2d = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 64, 56, 56), dtype="float32"), w: R.Tensor((64, 64, 3, 3), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1])
            R.output(gv)
        return gv
)";

ir::IRModule ParseOrExit(const std::string& text) {
  script::ParseResult parsed = script::Parse(text, "workload.py");
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s\n", RenderDiagnostics(parsed.diagnostics).c_str());
    std::exit(1);
  }
  return parsed.module;
}

runtime::PackedFunc BuildMain(const ir::IRModule& module) {
  codegen::BuildResult built = codegen::Build(module, codegen::Target::Host());
  if (!built.ok()) {
    std::fprintf(stderr, "build failed: %s\n", RenderDiagnostics(built.diagnostics).c_str());
    std::exit(1);
  }
  static std::vector<runtime::Module> keep;
  keep.push_back(built.module);
  return built.module.get_function("main");
}

runtime::PackedFunc Call(std::function<void()> f) {
  return runtime::PackedFunc(
      [f](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) { f(); });
}

// What is tuned (a TIR module with one "main"), its arguments, and the reference it is timed
// against (which writes `expected`).
struct Workload {
  std::string name;
  ir::IRModule module;
  std::vector<NDArray> args;  // the last one is the output
  NDArray expected;
  double gflop = 0;
  std::string reference_name;
  runtime::PackedFunc reference;                 // null: none on this machine
  std::function<void(int threads)> set_threads;  // the reference's
};

Workload Sgemm(int n) {
  Workload w;
  w.name = "sgemm " + std::to_string(n);
  w.module = ParseOrExit(MatmulScript(n));
  for (int i = 0; i < 3; ++i) w.args.push_back(NDArray::Empty({n, n}, runtime::Float(32)));
  runtime::FillRandom(w.args[0], 1);
  runtime::FillRandom(w.args[1], 2);
  w.expected = NDArray::Empty({n, n}, runtime::Float(32));
  auto* pa = reinterpret_cast<float*>(w.args[0].ElementData());
  auto* pb = reinterpret_cast<float*>(w.args[1].ElementData());
  auto* pr = reinterpret_cast<float*>(w.expected.ElementData());
  w.gflop = 2.0 * n * n * n / 1e9;
  w.reference_name = "OpenBLAS";
  w.reference = Call([=] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, pa, n, pb, n, 0.0f, pr,
                n);
  });
  w.set_threads = [](int threads) { openblas_set_num_threads(threads); };
  return w;
}

Workload Conv2d() {
  Workload w;
  w.name = "conv2d 3x3 64->64 56x56";
  // The fused kernel of the legalized Relax function, as the tuner extracts it.
  meta_schedule::ExtractedTasks tasks = meta_schedule::ExtractTasks(ParseOrExit(kConv2d));
  if (tasks.tasks.size() != 1) {
    std::fprintf(stderr, "conv2d: %zu tasks (%s)\n", tasks.tasks.size(), tasks.error.c_str());
    std::exit(1);
  }
  w.module = dlight::SingleFunctionModule(tasks.tasks[0].func);
  w.args = {NDArray::Empty({1, 64, 56, 56}, runtime::Float(32)),
            NDArray::Empty({64, 64, 3, 3}, runtime::Float(32)),
            NDArray::Empty({1, 64, 56, 56}, runtime::Float(32))};
  runtime::FillRandom(w.args[0], 6);
  runtime::FillRandom(w.args[1], 7);
  w.expected = NDArray::Empty({1, 64, 56, 56}, runtime::Float(32));
  w.gflop = 2.0 * 64 * 64 * 9 * 56 * 56 / 1e9;
#ifdef WB_HAVE_DNNL
  auto onednn = std::make_shared<bench::OneDnnConv2d>(
      64, 64, 56, 56, reinterpret_cast<const float*>(w.args[0].ElementData()),
      reinterpret_cast<const float*>(w.args[1].ElementData()),
      reinterpret_cast<float*>(w.expected.ElementData()));
  w.reference_name = "oneDNN (" + onednn->Implementation() + ")";
  w.reference = Call([onednn] { onednn->Run(); });
  w.set_threads = [](int threads) { bench::OneDnnConv2d::SetThreads(threads); };
#else
  w.reference_name = "oneDNN (not built: libdnnl-dev was not found at configure time)";
#endif
  return w;
}

std::vector<int> ParseThreads(const std::string& text) {
  std::vector<int> out;
  for (size_t at = 0; at < text.size();) {
    size_t comma = text.find(',', at);
    out.push_back(std::atoi(text.substr(at, comma - at).c_str()));
    at = comma == std::string::npos ? text.size() : comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "1024";
  const int trials = argc > 2 ? std::atoi(argv[2]) : 64;
  std::string work_dir = argc > 3 ? argv[3] : "";
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 7;
  const std::vector<int> thread_counts = ParseThreads(argc > 5 ? argv[5] : "1,2");
  if (work_dir.empty()) {
    work_dir = (std::filesystem::temp_directory_path() / ("bench_tune_" + std::to_string(getpid()))).string();
  }
  auto& pool = runtime::ThreadPool::Global();
  std::printf(
      "host: %s, pool threads %d, %u cores (the machine is shared with other builds: figures are "
      "noisy)\n",
      codegen::Target::Host().str().c_str(), pool.num_threads(),
      std::thread::hardware_concurrency());
  Workload w = which == "conv2d" ? Conv2d() : Sgemm(std::atoi(which.c_str()));
  std::printf("%s, %d trials, work directory %s\n", w.name.c_str(), trials, work_dir.c_str());
  tir::PrimFunc func = w.module->Lookup("main").as_ref<tir::PrimFuncNode>();
  std::vector<runtime::PackedArg> args(w.args.begin(), w.args.end());
  // Tuned for each thread count the kernel then runs on (the records are kept per thread count,
  // and the search measures on as many threads as the build runs with).
  for (int threads : thread_counts) {
    pool.SetNumThreads(threads);
    if (w.set_threads) w.set_threads(threads);
    meta_schedule::TuneOptions options;
    options.target = "llvm -num-cores=" + std::to_string(threads);
    options.max_trials = trials;
    options.work_dir = work_dir;
    int last = 0;
    meta_schedule::TuneResult tuned = meta_schedule::Tune(
        meta_schedule::ExtractTasks(w.module), options, {},
        [&](const meta_schedule::TuneProgress& p) {
          if (p.trial - last >= 16 || p.trial == p.total) {
            last = p.trial;
            std::printf("  [%d/%d] best %.3f ms, ETA %.0f s\n", p.trial, p.total, p.best_s.value_or(0) * 1e3,
                        p.eta_s);
            std::fflush(stdout);
          }
        });
    if (!tuned.error.empty()) {
      std::fprintf(stderr, "tuning failed: %s\n", tuned.error.c_str());
      return 1;
    }
    const meta_schedule::TaskReport& task = tuned.tasks[0];
    auto pct = [&](double s) { return 100 * s / tuned.total_s; };
    std::printf(
        "%d thread%s: tuning %d trials (%d failed, %d of them cut as too slow) + %d "
        "re-measurements in %.1f s = %.2f trials/s; "
        "build %.1f s "
        "(%.0f%%; %.1f s of builds in parallel), run %.1f s (%.0f%%), search %.1f s (%.0f%%), cost "
        "model "
        "%.1f s (%.0f%%)\n",
        threads, threads > 1 ? "s" : "", tuned.trials, task.failed, task.too_slow,
        tuned.verify_runs, tuned.total_s, tuned.trials / tuned.total_s, tuned.build_s,
        pct(tuned.build_s), tuned.build_cpu_s, tuned.run_s, pct(tuned.run_s), tuned.generate_s,
        pct(tuned.generate_s), tuned.model_s, pct(tuned.model_s));
    if (!task.message.empty()) std::printf("task: %s\n", task.message.c_str());
    std::printf("  population seeded with the default schedule: %s; %d trials of its sketch\n",
                task.seeded ? "yes" : ("no (" + task.seed_message + ")").c_str(), task.default_sketch_trials);
    std::printf("  search best %.3f ms; re-measured%s: default %.3f ms, chosen %.3f ms (%.2fx)%s\n",
                task.search_best_s.value_or(0) * 1e3, task.verified ? "" : " (not)", task.default_s.value_or(0) * 1e3,
                task.best_s.value_or(0) * 1e3, task.speedup().value_or(0),
                task.verified && task.speedup().value_or(0) <= 1 ? " - the default schedule stays" : "");

    std::string error;
    std::optional<meta_schedule::JSONDatabase> db = meta_schedule::JSONDatabase::Open(work_dir, &error);
    meta_schedule::AppliedDatabase applied =
        meta_schedule::ApplyDatabase(w.module, *db, codegen::Target::Host());
    runtime::PackedFunc best = BuildMain(applied.module);
    auto dflt = dlight::ApplyRules(func, codegen::Target::Host(), dlight::cpu::DefaultRules());
    tir::PrimFunc chosen = applied.module->Lookup("main").as_ref<tir::PrimFuncNode>();
    if (dflt && ir::StructuralEqual(chosen->body, dflt->schedule.Func()->body)) {
      std::printf("  the build applies the default schedule: tuned/default below is the noise of this machine\n");
    }
    runtime::PackedFunc baseline =
        BuildMain(dflt ? dlight::SingleFunctionModule(dflt->schedule.Func()) : w.module);
    std::vector<workbench::TimedCall> calls = {{best, args}, {baseline, args}};
    if (w.reference.defined()) {
      best.Call(args);
      w.reference.Call({});
      runtime::CompareResult check = runtime::Compare(w.args.back(), w.expected, {1e-4, 1e-4});
      std::printf("  tuned result vs %s: %s\n", w.reference_name.c_str(),
                  check.ok ? "equal within 1e-4" : check.message.c_str());
      calls.push_back({w.reference, {}});
    } else {
      std::printf("  no reference: %s\n", w.reference_name.c_str());
    }
    std::vector<runtime::TimeEvaluatorResult> t =
        workbench::TimeInterleaved(calls, rounds, {.number = 3, .repeat = 1});
    const double mb = t[0].median_s(), md = t[1].median_s();
    std::printf(
        "  built: tuned %.3f ms %.1f GFLOP/s (%.3f-%.3f) | default %.3f ms %.1f GFLOP/s | "
        "tuned/default %.2fx\n",
        mb * 1e3, w.gflop / mb, t[0].min_s() * 1e3, t[0].max_s() * 1e3, md * 1e3, w.gflop / md,
        md / mb);
    if (w.reference.defined()) {
      const double mr = t[2].median_s();
      std::printf("  %s %.3f ms %.1f GFLOP/s (%.3f-%.3f) | tuned/reference %.2fx\n",
                  w.reference_name.c_str(), mr * 1e3, w.gflop / mr, t[2].min_s() * 1e3,
                  t[2].max_s() * 1e3, mr / mb);
    }
  }
  return 0;
}
