// The Build & Profile panel, the themes and the persisted window state, driven through the real
// widgets offscreen: build and profile an example on the CPU, profile again after a schedule
// step (two chart points), a failing build, a kernel that crashes (a row, not a dead window), cancelling one endless call, CUDA built but not run without a GPU, cancelling a long
// profile, the theme and the splitters surviving a restart, and the build shortcuts in the menus.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>

#include "build_panel.h"
#include "code_editor.h"
#include "main_window.h"
#include "profile_chart.h"
#include "schedule_pane.h"
#include "../workbench/run_test_programs.h"

using wb::app::BuildPanel;
using wb::app::MainWindow;

namespace {

using wb::test::kRelax;
using wb::test::kSpin;

const char* kThreadBound = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in T.thread_binding(64, thread="threadIdx.x"):
        A[i] = T.float32(1.0)
)";

// A kernel that writes far out of bounds, before a healthy one.
const char* kCrashThenAdd = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def crash(A: T.Buffer((64,), "float32")):
        for i in range(16):
            A[i * 100000000] = T.float32(1.0)

    @T.prim_func
    def add(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(64):
            B[i] = A[i] + T.float32(1.0)
)";

QString Cell(QTableWidget* table, int row, int column) {
  QTableWidgetItem* item = table->item(row, column);
  return item ? item->text() : QString();
}

// The panel's status line and errors, for failure messages.
QByteArray Why(BuildPanel* b) {
  QString text = b->statusLabel()->text();
  for (int i = 0; i < b->errorList()->count(); ++i) text += "\n" + b->errorList()->item(i)->text();
  return text.toUtf8();
}

bool ProfileAndWait(BuildPanel* b) {
  QTest::mouseClick(b->profileButton(), Qt::LeftButton);
  return b->WaitForJob(120000);
}

}  // namespace

