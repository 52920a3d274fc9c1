// Tuning cost and result: a workload tuned by core/meta_schedule for TRIALS trials on each thread
// count (records are per thread count), then the tuner's choice built and timed against the
// reference users would pick instead and against the default schedule (core/dlight), interleaved
// in the same run, on that many threads. Prints what the search measured, what the closing
// re-measurement chose (search.h), and what the build gives; trials per second and where the
// tuning time went (builds, in parallel child processes; the candidates' runs; the search:
// sampling, mutation, postprocessors and features; the cost model).
//   bench_tune [WORKLOAD] [TRIALS] [WORK_DIR] [ROUNDS] [THREADS]
// WORKLOAD: N, an NxNxN float32 sgemm against OpenBLAS cblas_sgemm (default 1024); conv2d, 3x3
// 64->64 channels over 56x56, batch 1, NCHW, padding 1 (R.nn.conv2d legalized and fused), or
// conv2d14, 3x3 256->256 over 14x14 (ResNet's stage 4), against oneDNN where libdnnl-dev is
// installed; mlp, the MLP 64x784 -> 256 relu -> 10 through the Relax VM (its fused kernels tuned,
// the VM built with the records) against OpenBLAS sgemm + bias/relu loops. TRIALS default 64;
// THREADS: 1, 2 or 1,2 (the default).
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
#include "runtime/vm/vm.h"
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

std::string Conv2dScript(int c, int hw) {
  const std::string cs = std::to_string(c), s = std::to_string(hw);
  return "@I.ir_module\nclass Module:\n    @R.function\n"
         "    def main(x: R.Tensor((1, " + cs + ", " + s + ", " + s + "), dtype=\"float32\"), w: R.Tensor((" + cs +
         ", " + cs + ", 3, 3), dtype=\"float32\")):\n"
         "        with R.dataflow():\n"
         "            gv = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1])\n"
         "            R.output(gv)\n"
         "        return gv\n";
}

constexpr int kIn = 784, kHidden = 256, kOut = 10, kBatch = 64;

const char* kMlp = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((64, 784), dtype="float32"), w0: R.Tensor((784, 256), dtype="float32"), b0: R.Tensor((256,), dtype="float32"), w1: R.Tensor((256, 10), dtype="float32"), b1: R.Tensor((10,), dtype="float32")):
        with R.dataflow():
            lv = R.matmul(x, w0)
            lv1 = R.add(lv, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, w1)
            gv = R.add(lv3, b1)
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
  bool relax = false;  // module is a Relax module run through the VM (its "main")
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

