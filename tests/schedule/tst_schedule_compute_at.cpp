// Tests of compute_at and reverse_compute_at: the moved block's loops cover exactly the region
// its consumers (producers) need under the target loop; results compared structurally with
// expected TVMScript and run through the interpreter, TVM's error cases, replay from the trace.

#include <QTest>
#include <string>

#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const char* kAtOuter = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i in range(16):
            for ax0 in range(16):
                with T.sblock("B"):
                    vi = T.axis.spatial(16, i)
                    vj = T.axis.spatial(16, ax0)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for j in range(16):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

const char* kAtInner = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

const char* kAtInnerUnitLoops = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            for ax0, ax1 in T.grid(1, 1):
                with T.sblock("B"):
                    vi = T.axis.spatial(16, i + ax0)
                    vj = T.axis.spatial(16, j + ax1)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

const char* kAtSplit = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i_0 in range(4):
            for ax0, ax1 in T.grid(4, 16):
                with T.sblock("B"):
                    vi = T.axis.spatial(16, i_0 * 4 + ax0)
                    vj = T.axis.spatial(16, ax1)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for i_1, j in T.grid(4, 16):
                with T.sblock("C"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    vj = T.axis.spatial(16, j)
                    T.reads(B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

const char* kReverseAt = R"(@I.ir_module
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
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for ax0 in range(16):
                with T.sblock("C"):
                    vi = T.axis.spatial(16, i)
                    vj = T.axis.spatial(16, ax0)
                    T.reads(B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

const char* kMatmulRelu = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32")):
        C = T.sblock_alloc_buffer((8, 8))
        for i, j, k in T.grid(8, 8, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(8, 8):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0.0))
)";

// The reduction moves under the elementwise loop; its reduction loop is kept whole.
const char* kMatmulReluAt = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32")):
        C = T.sblock_alloc_buffer((8, 8))
        for i, j in T.grid(8, 8):
            for ax0 in range(8):
                with T.sblock("C"):
                    vi = T.axis.spatial(8, i)
                    vj = T.axis.spatial(8, j)
                    vk = T.axis.reduce(8, ax0)
                    T.reads(A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    with T.init():
                        C[vi, vj] = T.float32(0.0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0.0))
)";


// D moves under the matmul's j loop, after its reduction loop.
const char* kMatmulReluReverseAt = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32")):
        C = T.sblock_alloc_buffer((8, 8))
        for i, j in T.grid(8, 8):
            for k in range(8):
                with T.sblock("C"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    T.reads(A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    with T.init():
                        C[vi, vj] = T.float32(0.0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0.0))
)";

const char* kTwoReaders = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
        for i in range(16):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i)
                T.reads(B[vi])
                T.writes(C[vi])
                C[vi] = B[vi] * T.float32(2.0)
        for i in range(16):
            with T.sblock("D"):
                vi = T.axis.spatial(16, i)
                T.reads(B[vi])
                T.writes(D[vi])
                D[vi] = B[vi] * T.float32(3.0)
)";

// C reads B one past its own index where that exists: under C's loop, B's needed region
// [j, j + 1] passes B's last element at j = 15, so the moved block is guarded.
const char* kShiftedRead = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] * T.float32(2.0)
        for j in range(16):
            with T.sblock("C"):
                vj = T.axis.spatial(16, j)
                T.reads(B[vj:vj + 2])
                T.writes(C[vj])
                C[vj] = B[vj] + T.if_then_else(vj < 15, B[vj + 1], T.float32(0.0))
)";

// TVM's guard: `v < hi + 1`, the conjunction simplified as a whole (`j + ax0 < 16`).
const char* kShiftedReadAt = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for j in range(16):
            for ax0 in range(2):
                with T.sblock("B"):
                    vi = T.axis.spatial(16, j + ax0)
                    T.where(j + ax0 < 16)
                    T.reads(A[vi])
                    T.writes(B[vi])
                    B[vi] = A[vi] * T.float32(2.0)
            with T.sblock("C"):
                vj = T.axis.spatial(16, j)
                T.reads(B[vj:vj + 2])
                T.writes(C[vj])
                C[vj] = B[vj] + T.if_then_else(vj < 15, B[vj + 1], T.float32(0.0))
)";


