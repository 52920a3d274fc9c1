// What the Passes tab tells about a run beyond its text, driven through its real widgets
// offscreen: the structural view (functions aligned by name, a consistently renamed variable no
// difference); the impact of each pass on latency, measured in the background and cancelled; the
// check of each pass after a run, marking the one that changed the meaning. The
// passes that rename or break meaning on purpose come from tests/testing; one that blocks on a
// semaphore this test controls is registered here.
#include <QAction>
#include <QCheckBox>
#include <QMenu>
#include <QToolButton>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSemaphore>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <atomic>

#include "diff_view.h"
#include "pass_explorer.h"
#include "script/tvmscript.h"
#include "testing/testing_passes.h"
#include "transform/registry.h"

using wb::app::PassExplorer;

namespace {

// GuiInsightBlock returns the module unchanged; armed with N, its Nth run from then on tells the
// test it has started and waits until the test lets it finish.
std::atomic<int> block_at{0};
QSemaphore entered;
QSemaphore release;

wb::transform::PassRegistrar block_registrar(
    {"GuiInsightBlock",
     "for the GUI tests: when armed, blocks until the test releases it; the module unchanged",
     {},
     [](const wb::transform::PassArgs&) {
       return wb::ir::CreateModulePass(
           [](wb::ir::IRModule m, const wb::ir::PassContext&) {
             if (block_at.load() > 0 && --block_at == 0) {
               entered.release();
               release.acquire();
             }
             return m;
           },
           0, "GuiInsightBlock");
     }});

// What an impact reads as in a row: a change in percent, or why there is none.
const QRegularExpression kImpact(QStringLiteral(
    "^([+-]\\d+\\.\\d%|breaks build|wrong results|run fails|cannot disable)$"));

wb::ir::IRModule AddOne() {
  wb::script::ParseResult parsed = wb::script::Parse(wb::transform::testing::kAddOneKernel);
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
    // The Analyze menu of the tool row holds the view, the check and the impact.
    const QList<QAction*> menu = px.analyzeButton()->menu()->actions();
    for (QAction* action : {px.structuralView(), px.checkEachPass(), px.impactAction(), px.impactCancelAction()}) {
      QVERIFY2(menu.contains(action), qPrintable(action->text()));
    }
    QVERIFY(px.analyzeButton()->isVisible());
    QVERIFY(!px.structuralView()->isChecked());
    QVERIFY(!px.structuralPane()->isVisible());
    px.passList()->setCurrentRow(0);
    px.diffPanes()->WaitForDiff();
    QVERIFY2(px.afterPane()->toPlainText().contains("v_row"), qPrintable(px.afterPane()->toPlainText()));
    QVERIFY(px.changedLinesAfter() > 0);

    // Structural view: in place of the panes, and the rename is no difference.
    px.structuralView()->trigger();
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
    QVERIFY2(broken.contains("changed  main: 1 mismatch\n  at root.body"), qPrintable(broken));
    QVERIFY2(broken.contains("--- before/main") && broken.contains("+++ after/main"), qPrintable(broken));
    QVERIFY2(broken.contains("+ T.float32(1.0)") || broken.contains("+ T.float32(1)"), qPrintable(broken));

    // Back to the text view.
    px.structuralView()->trigger();
    QVERIFY(!px.structuralPane()->isVisible());
    QVERIFY(px.beforePane()->isVisible() && px.afterPane()->isVisible());
  }

  // The impact fills each listed pass's row from a worker thread: the UI stays responsive (the
  // attribution is in flight when StartImpact returns), a progress bar shows where it is.
  void theImpactColumnIsFilledInTheBackground() {
    PassExplorer px;
    px.show();
    QVERIFY(QTest::qWaitForWindowExposed(&px));
    // Before any run there is nothing to measure.
    QVERIFY(!px.StartImpact());
    QVERIFY2(px.statusLabel()->text().contains("Run a pipeline"), qPrintable(px.statusLabel()->text()));
    QVERIFY(Run(&px, AddOne(), "ConvertBlocksToOpaque, LowerOpaqueBlock, RemoveNoOp"));
    QSignalSpy finished(&px, &PassExplorer::impactFinished);
    px.impactAction()->trigger();
    QVERIFY(px.impactRunning());
    QVERIFY(!px.impactAction()->isEnabled());
    QVERIFY(px.impactCancelAction()->isEnabled());
    QVERIFY(px.impactProgressBar()->isVisible());
    QVERIFY(finished.wait(120000));
    QVERIFY(!px.impactRunning());
    QVERIFY(!px.impactProgressBar()->isVisible());
    QVERIFY2(px.statusLabel()->text().startsWith("Impact of"), qPrintable(px.statusLabel()->text()));
    for (const char* pass : {"ConvertBlocksToOpaque", "LowerOpaqueBlock", "RemoveNoOp"}) {
      QString impact = px.impactText(pass);
      QVERIFY2(kImpact.match(impact).hasMatch(), qPrintable(QString("%1: '%2'").arg(pass, impact)));
    }
    // The rows hold it for their impact column, with the times or the reason as tooltip; the
    // column is painted beside the name.
    for (int row = 0; row < px.passList()->count(); ++row) {
      QListWidgetItem* item = px.passList()->item(row);
      QString impact = item->data(PassExplorer::kImpactRole).toString();
      QVERIFY2(kImpact.match(impact).hasMatch(), qPrintable(item->text() + ": " + impact));
      QCOMPARE(impact, px.impactText(item->text().split(' ', Qt::SkipEmptyParts)[1]));
      QVERIFY(!item->toolTip().isEmpty());
    }
    QVERIFY(!px.passList()->viewport()->grab().isNull());
    // A new run drops the impacts of the last one.
    QVERIFY(Run(&px, AddOne(), "ConvertBlocksToOpaque"));
    QVERIFY(px.impactText("ConvertBlocksToOpaque").isEmpty());
    QVERIFY(px.passList()->item(0)->data(PassExplorer::kImpactRole).toString().isEmpty());
  }

