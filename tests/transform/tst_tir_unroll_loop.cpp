// UnrollLoop: golden cases for explicit T.unroll loops and the `tirx.UnrollLoop` config
// (auto_max_step, auto_max_extent, auto_max_depth, explicit_unroll, unroll_local_access), each
// checked by the interpreter on random inputs.
#include "golden_case.h"
#include "tir/functor.h"

using namespace wb;

namespace {

ir::ObjectRef Config(ir::AttrMap options) { return ir::MakeMap(std::move(options)); }

struct UnrollCase {
  testing::GoldenCase golden;
  ir::AttrMap config;
};

const char* kExplicitBefore = R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32")):
        for i in range(2):
            for j in T.unroll(3):
                B[i * 3 + j] = A[i * 3 + j] + T.float32(1.0))";

const UnrollCase kCases[] = {
    // Defaults: only T.unroll loops, copied once per iteration (the substituted index is not
    // simplified here; Simplify runs before, not after).
    {{"explicit T.unroll", kExplicitBefore, R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32")):
        for i in range(2):
            B[T.Add(i * 3, 0)] = A[T.Add(i * 3, 0)] + T.float32(1.0)
            B[i * 3 + 1] = A[i * 3 + 1] + T.float32(1.0)
            B[i * 3 + 2] = A[i * 3 + 2] + T.float32(1.0))"},
     {}},
    // auto_max_step: the inner loop (4 steps) qualifies, the outer (8 x 4 = 32 steps) does not;
    // without explicit_unroll the loop is only marked T.unroll.
    {{"auto_max_step, not explicit", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32,), "float32")):
        for i in range(8):
            for j in range(4):
                A[i * 4 + j] = A[i * 4 + j] * T.float32(2.0))",
      R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32,), "float32")):
        for i in range(8):
            for j in T.unroll(4):
                A[i * 4 + j] = A[i * 4 + j] * T.float32(2.0))"},
     {{"auto_max_step", ir::MakeInt(16)}, {"explicit_unroll", ir::MakeBool(false)}}},
    // auto_max_extent: a loop of extent 2 is unrolled whatever its body; the loop around it
    // (extent 3) is not.
    {{"auto_max_extent", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((3, 2), "float32"), B: T.Buffer((3, 2), "float32")):
        for i in range(3):
            for j in range(2):
                B[i, j] = A[i, j] * T.float32(2.0))",
      R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((3, 2), "float32"), B: T.Buffer((3, 2), "float32")):
        for i in range(3):
            B[i, 0] = A[i, 0] * T.float32(2.0)
            B[i, 1] = A[i, 1] * T.float32(2.0))"},
     {{"auto_max_extent", ir::MakeInt(2)}}},
    // T.unroll around a loop that stays: each copy gets its own loop variable.
    {{"copies renew definitions", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((2, 3), "float32"), B: T.Buffer((2, 3), "float32")):
        for i in T.unroll(2):
            for j in range(3):
                B[i, j] = A[i, j] * T.float32(2.0))",
      R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((2, 3), "float32"), B: T.Buffer((2, 3), "float32")):
        for j in range(3):
            B[0, j] = A[0, j] * T.float32(2.0)
        for j in range(3):
            B[1, j] = A[1, j] * T.float32(2.0))"},
     {}},
    // A stepped T.unroll: one copy per value the loop variable takes.
    {{"stepped", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32")):
        for i in T.unroll(0, 8, step=3):
            A[i] = A[i + 1] * T.float32(2.0))",
      R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32")):
        A[0] = A[T.Add(0, 1)] * T.float32(2.0)
        A[3] = A[T.Add(3, 1)] * T.float32(2.0)
        A[6] = A[T.Add(6, 1)] * T.float32(2.0))"},
     {}},
    // A body that breaks out of the loop cannot be copied out of it: the loop stays.
    {{"break stays", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32")):
        for i in T.unroll(8):
            if A[i] < T.float32(0.0):
                break
            A[i] = T.float32(1.0))",
      R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32")):
        for i in T.unroll(8):
            if A[i] < T.float32(0.0):
                break
            A[i] = T.float32(1.0))"},
     {{"auto_max_step", ir::MakeInt(100)}}},
    // auto_max_extent == 1 copies out single-iteration loops even without explicit_unroll.
    {{"single iteration", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        for i in range(1):
            A[i] = A[i] + T.float32(1.0)
        for j in range(2):
            A[j + 1] = A[j + 1] * T.float32(2.0))",
      R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        A[0] = A[0] + T.float32(1.0)
        for j in range(2):
            A[j + 1] = A[j + 1] * T.float32(2.0))"},
     {{"auto_max_extent", ir::MakeInt(1)}, {"explicit_unroll", ir::MakeBool(false)}}},
    // unroll_local_access: the loop indexing a local buffer is unrolled, the other is not.
    {{"unroll_local_access", R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        acc = T.alloc_buffer((2,), scope="local")
        for k in range(2):
            acc[k] = A[k] + A[k + 2]
        for m in range(4):
            B[m] = acc[0] + acc[1])",
      R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        acc = T.alloc_buffer((2,), scope="local")
        acc[0] = A[0] + A[T.Add(0, 2)]
        acc[1] = A[1] + A[T.Add(1, 2)]
        for m in range(4):
            B[m] = acc[0] + acc[1])"},
     {{"unroll_local_access", ir::MakeBool(true)}}},
};

}  // namespace