// B reads temp through the digits of its one iterator (`vi // 8`, `vi % 8`).
const char* kDigits = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((8, 8), "float32"), Y: T.Buffer((64,), "float32")):
        temp = T.sblock_alloc_buffer((8, 8))
        for i, j in T.grid(8, 8):
            with T.sblock("A"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X[vj, vi])
                T.writes(temp[vi, vj])
                temp[vi, vj] = X[vj, vi] + T.float32(1.0)
        for i in range(64):
            with T.sblock("B"):
                vi = T.axis.spatial(64, i)
                T.reads(temp[vi // 8, vi % 8])
                T.writes(Y[vi])
                Y[vi] = temp[vi // 8, vi % 8]
)";

// A row of temp at each i is 8 consecutive iterations of B.
const char* kDigitsReverseAt = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((8, 8), "float32"), Y: T.Buffer((64,), "float32")):
        temp = T.sblock_alloc_buffer((8, 8))
        for i in range(8):
            for j in range(8):
                with T.sblock("A"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(X[vj, vi])
                    T.writes(temp[vi, vj])
                    temp[vi, vj] = X[vj, vi] + T.float32(1.0)
            for ax0 in range(8):
                with T.sblock("B"):
                    vi = T.axis.spatial(64, i * 8 + ax0)
                    T.reads(temp[vi // 8, vi % 8])
                    T.writes(Y[vi])
                    Y[vi] = temp[vi // 8, vi % 8]
)";

// One element of temp at each (i, j): one iteration of B.
const char* kDigitsReverseAtInner = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((8, 8), "float32"), Y: T.Buffer((64,), "float32")):
        temp = T.sblock_alloc_buffer((8, 8))
        for i, j in T.grid(8, 8):
            with T.sblock("A"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X[vj, vi])
                T.writes(temp[vi, vj])
                temp[vi, vj] = X[vj, vi] + T.float32(1.0)
            with T.sblock("B"):
                vi = T.axis.spatial(64, i * 8 + j)
                T.reads(temp[vi // 8, vi % 8])
                T.writes(Y[vi])
                Y[vi] = temp[vi // 8, vi % 8]
)";

// A producer blockized by tiles of 4 (its outer block writes B[vo * 4:vo * 4 + 4]) and a consumer
// tiled by 8: under the consumer's outer loop two producer tiles are needed.
const char* kTiles = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
        B = T.sblock_alloc_buffer((32,))
        for o in range(8):
            with T.sblock("B_o"):
                vo = T.axis.spatial(8, o)
                T.reads(A[vo * 4:vo * 4 + 4])
                T.writes(B[vo * 4:vo * 4 + 4])
                for i in range(4):
                    with T.sblock("B"):
                        vi = T.axis.spatial(32, vo * 4 + i)
                        T.reads(A[vi])
                        T.writes(B[vi])
                        B[vi] = A[vi] * T.float32(2.0)
        for jo, ji in T.grid(4, 8):
            with T.sblock("C"):
                vj = T.axis.spatial(32, jo * 8 + ji)
                T.reads(B[vj])
                T.writes(C[vj])
                C[vj] = B[vj] + T.float32(1.0)
)";

const char* kTilesAt = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
        B = T.sblock_alloc_buffer((32,))
        for jo in range(4):
            for ax0 in range(2):
                with T.sblock("B_o"):
                    vo = T.axis.spatial(8, jo * 2 + ax0)
                    T.reads(A[vo * 4:vo * 4 + 4])
                    T.writes(B[vo * 4:vo * 4 + 4])
                    for i in range(4):
                        with T.sblock("B"):
                            vi = T.axis.spatial(32, vo * 4 + i)
                            T.reads(A[vi])
                            T.writes(B[vi])
                            B[vi] = A[vi] * T.float32(2.0)
            for ji in range(8):
                with T.sblock("C"):
                    vj = T.axis.spatial(32, jo * 8 + ji)
                    T.reads(B[vj])
                    T.writes(C[vj])
                    C[vj] = B[vj] + T.float32(1.0)
)";

// The producer writes its rows in reverse: row i of Y is iteration 7 - i.
const char* kReversedRows = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((8, 8), "float32"), Z: T.Buffer((8, 8), "float32")):
        Y = T.sblock_alloc_buffer((8, 8))
        for i, j in T.grid(8, 8):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X[vi, vj])
                T.writes(Y[7 - vi, vj])
                Y[7 - vi, vj] = X[vi, vj] * T.float32(3.0)
        for i, j in T.grid(8, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(Z[vi, vj])
                Z[vi, vj] = Y[vi, vj] + T.float32(1.0)
)";

const char* kReversedRowsAt = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((8, 8), "float32"), Z: T.Buffer((8, 8), "float32")):
        Y = T.sblock_alloc_buffer((8, 8))
        for i in range(8):
            for ax0 in range(8):
                with T.sblock("B"):
                    vi = T.axis.spatial(8, 7 - i)
                    vj = T.axis.spatial(8, ax0)
                    T.reads(X[vi, vj])
                    T.writes(Y[7 - vi, vj])
                    Y[7 - vi, vj] = X[vi, vj] * T.float32(3.0)
            for j in range(8):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(Y[vi, vj])
                    T.writes(Z[vi, vj])
                    Z[vi, vj] = Y[vi, vj] + T.float32(1.0)
)";

