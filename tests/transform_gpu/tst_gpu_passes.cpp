// The GPU lowering passes on their own: ThreadSync (golden, and the interpreter's race check
// on the input shows the barrier was needed), VerifyGPUBinding's errors, DefaultGPUSchedule
// (golden, meaning kept, parameters), and the tir_lowering_cuda pipeline end to end on
// scheduled kernels run by the interpreter before and after.
#include <QTest>

#include <cmath>

#include "../transform/golden_case.h"
#include "gpu_check.h"

using namespace wb;
using namespace wb::testing;

namespace {

// Threads exchange data through shared memory, in a loop: the tile written at the top of an
// iteration is read by other threads (RAW) and overwritten by the next iteration (WAR).
const char* kNoSync = R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 64), "float32"), B: T.Buffer((64,), "float32")):
        tx = T.launch_thread("threadIdx.x", 64)
        S = T.alloc_buffer((64,), scope="shared")
        acc = T.alloc_buffer((1,), scope="local")
        acc[0] = T.float32(0.0)
        for k in range(4):
            S[tx] = A[k, tx]
            acc[0] = acc[0] + S[63 - tx]
        S[tx] = acc[0]
        B[tx] = S[tx]
)";

const char* kSynced = R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 64), "float32"), B: T.Buffer((64,), "float32")):
        tx = T.launch_thread("threadIdx.x", 64)
        S = T.alloc_buffer((64,), scope="shared")
        acc = T.alloc_buffer((1,), scope="local")
        acc[0] = T.float32(0.0)
        for k in range(4):
            T.tvm_storage_sync("shared")
            S[tx] = A[k, tx]
            T.tvm_storage_sync("shared")
            acc[0] = acc[0] + S[63 - tx]
        T.tvm_storage_sync("shared")
        S[tx] = acc[0]
        B[tx] = S[tx]
)";

// Each thread reads back only its own element: no barrier needed.
const char* kOwnElement = R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        tx = T.launch_thread("threadIdx.x", 64)
        S = T.alloc_buffer((64,), scope="shared")
        S[tx] = A[tx]
        B[tx] = S[tx] * T.float32(2.0)
)";

// Elementwise, unscheduled: DefaultGPUSchedule fuses and binds.
const char* kElementwise = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 300), "float32"), B: T.Buffer((8, 300), "float32")):
        for i, j in T.grid(8, 300):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)
)";

const char* kElementwiseBound = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 300), "float32"), B: T.Buffer((8, 300), "float32")):
        for i_j_fused_0 in T.thread_binding(3, thread="blockIdx.x"):
            for i_j_fused_1 in T.thread_binding(1024, thread="threadIdx.x"):
                with T.sblock("B"):
                    vi = T.axis.spatial(8, (i_j_fused_0 * 1024 + i_j_fused_1) // 300)
                    vj = T.axis.spatial(300, (i_j_fused_0 * 1024 + i_j_fused_1) % 300)
                    T.where(i_j_fused_0 * 1024 + i_j_fused_1 < 2400)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)
)";

// A row sum: the reduction loop stays serial in each thread.
const char* kRowSum = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((100, 16), "float32"), B: T.Buffer((100,), "float32")):
        for i, k in T.grid(100, 16):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A[vi, vk]
)";

// Scheduled by hand: a tile staged in shared memory by one thread loop, read transposed by
// another; the shared buffer is allocated at the root and must end up inside the kernel.
const char* kSharedTranspose = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 64), "float32")):
        S = T.sblock_alloc_buffer((64, 32), scope="shared")
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for ty in T.thread_binding(32, thread="threadIdx.y"):
                for tx in T.thread_binding(32, thread="threadIdx.x"):
                    with T.sblock("S"):
                        vi = T.axis.spatial(64, bx * 32 + ty)
                        vj = T.axis.spatial(32, tx)
                        T.reads(A[vi, vj])
                        T.writes(S[vi, vj])
                        S[vi, vj] = A[vi, vj]
            for ty in T.thread_binding(32, thread="threadIdx.y"):
                for tx in T.thread_binding(32, thread="threadIdx.x"):
                    with T.sblock("B"):
                        vi = T.axis.spatial(32, ty)
                        vj = T.axis.spatial(64, bx * 32 + tx)
                        T.reads(S[vj, vi])
                        T.writes(B[vi, vj])
                        B[vi, vj] = S[vj, vi]
)";

