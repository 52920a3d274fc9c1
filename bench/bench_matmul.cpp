// Generated-code speed against the references users would pick instead (PERFORMANCE.md):
//   1. a hand-scheduled 1024x1024x1024 float32 matmul (packed B panels, an 8x32 register tile
//      of 16 zmm accumulators, parallel over row blocks) against OpenBLAS cblas_sgemm, on 1
//      and 2 threads;
//   2. an elementwise add of 64M floats against a plain C++ loop (memory bandwidth).
// Each workload alternates ours and the reference in the same run and prints medians, the
// ratio, the spread and the fraction of the ceiling. Not a test: it prints figures.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

#include "codegen/build.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"
#include "script/tvmscript.h"
#include "workbench/run_check.h"

using namespace wb;
using runtime::NDArray;

namespace {

constexpr int kN = 1024;
constexpr int kTileRows = 6;  // rows of C per micro-kernel

// The micro-kernel's shape for the target: 6 rows x (4 zmm) with AVX-512 (24 accumulators of
// 32 registers), 6 rows x (2 ymm) with AVX2 (12 of 16), as PERFORMANCE.md advises.
struct Tile {
  int lanes;  // floats in a vector register
  int cols;   // columns of C per micro-kernel
};

Tile TileFor(const codegen::Target& target) {
  int lanes = target.MaxVectorBits() / 32;
  return {lanes, lanes * (lanes >= 16 ? 4 : 2)};
}

// The scheduled matmul as lowered TVMScript: B packed into panels of `cols` columns, C computed
// in 6 x cols register tiles (the micro-kernel is written out so that the accumulators are plain
// vectors LLVM keeps in registers), parallel over row blocks. 1024 is not a multiple of 6: the
// last block clamps its rows to 1023 (recomputing that row, same values, same thread).
std::string MatmulScript(const Tile& t) {
  std::string s = R"(from tvm.script import tirx as T

@T.prim_func
def matmul(A: T.Buffer((@NN@,), "float32"), B: T.Buffer((@NN@,), "float32"), C: T.Buffer((@NN@,), "float32")):
    T.func_attr({"fast_math": True})
    packedB = T.alloc_buffer((@NN@,))
    for jo in T.parallel(@JO@):
        for k in range(@N@):
            packedB[jo * @P@ + k * @TC@:jo * @P@ + k * @TC@ + @TC@] = B[k * @N@ + jo * @TC@:k * @N@ + jo * @TC@ + @TC@]
    for io in T.parallel(@IO@):
        acc = T.alloc_buffer((@ACC@,), scope="local")
        for jo in range(@JO@):
)";
  auto slice = [&](int off) { return "acc[" + std::to_string(off) + ":" + std::to_string(off + t.lanes) + "]"; };
  auto row = [&](int r) { return "T.min(io * 6 + " + std::to_string(r) + ", @N1@)"; };
  int vecs = t.cols / t.lanes;
  for (int r = 0; r < kTileRows; ++r) {
    for (int c = 0; c < vecs; ++c) {
      s += "            " + slice(r * t.cols + c * t.lanes) + " = T.Broadcast(T.float32(0.0), @L@)\n";
    }
  }
  s += "            for k in range(@N@):\n";
  for (int r = 0; r < kTileRows; ++r) {
    for (int c = 0; c < vecs; ++c) {
      std::string acc = slice(r * t.cols + c * t.lanes);
      std::string b0 = "jo * @P@ + k * @TC@ + " + std::to_string(c * t.lanes);
      s += "                " + acc + " = " + acc + " + T.Broadcast(A[" + row(r) + " * @N@ + k], @L@) * packedB[" +
           b0 + ":" + b0 + " + @L@]\n";
    }
  }
  for (int r = 0; r < kTileRows; ++r) {
    for (int c = 0; c < vecs; ++c) {
      std::string dst = row(r) + " * @N@ + jo * @TC@ + " + std::to_string(c * t.lanes);
      s += "            C[" + dst + ":" + dst + " + @L@] = " + slice(r * t.cols + c * t.lanes) + "\n";
    }
  }
  auto subst = [&](const std::string& from, const std::string& to) {
    for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
  };
  subst("@NN@", std::to_string(kN * kN));
  subst("@N1@", std::to_string(kN - 1));
  subst("@N@", std::to_string(kN));
  subst("@P@", std::to_string(kN * t.cols));
  subst("@TC@", std::to_string(t.cols));
  subst("@L@", std::to_string(t.lanes));
  subst("@ACC@", std::to_string(kTileRows * t.cols));
  subst("@JO@", std::to_string(kN / t.cols));
  subst("@IO@", std::to_string((kN + kTileRows - 1) / kTileRows));
  return s;
}

