// Linked views across levels, with the real widgets offscreen: the cursor on a Relax binding
// highlights its kernel's lines in the LLVM IR and assembly views and in the built module, and
// shows the kernel in the schedule tree; the cursor on an assembly line marks the built module's
// statement and the document's binding; a module that does not build links nothing and says so.
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QTextBlock>
#include <QTreeWidget>

#include "build_panel.h"
#include "code_editor.h"
#include "main_window.h"
#include "schedule_pane.h"
#include "workbench/source_links.h"

using wb::app::BuildPanel;
using wb::app::MainWindow;

namespace {

// A legalized matmul and add, and a relu written in the module and called by call_tir.
const char* kModel = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def relu(x: T.Buffer((64, 64), "float32"), y: T.Buffer((64, 64), "float32")):
        for i, j in T.grid(64, 64):
            with T.sblock("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(x[vi, vj])
                T.writes(y[vi, vj])
                y[vi, vj] = T.max(x[vi, vj], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((64, 64), dtype="float32"), w: R.Tensor((64, 64), dtype="float32")) -> R.Tensor((64, 64), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((64, 64), dtype="float32") = R.matmul(x, w, out_dtype="void")
            lv1 = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((64, 64), dtype="float32"))
            gv: R.Tensor((64, 64), dtype="float32") = R.add(lv1, x)
            R.output(gv)
        return gv
)";
constexpr int kMatmulLine = 20;
constexpr int kCallTirLine = 21;

const char* kMatmul = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(64, 64, 64):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kTile = R"(b0 = sch.get_sblock(name="C", func_name="main")
l1, l2, l3 = sch.get_loops(block=b0)
l4, l5 = sch.split(loop=l1, factors=[None, 32])
l6, l7 = sch.split(loop=l2, factors=[None, 32])
sch.reorder(l4, l6, l5, l3, l7)
sch.parallel(loop=l4)
sch.vectorize(loop=l7)
)";

const char* kThreadBound = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in T.thread_binding(64, thread="threadIdx.x"):
        A[i] = T.float32(1.0)
)";

QByteArray Why(BuildPanel* b) { return b->statusLabel()->text().toUtf8(); }

bool BuildAndWait(BuildPanel* b) {
  if (!b->Build()) return false;
  return b->WaitForJob(120000);
}

void PutCursorOnLine(QPlainTextEdit* view, int line0) {
  view->setTextCursor(QTextCursor(view->document()->findBlockByNumber(line0)));
}

QString LineText(QPlainTextEdit* view, int line0) {
  return view->document()->findBlockByNumber(line0).text();
}

}  // namespace

