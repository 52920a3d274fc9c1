// The Passes tab driven through its real widgets, offscreen: compose a pipeline with the
// composer (add from the searchable catalog, edit arguments of every type, reset, reorder by
// buttons and by a drag's row move, remove, expand a named pipeline) and read the text; run
// pipelines off the UI thread and wait for them; cancel a run that is known to be in flight (a
// pass registered here blocks on a semaphore this test controls); close a window mid-run.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "code_editor.h"
#include "diff_view.h"
#include "main_window.h"
#include "pass_explorer.h"
#include "pipeline_editor.h"
#include "transform/registry.h"

using wb::app::MainWindow;
using wb::app::PassExplorer;
using wb::app::PipelineEditor;

namespace {

// GuiTestBlock tells the test it has started, then waits until the test lets it finish: while
// it waits, the run is in flight for certain.
QSemaphore entered;
QSemaphore release;

wb::transform::PassRegistrar block_registrar(
    {"GuiTestBlock",
     "for the GUI tests: blocks until the test releases it, then returns the module unchanged",
     {},
     [](const wb::transform::PassArgs&) {
       return wb::ir::CreateModulePass(
           [](wb::ir::IRModule m, const wb::ir::PassContext&) {
             entered.release();
             release.acquire();
             return m;
           },
           0, "GuiTestBlock");
     }});

// A pass with a float argument (no shipped pass has one).
wb::transform::PassRegistrar float_registrar(
    {"GuiTestFloat",
     "for the GUI tests: a float argument, the module unchanged",
     {{"factor", wb::transform::ParamType::kFloat, wb::ir::MakeFloat(1.0), "a factor"}},
     [](const wb::transform::PassArgs&) {
       return wb::ir::CreateModulePass(
           [](wb::ir::IRModule m, const wb::ir::PassContext&) { return m; }, 0, "GuiTestFloat");
     }});

const char* kLowering = "LowerInitBlock, ConvertBlocksToOpaque, LowerOpaqueBlock, RemoveNoOp";
const char* kBlocking = "LowerInitBlock, GuiTestBlock, ConvertBlocksToOpaque, RemoveNoOp";

// Searches the catalog for `name`, picks it among the matches and adds it.
void AddFromCatalog(PipelineEditor* c, const QString& name) {
  c->filter()->setText(name);
  auto found = c->catalog()->findItems(name, Qt::MatchExactly);
  QCOMPARE(found.size(), 1);
  QVERIFY(!found[0]->isHidden());
  c->catalog()->setCurrentItem(found[0]);
  QTest::mouseClick(c->addButton(), Qt::LeftButton);
}

}  // namespace

