// Default-scheduled kernels (core/dlight's CPU rules, as default_build_pipeline applies them)
// against the references users would pick instead (PERFORMANCE.md), on 1 and 2 threads:
//   1. sgemm 1024 (R.matmul legalized) against OpenBLAS cblas_sgemm, and GEMV 4096 x 4096 times a
//      vector (R.matmul of (N, K) x (K,), the GEMV rule) against OpenBLAS cblas_sgemv;
//   2. softmax over 4096x4096 rows (R.nn.softmax legalized) against a hand-vectorized loop
//      compiled -O3 -march=native (softmax_reference.cpp);
//   3. vector add of 64M floats (R.add legalized) against a plain loop;
//   4. conv2d 3x3, 64->64 channels, 56x56, batch 1, NCHW (R.nn.conv2d legalized) against im2col
//      + OpenBLAS sgemm and, where libdnnl-dev is installed, oneDNN (NCHW data in and out, its
//      weights reordered to the layout it prefers once, outside the timing);
//   5. max pooling 3x3, stride 2, padding 1 over 64 channels of 112x112 (a ResNet stem's pool),
//      NCHW and NHWC (R.nn.max_pool2d legalized, the Pool rule) against oneDNN's pooling in
//      the same layout, where libdnnl-dev is installed;
//   6. ResNet's later conv2d stages, 3x3 NCHW batch 1: 256->256 at 14x14 and 512->512 at 7x7
//      (rows too narrow for whole vectors: the Conv2d rule's channel-blocked tile) against
//      oneDNN, where libdnnl-dev is installed;
//   7. the sum of 64M floats to a scalar (R.sum over every axis, the Reduction rule's full
//      reduction) against a hand-vectorized loop compiled -O3 -march=native (sum_reference.cpp);
//   8. ResNet's stem conv2d, 7x7, stride 2, padding 3, 3 -> 64 channels, 224x224 -> 112x112,
//      NCHW batch 1, against oneDNN, where libdnnl-dev is installed (and the Fallback's schedule);
// and what the default schedule costs at compile time per kernel (choosing and applying the
// rule; the LLVM build with and without it; in wall-clock time and in the thread's CPU time,
// which a shared host's preemptions do not inflate). Ours and the reference alternate in the same
// run; each line prints both medians, the min-max spreads and the ratio. Usage: bench_dlight
// [ROUNDS [FILTER]] (FILTER: only the workloads whose name contains it: sgemm, gemv, softmax,
// add, conv2d, maxpool, resnet, stem, sum). WB_SOFTMAX_ROWS=N: softmax over N rows of 4096 (32: in L2, the
// computation without the memory); WB_BENCH_ASM=DIR: each kernel's optimized LLVM IR written
// there (WB_BENCH_ASM_FORMAT=asm: its assembly).
#include <cblas.h>

#ifdef WB_HAVE_DNNL
#include <omp.h>

#include <dnnl.hpp>

#include "onednn_conv2d.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "codegen/build.h"
#include "dlight/cpu/rules.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"
#include "script/tvmscript.h"
#include "softmax_reference.h"
#include "sum_reference.h"
#include "transform/registry.h"

using namespace wb;
using runtime::NDArray;

