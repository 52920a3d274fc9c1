// The schedule pane, the "changed functions only" pass filter, workspaces and recent files,
// driven through the real widgets offscreen.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "code_editor.h"
#include "testing/testing_passes.h"
#include "main_window.h"
#include "pass_explorer.h"
#include "schedule_pane.h"

using wb::app::MainWindow;
using wb::app::SchedulePane;

namespace {

QAction* FindAction(QMenu* menu, const QString& prefix) {
  for (QAction* a : menu->actions()) {
    if (a->text().startsWith(prefix)) return a;
  }
  return nullptr;
}

// Triggers the context-menu entry `prefix` on the tree node `node`.
bool Trigger(SchedulePane* pane, const QString& node, const QString& prefix) {
  if (!pane->SelectNode(node)) return false;
  std::unique_ptr<QMenu> menu(pane->ContextMenu());
  QAction* action = FindAction(menu.get(), prefix);
  if (!action) return false;
  action->trigger();
  return true;
}

QStringList TreeNames(QTreeWidget* tree) {
  QStringList out;
  for (QTreeWidgetItemIterator it(tree); *it; ++it) out << (*it)->text(0);
  return out;
}

const char* kTwoFunctions = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def reduce(A: T.Buffer((8,), "float32"), B: T.Buffer((1,), "float32")):
        for k in range(8):
            with T.sblock("B"):
                vk = T.axis.reduce(8, k)
                with T.init():
                    B[0] = T.float32(0.0)
                B[0] = B[0] + A[vk]

    @T.prim_func
    def copy(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i]
)";

// A matmul into an allocated C, then a relu into D: producer and consumer for compute_at.
const char* kMatmulRelu = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
        C = T.sblock_alloc_buffer((16, 16))
        for i, j, k in T.grid(16, 16, 16):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(16, 16):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0.0))
)";

QStringList ActionTexts(QMenu* menu) {
  QStringList out;
  for (QAction* a : menu->actions()) {
    if (!a->isSeparator()) out << a->text();
  }
  return out;
}

QStringList SectionTitles(QMenu* menu) {
  QStringList out;
  for (QAction* a : menu->actions()) {
    if (a->isSeparator() && !a->text().isEmpty()) out << a->text();
  }
  return out;
}

QStringList ComboLabels(QComboBox* combo) {
  QStringList out;
  for (int i = 0; i < combo->count(); ++i) out << combo->itemText(i);
  return out;
}

}  // namespace