class TestGuiPasses : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    // The window saves its state and last workspace in QSettings: keep every run of this suite
    // apart from the user's settings and from the previous run.
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  // The before/after panes get most of the tab's width, a narrow pass list beside them, at the
  // window's default size and on a full-HD screen; the composer folds out of the panes' width.
  void theBeforeAndAfterPanesGetTheWidth() {
    for (QSize size : {QSize(1400, 900), QSize(1920, 1080)}) {
      MainWindow w;
      QVERIFY(w.OpenFile(":/examples/matmul.py", true));
      w.resize(size);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      PassExplorer* px = w.passes();
      w.tabs()->setCurrentIndex(0);  // Passes
      QApplication::processEvents();
      QVERIFY(!px->composer()->isVisible());
      int list = px->passList()->width(), before = px->beforePane()->width();
      int after = px->afterPane()->width();
      QString widths = QStringLiteral("%1x%2: tab %3, list %4, before %5, after %6")
                           .arg(size.width()).arg(size.height()).arg(px->width())
                           .arg(list).arg(before).arg(after);
      QVERIFY2(before + after >= 0.7 * px->width(), qPrintable(widths));
      QVERIFY2(std::abs(before - after) <= 2, qPrintable(widths));
      QVERIFY2(list < before && list >= 120, qPrintable(widths));
      // Each pane shows at least 40 columns of monospace text at the default size.
      int column = px->beforePane()->fontMetrics().horizontalAdvance('x');
      QVERIFY2(before >= 40 * column, qPrintable(widths));

      QTest::mouseClick(px->composerToggle(), Qt::LeftButton);
      QApplication::processEvents();
      QVERIFY(px->composer()->isVisible());
      QCOMPARE(px->passList()->width(), list);
      QVERIFY2(px->beforePane()->width() < before, qPrintable(widths));
      px->ShowComposer(false);
      QApplication::processEvents();
      QVERIFY(!px->composer()->isVisible());
      QVERIFY(!px->composerToggle()->isChecked());
      QVERIFY(std::abs(px->beforePane()->width() - before) <= 2);
    }
  }

  void composeAPipelineWithTheComposer() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    PassExplorer* px = w.passes();
    PipelineEditor* c = px->composer();
    px->ShowComposer(true);
    px->setPipelineText("LowerInitBlock");
    QCOMPARE(c->list()->count(), 1);
    c->list()->setCurrentRow(0);

    // The catalog is searchable, with each pass's doc as its tooltip; the passes that fail on
    // purpose for the batch runner's tests are not in the program.
    c->filter()->setText("threadsync");
    int visible = 0;
    for (int i = 0; i < c->catalog()->count(); ++i) {
      visible += !c->catalog()->item(i)->isHidden();
      QVERIFY(!c->catalog()->item(i)->text().startsWith("Testing"));
    }
    QVERIFY(visible >= 1);
    QVERIFY(visible < c->catalog()->count() / 2);
    QVERIFY(c->catalog()->findItems("LowerInitBlock", Qt::MatchExactly)[0]->isHidden());
    QVERIFY(!c->catalog()->currentItem()->isHidden());
    QVERIFY(c->catalog()->findItems("ThreadSync", Qt::MatchExactly)[0]->toolTip().contains(
        "storage_scope"));
    AddFromCatalog(c, "ThreadSync");
    QCOMPARE(px->pipelineText(), QString("LowerInitBlock, ThreadSync"));
    QCOMPARE(c->list()->currentRow(), 1);

    // A string argument: edited, written, reset.
    auto* scope = qobject_cast<QLineEdit*>(c->argumentEditor("storage_scope"));
    QVERIFY(scope);
    QCOMPARE(scope->text(), QString("shared"));
    QVERIFY(!c->resetButton("storage_scope")->isEnabled());
    scope->setText("shared.dyn");
    QCOMPARE(px->pipelineText(),
             QString("LowerInitBlock, ThreadSync(storage_scope=\"shared.dyn\")"));
    QVERIFY(c->resetButton("storage_scope")->isEnabled());
    QTest::mouseClick(c->resetButton("storage_scope"), Qt::LeftButton);
    QCOMPARE(scope->text(), QString("shared"));
    QCOMPARE(px->pipelineText(), QString("LowerInitBlock, ThreadSync"));

    // An int (spin box), a bool (check box), a list of strings and a float.
    AddFromCatalog(c, "FuseOps");
    auto* level = qobject_cast<QSpinBox*>(c->argumentEditor("fuse_opt_level"));
    QVERIFY(level);
    QCOMPARE(level->value(), -1);
    level->setValue(2);
    AddFromCatalog(c, "EliminateCommonSubexpr");
    auto* call_only = qobject_cast<QCheckBox*>(c->argumentEditor("call_only"));
    QVERIFY(call_only);
    call_only->setChecked(true);
    AddFromCatalog(c, "DeadCodeElimination");
    auto* entries = qobject_cast<QLineEdit*>(c->argumentEditor("entry_functions"));
    QVERIFY(entries);
    entries->setText("main, helper");
    AddFromCatalog(c, "GuiTestFloat");
    auto* factor = qobject_cast<QDoubleSpinBox*>(c->argumentEditor("factor"));
    QVERIFY(factor);
    factor->setValue(0.5);
    QCOMPARE(px->pipelineText(),
             QString("LowerInitBlock, ThreadSync, FuseOps(fuse_opt_level=2), "
                     "EliminateCommonSubexpr(call_only=True), "
                     "DeadCodeElimination(entry_functions=[\"main\", \"helper\"]), "
                     "GuiTestFloat(factor=0.5)"));

    // Reorder with the buttons, then as a drag does (a row move in the model), then remove.
    c->list()->setCurrentRow(2);  // FuseOps
    QTest::mouseClick(c->upButton(), Qt::LeftButton);
    QTest::mouseClick(c->upButton(), Qt::LeftButton);
    QVERIFY(!c->upButton()->isEnabled());
    QVERIFY(px->pipelineText().startsWith("FuseOps(fuse_opt_level=2), LowerInitBlock, ThreadSync"));
    QTest::mouseClick(c->downButton(), Qt::LeftButton);
    QVERIFY(px->pipelineText().startsWith("LowerInitBlock, FuseOps(fuse_opt_level=2), ThreadSync"));
    QVERIFY(c->list()->model()->moveRow(QModelIndex(), 5, QModelIndex(), 0));
    QVERIFY2(px->pipelineText().startsWith("GuiTestFloat(factor=0.5), LowerInitBlock, FuseOps"),
             qPrintable(px->pipelineText()));
    // The moved pass keeps its arguments in the form.
    c->list()->setCurrentRow(0);
    QCOMPARE(qobject_cast<QDoubleSpinBox*>(c->argumentEditor("factor"))->value(), 0.5);
    for (int i = 0; i < 3; ++i) {
      c->list()->setCurrentRow(c->list()->count() - 1);
      QTest::mouseClick(c->removeButton(), Qt::LeftButton);
    }
    QCOMPARE(px->pipelineText(),
             QString("GuiTestFloat(factor=0.5), LowerInitBlock, FuseOps(fuse_opt_level=2)"));
    QCOMPARE(c->list()->count(), 3);
  }

  void textAndListStayInStep() {
    MainWindow w;
    PassExplorer* px = w.passes();
    PipelineEditor* c = px->composer();
    px->setPipelineText("LowerInitBlock, RemoveNoOp");
    QCOMPARE(c->list()->count(), 2);
    // Text that does not parse: the error with its column, the list as it was.
    px->setPipelineText("LowerInitBlock, Bogus");
    QVERIFY2(c->errorLabel()->text().contains("unknown pass 'Bogus' (column 17)"),
             qPrintable(c->errorLabel()->text()));
    QCOMPARE(c->list()->count(), 2);
    px->setPipelineText("RemoveNoOp");
    QVERIFY(c->errorLabel()->text().isEmpty());
    QCOMPARE(c->list()->count(), 1);

    // The TIR lowering pipelines are in the chooser; a named pipeline expands into its passes.
    QVERIFY(px->pipelineBox()->findText("tir_lowering") >= 0);
    QVERIFY(px->pipelineBox()->findText("tir_lowering_cuda") >= 0);
    px->setPipelineText("tir_lowering");
    QCOMPARE(c->list()->count(), 1);
    QVERIFY(c->namedPipeline().has_value());
    QVERIFY(c->expandButton()->isEnabled());
    QVERIFY(!c->removeButton()->isEnabled());
    QTest::mouseClick(c->expandButton(), Qt::LeftButton);
    QCOMPARE(c->list()->count(), 13);
    QVERIFY(
        px->pipelineText().startsWith("LowerInitBlock, PlanAndUpdateBufferAllocationLocation, "));
    QVERIFY(px->pipelineText().endsWith(", StorageRewrite, LowerIntrin"));
    // Editing a named pipeline expands it first.
    px->setPipelineText("tir_lowering_cuda");
    c->list()->setCurrentRow(0);
    QVERIFY(c->AddPass("RemoveNoOp"));
    QVERIFY(
        px->pipelineText().startsWith("VerifyGPUBinding, RemoveNoOp, LowerCrossThreadReduction"));
    QVERIFY(px->pipelineText().contains("ThreadSync, ThreadSync(storage_scope=\"shared.dyn\")"));
  }

  void runsOffTheUiThreadAndShowsEveryPass() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    w.show();
    PassExplorer* px = w.passes();
    px->setPipelineText(kLowering);
    QSignalSpy finished(px, &PassExplorer::runFinished);
    QTest::mouseClick(px->runButton(), Qt::LeftButton);
    // Nothing ran on this thread: the run is in flight until the event loop hears of its end.
    QVERIFY(px->running());
    QVERIFY(!px->runButton()->isEnabled());
    QVERIFY(px->cancelButton()->isEnabled());
    QVERIFY(px->progressBar()->isVisible());
    QVERIFY(finished.wait(20000));
    QVERIFY(px->runButton()->isEnabled());
    QVERIFY(!px->cancelButton()->isEnabled());
    QCOMPARE(px->passList()->count(), 4);
    QVERIFY(px->statusLabel()->text().startsWith("4 passes"));
    QCOMPARE(w.session().last_run().snapshots.size(), size_t(4));
    px->passList()->setCurrentRow(0);
    QVERIFY(px->beforePane()->toPlainText().contains("with T.init():"));
    QVERIFY(px->afterPane()->toPlainText().contains("if vk == 0:"));
  }

  void theTirLoweringPipelineRunsOnAPrimFunc() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    PassExplorer* px = w.passes();
    px->setPipelineText("tir_lowering");
    QSignalSpy finished(px, &PassExplorer::runFinished);
    QTest::mouseClick(px->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(20000));
    QVERIFY2(px->lastRun().ok(), qPrintable(px->statusLabel()->text()));
    QCOMPARE(px->passList()->count(), 13);
    QVERIFY(px->passList()->item(0)->text().contains("LowerInitBlock"));
    QVERIFY(px->passList()->item(12)->text().contains("LowerIntrin"));
    px->passList()->setCurrentRow(5);  // LowerOpaqueBlock
    QVERIFY(px->passList()->currentItem()->text().contains("LowerOpaqueBlock"));
    QVERIFY(px->beforePane()->toPlainText().contains("T.sblock"));
    QVERIFY(!px->afterPane()->toPlainText().contains("T.sblock"));
    px->diffPanes()->WaitForDiff();
    QVERIFY(px->changedLinesAfter() > 0);
  }

  // The before/after diff runs on a worker thread: both texts show at once, the tints follow
  // through the event loop, and a diff superseded by a newer Show is dropped.
  void theDiffRunsOffTheUiThreadAndTheLatestWins() {
    QPlainTextEdit before, after;
    wb::app::DiffPanes diff(&before, &after);
    QSignalSpy shown(&diff, &wb::app::DiffPanes::diffShown);
    std::string a, b, c;
    for (int i = 0; i < 20000; ++i) {
      std::string line = "x" + std::to_string(i % 97) + " = " + std::to_string(i) + "\n";
      a += line;
      b += i % 5 == 0 ? "changed\n" : line;  // 4,000 lines changed
      c += i == 7 ? "only this one\n" : line;
    }
    diff.Show(a, b);
    QVERIFY(diff.pending());  // shown only once the event loop delivers it
    QCOMPARE(before.blockCount(), 20001);  // the text is up before the diff is done
    QVERIFY(after.extraSelections().isEmpty());
    diff.Show(a, c);  // supersedes the first
    QVERIFY(shown.wait(20000));
    QCOMPARE(shown.count(), 1);
    QCOMPARE(shown.at(0).at(0).toInt(), 1);
    QCOMPARE(shown.at(0).at(1).toInt(), 1);
    QCOMPARE(after.extraSelections().size(), 1);
    QCOMPARE(after.extraSelections().at(0).cursor.blockNumber(), 7);
    QCOMPARE(before.extraSelections().at(0).cursor.blockNumber(), 7);
    QVERIFY(!diff.pending());
    QTest::qWait(200);  // the first diff's result, if it arrives late, changes nothing
    QCOMPARE(shown.count(), 1);
    QCOMPARE(diff.added(), 1);
    // WaitForDiff shows it at once; the event loop's delivery later is dropped.
    diff.Show(a, b);
    diff.WaitForDiff();
    QCOMPARE(diff.removed(), 4000);
    QCOMPARE(diff.added(), 4000);
    QCOMPARE(shown.count(), 2);
    QTest::qWait(200);
    QCOMPARE(shown.count(), 2);
  }

  void cancelStopsAfterThePassInFlight() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    w.show();
    PassExplorer* px = w.passes();
    px->setPipelineText(kBlocking);
    QSignalSpy finished(px, &PassExplorer::runFinished);
    QTest::mouseClick(px->runButton(), Qt::LeftButton);
    QVERIFY(entered.tryAcquire(1, 20000));  // GuiTestBlock is running now
    QTRY_VERIFY2(px->progressBar()->format() == "pass 2 of 4: GuiTestBlock",
                 qPrintable(px->progressBar()->format()));
    QCOMPARE(px->progressBar()->value(), 25);
    // A second run while this one is in flight is refused, and says why.
    QVERIFY(!w.StartPipeline("RemoveNoOp"));
    QVERIFY2(px->statusLabel()->text().contains("already running"),
             qPrintable(px->statusLabel()->text()));
    QTest::mouseClick(px->cancelButton(), Qt::LeftButton);
    release.release();
    QVERIFY(finished.wait(20000));
    QVERIFY(px->lastRun().cancelled);
    QVERIFY2(px->statusLabel()->text().contains("cancelled after 2 of 4 passes"),
             qPrintable(px->statusLabel()->text()));
    QCOMPARE(px->passList()->count(), 2);
    QVERIFY(px->passList()->item(0)->text().contains("LowerInitBlock"));
    QVERIFY(px->passList()->item(1)->text().contains("GuiTestBlock"));
    QVERIFY(px->runButton()->isEnabled());
    QVERIFY(!px->cancelButton()->isEnabled());
    QVERIFY(!px->progressBar()->isVisible());
    // And the next run goes ahead.
    px->setPipelineText(kLowering);
    QTest::mouseClick(px->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(20000));
    QCOMPARE(px->passList()->count(), 4);
  }

  void thePassesMenuRunsAndCancels() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    PassExplorer* px = w.passes();
    QAction* run = nullptr;
    QAction* cancel = nullptr;
    for (QAction* a : w.findChildren<QAction*>()) {
      if (a->text() == "&Run pipeline") run = a;
      if (a->text() == "&Cancel pipeline") cancel = a;
    }
    QVERIFY(run && cancel);
    QCOMPARE(run->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_R));
    QCOMPARE(cancel->shortcut(), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Period));
    px->setPipelineText(kBlocking);
    QSignalSpy finished(px, &PassExplorer::runFinished);
    run->trigger();
    QVERIFY(px->running());
    QVERIFY(entered.tryAcquire(1, 20000));
    cancel->trigger();
    release.release();
    QVERIFY(finished.wait(20000));
    QVERIFY(px->statusLabel()->text().contains("cancelled after 2 of 4 passes"));
  }

  void aResultForEditedTextSaysWhichRevisionItRanOn() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    PassExplorer* px = w.passes();
    px->setPipelineText(kBlocking);
    QSignalSpy finished(px, &PassExplorer::runFinished);
    QTest::mouseClick(px->runButton(), Qt::LeftButton);
    QVERIFY(entered.tryAcquire(1, 20000));
    QTextCursor cursor(w.editor()->document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText("\n# edited while the pipeline ran\n");
    release.release();
    QVERIFY(finished.wait(20000));
    QVERIFY2(px->statusLabel()->text().contains("Ran on revision"),
             qPrintable(px->statusLabel()->text()));
    QCOMPARE(px->passList()->count(), 4);
  }

  void closingTheWindowDuringARunWaitsForIt() {
    auto* w = new MainWindow;
    QVERIFY(w->OpenFile(":/examples/matmul.py", true));
    w->passes()->setPipelineText(kBlocking);
    QVERIFY(w->StartPipeline(kBlocking));
    QVERIFY(entered.tryAcquire(1, 20000));
    // The window cancels and waits: the blocked pass must be let go from another thread.
    std::thread releaser([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      release.release();
    });
    delete w;
    releaser.join();
    QCOMPARE(release.available(), 0);
  }
};

QTEST_MAIN(TestGuiPasses)
#include "tst_gui_passes.moc"
