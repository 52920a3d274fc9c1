// LegalizeOps passes a symbolic var to a kernel (a scalar parameter after the inputs, before the
// outputs, and an R.prim_value argument of call_tir) exactly when none of the kernel's buffers has
// it as a whole dim, TVM's rule in bb.call_te: `n * 4`-only kernels take n, a kernel with an
// (n, 4) buffer does not.
// The golden is compared structurally; the module is then built through the VM (unfused and
// fused) and run for several n, equal to the interpreter; the printed form parses back.
#include <QTest>

#include "codegen/vm_codegen.h"
#include "relax/interpreter.h"
#include "relax_pass_test.h"
#include "runtime/vm/vm.h"
#include "transform/relax/legalize_ops.h"

using namespace wb;
namespace vm = wb::runtime::vm;

namespace {

const char* kBefore = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor(("n * 4",), dtype="float32")) -> R.Tensor(("n * 4",), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv = R.reshape(x, R.shape([n * 4]))
            lv1 = R.add(lv, y)
            gv = R.multiply(lv1, y)
            R.output(gv)
        return gv
)";

const char* kExpected = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(lv: T.handle, y: T.handle, n: T.int64, T_add: T.handle):
        T.func_attr({"tirx.noalias": True})
        lv_1 = T.match_buffer(lv, (n * T.int64(4),))
        y_1 = T.match_buffer(y, (n * T.int64(4),))
        T_add_1 = T.match_buffer(T_add, (n * T.int64(4),))
        for ax0 in range(n * T.int64(4)):
            with T.sblock("T_add"):
                v_ax0 = T.axis.spatial(n * T.int64(4), ax0)
                T.reads(lv_1[v_ax0], y_1[v_ax0])
                T.writes(T_add_1[v_ax0])
                T_add_1[v_ax0] = lv_1[v_ax0] + y_1[v_ax0]

    @T.prim_func(private=True, s_tir=True)
    def multiply(lv1: T.handle, y: T.handle, n: T.int64, T_multiply: T.handle):
        T.func_attr({"tirx.noalias": True})
        lv1_1 = T.match_buffer(lv1, (n * T.int64(4),))
        y_1 = T.match_buffer(y, (n * T.int64(4),))
        T_multiply_1 = T.match_buffer(T_multiply, (n * T.int64(4),))
        for ax0 in range(n * T.int64(4)):
            with T.sblock("T_multiply"):
                v_ax0 = T.axis.spatial(n * T.int64(4), ax0)
                T.reads(lv1_1[v_ax0], y_1[v_ax0])
                T.writes(T_multiply_1[v_ax0])
                T_multiply_1[v_ax0] = lv1_1[v_ax0] * y_1[v_ax0]

    @T.prim_func(private=True, s_tir=True)
    def reshape(x: T.handle, T_reshape: T.handle):
        T.func_attr({"tirx.noalias": True})
        n = T.int64()
        x_1 = T.match_buffer(x, (n, T.int64(4)))
        T_reshape_1 = T.match_buffer(T_reshape, (n * T.int64(4),))
        for ax0 in range(n * T.int64(4)):
            with T.sblock("T_reshape"):
                v_ax0 = T.axis.spatial(n * T.int64(4), ax0)
                T.reads(x_1[v_ax0 // T.int64(4) % n, v_ax0 % T.int64(4)])
                T.writes(T_reshape_1[v_ax0])
                T_reshape_1[v_ax0] = x_1[v_ax0 // T.int64(4) % n, v_ax0 % T.int64(4)]

    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor(("n * 4",), dtype="float32")) -> R.Tensor(("n * 4",), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.reshape, (x,), out_ty=R.Tensor((n * 4,), dtype="float32"))
            lv1 = R.call_tir(cls.add, (lv, y, R.prim_value(n)), out_ty=R.Tensor((n * 4,), dtype="float32"))
            gv = R.call_tir(cls.multiply, (lv1, y, R.prim_value(n)), out_ty=R.Tensor((n * 4,), dtype="float32"))
            R.output(gv)
        return gv
)";

vm::Value ToVM(const relax::Value& v) { return vm::Value::Tensor(v.tensor.Copy()); }

}  // namespace

class TestLegalizeTirVars : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void golden() {
    std::string error;
    ir::IRModule before = relax_pass_test::ParseModule(kBefore, &error);
    QVERIFY2(before.defined(), error.c_str());
    ir::IRModule expected = relax_pass_test::ParseModule(kExpected, &error);
    QVERIFY2(expected.defined(), error.c_str());
    ir::IRModule after = relax_pass_test::RunPasses("LegalizeOps", before, &error);
    QVERIFY2(after.defined(), error.c_str());
    auto mismatch = ir::FindFirstMismatch(after, expected);
    QVERIFY2(!mismatch, (mismatch ? mismatch->lhs_path + "\n" + script::PrintModule(after) : std::string()).c_str());
    std::string same = relax_pass_test::SameResults(before, after);
    QVERIFY2(same.empty(), same.c_str());
    // The printed form parses back to the same module.
    std::string printed = script::PrintModule(after);
    ir::IRModule reparsed = relax_pass_test::ParseModule(printed, &error);
    QVERIFY2(reparsed.defined(), (error + printed).c_str());
    QVERIFY(!ir::FindFirstMismatch(after, reparsed));
  }

  // Without n passed, the codegen failed with "variable 'n' is used but not defined".
  void buildsAndRuns_data() {
    QTest::addColumn<bool>("fuse");
    QTest::newRow("unfused") << false;
    QTest::newRow("fused") << true;
  }
  void buildsAndRuns() {
    QFETCH(bool, fuse);
    std::string error;
    ir::IRModule model = relax_pass_test::ParseModule(kBefore, &error);
    QVERIFY2(model.defined(), error.c_str());
    codegen::VMBuildOptions options;
    options.fuse = fuse;
    codegen::VMBuildResult built = codegen::BuildVM(model, codegen::Target::Host(), options);
    QVERIFY2(built.ok(), built.diagnostics.empty() ? "" : built.diagnostics[0].message.c_str());
    vm::VirtualMachine machine(built.exec, built.kernels);
    auto main = ir::Downcast<relax::FunctionNode>(model->Lookup("main"));
    for (int64_t n : {1, 3, 8}) {
      auto args = relax::RandomArguments(main, 100 + n, n, &error);
      QVERIFY2(args, error.c_str());
      relax::RelaxInterpretOptions iopts;
      iopts.legalize = transform::LegalizeCall;
      relax::RelaxInterpretResult expected = relax::InterpretRelax(model, "main", *args, iopts);
      QVERIFY(expected.ok());
      vm::Value out = machine["main"](ToVM((*args)[0]), ToVM((*args)[1]));
      QCOMPARE(out.tensor.shape(), std::vector<int64_t>({n * 4}));
      relax::ValueComparison cmp = relax::CompareValues(relax::Value::Tensor(out.tensor), expected.value);
      QVERIFY2(cmp.ok, (cmp.message + "\n" + built.exec->AsText()).c_str());
    }
  }
};

QTEST_APPLESS_MAIN(TestLegalizeTirVars)
#include "tst_legalize_tir_vars.moc"
