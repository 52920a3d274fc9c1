// Tuning cost and result: an NxNxN float32 matmul (default 512) tuned by core/meta_schedule for
// T trials (default 64) for 1 and then 2 threads (records are per thread count), then the tuner's
// choice built and timed against OpenBLAS cblas_sgemm and against the default schedule
// (core/dlight), interleaved in the same run, on that many threads. Prints what the search
// measured, what the closing re-measurement chose (search.h), and what the build gives.
// Prints trials per second and where the tuning time went (search: sampling, mutation,
// postprocessors and features; cost model; build and run of the candidates).
//   bench_tune [N] [TRIALS] [WORK_DIR] [ROUNDS]
// Not a test: it prints figures.
#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>
#include <string>
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

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  const int trials = argc > 2 ? std::atoi(argv[2]) : 64;
  std::string work_dir = argc > 3 ? argv[3] : "";
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 7;
  if (work_dir.empty()) {
    work_dir = (std::filesystem::temp_directory_path() / ("bench_tune_" + std::to_string(getpid()))).string();
  }
  auto& pool = runtime::ThreadPool::Global();
  std::printf("host: %s, pool threads %d (the machine is shared with other builds: figures are noisy)\n",
              codegen::Target::Host().str().c_str(), pool.num_threads());
  std::printf("sgemm %d^3, %d trials, work directory %s\n", n, trials, work_dir.c_str());
  script::ParseResult parsed = script::Parse(MatmulScript(n), "matmul.py");
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s\n", RenderDiagnostics(parsed.diagnostics).c_str());
    return 1;
  }
  tir::PrimFunc func = parsed.module->Lookup("main").as_ref<tir::PrimFuncNode>();
  NDArray a = NDArray::Empty({n, n}, runtime::Float(32)), b = NDArray::Empty({n, n}, runtime::Float(32));
  NDArray c = NDArray::Empty({n, n}, runtime::Float(32)), ref = NDArray::Empty({n, n}, runtime::Float(32));
  runtime::FillRandom(a, 1);
  runtime::FillRandom(b, 2);
  auto* pa = reinterpret_cast<float*>(a.ElementData());
  auto* pb = reinterpret_cast<float*>(b.ElementData());
  auto* pr = reinterpret_cast<float*>(ref.ElementData());
  runtime::PackedFunc sgemm([&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, pa, n, pb, n, 0.0f, pr, n);
  });
  const double gflop = 2.0 * n * n * n / 1e9;
  // Tuned for each thread count the kernel then runs on (the records are kept per thread count,
  // and the search measures on as many threads as the build runs with).
  for (int threads : {1, 2}) {
    pool.SetNumThreads(threads);
    openblas_set_num_threads(threads);
    meta_schedule::TuneOptions options;
    options.target = "llvm -num-cores=" + std::to_string(threads);
    options.max_trials = trials;
    options.work_dir = work_dir;
    int last = 0;
    meta_schedule::TuneResult tuned = meta_schedule::Tune(
        meta_schedule::ExtractTasks(parsed.module), options, {}, [&](const meta_schedule::TuneProgress& p) {
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
    std::printf("%d thread%s: tuning %d trials (%d failed) + %d re-measurements in %.1f s = %.2f trials/s; build %.1f s "
                "(%.0f%%), run %.1f s (%.0f%%), search %.1f s (%.0f%%), cost model %.1f s (%.0f%%)\n",
                threads, threads > 1 ? "s" : "", tuned.trials, task.failed, tuned.verify_runs, tuned.total_s,
                tuned.trials / tuned.total_s, tuned.build_s, 100 * tuned.build_s / tuned.total_s, tuned.run_s,
                100 * tuned.run_s / tuned.total_s, tuned.generate_s, 100 * tuned.generate_s / tuned.total_s,
                tuned.model_s, 100 * tuned.model_s / tuned.total_s);
    if (!task.message.empty()) std::printf("task: %s\n", task.message.c_str());
    std::printf("  search best %.3f ms; re-measured%s: default %.3f ms, chosen %.3f ms (%.2fx)%s\n",
                task.search_best_s.value_or(0) * 1e3, task.verified ? "" : " (not)", task.default_s.value_or(0) * 1e3,
                task.best_s.value_or(0) * 1e3, task.speedup().value_or(0),
                task.verified && task.speedup().value_or(0) <= 1 ? " - the default schedule stays" : "");

    std::string error;
    std::optional<meta_schedule::JSONDatabase> db = meta_schedule::JSONDatabase::Open(work_dir, &error);
    meta_schedule::AppliedDatabase applied =
        meta_schedule::ApplyDatabase(parsed.module, *db, codegen::Target::Host());
    runtime::PackedFunc best = BuildMain(applied.module);
    auto dflt = dlight::ApplyRules(func, codegen::Target::Host(), dlight::cpu::DefaultRules());
    tir::PrimFunc chosen = applied.module->Lookup("main").as_ref<tir::PrimFuncNode>();
    if (ir::StructuralEqual(chosen->body, dflt->schedule.Func()->body)) {
      std::printf("  the build applies the default schedule: tuned/default below is the noise of this machine\n");
    }
    runtime::PackedFunc baseline = BuildMain(dlight::SingleFunctionModule(dflt->schedule.Func()));
    best(a, b, c);
    sgemm.Call({});
    runtime::CompareResult check = runtime::Compare(c, ref, {1e-4, 1e-4});
    std::printf("  tuned result vs OpenBLAS: %s\n", check.ok ? "equal within 1e-4" : check.message.c_str());
    std::vector<runtime::TimeEvaluatorResult> t = workbench::TimeInterleaved(
        {{best, {a, b, c}}, {sgemm, {}}, {baseline, {a, b, c}}}, rounds, {.number = 3, .repeat = 1});
    double mb = t[0].median_s(), mr = t[1].median_s(), md = t[2].median_s();
    std::printf("  built: tuned %.3f ms %.1f GFLOP/s | OpenBLAS %.3f ms %.1f GFLOP/s | default %.3f ms %.1f "
                "GFLOP/s | tuned/OpenBLAS %.2fx, tuned/default %.2fx\n",
                mb * 1e3, gflop / mb, mr * 1e3, gflop / mr, md * 1e3, gflop / md, mr / mb, md / mb);
  }
  return 0;
}