// A reduction reading its input through nested digits (`v % 8 // 2`): its reduction iterator k
// makes the map from its iterators to the read point not bijective, so each dimension is solved
// alone: v // 8 fixes v to 8 consecutive values, the other digits constrain nothing.
const char* kNestedDigits = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64,), "float32"), W: T.Buffer((3,), "float32"), C: T.Buffer((64,), "float32")):
        B = T.sblock_alloc_buffer((8, 4, 2))
        for i, j, l in T.grid(8, 4, 2):
            with T.sblock("B"):
                vi, vj, vl = T.axis.remap("SSS", [i, j, l])
                T.reads(A[vi * 8 + vj * 2 + vl])
                T.writes(B[vi, vj, vl])
                B[vi, vj, vl] = A[vi * 8 + vj * 2 + vl] + T.float32(1.0)
        for v, k in T.grid(64, 3):
            with T.sblock("C"):
                vv, vk = T.axis.remap("SR", [v, k])
                T.reads(B[vv // 8, vv % 8 // 2, vv % 2], W[vk])
                T.writes(C[vv])
                with T.init():
                    C[vv] = T.float32(0.0)
                C[vv] = C[vv] + B[vv // 8, vv % 8 // 2, vv % 2] * W[vk]
)";

const char* kNestedDigitsReverseAt = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64,), "float32"), W: T.Buffer((3,), "float32"), C: T.Buffer((64,), "float32")):
        B = T.sblock_alloc_buffer((8, 4, 2))
        for i in range(8):
            for j, l in T.grid(4, 2):
                with T.sblock("B"):
                    vi, vj, vl = T.axis.remap("SSS", [i, j, l])
                    T.reads(A[vi * 8 + vj * 2 + vl])
                    T.writes(B[vi, vj, vl])
                    B[vi, vj, vl] = A[vi * 8 + vj * 2 + vl] + T.float32(1.0)
            for ax0, ax1 in T.grid(8, 3):
                with T.sblock("C"):
                    vv = T.axis.spatial(64, i * 8 + ax0)
                    vk = T.axis.reduce(3, ax1)
                    T.reads(B[vv // 8, vv % 8 // 2, vv % 2], W[vk])
                    T.writes(C[vv])
                    with T.init():
                        C[vv] = T.float32(0.0)
                    C[vv] = C[vv] + B[vv // 8, vv % 8 // 2, vv % 2] * W[vk]
)";

// A consumer with a unit iterator v0 reading row v0 of a 16-row producer: under the producer's
// row loop the unit iterator is solved to the row, guarded to stay inside its domain.
const char* kUnitRow = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 4), "float32"), D: T.Buffer((1, 4), "float32")):
        B = T.sblock_alloc_buffer((16, 4))
        for i, j in T.grid(16, 4):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for a, b in T.grid(1, 4):
            with T.sblock("D"):
                v0, v1 = T.axis.remap("SS", [a, b])
                T.reads(B[v0, v1])
                T.writes(D[v0, v1])
                D[v0, v1] = B[v0, v1] + T.float32(1.0)
)";

