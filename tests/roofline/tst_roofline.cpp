// The roofline of a profiled run, without a window: the bytes model (codegen/memory_traffic.h)
// against hand-computed bytes on small kernels (a vector add, a matmul, two nests, a nest split
// because it does not fit the cache, a symbolic size, an on-chip buffer), a profiled run's fields
// against its FLOPs, bytes and the roofs it was placed under, the host's peaks measured into the
// cache file and read back from it, and the JSON codec that carries the fields out of the child.
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../workbench/run_test_programs.h"
#include "codegen/flop_count.h"
#include "codegen/memory_traffic.h"
#include "roofline_test_util.h"
#include "runtime/thread_pool.h"
#include "script/tvmscript.h"
#include "workbench/host_peaks.h"
#include "workbench/run_check.h"

using namespace wb;
using namespace wb::workbench;

namespace {

const char* kVectorAdd = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
    for i in range(1024):
        with T.sblock("C"):
            vi = T.axis.spatial(1024, i)
            C[vi] = A[vi] + B[vi]
)";

// A producer nest and its consumer: the intermediate moves out of the first and back into the
// second.
const char* kTwoNests = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
    B = T.sblock_alloc_buffer((1024,))
    for i in range(1024):
        with T.sblock("B"):
            vi = T.axis.spatial(1024, i)
            B[vi] = A[vi] * T.float32(2.0)
    for i in range(1024):
        with T.sblock("C"):
            vi = T.axis.spatial(1024, i)
            C[vi] = B[vi] + T.float32(1.0)
)";

// The same two stages through a buffer in local scope (on chip: it moves nothing), in parallel.
const char* kLocal = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
    B = T.sblock_alloc_buffer((1024,), scope="local")
    for i in T.parallel(1024):
        with T.sblock("B"):
            vi = T.axis.spatial(1024, i)
            B[vi] = A[vi] * T.float32(2.0)
    for i in range(1024):
        with T.sblock("C"):
            vi = T.axis.spatial(1024, i)
            C[vi] = B[vi] + T.float32(1.0)
)";

const char* kSymbolic = R"(# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.sblock("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi] + T.float32(1.0)
)";