constexpr int64_t kAddN = 64LL * 1024 * 1024;

// The elementwise add as a user schedules it: split for the threads, 16-wide vectors inside.
std::string AddScript() {
  return R"(from tvm.script import tirx as T

@T.prim_func
def add(A: T.Buffer((67108864,), "float32"), B: T.Buffer((67108864,), "float32"), C: T.Buffer((67108864,), "float32")):
    for io in T.parallel(4096):
        for ii in range(1024):
            for v in T.vectorized(16):
                C[io * 16384 + ii * 16 + v] = A[io * 16384 + ii * 16 + v] + B[io * 16384 + ii * 16 + v]
)";
}

// WB_BENCH_ASM=DIR writes each kernel's optimized LLVM IR and assembly there.
runtime::PackedFunc BuildFunction(const std::string& text, const std::string& name, double* compile_ms) {
  auto start = std::chrono::steady_clock::now();
  script::ParseResult parsed = script::Parse(text, name + ".py");
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s", RenderDiagnostics(parsed.diagnostics).c_str());
    std::exit(1);
  }
  codegen::BuildResult built = codegen::Build(parsed.module, codegen::Target::Host());
  if (!built.ok()) {
    std::fprintf(stderr, "%s", RenderDiagnostics(built.diagnostics).c_str());
    std::exit(1);
  }
  *compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (const char* dir = std::getenv("WB_BENCH_ASM")) {
    for (const char* format : {"ll-opt", "asm"}) {
      std::string path = std::string(dir) + "/" + name + "." + format;
      if (FILE* f = std::fopen(path.c_str(), "w")) {
        std::string source = built.module->GetSource(format);
        std::fwrite(source.data(), 1, source.size(), f);
        std::fclose(f);
      }
    }
  }
  return built.module.get_function(name);
}

