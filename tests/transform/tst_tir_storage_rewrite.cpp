// StorageRewrite: golden cases of allocations sharing memory (same size, a larger later one,
// overlapping lifetimes that must not share, different dtypes), each checked by the
// interpreter on random inputs.
#include "golden_case.h"

using namespace wb;

namespace {

const testing::GoldenCase kCases[] = {
    // T1 is dead when T2 starts: T2 lives in T1's memory.
    {"reuse", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        T1 = T.alloc_buffer((16,))
        for i in range(16):
            T1[i] = A[i] * T.float32(2.0)
        for i in range(16):
            B[i] = T1[i] + T.float32(1.0)
        T2 = T.alloc_buffer((16,))
        for i in range(16):
            T2[i] = B[i] * B[i]
        for i in range(16):
            B[i] = T2[15 - i])",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        T1 = T.alloc_buffer((16,))
        for i in range(16):
            T1[i] = A[i] * T.float32(2.0)
        for i in range(16):
            B[i] = T1[i] + T.float32(1.0)
        T2 = T.decl_buffer((16,), data=T1.data)
        for i in range(16):
            T2[i] = B[i] * B[i]
        for i in range(16):
            B[i] = T2[15 - i])"},
    // A larger later buffer grows the shared allocation.
    {"grow", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
        T1 = T.alloc_buffer((8,))
        for i in range(8):
            T1[i] = A[i]
        for i in range(8):
            B[i] = T1[7 - i]
        T2 = T.alloc_buffer((32,))
        for i in range(32):
            T2[i] = A[i] + T.float32(1.0)
        for i in range(24):
            B[i + 8] = T2[i])",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
        T1 = T.alloc_buffer((32,))
        for i in range(8):
            T1[i] = A[i]
        for i in range(8):
            B[i] = T1[7 - i]
        T2 = T.decl_buffer((32,), data=T1.data)
        for i in range(32):
            T2[i] = A[i] + T.float32(1.0)
        for i in range(24):
            B[i + 8] = T2[i])"},
    // Overlapping lifetimes and different dtypes do not share; the third buffer takes the first
    // freed slot of its type.
    {"no overlap, same dtype only", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "int32")):
        T1 = T.alloc_buffer((8,))
        T2 = T.alloc_buffer((8,))
        for i in range(8):
            T1[i] = A[i]
            T2[i] = A[i] * T.float32(2.0)
        for i in range(8):
            B[i] = T1[i] + T2[i]
        T3 = T.alloc_buffer((8,), "int32")
        for i in range(8):
            T3[i] = C[i] + 1
        for i in range(8):
            C[i] = T3[i]
        T4 = T.alloc_buffer((8,))
        for i in range(8):
            T4[i] = B[i]
        for i in range(8):
            B[i] = T4[i] * T.float32(3.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "int32")):
        T1 = T.alloc_buffer((8,))
        T2 = T.alloc_buffer((8,))
        for i in range(8):
            T1[i] = A[i]
            T2[i] = A[i] * T.float32(2.0)
        for i in range(8):
            B[i] = T1[i] + T2[i]
        T3 = T.alloc_buffer((8,), "int32")
        for i in range(8):
            T3[i] = C[i] + 1
        for i in range(8):
            C[i] = T3[i]
        T4 = T.decl_buffer((8,), data=T1.data)
        for i in range(8):
            T4[i] = B[i]
        for i in range(8):
            B[i] = T4[i] * T.float32(3.0))"},
};

}  // namespace

class TestStorageRewrite : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() { testing::AddGoldenRows(kCases); }
  void golden() {
    QFETCH(int, index);
    std::string error =
        testing::CheckGolden("StorageRewrite", kCases[index].before, kCases[index].after);
    QVERIFY2(error.empty(), error.c_str());
  }
};

QTEST_APPLESS_MAIN(TestStorageRewrite)
#include "tst_tir_storage_rewrite.moc"