tir::PrimFunc Func(const char* text) {
  script::ParseResult r = script::Parse(text, "test.py");
  if (!r.ok()) qFatal("%s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module->Lookup("main").as_ref<tir::PrimFuncNode>();
}

ir::IRModule Module(const char* text) {
  script::ParseResult r = script::Parse(text, "test.py");
  if (!r.ok()) qFatal("%s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

constexpr int64_t kBigCache = int64_t(32) << 20;

bool Positive(double v) { return std::isfinite(v) && v > 0; }

}  // namespace

class TstRoofline : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() {
    // Each test its own cache directory: nothing comes from the user's, or from another test.
    cache_ = std::make_unique<QTemporaryDir>();
    QVERIFY(cache_->isValid());
    qputenv("XDG_CACHE_HOME", cache_->path().toUtf8());
  }

  void aVectorAddMovesItsThreeArraysOnce() {
    codegen::MemoryTraffic t = codegen::CountMemoryTraffic(Func(kVectorAdd), {}, kBigCache);
    QVERIFY(t.bytes.has_value());
    QCOMPARE(*t.bytes, 3.0 * 1024 * 4);
    QVERIFY(!t.parallel);
  }

  void aMatmulReadsItsInputsAndWritesItsAccumulatorOnce() {
    // The accumulator C is initialised by T.init: written, never read from memory.
    codegen::MemoryTraffic t =
        codegen::CountMemoryTraffic(Func(wb::test::kMatmul64), {}, kBigCache);
    QVERIFY(t.bytes.has_value());
    QCOMPARE(*t.bytes, 3.0 * 64 * 64 * 4);
  }

  void aNestPastTheCacheIsSplitAtItsOuterLoop() {
    // 1 KiB of cache: the whole nest (48 KiB) and one row of i (16.5 KiB, all of B) do not fit;
    // one (i, j) does: a row of A (256 B), a column of B (256 B), one element of C (4 B).
    codegen::MemoryTraffic t = codegen::CountMemoryTraffic(Func(wb::test::kMatmul64), {}, 1024);
    QVERIFY(t.bytes.has_value());
    QCOMPARE(*t.bytes, 64.0 * 64 * (256 + 256 + 4));
  }

  void eachTopLevelNestMovesItsOwnRegions() {
    // A in, B out; then B in, C out.
    codegen::MemoryTraffic t = codegen::CountMemoryTraffic(Func(kTwoNests), {}, kBigCache);
    QCOMPARE(t.bytes.value_or(-1), 4.0 * 1024 * 4);
  }

  void anOnChipBufferMovesNothingAndAParallelLoopIsSeen() {
    codegen::MemoryTraffic t = codegen::CountMemoryTraffic(Func(kLocal), {}, kBigCache);
    QCOMPARE(t.bytes.value_or(-1), 2.0 * 1024 * 4);
    QVERIFY(t.parallel);
  }

  void aSymbolicSizeTakesItsBinding() {
    tir::PrimFunc f = Func(kSymbolic);
    QVERIFY(!codegen::CountMemoryTraffic(f, {}, kBigCache).bytes.has_value());
    const tir::VarNode* n = f->buffer_map[0]->shape[0].as<tir::VarNode>();
    QVERIFY(n != nullptr);
    codegen::MemoryTraffic t = codegen::CountMemoryTraffic(f, {{n, 100}}, kBigCache);
    QCOMPARE(t.bytes.value_or(-1), 2.0 * 100 * 4);
  }

  void aProfiledRunIsPlacedUnderTheCachedRoofs() {
    // 16 KiB of L2: the vector add's 12 KiB fit, the matmul's 48 KiB do not.
    wb::test::PlantPeaks(wb::test::PlantedPeaks(16 << 10));
    for (const char* text : {kVectorAdd, wb::test::kMatmul64}) {
      RunCheckRequest request;
      request.module = Module(text);
      request.profile = true;
      request.timing = {.number = 2, .repeat = 2};
      RunCheckResult result = RunAndCheck(request);
      QVERIFY2(result.functions.size() == 1, result.message.c_str());
      const FunctionResult& r = result.functions[0];
      QVERIFY2(r.ok(), r.message.c_str());
      // The cached figures, not a measurement.
      QVERIFY(result.peaks && result.peaks->from_cache);
      QCOMPARE(result.peaks->gflops_1, 100.0);
      const bool matmul = text == wb::test::kMatmul64;
      const double flops = matmul ? 2.0 * 64 * 64 * 64 : 1024.0;
      const double bytes = matmul ? 3.0 * 64 * 64 * 4 : 3.0 * 1024 * 4;
      QCOMPARE(r.flops.value_or(-1), flops);
      QCOMPARE(r.bytes.value_or(-1), bytes);
      QCOMPARE(r.arithmetic_intensity().value_or(-1), flops / bytes);
      // A serial kernel: the one-thread roofs; the L2's bandwidth where its bytes fit there.
      QVERIFY(!r.parallel);
      QCOMPARE(r.peak_gflops.value_or(-1), 100.0);
      QCOMPARE(r.in_cache, !matmul);
      const double bandwidth = matmul ? 10.0 : 50.0;
      QCOMPARE(r.peak_gbytes_per_s.value_or(-1), bandwidth);
      const double roof = std::min(100.0, flops / bytes * bandwidth);
      QVERIFY(r.gflops_per_s().has_value());
      QCOMPARE(r.roofline_fraction().value_or(-1), *r.gflops_per_s() / roof);
      // The report's fields, as --json writes them.
      nlohmann::json j = ToJson(r);
      for (const char* field : {"bytes", "arithmetic_intensity", "peak_gflops", "peak_gbytes_per_s",
                                "roofline_fraction"}) {
        QVERIFY2(j.contains(field) && j[field].is_number(), field);
      }
      QCOMPARE(j["bytes"].get<double>(), bytes);
      QCOMPARE(j["bandwidth_roof"].get<std::string>(), std::string(matmul ? "memory" : "cache"));
      // And back through the codec, as a result comes out of its child process.
      FunctionResult back = FunctionResultFromJson(j);
      QCOMPARE(back.bytes.value_or(-1), bytes);
      QCOMPARE(back.roofline_fraction().value_or(-1), *r.roofline_fraction());
      QCOMPARE(back.in_cache, r.in_cache);
    }
  }

  void aParallelFunctionIsPlacedUnderTheEveryThreadRoofs() {
    wb::test::PlantPeaks(wb::test::PlantedPeaks(16 << 10));
    RunCheckRequest request;
    request.module = Module(kLocal);
    request.profile = true;
    request.timing = {.number = 2, .repeat = 2};
    RunCheckResult result = RunAndCheck(request);
    QVERIFY2(result.functions.size() == 1, result.message.c_str());
    const FunctionResult& r = result.functions[0];
    QVERIFY2(r.ok(), r.message.c_str());
    QVERIFY(r.parallel);
    QCOMPARE(r.peak_gflops.value_or(-1), 200.0);
    // 8 KiB within the L2 of every core.
    QVERIFY(r.in_cache);
    QCOMPARE(r.peak_gbytes_per_s.value_or(-1), 100.0);
    QCOMPARE(r.roofline_fraction().value_or(-1),
             *r.gflops_per_s() / std::min(200.0, *r.arithmetic_intensity() * 100.0));
  }

  void aRelaxFunctionMovesWhatItsKernelsMove() {
    wb::test::PlantPeaks(wb::test::PlantedPeaks(16 << 10));
    RunCheckRequest request;
    request.module = Module(wb::test::kRelax);
    request.profile = true;
    request.timing = {.number = 2, .repeat = 2};
    RunCheckResult result = RunAndCheck(request);
    QVERIFY2(result.functions.size() == 1, result.message.c_str());
    const FunctionResult& r = result.functions[0];
    QVERIFY2(r.ok(), r.message.c_str());
    // matmul (4x8 by 8x3): x, w in, lv out; add(lv, lv): lv twice in, gv out.
    QCOMPARE(r.bytes.value_or(-1), 4.0 * (32 + 24 + 12) + 4.0 * (12 + 12 + 12));
    QVERIFY(r.roofline_fraction().has_value());
  }

  void theHostPeaksAreMeasuredCachedAndReused() {
    const std::string path = HostPeaksCachePath();
    QVERIFY(QString::fromStdString(path).startsWith(cache_->path()));
    QVERIFY(!std::filesystem::exists(path));
    std::string warning;
    HostPeaks measured = HostPeaksFor(0, &warning);
    QVERIFY2(warning.empty(), warning.c_str());
    QVERIFY(!measured.from_cache);
    for (double v : {measured.gflops_1, measured.gflops_all, measured.gbytes_per_s_1,
                     measured.gbytes_per_s_all, measured.cache_gbytes_per_s_1,
                     measured.cache_gbytes_per_s_all}) {
      QVERIFY(Positive(v));
    }
    QCOMPARE(measured.threads, runtime::ThreadPool::GlobalNumThreads());
    QVERIFY(measured.cache_bytes > 0);
    QVERIFY(measured.vector_bits == 32 || measured.vector_bits == 256 ||
            measured.vector_bits == 512);
    // Written, under this host's key.
    QVERIFY(std::filesystem::exists(path));
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(path));
    const std::string key = HostPeaksKey(HostCpuModel(), measured.threads);
    QVERIFY(doc["hosts"].contains(key));
    QCOMPARE(doc["hosts"][key]["gflops_1"].get<double>(), measured.gflops_1);
    // Read back, not measured again.
    HostPeaks again = HostPeaksFor();
    QVERIFY(again.from_cache);
    QCOMPARE(again.gflops_1, measured.gflops_1);
    QCOMPARE(again.gbytes_per_s_all, measured.gbytes_per_s_all);
    // Another thread count is another entry; the first stays.
    HostPeaks one = HostPeaksFor(1);
    QVERIFY(!one.from_cache);
    QCOMPARE(one.threads, 1);
    doc = nlohmann::json::parse(std::ifstream(path));
    QVERIFY(doc["hosts"].contains(key));
    QVERIFY(doc["hosts"].contains(HostPeaksKey(HostCpuModel(), 1)));
  }

  void measuringAgainReplacesTheCachedFigures() {
    wb::test::PlantPeaks(wb::test::PlantedPeaks(16 << 10));
    QCOMPARE(HostPeaksFor().gflops_1, 100.0);
    HostPeaks fresh = MeasureHostPeaks();
    QVERIFY(!fresh.from_cache);
    QVERIFY(Positive(fresh.gflops_1));
    HostPeaks read = HostPeaksFor();
    QVERIFY(read.from_cache);
    QCOMPARE(read.gflops_1, fresh.gflops_1);
    QCOMPARE(read.measured_at, fresh.measured_at);
  }

  void aBrokenCacheEntryIsMeasuredAgain() {
    HostPeaks bad = wb::test::PlantedPeaks(16 << 10);
    bad.gbytes_per_s_all = -1;
    wb::test::PlantPeaks(bad);
    HostPeaks p = HostPeaksFor();
    QVERIFY(!p.from_cache);
    QVERIFY(Positive(p.gbytes_per_s_all));
  }

 private:
  std::unique_ptr<QTemporaryDir> cache_;
};

QTEST_GUILESS_MAIN(TstRoofline)
#include "tst_roofline.moc"
