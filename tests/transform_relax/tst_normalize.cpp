// Normalize: nested expressions are bound to vars before their use, bodies and If branches
// become SeqExprs, everything is typed; normalized modules come back unchanged; the module
// computes the same. The inputs are built in C++: the parser only produces normalized IR.
#include <QTest>

#include "kernels.h"
#include "relax/op/registry.h"
#include "relax_pass_test.h"

using namespace relax_pass_test;
using namespace wb;

namespace {

relax::Type T4() { return relax::MakeTensorType({tir::MakeIntImm(ir::DataType::Int(64), 4)}, ir::DataType::Float(32)); }

// The kernels' module with `main` replaced by `func`.
ir::IRModule WithMain(const ir::IRModule& kernels, const relax::Function& func) {
  return ir::WithFunction(kernels, kernels->GetGlobalVar("main"), func);
}

relax::Expr CallTIR(const ir::IRModule& m, const char* kernel, std::vector<relax::Expr> args) {
  return relax::MakeOpCall("relax.call_tir", {m->GetGlobalVar(kernel), relax::MakeTuple(std::move(args))},
                           {}, {T4()});
}

relax::Function Main(std::vector<relax::Var> params, relax::Expr body) {
  return relax::MakeFunction(std::move(params), std::move(body), T4(), true,
                             {{"global_symbol", ir::MakeString("main")}});
}

ir::IRModule Kernels() {
  std::string error;
  ir::IRModule m = ParseModule(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x
)"), &error);
  if (!m.defined()) qFatal("%s", error.c_str());
  return m;
}

}  // namespace

class TestNormalize : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void nestedCallIsBound() {
    ir::IRModule k = Kernels();
    relax::Var x = relax::MakeVar("x", T4());
    relax::Var y = relax::MakeVar("y", T4());
    relax::Expr inner = CallTIR(k, "mul", {x, x});
    relax::Expr outer = CallTIR(k, "add", {inner, x});
    relax::Function f = Main({x}, relax::MakeSeqExpr(
                                       {relax::MakeBindingBlock({relax::MakeVarBinding(y, outer)})}, y));
    std::string err = GoldenCase("Normalize", WithMain(k, f), WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        lv = R.call_tir(cls.mul, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        y = R.call_tir(cls.add, (lv, x), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)"));
    QVERIFY2(err.empty(), err.c_str());
  }

  void bodyBecomesSeqExpr() {
    ir::IRModule k = Kernels();
    relax::Var x = relax::MakeVar("x", T4());
    relax::Function f = Main({x}, CallTIR(k, "relu", {CallTIR(k, "add", {x, x})}));
    std::string err = GoldenCase("Normalize", WithMain(k, f), WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        lv1 = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4,), dtype="float32"))
        return lv1
)"));
    QVERIFY2(err.empty(), err.c_str());
  }

  void ifBranchesBecomeSeqExprs() {
    ir::IRModule k = Kernels();
    relax::Var c = relax::MakeVar("c", relax::MakeTensorType({}, ir::DataType::Bool()));
    relax::Var x = relax::MakeVar("x", T4());
    relax::Var y = relax::MakeVar("y", T4());
    relax::Expr branch = relax::MakeIf(c, CallTIR(k, "add", {x, x}), x);
    relax::Function f = relax::MakeFunction(
        {c, x}, relax::MakeSeqExpr({relax::MakeBindingBlock({relax::MakeVarBinding(y, branch)})}, y),
        T4(), true, {{"global_symbol", ir::MakeString("main")}});
    std::string err = GoldenCase("Normalize", WithMain(k, f), WithKernels(R"(
    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        if c:
            lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
            y = lv
        else:
            y = x
        return y
)"));
    QVERIFY2(err.empty(), err.c_str());
  }

  void normalizedModulesAreUnchanged() {
    std::string error;
    ir::IRModule m = ParseModule(WithKernels(R"(
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(gv)
        return gv
)"), &error);
    QVERIFY2(m.defined(), error.c_str());
    ir::IRModule out = RunPasses("Normalize", m, &error);
    QVERIFY2(out.defined(), error.c_str());
    QVERIFY(out.same_as(m));
  }
};

QTEST_APPLESS_MAIN(TestNormalize)
#include "tst_normalize.moc"