namespace {

double Ms(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The one kernel `relax` legalizes to.
tir::PrimFunc Legalized(const std::string& relax) {
  script::ParseResult parsed = script::Parse(relax, "bench.py");
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s", RenderDiagnostics(parsed.diagnostics).c_str());
    std::exit(1);
  }
  DiagnosticList diags;
  ir::IRModule lowered = (*transform::BuildPipeline("LegalizeOps", diags))(parsed.module);
  for (size_t i = 0; i < lowered->size(); ++i) {
    if (auto f = lowered->functions[i].as_ref<tir::PrimFuncNode>(); f.defined()) return f;
  }
  std::fprintf(stderr, "no kernel\n");
  std::exit(1);
}

double ThreadCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Kernel {
  runtime::PackedFunc func;
  std::string rule;
  double schedule_ms = 0;  // choosing and applying the rule
  double build_ms = 0;     // TIR lowering + LLVM + JIT of the scheduled kernel
  double plain_build_ms = 0;
  // The same in the calling thread's CPU time (the build runs on it): what the compile costs
  // without the preemptions of a shared host, which make wall-clock builds 2-3x slower.
  double schedule_cpu_ms = 0, build_cpu_ms = 0, plain_build_cpu_ms = 0;
};

// `without`: the default rules but that one (what the kernel got before the rule took it).
Kernel Build(const std::string& relax, const std::string& without = "") {
  using clock = std::chrono::steady_clock;
  tir::PrimFunc func = Legalized(relax);
  std::vector<dlight::ScheduleRule> rules = dlight::cpu::DefaultRules();
  std::erase_if(rules, [&](const dlight::ScheduleRule& r) { return r.name == without; });
  codegen::Target host = codegen::Target::Host();
  Kernel k;
  // Each build three times, alternating, the fastest kept (the host is shared: a build's time
  // varies 2x between runs).
  std::optional<dlight::AppliedRule> applied;
  codegen::BuildResult built, plain;
  k.schedule_ms = k.build_ms = k.plain_build_ms = 1e30;
  k.schedule_cpu_ms = k.build_cpu_ms = k.plain_build_cpu_ms = 1e30;
  for (int r = 0; r < 3; ++r) {
    auto t0 = clock::now();
    double c0 = ThreadCpuSeconds();
    applied = dlight::ApplyRules(func, host, rules);
    auto t1 = clock::now();
    double c1 = ThreadCpuSeconds();
    // As the rule scheduled it: a schedule that changed nothing (a Fallback with nothing to do)
    // would otherwise get the default schedule again in the build.
    codegen::BuildOptions as_written;
    as_written.default_schedule = false;
    built = codegen::Build(applied->schedule.mod(), host, as_written);
    auto t2 = clock::now();
    double c2 = ThreadCpuSeconds();
    plain = codegen::Build(dlight::SingleFunctionModule(func), host, as_written);
    auto t3 = clock::now();
    double c3 = ThreadCpuSeconds();
    k.schedule_cpu_ms = std::min(k.schedule_cpu_ms, (c1 - c0) * 1e3);
    k.build_cpu_ms = std::min(k.build_cpu_ms, (c2 - c1) * 1e3);
    k.plain_build_cpu_ms = std::min(k.plain_build_cpu_ms, (c3 - c2) * 1e3);
    if (!built.ok() || !plain.ok()) {
      std::fprintf(stderr, "%s",
                   RenderDiagnostics(built.ok() ? plain.diagnostics : built.diagnostics).c_str());
      std::exit(1);
    }
    k.schedule_ms = std::min(k.schedule_ms, Ms(t0, t1));
    k.build_ms = std::min(k.build_ms, Ms(t1, t2));
    k.plain_build_ms = std::min(k.plain_build_ms, Ms(t2, t3));
  }
  k.func = built.module.get_function("main");
  k.rule = applied->rule;
  if (const char* dir = std::getenv("WB_BENCH_ASM")) {
    static int built_kernels = 0;  // in build order: names that do not collide
    std::string path = std::string(dir) + "/" + std::to_string(built_kernels++) + "_" + k.rule + ".ll";
    if (FILE* f = std::fopen(path.c_str(), "w")) {
      std::string source = built.module->GetSource(std::getenv("WB_BENCH_ASM_FORMAT") ? std::getenv("WB_BENCH_ASM_FORMAT") : "ll-opt");
      std::fwrite(source.data(), 1, source.size(), f);
      std::fclose(f);
    }
  }
  return k;
}

struct Stats {
  double median = 0, min = 0, max = 0;
};

Stats Summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

// `cpu`: on one thread (everything runs on the calling thread), also the thread's CPU time of
// the same calls, interleaved: the host is shared with other work, whose preemptions move the
// wall-clock ratio by 10-20% between runs and the CPU-time ratio by a few percent.
void Compare(const std::string& title, const runtime::PackedFunc& ours,
             const std::vector<runtime::PackedArg>& args, const runtime::PackedFunc& reference,
             int rounds, int number, double work, const char* unit, bool cpu = false) {
  std::vector<double> a, b, ca, cb;
  runtime::TimeEvaluatorOptions opt{.number = number, .repeat = 1};
  for (int r = 0; r < rounds; ++r) {
    a.push_back(runtime::TimeEvaluate(ours, args, opt).samples_s[0]);
    b.push_back(runtime::TimeEvaluate(reference, {}, opt).samples_s[0]);
    if (!cpu) continue;
    double t0 = ThreadCpuSeconds();
    for (int n = 0; n < number; ++n) ours.Call(args);
    double t1 = ThreadCpuSeconds();
    for (int n = 0; n < number; ++n) reference.Call({});
    double t2 = ThreadCpuSeconds();
    ca.push_back((t1 - t0) / number);
    cb.push_back((t2 - t1) / number);
  }
  Stats sa = Summarize(a), sb = Summarize(b);
  std::printf(
      "%-30s ours %8.3f ms (%.3f-%.3f) %7.1f %s | ref %8.3f ms (%.3f-%.3f) %7.1f %s | ours/ref "
      "speed %.2f",
      title.c_str(), sa.median * 1e3, sa.min * 1e3, sa.max * 1e3, work / sa.median, unit,
      sb.median * 1e3, sb.min * 1e3, sb.max * 1e3, work / sb.median, unit, sb.median / sa.median);
  if (cpu) {
    Stats qa = Summarize(ca), qb = Summarize(cb);
    std::printf(" | CPU time ours %.3f ms, ref %.3f ms, speed %.2f", qa.median * 1e3,
                qb.median * 1e3, qb.median / qa.median);
  }
  std::printf("\n");
}

void PrintCompile(const char* name, const Kernel& k) {
  std::printf(
      "%-12s rule %-9s default schedule %.2f ms | LLVM build scheduled %.1f ms, unscheduled %.1f "
      "ms | the default schedule adds %.1f ms (fastest of 3) | in CPU time %.1f ms (rule %.2f, "
      "build %.1f vs %.1f)\n",
      name, k.rule.c_str(), k.schedule_ms, k.build_ms, k.plain_build_ms,
      k.schedule_ms + k.build_ms - k.plain_build_ms,
      k.schedule_cpu_ms + k.build_cpu_ms - k.plain_build_cpu_ms, k.schedule_cpu_ms, k.build_cpu_ms,
      k.plain_build_cpu_ms);
}

const char* kMatmul = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1024, 1024), dtype="float32"), w: R.Tensor((1024, 1024), dtype="float32")):
        with R.dataflow():
            gv = R.matmul(x, w)
            R.output(gv)
        return gv
)";

