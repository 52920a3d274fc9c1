// The default GPU schedules (core/dlight/gpu): for each Relax program's kernels (legalized, and
// fused where the case says), the rule that applies, and for every scheduled kernel: its trace
// replays to the same function, the interpreter (which runs GPU-bound TIR, blocks one after
// another and the threads of a block as a team) computes the same as on the unscheduled kernel
// on random inputs, every block is bound to GPU threads, and it builds for cuda (NVRTC to PTX).
// No GPU is needed; the GPU check runs the bundled Relax model built this way.
#include <QTest>

#include <cctype>
#include <set>

#include "codegen/build_cuda.h"
#include "codegen/cuda/codegen_cuda.h"
#include "dlight/gpu/rules.h"
#include "ir/structural_equal.h"
#include "schedule/recipe.h"
#include "script/tvmscript.h"
#include "tir/functor.h"
#include "transform/registry.h"
#include "workbench/equivalence.h"

using namespace wb;

namespace {

std::string Dims(const std::vector<std::string>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i];
  return s + (dims.size() == 1 ? ",)" : ")");
}

// A Relax main over `params` (name -> static dims) binding `lines` in a dataflow block,
// returning gv.
std::string Program(const std::vector<std::pair<std::string, std::vector<std::string>>>& params,
                    const std::vector<std::string>& lines) {
  std::string s = "@I.ir_module\nclass Module:\n    @R.function\n    def main(";
  for (size_t i = 0; i < params.size(); ++i) {
    s += (i ? ", " : "") + params[i].first + ": R.Tensor(" + Dims(params[i].second) + ", dtype=\"float32\")";
  }
  s += "):\n        with R.dataflow():\n";
  for (const auto& l : lines) s += "            " + l + "\n";
  return s + "            R.output(gv)\n        return gv\n";
}

std::vector<tir::PrimFunc> Kernels(const std::string& relax, bool fuse) {
  script::ParseResult parsed = script::Parse(relax, "case.py");
  if (!parsed.ok()) qFatal("parse: %s\n%s", RenderDiagnostics(parsed.diagnostics).c_str(), relax.c_str());
  DiagnosticList diags;
  auto pipeline =
      transform::BuildPipeline(fuse ? "LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR" : "LegalizeOps", diags);
  if (!pipeline) qFatal("pipeline");
  ir::IRModule lowered = (*pipeline)(parsed.module);
  std::vector<tir::PrimFunc> out;
  for (const auto& f : lowered->functions) {
    if (auto p = f.as_ref<tir::PrimFuncNode>(); p.defined()) out.push_back(p);
  }
  return out;
}

codegen::Target Cuda() {
  std::string error;
  auto t = codegen::ParseTarget("cuda -arch=sm_90", &error);
  if (!t) qFatal("target: %s", error.c_str());
  return *t;
}

// Every block of `f` with iterators sits under a threadIdx-bound loop.
class BoundChecker : public tir::StmtVisitor {
 public:
  bool ok = true;

  void VisitStmt_(const tir::ForNode* op) override {
    const bool thread = op->kind == tir::ForKind::kThreadBinding && op->thread_binding.defined() &&
                        op->thread_binding->thread_tag.rfind("threadIdx", 0) == 0;
    bound_ += thread;
    tir::StmtVisitor::VisitStmt_(op);
    bound_ -= thread;
  }
  void VisitStmt_(const tir::SBlockNode* op) override {
    if (bound_ == 0 && op->name_hint != "root" && !op->iter_vars.empty()) ok = false;
    tir::StmtVisitor::VisitStmt_(op);
  }

 private:
  int bound_ = 0;
};

bool EveryBlockBound(const tir::PrimFunc& f) {
  BoundChecker checker;
  checker(f->body);
  return checker.ok;
}

