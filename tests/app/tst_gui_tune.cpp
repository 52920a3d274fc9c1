// The Tune tab of the Build & Profile panel, driven through the real widgets offscreen: a small
// matmul tuned for a few trials into a temporary work directory (tasks, records and the chart
// filled; the best schedule opened in the schedule pane as editable steps that replay), and
// Cancel stopping a long run. No timing assertions: the figures only have to exist.
#include <QLabel>
#include <QListWidget>
#include <QElapsedTimer>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QLineEdit>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "build_panel.h"
#include "main_window.h"
#include "schedule_pane.h"
#include "tune_panel.h"

using wb::app::MainWindow;
using wb::app::TunePanel;

namespace {

const char* kMatmul = R"(# from tvm.script import tirx as T

@T.prim_func
def mm(A: T.Buffer((48, 48), "float32"), B: T.Buffer((48, 48), "float32"), C: T.Buffer((48, 48), "float32")):
    for i, j, k in T.grid(48, 48, 48):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

bool WaitForAnalysis(MainWindow& w) {
  QElapsedTimer t;
  t.start();
  while (w.analysisPending() && t.elapsed() < 20000) QTest::qWait(20);
  return !w.analysisPending();
}

}  // namespace

class TstGuiTune : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void tuneFillsTasksRecordsAndChartAndOpensTheBest() {
    QTemporaryDir dir;
    MainWindow w;
    w.SetText(kMatmul, "mm.py");
    QVERIFY(WaitForAnalysis(w));
    TunePanel* t = w.tune();
    QCOMPARE(w.build()->views()->indexOf(t) >= 0, true);
    t->trialsBox()->setValue(6);
    t->workDirEdit()->setText(dir.path());
    QTest::mouseClick(t->tuneButton(), Qt::LeftButton);
    QVERIFY(t->busy());
    QVERIFY(!t->tuneButton()->isEnabled() && t->cancelButton()->isEnabled());
    QVERIFY2(t->WaitForJob(240000), qPrintable(t->statusLabel()->text()));
    QVERIFY2(t->lastResult() && t->lastResult()->error.empty(), qPrintable(t->statusLabel()->text()));
    QVERIFY2(t->statusLabel()->text().contains("trial(s)"), qPrintable(t->statusLabel()->text()));
    QCOMPARE(t->taskTable()->rowCount(), 1);
    QCOMPARE(t->taskTable()->item(0, 0)->text(), QString("mm"));
    QVERIFY(t->taskTable()->item(0, 2)->text().toInt() > 0);
    QVERIFY(t->taskTable()->item(0, 4)->text() != "-");  // a best median
    // The records of the selected task, from the work directory.
    QVERIFY(t->recordTable()->rowCount() > 0);
    QVERIFY(!t->chart()->series().empty());
    QVERIFY(t->chart()->series().begin()->second.front().gflops > 0);

    // The best schedule opens in the schedule pane as steps on the document's function.
    t->recordTable()->clearSelection();
    t->recordTable()->setCurrentCell(-1, -1);
    const std::string best = t->lastResult()->tasks[0].best_trace;
    if (best.empty()) {
      QVERIFY(!t->OpenSelected());  // the function as written won: nothing to open
    } else {
      QVERIFY2(t->OpenSelected(), qPrintable(t->statusLabel()->text()));
      QVERIFY2(w.schedule()->stepList()->count() > 0, qPrintable(w.schedule()->messageLabel()->text()));
      QCOMPARE(w.schedule()->session().func_name(), std::string("mm"));
      QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(w.schedule()));
    }
    // A record opens the same way.
    int ok_row = -1;
    for (int r = 0; r < t->recordTable()->rowCount(); ++r) {
      if (t->recordTable()->item(r, 1)->text() == "ok" && t->recordTable()->item(r, 2)->text() != "(as written)") ok_row = r;
    }
    if (ok_row >= 0) {
      t->recordTable()->selectRow(ok_row);
      QVERIFY2(t->OpenSelected(), qPrintable(t->statusLabel()->text()));
      QVERIFY(w.schedule()->stepList()->count() > 0);
    }
  }

  void cancelStopsARun() {
    QTemporaryDir dir;
    MainWindow w;
    w.SetText(kMatmul, "mm.py");
    QVERIFY(WaitForAnalysis(w));
    TunePanel* t = w.tune();
    t->trialsBox()->setValue(5000);
    t->workDirEdit()->setText(dir.path());
    QVERIFY(t->Tune());
    QVERIFY(!t->Tune());  // one run at a time
    QTRY_VERIFY_WITH_TIMEOUT(t->progressBar()->value() >= 1, 120000);
    QTest::mouseClick(t->cancelButton(), Qt::LeftButton);
    QVERIFY2(t->WaitForJob(120000), qPrintable(t->statusLabel()->text()));
    QVERIFY(t->lastResult() && t->lastResult()->cancelled);
    QVERIFY2(t->statusLabel()->text().startsWith("Cancelled"), qPrintable(t->statusLabel()->text()));
    QVERIFY(t->lastResult()->trials < 5000);
    QVERIFY(t->tuneButton()->isEnabled());
  }

  void nothingToTuneSaysWhy() {
    MainWindow w;
    w.SetText("this is not TVMScript (", "bad.py");
    QVERIFY(WaitForAnalysis(w));
    QVERIFY(!w.tune()->Tune());
    QVERIFY2(w.tune()->statusLabel()->text().contains("does not parse"), qPrintable(w.tune()->statusLabel()->text()));
  }
};

QTEST_MAIN(TstGuiTune)
#include "tst_gui_tune.moc"