const char* kGemv = R"(
@I.ir_module
class Module:
    @R.function
    def main(w: R.Tensor((4096, 4096), dtype="float32"), x: R.Tensor((4096,), dtype="float32")):
        with R.dataflow():
            gv = R.matmul(w, x)
            R.output(gv)
        return gv
)";

const char* kSoftmax = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4096, 4096), dtype="float32")):
        with R.dataflow():
            gv = R.nn.softmax(x, axis=-1)
            R.output(gv)
        return gv
)";

const char* kAdd = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((67108864,), dtype="float32"), y: R.Tensor((67108864,), dtype="float32")):
        with R.dataflow():
            gv = R.add(x, y)
            R.output(gv)
        return gv
)";

const char* kConv2d = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 64, 56, 56), dtype="float32"), w: R.Tensor((64, 64, 3, 3), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1])
            R.output(gv)
        return gv
)";

const char* kMaxPoolNCHW = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 64, 112, 112), dtype="float32")):
        with R.dataflow():
            gv = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])
            R.output(gv)
        return gv
)";

const char* kMaxPoolNHWC = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 112, 112, 64), dtype="float32")):
        with R.dataflow():
            gv = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], layout="NHWC")
            R.output(gv)
        return gv
)";

const char* kSum = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((67108864,), dtype="float32")):
        with R.dataflow():
            gv = R.sum(x)
            R.output(gv)
        return gv
)";

// conv2d k x k (3x3 unless told), NCHW, batch 1, C -> F channels over an H x W input, the
// stride and padding on both axes.
std::string Conv2dText(int64_t c, int64_t f, int64_t hw, int64_t k = 3, int64_t stride = 1,
                       int64_t pad = 1) {
  auto s = [](int64_t v) { return std::to_string(v); };
  return "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1, " + s(c) + ", " +
         s(hw) + ", " + s(hw) + "), dtype=\"float32\"), w: R.Tensor((" + s(f) + ", " + s(c) +
         ", " + s(k) + ", " + s(k) + "), dtype=\"float32\")):\n        with R.dataflow():\n"
         "            gv = R.nn.conv2d(x, w, strides=[" + s(stride) + ", " + s(stride) +
         "], padding=[" + s(pad) + ", " + s(pad) + ", " + s(pad) + ", " + s(pad) +
         "])\n            R.output(gv)\n        return gv\n";
}