class TestGuiBuild : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }
  void cleanupTestCase() { QSettings().clear(); }

  void buildAndProfileAnExampleOnTheCpu() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/elementwise.py", true));
    w.show();
    BuildPanel* b = w.build();
    QVERIFY(b->SelectTarget("llvm"));
    b->numberBox()->setValue(2);
    b->repeatBox()->setValue(2);
    QVERIFY(b->inputsEdit()->text().isEmpty());  // random inputs
    QVERIFY2(ProfileAndWait(b), Why(b).constData());
    QTableWidget* t = b->resultsTable();
    QVERIFY2(t->rowCount() == 1, Why(b).constData());
    QCOMPARE(Cell(t, 0, 0), QString("main"));
    bool ok = false;
    double mean_ms = Cell(t, 0, 1).toDouble(&ok);
    QVERIFY2(ok && mean_ms > 0, qPrintable(Cell(t, 0, 1)));
    QVERIFY(Cell(t, 0, 2).toDouble() > 0);
    QVERIFY2(Cell(t, 0, 9).startsWith("ok (matches the interpreter)"), qPrintable(Cell(t, 0, 9)));
    QVERIFY(Cell(t, 0, 8).toDouble(&ok) < 1e-3 && ok);
    // The build's views.
    QVERIFY(b->irView()->toPlainText().contains("define"));
    QVERIFY(!b->optimizedIrView()->toPlainText().isEmpty());
    QVERIFY(!b->assemblyView()->toPlainText().isEmpty());
    QCOMPARE(b->chart()->points().size(), size_t(1));
    QVERIFY(b->chart()->points()[0].time_ms > 0);

    // A schedule step, then profile again: the chart has a point per step.
    wb::app::SchedulePane* s = w.schedule();
    QVERIFY(s->SelectNode("j"));
    s->primitiveBox()->setCurrentText("split");
    s->argumentsEdit()->setText("None, 16");
    QVERIFY2(s->ApplyPanel(), qPrintable(s->messageLabel()->text()));
    QVERIFY2(ProfileAndWait(b), Why(b).constData());
    QCOMPARE(b->resultsTable()->rowCount(), 1);
    QVERIFY(Cell(b->resultsTable(), 0, 9).startsWith("ok"));
    const auto& points = b->chart()->points();
    QCOMPARE(points.size(), size_t(2));
    // Labelled by step and the primitive the step applied.
    QCOMPARE(points[0].label, QString("0: original"));
    QCOMPARE(points[1].label, QString("1: split"));
    QVERIFY(points[1].tooltip.contains("sch.split"));
    QVERIFY(points[1].gflops.has_value());
  }

  void aRelaxFunctionRunsAndProfilesThroughTheVM() {
    MainWindow w;
    w.show();
    w.SetText(kRelax, "relax.py");
    BuildPanel* b = w.build();
    QVERIFY(b->SelectTarget("llvm"));
    b->numberBox()->setValue(1);
    b->repeatBox()->setValue(2);
    QCOMPARE(b->referenceBox()->currentText(), QString("auto"));
    QVERIFY2(ProfileAndWait(b), Why(b).constData());
    QTableWidget* t = b->resultsTable();
    QVERIFY2(t->rowCount() == 1, Why(b).constData());
    QCOMPARE(Cell(t, 0, 0), QString("main"));
    QVERIFY2(Cell(t, 0, 9) == "ok (matches the interpreter) [Relax VM]", qPrintable(Cell(t, 0, 9)));
    QVERIFY2(Cell(t, 0, 1).toDouble() > 0, qPrintable(Cell(t, 0, 1)));
    QVERIFY(!Cell(t, 0, 4).isEmpty());  // GFLOP/s: the VM's kernels are counted
    // The Calls tab: main's kernels and builtins by time, the most first, each kernel with its GFLOP/s.
    QTableWidget* calls = b->callsTable();
    QVERIFY(calls->rowCount() > 0);
    int kernels = 0;
    double previous = 1e300;
    for (int r = 0; r < calls->rowCount(); ++r) {
      QVERIFY2(Cell(calls, r, 3).toDouble() <= previous, qPrintable(Cell(calls, r, 3)));
      previous = Cell(calls, r, 3).toDouble();
      if (Cell(calls, r, 1) == "kernel") ++kernels;
      else QVERIFY2(Cell(calls, r, 0).startsWith("vm.builtin."), qPrintable(Cell(calls, r, 0)));
    }
    QVERIFY(kernels > 0);
    // The compiled reference, chosen in the box.
    QVERIFY(b->SelectReference(wb::workbench::ReferenceKind::kCompiled));
    QVERIFY2(ProfileAndWait(b), Why(b).constData());
    QVERIFY2(Cell(t, 0, 9) == "ok (matches the compiled reference) [Relax VM]", qPrintable(Cell(t, 0, 9)));
    // No reference: it only runs.
    QVERIFY(b->SelectReference(wb::workbench::ReferenceKind::kNone));
    QVERIFY2(ProfileAndWait(b), Why(b).constData());
    QVERIFY2(Cell(t, 0, 9) == "ok [Relax VM]", qPrintable(Cell(t, 0, 9)));
    QVERIFY2(b->statusLabel()->text().contains("0 failed"), Why(b).constData());
  }

  void profileEveryStepChartsEachStep() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/elementwise.py", true));
    BuildPanel* b = w.build();
    b->numberBox()->setValue(1);
    b->repeatBox()->setValue(1);
    wb::app::SchedulePane* s = w.schedule();
    QVERIFY(s->SelectNode("j"));
    s->primitiveBox()->setCurrentText("split");
    s->argumentsEdit()->setText("None, 32");
    QVERIFY2(s->ApplyPanel(), qPrintable(s->messageLabel()->text()));
    QVERIFY(s->SelectNode("j_1"));
    s->primitiveBox()->setCurrentText("vectorize");
    QVERIFY2(s->ApplyPanel(), qPrintable(s->messageLabel()->text()));
    w.ProfileEveryStep();
    for (int i = 0; i < 10 && w.profilingEveryStep(); ++i) QVERIFY(b->WaitForJob(120000));
    QVERIFY(!w.profilingEveryStep());
    QCOMPARE(b->chart()->points().size(), size_t(3));
    // It ends where it started: every step applied again.
    QCOMPARE(s->session().steps().size(), size_t(2));
  }

  void aFailingBuildShowsTheErrorAndNoRow() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/elementwise.py", true));
    BuildPanel* b = w.build();
    b->numberBox()->setValue(1);
    b->repeatBox()->setValue(1);
    QVERIFY(ProfileAndWait(b));
    QCOMPARE(b->resultsTable()->rowCount(), 1);
    // GPU code cannot be built for the CPU: the error shows, the old row and views go.
    w.SetText(kThreadBound, "gpu.py");
    QVERIFY(ProfileAndWait(b));
    QVERIFY2(b->resultsTable()->rowCount() == 0, Why(b).constData());
    QVERIFY2(b->statusLabel()->text().startsWith("Build failed"), Why(b).constData());
    QVERIFY(b->errorList()->isVisibleTo(b));
    QVERIFY(b->errorList()->count() >= 1);
    QVERIFY2(b->errorList()->item(0)->text().contains("GPU"), Why(b).constData());
    QVERIFY(b->assemblyView()->toPlainText().isEmpty());
    QVERIFY(!b->busy() && b->buildButton()->isEnabled());
    // A document that does not parse: nothing starts, and the panel says why.
    w.SetText("def broken(:\n", "broken.py");
    QVERIFY(!b->Build());
    QVERIFY(b->statusLabel()->text().contains("does not parse"));
  }

  void aCrashingKernelShowsACrashedRowAndTheWindowLivesOn() {
    MainWindow w;
    w.show();
    w.SetText(kCrashThenAdd, "crash.py");
    BuildPanel* b = w.build();
    QVERIFY(b->SelectTarget("llvm"));
    b->numberBox()->setValue(1);
    b->repeatBox()->setValue(1);
    QVERIFY2(ProfileAndWait(b), Why(b).constData());
    QTableWidget* t = b->resultsTable();
    QVERIFY2(t->rowCount() == 2, Why(b).constData());
    int crash = Cell(t, 0, 0) == "crash" ? 0 : 1;
    QCOMPARE(Cell(t, crash, 0), QString("crash"));
    QVERIFY2(Cell(t, crash, 9).startsWith("crashed: SIGSEGV (invalid memory access"),
             qPrintable(Cell(t, crash, 9)));
    QCOMPARE(t->item(crash, 9)->foreground().color(), QColor("#c0392b"));
    QVERIFY(Cell(t, 1 - crash, 9).startsWith("ok"));
    QVERIFY2(b->statusLabel()->text().contains("1 failed (1 crashed)"), Why(b).constData());
    // The window, its document and the panel carry on: the same text profiles again.
    QVERIFY(w.isVisible());
    QVERIFY(w.editor()->toPlainText().contains("def crash"));
    QVERIFY(!b->busy() && b->profileButton()->isEnabled());
    QVERIFY2(ProfileAndWait(b), Why(b).constData());
    QCOMPARE(b->resultsTable()->rowCount(), 2);
  }

  void cudaBuildsButDoesNotRunWithoutAGpu() {
    BuildPanel b;
    auto* model = qobject_cast<QStandardItemModel*>(b.targetBox()->model());
    QVERIFY(model);
    int cuda = -1;
    for (int i = 0; i < b.targetBox()->count(); ++i) {
      if (b.targetBox()->itemText(i).startsWith("cuda")) cuda = i;
    }
    QVERIFY(cuda >= 0);
    std::string why;
    if (wb::workbench::CudaTargetUsable(&why)) QSKIP("a usable CUDA target is present");
    QCOMPARE(model->item(cuda)->toolTip(), QString::fromStdString(why));
    std::string build_why;
    if (!wb::workbench::CudaCanBuild(&build_why)) {
      // Nothing it could do here: greyed, unselectable, and the reason listed.
      QVERIFY(!model->item(cuda)->isEnabled());
      QVERIFY(b.targetStatus()->text().contains("cuda unavailable: " + QString::fromStdString(why)));
      QVERIFY(!b.SelectTarget("cuda"));
      QVERIFY(b.targetBox()->currentText().startsWith("llvm"));
      return;
    }
    // Kernels build (NVRTC) without a GPU: selectable for Build, Run and Profile greyed, the
    // reason on the status line, and the CUDA C and PTX shown after a build.
    QVERIFY(model->item(cuda)->isEnabled());
    QVERIFY(b.SelectTarget("cuda"));
    QVERIFY(b.targetStatus()->text().contains(QString::fromStdString(why)));
    QVERIFY(!b.runButton()->isEnabled());
    QVERIFY(!b.profileButton()->isEnabled());
  }

  void cancelALongProfile() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/elementwise.py", true));
    BuildPanel* b = w.build();
    // Far longer than the test may take: only Cancel ends it in time.
    b->numberBox()->setValue(200000);
    b->repeatBox()->setValue(1000);
    QSignalSpy progressed(b, &BuildPanel::progressed);
    QTest::mouseClick(b->profileButton(), Qt::LeftButton);
    QVERIFY(b->busy());
    QVERIFY(b->cancelButton()->isEnabled());
    QVERIFY(!b->profileButton()->isEnabled());
    // Cancel once timing has started.
    auto timing = [&] {
      for (const auto& args : progressed) {
        if (args[0].toString().startsWith("time main")) return true;
      }
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(timing(), 60000);
    QTest::mouseClick(b->cancelButton(), Qt::LeftButton);
    QVERIFY(b->WaitForJob(60000));
    QVERIFY2(b->statusLabel()->text().startsWith("Cancelled"), Why(b).constData());
    QCOMPARE(b->resultsTable()->rowCount(), 1);
    QVERIFY(Cell(b->resultsTable(), 0, 9).startsWith("cancelled"));
    QVERIFY(b->chart()->points().empty());
    QVERIFY(b->profileButton()->isEnabled() && !b->cancelButton()->isEnabled());
  }

  void cancelStopsOneLongCall() {
    MainWindow w;
    w.SetText(kSpin, "spin.py");
    BuildPanel* b = w.build();
    QVERIFY(b->SelectTarget("llvm"));
    b->numberBox()->setValue(1);
    b->repeatBox()->setValue(1);
    QSignalSpy progressed(b, &BuildPanel::progressed);
    QTest::mouseClick(b->runButton(), Qt::LeftButton);
    QVERIFY(b->busy());
    // Cancel once the one call has started: only killing its process ends it.
    auto running = [&] {
      for (const auto& args : progressed) {
        if (args[0].toString().startsWith("run and check main")) return true;
      }
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(running(), 60000);
    QTest::mouseClick(b->cancelButton(), Qt::LeftButton);
    QVERIFY(b->WaitForJob(60000));
    QVERIFY2(b->statusLabel()->text().startsWith("Cancelled"), Why(b).constData());
    QCOMPARE(b->resultsTable()->rowCount(), 1);
    QCOMPARE(Cell(b->resultsTable(), 0, 9), QString("cancelled: cancelled while it ran"));
    QVERIFY(b->runButton()->isEnabled() && !b->cancelButton()->isEnabled());
  }

  void themeSwitchPersists() {
    {
      MainWindow w;
      QAction* dark = nullptr;
      for (QAction* a : w.viewMenu()->actions()) {
        if (a->menu() && a->text().contains("Theme")) {
          for (QAction* t : a->menu()->actions()) {
            if (t->text().contains("Dark")) dark = t;
          }
        }
      }
      QVERIFY(dark);
      dark->trigger();
      QCOMPARE(w.theme(), MainWindow::Theme::kDark);
      QVERIFY(QApplication::palette().color(QPalette::Base).lightness() < 128);
    }
    QApplication::setPalette(QApplication::style()->standardPalette());
    {
      MainWindow w;  // a restart
      QCOMPARE(w.theme(), MainWindow::Theme::kDark);
      QVERIFY(QApplication::palette().color(QPalette::Base).lightness() < 128);
      w.SetTheme(MainWindow::Theme::kLight);
    }
    MainWindow w;
    QCOMPARE(w.theme(), MainWindow::Theme::kLight);
    QVERIFY(QApplication::palette().color(QPalette::Base).lightness() >= 128);
  }

  void windowStateAndSplittersPersist() {
    QList<int> sizes;
    {
      MainWindow w;
      w.resize(1200, 800);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      w.mainSplitter()->setSizes({300, 900});
      sizes = w.mainSplitter()->sizes();
      w.buildDock()->hide();
    }
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.size(), QSize(1200, 800));
    QCOMPARE(w.mainSplitter()->sizes(), sizes);
    QVERIFY(!w.buildDock()->isVisible());
    w.buildDock()->show();
  }

  void theAppSavesAScreenshotOfItsWindow() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("XDG_CONFIG_HOME", dir.filePath("config"));  // no remembered window or workspace
    QString png = dir.filePath("shot.png");
    QProcess app;
    app.setProcessEnvironment(env);
    app.start(WB_WORKBENCH_BIN, {":/examples/elementwise.py", "--tab", "schedule", "--screenshot", png});
    QVERIFY(app.waitForFinished(120000));
    QVERIFY2(app.exitCode() == 0, app.readAllStandardError().constData());
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 800 && image.height() >= 500);

    QProcess bad;
    bad.setProcessEnvironment(env);
    bad.start(WB_WORKBENCH_BIN, {"--tab", "nowhere"});
    QVERIFY(bad.waitForFinished(60000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(bad.readAllStandardError().contains("--tab takes 'passes' or 'schedule'"));
  }

  void buildShortcutsAreInTheMenus() {
    MainWindow w;
    QStringList found;
    for (QAction* a : w.buildMenu()->actions()) {
      if (!a->shortcut().isEmpty()) found << a->text().remove('&');
    }
    QVERIFY2(found.contains("Build") && found.contains("Run and check") && found.contains("Profile"),
             qPrintable(found.join(", ")));
  }
};

QTEST_MAIN(TestGuiBuild)
#include "tst_gui_build.moc"
