// FuseOps: call_tir chains in, Primitive functions out, compared structurally with hand-written
// expected modules: matmul + bias + relu, a diamond after a matmul, an opaque kernel that blocks
// a diamond, an injective chain, an elementwise input of a reduction, fuse_opt_level=0, the
// max_depth option, and every case run through the interpreter before and after.

#include <QTest>

#include "fuse_kernels.h"
#include "fuse_test_util.h"
#include "relax/well_formed.h"
#include "transform/registry.h"
#include "transform/relax/fuse_ops.h"

using namespace wb;
using namespace fuse_test;

namespace {

// main: x (4, 8), w (8, 16), b (16,) -> relu(x @ w + b)
const std::string kMlpMain = R"(
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32"), b: R.Tensor((16,), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv1 = R.call_tir(cls.bias_add, (lv, b), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv
)";

ir::IRModule RunFuseOps(const ir::IRModule& module, int level = 2) {
  return transform::FuseOps(level)(module);
}

void CheckSemantics(const ir::IRModule& before, const ir::IRModule& after) {
  // The result prints as TVMScript that parses back to the same module.
  FUSE_COMPARE_MODULES(Parse(script::PrintModule(after)), after);
  DiagnosticList diags = relax::VerifyWellFormed(after);
  if (diags.HasErrors())
    QFAIL((diags.begin()->message + "\n" + script::PrintModule(after)).c_str());
  for (uint64_t seed : {1u, 2u}) {
    std::string why = CompareMain(before, after, seed);
    if (!why.empty()) QFAIL(why.c_str());
  }
}

}  // namespace