// A row reduction whose reduction loop is bound to threadIdx.x (a cross-thread reduction).
std::string CrossThread(int r, const char* update, const char* init) {
  const std::string R = std::to_string(r);
  return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, )" + R + R"(), "float32"), B: T.Buffer((16,), "float32")):
        for i in T.thread_binding(16, thread="blockIdx.x"):
            for k in T.thread_binding()" + R + R"(, thread="threadIdx.x"):
                with T.sblock("B"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    T.reads(A[vi, vk])
                    T.writes(B[vi])
                    with T.init():
                        B[vi] = )" + init + R"(
                    B[vi] = )" + update + R"(
)";
}

// C = A * B scheduled for the GPU (TVM's shared-memory tiling, as corpus 05 at 64x64): 4
// blocks of 64 threads, 4x4 results a thread in a local accumulator, the A and B tiles of each
// k step fetched cooperatively into shared memory by loops bound to threadIdx.x again. The
// schedule has no barriers: ThreadSync must add them for the lowered kernel to compute C.
const char* kTiledMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        A_shared = T.sblock_alloc_buffer((64, 64), scope="shared")
        B_shared = T.sblock_alloc_buffer((64, 64), scope="shared")
        C_local = T.sblock_alloc_buffer((64, 64), scope="local")
        for f in T.thread_binding(4, thread="blockIdx.x"):
            for t in T.thread_binding(64, thread="threadIdx.x"):
                for i_2_init, j_2_init in T.grid(4, 4):
                    with T.sblock("C_init"):
                        vi = T.axis.spatial(64, f // 2 * 32 + t // 8 * 4 + i_2_init)
                        vj = T.axis.spatial(64, f % 2 * 32 + t % 8 * 4 + j_2_init)
                        T.reads()
                        T.writes(C_local[vi, vj])
                        C_local[vi, vj] = T.float32(0.0)
                for k_0 in range(4):
                    for a0 in range(8):
                        for a1 in T.thread_binding(64, thread="threadIdx.x"):
                            with T.sblock("A_shared"):
                                v0 = T.axis.spatial(64, f // 2 * 32 + (a0 * 64 + a1) // 16)
                                v1 = T.axis.spatial(64, k_0 * 16 + (a0 * 64 + a1) % 16)
                                T.reads(A[v0, v1])
                                T.writes(A_shared[v0, v1])
                                A_shared[v0, v1] = A[v0, v1]
                    for b0 in range(8):
                        for b1 in T.thread_binding(64, thread="threadIdx.x"):
                            with T.sblock("B_shared"):
                                v0 = T.axis.spatial(64, k_0 * 16 + (b0 * 64 + b1) // 32)
                                v1 = T.axis.spatial(64, f % 2 * 32 + (b0 * 64 + b1) % 32)
                                T.reads(B[v0, v1])
                                T.writes(B_shared[v0, v1])
                                B_shared[v0, v1] = B[v0, v1]
                    for k_1, i_2, j_2 in T.grid(16, 4, 4):
                        with T.sblock("C_update"):
                            vi = T.axis.spatial(64, f // 2 * 32 + t // 8 * 4 + i_2)
                            vj = T.axis.spatial(64, f % 2 * 32 + t % 8 * 4 + j_2)
                            vk = T.axis.reduce(64, k_0 * 16 + k_1)
                            T.reads(C_local[vi, vj], A_shared[vi, vk], B_shared[vk, vj])
                            T.writes(C_local[vi, vj])
                            C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]
                for i_3, j_3 in T.grid(4, 4):
                    with T.sblock("C_local"):
                        v0 = T.axis.spatial(64, f // 2 * 32 + t // 8 * 4 + i_3)
                        v1 = T.axis.spatial(64, f % 2 * 32 + t % 8 * 4 + j_3)
                        T.reads(C_local[v0, v1])
                        T.writes(C[v0, v1])
                        C[v0, v1] = C_local[v0, v1]
)";

const GoldenCase kCases[] = {
    {"ThreadSync(storage_scope=\"shared\")", kOwnElement, kOwnElement},
    {"DefaultGPUSchedule", kElementwise, kElementwiseBound},
};

std::string Lower(const std::string& program, const std::string& pipeline,
                  ir::IRModule* out = nullptr) {
  std::string error;
  auto m = ParseModule(program, &error);
  if (!error.empty()) return error;
  auto got = RunPasses(pipeline, m, &error);
  if (out) *out = got;
  return error;
}

}  // namespace

class TestGpuPasses : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() { AddGoldenRows(kCases); }
  void golden() {
    QFETCH(int, index);
    const GoldenCase& c = kCases[index];
    std::string e = CheckGolden(c.name, c.before, c.after);
    QVERIFY2(e.empty(), e.c_str());
  }

  void threadSyncInsertsBarriers() {
    // The input races (so CheckGolden's before/after comparison cannot run it): compare the
    // structure, then the synced program's result with a direct computation.
    std::string error;
    ir::IRModule got;
    QCOMPARE(Lower(kNoSync, "ThreadSync", &got), std::string());
    auto expected = ParseModule(kSynced, &error);
    QVERIFY2(error.empty(), error.c_str());
    auto mismatch = ir::FindFirstMismatch(got, expected);
    QVERIFY2(!mismatch, (script::PrintModule(got) + "\n" + (mismatch ? mismatch->lhs_path : "")).c_str());
    QCOMPARE(CheckRoundTrip(got), std::string());
    auto a = Floats({4, 64}, 1), b = Floats({64}, 0);
    QCOMPARE(Run(got, "main", {a, b}), std::string());
    for (int t = 0; t < 64; ++t) {
      float want = 0;
      for (int k = 0; k < 4; ++k) want += F(a)[k * 64 + 63 - t];
      QCOMPARE(F(b)[t], want);
    }
  }

  void threadSyncBarriersAreNeeded() {
    // Without the barriers the threads run one after another and read tiles not yet stored;
    // with one of them removed (a team now) the interpreter reports the race.
    auto a = Floats({4, 64}, 1), b = Floats({64}, 0);
    QCOMPARE(Run(ParseGpu(kNoSync), "main", {a, b}), std::string());
    int wrong = 0;
    for (int t = 0; t < 64; ++t) {
      float want = 0;
      for (int k = 0; k < 4; ++k) want += F(a)[k * 64 + 63 - t];
      wrong += F(b)[t] != want;
    }
    QVERIFY(wrong > 0);
    const std::string sync = "            T.tvm_storage_sync(\"shared\")\n";
    std::string partial = kSynced;
    partial.erase(partial.find(sync + "            acc"), sync.size());
    std::string err = Run(ParseGpu(partial), "main", {a, Floats({64}, 0)});
    QVERIFY2(err.find("data race on shared memory 'S'") != std::string::npos, err.c_str());
  }

  void threadSyncRejectsScope() {
    std::string e = Lower(kOwnElement, "ThreadSync(storage_scope=\"warp\")");
    QVERIFY2(e.find("storage_scope must be") != std::string::npos, e.c_str());
  }

  void unboundBlockIsNamed() {
    std::string e = Lower(kElementwise, "VerifyGPUBinding");
    QVERIFY2(e.find("block 'B' is not bound to GPU threads") != std::string::npos, e.c_str());
    QVERIFY2(e.find("Did you forget to bind?") != std::string::npos, e.c_str());
    QVERIFY2(e.find("case.py:9:13") != std::string::npos, e.c_str());  // the block
  }

  void cudaPipelineRejectsUnboundBlocks() {
    std::string e = Lower(kElementwise, "tir_lowering_cuda");
    QVERIFY2(e.find("pass 'VerifyGPUBinding' failed: block 'B' is not bound to GPU threads") !=
                 std::string::npos,
             e.c_str());
  }

  void boundKernelVerifies() {
    QCOMPARE(Lower(kElementwiseBound, "VerifyGPUBinding"), std::string());
  }

  void defaultScheduleThreadsPerBlock() {
    ir::IRModule got;
    QCOMPARE(Lower(kElementwise, "DefaultGPUSchedule(max_threads_per_block=128)", &got),
             std::string());
    std::string text = script::PrintModule(got);
    QVERIFY2(text.find("T.thread_binding(19, thread=\"blockIdx.x\")") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("T.thread_binding(128, thread=\"threadIdx.x\")") != std::string::npos,
             text.c_str());
    std::string error;
    QCOMPARE(CheckSameMeaning(ParseModule(kElementwise, &error), got), std::string());
  }

  void defaultScheduleKeepsReductionSerial() {
    ir::IRModule got;
    QCOMPARE(Lower(kRowSum, "DefaultGPUSchedule(max_threads_per_block=32), VerifyGPUBinding", &got),
             std::string());
    std::string error;
    QCOMPARE(CheckSameMeaning(ParseModule(kRowSum, &error), got), std::string());
  }

  void cudaPipelineEndToEnd_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("schedule");  // run first; a named pipeline runs on its own
    QTest::newRow("elementwise") << kElementwise << "DefaultGPUSchedule";
    QTest::newRow("row sum") << kRowSum << "DefaultGPUSchedule(max_threads_per_block=64)";
    QTest::newRow("shared transpose") << kSharedTranspose << "";
    QTest::newRow("tiled matmul") << kTiledMatmul << "";
    QTest::newRow("cross-thread sum 64")
        << QString::fromStdString(CrossThread(64, "B[vi] + A[vi, vk]", "T.float32(0.0)")) << "";
    QTest::newRow("cross-thread max 48")
        << QString::fromStdString(CrossThread(48, "T.max(B[vi], A[vi, vk])", "T.float32(-3.0e38)"))
        << "";
    QTest::newRow("cross-thread sum 16")
        << QString::fromStdString(CrossThread(16, "A[vi, vk] + B[vi]", "T.float32(0.0)")) << "";
  }
  void cudaPipelineEndToEnd() {
    QFETCH(QString, program);
    QFETCH(QString, schedule);
    std::string error;
    auto before = ParseModule(program.toStdString(), &error);
    QVERIFY2(error.empty(), error.c_str());
    ir::IRModule scheduled = before;
    if (!schedule.isEmpty()) {
      scheduled = RunPasses(schedule.toStdString(), before, &error);
      QVERIFY2(error.empty(), error.c_str());
    }
    ir::IRModule after = RunPasses("tir_lowering_cuda", scheduled, &error);
    QVERIFY2(error.empty(), error.c_str());
    // The host keeps its name; the kernel is a calling_conv 2 PrimFunc launched by call_packed.
    auto* kernel = after->Lookup("main_kernel").as<tir::PrimFuncNode>();
    QVERIFY(kernel);
    QVERIFY(kernel->GetAttr("tir.kernel_launch_params"));
    std::string text = script::PrintModule(after);
    QVERIFY2(text.find("T.call_packed(\"main_kernel\"") != std::string::npos, text.c_str());
    std::string same = CheckSameMeaning(before, after);
    QVERIFY2(same.empty(), same.substr(0, 3000).c_str());
    std::string rt = CheckRoundTrip(after);
    QVERIFY2(rt.empty(), rt.substr(0, 3000).c_str());
  }

  void tiledMatmulNeedsThreadSync() {
    // The pipeline without ThreadSync leaves a kernel without barriers; with it, the kernel
    // computes C (also checked against the schedule above), and dropping either of its barriers
    // is reported as a race on the tiles.
    std::string text = *transform::PassRegistry::Global().FindPipeline("tir_lowering_cuda");
    const std::string sync_pass = "ThreadSync(storage_scope=\"shared\"), ";
    QVERIFY(text.find(sync_pass) != std::string::npos);
    text.erase(text.find(sync_pass), sync_pass.size());
    std::string error;
    auto before = ParseModule(kTiledMatmul, &error);
    auto no_sync = RunPasses(text, before, &error);
    QVERIFY2(error.empty(), error.c_str());
    std::string printed = script::PrintModule(no_sync);
    QVERIFY2(printed.find("tvm_storage_sync") == std::string::npos, printed.c_str());
    auto with_sync = RunPasses("tir_lowering_cuda", before, &error);
    QVERIFY2(error.empty(), error.c_str());
    printed = script::PrintModule(with_sync);
    // The storage scopes survive flattening and storage rewriting.
    QVERIFY2(printed.find("A_shared = T.alloc_shared(") != std::string::npos, printed.c_str());
    QVERIFY2(printed.find("C_local = T.alloc_local(") != std::string::npos, printed.c_str());
    const std::string barrier = "T.tvm_storage_sync(\"shared\")\n";
    auto a = Floats({64, 64}, 2), b = Floats({64, 64}, 3), c = Floats({64, 64}, 0);
    QCOMPARE(Run(with_sync, "main", {a, b, c}), std::string());
    for (int i = 0; i < 64; ++i) {
      for (int j = 0; j < 64; ++j) {
        float want = 0;
        for (int k = 0; k < 64; ++k) want += F(a)[i * 64 + k] * F(b)[k * 64 + j];
        QVERIFY(std::fabs(F(c)[i * 64 + j] - want) < 1e-4f);
      }
    }
    int barriers = 0;
    for (size_t at = printed.find(barrier); at != std::string::npos; at = printed.find(barrier, at + 1)) {
      ++barriers;
      std::string dropped = printed;
      size_t line = dropped.rfind('\n', at) + 1;
      dropped.erase(line, at + barrier.size() - line);
      auto broken = script::Parse(dropped, "dropped.py");
      QVERIFY2(broken.ok(), dropped.c_str());
      std::string err = Run(broken.module, "main", {a, b, Floats({64, 64}, 0)});
      QVERIFY2(err.find("data race on shared memory") != std::string::npos,
               (err + "\n" + dropped).c_str());
    }
    QCOMPARE(barriers, 2);
  }

  void crossThreadReductionShape() {
    ir::IRModule got;
    QCOMPARE(Lower(CrossThread(64, "B[vi] + A[vi, vk]", "T.float32(0.0)"),
                   "LowerCrossThreadReduction", &got),
             std::string());
    std::string text = script::PrintModule(got);
    for (const char* part :
         {"cross_thread_B = T.sblock_alloc_buffer((1,), scope=\"local\")",
          "with T.sblock(\"B_cross_thread\"):", "\"reduce_scope\"",
          "T.tvm_thread_allreduce(T.uint32(1), A[i, k], T.bool(True), cross_thread_B.data, k)",
          "with T.sblock(\"B_write_back\"):", "T.where(k == 0)", "B[vi] = cross_thread_B[0]"}) {
      QVERIFY2(text.find(part) != std::string::npos, (std::string(part) + "\n" + text).c_str());
    }
    QCOMPARE(CheckRoundTrip(got), std::string());
  }

  void crossThreadReductionWithSerialPart() {
    // Each thread first reduces its serial share (the in-thread part), then the threads reduce
    // theirs: the same sums.
    const char* program = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 128), "float32"), B: T.Buffer((16,), "float32")):
        for i in T.thread_binding(16, thread="blockIdx.x"):
            for k0 in range(2):
                for k1 in T.thread_binding(64, thread="threadIdx.x"):
                    with T.sblock("B"):
                        vi = T.axis.spatial(16, i)
                        vk = T.axis.reduce(128, k0 * 64 + k1)
                        T.reads(A[vi, vk])
                        T.writes(B[vi])
                        with T.init():
                            B[vi] = T.float32(0.0)
                        B[vi] = B[vi] + A[vi, vk]
)";
    ir::IRModule got;
    std::string lowered_error = Lower(program, "LowerCrossThreadReduction", &got);
    QVERIFY2(lowered_error.empty(), lowered_error.c_str());
    std::string text = script::PrintModule(got);
    for (const char* part : {"normal_reduce_temp_B = T.sblock_alloc_buffer((1,), scope=\"local\")",
                             "with T.sblock(\"B_in_thread_init\"):", "with T.sblock(\"B_in_thread\"):",
                             "T.tvm_thread_allreduce(T.uint32(1), normal_reduce_temp_B[0], T.bool(True), cross_thread_B.data, k1)"}) {
      QVERIFY2(text.find(part) != std::string::npos, (std::string(part) + "\n" + text).c_str());
    }
    // The thread loop now holds the serial one.
    QVERIFY2(text.find("for k1 in T.thread_binding(64, thread=\"threadIdx.x\"):") < text.find("for k0 in range(2):"),
             text.c_str());
    // Checked once lowered: the interpreter runs the allreduce as LowerThreadAllreduce writes it.
    std::string error;
    auto before = ParseModule(program, &error);
    ir::IRModule lowered;
    lowered_error = Lower(program, "tir_lowering_cuda", &lowered);
    QVERIFY2(lowered_error.empty(), lowered_error.c_str());
    std::string same = CheckSameMeaning(before, lowered);
    QVERIFY2(same.empty(), same.c_str());
    // A serial reduction loop outside the spatial ones is not an in-thread part: reported.
    std::string e = Lower(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 128), "float32"), B: T.Buffer((16,), "float32")):
        for k0 in range(2):
            for i in T.thread_binding(16, thread="blockIdx.x"):
                for k1 in T.thread_binding(64, thread="threadIdx.x"):
                    with T.sblock("B"):
                        vi = T.axis.spatial(16, i)
                        vk = T.axis.reduce(128, k0 * 64 + k1)
                        T.reads(A[vi, vk])
                        T.writes(B[vi])
                        with T.init():
                            B[vi] = T.float32(0.0)
                        B[vi] = B[vi] + A[vi, vk]
)", "LowerCrossThreadReduction");
    QVERIFY2(e.find("block 'B': it also reduces over the serial loop 'k0'") != std::string::npos, e.c_str());
  }

  void cudaPipelineIsRegistered() {
    const std::string* text = transform::PassRegistry::Global().FindPipeline("tir_lowering_cuda");
    QVERIFY(text);
    for (const char* pass : {"VerifyGPUBinding", "LowerCrossThreadReduction", "ThreadSync",
                             "LowerThreadAllreduce", "SplitHostDevice"}) {
      QVERIFY2(text->find(pass) != std::string::npos, pass);
    }
    QVERIFY(text->rfind("LowerDeviceKernelLaunch") + std::string("LowerDeviceKernelLaunch").size() ==
            text->size());
  }
};

QTEST_APPLESS_MAIN(TestGpuPasses)
#include "tst_gpu_passes.moc"