class TestGuiLinks : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }
  void cleanupTestCase() { QSettings().clear(); }

  void cursorOnABindingHighlightsItsKernelsLines() {
    MainWindow w;
    w.SetText(kModel, "model.py");
    w.show();
    BuildPanel* b = w.build();
    QVERIFY(b->SelectTarget("llvm"));
    QVERIFY2(BuildAndWait(b), Why(b).constData());
    QVERIFY2(b->session().build() && b->session().build()->ok(), Why(b).constData());
    const auto& links = b->session().build()->links;
    QVERIFY2(links, Why(b).constData());
    QVERIFY(b->printedView()->toPlainText().contains("def matmul("));

    // The matmul binding: LegalizeOps made its PrimFunc.
    PutCursorOnLine(w.editor(), kMatmulLine - 1);
    QVERIFY2(b->statusLabel()->text().contains("matmul"), Why(b).constData());
    QList<int> assembly = b->linkedLines(b->assemblyView());
    QList<int> ir = b->linkedLines(b->irView());
    QVERIFY(!assembly.isEmpty() && !ir.isEmpty());
    for (int line : assembly) {
      auto origin = links->OriginOfViewLine(line, wb::codegen::SourceMapFormat::kAssembly);
      QVERIFY(origin && origin->kernel == "matmul");
    }
    for (int line : ir) {
      auto origin = links->OriginOfViewLine(line, wb::codegen::SourceMapFormat::kLLVMIR);
      QVERIFY(origin && origin->kernel == "matmul");
    }
    // Its multiply-adds are among them.
    bool fma = false;
    for (int line : assembly)
      fma |= LineText(b->assemblyView(), line)
                 .contains(QRegularExpression("\\b(v?fmadd\\w*|fmla|v?mulps|v?mulss)\\b"));
    QVERIFY(fma);
    QList<int> printed = b->linkedLines(b->printedView());
    QVERIFY(!printed.isEmpty());
    QVERIFY(LineText(b->printedView(), printed.front()).contains("def matmul(") ||
            LineText(b->printedView(), printed.front()).contains("@T.prim_func"));

    // The call_tir binding: relu, written in the module, is shown in the schedule tree.
    PutCursorOnLine(w.editor(), kCallTirLine - 1);
    QVERIFY2(b->statusLabel()->text().contains("relu"), Why(b).constData());
    assembly = b->linkedLines(b->assemblyView());
    QVERIFY(!assembly.isEmpty());
    bool max = false;
    for (int line : assembly) max |= LineText(b->assemblyView(), line).contains("max");
    QVERIFY(max);
    wb::app::SchedulePane* s = w.schedule();
    QCOMPARE(s->functionBox()->currentText(), QString("relu"));
    QVERIFY(s->tree()->currentItem());
    QCOMPARE(s->tree()->currentItem()->text(0), QString("i"));

    // A line that calls nothing: nothing highlighted.
    PutCursorOnLine(w.editor(), 17);
    QVERIFY(b->linkedLines(b->assemblyView()).isEmpty());
    QVERIFY(b->statusLabel()->text().contains("calls no kernel"));

    // Back from the assembly: a line of relu marks its call_tir binding in the editor.
    int relu_line = -1;
    for (int line : links->ViewLines("relu", wb::codegen::SourceMapFormat::kAssembly)) {
      if (LineText(b->assemblyView(), line).contains("max")) relu_line = line;
    }
    QVERIFY(relu_line >= 0);
    PutCursorOnLine(b->assemblyView(), relu_line);
    QCOMPARE(w.editor()->linkedLines(), QList<int>{kCallTirLine});
    QList<int> statement = b->linkedLines(b->printedView());
    QCOMPARE(statement.size(), 1);
    QVERIFY2(LineText(b->printedView(), statement.front()).contains("T.max("),
             qPrintable(LineText(b->printedView(), statement.front())));
  }

  void clickingTheHotLoopsFmaSelectsTheBlockBody() {
    MainWindow w;
    w.SetText(kMatmul, "matmul.py");
    w.show();
    wb::app::SchedulePane* s = w.schedule();
    QVERIFY2(s->LoadRecipeText(kTile), qPrintable(s->messageLabel()->text()));
    BuildPanel* b = w.build();
    QVERIFY(b->SelectTarget("llvm"));
    QVERIFY2(BuildAndWait(b), Why(b).constData());
    QPlainTextEdit* assembly = b->assemblyView();
    int fma = -1;
    for (int i = 0; i < assembly->blockCount(); ++i) {
      if (LineText(assembly, i)
              .contains(QRegularExpression("^\\s+(vfmadd\\w*|fmla|vmulps|mulps)\\s"))) {
        fma = i;
        break;
      }
    }
    QVERIFY2(fma >= 0, qPrintable(assembly->toPlainText()));
    PutCursorOnLine(assembly, fma);
    QList<int> statement = b->linkedLines(b->printedView());
    QCOMPARE(statement.size(), 1);
    QString body = LineText(b->printedView(), statement.front());
    QVERIFY2(body.contains(QRegularExpression("C\\[.*\\] = C\\[.*\\] \\+ A\\[.*\\] \\* B\\[")),
             qPrintable(body));
    QCOMPARE(b->printedView()->textCursor().blockNumber(), statement.front());
    // A module of PrimFuncs has no binding: the kernel's definition (its `def` line) is marked in
    // the editor.
    QCOMPARE(w.editor()->linkedLines(), QList<int>{7});
  }

  void aModuleThatDoesNotBuildLinksNothing() {
    MainWindow w;
    w.SetText(kThreadBound, "gpu.py");
    w.show();
    BuildPanel* b = w.build();
    QVERIFY(b->SelectTarget("llvm"));
    QVERIFY(BuildAndWait(b));
    QVERIFY2(b->statusLabel()->text().startsWith("Build failed"), Why(b).constData());
    PutCursorOnLine(w.editor(), 4);
    QCOMPARE(b->statusLabel()->text(), QString("No linked views: the last build failed"));
    for (QPlainTextEdit* view : {b->irView(), b->assemblyView(), b->printedView()}) {
      QVERIFY(b->linkedLines(view).isEmpty());
    }
    QVERIFY(w.editor()->linkedLines().isEmpty());
  }
};

QTEST_MAIN(TestGuiLinks)
#include "tst_gui_links.moc"