// The rule that scheduled `func` after every check passed, "" (with a warning) otherwise.
std::string Check(const tir::PrimFunc& func) {
  std::optional<dlight::AppliedRule> applied = dlight::ApplyRules(func, Cuda(), dlight::gpu::DefaultRules());
  if (!applied) return "none";
  const schedule::Schedule& sch = applied->schedule;
  std::string recipe = sch.trace().AsPython();
  ir::IRModule before = dlight::SingleFunctionModule(func);
  schedule::Schedule replay(before);
  DiagnosticList diags = schedule::ApplyRecipe(replay, recipe);
  if (!diags.empty() || !ir::StructuralEqual(replay.mod(), sch.mod())) {
    qWarning("the trace does not replay:\n%s", recipe.c_str());
    return "";
  }
  if (!EveryBlockBound(sch.Func())) {
    qWarning("%s left a block unbound:\n%s", applied->rule.c_str(), script::PrintModule(sch.mod()).c_str());
    return "";
  }
  for (const auto& check : workbench::CheckEquivalence(before, sch.mod(), {})) {
    if (check.outcome != workbench::FunctionCheck::Outcome::kEqual) {
      qWarning("%s: interpreter: %s: %s\n%s", applied->rule.c_str(), workbench::OutcomeName(check.outcome),
               check.detail.c_str(), script::PrintModule(sch.mod()).c_str());
      return "";
    }
  }
  if (codegen::NvrtcAvailable()) {
    codegen::BuildResult built = codegen::Build(sch.mod(), Cuda());
    if (!built.ok()) {
      qWarning("%s: the cuda build failed: %s\n%s", applied->rule.c_str(), RenderDiagnostics(built.diagnostics).c_str(),
               script::PrintModule(sch.mod()).c_str());
      return "";
    }
  }
  return applied->rule;
}

// The rules of every kernel of `relax`, joined by "+".
std::string Rules(const std::string& relax, bool fuse) {
  std::string out;
  for (const auto& k : Kernels(relax, fuse)) out += (out.empty() ? "" : "+") + Check(k);
  return out;
}

}  // namespace

class TstDlightGpu : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void matmul_data() {
    QTest::addColumn<QString>("m");
    QTest::addColumn<QString>("k");
    QTest::addColumn<QString>("n");
    QTest::newRow("64x64x64") << "64" << "64" << "64";
    QTest::newRow("mlp 8x32x64") << "8" << "32" << "64";
    QTest::newRow("mlp 8x64x10") << "8" << "64" << "10";
    QTest::newRow("odd 6x5x12") << "6" << "5" << "12";
    QTest::newRow("128x24x96") << "128" << "24" << "96";
  }
  void matmul() {
    QFETCH(QString, m);
    QFETCH(QString, k);
    QFETCH(QString, n);
    std::string relax = Program({{"x", {m.toStdString(), k.toStdString()}}, {"w", {k.toStdString(), n.toStdString()}}},
                                {"gv = R.matmul(x, w)"});
    QCOMPARE(Rules(relax, false), std::string("Matmul"));
  }

  void batchMatmul() {
    std::string relax = Program({{"x", {"2", "16", "8"}}, {"w", {"2", "8", "24"}}}, {"gv = R.matmul(x, w)"});
    QCOMPARE(Rules(relax, false), std::string("Matmul"));
  }

  void matmulWithItsEpilogueFused() {
    std::string relax = Program({{"x", {"32", "16"}}, {"w", {"16", "64"}}, {"b", {"64"}}},
                                {"lv = R.matmul(x, w)", "lv1 = R.add(lv, b)", "gv = R.nn.relu(lv1)"});
    QCOMPARE(Rules(relax, true), std::string("Matmul"));
  }

  void elementwise_data() {
    QTest::addColumn<QString>("dims");
    QTest::newRow("1000") << "1000";
    QTest::newRow("64x128") << "64,128";
    QTest::newRow("3") << "3";
  }
  void elementwise() {
    QFETCH(QString, dims);
    std::vector<std::string> d;
    for (const QString& s : dims.split(',')) d.push_back(s.toStdString());
    std::string relax = Program({{"x", d}, {"y", d}}, {"lv = R.add(x, y)", "gv = R.nn.relu(lv)"});
    QCOMPARE(Rules(relax, true), std::string("Elementwise"));
  }
};

QTEST_APPLESS_MAIN(TstDlightGpu)
#include "tst_dlight_gpu.moc"