class TestUnrollLoop : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < std::size(kCases); ++i) {
      QTest::newRow(kCases[i].golden.name) << static_cast<int>(i);
    }
  }
  void golden() {
    QFETCH(int, index);
    const UnrollCase& c = kCases[index];
    std::map<std::string, ir::ObjectRef> config;
    if (!c.config.empty()) config["tirx.UnrollLoop"] = Config(c.config);
    std::string error = testing::CheckGolden("UnrollLoop", c.golden.before, c.golden.after, config);
    QVERIFY2(error.empty(), error.c_str());
  }

  // auto_max_depth bounds how many nested loops unroll automatically.
  void autoMaxDepth() {
    const char* before = R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32")):
        for i in range(2):
            for j in range(2):
                for k in range(2):
                    A[i * 4 + j * 2 + k] = T.float32(1.0))";
    std::string error;
    auto module = testing::ParseModule(before, &error);
    auto count_loops = [](const ir::IRModule& m) {
      size_t n = 0;
      tir::PostOrderVisit(ir::Downcast<tir::PrimFuncNode>(m->functions[0])->body,
                          [&](const ir::Object* node) {
                            n += node->type_index() == ir::TypeIndex::kFor;
                          });
      return n;
    };
    for (auto [depth, loops_left] : {std::pair{8, 0}, std::pair{1, 1}, std::pair{0, 2}}) {
      std::map<std::string, ir::ObjectRef> config{
          {"tirx.UnrollLoop", Config({{"auto_max_step", ir::MakeInt(64)},
                                      {"auto_max_depth", ir::MakeInt(depth)}})}};
      auto out = testing::RunPasses("UnrollLoop", module, &error, config);
      QVERIFY2(error.empty(), error.c_str());
      QCOMPARE(count_loops(out), size_t(loops_left));
      error = testing::CheckSameMeaning(module, out);
      QVERIFY2(error.empty(), error.c_str());
    }
  }

  void symbolicUnrollIsAnError() {
    std::string error;
    auto module = testing::ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), n: T.int32):
        for i in T.unroll(n):
            A[i] = T.float32(1.0))",
                                       &error);
    testing::RunPasses("UnrollLoop", module, &error);
    QVERIFY2(error.find("cannot unroll loop 'i': its extent is not a constant") != std::string::npos,
             error.c_str());
  }

  void badConfigIsAnError() {
    std::string error;
    auto module = testing::ParseModule(kExplicitBefore, &error);
    std::map<std::string, ir::ObjectRef> config{
        {"tirx.UnrollLoop", Config({{"auto_max_step", ir::MakeString("lots")}})}};
    testing::RunPasses("UnrollLoop", module, &error, config);
    QVERIFY2(error.find("'auto_max_step' must be an integer") != std::string::npos, error.c_str());
  }
};

QTEST_APPLESS_MAIN(TestUnrollLoop)
#include "tst_tir_unroll_loop.moc"