const char* kUnitRowReverseAt = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 4), "float32"), D: T.Buffer((1, 4), "float32")):
        B = T.sblock_alloc_buffer((16, 4))
        for i in range(16):
            for j in range(4):
                with T.sblock("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for ax0, ax1 in T.grid(1, 4):
                with T.sblock("D"):
                    T.where(i < 1)
                    v0 = T.axis.spatial(1, i + ax0)
                    v1 = T.axis.spatial(4, ax1)
                    T.reads(B[v0, v1])
                    T.writes(D[v0, v1])
                    D[v0, v1] = B[v0, v1] + T.float32(1.0)
)";

}  // namespace

class TestScheduleComputeAt : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void computeAtOuterLoop() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    SBlockRV b = sch.GetSBlock("B");
    auto c_loops = sch.GetLoops(sch.GetSBlock("C"));
    auto b_loops = sch.GetLoops(b);
    sch.ComputeAt(b, c_loops[0]);
    ExpectModule(mod, sch.mod(), kAtOuter);
    // B's own loops are gone; its handle and C's loops remain.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.Get(b_loops[0]));
    QCOMPARE(sch.Get(b)->name_hint, std::string("B"));
    QCOMPARE(sch.GetLoops(b).size(), size_t(2));
    QVERIFY(sch.trace().AsPython().find(
                "sch.compute_at(block=b0, loop=l2, preserve_unit_loops=False, index=-1)\n") !=
            std::string::npos);
    ExpectReplay(mod, sch);
  }

  void computeAtInnerLoop() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    auto c_loops = sch.GetLoops(sch.GetSBlock("C"));
    sch.ComputeAt(sch.GetSBlock("B"), c_loops[1]);
    ExpectModule(mod, sch.mod(), kAtInner);
    ExpectReplay(mod, sch);
    Schedule unit(mod);
    auto u_loops = unit.GetLoops(unit.GetSBlock("C"));
    unit.ComputeAt(unit.GetSBlock("B"), u_loops[1], /*preserve_unit_loops=*/true);
    ExpectModule(mod, unit.mod(), kAtInnerUnitLoops);
    ExpectReplay(mod, unit);
  }

  void computeAtSplitLoop() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    DiagnosticList diags = ApplyRecipe(sch, R"(
i, j = sch.get_loops("C")
i0, i1 = sch.split(i, [None, 4])
sch.compute_at("B", i0)
)");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(mod, sch.mod(), kAtSplit);
    ExpectReplay(mod, sch);
  }

  void computeAtReduction() {
    ir::IRModule mod = ParseModule(kMatmulRelu);
    Schedule sch(mod);
    auto d_loops = sch.GetLoops(sch.GetSBlock("D"));
    sch.ComputeAt(sch.GetSBlock("C"), d_loops[1]);
    ExpectModule(mod, sch.mod(), kMatmulReluAt);
    ExpectReplay(mod, sch);
  }

  void reverseComputeAt() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    auto b_loops = sch.GetLoops(sch.GetSBlock("B"));
    sch.ReverseComputeAt(sch.GetSBlock("C"), b_loops[0]);
    ExpectModule(mod, sch.mod(), kReverseAt);
    QVERIFY(sch.trace().AsPython().find("sch.reverse_compute_at(block=b3, loop=l1, "
                                        "preserve_unit_loops=False, index=-1)\n") !=
            std::string::npos);
    ExpectReplay(mod, sch);
  }

  void reverseComputeAtInner() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    auto b_loops = sch.GetLoops(sch.GetSBlock("B"));
    sch.ReverseComputeAt(sch.GetSBlock("C"), b_loops[1]);
    ExpectModule(mod, sch.mod(), kAtInner);
    ExpectReplay(mod, sch);
  }

  void reverseComputeAtReduction() {
    // D needs C[i, j] complete, so it goes under j after the k loop.
    ir::IRModule mod = ParseModule(kMatmulRelu);
    Schedule sch(mod);
    auto c_loops = sch.GetLoops(sch.GetSBlock("C"));
    sch.ReverseComputeAt(sch.GetSBlock("D"), c_loops[1]);
    ExpectModule(mod, sch.mod(), kMatmulReluReverseAt);
    ExpectReplay(mod, sch);
  }

  void reverseComputeAtThroughDigits() {
    ir::IRModule mod = ParseModule(kDigits);
    Schedule sch(mod);
    auto a_loops = sch.GetLoops(sch.GetSBlock("A"));
    sch.ReverseComputeAt(sch.GetSBlock("B"), a_loops[0]);
    ExpectModule(mod, sch.mod(), kDigitsReverseAt);
    ExpectReplay(mod, sch);
    Schedule inner(mod);
    a_loops = inner.GetLoops(inner.GetSBlock("A"));
    inner.ReverseComputeAt(inner.GetSBlock("B"), a_loops[1]);
    ExpectModule(mod, inner.mod(), kDigitsReverseAtInner);
    ExpectReplay(mod, inner);
  }

  void computeAtScaledIterator() {
    ir::IRModule mod = ParseModule(kTiles);
    Schedule sch(mod);
    auto c_loops = sch.GetLoops(sch.GetSBlock("C"));
    sch.ComputeAt(sch.GetSBlock("B_o"), c_loops[0]);
    ExpectModule(mod, sch.mod(), kTilesAt);
    ExpectReplay(mod, sch);
  }

  void computeAtReversedIndex() {
    ir::IRModule mod = ParseModule(kReversedRows);
    Schedule sch(mod);
    auto c_loops = sch.GetLoops(sch.GetSBlock("C"));
    sch.ComputeAt(sch.GetSBlock("B"), c_loops[0]);
    ExpectModule(mod, sch.mod(), kReversedRowsAt);
    ExpectReplay(mod, sch);
  }

  void reverseComputeAtNestedDigits() {
    ir::IRModule mod = ParseModule(kNestedDigits);
    Schedule sch(mod);
    auto b_loops = sch.GetLoops(sch.GetSBlock("B"));
    sch.ReverseComputeAt(sch.GetSBlock("C"), b_loops[0]);
    ExpectModule(mod, sch.mod(), kNestedDigitsReverseAt);
    ExpectReplay(mod, sch);
  }

  void reverseComputeAtUnitIterator() {
    ir::IRModule mod = ParseModule(kUnitRow);
    Schedule sch(mod);
    auto b_loops = sch.GetLoops(sch.GetSBlock("B"));
    sch.ReverseComputeAt(sch.GetSBlock("D"), b_loops[0], /*preserve_unit_loops=*/true);
    ExpectModule(mod, sch.mod(), kUnitRowReverseAt);
    ExpectReplay(mod, sch);
  }

  void computeAtUnsolvableIndex() {
    // B is read at vi + vk by a reduction: no form of the index gives vi's range alone.
    Schedule sch(ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((13,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
        for i, k in T.grid(13, 4):
            with T.sblock("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(B[vi + vk])
                T.writes(C[vi])
                with T.init():
                    C[vi] = T.float32(0.0)
                C[vi] = C[vi] + B[vi + vk]
)"));
    auto b_loops = sch.GetLoops(sch.GetSBlock("B"));
    SBlockRV c = sch.GetSBlock("C");
    QCOMPARE(FailsCleanly(sch, [&] { sch.ReverseComputeAt(c, b_loops[0]); }),
             Rendered("reverse-compute-at",
                      "The region of buffer B that the block `C` reads is indexed by `(vi + vk)`, "
                      "which is not a block iterator `v`, `v * c`, `v // c` or `v % c`, so the "
                      "iterator ranges that cover what the producers write cannot be derived"));
  }

  void computeAtGuardsPastTheEdge() {
    ir::IRModule mod = ParseModule(kShiftedRead);
    Schedule sch(mod);
    Apply(sch, "loop, = sch.get_loops(\"C\")\nsch.compute_at(\"B\", loop)\n");
    ExpectModule(mod, sch.mod(), kShiftedReadAt);
    ExpectReplay(mod, sch);
  }

  // A block guarded to part of its domain (reverse_compute_inline of a consumer that reads 12 of
  // the producer's 16 rows): moved under another loop, the guard goes with it in terms of the
  // new loops (TVM drops it, and B would write D's rows 12 to 15).
  void computeAtCarriesPredicate() {
    ir::IRModule mod = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 4), "float32"), D: T.Buffer((12, 4), "float32")):
        X = T.sblock_alloc_buffer((16, 4))
        Y = T.sblock_alloc_buffer((16, 4))
        for i, j in T.grid(16, 4):
            with T.sblock("P"):
                vi, vj = T.axis.remap("SS", [i, j])
                X[vi, vj] = A[vi, vj] + T.float32(1.0)
        for i, j in T.grid(16, 4):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[vi, vj] * T.float32(2.0)
        for i, j in T.grid(12, 4):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = Y[vi, vj] + T.float32(1.0)
)");
    Schedule sch(mod);
    Apply(sch, R"(
sch.reverse_compute_inline("C")
i, j = sch.get_loops("P")
i0, i1 = sch.split(i, [None, 4])
sch.reverse_compute_at("B", i0)
)");
    ExpectModule(mod, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 4), "float32"), D: T.Buffer((12, 4), "float32")):
        X = T.sblock_alloc_buffer((16, 4))
        for i_0 in range(4):
            for i_1, j in T.grid(4, 4):
                with T.sblock("P"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    vj = T.axis.spatial(4, j)
                    T.reads(A[vi, vj])
                    T.writes(X[vi, vj])
                    X[vi, vj] = A[vi, vj] + T.float32(1.0)
            for ax0, ax1 in T.grid(4, 4):
                with T.sblock("B"):
                    vi = T.axis.spatial(16, i_0 * 4 + ax0)
                    vj = T.axis.spatial(4, ax1)
                    T.where(i_0 * 4 + ax0 < 12)
                    T.reads(X[vi, vj])
                    T.writes(D[vi, vj])
                    D[vi, vj] = X[vi, vj] * T.float32(2.0) + T.float32(1.0)
)");
    ExpectReplay(mod, sch);
  }

  // A guard over bindings with no inverse (`i * 4 + j` with j < 5 overlaps; the guard j < 4 makes
  // it exact): moving the block would lose the guard, so compute_at refuses before changing
  // anything.
  void computeAtRefusesUncarriedPredicate() {
    ir::IRModule mod = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for i, j in T.grid(4, 5):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i * 4 + j)
                T.where(j < 4)
                B[vi] = A[vi] * T.float32(2.0)
        for i in range(16):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i)
                C[vi] = B[vi] + T.float32(1.0)
)");
    Schedule sch(mod);
    auto c_loops = sch.GetLoops(sch.GetSBlock("C"));
    SBlockRV b = sch.GetSBlock("B");
    std::string before = script::PrintModule(sch.mod());
    std::string message = FailsCleanly(sch, [&] { sch.ComputeAt(b, c_loops[0]); });
    QVERIFY2(message.find("has the predicate `") != std::string::npos, message.c_str());
    QCOMPARE(script::PrintModule(sch.mod()), before);
  }

  void computeAtErrors() {
    Schedule sch(ParseModule(kTwoStage));
    SBlockRV b = sch.GetSBlock("B");
    SBlockRV c = sch.GetSBlock("C");
    auto b_loops = sch.GetLoops(b);
    auto c_loops = sch.GetLoops(c);
    QCOMPARE(FailsCleanly(sch, [&] { sch.ComputeAt(c, b_loops[0]); }),
             Rendered("compute-at", "The block `C` is an output block: it writes a buffer that "
                                    "its scope does not allocate"));
    QCOMPARE(FailsCleanly(sch, [&] { sch.ComputeAt(b, b_loops[0]); }),
             Rendered("compute-at", "Expected the block `B` and the loop `i` to be under the "
                                    "same block scope, and the loop not to be the ancestor "
                                    "of block"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.ComputeAt(b, c_loops[0], false, 3));
    QCOMPARE(FailsCleanly(sch, [&] { sch.ReverseComputeAt(c, c_loops[1]); }),
             Rendered("reverse-compute-at",
                      "Expected the block `C` and the loop `j` to be under the same block "
                      "scope, and the loop not to be the ancestor of block"));
    // The root block has no scope to move in.
    SBlockRV root = sch.GetSBlock("root");
    QCOMPARE(FailsCleanly(sch, [&] { sch.ReverseComputeAt(root, b_loops[0]); }),
             Rendered("reverse-compute-at", "The primitive does not operate on the root block"));
    Schedule two(ParseModule(kTwoReaders));
    auto tc = two.GetLoops(two.GetSBlock("C"));
    SBlockRV tb = two.GetSBlock("B");
    SBlockRV td = two.GetSBlock("D");
    QCOMPARE(FailsCleanly(two, [&] { two.ComputeAt(tb, tc[0]); }),
             Rendered("compute-at",
                      "The primitive requires all the consumer(s) of the given block to be "
                      "present under the target loop. However, there are 1 consumer(s) not "
                      "satisfying the constraint. List of the consumer(s): `D`"));
    QCOMPARE(FailsCleanly(two, [&] { two.ReverseComputeAt(td, tc[0]); }),
             Rendered("reverse-compute-at",
                      "The primitive requires all the producer(s) of the given block to be "
                      "present under the target loop. However, there are 1 producer(s) not "
                      "satisfying the constraint. List of the producer(s): `B`"));
    // A block that is neither complete nor a reduction (it reads what it writes, no init).
    std::string rmw = kTwoReaders;
    rmw.replace(rmw.find("T.reads(B[vi])\n                T.writes(C[vi])"), 46,
                "T.reads(C[vi], B[vi])\n                T.writes(C[vi])");
    rmw.replace(rmw.find("C[vi] = B[vi] * T.float32(2.0)"), 30, "C[vi] = C[vi] + B[vi]");
    Schedule bad(ParseModule(rmw));
    auto bd = bad.GetLoops(bad.GetSBlock("D"));
    SBlockRV bc = bad.GetSBlock("C");
    QCOMPARE(FailsCleanly(bad, [&] { bad.ComputeAt(bc, bd[0]); }),
             Rendered("compute-at",
                      "The block `C` is not a complete block - it violates condition #3.\nThe "
                      "block is not a reduction block either - it violates condition #1"));
  }
};

QTEST_APPLESS_MAIN(TestScheduleComputeAt)
#include "tst_schedule_compute_at.moc"