// conv2d 3x3, stride 1, padding 1, NCHW, batch 1: im2col (parallel over input channels) into a
// (C*9) x (H*W) matrix, then one sgemm with the (F) x (C*9) weight.
struct Im2colConv {
  int64_t c = 64, f = 64, h = 56, w = 56;
  std::vector<float> cols;
  void Run(const float* x, const float* weight, float* out, int threads) {
    cols.resize(static_cast<size_t>(c * 9 * h * w));
    runtime::ThreadPool::Global().Launch(threads, [&](int t) {
      int64_t chunk = (c + threads - 1) / threads;
      for (int64_t ci = t * chunk; ci < std::min(c, (t + 1) * chunk); ++ci) {
        for (int64_t ry = 0; ry < 3; ++ry) {
          for (int64_t rx = 0; rx < 3; ++rx) {
            float* row = cols.data() + ((ci * 3 + ry) * 3 + rx) * h * w;
            for (int64_t y = 0; y < h; ++y) {
              int64_t iy = y + ry - 1;
              for (int64_t xx = 0; xx < w; ++xx) {
                int64_t ix = xx + rx - 1;
                row[y * w + xx] = iy >= 0 && iy < h && ix >= 0 && ix < w
                                      ? x[(ci * h + iy) * w + ix]
                                      : 0.0f;
              }
            }
          }
        }
      }
      return 0;
    });
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(f),
                static_cast<int>(h * w), static_cast<int>(c * 9), 1.0f, weight,
                static_cast<int>(c * 9), cols.data(), static_cast<int>(h * w), 0.0f, out,
                static_cast<int>(h * w));
  }
};

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  // Only the workloads whose name contains FILTER (sgemm, gemv, softmax, add, conv2d, maxpool).
  const std::string filter = argc > 2 ? argv[2] : "";
  auto want = [&](const char* name) {
    return filter.empty() || std::string(name).find(filter) != std::string::npos;
  };
  runtime::CompareResult check;
  int threads_now = 1;
  auto& pool = runtime::ThreadPool::Global();
  codegen::Target host = codegen::Target::Host();
  std::printf(
      "host: %s, %d-bit vectors, %d vector registers, L1d %lld KiB, L2 %lld KiB, L3 %lld MiB\n",
      host.str().c_str(), host.MaxVectorBits(), host.NumVectorRegisters(),
      static_cast<long long>(host.l1d_cache_bytes >> 10),
      static_cast<long long>(host.l2_cache_bytes >> 10),
      static_cast<long long>(host.l3_cache_bytes >> 20));
  const int64_t softmax_rows = std::getenv("WB_SOFTMAX_ROWS") ? std::atoll(std::getenv("WB_SOFTMAX_ROWS")) : 4096;
  std::string softmax_text = kSoftmax;
  softmax_text.replace(softmax_text.find("(4096, 4096)"), 12, "(" + std::to_string(softmax_rows) + ", 4096)");
  Kernel matmul = Build(kMatmul), softmax = Build(softmax_text), add = Build(kAdd),
         conv = Build(kConv2d);
  PrintCompile("sgemm 1024", matmul);
  Kernel gemv = Build(kGemv);
  PrintCompile("gemv 4096", gemv);
  PrintCompile("softmax", softmax);
  PrintCompile("add 64M", add);
  PrintCompile("conv2d", conv);
  Kernel pool_nchw = Build(kMaxPoolNCHW), pool_nhwc = Build(kMaxPoolNHWC);
  PrintCompile("maxpool NCHW", pool_nchw);
  PrintCompile("maxpool NHWC", pool_nhwc);
  // ResNet's 14x14 and 7x7 stages: (channels, size).
  const std::vector<std::pair<int64_t, int64_t>> stages = {{256, 14}, {512, 7}};
  // Each also without the rule that now takes it: the schedule it had before, in the same run.
  std::vector<Kernel> stage_kernels, stage_before;
  if (want("resnet")) {
    for (auto [ch, hw] : stages) {
      stage_kernels.push_back(Build(Conv2dText(ch, ch, hw)));
      stage_before.push_back(Build(Conv2dText(ch, ch, hw), "Conv2d"));
      PrintCompile(("conv " + std::to_string(hw) + "x" + std::to_string(hw)).c_str(),
                   stage_kernels.back());
    }
  }
  // ResNet's stem: 7x7, stride 2, padding 3, 3 -> 64 channels, 224x224 -> 112x112.
  Kernel stem, stem_before;
  if (want("stem")) {
    stem = Build(Conv2dText(3, 64, 224, 7, 2, 3));
    stem_before = Build(Conv2dText(3, 64, 224, 7, 2, 3), "Conv2d");
    PrintCompile("conv stem 7x7/2", stem);
  }
  Kernel sum, sum_before;
  if (want("sum")) {
    sum = Build(kSum);
    sum_before = Build(kSum, "Reduction");
    PrintCompile("sum 64M", sum);
  }

  if (want("sgemm")) {
    // --- sgemm 1024
    constexpr int kN = 1024;
    NDArray a = NDArray::Empty({kN, kN}, runtime::Float(32)),
            b = NDArray::Empty({kN, kN}, runtime::Float(32));
    NDArray c = NDArray::Empty({kN, kN}, runtime::Float(32)),
            ref = NDArray::Empty({kN, kN}, runtime::Float(32));
    runtime::FillRandom(a, 1);
    runtime::FillRandom(b, 2);
    auto* pa = reinterpret_cast<float*>(a.ElementData());
    auto* pb = reinterpret_cast<float*>(b.ElementData());
    auto* pr = reinterpret_cast<float*>(ref.ElementData());
    runtime::PackedFunc sgemm([&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kN, kN, kN, 1.0f, pa, kN, pb, kN, 0.0f,
                  pr, kN);
    });
    matmul.func(a, b, c);
    sgemm.Call({});
    check = runtime::Compare(c, ref, {1e-4, 1e-4});
    std::printf("sgemm result vs OpenBLAS: %s\n",
                check.ok ? "equal within 1e-4" : check.message.c_str());
    for (int threads : {1, 2}) {
      pool.SetNumThreads(threads);
      openblas_set_num_threads(threads);
      Compare("sgemm 1024, " + std::to_string(threads) + "T (GFLOP/s)", matmul.func, {a, b, c},
              sgemm, rounds, 3, 2.0 * kN * kN * kN / 1e9, "GF/s", threads == 1);
    }
  }
  if (want("gemv")) {
    // --- GEMV 4096 x 4096 (memory-bound: 64 MiB of matrix per call)
    {
      constexpr int kG = 4096;
      NDArray w = NDArray::Empty({kG, kG}, runtime::Float(32)),
              x = NDArray::Empty({kG}, runtime::Float(32));
      NDArray y = NDArray::Empty({kG}, runtime::Float(32)),
              yref = NDArray::Empty({kG}, runtime::Float(32));
      runtime::FillRandom(w, 3);
      runtime::FillRandom(x, 4);
      auto* pw = reinterpret_cast<float*>(w.ElementData());
      auto* px = reinterpret_cast<float*>(x.ElementData());
      auto* py = reinterpret_cast<float*>(yref.ElementData());
      runtime::PackedFunc sgemv([&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, kG, kG, 1.0f, pw, kG, px, 1, 0.0f, py, 1);
      });
      gemv.func(w, x, y);
      sgemv.Call({});
      runtime::CompareResult same = runtime::Compare(y, yref, {1e-3, 1e-3});
      std::printf("gemv result vs OpenBLAS: %s\n",
                  same.ok ? "equal within 1e-3" : same.message.c_str());
      for (int threads : {1, 2}) {
        pool.SetNumThreads(threads);
        openblas_set_num_threads(threads);
        Compare("gemv 4096, " + std::to_string(threads) + "T (GB/s of matrix)", gemv.func,
                {w, x, y}, sgemv, rounds, 3, 4.0 * kG * kG / 1e9, "GB/s", threads == 1);
      }
    }
  }
  if (want("softmax")) {
    // --- softmax 4096 x 4096
    const int64_t kRows = softmax_rows, kCols = 4096;
    NDArray sx = NDArray::Empty({kRows, kCols}, runtime::Float(32)),
            sy = NDArray::Empty({kRows, kCols}, runtime::Float(32));
    NDArray sr = NDArray::Empty({kRows, kCols}, runtime::Float(32));
    runtime::FillRandom(sx, runtime::RandomFillOptions{3, -4.0, 4.0});
    const float* psx = reinterpret_cast<const float*>(sx.ElementData());
    float* psr = reinterpret_cast<float*>(sr.ElementData());
    runtime::PackedFunc softmax_ref(
        [&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
          pool.Launch(threads_now, [&](int t) {
            int64_t chunk = kRows / threads_now;
            SoftmaxRowsReference(psx, psr, t * chunk, (t + 1) * chunk, kCols);
            return 0;
          });
        });
    softmax.func(sx, sy);
    softmax_ref.Call({});
    check = runtime::Compare(sy, sr, {1e-5, 1e-6});
    std::printf("softmax result vs reference: %s\n",
                check.ok ? "equal within 1e-5" : check.message.c_str());
    for (int threads : {1, 2}) {
      pool.SetNumThreads(threads);
      threads_now = threads;
      Compare("softmax 4096^2, " + std::to_string(threads) + "T (GB/s)", softmax.func, {sx, sy},
              softmax_ref, rounds, std::max<int>(1, static_cast<int>(4096 / kRows)), 2.0 * 4 * kRows * kCols / 1e9, "GB/s", threads == 1);
    }
  }
  if (want("add")) {
    // --- vector add 64M
    constexpr int64_t kAddN = 64LL * 1024 * 1024;
    NDArray x = NDArray::Empty({kAddN}, runtime::Float(32)),
            y = NDArray::Empty({kAddN}, runtime::Float(32));
    NDArray z = NDArray::Empty({kAddN}, runtime::Float(32)),
            w = NDArray::Empty({kAddN}, runtime::Float(32));
    runtime::FillRandom(x, 4);
    runtime::FillRandom(y, 5);
    const float* px = reinterpret_cast<const float*>(x.ElementData());
    const float* py = reinterpret_cast<const float*>(y.ElementData());
    float* pw = reinterpret_cast<float*>(w.ElementData());
    runtime::PackedFunc plain([&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
      pool.Launch(threads_now, [&](int t) {
        int64_t chunk = kAddN / threads_now;
        for (int64_t i = t * chunk; i < (t + 1) * chunk; ++i) pw[i] = px[i] + py[i];
        return 0;
      });
    });
    add.func(x, y, z);
    plain.Call({});
    std::printf("add result vs plain loop: %s\n",
                runtime::Compare(z, w, {0, 0}).ok ? "identical" : "DIFFERENT");
    for (int threads : {1, 2}) {
      pool.SetNumThreads(threads);
      threads_now = threads;
      Compare("add 64M, " + std::to_string(threads) + "T (GB/s)", add.func, {x, y, z}, plain,
              rounds, 1, 3.0 * 4 * kAddN / 1e9, "GB/s", threads == 1);
    }
  }
  if (want("conv2d")) {
    // --- conv2d 3x3, 64 -> 64, 56x56, batch 1
    NDArray cx = NDArray::Empty({1, 64, 56, 56}, runtime::Float(32)),
            cw = NDArray::Empty({64, 64, 3, 3}, runtime::Float(32));
    NDArray cy = NDArray::Empty({1, 64, 56, 56}, runtime::Float(32)),
            cr = NDArray::Empty({1, 64, 56, 56}, runtime::Float(32));
    runtime::FillRandom(cx, 6);
    runtime::FillRandom(cw, 7);
    const float* pcx = reinterpret_cast<const float*>(cx.ElementData());
    const float* pcw = reinterpret_cast<const float*>(cw.ElementData());
    float* pcr = reinterpret_cast<float*>(cr.ElementData());
    const double conv_gflop = 2.0 * 64 * 64 * 9 * 56 * 56 / 1e9;
    Im2colConv im2col;
    runtime::PackedFunc im2col_ref(
        [&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
          im2col.Run(pcx, pcw, pcr, threads_now);
        });
    conv.func(cx, cw, cy);
    im2col_ref.Call({});
    check = runtime::Compare(cy, cr, {1e-4, 1e-4});
    std::printf("conv2d result vs im2col + OpenBLAS: %s\n",
                check.ok ? "equal within 1e-4" : check.message.c_str());
    for (int threads : {1, 2}) {
      pool.SetNumThreads(threads);
      openblas_set_num_threads(threads);
      threads_now = threads;
      Compare("conv2d vs im2col+BLAS, " + std::to_string(threads) + "T (GF/s)", conv.func,
              {cx, cw, cy}, im2col_ref, rounds, 3, conv_gflop, "GF/s", threads == 1);
    }
#ifdef WB_HAVE_DNNL
    {
      bench::OneDnnConv2d onednn(64, 64, 56, 56, pcx, pcw, pcr);
      runtime::PackedFunc dnnl_ref(
          [&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) { onednn.Run(); });
      dnnl_ref.Call({});
      check = runtime::Compare(cy, cr, {1e-4, 1e-4});
      std::printf("conv2d result vs oneDNN (%s): %s\n", onednn.Implementation().c_str(),
                  check.ok ? "equal within 1e-4" : check.message.c_str());
      for (int threads : {1, 2}) {
        pool.SetNumThreads(threads);
        bench::OneDnnConv2d::SetThreads(threads);
        Compare("conv2d vs oneDNN, " + std::to_string(threads) + "T (GF/s)", conv.func,
                {cx, cw, cy}, dnnl_ref, rounds, 3, conv_gflop, "GF/s", threads == 1);
      }
    }
#else
    std::printf("conv2d vs oneDNN: not built (libdnnl-dev not found at configure time)\n");
#endif
  }
  if (want("maxpool")) {
    // --- max pooling 3x3 / 2, padding 1, 64 x 112 x 112 -> 64 x 56 x 56, both layouts
#ifdef WB_HAVE_DNNL
    for (bool nhwc : {false, true}) {
      using tag = dnnl::memory::format_tag;
      using dt = dnnl::memory::data_type;
      const Kernel& k = nhwc ? pool_nhwc : pool_nchw;
      std::vector<int64_t> in_shape =
          nhwc ? std::vector<int64_t>{1, 112, 112, 64} : std::vector<int64_t>{1, 64, 112, 112};
      std::vector<int64_t> out_shape =
          nhwc ? std::vector<int64_t>{1, 56, 56, 64} : std::vector<int64_t>{1, 64, 56, 56};
      NDArray px = NDArray::Empty(in_shape, runtime::Float(32));
      NDArray py = NDArray::Empty(out_shape, runtime::Float(32)),
              pr = NDArray::Empty(out_shape, runtime::Float(32));
      runtime::FillRandom(px, 8);
      dnnl::engine engine(dnnl::engine::kind::cpu, 0);
      dnnl::stream stream(engine);
      // oneDNN's dims are always N, C, H, W; the tag says how they lie in memory.
      const tag layout = nhwc ? tag::nhwc : tag::nchw;
      dnnl::memory::desc src_md({1, 64, 112, 112}, dt::f32, layout),
          dst_md({1, 64, 56, 56}, dt::f32, layout);
      dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::pooling_max, src_md, dst_md, {2, 2}, {3, 3},
                                       {1, 1}, {1, 1});
      dnnl::pooling_forward::primitive_desc pd(desc, engine);
      dnnl::memory src(src_md, engine, px.ElementData());
      dnnl::memory dst(dst_md, engine, pr.ElementData());
      dnnl::pooling_forward prim(pd);
      runtime::PackedFunc dnnl_ref(
          [&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
            prim.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
            stream.wait();
          });
      k.func(px, py);
      dnnl_ref.Call({});
      check = runtime::Compare(py, pr, {0, 0});
      std::printf("maxpool %s result vs oneDNN (%s): %s\n", nhwc ? "NHWC" : "NCHW",
                  pd.impl_info_str(), check.ok ? "identical" : check.message.c_str());
      // Bytes of the input read once and of the output written.
      const double gbytes = 4.0 * (64 * 112 * 112 + 64 * 56 * 56) / 1e9;
      for (int threads : {1, 2}) {
        pool.SetNumThreads(threads);
        omp_set_num_threads(threads);
        Compare(std::string("maxpool ") + (nhwc ? "NHWC " : "NCHW ") + std::to_string(threads) +
                    "T (GB/s)",
                k.func, {px, py}, dnnl_ref, rounds, 10, gbytes, "GB/s", threads == 1);
      }
    }