// Interleaves `rounds` timings of ours and the reference through the one time evaluator
// (workbench::TimeInterleaved); each sample is TVM-style (mean of `number` calls).
void Compare(const char* title, const runtime::PackedFunc& ours, const std::vector<runtime::PackedArg>& args,
             const runtime::PackedFunc& reference, int rounds, int number, double work, const char* unit,
             double ceiling) {
  std::vector<runtime::TimeEvaluatorResult> t =
      workbench::TimeInterleaved({{ours, args}, {reference, {}}}, rounds, {.number = number, .repeat = 1});
  const runtime::TimeEvaluatorResult &sa = t[0], &sb = t[1];
  double ra = work / sa.median_s(), rb = work / sb.median_s();
  std::printf("%-34s ours %8.3f ms (%.3f-%.3f) %7.1f %s | ref %8.3f ms (%.3f-%.3f) %7.1f %s | ours/ref %.2f",
              title, sa.median_s() * 1e3, sa.min_s() * 1e3, sa.max_s() * 1e3, ra, unit, sb.median_s() * 1e3,
              sb.min_s() * 1e3, sb.max_s() * 1e3, rb, unit, ra / rb);
  if (ceiling > 0) std::printf(" | ours %.0f%% of ceiling %.0f", 100 * ra / ceiling, ceiling);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  auto& pool = runtime::ThreadPool::Global();
  std::printf("host: %s, pool threads %d\n", codegen::Target::Host().str().c_str(), pool.num_threads());

  // --- matmul
  double compile_ms = 0;
  Tile tile = TileFor(codegen::Target::Host());
  runtime::PackedFunc matmul = BuildFunction(MatmulScript(tile), "matmul", &compile_ms);
  std::printf("matmul micro-kernel: %d x %d floats (%d-lane vectors)\n", kTileRows, tile.cols, tile.lanes);
  std::printf("matmul: TVMScript -> loaded module in %.0f ms\n", compile_ms);
  NDArray a = NDArray::Empty({kN * kN}, runtime::Float(32)), b = NDArray::Empty({kN * kN}, runtime::Float(32));
  NDArray c = NDArray::Empty({kN * kN}, runtime::Float(32)), ref = NDArray::Empty({kN * kN}, runtime::Float(32));
  runtime::FillRandom(a, 1);
  runtime::FillRandom(b, 2);
  auto* pa = reinterpret_cast<float*>(a.ElementData());
  auto* pb = reinterpret_cast<float*>(b.ElementData());
  auto* pr = reinterpret_cast<float*>(ref.ElementData());
  runtime::PackedFunc sgemm([&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kN, kN, kN, 1.0f, pa, kN, pb, kN, 0.0f, pr, kN);
  });
  matmul(a, b, c);
  sgemm.Call({});
  runtime::CompareResult check = runtime::Compare(c, ref, {1e-4, 1e-4});
  std::printf("matmul result vs OpenBLAS: %s\n", check.ok ? "equal within 1e-4" : check.message.c_str());
  double flops = 2.0 * kN * kN * kN / 1e9;
  for (int threads : {1, 2}) {
    pool.SetNumThreads(threads);
    openblas_set_num_threads(threads);
    std::string title = "sgemm 1024^3, " + std::to_string(threads) + " thread" + (threads > 1 ? "s" : "");
    // PERFORMANCE.md's FMA peaks (AVX-512 / AVX2 hosts of that kind), per thread.
    double peak = (tile.lanes >= 16 ? 240.0 : 129.0) * threads;
    Compare(title.c_str(), matmul, {a, b, c}, sgemm, rounds, 3, flops, "GFLOP/s", peak);
  }

  // --- elementwise add, memory-bound
  runtime::PackedFunc add = BuildFunction(AddScript(), "add", &compile_ms);
  NDArray x = NDArray::Empty({kAddN}, runtime::Float(32)), y = NDArray::Empty({kAddN}, runtime::Float(32));
  NDArray z = NDArray::Empty({kAddN}, runtime::Float(32)), w = NDArray::Empty({kAddN}, runtime::Float(32));
  runtime::FillRandom(x, 3);
  runtime::FillRandom(y, 4);
  auto* px = reinterpret_cast<float*>(x.ElementData());
  auto* py = reinterpret_cast<float*>(y.ElementData());
  auto* pw = reinterpret_cast<float*>(w.ElementData());
  int plain_threads = 1;
  runtime::PackedFunc plain([&](const std::vector<runtime::PackedArg>&, runtime::PackedRet*) {
    // The reference: a plain loop, split over the same pool so both use the same threads.
    pool.Launch(plain_threads, [&](int t) {
      int64_t chunk = kAddN / plain_threads;
      for (int64_t i = t * chunk; i < (t + 1) * chunk; ++i) pw[i] = px[i] + py[i];
      return 0;
    });
  });
  add(x, y, z);
  plain.Call({});
  std::printf("add result vs plain loop: %s\n", runtime::Compare(z, w, {0, 0}).ok ? "identical" : "DIFFERENT");
  double bytes = 3.0 * 4 * kAddN / 1e9;
  for (int threads : {1, 2}) {
    pool.SetNumThreads(threads);
    plain_threads = threads;
    std::string title = "add 64M float32, " + std::to_string(threads) + " thread" + (threads > 1 ? "s" : "");
    Compare(title.c_str(), add, {x, y, z}, plain, rounds, 1, bytes, "GB/s", threads == 1 ? 15.0 : 29.0);
  }
  return 0;
}
