// FlattenBuffer: golden before/after cases (multi-dimensional parameters, allocations, strided
// and offset declarations, 0-d buffers), each also run through the interpreter on random inputs.
#include <QTest>

#include "lowering_check.h"

using namespace wb;

namespace {

struct Case {
  const char* name;
  const char* before;
  const char* after;
};

const Case kCases[] = {
    // Parameters get flat views over their data; the allocation is flattened in place.
    {"params and alloc", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        C = T.alloc_buffer((4, 8))
        for i, j in T.grid(4, 8):
            C[i, j] = A[i, j] * T.float32(2.0)
        for i, j in T.grid(4, 8):
            B[i, j] = C[i, j] + T.float32(1.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        A_1 = T.decl_buffer((32,), data=A.data)
        B_1 = T.decl_buffer((32,), data=B.data)
        C = T.alloc_buffer((32,))
        for i, j in T.grid(4, 8):
            C[i * 8 + j] = A_1[i * 8 + j] * T.float32(2.0)
        for i, j in T.grid(4, 8):
            B_1[i * 8 + j] = C[i * 8 + j] + T.float32(1.0))"},
    // Declared strides and an element offset fold into the index; the flat view is compact and
    // long enough for the last element reached.
    {"strides and elem_offset", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((3, 4), "float32")):
        S = T.decl_buffer((3, 4), data=A.data, strides=(16, 2))
        O = T.decl_buffer((2, 4), data=A.data, elem_offset=40)
        for i, j in T.grid(3, 4):
            B[i, j] = S[i, j]
        for i, j in T.grid(2, 4):
            O[i, j] = B[i, j] + T.float32(1.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((3, 4), "float32")):
        B_1 = T.decl_buffer((12,), data=B.data)
        S = T.decl_buffer((39,), data=A.data)
        O = T.decl_buffer((48,), data=A.data)
        for i, j in T.grid(3, 4):
            B_1[i * 4 + j] = S[i * 16 + j * 2]
        for i, j in T.grid(2, 4):
            O[i * 4 + j + 40] = B_1[i * 4 + j] + T.float32(1.0))"},
    // Three dimensions, a 0-d buffer, and a 1-d buffer that is already flat (left alone).
    {"3-d, 0-d and flat", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((2, 3, 4), "int32"), B: T.Buffer((24,), "int32"), C: T.Buffer((), "int32")):
        for i, j, k in T.grid(2, 3, 4):
            B[i * 12 + j * 4 + k] = A[i, j, k] + C[()])",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((2, 3, 4), "int32"), B: T.Buffer((24,), "int32"), C: T.Buffer((), "int32")):
        A_1 = T.decl_buffer((24,), "int32", data=A.data)
        C_1 = T.decl_buffer((1,), "int32", data=C.data)
        for i, j, k in T.grid(2, 3, 4):
            B[i * 12 + j * 4 + k] = A_1[i * 12 + j * 4 + k] + C_1[0])"},
    // Booleans are stored as int8: loads compare back to bool, stores cast to int8.
    {"bool as int8", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(M: T.Buffer((2, 4), "bool"), B: T.Buffer((8,), "float32")):
        T1 = T.alloc_buffer((8,), "bool")
        for i, j in T.grid(2, 4):
            T1[i * 4 + j] = M[i, j]
        for k in range(8):
            B[k] = T.Select(T1[k], T.float32(1.0), T.float32(0.0)))",
     R"(@I.ir_module
class Module:
    @T.prim_func
    def main(M: T.Buffer((2, 4), "bool"), B: T.Buffer((8,), "float32")):
        M_1 = T.decl_buffer((8,), "int8", data=M.data)
        T1 = T.alloc_buffer((8,), "int8")
        for i, j in T.grid(2, 4):
            T1[i * 4 + j] = T.Cast("int8", T.Cast("bool", M_1[i * 4 + j]))
        for k in range(8):
            B[k] = T.Select(T.Cast("bool", T1[k]), T.float32(1.0), T.float32(0.0)))"},
};

}  // namespace

class TestFlattenBuffer : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < std::size(kCases); ++i) {
      QTest::newRow(kCases[i].name) << static_cast<int>(i);
    }
  }
  void golden() {
    QFETCH(int, index);
    const Case& c = kCases[index];
    std::string error = testing::CheckGolden("FlattenBuffer", c.before, c.after);
    QVERIFY2(error.empty(), error.c_str());
  }

  void refusesBlocks() {
    std::string error;
    auto module = testing::ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.sblock("A"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = T.float32(0.0))",
                                       &error);
    QVERIFY2(error.empty(), error.c_str());
    testing::RunPasses("FlattenBuffer", module, &error);
    QVERIFY2(error.find("run LowerOpaqueBlock first") != std::string::npos, error.c_str());
  }

  // A function with nothing to flatten comes back as the same object (snapshots say
  // "unchanged").
  void flatFunctionIsUnchanged() {
    std::string error;
    auto module = testing::ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32")):
        for i in range(8):
            A[i] = T.float32(1.0))",
                                       &error);
    QVERIFY2(error.empty(), error.c_str());
    auto out = testing::RunPasses("FlattenBuffer", module, &error);
    QVERIFY2(error.empty(), error.c_str());
    QVERIFY(out.same_as(module));
  }
};

QTEST_APPLESS_MAIN(TestFlattenBuffer)
#include "tst_tir_flatten_buffer.moc"
