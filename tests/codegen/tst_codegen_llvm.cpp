// Codegen of every TIR construct, checked against the reference interpreter on seeded random
// inputs: scheduled (S-TIR) and lowered functions, reductions, vectors (Ramp, Broadcast,
// Shuffle, strided and masked accesses), parallel/vectorized/unrolled loops, conditionals,
// while/break/let, local allocations, decl_buffer views, symbolic shapes, math intrinsics.

#include <QTest>
#include <cfloat>
#include <cmath>
#include <limits>
#include <tuple>

#include "codegen_test_util.h"
#include "codegen/flop_count.h"
#include "runtime/thread_pool.h"

using namespace wb;
using namespace wb::testing;

namespace {

#define CHECK_SAME(mod, built, func, ...)                                          \
  do {                                                                            \
    std::string diff = CompareWithInterpreter(mod, built, func, __VA_ARGS__);      \
    QVERIFY2(diff.empty(), diff.c_str());                                         \
  } while (0)

}  // namespace

class TstCodegenLLVM : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void scheduledElementwiseAndMatmul() {
    auto mod = ParseOk(R"(
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def add(A: T.Buffer((37, 5), "float32"), B: T.Buffer((37, 5), "float32"), C: T.Buffer((37, 5), "float32")):
        for i, j in T.grid(37, 5):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]

