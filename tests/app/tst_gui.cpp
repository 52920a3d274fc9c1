// The desktop application driven through its real widgets, offscreen: open the bundled example,
// type an error and see it in the problems list, run a pipeline and read the before/after panes.
#include <QCheckBox>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include "code_editor.h"
#include "diff_view.h"
#include "main_window.h"
#include "pass_explorer.h"

using wb::app::MainWindow;

class TestGui : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    // The window saves its state and last workspace in QSettings: keep every run of this suite
    // apart from the user's settings and from the previous run.
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  void opensTheBundledExampleWithoutProblems() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    w.show();
    QVERIFY(w.editor()->toPlainText().contains("T.sblock(\"C\")"));
    QCOMPARE(w.problems()->count(), 0);
    QVERIFY(w.session().parsed());
  }

  void typingAnErrorShowsItOffTheUiThread() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    w.show();
    QSignalSpy analyzed(&w, &MainWindow::analysisFinished);
    QTextCursor cursor(w.editor()->document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText("\n    x = undefined_name_here\n");
    QVERIFY(analyzed.wait(5000));
    while (w.analysisPending()) QVERIFY(analyzed.wait(5000));
    QVERIFY(w.problems()->count() >= 1);
    QVERIFY2(w.problems()->item(0)->text().contains("error"),
             qPrintable(w.problems()->item(0)->text()));
    QVERIFY(!w.editor()->extraSelections().isEmpty());
    // Activating the problem moves the cursor to it.
    int line = w.problems()->item(0)->data(Qt::UserRole).toInt();
    Q_EMIT w.problems()->itemActivated(w.problems()->item(0));
    QCOMPARE(w.editor()->textCursor().blockNumber() + 1, line);
  }

  void runningAPipelineShowsEveryPassBeforeAndAfter() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    w.show();
    auto* px = w.passes();
    px->setPipelineText("LowerInitBlock, ConvertBlocksToOpaque, LowerOpaqueBlock, RemoveNoOp");
    QTest::mouseClick(px->runButton(), Qt::LeftButton);  // runs off the UI thread
    QTRY_COMPARE_WITH_TIMEOUT(px->passList()->count(), 4, 20000);
    QVERIFY(px->passList()->item(0)->text().contains("LowerInitBlock"));
    QVERIFY(px->passList()->item(3)->text().contains("(unchanged)"));
    px->passList()->setCurrentRow(0);
    QVERIFY(px->beforePane()->toPlainText().contains("with T.init():"));
    QVERIFY(!px->afterPane()->toPlainText().contains("with T.init():"));
    QVERIFY(px->afterPane()->toPlainText().contains("if vk == 0:"));
    // The tints come from a worker thread, through the event loop.
    QTRY_VERIFY_WITH_TIMEOUT(!px->diffPanes()->pending(), 20000);
    QVERIFY(px->changedLinesBefore() > 0);
    QVERIFY(px->changedLinesAfter() > 0);
    px->passList()->setCurrentRow(2);
    QVERIFY(!px->afterPane()->toPlainText().contains("T.sblock"));
    // Hiding unchanged passes drops RemoveNoOp.
    px->hideUnchanged()->setChecked(true);
    QCOMPARE(px->passList()->count(), 3);
  }

  void aFailingPipelineSaysWhyAndChangesNothing() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    QString before = w.editor()->toPlainText();
    w.RunPipeline("LowerOpaqueBlock");
    QVERIFY2(w.passes()->statusLabel()->text().contains("pass 'LowerOpaqueBlock' failed"),
             qPrintable(w.passes()->statusLabel()->text()));
    w.RunPipeline("NoSuchPass");
    QVERIFY(w.passes()->statusLabel()->text().contains("unknown pass 'NoSuchPass'"));
    QCOMPARE(w.editor()->toPlainText(), before);
  }

  void formatRewritesToCanonicalText() {
    MainWindow w;
    w.SetText("from tvm.script import tirx as T\n@T.prim_func\ndef f(A: T.Buffer(4, \"float32\")):\n"
              "    for i in T.serial(0, 4):\n        A[i] = 1.0\n",
              "f.py");
    w.FormatDocument();
    QVERIFY2(w.editor()->toPlainText().contains("for i in range(4):"),
             qPrintable(w.editor()->toPlainText()));
    QVERIFY(w.editor()->toPlainText().contains("A[i] = T.float32(1.0)"));
  }
};

QTEST_MAIN(TestGui)
#include "tst_gui.moc"
