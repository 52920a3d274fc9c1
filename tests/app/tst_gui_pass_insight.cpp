// What the Passes tab tells about a run beyond its text, driven through its real widgets
// offscreen: the structural view (functions aligned by name, a consistently renamed variable no
// difference). The passes that rename or break meaning on purpose come from tests/testing.
#include <QCheckBox>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include "diff_view.h"
#include "pass_explorer.h"
#include "script/tvmscript.h"

using wb::app::PassExplorer;

namespace {

const char* kAddOne = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.sblock("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1.0)
)";

wb::ir::IRModule AddOne() {
  wb::script::ParseResult parsed = wb::script::Parse(kAddOne);
  return parsed.module;
}

// Runs `pipeline` over `module` in `px` and waits for it to be shown.
bool Run(PassExplorer* px, const wb::ir::IRModule& module, const char* pipeline) {
  if (!px->StartRun(module, pipeline)) return false;
  px->WaitForRun();
  return px->lastRun().ok();
}

}  // namespace

class TestGuiPassInsight : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  // A pass that only renames a variable differs as text, not as structure; a pass that changes
  // what a function computes is a structural change, with its path and the diff of that function.
  void theStructuralViewIgnoresRenaming() {
    PassExplorer px;
    px.resize(1200, 800);
    px.show();
    QVERIFY(QTest::qWaitForWindowExposed(&px));
    QVERIFY(Run(&px, AddOne(), "TestingRenameVi, TestingBreakMeaning"));
    QCOMPARE(px.passList()->count(), 2);

    // Text view: the rename is a difference.
    QVERIFY(!px.structuralView()->isChecked());
    QVERIFY(!px.structuralPane()->isVisible());
    px.passList()->setCurrentRow(0);
    px.diffPanes()->WaitForDiff();
    QVERIFY2(px.afterPane()->toPlainText().contains("v_row"), qPrintable(px.afterPane()->toPlainText()));
    QVERIFY(px.changedLinesAfter() > 0);

    // Structural view: in place of the panes, and the rename is no difference.
    px.structuralView()->click();
    QVERIFY(px.structuralPane()->isVisible());
    QVERIFY(!px.beforePane()->isVisible() && !px.afterPane()->isVisible());
    QString renamed = px.structuralPane()->toPlainText();
    QVERIFY2(renamed.contains("1 function(s): 1 same, 0 changed, 0 added, 0 removed"), qPrintable(renamed));
    QVERIFY2(renamed.contains("same     main"), qPrintable(renamed));
    QVERIFY2(renamed.contains("structurally equal"), qPrintable(renamed));

    // The breaking pass: changed, with where and the text diff of that function only.
    px.passList()->setCurrentRow(1);
    QString broken = px.structuralPane()->toPlainText();
    QVERIFY2(broken.contains("0 same, 1 changed"), qPrintable(broken));
    QVERIFY2(broken.contains("changed  main: first mismatch at root.body"), qPrintable(broken));
    QVERIFY2(broken.contains("--- before/main") && broken.contains("+++ after/main"), qPrintable(broken));
    QVERIFY2(broken.contains("+ T.float32(1.0)") || broken.contains("+ T.float32(1)"), qPrintable(broken));

    // Back to the text view.
    px.structuralView()->click();
    QVERIFY(!px.structuralPane()->isVisible());
    QVERIFY(px.beforePane()->isVisible() && px.afterPane()->isVisible());
  }
};

QTEST_MAIN(TestGuiPassInsight)
#include "tst_gui_pass_insight.moc"
