// The allocation passes: PlanAndUpdateBufferAllocationLocation (allocations move down to where
// they are used) and CompactBufferAllocation (allocations shrink to what is accessed). Golden
// cases, each checked by the interpreter on random inputs.
#include "golden_case.h"

using namespace wb;

namespace {

const testing::GoldenCase kPlanCases[] = {
    // Used only inside one iteration of `i`: allocated in a new block under the loop.
    {"to a loop", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i in range(16):
            for j in range(16):
                with T.sblock("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] + T.float32(1.0)
            for j in range(16):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, vj] * T.float32(2.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i in range(16):
            with T.sblock(""):
                T.reads(A[i, 0:16])
                T.writes(C[i, 0:16])
                B = T.sblock_alloc_buffer((16, 16))
                for j in range(16):
                    with T.sblock("B"):
                        vi, vj = T.axis.remap("SS", [i, j])
                        T.reads(A[vi, vj])
                        T.writes(B[vi, vj])
                        B[vi, vj] = A[vi, vj] + T.float32(1.0)
                for j in range(16):
                    with T.sblock("C"):
                        vi, vj = T.axis.remap("SS", [i, j])
                        T.reads(B[vi, vj])
                        T.writes(C[vi, vj])
                        C[vi, vj] = B[vi, vj] * T.float32(2.0))"},
    // Used only inside one block: allocated by that block.
    {"to a block", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "float32")):
        S = T.sblock_alloc_buffer((4,))
        for i in range(4):
            with T.sblock("row"):
                vi = T.axis.spatial(4, i)
                T.reads(A[vi, 0:4])
                T.writes(B[vi])
                for k in range(4):
                    with T.sblock("square"):
                        vk = T.axis.spatial(4, k)
                        T.reads(A[vi, vk])
                        T.writes(S[vk])
                        S[vk] = A[vi, vk] * A[vi, vk]
                B[vi] = S[0] + S[1] + S[2] + S[3])",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("row"):
                vi = T.axis.spatial(4, i)
                T.reads(A[vi, 0:4])
                T.writes(B[vi])
                S = T.sblock_alloc_buffer((4,))
                for k in range(4):
                    with T.sblock("square"):
                        vk = T.axis.spatial(4, k)
                        T.reads(A[vi, vk])
                        T.writes(S[vk])
                        S[vk] = A[vi, vk] * A[vi, vk]
                B[vi] = S[0] + S[1] + S[2] + S[3])"},
    // A reduction's accumulator must outlive the reduction loop: it goes above `k`, not into
    // the block (where every iteration would get a fresh one).
    {"reduction accumulator", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 8), "float32"), idx: T.Buffer((4,), "int32")):
        mx = T.sblock_alloc_buffer((4,))
        for i, k in T.grid(4, 8):
            with T.sblock("argmax"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk], mx[vi])
                T.writes(mx[vi], idx[vi])
                if vk == 0:
                    mx[vi] = T.float32(-1000.0)
                if A[vi, vk] > mx[vi]:
                    mx[vi] = A[vi, vk]
                    idx[vi] = vk)",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 8), "float32"), idx: T.Buffer((4,), "int32")):
        for i in range(4):
            with T.sblock(""):
                T.reads(A[i, 0:8])
                T.writes(idx[i])
                mx = T.sblock_alloc_buffer((4,))
                for k in range(8):
                    with T.sblock("argmax"):
                        vi, vk = T.axis.remap("SR", [i, k])
                        T.reads(A[vi, vk], mx[vi])
                        T.writes(mx[vi], idx[vi])
                        if vk == 0:
                            mx[vi] = T.float32(-1000.0)
                        if A[vi, vk] > mx[vi]:
                            mx[vi] = A[vi, vk]
                            idx[vi] = vk)"},
    // Used by two loop nests: the allocation stays at the root.
    {"stays", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T1 = T.sblock_alloc_buffer((8,))
        for i in range(8):
            with T.sblock("T1"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(T1[vi])
                T1[vi] = A[vi] + T.float32(1.0)
        for i in range(8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                T.reads(T1[7 - vi])
                T.writes(B[vi])
                B[vi] = T1[7 - vi])",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T1 = T.sblock_alloc_buffer((8,))
        for i in range(8):
            with T.sblock("T1"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(T1[vi])
                T1[vi] = A[vi] + T.float32(1.0)
        for i in range(8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                T.reads(T1[7 - vi])
                T.writes(B[vi])
                B[vi] = T1[7 - vi])"},
};

const testing::GoldenCase kCompactCases[] = {
    // One row per iteration of `i`: (16, 16) becomes (1, 16).
    {"row", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i in range(16):
            with T.sblock(""):
                T.reads(A[0:16, 0:16])
                T.writes(C[0:16, 0:16])
                B = T.sblock_alloc_buffer((16, 16))
                for j in range(16):
                    with T.sblock("B"):
                        T.reads(A[i, j])
                        T.writes(B[i, j])
                        B[i, j] = A[i, j] + T.float32(1.0)
                for j in range(16):
                    with T.sblock("C"):
                        T.reads(B[i, j])
                        T.writes(C[i, j])
                        C[i, j] = B[i, j] * T.float32(2.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i in range(16):
            with T.sblock(""):
                T.reads(A[0:16, 0:16])
                T.writes(C[0:16, 0:16])
                B = T.sblock_alloc_buffer((1, 16))
                for j in range(16):
                    with T.sblock("B"):
                        T.reads(A[i, j])
                        T.writes(B[0, j])
                        B[0, j] = A[i, j] + T.float32(1.0)
                for j in range(16):
                    with T.sblock("C"):
                        T.reads(B[0, j])
                        T.writes(C[i, j])
                        C[i, j] = B[0, j] * T.float32(2.0))"},
    // A tile of a split loop: the start (i0 * 8) is subtracted from the index.
    {"tile", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i0 in range(8):
            with T.sblock(""):
                T.reads(A[0:64])
                T.writes(B[0:64])
                T1 = T.sblock_alloc_buffer((64,))
                for i1 in range(8):
                    T1[i0 * 8 + i1] = A[i0 * 8 + i1] * T.float32(2.0)
                for i1 in range(8):
                    B[i0 * 8 + i1] = T1[i0 * 8 + 7 - i1])",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i0 in range(8):
            with T.sblock(""):
                T.reads(A[0:64])
                T.writes(B[0:64])
                T1 = T.sblock_alloc_buffer((8,))
                for i1 in range(8):
                    T1[i1] = A[i0 * 8 + i1] * T.float32(2.0)
                for i1 in range(8):
                    B[i0 * 8 + i1] = T1[7 - i1])"},
    // Shrinks the part that is used (rows 2..5), keeps what is fully used.
    {"partial", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        T1 = T.sblock_alloc_buffer((8, 8))
        for i, j in T.grid(4, 8):
            T1[i + 2, j] = A[i + 2, j]
        for i, j in T.grid(4, 8):
            B[i, j] = T1[i + 2, j] + T.float32(1.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        T1 = T.sblock_alloc_buffer((4, 8))
        for i, j in T.grid(4, 8):
            T1[i, j] = A[i + 2, j]
        for i, j in T.grid(4, 8):
            B[i, j] = T1[i, j] + T.float32(1.0))"},
    // A tile of a symbolic dimension whose last rows are predicated (a register tile over n rows):
    // (n, 4) becomes the constant (3, 4), which the code generator keeps on the stack (in
    // registers) instead of a workspace of n rows.
    {"symbolic tile", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n, 4))
        B = T.match_buffer(var_B, (n, 4))
        for i0 in range((n + T.int64(2)) // T.int64(3)):
            with T.sblock(""):
                T1 = T.sblock_alloc_buffer((n, 4), scope="local")
                for i1, j in T.grid(T.int64(3), 4):
                    if i0 * T.int64(3) + i1 < n:
                        T1[i0 * T.int64(3) + i1, j] = A[i0 * T.int64(3) + i1, j] * T.float32(2.0)
                for i1, j in T.grid(T.int64(3), 4):
                    if i0 * T.int64(3) + i1 < n:
                        B[i0 * T.int64(3) + i1, j] = T1[i0 * T.int64(3) + i1, j] + T.float32(1.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n, 4))
        B = T.match_buffer(var_B, (n, 4))
        for i0 in range((n + T.int64(2)) // T.int64(3)):
            with T.sblock(""):
                T1 = T.sblock_alloc_buffer((T.int64(3), 4), scope="local")
                for i1, j in T.grid(T.int64(3), 4):
                    if i0 * T.int64(3) + i1 < n:
                        T1[i1, j] = A[i0 * T.int64(3) + i1, j] * T.float32(2.0)
                for i1, j in T.grid(T.int64(3), 4):
                    if i0 * T.int64(3) + i1 < n:
                        B[i0 * T.int64(3) + i1, j] = T1[i1, j] + T.float32(1.0))"},
};

}  // namespace

class TestBufferAllocation : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void plan_data() { testing::AddGoldenRows(kPlanCases); }
  void plan() {
    QFETCH(int, index);
    std::string error = testing::CheckGolden("PlanAndUpdateBufferAllocationLocation",
                                             kPlanCases[index].before, kPlanCases[index].after);
    QVERIFY2(error.empty(), error.c_str());
  }

  void compact_data() { testing::AddGoldenRows(kCompactCases); }
  void compact() {
    QFETCH(int, index);
    std::string error = testing::CheckGolden("CompactBufferAllocation", kCompactCases[index].before,
                                             kCompactCases[index].after);
    QVERIFY2(error.empty(), error.c_str());
  }

  // The two together, as the pipeline runs them: the intermediate of the first case ends up
  // one row, allocated inside the loop, with the same results.
  void planThenCompact() {
    std::string error;
    auto module = testing::ParseModule(kPlanCases[0].before, &error);
    QVERIFY2(error.empty(), error.c_str());
    auto out = testing::RunPasses(
        "PlanAndUpdateBufferAllocationLocation, ConvertBlocksToOpaque, CompactBufferAllocation, "
        "LowerOpaqueBlock, FlattenBuffer",
        module, &error);
    QVERIFY2(error.empty(), error.c_str());
    std::string text = script::PrintModule(out);
    QVERIFY2(text.find("        B = T.alloc_buffer((16,))") != std::string::npos, text.c_str());
    error = testing::CheckSameMeaning(module, out);
    QVERIFY2(error.empty(), error.c_str());
  }
};

QTEST_APPLESS_MAIN(TestBufferAllocation)
#include "tst_tir_buffer_allocation.moc"
