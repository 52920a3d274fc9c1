#include <QTest>
#include <string>

#include "schedule/primitive/tensorize.h"
#include "schedule/tensor_intrin.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const char* kMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 32), "float32"), C: T.Buffer((4, 32), "float32")):
        for i, j, k in T.grid(4, 32, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kTile = R"(b0 = sch.get_sblock(name="C", func_name="main")
l1, l2, l3 = sch.get_loops(block=b0)
l4, l5 = sch.split(loop=l2, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)
l6, l7 = sch.split(loop=l3, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
sch.reorder(l4, l6, l5, l7)
b8 = sch.decompose_reduction(block=b0, loop=l6)
)";

}  // namespace

class TestScheduleTensorize : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void scratch() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    DiagnosticList d = ApplyRecipe(sch, std::string(kTile) + "sch.tensorize(block_or_loop=l5, tensor_intrin=\"fma_f32_1x16x4_avx512\")\n");
    for (auto& x : d.items()) qWarning("%s", x.message.c_str());
    qWarning("%s", script::PrintModule(sch.mod()).c_str());
    qWarning("%s", sch.trace().AsPython().c_str());
    ExpectSameMeaning(before, sch.mod());
  }
};

QTEST_APPLESS_MAIN(TestScheduleTensorize)
#include "tst_schedule_tensorize.moc"