    @T.prim_func(s_tir=True)
    def matmul(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 12), "float32"), C: T.Buffer((16, 12), "float32")):
        for i, j, k in T.grid(16, 12, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
    runtime::Module built = BuildOk(mod);
    QCOMPARE(built->FunctionNames().size(), size_t{2});
    CHECK_SAME(mod, built, "add", {TensorSpec{{37, 5}}, TensorSpec{{37, 5}}, TensorSpec{{37, 5}}});
    // Float sums in the same order, each multiply-add contracted into one FMA (one rounding
    // fewer than the interpreter's): equal within the float32 tolerance.
    std::string diff = CompareWithInterpreter(mod, built, "matmul",
                                              {TensorSpec{{16, 8}}, TensorSpec{{8, 12}}, TensorSpec{{16, 12}}}, 3);
    QVERIFY2(diff.empty(), diff.c_str());
  }

  void vectorsRampBroadcastShuffleStridedMasked() {
    auto mod = ParseOk(R"(
@I.ir_module
class Module:
    @T.prim_func
    def ramp(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(16):
            B[i * 4:i * 4 + 4] = A[i * 4:i * 4 + 4] * T.Cast("float32x4", T.Ramp(i * 4, 1, 4)) + T.Broadcast(T.float32(0.5), 4)

    @T.prim_func
    def wide(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(4):
            B[i * 16:i * 16 + 16] = T.max(A[i * 16:i * 16 + 16], T.Broadcast(T.float32(0.0), 16)) * A[i * 16:i * 16 + 16]

    @T.prim_func
    def interleave(even: T.Buffer((8,), "float32"), odd: T.Buffer((8,), "float32"), out: T.Buffer((16,), "float32")):
        for i in range(2):
            out[i * 8:i * 8 + 8] = T.Shuffle([even[i * 4:i * 4 + 4], odd[i * 4:i * 4 + 4]], [0, 4, 1, 5, 2, 6, 3, 7])

    @T.prim_func
    def strided(A: T.Buffer((32,), "float32"), even: T.Buffer((16,), "float32")):
        for i in range(4):
            even[i * 4:i * 4 + 4] = A[i * 8:i * 8 + 8:2]

    @T.prim_func
    def masked_copy(n: T.int32, A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range((n + 3) // 4):
            B.vstore([T.Ramp(i * 4, 1, 4)], A.vload([T.Ramp(i * 4, 1, 4)], predicate=T.Ramp(i * 4, 1, 4) < T.Broadcast(n, 4)), predicate=T.Ramp(i * 4, 1, 4) < T.Broadcast(n, 4))

    @T.prim_func
    def int_vectors(A: T.Buffer((32,), "int32"), B: T.Buffer((32,), "int32")):
        for i in range(4):
            B[i * 8:i * 8 + 8] = T.floordiv(A[i * 8:i * 8 + 8] * T.Broadcast(3, 8) - T.Ramp(i, 2, 8), T.Broadcast(4, 8))
)");
    runtime::Module built = BuildOk(mod);
    CHECK_SAME(mod, built, "ramp", {TensorSpec{{64}}, TensorSpec{{64}}});
    CHECK_SAME(mod, built, "wide", {TensorSpec{{64}}, TensorSpec{{64}}});
    CHECK_SAME(mod, built, "interleave", {TensorSpec{{8}}, TensorSpec{{8}}, TensorSpec{{16}}});
    CHECK_SAME(mod, built, "strided", {TensorSpec{{32}}, TensorSpec{{16}}});
    for (int64_t n : {16, 10, 3}) {
      CHECK_SAME(mod, built, "masked_copy", {n, TensorSpec{{16}}, TensorSpec{{16}}});
    }
    CHECK_SAME(mod, built, "int_vectors", {TensorSpec{{32}, "int32"}, TensorSpec{{32}, "int32"}});
  }

  void parallelVectorizedUnrolledLocalAllocAndViews() {
    auto mod = ParseOk(R"(
@T.prim_func
def main(A_flat: T.Buffer((64,), "float32"), B_flat: T.Buffer((64,), "float32"), C_flat: T.Buffer((64,), "float32")):
    A = T.decl_buffer((8, 8), data=A_flat.data)
    packedB = T.alloc_buffer((64,))
    for x in T.parallel(8):
        packedB[x * 8:x * 8 + 8] = B_flat[x * 8:x * 8 + 8]
    for i in T.parallel(8):
        acc = T.alloc_buffer((8,))
        for j in T.vectorized(8):
            acc[j] = T.float32(0.0)
        for k in range(8):
            acc[0:8] = acc[0:8] + T.Broadcast(A[i, k], 8) * packedB[k * 8:k * 8 + 8]
        for j in T.unroll(8):
            C_flat[i * 8 + j] = acc[j]
)");
    runtime::Module built = BuildOk(mod);
    // Several pool sizes: chunking must cover every iteration exactly once.
    auto& pool = runtime::ThreadPool::Global();
    int saved = pool.num_threads();
    for (int threads : {1, 2, 3, 5}) {
      pool.SetNumThreads(threads);
      CHECK_SAME(mod, built, "main", {TensorSpec{{64}}, TensorSpec{{64}}, TensorSpec{{64}}});
    }
    pool.SetNumThreads(saved);
  }

  void parallelReductionWithLargeWorkspace() {
    // 300x300 float32 is past the stack limit: the local buffer comes from the workspace.
    auto mod = ParseOk(R"(
@T.prim_func
def main(A: T.Buffer((300, 300), "float32"), S: T.Buffer((300,), "float32")):
    tmp = T.alloc_buffer((300, 300))
    for i in T.parallel(300):
        for j in T.vectorized(300):
            tmp[i, j] = A[i, j] * A[i, j]
    for i in T.parallel(300):
        S[i] = T.float32(0.0)
        for j in range(300):
            S[i] = S[i] + tmp[i, j]
)");
    runtime::Module built = BuildOk(mod);
    CHECK_SAME(mod, built, "main", {TensorSpec{{300, 300}}, TensorSpec{{300}}});
  }

  void conditionalsAndControlFlow() {
    auto mod = ParseOk(R"(
@I.ir_module
class Module:
    @T.prim_func
    def branches(A: T.Buffer((40,), "float32"), B: T.Buffer((40,), "float32")):
        for i in range(40):
            if A[i] > T.float32(0.25):
                B[i] = A[i] * T.float32(2.0)
            elif A[i] < T.float32(-0.5):
                B[i] = T.if_then_else(i < 20, A[i], T.float32(-1.0))
            else:
                B[i] = T.Select(i % 3 == 0, T.float32(7.0), A[i] - T.float32(1.0))

    @T.prim_func
    def guarded(A: T.Buffer((10,), "float32"), B: T.Buffer((12,), "float32")):
        for i in range(12):
            B[i] = T.if_then_else(i < 10, A[T.min(i, 9)], T.float32(0.0))

    @T.prim_func
    def search(sorted_seq: T.Buffer((64,), "float32"), values: T.Buffer((8,), "float32"), indices: T.Buffer((8,), "int32")):
        for i in T.parallel(8):
            lo: T.int32 = 0
            hi: T.int32 = 64
            while lo < hi:
                mid: T.let[T.int32] = (lo + hi) // 2
                if sorted_seq[mid] < values[i]:
                    lo = mid + 1
                else:
                    hi = mid
            indices[i] = lo

    @T.prim_func
    def first_above(A: T.Buffer((4, 16), "float32"), thresh: T.float32, pos: T.Buffer((4,), "int32")):
        for r in range(4):
            found: T.int32 = -1
            for i in range(16):
                if A[r, i] > thresh:
                    found = i
                    T.break_loop()
            pos[r] = found

    @T.prim_func
    def skip_negative(A: T.Buffer((32,), "float32"), B: T.Buffer((1,), "float32")):
        B[0] = T.float32(0.0)
        for i in range(32):
            if A[i] < T.float32(0.0):
                T.continue_loop()
            B[0] = B[0] + A[i]

    @T.prim_func
    def smoothstep(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            t = T.float32()
            B[i] = T.Let(t * t * (T.float32(3.0) - T.float32(2.0) * t), where={t: T.max(T.min(A[i], T.float32(1.0)), T.float32(0.0))})
)");
    runtime::Module built = BuildOk(mod);
    CHECK_SAME(mod, built, "branches", {TensorSpec{{40}}, TensorSpec{{40}}});
    CHECK_SAME(mod, built, "guarded", {TensorSpec{{10}}, TensorSpec{{12}}});
    CHECK_SAME(mod, built, "search", {TensorSpec{{64}, "float32", 0.0, 32.0}, TensorSpec{{8}, "float32", -1.0, 40.0},
                                      TensorSpec{{8}, "int32"}});
    CHECK_SAME(mod, built, "first_above", {TensorSpec{{4, 16}}, 0.5, TensorSpec{{4}, "int32"}});
    CHECK_SAME(mod, built, "skip_negative", {TensorSpec{{32}}, TensorSpec{{1}}});
    CHECK_SAME(mod, built, "smoothstep", {TensorSpec{{16}, "float32", -0.5, 1.5}, TensorSpec{{16}}});
  }

  // A vectorized if_then_else loads only for the lanes that take each branch: padding over the
  // borders of a row (lanes mixed at both ends: masked loads) and rows past the end of a buffer
  // (every lane agrees: only the taken branch runs). The results are the interpreter's.
  void vectorIfThenElseLoadsOnlyItsLanes() {
    auto mod = ParseOk(R"(
@I.ir_module
class Module:
    @T.prim_func
    def pad(A: T.Buffer((3, 13), "float32"), P: T.Buffer((3, 16), "float32")):
        for r in range(3):
            for c in T.vectorized(16):
                P[r, c] = T.if_then_else(1 <= c and c < 14, A[r, c - 1], T.float32(0.0))

    @T.prim_func
    def rows(A: T.Buffer((5, 8), "float32"), P: T.Buffer((6, 8), "float32")):
        for r in range(6):
            for c in T.vectorized(8):
                P[r, c] = T.if_then_else(r < 5, A[r, c], T.float32(0.0))
)");
    codegen::BuildOptions options;
    options.default_schedule = false;
    codegen::BuildResult built = codegen::Build(mod, codegen::Target::Host(), options);
    QVERIFY2(built.ok(), RenderDiagnostics(built.diagnostics).c_str());
    QCOMPARE(QString::fromStdString(
                 CompareWithInterpreter(mod, built.module, "pad", {TensorSpec({3, 13}), TensorSpec({3, 16})})),
             QString());
    QCOMPARE(QString::fromStdString(
                 CompareWithInterpreter(mod, built.module, "rows", {TensorSpec({5, 8}), TensorSpec({6, 8})})),
             QString());
    std::string ll = built.module->GetSource("ll");
    QVERIFY(ll.find("llvm.masked.load") != std::string::npos);
    QVERIFY(ll.find("if_mixed") != std::string::npos);
  }

  void symbolicShapesAndScalars() {
    auto mod = ParseOk(R"(
@T.prim_func(s_tir=True)
def main(A: T.Buffer(("n", "m"), "float32"), B: T.Buffer(("m",), "float32"), C: T.Buffer((n, m), "float32"), scale: T.float32):
    n = T.int32()
    m = T.int32()
    for i, j in T.grid(n, m):
        with T.sblock("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * scale + B[vj]
)");
    runtime::Module built = BuildOk(mod);
    for (auto [n, m] : {std::pair<int64_t, int64_t>{3, 5}, {7, 2}, {1, 33}, {0, 4}}) {
      CHECK_SAME(mod, built, "main", {TensorSpec{{n, m}}, TensorSpec{{m}}, TensorSpec{{n, m}}, 2.5});
    }
  }

  void mathIntrinsics() {
    auto mod = ParseOk(R"(
@T.prim_func
def main(A: T.Buffer((64,), "float32"), O: T.Buffer((64, 16), "float32")):
    for i in range(64):
        O[i, 0] = T.exp(A[i])
        O[i, 1] = T.log(T.fabs(A[i]) + T.float32(1.0))
        O[i, 2] = T.sqrt(T.fabs(A[i]))
        O[i, 3] = T.rsqrt(T.fabs(A[i]) + T.float32(1.0))
        O[i, 4] = T.tanh(A[i])
        O[i, 5] = T.sigmoid(A[i])
        O[i, 6] = T.erf(A[i])
        O[i, 7] = T.pow(T.fabs(A[i]), T.float32(1.5))
        O[i, 8] = T.floor(A[i] * T.float32(3.0))
        O[i, 9] = T.ceil(A[i] * T.float32(3.0))
        O[i, 10] = T.round(A[i] * T.float32(3.0))
        O[i, 11] = T.sin(A[i]) + T.cos(A[i])
        O[i, 12] = T.atan2(A[i], T.float32(0.5))
        O[i, 13] = T.exp2(A[i]) - T.log2(T.fabs(A[i]) + T.float32(2.0))
        O[i, 14] = T.Cast("float32", T.isnan(T.log(A[i])))
        O[i, 15] = T.fmod(A[i] * T.float32(7.0), T.float32(2.0))
)");
    runtime::Module built = BuildOk(mod);
    // libm and the interpreter's double-then-round may differ by an ulp.
    std::string diff = CompareWithInterpreter(mod, built, "main", {TensorSpec{{64}, "float32", -3.0, 3.0},
                                                                  TensorSpec{{64, 16}}}, 1, 10);
    QVERIFY2(diff.empty(), diff.c_str());
  }

  void bitOperations() {
    auto mod = ParseOk(R"(
@T.prim_func
def main(A: T.Buffer((64,), "int32"), U: T.Buffer((64,), "uint32"), O: T.Buffer((64, 5), "int32"), P: T.Buffer((64, 2), "uint32")):
    for i in range(64):
        O[i, 0] = T.shift_right(A[i], 2)
        O[i, 1] = T.shift_left(A[i], 3)
        O[i, 2] = T.bitwise_and(A[i], 255)
        O[i, 3] = T.popcount(A[i])
        O[i, 4] = T.clz(A[i])
        P[i, 0] = T.shift_right(U[i], T.uint32(2))
        P[i, 1] = T.bitwise_not(U[i])
)");
    runtime::Module built = BuildOk(mod);
    CHECK_SAME(mod, built, "main", {TensorSpec{{64}, "int32", -100000.0, 100000.0}, TensorSpec{{64}, "uint32", 0.0, 1e9},
                                    TensorSpec{{64, 5}, "int32"}, TensorSpec{{64, 2}, "uint32"}});
  }

  void fastMathOnlyWhereAsked() {
    auto mod = ParseOk(R"(
@I.ir_module
class Module:
    @T.prim_func
    def strict(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(64):
            B[i] = A[i] * T.float32(3.0) + T.float32(1.0)

    @T.prim_func
    def fast(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"fast_math": True})
        for i in range(64):
            B[i] = A[i] * T.float32(3.0) + T.float32(1.0)
)");
    runtime::Module built = BuildOk(mod);
    std::string ll = built->GetSource("ll");
    auto body_of = [&](const std::string& name) {
      size_t at = ll.find("define internal i32 @" + name + "_compute_");
      if (at == std::string::npos) return std::string();
      return ll.substr(at, ll.find("\n}\n", at) - at);
    };
    QVERIFY2(body_of("fast").find("fmul fast") != std::string::npos, body_of("fast").c_str());
    QVERIFY2(body_of("strict").find("fmul float") != std::string::npos, body_of("strict").c_str());
    QVERIFY(body_of("strict").find("fast") == std::string::npos);
    // Buffer pointers of the compute function are noalias and aligned.
    QVERIFY2(body_of("strict").find("noalias align 64") != std::string::npos, body_of("strict").c_str());
    QVERIFY(!built->GetSource("ll-opt").empty());
    QVERIFY(built->GetSource("asm").find("strict") != std::string::npos);
    CHECK_SAME(mod, built, "strict", {TensorSpec{{64}}, TensorSpec{{64}}});
  }

  void viewsMatchBuffersAndSubroutineErrors() {
    auto mod = ParseOk(R"(
@I.ir_module
class Module:
    @T.prim_func
    def views(A: T.Buffer((16,), "float32"), lo: T.Buffer((8,), "float32"), hi: T.Buffer((8,), "float32")):
        A_hi = T.decl_buffer((8,), data=A.data, elem_offset=8)
        A_2d = T.decl_buffer((2, 8), data=A.data)
        for i in range(8):
            lo[i] = A_2d[0, i]
            hi[i] = A_hi[i]
        A_hi[0] = T.float32(42.0)

    @T.prim_func(s_tir=True)
    def tiles(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
        for io, jo in T.grid(2, 2):
            with T.sblock("tile"):
                vio, vjo = T.axis.remap("SS", [io, jo])
                A_tile = T.match_buffer(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4), strides=("s0", "s1"), offset_factor=1)
                B_tile = T.match_buffer(B[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4), offset_factor=1)
                for i, j in T.grid(4, 4):
                    B_tile[i, j] = A_tile[i, j] + T.Cast("float32", A_tile.elem_offset)
)");
    runtime::Module built = BuildOk(mod);
    CHECK_SAME(mod, built, "views", {TensorSpec{{16}}, TensorSpec{{8}}, TensorSpec{{8}}});
    CHECK_SAME(mod, built, "tiles", {TensorSpec{{8, 8}}, TensorSpec{{8, 8}}});

    auto calls = ParseOk(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def twice(x: T.float32) -> T.float32:
        return x * T.float32(2.0)

    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = Module.twice(A[i])
)");
    codegen::BuildResult r = codegen::Build(calls, codegen::Target::Host());
    QVERIFY(!r.ok());
    std::string text = RenderDiagnostics(r.diagnostics);
    QVERIFY2(text.find("not supported") != std::string::npos, text.c_str());
  }

  void llvmIntrinsicsByName() {
    // T.call_llvm_pure_intrin names the intrinsic (LLVM's IDs differ between versions); an
    // overloaded one takes its types from the arguments. Printed with the name, as TVM's
    // call_llvm_pure_intrin(dtype, name, ...) reads it.
    const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        C[T.Ramp(0, 1, 8)] = T.call_llvm_pure_intrin(T.llvm_lookup_intrinsic_id("llvm.fma"), A[T.Ramp(0, 1, 8)], B[T.Ramp(0, 1, 8)], C[T.Ramp(0, 1, 8)], dtype="float32x8")
)";
    auto mod = ParseOk(text);
    std::string printed = script::PrintModule(mod);
    QVERIFY2(printed.find("T.call_llvm_pure_intrin(\"float32x8\", \"llvm.fma\", A[0:8]") != std::string::npos,
             printed.c_str());
    runtime::Module built = BuildOk(mod);
    std::vector<runtime::NDArray> arrays;
    for (uint64_t i = 0; i < 3; ++i) {
      arrays.push_back(runtime::NDArray::Empty({8}, *runtime::DTypeFromString("float32")));
      runtime::FillRandom(arrays.back(), runtime::RandomFillOptions{i + 5, -2.0, 2.0});
    }
    runtime::NDArray c0 = arrays[2].Copy();
    built.get_function("main").Call({arrays[0], arrays[1], arrays[2]});
    for (int64_t k = 0; k < 8; ++k) {
      float want = std::fma(static_cast<float>(arrays[0].GetDouble(k)), static_cast<float>(arrays[1].GetDouble(k)),
                            static_cast<float>(c0.GetDouble(k)));
      QCOMPARE(static_cast<float>(arrays[2].GetDouble(k)), want);
    }
    // An unknown name and a signature that does not fit are build errors naming them.
    for (auto [from, to, why] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"llvm.fma", "llvm.no_such_thing", "LLVM has no intrinsic named llvm.no_such_thing"},
             {"llvm.fma", "llvm.x86.avx512.vpdpbusd.512", "do not fit the intrinsic's signature"}}) {
      std::string bad = text;
      bad.replace(bad.find(from), from.size(), to);
      codegen::BuildResult r = codegen::Build(ParseOk(bad), codegen::Target::Host());
      QVERIFY(!r.ok());
      std::string message = RenderDiagnostics(r.diagnostics);
      QVERIFY2(message.find(why) != std::string::npos, message.c_str());
    }
  }

  // The vector exp over its whole range, at 16, 8 and 4 lanes, for an AVX2 target (exponent
  // arithmetic) and, where the host has AVX-512, an AVX-512 one (vscalefps): within 2.5 ulp of
  // std::exp where the result is normal, 0 and inf past the ends, denormals within their
  // spacing (or flushed to 0 by the AVX2 form), NaN kept.
  void vectorExpOverItsRange() {
    std::vector<float> x = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 10.0f, -10.0f, 80.0f, 88.0f, 88.5f, 88.72f,
                            88.73f, 89.0f, 100.0f, 1e30f, -80.0f, -87.0f, -87.3f, -87.4f, -90.0f, -100.0f,
                            -103.9f, -104.5f, -200.0f, -1e30f, INFINITY, -INFINITY, NAN,
                            // The ends of the AVX2 form's range, around ln(FLT_MIN) and 128 ln 2.
                            -87.33654022216797f, -87.33654785156250f, -87.33653259277344f,
                            88.72283172607422f, 88.72283935546875f, 88.72282409667969f, -NAN,
                            1e-30f, -1e-30f, 0.34657359f, -0.34657359f, 3e6f, -3e6f};
    for (int i = 0; x.size() % 16 != 0 || i < 4000; ++i) x.push_back(-100.0f + 0.0475f * static_cast<float>(i));
    const int64_t n = static_cast<int64_t>(x.size());
    codegen::Target host = codegen::Target::Host();
    std::vector<std::string> targets = {"llvm -mcpu=haswell"};
    if (host.HasFeature("avx512f") && host.HasFeature("avx512vl")) targets.push_back("llvm -mcpu=skylake-avx512");
    for (const std::string& text : targets) {
      std::string error;
      auto target = codegen::ParseTarget(text, &error);
      QVERIFY2(target.has_value(), error.c_str());
      for (int lanes : {16, 8, 4}) {
        std::string ns = std::to_string(n), ls = std::to_string(lanes);
        auto mod = ParseOk("@T.prim_func\ndef main(A: T.Buffer((" + ns + ",), \"float32\"), B: T.Buffer((" + ns +
                           ",), \"float32\")):\n    for io in range(" + std::to_string(n / lanes) +
                           "):\n        for v in T.vectorized(" + ls + "):\n            B[io * " + ls +
                           " + v] = T.exp(A[io * " + ls + " + v])\n");
        codegen::BuildResult built = codegen::Build(mod, *target);
        QVERIFY2(built.ok(), RenderDiagnostics(built.diagnostics).c_str());
        runtime::NDArray a = runtime::NDArray::Empty({n}, *runtime::DTypeFromString("float32"));
        runtime::NDArray b = runtime::NDArray::Empty({n}, *runtime::DTypeFromString("float32"));
        auto* pa = reinterpret_cast<float*>(a.ElementData());
        auto* pb = reinterpret_cast<float*>(b.ElementData());
        std::copy(x.begin(), x.end(), pa);
        built.module.get_function("main").Call({a, b});
        for (int64_t k = 0; k < n; ++k) {
          const float want = std::exp(x[k]), got = pb[k];
          const std::string where = text + ", " + ls + " lanes: exp(" + std::to_string(x[k]) + ") = " +
                                    std::to_string(got) + ", want " + std::to_string(want);
          if (std::isnan(want)) {
            QVERIFY2(std::isnan(got), where.c_str());
          } else if (std::isinf(want) || want == 0.0f) {
            QVERIFY2(got == want, where.c_str());
          } else if (want < FLT_MIN) {
            // Denormal results: within their spacing (the AVX2 form flushes them to 0).
            const bool flushed = got == 0.0f && text.find("haswell") != std::string::npos;
            QVERIFY2(flushed || std::fabs(got - want) <= 2 * std::numeric_limits<float>::denorm_min() + want * 1e-6f,
                     where.c_str());
          } else {
            QVERIFY2(std::fabs(got - want) <= 2.5f * std::numeric_limits<float>::epsilon() * want, where.c_str());
          }
        }
      }
    }
  }

  // A vector divided by one value in all lanes multiplies by its reciprocal (no vector division
  // left in the loop); other divisions stay divisions. Both within float32 rounding.
  void divisionByABroadcastUsesTheReciprocal() {
    auto mod = ParseOk(R"(
@I.ir_module
class Module:
    @T.prim_func
    def by_row(A: T.Buffer((64, 64), "float32"), S: T.Buffer((64,), "float32"), B: T.Buffer((64, 64), "float32")):
        for i in range(64):
            for jo in range(4):
                for v in T.vectorized(16):
                    B[i, jo * 16 + v] = A[i, jo * 16 + v] / S[i]

    @T.prim_func
    def elementwise(A: T.Buffer((64,), "float32"), S: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for jo in range(4):
            for v in T.vectorized(16):
                B[jo * 16 + v] = A[jo * 16 + v] / S[jo * 16 + v]
)");
    runtime::Module built = BuildOk(mod);
    CHECK_SAME(mod, built, "by_row", {TensorSpec{{64, 64}}, TensorSpec{{64}}, TensorSpec{{64, 64}}});
    CHECK_SAME(mod, built, "elementwise", {TensorSpec{{64}}, TensorSpec{{64}}, TensorSpec{{64}}});
    std::string ll = built->GetSource("ll-opt");
    auto body = [&](const std::string& name) {
      size_t at = ll.find("@" + name);
      size_t end = ll.find("\n}", at);
      return ll.substr(at, end - at);
    };
    std::string by_row = body("by_row"), elementwise = body("elementwise");
    QVERIFY2(by_row.find("fdiv <") == std::string::npos, by_row.c_str());
    QVERIFY2(elementwise.find("fdiv <") != std::string::npos, elementwise.c_str());
  }

  void targetOptionsReachTheMachineCode() {
    auto mod = ParseOk(R"(
@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for io in range(16):
        for v in T.vectorized(16):
            B[io * 16 + v] = A[io * 16 + v] * T.float32(3.0)
)");
    std::string error;
    auto generic = codegen::ParseTarget("llvm -mcpu=x86-64", &error);
    QVERIFY2(generic.has_value(), error.c_str());
    codegen::BuildResult sse = codegen::Build(mod, *generic);
    QVERIFY2(sse.ok(), RenderDiagnostics(sse.diagnostics).c_str());
    std::string asm_sse = sse.module->GetSource("asm");
    QVERIFY2(asm_sse.find("xmm") != std::string::npos && asm_sse.find("ymm") == std::string::npos,
             asm_sse.c_str());
    CHECK_SAME(mod, sse.module, "main", {TensorSpec{{256}}, TensorSpec{{256}}});
    codegen::Target host = codegen::Target::Host();
    if (host.HasFeature("avx2")) {
      codegen::BuildResult wide = codegen::Build(mod, host);
      QVERIFY2(wide.ok(), RenderDiagnostics(wide.diagnostics).c_str());
      std::string asm_wide = wide.module->GetSource("asm");
      QVERIFY2(asm_wide.find("ymm") != std::string::npos || asm_wide.find("zmm") != std::string::npos,
               asm_wide.c_str());
    }
  }

  void flopCount() {
    auto mod = ParseOk(R"(
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def matmul(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 12), "float32"), C: T.Buffer((16, 12), "float32")):
        for i, j, k in T.grid(16, 12, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def scaled(a: T.handle, b: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n, 4), "float32")
        B = T.match_buffer(b, (n, 4), "int32")
        for i, j in T.grid(n, 4):
            A[i, j] = T.exp(A[i, j]) * T.float32(2.0)
            B[i, j] = B[i, j] * 3 + 1
)");
    auto matmul = mod->Lookup("matmul").as_ref<tir::PrimFuncNode>();
    QCOMPARE(codegen::CountFlops(matmul).value_or(-1), 2.0 * 16 * 12 * 8);
    auto scaled = mod->Lookup("scaled").as_ref<tir::PrimFuncNode>();
    QVERIFY(!codegen::CountFlops(scaled).has_value());  // n unknown
    const tir::VarNode* n = scaled->buffer_map[0]->shape[0].as<tir::VarNode>();
    QVERIFY(n);
    // exp and the multiply per float element; the integer ops do not count.
    QCOMPARE(codegen::CountFlops(scaled, {{n, 10}}).value_or(-1), 2.0 * 10 * 4);
  }

  void unloweredOrGpuCodeIsAClearError() {
    auto mod = ParseOk(R"(
@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in T.thread_binding(64, thread="threadIdx.x"):
        A[i] = T.float32(1.0)
)");
    codegen::BuildResult r = codegen::Build(mod, codegen::Target::Host());
    QVERIFY(!r.ok());
    std::string text = RenderDiagnostics(r.diagnostics);
    QVERIFY2(text.find("GPU") != std::string::npos, text.c_str());
  }
};

QTEST_APPLESS_MAIN(TstCodegenLLVM)
#include "tst_codegen_llvm.moc"
