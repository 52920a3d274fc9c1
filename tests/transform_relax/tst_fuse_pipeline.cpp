// End to end: a two-layer MLP and a small conv net written with Relax ops go through
// LegalizeOps, AnnotateTIROpPattern, FuseOps and FuseTIR. The fused structure is asserted (the
// matmul, its bias add and the relu in one PrimFunc; the conv with its bias and relu in one),
// and the fused module computes what the legalized, unfused one computes, through the
// reference interpreter on seeded random inputs.

#include <QTest>

#include "fuse_test_util.h"
#include "tir/functor.h"
#include "tir/verifier.h"
#include "transform/registry.h"

using namespace wb;
using namespace fuse_test;

namespace {

const char* kMlp = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 16), dtype="float32"), w0: R.Tensor((16, 8), dtype="float32"), b0: R.Tensor((8,), dtype="float32"), w1: R.Tensor((8, 4), dtype="float32"), b1: R.Tensor((4,), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        with R.dataflow():
            lv = R.matmul(x, w0)
            lv1 = R.add(lv, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, w1)
            gv = R.add(lv3, b1)
            R.output(gv)
        return gv
)";

const char* kConvNet = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32"), b: R.Tensor((1, 4, 1, 1), dtype="float32"), fc: R.Tensor((256, 10), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        with R.dataflow():
            lv = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            lv1 = R.add(lv, b)
            lv2 = R.nn.relu(lv1)
            lv3 = R.reshape(lv2, R.shape([1, 256]))
            gv = R.matmul(lv3, fc)
            R.output(gv)
        return gv
)";

// A repeated operand (x * x), an elementwise chain into a reduction, and softmax (a
// reduction followed by its normalizing stage) taking an elementwise epilogue.
const char* kReductions = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2, 8), dtype="float32")):
        with R.dataflow():
            a = R.multiply(x, x)
            b = R.exp(a)
            c = R.sum(b, axis=[1])
            d = R.nn.softmax(x)
            e = R.nn.relu(d)
            R.output(c, e)
        return (c, e)
)";

ir::IRModule RunPipeline(const ir::IRModule& module, const char* text) {
  DiagnosticList diags;
  auto pipeline = transform::BuildPipeline(text, diags);
  if (!pipeline) {
    std::string all;
    for (const auto& d : diags) all += d.message + "\n";
    qWarning("%s", all.c_str());
    return {};
  }
  return (*pipeline)(module);
}

// The names of the non-root blocks of a PrimFunc, in order.
std::vector<std::string> BlockNames(const tir::PrimFunc& func) {
  std::vector<std::string> names;
  tir::PostOrderVisit(func->body, [&](const ir::Object* node) {
    if (auto* block = ir::ObjectRef(node).as<tir::SBlockNode>()) {
      if (block->name_hint != "root") names.push_back(block->name_hint);
    }
  });
  return names;
}

// How many bindings of main call call_tir.
int CallTIRCount(const ir::IRModule& module) {
  auto main = ir::Downcast<relax::FunctionNode>(module->Lookup("main"));
  int count = 0;
  for (const auto& block : main->body.as<relax::SeqExprNode>()->blocks) {
    for (const auto& b : block->bindings) {
      auto* call = b.as<relax::VarBindingNode>()->value.as<relax::CallNode>();
      auto* op = call ? call->op.as<ir::OpNode>() : nullptr;
      if (op && op->name == "relax.call_tir") ++count;
    }
  }
  return count;
}

std::string PrimFuncNames(const ir::IRModule& module) {
  std::string out;
  for (size_t i = 0; i < module->size(); ++i) {
    if (module->functions[i].as<tir::PrimFuncNode>()) {
      out += (out.empty() ? "" : ", ") + module->global_vars[i]->name_hint;
    }
  }
  return out;
}

}  // namespace

class TestFusePipeline : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void mlp() {
    ir::IRModule model = Parse(kMlp);
    QVERIFY(model.defined());
    ir::IRModule legalized = RunPipeline(model, "LegalizeOps");
    ir::IRModule fused = RunPipeline(model, "LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR");
    QVERIFY(legalized.defined() && fused.defined());
    std::string printed = script::PrintModule(fused);

