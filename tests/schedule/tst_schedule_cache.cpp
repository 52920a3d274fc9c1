// Tests of cache_read and cache_write: the stage blocks and buffers as TVM names and places
// them, compared structurally with expected TVMScript and run through the interpreter against
// the original, TVM's error cases, and replay from the trace.

#include <QTest>
#include <string>

#include "schedule_test_util.h"
#include "tir/functor.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

// cache_read of the parameter A: the stage goes first in the root block.
const char* kReadInput = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        A_shared = T.sblock_alloc_buffer((16, 16), scope="shared")
        for ax0, ax1 in T.grid(16, 16):
            with T.sblock("A_shared"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v0, v1])
                T.writes(A_shared[v0, v1])
                A_shared[v0, v1] = A[v0, v1]
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A_shared[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A_shared[vi, vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

// cache_read of the intermediate B: the stage goes between its writer and its reader.
const char* kReadIntermediate = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        B_local = T.sblock_alloc_buffer((16, 16), scope="local")
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for ax0, ax1 in T.grid(16, 16):
            with T.sblock("B_local"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(B[v0, v1])
                T.writes(B_local[v0, v1])
                B_local[v0, v1] = B[v0, v1]
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B_local[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B_local[vi, vj] + T.float32(1.0)
)";

// Producer and consumer under one loop: the stage goes under it, over one row.
const char* kSharedLoop = R"(@I.ir_module
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
            for j in range(16):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(B[vi, 15 - vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, 15 - vj] + T.float32(1.0)
)";

const char* kSharedLoopRead = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        B_shared = T.sblock_alloc_buffer((16, 16), scope="shared")
        for i in range(16):
            for j in range(16):
                with T.sblock("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for ax0, ax1 in T.grid(1, 16):
                with T.sblock("B_shared"):
                    v0 = T.axis.spatial(16, i + ax0)
                    v1 = T.axis.spatial(16, ax1)
                    T.reads(B[v0, v1])
                    T.writes(B_shared[v0, v1])
                    B_shared[v0, v1] = B[v0, v1]
            for j in range(16):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(B_shared[vi, 15 - vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B_shared[vi, 15 - vj] + T.float32(1.0)
)";

const char* kSharedLoopWrite = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        B_local = T.sblock_alloc_buffer((16, 16), scope="local")
        for i in range(16):
            for j in range(16):
                with T.sblock("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(A[vi, vj])
                    T.writes(B_local[vi, vj])
                    B_local[vi, vj] = A[vi, vj] * T.float32(2.0)
            for ax0, ax1 in T.grid(1, 16):
                with T.sblock("B_local"):
                    v0 = T.axis.spatial(16, i + ax0)
                    v1 = T.axis.spatial(16, ax1)
                    T.reads(B_local[v0, v1])
                    T.writes(B[v0, v1])
                    B[v0, v1] = B_local[v0, v1]
            for j in range(16):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(B[vi, 15 - vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, 15 - vj] + T.float32(1.0)
)";

// cache_write of B: B writes the cache, a copy-back stage goes before C.
const char* kWriteIntermediate = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        B_local = T.sblock_alloc_buffer((16, 16), scope="local")
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B_local[vi, vj])
                B_local[vi, vj] = A[vi, vj] * T.float32(2.0)
        for ax0, ax1 in T.grid(16, 16):
            with T.sblock("B_local"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(B_local[v0, v1])
                T.writes(B[v0, v1])
                B[v0, v1] = B_local[v0, v1]
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

const char* kMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        for i, j, k in T.grid(8, 8, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// cache_write of the matmul output: the reduction (init included) runs on the cache, the copy
// to C goes last.
const char* kMatmulWrite = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        C_global = T.sblock_alloc_buffer((8, 8))
        for i, j, k in T.grid(8, 8, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C_global[vi, vj])
                with T.init():
                    C_global[vi, vj] = T.float32(0.0)
                C_global[vi, vj] = C_global[vi, vj] + A[vi, vk] * B[vk, vj]
        for ax0, ax1 in T.grid(8, 8):
            with T.sblock("C_global"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(C_global[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_global[v0, v1]
)";

// Two readers of B; only D is given as a consumer of the cache.
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

const char* kTwoReadersOneCached = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        B_shared = T.sblock_alloc_buffer((16,), scope="shared")
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
        for ax0 in range(16):
            with T.sblock("B_shared"):
                v0 = T.axis.spatial(16, ax0)
                T.reads(B[v0])
                T.writes(B_shared[v0])
                B_shared[v0] = B[v0]
        for i in range(16):
            with T.sblock("D"):
                vi = T.axis.spatial(16, i)
                T.reads(B_shared[vi])
                T.writes(D[vi])
                D[vi] = B_shared[vi] * T.float32(3.0)
)";


const char* kMatmulReindexRead = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        A_reindex = T.sblock_alloc_buffer((8, 8))
        for ax0, ax1 in T.grid(8, 8):
            with T.sblock("A_reindex_reindex"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v0, v1])
                T.writes(A_reindex[v0, v1])
                A_reindex[v0, v1] = A[v0, v1]
        for i, j, k in T.grid(8, 8, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A_reindex[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A_reindex[vi, vk] * B[vk, vj]
)";

const char* kMatmulReindexWrite = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        C_reindex = T.sblock_alloc_buffer((8, 8))
        for i, j, k in T.grid(8, 8, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C_reindex[vi, vj])
                with T.init():
                    C_reindex[vi, vj] = T.float32(0.0)
                C_reindex[vi, vj] = C_reindex[vi, vj] + A[vi, vk] * B[vk, vj]
        for ax0, ax1 in T.grid(8, 8):
            with T.sblock("C_reindex"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(C_reindex[v0, v1])
                T.writes(C[v0, v1])
                C[v0, v1] = C_reindex[v0, v1]
)";

// The consumer reads its input transposed: the reindex buffer is indexed in iterator order.
const char* kTransposed = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((16, 8), "float32")):
        for i, j in T.grid(16, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vj, vi])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vj, vi] * T.float32(2.0)
)";

const char* kTransposedReindex = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((16, 8), "float32")):
        A_reindex = T.sblock_alloc_buffer((16, 8))
        for ax0, ax1 in T.grid(16, 8):
            with T.sblock("A_reindex_reindex"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v1, v0])
                T.writes(A_reindex[v0, v1])
                A_reindex[v0, v1] = A[v1, v0]
        for i, j in T.grid(16, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A_reindex[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A_reindex[vi, vj] * T.float32(2.0)
)";


// Stages under an outer block whose iterator picks the tile: regions in terms of `i`.
const char* kUnderScope = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(B: T.Buffer((32,), "float32")):
        A = T.sblock_alloc_buffer((32,))
        for i0 in range(4):
            with T.sblock("scope"):
                i = T.axis.spatial(4, i0)
                T.reads()
                T.writes(A[i * 8:i * 8 + 8], B[i * 8:i * 8 + 8])
                for x in range(8):
                    with T.sblock("A"):
                        vi = T.axis.spatial(32, i * 8 + x)
                        T.reads()
                        T.writes(A[vi])
                        A[vi] = T.float32(1.0)
                for x in range(8):
                    with T.sblock("B"):
                        vi = T.axis.spatial(32, i * 8 + x)
                        T.reads(A[vi])
                        T.writes(B[vi])
                        B[vi] = A[vi] + T.float32(1.0)
)";

// reindex_cache_read of C's B through a map of C's iters: the stage copies under C's loops.
const char* kReindexCacheRead = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        B_shared = T.sblock_alloc_buffer((16, 8, 2), scope="shared")
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("B_shared"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(B_shared[vj, vi // 2, vi % 2])
                B_shared[vj, vi // 2, vi % 2] = B[vi, vj]
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B_shared[vj, vi // 2, vi % 2])
                T.writes(C[vi, vj])
                C[vi, vj] = B_shared[vj, vi // 2, vi % 2] + T.float32(1.0)
)";

// reindex_cache_write of the matmul output: the reduction accumulates in the transposed cache,
// copied out after the nest; the reduction iter does not index C, so the copy has no k loop.
const char* kMatmulReindexCacheWrite = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        C_local = T.sblock_alloc_buffer((8, 8), scope="local")
        for i, j, k in T.grid(8, 8, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C_local[vj, vi])
                with T.init():
                    C_local[vj, vi] = T.float32(0.0)
                C_local[vj, vi] = C_local[vj, vi] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(8, 8):
            with T.sblock("C_local"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C_local[vj, vi])
                T.writes(C[vi, vj])
                C[vi, vj] = C_local[vj, vi]
)";

}  // namespace

class TestScheduleCache : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void cacheReadInput() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    SBlockRV b = sch.GetSBlock("B");
    SBlockRV c = sch.GetSBlock("C");
    SBlockRV stage = sch.CacheRead(b, 0, "shared");
    ExpectModule(mod, sch.mod(), kReadInput);
    // Old handles still find their blocks; the new one names the stage.
    QCOMPARE(sch.Get(b)->name_hint, std::string("B"));
    QCOMPARE(sch.Get(c)->name_hint, std::string("C"));
    QCOMPARE(sch.Get(stage)->name_hint, std::string("A_shared"));
    QVERIFY(sch.trace().AsPython().find(
                "b2 = sch.cache_read(block=b0, read_buffer_index=0, storage_scope=\"shared\")\n") !=
            std::string::npos);
    ExpectReplay(mod, sch);
  }

  void cacheReadIntermediate() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    sch.CacheRead(sch.GetSBlock("C"), 0, "local");
    ExpectModule(mod, sch.mod(), kReadIntermediate);
    ExpectReplay(mod, sch);
  }

  void cacheReadUnderLoop() {
    ir::IRModule mod = ParseModule(kSharedLoop);
    Schedule sch(mod);
    sch.CacheRead(sch.GetSBlock("C"), 0, "shared");
    ExpectModule(mod, sch.mod(), kSharedLoopRead);
    ExpectReplay(mod, sch);
  }

  void cacheReadConsumerBlocks() {
    ir::IRModule mod = ParseModule(kTwoReaders);
    Schedule sch(mod);
    SBlockRV d = sch.GetSBlock("D");
    sch.CacheRead(d, 0, "shared", {d});
    ExpectModule(mod, sch.mod(), kTwoReadersOneCached);
    QVERIFY(sch.trace().AsPython().find(
                "sch.cache_read(block=b0, read_buffer_index=0, storage_scope=\"shared\", "
                "consumer_blocks=[b0])\n") != std::string::npos);
    ExpectReplay(mod, sch);
  }

  void cacheWrite() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    SBlockRV b = sch.GetSBlock("B");
    SBlockRV stage = sch.CacheWrite(b, 0, "local");
    ExpectModule(mod, sch.mod(), kWriteIntermediate);
    QCOMPARE(sch.Get(b)->name_hint, std::string("B"));
    QCOMPARE(sch.Get(stage)->name_hint, std::string("B_local"));
    ExpectReplay(mod, sch);
  }

  void cacheWriteReduction() {
    ir::IRModule mod = ParseModule(kMatmul);
    Schedule sch(mod);
    DiagnosticList diags =
        ApplyRecipe(sch, "c = sch.get_sblock(\"C\")\ncc = sch.cache_write(c, 0, \"global\")\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(mod, sch.mod(), kMatmulWrite);
    ExpectReplay(mod, sch);
  }

  void cacheWriteUnderLoop() {
    ir::IRModule mod = ParseModule(kSharedLoop);
    Schedule sch(mod);
    sch.CacheWrite(sch.GetSBlock("B"), 0, "local");
    ExpectModule(mod, sch.mod(), kSharedLoopWrite);
    ExpectReplay(mod, sch);
  }

  void cacheTwiceGetsFreshNames() {
    ir::IRModule mod = ParseModule(kTwoReaders);
    Schedule sch(mod);
    SBlockRV first = sch.CacheRead(sch.GetSBlock("C"), 0, "shared", {sch.GetSBlock("C")});
    SBlockRV second = sch.CacheRead(sch.GetSBlock("D"), 0, "shared", {sch.GetSBlock("D")});
    QCOMPARE(sch.Get(first)->name_hint, std::string("B_shared"));
    QCOMPARE(sch.Get(second)->name_hint, std::string("B_shared_1"));
    ExpectSameMeaning(mod, sch.mod());
    ExpectReplay(mod, sch);
  }


  void reindexRead() {
    ir::IRModule mod = ParseModule(kMatmul);
    Schedule sch(mod);
    SBlockRV c = sch.GetSBlock("C");
    SBlockRV stage = sch.ReIndex(c, "read", 0);
    ExpectModule(mod, sch.mod(), kMatmulReindexRead);
    QCOMPARE(sch.Get(stage)->name_hint, std::string("A_reindex_reindex"));
    QVERIFY(sch.trace().AsPython().find("b1 = sch.reindex(block=b0, buffer=(\"read\", 0))\n") !=
            std::string::npos);
    ExpectReplay(mod, sch);
  }

  void reindexWrite() {
    ir::IRModule mod = ParseModule(kMatmul);
    Schedule sch(mod);
    DiagnosticList diags = ApplyRecipe(sch, "b = sch.reindex(\"C\", \"C\")\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(mod, sch.mod(), kMatmulReindexWrite);
    ExpectReplay(mod, sch);
  }

  void reindexTransposed() {
    ir::IRModule mod = ParseModule(kTransposed);
    Schedule sch(mod);
    DiagnosticList diags = ApplyRecipe(sch, "b = sch.reindex(block=\"C\", buffer=(\"read\", 0))\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(mod, sch.mod(), kTransposedReindex);
    ExpectReplay(mod, sch);
  }

  // A reduction that lists its output among its reads (as TVM's explicit T.reads often do): the
  // write reindex redirects the read too, and the copy after the nest still sees every element
  // the init and updates wrote. By name, a buffer read and written is the write, as in TVM.
  void reindexWriteOfReadReduction() {
    std::string rmw = kMatmul;
    rmw.replace(rmw.find("T.reads(A[vi, vk], B[vk, vj])"), 29,
                "T.reads(C[vi, vj], A[vi, vk], B[vk, vj])");
    std::string expected = kMatmulReindexWrite;
    expected.replace(expected.find("T.reads(A[vi, vk], B[vk, vj])"), 29,
                     "T.reads(C_reindex[vi, vj], A[vi, vk], B[vk, vj])");
    for (const char* recipe : {"b = sch.reindex(\"C\", (\"write\", 0))\n",
                               "b = sch.reindex(\"C\", \"C\")\n"}) {
      ir::IRModule mod = ParseModule(rmw);
      Schedule sch(mod);
      DiagnosticList diags = ApplyRecipe(sch, recipe);
      QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
      ExpectModule(mod, sch.mod(), expected);
      QVERIFY(sch.trace().AsPython().find("buffer=(\"write\", 0)") != std::string::npos);
      ExpectReplay(mod, sch);
    }
    // Without an init the block accumulates into C's previous values, which a write stage would
    // not carry: refused.
    std::string accumulate = rmw;
    accumulate.replace(accumulate.find("                with T.init():\n                    C[vi, vj] = T.float32(0.0)\n"),
                       std::string("                with T.init():\n                    C[vi, vj] = T.float32(0.0)\n").size(), "");
    Schedule acc(ParseModule(accumulate));
    SBlockRV c = acc.GetSBlock("C");
    QCOMPARE(FailsCleanly(acc, [&] { acc.ReIndex(c, "write", 0); }),
             Rendered("reindex", "The target buffer C in block `C` is both read and written: "
                                 "reindex needs a buffer the block only reads or only writes"));
  }

  void reindexErrors() {
    Schedule sch(ParseModule(kMatmul));
    SBlockRV c = sch.GetSBlock("C");
    QCOMPARE(FailsCleanly(sch, [&] { sch.ReIndex(c, "read", 2); }),
             Rendered("reindex",
                      "The block `C` has 2 read regions, so `buffer_index` is required to be in "
                      "[0, 2). However, the input `buffer_index` is 2, which is out of range"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.ReIndex(c, "readwrite", 0));
    std::string twice = kTransposed;
    twice.replace(twice.find("T.reads(A[vj, vi])"), 18, "T.reads(A[0:8, 0:16])");
    twice.replace(twice.find("A[vj, vi] * T.float32(2.0)"), 26, "A[vj, vi] * A[vj, 15 - vi]");
    Schedule sch2(ParseModule(twice));
    SBlockRV c2 = sch2.GetSBlock("C");
    QCOMPARE(FailsCleanly(sch2, [&] { sch2.ReIndex(c2, "read", 0); }),
             Rendered("reindex", "The target buffer A in block `C` should be accessed with the "
                                 "same indices everywhere"));
    // The matmul reads what it accumulates: listing C among the reads makes it read-write.
    std::string rmw = kMatmul;
    rmw.replace(rmw.find("T.reads(A[vi, vk], B[vk, vj])"), 29,
                "T.reads(C[vi, vj], A[vi, vk], B[vk, vj])");
    Schedule sch3(ParseModule(rmw));
    SBlockRV c3 = sch3.GetSBlock("C");
    QCOMPARE(FailsCleanly(sch3, [&] { sch3.ReIndex(c3, "read", 0); }),
             Rendered("reindex", "The target buffer C in block `C` is both read and written: "
                                 "reindex needs a buffer the block only reads or only writes"));
    Schedule root(ParseModule(kMatmul));
    SBlockRV r = root.GetSBlock("root");
    QCOMPARE(FailsCleanly(root, [&] { root.ReIndex(r, "write", 0); }),
             Rendered("reindex",
                      "The block `root` has 0 write regions, so `buffer_index` is required to be "
                      "in [0, 0). However, the input `buffer_index` is 0, which is out of range"));
  }

  void cacheReadOpaqueUse() {
    // The consumer passes A's data to an intrinsic: after cache_read it passes the cache's.
    ir::IRModule mod = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float16"), B: T.Buffer((16, 16), "float16")):
        for i in range(1):
            with T.sblock("opaque"):
                vi = T.axis.spatial(1, i)
                T.reads(A[0:16, 0:16])
                T.writes(B[0:16, 0:16])
                T.evaluate(T.tvm_load_matrix_sync(B.data, 16, 16, 16, vi, T.tvm_access_ptr(T.type_annotation("float16"), A.data, 0, 256, 1), 16, "row_major"))
)");
    Schedule sch(mod);
    SBlockRV stage = sch.CacheRead(sch.GetSBlock("opaque"), 0, "shared");
    tir::SBlock opaque = sch.Get(sch.GetSBlock("opaque"));
    tir::Buffer cache = sch.Get(stage)->writes[0]->buffer;
    QCOMPARE(cache->name, std::string("A_shared"));
    const tir::Var& a_data = sch.Func()->buffer_map[0]->data;
    bool uses_a = false, uses_cache = false;
    tir::PostOrderVisit(opaque->body, [&](const ir::Object* n) {
      uses_a |= n == a_data.get();
      uses_cache |= n == cache->data.get();
    });
    QVERIFY(uses_cache);
    QVERIFY(!uses_a);
    QCOMPARE(opaque->reads[0]->buffer->name, std::string("A_shared"));
    ExpectReplay(mod, sch);
  }

  void cacheReadUnderOuterBlock() {
    // The outer block's iterator is bounded (i < 4), so the tile i * 8 .. i * 8 + 7 provably
    // stays inside A: the cache is 8 elements, not clipped with min / max.
    ir::IRModule mod = ParseModule(kUnderScope);
    Schedule sch(mod);
    SBlockRV stage = sch.CacheRead(sch.GetSBlock("B"), 0, "local");
    tir::SBlock scope = sch.Get(sch.GetSBlock("scope"));
    QCOMPARE(scope->alloc_buffers.size(), size_t(1));
    const tir::Buffer& cache = scope->alloc_buffers[0];
    QCOMPARE(cache->name, std::string("A_local"));
    QCOMPARE(cache->shape.size(), size_t(1));
    QVERIFY(tir::IsConstInt(cache->shape[0], 8));
    QCOMPARE(sch.Get(stage)->name_hint, std::string("A_local"));
    ExpectSameMeaning(mod, sch.mod());
    ExpectReplay(mod, sch);
  }

  void reindexCacheRead() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    Apply(sch, "s = sch.reindex_cache_read(\"C\", 0, \"shared\", lambda i, j: (j, i // 2, i % 2))\n");
    ExpectModule(mod, sch.mod(), kReindexCacheRead);
    QVERIFY2(sch.trace().AsPython().find(
                 "b1 = sch.reindex_cache_read(block=b0, read_buffer_index=0, "
                 "storage_scope=\"shared\", index_map=lambda i, j: (j, i // 2, i % 2))\n") !=
                 std::string::npos,
             sch.trace().AsPython().c_str());
    ExpectReplay(mod, sch);
  }

  void reindexCacheWriteReduction() {
    ir::IRModule mod = ParseModule(kMatmul);
    Schedule sch(mod);
    Apply(sch, "s = sch.reindex_cache_write(\"C\", 0, \"local\", lambda i, j, k: (j, i))\n");
    ExpectModule(mod, sch.mod(), kMatmulReindexCacheWrite);
    ExpectReplay(mod, sch);
  }

  void reindexCacheErrors() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    DiagnosticList diags =
        ApplyRecipe(sch, "sch.reindex_cache_read(\"C\", 0, \"shared\", lambda i, j: j * 2)\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY2(diags[0].message.find("Error when applying reindex_cache_read on block `C`, the "
                                   "block itervar vi appears in [vi, vj], but not in [(vj * 2)].") !=
                 std::string::npos,
             diags[0].message.c_str());
    diags = ApplyRecipe(sch, "sch.reindex_cache_write(\"B\", 0, \"shared\", lambda i, j: i)\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY2(diags[0].message.find("the block itervar vj appears in [vi, vj], but not in [vi].") !=
                 std::string::npos,
             diags[0].message.c_str());
    // A block that reads a whole row: not a single point.
    std::string rows = kTwoStage;
    rows.replace(rows.find("T.reads(B[vi, vj])"), 18, "T.reads(B[vi, 0:16])");
    Schedule sch2(ParseModule(rows));
    diags = ApplyRecipe(sch2, "sch.reindex_cache_read(\"C\", 0, \"shared\", lambda i, j: (i, j))\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY2(diags[0].message.find("accessed inside block `C` is not a single point") !=
                 std::string::npos,
             diags[0].message.c_str());
    QVERIFY(sch.mod().same_as(mod));
  }

  // int32 iterators indexing an int64-shaped buffer: the cache's accesses keep the iterators as
  // they are (TVM's test_cache_read_non_int32_shape), no cast to the shape's type.
  void cacheReadInt64Shape() {
    ir::IRModule mod = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((T.int64(8), T.int64(4)), "float32"), B: T.Buffer((T.int64(8), T.int64(4)), "float32")):
        for i, j in T.grid(8, 4):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
)");
    Schedule sch(mod);
    sch.CacheRead(sch.GetSBlock("B"), 0, "global");
    ExpectModule(mod, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((T.int64(8), T.int64(4)), "float32"), B: T.Buffer((T.int64(8), T.int64(4)), "float32")):
        A_global = T.sblock_alloc_buffer((T.int64(8), T.int64(4)))
        for ax0, ax1 in T.grid(T.int64(8), T.int64(4)):
            with T.sblock("A_global"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v0, v1])
                T.writes(A_global[v0, v1])
                A_global[v0, v1] = A[v0, v1]
        for i, j in T.grid(8, 4):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A_global[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A_global[vi, vj] * T.float32(2.0)
)");
    ExpectReplay(mod, sch);
  }

  // A consumer that reads an input only under a nested block's guard: the cache holds what the
  // guard lets through (10 x 20 of 12 x 24, TVM's test_cache_read_with_nested_block_predicate).
  void cacheReadUnderNestedGuard() {
    ir::IRModule mod = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((12, 24), "float32"), C: T.Buffer((10, 20), "float32")):
        for i, j in T.grid(12, 24):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                with T.sblock("inner"):
                    T.where(vi < 10 and vj < 20)
                    C[vi, vj] = A[vi, vj] * T.float32(2.0)
)");
    Schedule sch(mod);
    sch.CacheRead(sch.GetSBlock("compute"), 0, "local");
    ExpectModule(mod, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((12, 24), "float32"), C: T.Buffer((10, 20), "float32")):
        A_local = T.sblock_alloc_buffer((10, 20), scope="local")
        for ax0, ax1 in T.grid(10, 20):
            with T.sblock("A_local"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v0, v1])
                T.writes(A_local[v0, v1])
                A_local[v0, v1] = A[v0, v1]
        for i, j in T.grid(12, 24):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A_local[vi, vj])
                T.writes(C[vi, vj])
                with T.sblock("inner"):
                    T.where(vi < 10 and vj < 20)
                    T.reads(A_local[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = A_local[vi, vj] * T.float32(2.0)
)");
    ExpectReplay(mod, sch);
  }

  void cacheErrors() {
    Schedule sch(ParseModule(kTwoStage));
    SBlockRV b = sch.GetSBlock("B");
    QCOMPARE(FailsCleanly(sch, [&] { sch.CacheRead(b, 0, "gpu"); }),
             Rendered("cache-read", "The input storage scope \"gpu\" is invalid."));
    QCOMPARE(FailsCleanly(sch, [&] { sch.CacheRead(b, 1, "shared"); }),
             Rendered("cache-read",
                      "The block `B` has 1 read regions, so `buffer_index` is required to be in "
                      "[0, 1). However, the input `buffer_index` is 1, which is out of range"));
    QCOMPARE(FailsCleanly(sch, [&] { sch.CacheWrite(b, -1, "local"); }),
             Rendered("cache-write",
                      "The block `B` has 1 write regions, so `buffer_index` is required to be in "
                      "[0, 1). However, the input `buffer_index` is -1, which is out of range"));
    SBlockRV root = sch.GetSBlock("root");
    QCOMPARE(FailsCleanly(sch, [&] { sch.CacheWrite(root, 0, "local"); }),
             Rendered("cache-write",
                      "The block `root` has 0 write regions, so `buffer_index` is required to be "
                      "in [0, 0). However, the input `buffer_index` is 0, which is out of range"));
    // Two writers of one buffer.
    std::string two_writers = kTwoReaders;
    two_writers.replace(two_writers.find("T.writes(C[vi])"), 15, "T.writes(B[vi])");
    two_writers.replace(two_writers.find("C[vi] = B[vi] * T.float32(2.0)"), 30,
                        "B[vi] = B[vi] * T.float32(2.0)");
    Schedule sch2(ParseModule(two_writers));
    SBlockRV d2 = sch2.GetSBlock("D");
    SBlockRV b2 = sch2.GetSBlock("B");
    QCOMPARE(FailsCleanly(sch2, [&] { sch2.CacheRead(d2, 0, "shared"); }),
             Rendered("cache-read", "The buffer B is expected to be written by single block, but "
                                    "got 2 blocks who write it."));
    QCOMPARE(FailsCleanly(sch2, [&] { sch2.CacheWrite(b2, 0, "shared"); }),
             Rendered("cache-write", "The buffer B is expected to be written by single block, "
                                     "but got 2 blocks who write it."));
  }
};

QTEST_APPLESS_MAIN(TestScheduleCache)
#include "tst_schedule_cache.moc"