class TestFuseOps : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void matmulBiasRelu() {
    ir::IRModule before = Parse(ModuleOf({kMatmul, kBiasAdd, kRelu}, kMlpMain));
    ir::IRModule expected = Parse(ModuleOf({kMatmul, kBiasAdd, kRelu}, kMlpGrouped));
    QVERIFY(before.defined() && expected.defined());
    ir::IRModule after = RunFuseOps(before);
    FUSE_COMPARE_MODULES(after, expected);
    CheckSemantics(before, after);
  }

  // Both branches of the diamond after the matmul join in the add: all four run as one.
  void diamondAfterMatmul() {
    std::string main = R"(
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv1 = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv2 = R.call_tir(cls.negative, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.add, (lv1, lv2), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv
)";
    std::string fused = R"(
    @R.function(private=True)
    def fused_matmul_relu_negative_add(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv1 = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv2 = R.call_tir(cls.negative, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.add, (lv1, lv2), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = cls.fused_matmul_relu_negative_add(x, w)
            R.output(gv)
        return gv
)";
    auto kernels = {kMatmul, kRelu, kNeg, kAdd};
    ir::IRModule before = Parse(ModuleOf(kernels, main));
    ir::IRModule after = RunFuseOps(before);
    FUSE_COMPARE_MODULES(after, Parse(ModuleOf(kernels, fused)));
    CheckSemantics(before, after);
  }

  // An opaque kernel on one branch: exp cannot reach the join through it, so only relu and the
  // add fuse; the opaque kernel and exp stay as they are, each alone.
  void opaqueBlocksDiamond() {
    std::string main = R"(
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv1 = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv2 = R.call_tir(cls.opaque_copy, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.add, (lv1, lv2), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv
)";
    std::string fused = R"(
    @R.function(private=True)
    def fused_relu_add(lv: R.Tensor((4, 16), dtype="float32"), lv2: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv1 = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.add, (lv1, lv2), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv2 = R.call_tir(cls.opaque_copy, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = cls.fused_relu_add(lv, lv2)
            R.output(gv)
        return gv
)";
    auto kernels = {kExp, kRelu, kOpaqueCopy, kAdd};
    ir::IRModule before = Parse(ModuleOf(kernels, main));
    ir::IRModule after = RunFuseOps(before);
    FUSE_COMPARE_MODULES(after, Parse(ModuleOf(kernels, fused)));
    CheckSemantics(before, after);
  }

  // An injective kernel fuses into its elementwise consumer (phase 1); an elementwise kernel
  // fuses into the reduction that consumes it; two opaque copies in a row stay apart.
  void injectiveChainAndReduction() {
    std::string main = R"(
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tuple(R.Tensor((16, 4), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4, 16), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.transpose, (x,), out_ty=R.Tensor((16, 4), dtype="float32"))
            gv = R.call_tir(cls.exp_t, (lv,), out_ty=R.Tensor((16, 4), dtype="float32"))
            lv1 = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv1 = R.call_tir(cls.sum, (lv1,), out_ty=R.Tensor((4,), dtype="float32"))
            lv2 = R.call_tir(cls.opaque_copy, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv2 = R.call_tir(cls.opaque_copy, (lv2,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv, gv1, gv2)
        return (gv, gv1, gv2)
)";
    std::string fused = R"(
    @R.function(private=True)
    def fused_transpose_exp_t(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((16, 4), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.transpose, (x,), out_ty=R.Tensor((16, 4), dtype="float32"))
            gv = R.call_tir(cls.exp_t, (lv,), out_ty=R.Tensor((16, 4), dtype="float32"))
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_exp_sum(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv1 = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv1 = R.call_tir(cls.sum, (lv1,), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(gv1)
        return gv1

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tuple(R.Tensor((16, 4), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4, 16), dtype="float32")):
        cls = Module
        with R.dataflow():
            gv = cls.fused_transpose_exp_t(x)
            gv1 = cls.fused_exp_sum(x)
            lv2 = R.call_tir(cls.opaque_copy, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv2 = R.call_tir(cls.opaque_copy, (lv2,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv, gv1, gv2)
        return (gv, gv1, gv2)
)";
    auto kernels = {kTranspose, kExpT, kExp, kSum, kOpaqueCopy};
    ir::IRModule before = Parse(ModuleOf(kernels, main));
    ir::IRModule after = RunFuseOps(before);
    FUSE_COMPARE_MODULES(after, Parse(ModuleOf(kernels, fused)));
    CheckSemantics(before, after);
  }

  // A value used after the block (an output var) is both fused into and returned: it stays a
  // result of its group, and its consumer outside the group sees the call's result.
  void outputUsedByLaterBinding() {
    std::string main = R"(
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tuple(R.Tensor((4, 16), dtype="float32"), R.Tensor((4, 16), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv1 = R.call_tir(cls.opaque_copy, (gv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv, gv1)
        return (gv, gv1)
)";
    std::string fused = R"(
    @R.function(private=True)
    def fused_exp_relu(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tuple(R.Tensor((4, 16), dtype="float32"), R.Tensor((4, 16), dtype="float32")):
        cls = Module
        with R.dataflow():
            gv = cls.fused_exp_relu(x)
            gv1 = R.call_tir(cls.opaque_copy, (gv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv, gv1)
        return (gv, gv1)
)";
    auto kernels = {kExp, kRelu, kOpaqueCopy};
    ir::IRModule before = Parse(ModuleOf(kernels, main));
    ir::IRModule after = RunFuseOps(before);
    FUSE_COMPARE_MODULES(after, Parse(ModuleOf(kernels, fused)));
    CheckSemantics(before, after);
  }

  // A constant argument becomes a parameter (param_0) and the caller passes it.
  void constantLiftedToParameter() {
    const char* kernels = R"(
    @T.prim_func(private=True)
    def scale(A: T.Buffer((4, 16), "float32"), s: T.Buffer((), "float32"), C: T.Buffer((4, 16), "float32")):
        T.func_attr({"op_pattern": 0})
        for i, j in T.grid(4, 16):
            with T.sblock("T_multiply"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * s[()]

    @T.prim_func(private=True)
    def exp(A: T.Buffer((4, 16), "float32"), C: T.Buffer((4, 16), "float32")):
        T.func_attr({"op_pattern": 0})
        for i, j in T.grid(4, 16):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.exp(A[vi, vj])

)";
    std::string main = R"(
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.scale, (x, R.const(0.5, "float32")), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.exp, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv
)";
    std::string fused = R"(
    @R.function(private=True)
    def fused_scale_exp(x: R.Tensor((4, 16), dtype="float32"), param_0: R.Tensor((), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.scale, (x, param_0), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.exp, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = cls.fused_scale_exp(x, R.const(0.5, "float32"))
            R.output(gv)
        return gv
)";
    ir::IRModule before = Parse(ModuleOf({kernels}, main));
    ir::IRModule after = RunFuseOps(before);
    FUSE_COMPARE_MODULES(after, Parse(ModuleOf({kernels}, fused)));
    CheckSemantics(before, after);
  }

  // Only dataflow blocks are fused: plain bindings may have side effects or control flow.
  void bindingsOutsideDataflowStay() {
    std::string main = R"(
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
        gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
        return gv
)";
    ir::IRModule before = Parse(ModuleOf({kExp, kRelu}, main));
    QVERIFY(before.defined());
    FUSE_COMPARE_MODULES(RunFuseOps(before), before);
  }

  void optLevelZeroFusesNothing() {
    ir::IRModule before = Parse(ModuleOf({kMatmul, kBiasAdd, kRelu}, kMlpMain));
    ir::IRModule after = RunFuseOps(before, 0);
    FUSE_COMPARE_MODULES(after, before);
    // The comparison does see fusion: level 2 gives a different module.
    QVERIFY(!ModuleDifference(RunFuseOps(before, 2), before).empty());
    // Through the registry, as a pipeline names it.
    DiagnosticList diags;
    auto pipeline = transform::BuildPipeline("FuseOps(fuse_opt_level=0)", diags);
    QVERIFY(pipeline.has_value());
    FUSE_COMPARE_MODULES((*pipeline)(before), before);
  }

  // Default level -1 takes the PassContext's opt_level.
  void optLevelFromContext() {
    ir::IRModule before = Parse(ModuleOf({kMatmul, kBiasAdd, kRelu}, kMlpMain));
    ir::PassContext context;
    context.opt_level = 0;
    FUSE_COMPARE_MODULES(transform::FuseOps(-1).Run(before, context), before);
    context.opt_level = 2;
    FUSE_COMPARE_MODULES(transform::FuseOps(-1).Run(before, context),
                         Parse(ModuleOf({kMatmul, kBiasAdd, kRelu}, kMlpGrouped)));
  }

  // relax.FuseOps max_depth=2: the matmul takes the bias add, and the relu would make three.
  void maxDepthBoundsGroups() {
    std::string fused = R"(
    @R.function(private=True)
    def fused_matmul_bias_add(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32"), b: R.Tensor((16,), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv1 = R.call_tir(cls.bias_add, (lv, b), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(lv1)
        return lv1

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32"), b: R.Tensor((16,), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv1 = cls.fused_matmul_bias_add(x, w, b)
            gv = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv
)";
    ir::IRModule before = Parse(ModuleOf({kMatmul, kBiasAdd, kRelu}, kMlpMain));
    ir::PassContext context;
    context.config["relax.FuseOps"] = ir::MakeMap({{"max_depth", ir::MakeInt(2)}});
    ir::IRModule after = transform::FuseOps(2).Run(before, context);
    FUSE_COMPARE_MODULES(after, Parse(ModuleOf({kMatmul, kBiasAdd, kRelu}, fused)));
    CheckSemantics(before, after);
  }

  // Two identical chains share one function.
  void identicalGroupsShareAFunction() {
    std::string main = R"(
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32"), y: R.Tensor((4, 16), dtype="float32")) -> R.Tuple(R.Tensor((4, 16), dtype="float32"), R.Tensor((4, 16), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv1 = R.call_tir(cls.exp, (y,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv1 = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv, gv1)
        return (gv, gv1)
)";
    ir::IRModule before = Parse(ModuleOf({kExp, kRelu}, main));
    ir::IRModule after = RunFuseOps(before);
    QCOMPARE(QString::fromStdString(JoinNames(FunctionNames(after))),
             QString("exp, fused_exp_relu, main, relu"));
    CheckSemantics(before, after);
  }

  // Same shapes, different kernels: two functions, not one.
  void differentKernelsAreNotShared() {
    std::string main = R"(
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32"), y: R.Tensor((4, 16), dtype="float32")) -> R.Tuple(R.Tensor((4, 16), dtype="float32"), R.Tensor((4, 16), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv1 = R.call_tir(cls.negative, (y,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv1 = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv, gv1)
        return (gv, gv1)
)";
    ir::IRModule before = Parse(ModuleOf({kExp, kNeg, kRelu}, main));
    ir::IRModule after = RunFuseOps(before);
    QCOMPARE(QString::fromStdString(JoinNames(FunctionNames(after))),
             QString("exp, fused_exp_relu, fused_negative_relu, main, negative, relu"));
    CheckSemantics(before, after);
  }

  void badArgumentIsAClearError() {
    DiagnosticList diags;
    QVERIFY(!transform::BuildPipeline("FuseOps(fuse_opt_level=\"two\")", diags).has_value());
    QVERIFY(diags.HasErrors());
    QVERIFY(QString::fromStdString(diags.begin()->message).contains("fuse_opt_level"));
  }
};

QTEST_APPLESS_MAIN(TestFuseOps)
#include "tst_fuse_ops.moc"