    // Two kernels remain: each layer's matmul with its bias add (and the first one's relu).
    QCOMPARE(QString::fromStdString(PrimFuncNames(fused)),
             QString("fused_matmul1_add1, fused_matmul_add_relu"));
    auto layer0 = ir::Downcast<tir::PrimFuncNode>(fused->Lookup("fused_matmul_add_relu"));
    std::vector<std::string> blocks = BlockNames(layer0);
    std::vector<std::string> expected_blocks = {"matmul", "T_add", "compute"};
    QVERIFY2(blocks == expected_blocks, printed.c_str());
    QCOMPARE(CallTIRCount(fused), 2);
    QVERIFY2(!tir::VerifyWellFormed(fused).HasErrors(), printed.c_str());
    FUSE_COMPARE_MODULES(Parse(printed), fused);
    for (uint64_t seed : {3u, 4u}) {
      std::string why = CompareMain(legalized, fused, seed);
      QVERIFY2(why.empty(), (why + "\n" + printed).c_str());
    }
  }

  void convNet() {
    ir::IRModule model = Parse(kConvNet);
    QVERIFY(model.defined());
    ir::IRModule legalized = RunPipeline(model, "LegalizeOps");
    ir::IRModule fused = RunPipeline(model, "LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR");
    QVERIFY(legalized.defined() && fused.defined());
    std::string printed = script::PrintModule(fused);

    // The conv (with its padding stage), its bias add and the relu form one kernel; the
    // reshape (injective, feeding a matmul) and the matmul stay apart.
    QCOMPARE(QString::fromStdString(PrimFuncNames(fused)),
             QString("fused_conv2d_add_relu, matmul, reshape"));
    auto conv = ir::Downcast<tir::PrimFuncNode>(fused->Lookup("fused_conv2d_add_relu"));
    std::vector<std::string> blocks = BlockNames(conv);
    std::vector<std::string> expected_blocks = {"pad_temp", "conv2d_nchw", "T_add", "compute"};
    QVERIFY2(blocks == expected_blocks, printed.c_str());
    // The kernel's own pad buffer, then the conv result, then the add result.
    auto* root = conv->body.as<tir::SBlockRealizeNode>();
    QVERIFY(root);
    std::vector<std::string> allocs;
    for (const auto& b : root->block->alloc_buffers) allocs.push_back(b->name);
    std::vector<std::string> expected_allocs = {"pad_temp", "conv2d_nchw_intermediate",
                                                "T_add_intermediate"};
    QVERIFY2(allocs == expected_allocs, printed.c_str());
    QCOMPARE(CallTIRCount(fused), 3);
    QCOMPARE(CallTIRCount(legalized), 5);
    QVERIFY2(!tir::VerifyWellFormed(fused).HasErrors(), printed.c_str());
    FUSE_COMPARE_MODULES(Parse(printed), fused);
    std::string why = CompareMain(legalized, fused, 5);
    QVERIFY2(why.empty(), (why + "\n" + printed).c_str());
  }
  void reductions() {
    ir::IRModule model = Parse(kReductions);
    QVERIFY(model.defined());
    ir::IRModule legalized = RunPipeline(model, "LegalizeOps");
    ir::IRModule fused = RunPipeline(model, "LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR");
    QVERIFY(legalized.defined() && fused.defined());
    std::string printed = script::PrintModule(fused);
    QCOMPARE(QString::fromStdString(PrimFuncNames(fused)),
             QString("fused_multiply_exp_sum, fused_softmax_relu"));
    QCOMPARE(CallTIRCount(fused), 2);
    QVERIFY2(!tir::VerifyWellFormed(fused).HasErrors(), printed.c_str());
    FUSE_COMPARE_MODULES(Parse(printed), fused);
    for (uint64_t seed : {6u, 7u}) {
      std::string why = CompareMain(legalized, fused, seed);
      QVERIFY2(why.empty(), (why + "\n" + printed).c_str());
    }
  }
};

QTEST_APPLESS_MAIN(TestFusePipeline)
#include "tst_fuse_pipeline.moc"
