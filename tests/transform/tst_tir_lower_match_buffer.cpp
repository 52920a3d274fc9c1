// LowerMatchBuffer: golden cases (a tile view, a lower-rank row view used by a nested block's
// regions, a view whose symbolic element offset is used), each checked by the interpreter.
#include "golden_case.h"

using namespace wb;

namespace {

const testing::GoldenCase kCases[] = {
    {"tile", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(2, 2):
            with T.sblock("tile"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4])
                T.writes(A[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4])
                sub = T.match_buffer(A[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4], (4, 4), offset_factor=1)
                for k, l in T.grid(4, 4):
                    sub[k, l] = sub[k, l] * T.float32(2.0) + T.float32(1.0))",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(2, 2):
            with T.sblock("tile"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4])
                T.writes(A[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4])
                for k, l in T.grid(4, 4):
                    A[vi * 4 + k, vj * 4 + l] = A[vi * 4 + k, vj * 4 + l] * T.float32(2.0) + T.float32(1.0))"},
    // A 1-d view of a row: the leading dimension stays at the region's start; the nested
    // block's regions move to the source too.
    {"row view", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(C: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
        for t in range(4):
            with T.sblock("rows"):
                vt = T.axis.spatial(4, t)
                T.reads(C[vt, 0:8])
                T.writes(B[vt])
                row = T.match_buffer(C[vt, 0:8], (8,), offset_factor=1)
                for k in range(8):
                    with T.sblock("sum"):
                        vk = T.axis.reduce(8, k)
                        T.reads(row[vk])
                        T.writes(B[vt])
                        with T.init():
                            B[vt] = T.float32(0.0)
                        B[vt] = B[vt] + row[vk])",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(C: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
        for t in range(4):
            with T.sblock("rows"):
                vt = T.axis.spatial(4, t)
                T.reads(C[vt, 0:8])
                T.writes(B[vt])
                for k in range(8):
                    with T.sblock("sum"):
                        vk = T.axis.reduce(8, k)
                        T.reads(C[vt, vk])
                        T.writes(B[vt])
                        with T.init():
                            B[vt] = T.float32(0.0)
                        B[vt] = B[vt] + C[vt, vk])"},
    // The view's symbolic element offset is bound to where the region starts in the source.
    {"symbolic elem_offset", R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 8), "float32"), F: T.Buffer((32,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                T.reads(A[vi, 2:6])
                T.writes(F[0:32])
                sub = T.match_buffer(A[vi, 2:6], (4,), offset_factor=1)
                for k in range(4):
                    F[sub.elem_offset + k] = sub[k])",
     R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 8), "float32"), F: T.Buffer((32,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                T.reads(A[vi, 2:6])
                T.writes(F[0:32])
                for k in range(4):
                    F[vi * 8 + 2 + k] = A[vi, k + 2])"},
};

}  // namespace

class TestLowerMatchBuffer : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() { testing::AddGoldenRows(kCases); }
  void golden() {
    QFETCH(int, index);
    std::string error =
        testing::CheckGolden("LowerMatchBuffer", kCases[index].before, kCases[index].after);
    QVERIFY2(error.empty(), error.c_str());
  }

  void shapeMismatchIsAnError() {
    std::string error;
    auto module = testing::ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32")):
        with T.sblock("b"):
            T.reads()
            T.writes(A[0:4, 0:4])
            sub = T.match_buffer(A[0:4, 0:4], (4, 2))
            sub[0, 0] = T.float32(1.0))",
                                       &error);
    QVERIFY2(error.empty(), error.c_str());
    testing::RunPasses("LowerMatchBuffer", module, &error);
    QVERIFY2(error.find("dimension 1 of sub is 2, but the matched region gives 4") != std::string::npos,
             error.c_str());
  }
};

QTEST_APPLESS_MAIN(TestLowerMatchBuffer)
#include "tst_tir_lower_match_buffer.moc"