Workload Conv2d(int c, int hw) {
  Workload w;
  w.name = "conv2d 3x3 " + std::to_string(c) + "->" + std::to_string(c) + " " + std::to_string(hw) + "x" +
           std::to_string(hw);
  // The fused kernel of the legalized Relax function, as the tuner extracts it.
  meta_schedule::ExtractedTasks tasks = meta_schedule::ExtractTasks(ParseOrExit(Conv2dScript(c, hw)));
  if (tasks.tasks.size() != 1) {
    std::fprintf(stderr, "conv2d: %zu tasks (%s)\n", tasks.tasks.size(), tasks.error.c_str());
    std::exit(1);
  }
  w.module = dlight::SingleFunctionModule(tasks.tasks[0].func);
  w.args = {NDArray::Empty({1, c, hw, hw}, runtime::Float(32)),
            NDArray::Empty({c, c, 3, 3}, runtime::Float(32)),
            NDArray::Empty({1, c, hw, hw}, runtime::Float(32))};
  runtime::FillRandom(w.args[0], 6);
  runtime::FillRandom(w.args[1], 7);
  w.expected = NDArray::Empty({1, c, hw, hw}, runtime::Float(32));
  w.gflop = 2.0 * c * c * 9 * hw * hw / 1e9;
#ifdef WB_HAVE_DNNL
  auto onednn = std::make_shared<bench::OneDnnConv2d>(
      c, c, hw, hw, reinterpret_cast<const float*>(w.args[0].ElementData()),
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

Workload Mlp() {
  Workload w;
  w.name = "MLP 64x784 -> 256 relu -> 10 (VM)";
  w.module = ParseOrExit(kMlp);
  w.relax = true;
  w.args = {NDArray::Empty({kBatch, kIn}, runtime::Float(32)), NDArray::Empty({kIn, kHidden}, runtime::Float(32)),
            NDArray::Empty({kHidden}, runtime::Float(32)), NDArray::Empty({kHidden, kOut}, runtime::Float(32)),
            NDArray::Empty({kOut}, runtime::Float(32))};
  for (size_t i = 0; i < w.args.size(); ++i) runtime::FillRandom(w.args[i], 20 + i);
  w.expected = NDArray::Empty({kBatch, kOut}, runtime::Float(32));
  auto hidden = std::make_shared<NDArray>(NDArray::Empty({kBatch, kHidden}, runtime::Float(32)));
  auto F = [](const NDArray& a) { return reinterpret_cast<float*>(a.ElementData()); };
  const float *x = F(w.args[0]), *w0 = F(w.args[1]), *b0 = F(w.args[2]), *w1 = F(w.args[3]), *b1 = F(w.args[4]);
  float *h = F(*hidden), *y = F(w.expected);
  w.gflop = 2.0 * kBatch * (double(kIn) * kHidden + double(kHidden) * kOut) / 1e9;
  w.reference_name = "OpenBLAS sgemm + bias/relu loops";
  w.reference = Call([=] {
    (void)hidden;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kBatch, kHidden, kIn, 1.0f, x, kIn, w0, kHidden, 0.0f, h,
                kHidden);
    for (int i = 0; i < kBatch; ++i) {
      for (int j = 0; j < kHidden; ++j) h[i * kHidden + j] = std::max(h[i * kHidden + j] + b0[j], 0.0f);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kBatch, kOut, kHidden, 1.0f, h, kHidden, w1, kOut, 0.0f, y,
                kOut);
    for (int i = 0; i < kBatch; ++i) {
      for (int j = 0; j < kOut; ++j) y[i * kOut + j] += b1[j];
    }
  });
  w.set_threads = [](int threads) { openblas_set_num_threads(threads); };
  return w;
}

// A Relax module built for the VM (with its default schedules where nothing else scheduled a
// kernel): "main" called with `args`, its result into *out.
runtime::PackedFunc BuildVMMain(const ir::IRModule& module, const std::vector<NDArray>& args,
                                std::shared_ptr<NDArray> out) {
  workbench::CompiledModule compiled = workbench::Compile(module, codegen::Target::Host());
  if (!compiled.ok()) {
    std::fprintf(stderr, "VM build failed: %s\n", RenderDiagnostics(compiled.diagnostics).c_str());
    std::exit(1);
  }
  auto machine = std::make_shared<runtime::vm::VirtualMachine>(compiled.exec, compiled.kernels);
  std::vector<runtime::vm::Value> values(args.begin(), args.end());
  return Call([machine, values, out] { *out = machine->Invoke("main", values).tensor; });
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
  Workload w = which == "conv2d"     ? Conv2d(64, 56)
               : which == "conv2d14" ? Conv2d(256, 14)
               : which == "mlp"      ? Mlp()
                                     : Sgemm(std::atoi(which.c_str()));
  std::printf("%s, %d trials, work directory %s\n", w.name.c_str(), trials, work_dir.c_str());
  tir::PrimFunc func = w.relax ? tir::PrimFunc() : w.module->Lookup("main").as_ref<tir::PrimFuncNode>();
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
    auto pct = [&](double s) { return 100 * s / tuned.total_s; };
    int failed = 0, too_slow = 0;
    for (const auto& t : tuned.tasks) {
      failed += t.failed;
      too_slow += t.too_slow;
    }
    std::printf(
        "%d thread%s: tuning %d trials (%d failed, %d of them cut as too slow) + %d "
        "re-measurements in %.1f s = %.2f trials/s; "
        "build %.1f s "
        "(%.0f%%; %.1f s of builds in parallel), run %.1f s (%.0f%%), search %.1f s (%.0f%%), cost "
        "model "
        "%.1f s (%.0f%%)\n",
        threads, threads > 1 ? "s" : "", tuned.trials, failed, too_slow,
        tuned.verify_runs, tuned.total_s, tuned.trials / tuned.total_s, tuned.build_s,
        pct(tuned.build_s), tuned.build_cpu_s, tuned.run_s, pct(tuned.run_s), tuned.generate_s,
        pct(tuned.generate_s), tuned.model_s, pct(tuned.model_s));
    for (const meta_schedule::TaskReport& task : tuned.tasks) {
      std::printf("  task %s (weight %d): %d trials\n", task.name.c_str(), task.weight, task.trials);
      if (!task.message.empty()) std::printf("    %s\n", task.message.c_str());
      std::printf("    population seeded with the default schedule: %s; %d trials of its sketch; blocked "
                  "sketch: %s, %d trials\n",
                  task.seeded ? "yes" : ("no (" + task.seed_message + ")").c_str(), task.default_sketch_trials,
                  task.blocked ? "yes" : ("no (" + task.blocked_message + ")").c_str(), task.blocked_sketch_trials);
      std::printf("    search best %.3f ms; re-measured%s: default %.3f ms, chosen %.3f ms (%.2fx)%s\n",
                  task.search_best_s.value_or(0) * 1e3, task.verified ? "" : " (not)",
                  task.default_s.value_or(0) * 1e3, task.best_s.value_or(0) * 1e3, task.speedup().value_or(0),
                  task.verified && task.speedup().value_or(0) <= 1 ? " - the default schedule stays" : "");
      if (task.verified && task.speedup().value_or(0) > 1) std::printf("    chosen trace:\n%s\n", task.best_trace.c_str());
    }

    std::string error;
    std::optional<meta_schedule::JSONDatabase> db = meta_schedule::JSONDatabase::Open(work_dir, &error);
    meta_schedule::AppliedDatabase applied =
        meta_schedule::ApplyDatabase(w.module, *db, codegen::Target::Host());
    runtime::PackedFunc best, baseline;
    auto vm_out = std::make_shared<NDArray>();
    if (w.relax) {
      std::printf("  records applied to: %zu kernel(s), default schedules: %zu\n", applied.applied.size(),
                  applied.defaulted.size());
      best = BuildVMMain(applied.module, w.args, vm_out);
      // The same fused kernels with their default schedules (the build's own, without records).
      baseline = BuildVMMain(meta_schedule::ExtractTasks(w.module).module, w.args, std::make_shared<NDArray>());
    } else {
      best = BuildMain(applied.module);
      auto dflt = dlight::ApplyRules(func, codegen::Target::Host(), dlight::cpu::DefaultRules());
      tir::PrimFunc chosen = applied.module->Lookup("main").as_ref<tir::PrimFuncNode>();
      if (dflt && ir::StructuralEqual(chosen->body, dflt->schedule.Func()->body)) {
        std::printf("  the build applies the default schedule: tuned/default below is the noise of this machine\n");
      }
      baseline = BuildMain(dflt ? dlight::SingleFunctionModule(dflt->schedule.Func()) : w.module);
    }
    const std::vector<runtime::PackedArg> call_args = w.relax ? std::vector<runtime::PackedArg>{} : args;
    std::vector<workbench::TimedCall> calls = {{best, call_args}, {baseline, call_args}};
    if (w.reference.defined()) {
      best.Call(call_args);
      w.reference.Call({});
      runtime::CompareResult check =
          runtime::Compare(w.relax ? *vm_out : w.args.back(), w.expected, {1e-4, 1e-4});
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