  // Cancel stops the attribution before its next build: the passes measured stay marked, the
  // rest get nothing. The blocking pass holds the attribution while building without the third
  // pass (its third run: the build with every pass, then without ConvertBlocksToOpaque; without
  // itself it does not run); that build finishes, and its pass is marked when it needed no run.
  void cancelStopsTheImpact() {
    PassExplorer px;
    QVERIFY(Run(&px, AddOne(), "ConvertBlocksToOpaque, GuiInsightBlock, LowerOpaqueBlock, RemoveNoOp"));
    block_at = 3;
    QSignalSpy finished(&px, &PassExplorer::impactFinished);
    QVERIFY(px.StartImpact());
    QVERIFY(entered.tryAcquire(1, 60000));
    QVERIFY(px.impactRunning());
    px.impactCancelAction()->trigger();
    QVERIFY(!px.impactCancelAction()->isEnabled());
    release.release();
    QVERIFY(finished.wait(60000));
    QVERIFY(!px.impactRunning());
    const QString status = px.statusLabel()->text();
    QVERIFY2(status.startsWith("Impact cancelled: 2 of") || status.startsWith("Impact cancelled: 3 of"),
             qPrintable(status));
    QVERIFY(kImpact.match(px.impactText("ConvertBlocksToOpaque")).hasMatch());
    QVERIFY(kImpact.match(px.impactText("GuiInsightBlock")).hasMatch());
    QCOMPARE(px.impactText("LowerOpaqueBlock").isEmpty(), status.startsWith("Impact cancelled: 2 of"));
    QVERIFY(px.impactText("RemoveNoOp").isEmpty());
    QVERIFY(px.passList()->item(3)->data(PassExplorer::kImpactRole).toString().isEmpty());
    QVERIFY(px.impactAction()->isEnabled());
  }

  // With "Check each pass", every run is checked on a worker thread after it is shown; the first
  // pass that changed what the module computes is marked, its max error as the row's tooltip.
  void checkEachPassMarksTheBreakingPass() {
    PassExplorer px;
    px.show();
    QVERIFY(QTest::qWaitForWindowExposed(&px));
    const char* breaking = "ConvertBlocksToOpaque, TestingBreakMeaning, LowerOpaqueBlock";
    // Unchecked: no check.
    QVERIFY(Run(&px, AddOne(), breaking));
    QVERIFY(!px.checkRunning());
    QVERIFY(px.lastCheck() == nullptr);
    QVERIFY(!px.passList()->item(1)->text().contains("changed the meaning"));

    // Checking the box checks the run shown; the pass selected stays selected.
    px.passList()->setCurrentRow(2);
    QSignalSpy finished(&px, &PassExplorer::checkFinished);
    px.checkEachPass()->trigger();
    QVERIFY(px.checkRunning());
    QVERIFY(finished.wait(60000));
    QCOMPARE(px.passList()->currentRow(), 2);
    QVERIFY(px.lastCheck() != nullptr);
    QCOMPARE(px.lastCheck()->changed, 1);
    QListWidgetItem* marked = px.passList()->item(1);
    QVERIFY2(marked->text().contains(QString::fromUtf8("\u26A0 TestingBreakMeaning")) &&
                 marked->text().contains("(changed the meaning)"),
             qPrintable(marked->text()));
    QVERIFY2(marked->toolTip().contains("function `main`") && marked->toolTip().contains("max abs error 1"),
             qPrintable(marked->toolTip()));
    QVERIFY(!px.passList()->item(0)->text().contains("changed the meaning"));
    QVERIFY(!px.passList()->item(2)->text().contains("changed the meaning"));
    QVERIFY2(px.statusLabel()->text().startsWith("Pass 2 TestingBreakMeaning changed what the module computes"),
             qPrintable(px.statusLabel()->text()));

    // Checked: each run is checked after it is shown; a pipeline that keeps the meaning marks none.
    QVERIFY(Run(&px, AddOne(), "ConvertBlocksToOpaque, LowerOpaqueBlock"));
    QVERIFY(px.checkRunning());
    px.WaitForCheck();
    QCOMPARE(px.lastCheck()->changed, -1);
    QCOMPARE(px.lastCheck()->equal, size_t(2));
    for (int row = 0; row < px.passList()->count(); ++row) {
      QVERIFY(!px.passList()->item(row)->text().contains("changed the meaning"));
    }
    QVERIFY2(px.statusLabel()->text().startsWith("Each pass kept what the module computes (2 checked"),
             qPrintable(px.statusLabel()->text()));

    // And the breaking run again, marked once more; the mark stays when unchanged passes are hidden.
    QVERIFY(Run(&px, AddOne(), breaking));
    px.WaitForCheck();
    QCOMPARE(px.lastCheck()->changed, 1);
    px.hideUnchanged()->click();
    bool found = false;
    for (int row = 0; row < px.passList()->count(); ++row) {
      found |= px.passList()->item(row)->text().contains("TestingBreakMeaning   ") &&
               px.passList()->item(row)->text().contains("(changed the meaning)");
    }
    QVERIFY(found);
  }
};

QTEST_MAIN(TestGuiPassInsight)
#include "tst_gui_pass_insight.moc"