class TestGuiSchedule : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // "Check each step" runs every step against the one before it in the background and marks the
  // one that changed the numbers (sch.testing_break_meaning() from tests/testing adds 1 to
  // every float store); a step already checked is not checked again after undo and redo.
  void checkEachStepMarksTheStepThatChangedMeaning() {
    MainWindow w;
    w.SetText(wb::transform::testing::kAddOneKernel, "add.py");
    SchedulePane* s = w.schedule();
    QVERIFY(Trigger(s, "i", "Split i"));
    s->argumentsEdit()->setText("None, 8");
    QVERIFY2(s->ApplyPanel(), qPrintable(s->messageLabel()->text()));
    QCOMPARE(s->stepCheck(0), QString());  // off: nothing checked
    QSignalSpy checked(s, &SchedulePane::stepsChecked);
    s->checkEachBox()->setChecked(true);
    QTRY_COMPARE_WITH_TIMEOUT(s->stepCheck(0), QString("equal"), 30000);
    QVERIFY2(s->stepList()->item(0)->text().startsWith(QStringLiteral("\u2713")),
             qPrintable(s->stepList()->item(0)->text()));

    QVERIFY2(s->ApplyStep("sch.testing_break_meaning()"), qPrintable(s->messageLabel()->text()));
    QTRY_COMPARE_WITH_TIMEOUT(s->stepCheck(1), QString("changed"), 30000);
    QVERIFY(checked.count() >= 2);
    QListWidgetItem* bad = s->stepList()->item(1);
    QVERIFY2(bad->text().startsWith(QStringLiteral("\u2717")), qPrintable(bad->text()));
    QVERIFY2(bad->toolTip().contains("max abs error 1"), qPrintable(bad->toolTip()));
    QVERIFY2(s->messageLabel()->text().contains("Step 2 changed what the function computes"),
             qPrintable(s->messageLabel()->text()));
    QCOMPARE(s->stepCheck(0), QString("equal"));

    // Undo then redo: the same step, its check remembered (no "pending" in between).
    QTest::mouseClick(s->undoButton(), Qt::LeftButton);
    QCOMPARE(s->stepList()->count(), 1);
    QCOMPARE(s->stepCheck(0), QString("equal"));
    QTest::mouseClick(s->redoButton(), Qt::LeftButton);
    QCOMPARE(s->stepCheck(1), QString("changed"));

    // Off: the marks go.
    s->checkEachBox()->setChecked(false);
    QVERIFY(!s->stepList()->item(1)->text().startsWith(QStringLiteral("\u2717")));
    QCOMPARE(s->stepCheck(1), QString());
  }

  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void theTreeShowsLoopsAndBlocks() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    w.show();
    w.tabs()->setCurrentWidget(w.schedule());
    SchedulePane* s = w.schedule();
    QStringList names = TreeNames(s->tree());
    QVERIFY2(
        names.contains("i") && names.contains("j") && names.contains("k") && names.contains("C"),
        qPrintable(names.join(",")));
    QVERIFY(s->SelectNode("k"));
    QCOMPARE(s->tree()->currentItem()->text(1), QString("serial"));
    QCOMPARE(s->tree()->currentItem()->text(2), QString("256"));
    QVERIFY(s->SelectNode("C"));
    QVERIFY2(s->tree()->currentItem()->text(3).contains("vk: reduce"),
             qPrintable(s->tree()->currentItem()->text(3)));
    QCOMPARE(s->functionBox()->currentText(), QString("main"));
    QVERIFY(!s->undoButton()->isEnabled());
  }

  void splitReorderVectorizeUndoRedo() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    SchedulePane* s = w.schedule();
    // Split j from the context menu: the panel gets the primitive and a suggestion to edit.
    QVERIFY(Trigger(s, "j", "Split j"));
    QCOMPARE(s->primitiveBox()->currentText(), QString("split"));
    s->argumentsEdit()->setText("None, 16");
    QTest::mouseClick(s->applyButton(), Qt::LeftButton);
    QVERIFY2(s->traceView()->toPlainText().contains("sch.split(loop=l"),
             qPrintable(s->messageLabel()->text()));
    QStringList names = TreeNames(s->tree());
    QVERIFY(names.contains("j_0") && names.contains("j_1"));
    QCOMPARE(s->stepList()->count(), 1);
    QVERIFY(s->beforePane()->toPlainText().contains("T.grid(256, 256, 256)"));
    QVERIFY(s->afterPane()->toPlainText().contains("j_1"));
    // Reorder: k outside j_1, typed in the panel.
    QVERIFY(s->SelectNode("j_1"));
    s->primitiveBox()->setCurrentText("reorder");
    s->argumentsEdit()->setText("k, j_1");
    QVERIFY2(s->ApplyPanel(), qPrintable(s->messageLabel()->text()));
    QVERIFY(s->traceView()->toPlainText().contains("sch.reorder("));
    // Vectorize the now innermost spatial loop j_1.
    QVERIFY(Trigger(s, "j_1", "Vectorize"));
    QVERIFY2(s->traceView()->toPlainText().contains("sch.vectorize("),
             qPrintable(s->messageLabel()->text()));
    QVERIFY(s->afterPane()->toPlainText().contains("T.vectorized(16)"));
    QCOMPARE(s->stepList()->count(), 3);
    // Undo drops the vectorize, redo brings it back.
    QTest::mouseClick(s->undoButton(), Qt::LeftButton);
    QCOMPARE(s->stepList()->count(), 2);
    QVERIFY(!s->traceView()->toPlainText().contains("sch.vectorize("));
    QVERIFY(s->redoButton()->isEnabled());
    QTest::mouseClick(s->redoButton(), Qt::LeftButton);
    QVERIFY(s->traceView()->toPlainText().contains("sch.vectorize("));
    // On a block, the loop primitives act on its innermost loop: unroll j_1 from block C.
    QVERIFY(Trigger(s, "C", "Unroll innermost loop j_1"));
    QVERIFY2(s->traceView()->toPlainText().contains("sch.unroll("),
             qPrintable(s->messageLabel()->text()));
    QCOMPARE(s->tree()->currentItem()->text(0), QString("j_1"));
    QTest::mouseClick(s->undoButton(), Qt::LeftButton);
    // Each step keeps its before/after: the first one shows the split.
    s->stepList()->setCurrentRow(0);
    QVERIFY(s->beforePane()->toPlainText().contains("T.grid(256, 256, 256)"));
    QVERIFY(!s->afterPane()->toPlainText().contains("T.vectorized"));
  }

  void aFailingPrimitiveShowsTheErrorAndChangesNothing() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    SchedulePane* s = w.schedule();
    QString trace = s->traceView()->toPlainText();
    QVERIFY(Trigger(s, "k", "Parallel"));
    QVERIFY2(s->messageLabel()->text().contains("ScheduleError"),
             qPrintable(s->messageLabel()->text()));
    QVERIFY(s->messageLabel()->styleSheet().contains("#c0392b"));
    QCOMPARE(s->stepList()->count(), 0);
    QCOMPARE(s->traceView()->toPlainText(), trace);
    // Bad arguments are messages too.
    QVERIFY(s->SelectNode("i"));
    s->primitiveBox()->setCurrentText("split");
    s->argumentsEdit()->setText("None, x");
    QVERIFY(!s->ApplyPanel());
    QVERIFY(s->messageLabel()->text().contains("'x'"));
    s->primitiveBox()->setCurrentText("fuse");
    s->argumentsEdit()->setText("i, nope");
    QVERIFY(!s->ApplyPanel());
    QVERIFY(s->messageLabel()->text().contains("'nope'"));
    QCOMPARE(s->stepList()->count(), 0);
  }

  void anyPrimitiveLine() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    SchedulePane* s = w.schedule();
    QVERIFY(s->SelectNode("i"));
    s->primitiveBox()->setCurrentText("any");
    s->argumentsEdit()->setText("sch.unroll(loop=loop)");
    QVERIFY2(s->ApplyPanel(), qPrintable(s->messageLabel()->text()));
    QVERIFY(s->afterPane()->toPlainText().contains("T.unroll(256)"));
    // A primitive this build does not have is named in the error.
    s->argumentsEdit()->setText("sch.compute_nowhere(block=block)");
    QVERIFY(!s->ApplyPanel());
    QVERIFY2(s->messageLabel()->text().contains("compute_nowhere"),
             qPrintable(s->messageLabel()->text()));
    QCOMPARE(s->stepList()->count(), 1);
  }

  void theMenuOffersEveryPrimitiveThatApplies() {
    MainWindow w;
    w.SetText(kMatmulRelu, "mm_relu.py");
    SchedulePane* s = w.schedule();
    QVERIFY(s->SelectNode("C"));
    std::unique_ptr<QMenu> on_block(s->ContextMenu());
    QStringList block_actions = ActionTexts(on_block.get());
    for (const char* a : {"Compute at...", "Compute inline", "Cache read...", "Cache write...",
                          "Decompose reduction...", "Set scope...", "Storage align...",
                          "Transform layout...", "Reindex...", "Pad einsum...", "Annotate...",
                          "Add unit loop", "Any primitive on block C..."}) {
      QVERIFY2(block_actions.contains(a), qPrintable(block_actions.join(" | ")));
    }
    QVERIFY(!block_actions.contains("Reverse compute at..."));  // C has no producer block
    QStringList sections = SectionTitles(on_block.get());
    QVERIFY2(sections.contains("Compute location") && sections.contains("Caching") &&
                 sections.contains("Reduction") && sections.contains("Layout"),
             qPrintable(sections.join(" | ")));
    QVERIFY(s->SelectNode("k"));
    std::unique_ptr<QMenu> on_loop(s->ContextMenu());
    QStringList loop_actions = ActionTexts(on_loop.get());
    for (const char* a : {"Split k...", "Parallel", "Vectorize", "Unroll", "Rfactor...",
                          "Blockize...", "Bind to a thread axis...", "Annotate..."}) {
      QVERIFY2(loop_actions.contains(a), qPrintable(loop_actions.join(" | ")));
    }
    QVERIFY(!loop_actions.contains("Compute at..."));
    QVERIFY(SectionTitles(on_loop.get()).contains("GPU"));
    // Each form field explains itself.
    s->primitiveBox()->setCurrentText("storage_align");
    QCOMPARE(s->argumentNames(), QStringList({"buffer_index", "axis", "factor", "offset"}));
    QVERIFY(s->argumentField("factor")->toolTip().contains("alignment factor"));
    QVERIFY(qobject_cast<QSpinBox*>(s->argumentField("axis")));
  }

  void computeAtFromTheMenuWithTheLoopPickedInTheForm() {
    MainWindow w;
    w.SetText(kMatmulRelu, "mm_relu.py");
    SchedulePane* s = w.schedule();
    QVERIFY(Trigger(s, "C", "Compute at"));
    QCOMPARE(s->primitiveBox()->currentText(), QString("compute_at"));
    auto* loop = qobject_cast<QComboBox*>(s->argumentField("loop"));
    QVERIFY(loop);
    QCOMPARE(ComboLabels(loop), QStringList({"i (16) of D", "j (16) of D"}));
    QVERIFY(loop->toolTip().contains("consumer"));
    loop->setCurrentIndex(1);
    QVERIFY(qobject_cast<QCheckBox*>(s->argumentField("preserve_unit_loops")));
    QTest::mouseClick(s->applyButton(), Qt::LeftButton);
    QVERIFY2(s->traceView()->toPlainText().contains("sch.compute_at(block=b0, loop=l"),
             qPrintable(s->messageLabel()->text() + "\n" + s->traceView()->toPlainText()));
    QCOMPARE(s->stepList()->count(), 1);
    // C is now computed under D's j: one nest i, j with both blocks.
    QString after = s->afterPane()->toPlainText();
    QVERIFY2(after.contains("for i, j in T.grid(16, 16):\n        for ax0 in range(16):"),
             qPrintable(after));
    QVERIFY(after.indexOf("T.sblock(\"C\")") < after.indexOf("T.sblock(\"D\")"));
    QVERIFY(s->beforePane()->toPlainText().contains("T.grid(16, 16, 16)"));
    // No loop is left to move C to: compute_at is no longer offered.
    QVERIFY(s->SelectNode("C"));
    std::unique_ptr<QMenu> menu(s->ContextMenu());
    QVERIFY(!ActionTexts(menu.get()).contains("Compute at..."));
  }

  void cacheReadWithTheBufferChosen() {
    MainWindow w;
    w.SetText(kMatmulRelu, "mm_relu.py");
    SchedulePane* s = w.schedule();
    QVERIFY(Trigger(s, "C", "Cache read"));
    auto* buffer = qobject_cast<QComboBox*>(s->argumentField("read_buffer_index"));
    QVERIFY(buffer);
    QCOMPARE(ComboLabels(buffer), QStringList({"A (read 0)", "B (read 1)"}));
    buffer->setCurrentIndex(1);
    auto* scope = qobject_cast<QComboBox*>(s->argumentField("storage_scope"));
    QVERIFY(scope && scope->isEditable());
    scope->setCurrentText("shared");
    QVERIFY2(s->ApplyPanel(), qPrintable(s->messageLabel()->text()));
    QVERIFY2(s->traceView()->toPlainText().contains(
                 "sch.cache_read(block=b0, read_buffer_index=1, storage_scope=\"shared\")"),
             qPrintable(s->traceView()->toPlainText()));
    QString after = s->afterPane()->toPlainText();
    QVERIFY2(after.contains("B_shared = T.sblock_alloc_buffer((16, 16), scope=\"shared\")"),
             qPrintable(after));
    QVERIFY(after.contains("T.sblock(\"B_shared\")"));
    QVERIFY(TreeNames(s->tree()).contains("B_shared"));
  }

  void rfactorAndDecomposeReductionOnAReduction() {
    MainWindow w;
    w.SetText(kMatmulRelu, "mm_relu.py");
    SchedulePane* s = w.schedule();
    // rfactor over k: the form asks for the factor axis (default 0).
    QVERIFY(Trigger(s, "k", "Rfactor"));
    auto* axis = qobject_cast<QSpinBox*>(s->argumentField("factor_axis"));
    QVERIFY(axis);
    QCOMPARE(axis->value(), 0);
    QVERIFY2(s->ApplyPanel(), qPrintable(s->messageLabel()->text()));
    QVERIFY(s->traceView()->toPlainText().contains("sch.rfactor(loop=l"));
    QVERIFY2(TreeNames(s->tree()).contains("C_rf"), qPrintable(TreeNames(s->tree()).join(",")));
    QTest::mouseClick(s->undoButton(), Qt::LeftButton);
    QCOMPARE(s->stepList()->count(), 0);
    // decompose_reduction on C above its k loop, picked among C's loops.
    QVERIFY(Trigger(s, "C", "Decompose reduction"));
    auto* loop = qobject_cast<QComboBox*>(s->argumentField("loop"));
    QVERIFY(loop);
    QCOMPARE(ComboLabels(loop), QStringList({"i (16)", "j (16)", "k (16)"}));
    loop->setCurrentIndex(2);
    QVERIFY2(s->ApplyPanel(), qPrintable(s->messageLabel()->text()));
    QVERIFY(s->traceView()->toPlainText().contains("sch.decompose_reduction(block=b0, loop=l3)"));
    QStringList names = TreeNames(s->tree());
    QVERIFY2(names.contains("C_init") && names.contains("C_update"), qPrintable(names.join(",")));
    QVERIFY(!s->afterPane()->toPlainText().contains("T.init()"));
  }

  void aFailingFormPrimitiveShowsTheErrorAndChangesNothing() {
    MainWindow w;
    w.SetText(kMatmulRelu, "mm_relu.py");
    SchedulePane* s = w.schedule();
    QVERIFY(Trigger(s, "i", "Parallel"));
    QCOMPARE(s->stepList()->count(), 1);
    QString trace = s->traceView()->toPlainText();
    QString after = s->afterPane()->toPlainText();
    // set_scope on a block writing a function parameter: the schedule refuses it.
    QVERIFY(Trigger(s, "D", "Set scope"));
    auto* scope = qobject_cast<QComboBox*>(s->argumentField("storage_scope"));
    QVERIFY(scope);
    scope->setCurrentText("shared");
    QVERIFY(!s->ApplyPanel());
    QVERIFY2(s->messageLabel()->text().contains("ScheduleError"),
             qPrintable(s->messageLabel()->text()));
    QVERIFY(s->messageLabel()->styleSheet().contains("#c0392b"));
    QCOMPARE(s->stepList()->count(), 1);
    QCOMPARE(s->traceView()->toPlainText(), trace);
    QCOMPARE(s->afterPane()->toPlainText(), after);
    // A bad value in the form names its argument and changes nothing either.
    QVERIFY(Trigger(s, "C", "Transform layout"));
    auto* map = qobject_cast<QLineEdit*>(s->argumentField("index_map"));
    QVERIFY(map);
    map->setText("(j, i)");
    QVERIFY(!s->ApplyPanel());
    QVERIFY2(s->messageLabel()->text().contains("argument 'index_map'"),
             qPrintable(s->messageLabel()->text()));
    QCOMPARE(s->stepList()->count(), 1);
  }

  void recipesLoadFromFiles() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    SchedulePane* s = w.schedule();
    QTemporaryDir dir;
    QString good = dir.filePath("good.py");
    QFile f(good);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        "b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n"
        "l1, l2, l3 = sch.get_loops(block=b0)\n"
        "sch.parallel(loop=l1)\n");
    f.close();
    QVERIFY2(s->LoadRecipeFile(good), qPrintable(s->messageLabel()->text()));
    QCOMPARE(s->stepList()->count(), 3);
    QVERIFY(s->afterPane()->toPlainText().contains("T.parallel(256)"));
    QVERIFY(s->traceView()->toPlainText().contains("sch.parallel(loop=l1)"));
    QString saved = dir.filePath("saved.py");
    QVERIFY(s->SaveRecipeFile(saved));
    QVERIFY(!s->LoadRecipeFile(dir.filePath("missing.py")));
    QVERIFY(s->messageLabel()->text().contains("cannot read"));
    QCOMPARE(s->stepList()->count(), 3);
    // Editing the document keeps the schedule when it still applies.
    w.editor()->appendPlainText("# a comment\n");
    w.AnalyzeNow();
    QCOMPARE(s->stepList()->count(), 3);
  }

  void changedFunctionsOnlyFilter() {
    MainWindow w;
    w.SetText(kTwoFunctions, "two.py");
    w.RunPipeline("LowerInitBlock");
    auto* px = w.passes();
    px->passList()->setCurrentRow(0);
    QVERIFY(px->beforePane()->toPlainText().contains("def copy("));
    px->changedFunctionsOnly()->setChecked(true);
    QVERIFY(px->beforePane()->toPlainText().contains("def reduce("));
    QVERIFY(!px->beforePane()->toPlainText().contains("def copy("));
    QVERIFY(!px->afterPane()->toPlainText().contains("def copy("));
    QVERIFY(px->afterPane()->toPlainText().contains("if vk == 0:"));
    px->changedFunctionsOnly()->setChecked(false);
    QVERIFY(px->afterPane()->toPlainText().contains("def copy("));
    // The schedule pane offers both functions.
    QCOMPARE(w.schedule()->functionBox()->count(), 2);
  }

  // Switching the function box keeps each function's steps (the GUI never drops an edit).
  void switchingFunctionsKeepsSteps() {
    std::string text = kTwoFunctions;
    text.replace(text.find("            B[i] = A[i]"), std::string("            B[i] = A[i]").size(),
                 "            with T.sblock(\"C\"):\n                vi = T.axis.spatial(8, i)\n                B[vi] = A[vi]");
    MainWindow w;
    w.SetText(QString::fromStdString(text), "two.py");
    SchedulePane* s = w.schedule();
    QComboBox* box = s->functionBox();
    QCOMPARE(box->currentText(), QString("copy"));  // functions are sorted by name
    box->setCurrentText("reduce");
    QVERIFY(Trigger(s, "k", "Unroll"));
    int steps = s->stepList()->count();
    QVERIFY(steps > 0);
    box->setCurrentText("copy");
    QCOMPARE(box->currentText(), QString("copy"));
    QCOMPARE(s->stepList()->count(), 0);
    // The function left is marked as having steps.
    int reduce = box->findText("reduce");
    QVERIFY(box->itemData(reduce, Qt::ToolTipRole).toString().contains("schedule steps"));
    QVERIFY(Trigger(s, "i", "Parallel"));
    box->setCurrentText("reduce");
    QCOMPARE(s->stepList()->count(), steps);
    QVERIFY(s->afterPane()->toPlainText().contains("T.unroll(8)"));
    // An edit of the document keeps both schedules.
    w.editor()->appendPlainText("# a comment\n");
    w.AnalyzeNow();
    QCOMPARE(box->currentText(), QString("reduce"));
    QCOMPARE(s->stepList()->count(), steps);
    box->setCurrentText("copy");
    QVERIFY(s->stepList()->count() > 0);
    QVERIFY(s->afterPane()->toPlainText().contains("T.parallel(8)"));
    // A workspace keeps both functions' schedules.
    QTemporaryDir dir;
    QString module = dir.filePath("two.py");
    QVERIFY(w.SaveTo(module));
    QString workspace = dir.filePath("two.workbench.json");
    QVERIFY(w.SaveWorkspace(workspace));
    MainWindow again;
    QVERIFY(again.OpenWorkspace(workspace, true));
    QCOMPARE(again.schedule()->functionBox()->currentText(), QString("copy"));
    QVERIFY(again.schedule()->afterPane()->toPlainText().contains("T.parallel(8)"));
    again.schedule()->functionBox()->setCurrentText("reduce");
    QVERIFY(again.schedule()->afterPane()->toPlainText().contains("T.unroll(8)"));
  }

  void workspacesAndRecentFiles() {
    QTemporaryDir dir;
    QString module = dir.filePath("matmul.py");
    {
      QFile in(":/examples/matmul.py");
      QVERIFY(in.open(QIODevice::ReadOnly));
      QFile out(module);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(in.readAll());
    }
    QString workspace = dir.filePath("matmul.workbench.json");
    {
      MainWindow w;
      QVERIFY(w.OpenFile(module, true));
      QCOMPARE(w.recentFiles().value(0), QFileInfo(module).absoluteFilePath());
      w.passes()->setPipelineText("LowerInitBlock, RemoveNoOp");
      QVERIFY(Trigger(w.schedule(), "i", "Parallel"));
      QCOMPARE(w.schedule()->stepList()->count(), 1);
      QVERIFY(w.SaveWorkspace(workspace));
    }
    MainWindow w;
    QVERIFY(w.OpenWorkspace(workspace, true));
    QVERIFY(w.editor()->toPlainText().contains("T.sblock(\"C\")"));
    QCOMPARE(w.passes()->pipelineText(), QString("LowerInitBlock, RemoveNoOp"));
    // The recipe comes back one step per statement (lookups, then the primitive).
    QCOMPARE(w.schedule()->stepList()->count(), 3);
    QVERIFY(w.schedule()->afterPane()->toPlainText().contains("T.parallel(256)"));
    // A broken workspace file is refused with a message.
    QString bad = dir.filePath("bad.json");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"file\": 42}");
    f.close();
    QVERIFY(!w.OpenWorkspace(bad, true));
    QVERIFY(!w.OpenWorkspace(dir.filePath("missing.json"), true));
    QCOMPARE(w.schedule()->stepList()->count(), 3);
  }
};

QTEST_MAIN(TestGuiSchedule)
#include "tst_gui_schedule.moc"
