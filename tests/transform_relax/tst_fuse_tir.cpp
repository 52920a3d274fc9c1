// FuseTIR: Primitive functions in, one PrimFunc each out, compared structurally with
// hand-written expected modules (intermediates as root-block allocations, parameters in TVM's
// order, unused kernels removed); tuple arguments passed field by field; one kernel inlined twice
// gets fresh definitions and unique block names; and FuseOps + FuseTIR keep the meaning of
// every module, run through the reference interpreter on seeded random inputs.

#include <QFile>
#include <QTest>

#include "fuse_kernels.h"
#include "fuse_test_util.h"
#include "relax/well_formed.h"
#include "tir/verifier.h"
#include "transform/registry.h"
#include "transform/relax/fuse_ops.h"
#include "transform/relax/fuse_tir.h"

using namespace wb;
using namespace fuse_test;

namespace {

const std::string kMlpExpected = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_matmul_bias_add_relu(x: T.Buffer((T.int64(4), T.int64(8)), "float32"), w: T.Buffer((T.int64(8), T.int64(16)), "float32"), b: T.Buffer((T.int64(16),), "float32"), relu_out: T.Buffer((T.int64(4), T.int64(16)), "float32")):
        T.func_attr({"tirx.noalias": True})
        matmul_out = T.sblock_alloc_buffer((T.int64(4), T.int64(16)))
        bias_out = T.sblock_alloc_buffer((T.int64(4), T.int64(16)))
        for i, j, k in T.grid(4, 16, 8):
            with T.sblock("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    matmul_out[vi, vj] = T.float32(0.0)
                matmul_out[vi, vj] = matmul_out[vi, vj] + x[vi, vk] * w[vk, vj]
        for i, j in T.grid(4, 16):
            with T.sblock("T_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                bias_out[vi, vj] = matmul_out[vi, vj] + b[vj]
        for i, j in T.grid(4, 16):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                relu_out[vi, vj] = T.max(bias_out[vi, vj], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32"), b: R.Tensor((16,), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.fused_matmul_bias_add_relu, (x, w, b), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv
)";

void CheckWellFormed(const ir::IRModule& module) {
  DiagnosticList tir_diags = tir::VerifyWellFormed(module);
  DiagnosticList relax_diags = relax::VerifyWellFormed(module);
  std::string all;
  for (const auto& d : tir_diags) all += "tir: " + d.message + "\n";
  for (const auto& d : relax_diags) all += "relax: " + d.message + "\n";
  if (!all.empty()) QFAIL((all + script::PrintModule(module)).c_str());
}

void CheckSemantics(const ir::IRModule& before, const ir::IRModule& after) {
  for (uint64_t seed : {7u, 8u, 9u}) {
    std::string why = CompareMain(before, after, seed);
    if (!why.empty()) QFAIL(why.c_str());
  }
}

}  // namespace

class TestFuseTIR : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void mlpGroupToOneKernel() {
    ir::IRModule before = Parse(ModuleOf({kMatmul, kBiasAdd, kRelu}, kMlpGrouped));
    QVERIFY(before.defined());
    ir::IRModule after = transform::FuseTIR()(before);
    FUSE_COMPARE_MODULES(after, Parse(kMlpExpected));
    CheckWellFormed(after);
    CheckSemantics(before, after);
    std::string text = script::PrintModule(after);
    QVERIFY2(text.find("T.func_attr({\"tirx.noalias\": True})") != std::string::npos, text.c_str());
  }

  // Tuple parameters become one buffer per field; the caller passes the fields.
  void tupleParameterFlattened() {
    std::string grouped = R"(
    @R.function(private=True)
    def fused_add_exp(p: R.Tuple(R.Tensor((4, 16), dtype="float32"), R.Tensor((4, 16), dtype="float32"))) -> R.Tensor((4, 16), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv = p[0]
            lv1 = p[1]
            lv2 = R.call_tir(cls.add, (lv, lv1), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.exp, (lv2,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32"), y: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            t = (x, y)
            gv = cls.fused_add_exp(t)
            R.output(gv)
        return gv
)";
    std::string expected = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_add_exp(p_0: T.Buffer((T.int64(4), T.int64(16)), "float32"), p_1: T.Buffer((T.int64(4), T.int64(16)), "float32"), out: T.Buffer((T.int64(4), T.int64(16)), "float32")):
        T.func_attr({"tirx.noalias": True})
        tmp = T.sblock_alloc_buffer((T.int64(4), T.int64(16)))
        for i, j in T.grid(4, 16):
            with T.sblock("T_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                tmp[vi, vj] = p_0[vi, vj] + p_1[vi, vj]
        for i, j in T.grid(4, 16):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = T.exp(tmp[vi, vj])

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32"), y: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            t = (x, y)
            t_0 = t[0]
            t_1 = t[1]
            gv = R.call_tir(cls.fused_add_exp, (t_0, t_1), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv
)";
    ir::IRModule before = Parse(ModuleOf({kAdd, kExp}, grouped));
    ir::IRModule after = transform::FuseTIR()(before);
    FUSE_COMPARE_MODULES(after, Parse(expected));
    CheckWellFormed(after);
    CheckSemantics(before, after);
  }

  // exp twice: two copies with their own loop and block vars, blocks named compute, compute_1;
  // kernels still called from main stay, the others go.
  void sameKernelTwice() {
    std::string grouped = R"(
    @R.function(private=True)
    def fused_exp_exp(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        R.func_attr({"Primitive": True})
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.exp, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = cls.fused_exp_exp(x)
            gv = R.call_tir(cls.opaque_copy, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv
)";
    std::string expected = std::string(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def fused_exp_exp(x: T.Buffer((T.int64(4), T.int64(16)), "float32"), out: T.Buffer((T.int64(4), T.int64(16)), "float32")):
        T.func_attr({"tirx.noalias": True})
        mid = T.sblock_alloc_buffer((T.int64(4), T.int64(16)))
        for i, j in T.grid(4, 16):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                mid[vi, vj] = T.exp(x[vi, vj])
        for i, j in T.grid(4, 16):
            with T.sblock("compute_1"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = T.exp(mid[vi, vj])
)") + kOpaqueCopy + R"(
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.fused_exp_exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.opaque_copy, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv
)";
    ir::IRModule before = Parse(ModuleOf({kExp, kOpaqueCopy}, grouped));
    ir::IRModule after = transform::FuseTIR()(before);
    FUSE_COMPARE_MODULES(after, Parse(expected));
    CheckWellFormed(after);
    CheckSemantics(before, after);
    std::string text = script::PrintModule(after);
    QVERIFY2(text.find("T.sblock(\"compute_1\")") != std::string::npos, text.c_str());
  }

  // The whole chain through the pass registry, on each FuseOps fixture shape: meaning kept,
  // every Primitive function gone, the module well formed.
  void pipelineKeepsMeaning_data() {
    QTest::addColumn<QString>("text");
    std::string diamond = ModuleOf({kMatmul, kRelu, kNeg, kAdd}, R"(
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
)");
    std::string chains = ModuleOf({kTranspose, kExpT, kExp, kSum, kOpaqueCopy, kRelu, kAdd}, R"(
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tuple(R.Tensor((16, 4), dtype="float32"), R.Tensor((4,), dtype="float32"), R.Tensor((4, 16), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.transpose, (x,), out_ty=R.Tensor((16, 4), dtype="float32"))
            gv = R.call_tir(cls.exp_t, (lv,), out_ty=R.Tensor((16, 4), dtype="float32"))
            lv1 = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv1 = R.call_tir(cls.sum, (lv1,), out_ty=R.Tensor((4,), dtype="float32"))
            lv2 = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv3 = R.call_tir(cls.opaque_copy, (lv1,), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv2 = R.call_tir(cls.add, (lv2, lv3), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv, gv1, gv2)
        return (gv, gv1, gv2)
)");
    QTest::newRow("mlp") << QString::fromStdString(ModuleOf({kMatmul, kBiasAdd, kRelu}, R"(
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32"), b: R.Tensor((16,), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((4, 16), dtype="float32"))
            lv1 = R.call_tir(cls.bias_add, (lv, b), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv
)"));
    QTest::newRow("diamond") << QString::fromStdString(diamond);
    QTest::newRow("constant") << QString::fromStdString(ModuleOf({}, R"(
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

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.scale, (x, R.const(0.5, "float32")), out_ty=R.Tensor((4, 16), dtype="float32"))
            gv = R.call_tir(cls.exp, (lv,), out_ty=R.Tensor((4, 16), dtype="float32"))
            R.output(gv)
        return gv
)"));
    // A kernel with two results, taken apart by tuple items inside the group.
    QTest::newRow("tuple_results") << QString::fromStdString(ModuleOf({}, R"(
    @T.prim_func(private=True)
    def split_half(A: T.Buffer((4, 16), "float32"), lo: T.Buffer((2, 16), "float32"), hi: T.Buffer((2, 16), "float32")):
        T.func_attr({"op_pattern": 2})
        for i, j in T.grid(2, 16):
            with T.sblock("lo"):
                vi, vj = T.axis.remap("SS", [i, j])
                lo[vi, vj] = A[vi, vj]
        for i, j in T.grid(2, 16):
            with T.sblock("hi"):
                vi, vj = T.axis.remap("SS", [i, j])
                hi[vi, vj] = A[vi + 2, vj]

    @T.prim_func(private=True)
    def sub_half(A: T.Buffer((2, 16), "float32"), B: T.Buffer((2, 16), "float32"), C: T.Buffer((2, 16), "float32")):
        T.func_attr({"op_pattern": 0})
        for i, j in T.grid(2, 16):
            with T.sblock("T_subtract"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] - B[vi, vj]

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((2, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.split_half, (x,), out_ty=[R.Tensor((2, 16), dtype="float32"), R.Tensor((2, 16), dtype="float32")])
            lv1 = lv[0]
            lv2 = lv[1]
            gv = R.call_tir(cls.sub_half, (lv2, lv1), out_ty=R.Tensor((2, 16), dtype="float32"))
            R.output(gv)
        return gv
)"));
    QTest::newRow("chains") << QString::fromStdString(chains);
  }

  void pipelineKeepsMeaning() {
    QFETCH(QString, text);
    ir::IRModule before = Parse(text.toStdString());
    QVERIFY(before.defined());
    DiagnosticList diags;
    auto pipeline = transform::BuildPipeline("FuseOps(fuse_opt_level=2), FuseTIR", diags);
    QVERIFY(pipeline.has_value());
    ir::IRModule after = (*pipeline)(before);
    CheckWellFormed(after);
    CheckSemantics(before, after);
    // What FuseTIR makes prints as TVMScript that parses back to the same module.
    FUSE_COMPARE_MODULES(Parse(script::PrintModule(after)), after);
    for (const auto& f : after->functions) {
      auto* func = f.as<relax::FunctionNode>();
      QVERIFY2(!func || !func->GetAttr("Primitive"), script::PrintModule(after).c_str());
    }
    QVERIFY(after->size() < before->size() + 2);
    if (QString(QTest::currentDataTag()) == "tuple_results") {
      QCOMPARE(QString::fromStdString(JoinNames(FunctionNames(after))),
               QString("fused_split_half_sub_half, main"));
    }
  }

  // Symbolic shapes: the group and the fused kernel get their own `n`, matched against each
  // kernel's own shape var (n in one, m in the other).
  void symbolicShapes() {
    const char* before = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def exp_dyn(a: T.handle, c: T.handle):
        T.func_attr({"op_pattern": 0})
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(16)))
        C = T.match_buffer(c, (n, T.int64(16)))
        for i, j in T.grid(n, T.int64(16)):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.exp(A[vi, vj])

    @T.prim_func(private=True)
    def relu_dyn(a: T.handle, c: T.handle):
        T.func_attr({"op_pattern": 0})
        m = T.int64()
        A = T.match_buffer(a, (m, T.int64(16)))
        C = T.match_buffer(c, (m, T.int64(16)))
        for i, j in T.grid(m, T.int64(16)):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(A[vi, vj], T.float32(0.0))

    @R.function
    def main(x: R.Tensor(("n", 16), dtype="float32")) -> R.Tensor(("n", 16), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.exp_dyn, (x,), out_ty=R.Tensor((n, 16), dtype="float32"))
            gv = R.call_tir(cls.relu_dyn, (lv,), out_ty=R.Tensor((n, 16), dtype="float32"))
            R.output(gv)
        return gv
)";
    const char* expected = R"(
@I.ir_module
class Module:
    n = TypeVar("n")
    @T.prim_func(private=True, s_tir=True)
    def fused_exp_dyn_relu_dyn(x: T.Buffer((n, T.int64(16)), "float32"), out: T.Buffer((n, T.int64(16)), "float32")):
        T.func_attr({"tirx.noalias": True})
        mid = T.sblock_alloc_buffer((n, T.int64(16)))
        for i, j in T.grid(n, T.int64(16)):
            with T.sblock("compute"):
                vi, vj = T.axis.remap("SS", [i, j])
                mid[vi, vj] = T.exp(x[vi, vj])
        for i, j in T.grid(n, T.int64(16)):
            with T.sblock("compute_1"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = T.max(mid[vi, vj], T.float32(0.0))

    n = TypeVar("n")
    @R.function
    def main(x: R.Tensor((n, 16), dtype="float32")) -> R.Tensor((n, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.fused_exp_dyn_relu_dyn, (x,), out_ty=R.Tensor((n, 16), dtype="float32"))
            R.output(gv)
        return gv
)";
    DiagnosticList diags;
    auto pipeline = transform::BuildPipeline("FuseOps, FuseTIR", diags);
    QVERIFY(pipeline.has_value());
    ir::IRModule after = (*pipeline)(Parse(before));
    FUSE_COMPARE_MODULES(after, Parse(expected));
    CheckWellFormed(after);
    // The fused kernel's n is its own, not main's.
    auto kernel = ir::Downcast<tir::PrimFuncNode>(after->Lookup("fused_exp_dyn_relu_dyn"));
    auto main = ir::Downcast<relax::FunctionNode>(after->Lookup("main"));
    const ir::PrimExpr& kernel_n = kernel->buffer_map[0]->shape[0];
    const ir::PrimExpr& main_n =
        (*main->params[0]->struct_info.as<relax::TensorTypeNode>()->shape)[0];
    QVERIFY(kernel_n.as<tir::VarNode>() && main_n.as<tir::VarNode>());
    QVERIFY(!kernel_n.same_as(main_n));
  }

  // Kernels without blocks (the corpus MLP, written by hand): the analysis calls them
  // elementwise as TVM's does, all three fuse, and the intermediates become T.alloc_buffer
  // statements of a plain (not s_tir) function that computes the same.
  void kernelsWithoutBlocks() {
    QFile file(QString(qgetenv("WB_SOURCE_DIR")) + "/tests/script/corpus/relax/01_mlp_call_tir.py");
    QVERIFY(file.open(QIODevice::ReadOnly));
    ir::IRModule before = Parse(file.readAll().toStdString());
    QVERIFY(before.defined());
    DiagnosticList diags;
    auto pipeline = transform::BuildPipeline("AnnotateTIROpPattern, FuseOps, FuseTIR", diags);
    QVERIFY(pipeline.has_value());
    ir::IRModule after = (*pipeline)(before);
    QCOMPARE(QString::fromStdString(JoinNames(FunctionNames(after))),
             QString("fused_dense_bias0_relu_dense_bias1, main"));
    auto kernel =
        ir::Downcast<tir::PrimFuncNode>(after->Lookup("fused_dense_bias0_relu_dense_bias1"));
    QVERIFY(!kernel->GetAttr("s_tir"));
    auto* seq = kernel->body.as<tir::SeqStmtNode>();
    QVERIFY(seq && seq->seq.size() == 5);
    QVERIFY(seq->seq[0].as<tir::AllocBufferNode>() && seq->seq[1].as<tir::AllocBufferNode>());
    CheckWellFormed(after);
    CheckSemantics(before, after);
    FUSE_COMPARE_MODULES(Parse(script::PrintModule(after)), after);
  }

  void unsupportedBindingIsAPassError() {
    std::string grouped = R"(
    @R.function(private=True)
    def fused_bad(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        R.func_attr({"Primitive": True})
        with R.dataflow():
            gv = R.add(x, x)
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            gv = cls.fused_bad(x)
            R.output(gv)
        return gv
)";
    ir::IRModule before = Parse(ModuleOf({}, grouped));
    QVERIFY(before.defined());
    try {
      transform::FuseTIR()(before);
      QFAIL("FuseTIR accepted a Primitive function with a Relax op call");
    } catch (const ir::PassError& e) {
      QVERIFY2(std::string(e.what()).find("only call_tir") != std::string::npos, e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestFuseTIR)
#include "tst_fuse_tir.moc"