#else
    std::printf("maxpool vs oneDNN: not built (libdnnl-dev not found at configure time)\n");
#endif
  }
  if (want("resnet")) {
#ifdef WB_HAVE_DNNL
    for (size_t s = 0; s < stages.size(); ++s) {
      const auto [ch, hw] = stages[s];
      NDArray x = NDArray::Empty({1, ch, hw, hw}, runtime::Float(32)),
              w = NDArray::Empty({ch, ch, 3, 3}, runtime::Float(32));
      NDArray y = NDArray::Empty({1, ch, hw, hw}, runtime::Float(32)),
              r = NDArray::Empty({1, ch, hw, hw}, runtime::Float(32));
      runtime::FillRandom(x, 9);
      runtime::FillRandom(w, 10);
      bench::OneDnnConv2d onednn(ch, ch, hw, hw, reinterpret_cast<const float*>(x.ElementData()),
                                 reinterpret_cast<const float*>(w.ElementData()),
                                 reinterpret_cast<float*>(r.ElementData()));
      runtime::PackedFunc dnnl_ref(
          [&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) { onednn.Run(); });
      stage_kernels[s].func(x, w, y);
      dnnl_ref.Call({});
      check = runtime::Compare(y, r, {1e-3, 1e-4});
      const std::string name = "conv2d " + std::to_string(ch) + "ch " + std::to_string(hw) + "x" +
                               std::to_string(hw);
      std::printf("%s (rule %s) result vs oneDNN (%s): %s\n", name.c_str(),
                  stage_kernels[s].rule.c_str(), onednn.Implementation().c_str(),
                  check.ok ? "equal within 1e-3" : check.message.c_str());
      const double gflop = 2.0 * ch * ch * 9 * hw * hw / 1e9;
      for (int threads : {1, 2}) {
        pool.SetNumThreads(threads);
        bench::OneDnnConv2d::SetThreads(threads);
        Compare(name + ", " + std::to_string(threads) + "T (GF/s)", stage_kernels[s].func,
                {x, w, y}, dnnl_ref, rounds, 5, gflop, "GF/s", threads == 1);
        Compare(name + " " + stage_before[s].rule + ", " + std::to_string(threads) + "T", stage_before[s].func,
                {x, w, y}, dnnl_ref, std::max(1, rounds / 3), 1, gflop, "GF/s", threads == 1);
      }
    }
#else
    std::printf("resnet stages vs oneDNN: not built (libdnnl-dev not found at configure time)\n");
#endif
  }
  if (want("stem")) {
#ifdef WB_HAVE_DNNL
    NDArray x = NDArray::Empty({1, 3, 224, 224}, runtime::Float(32)),
            w = NDArray::Empty({64, 3, 7, 7}, runtime::Float(32));
    NDArray y = NDArray::Empty({1, 64, 112, 112}, runtime::Float(32)),
            r = NDArray::Empty({1, 64, 112, 112}, runtime::Float(32));
    runtime::FillRandom(x, 12);
    runtime::FillRandom(w, 13);
    bench::OneDnnConv2d onednn(3, 64, 224, 224, reinterpret_cast<const float*>(x.ElementData()),
                               reinterpret_cast<const float*>(w.ElementData()),
                               reinterpret_cast<float*>(r.ElementData()), 7, 2, 3);
    runtime::PackedFunc dnnl_ref(
        [&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) { onednn.Run(); });
    stem.func(x, w, y);
    dnnl_ref.Call({});
    check = runtime::Compare(y, r, {1e-3, 1e-4});
    std::printf("conv2d stem 7x7/2 (rule %s) result vs oneDNN (%s): %s\n", stem.rule.c_str(),
                onednn.Implementation().c_str(),
                check.ok ? "equal within 1e-3" : check.message.c_str());
    const double gflop = 2.0 * 64 * 3 * 49 * 112 * 112 / 1e9;
    for (int threads : {1, 2}) {
      pool.SetNumThreads(threads);
      bench::OneDnnConv2d::SetThreads(threads);
      Compare("conv2d stem 7x7/2, " + std::to_string(threads) + "T (GF/s)", stem.func, {x, w, y},
              dnnl_ref, rounds, 5, gflop, "GF/s", threads == 1);
      Compare("conv2d stem " + stem_before.rule + ", " + std::to_string(threads) + "T",
              stem_before.func, {x, w, y}, dnnl_ref, std::max(1, rounds / 3), 1, gflop, "GF/s",
              threads == 1);
    }
#else
    std::printf("conv2d stem vs oneDNN: not built (libdnnl-dev not found at configure time)\n");
#endif
  }
  if (want("sum")) {
    // --- sum of 64M floats (256 MiB read once per call)
    constexpr int64_t kSumN = 64LL * 1024 * 1024;
    NDArray x = NDArray::Empty({kSumN}, runtime::Float(32)), y = NDArray::Empty({}, runtime::Float(32));
    runtime::FillRandom(x, 11);
    const float* px = reinterpret_cast<const float*>(x.ElementData());
    float ref_value = 0;
    runtime::PackedFunc hand([&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
      std::vector<float> partial(static_cast<size_t>(threads_now));
      pool.Launch(threads_now, [&](int t) {
        int64_t chunk = kSumN / threads_now;
        partial[static_cast<size_t>(t)] = SumReference(px, t * chunk, (t + 1) * chunk);
        return 0;
      });
      float s = 0;
      for (float p : partial) s += p;
      ref_value = s;
    });
    sum.func(x, y);
    hand.Call({});
    const float ours = *reinterpret_cast<const float*>(y.ElementData());
    std::printf("sum result %.6g vs hand loop %.6g (relative difference %.2g)\n", ours, ref_value,
                std::abs(ours - ref_value) / std::max(1e-30f, std::abs(ref_value)));
    for (int threads : {1, 2}) {
      pool.SetNumThreads(threads);
      threads_now = threads;
      Compare("sum 64M, " + std::to_string(threads) + "T (GB/s)", sum.func, {x, y}, hand, rounds,
              3, 4.0 * kSumN / 1e9, "GB/s", threads == 1);
      Compare("sum 64M " + sum_before.rule + ", " + std::to_string(threads) + "T", sum_before.func,
              {x, y}, hand, rounds, 1, 4.0 * kSumN / 1e9, "GB/s", threads == 1);
    }
  }
  return 0;
}
