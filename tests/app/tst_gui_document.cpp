// The document is never lost, driven through the real widgets offscreen: the modified mark, the
// save / discard / cancel prompt before quitting or opening another file (each answer, clicked
// in the real message box), autosave to a recovery file and, after the workbench's process is
// killed (SIGKILL, a child process running the window), the offer to recover it on the next
// start; New and Save; Format as one undoable edit that keeps the cursor's place; find and
// replace; and a file that is opened, never run.
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTimer>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>

#include "code_editor.h"
#include "find_bar.h"
#include "main_window.h"
#include "recovery.h"

using wb::app::FindBar;
using wb::app::MainWindow;
using wb::app::Recovery;
using wb::app::RecoveryFile;

namespace {

// Canonical TVMScript (as Format prints it: no newline at the end).
const char kProgram[] =
    "# from tvm.script import tirx as T\n"
    "# from tvm.tirx.layout import Axis\n"
    "\n"
    "@T.prim_func\n"
    "def f(A: T.Buffer((4,), \"float32\")):\n"
    "    for i in range(4):\n"
    "        A[i] = T.float32(1.0)";

// What a message box said when it was answered.
struct Answered {
  bool seen = false;
  QString text;
  QString informative;
  QString detailed;
};

// Clicks `pick(box)` in the next modal message box named `name` once it is up (the box runs its
// own event loop: it is answered from a timer). Gives up after 20 s, leaving `seen` false.
std::shared_ptr<Answered> AnswerBox(const QString& name,
                                    std::function<QAbstractButton*(QMessageBox*)> pick) {
  auto answered = std::make_shared<Answered>();
  auto* timer = new QTimer;
  auto tries = std::make_shared<int>(0);
  QObject::connect(timer, &QTimer::timeout, [=] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (box && box->objectName() == name && box->isVisible()) {
      answered->seen = true;
      answered->text = box->text();
      answered->informative = box->informativeText();
      answered->detailed = box->detailedText();
      timer->stop();
      timer->deleteLater();
      pick(box)->click();
    } else if (++*tries > 1000) {
      timer->stop();
      timer->deleteLater();
    }
  });
  timer->start(20);
  return answered;
}

std::shared_ptr<Answered> AnswerSavePrompt(QMessageBox::StandardButton answer) {
  return AnswerBox("savePrompt", [answer](QMessageBox* box) { return box->button(answer); });
}

std::shared_ptr<Answered> AnswerRecoveryPrompt(const QString& button) {
  return AnswerBox("recoveryPrompt", [button](QMessageBox* box) -> QAbstractButton* {
    for (QAbstractButton* b : box->buttons()) {
      if (b->text().remove('&') == button) return b;
    }
    return box->buttons().value(0);
  });
}

// Fails the test (instead of hanging it) if a modal box comes up where none should: it is
// closed and counted.
struct NoBoxExpected {
  QTimer timer;
  int boxes = 0;
  NoBoxExpected() {
    QObject::connect(&timer, &QTimer::timeout, [this] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        ++boxes;
        box->reject();
      }
    });
    timer.start(20);
  }
};

QString ReadFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return "<unreadable>";
  return QString::fromUtf8(f.readAll());
}

bool WriteFile(const QString& path, const QString& text) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(text.toUtf8()) >= 0;
}

// Types at the end of the document, as a user would (an undoable edit that marks it modified).
void TypeAtEnd(MainWindow& w, const QString& text) {
  QTextCursor cursor(w.editor()->document());
  cursor.movePosition(QTextCursor::End);
  cursor.insertText(text);
}

const char kCrashChild[] = "--crash-child";

// The child process of the crash test: the window on FILE, TEXT typed into it, "autosaved" on
// stdout once the recovery copy is written, then it waits to be killed.
int RunCrashChild(int argc, char** argv) {
  QStandardPaths::setTestModeEnabled(true);
  QApplication app(argc, argv);
  if (argc < 4) return 2;
  MainWindow w;
  if (!w.OpenFile(QString::fromLocal8Bit(argv[2]), true)) return 3;
  w.show();
  TypeAtEnd(w, QString::fromLocal8Bit(argv[3]));
  QTimer poll;
  QObject::connect(&poll, &QTimer::timeout, [&] {
    if (!QFile::exists(w.recovery().file())) return;
    poll.stop();
    std::fputs("autosaved\n", stdout);
    std::fflush(stdout);
  });
  poll.start(50);
  return app.exec();
}

}  // namespace

class TestGuiDocument : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    // The window keeps its state in QSettings and its recovery copies under the user's data
    // directory: keep this suite apart from the user's and from its previous runs.
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(dir_.isValid());
  }

  void init() { QDir(Recovery::DefaultDirectory()).removeRecursively(); }

  void theTitleMarksUnsavedChanges() {
    QString path = dir_.filePath("title.py");
    QVERIFY(WriteFile(path, kProgram));
    MainWindow w;
    QVERIFY(w.OpenFile(path, true));
    QVERIFY(w.windowTitle().contains("title.py[*]"));
    QVERIFY(!w.isWindowModified());
    TypeAtEnd(w, "\n# edit");
    QVERIFY(w.isWindowModified());
    // Undone back to the saved text: nothing unsaved.
    w.editor()->undo();
    QVERIFY(!w.isWindowModified());
    TypeAtEnd(w, "\n# edit");
    QVERIFY(w.Save());
    QVERIFY(!w.isWindowModified());
    QCOMPARE(ReadFile(path), QString(kProgram) + "\n# edit");
  }

  void quitAsksAboutUnsavedChanges_data() {
    QTest::addColumn<int>("answer");
    QTest::addColumn<bool>("closes");
    QTest::addColumn<bool>("written");
    QTest::newRow("save") << int(QMessageBox::Save) << true << true;
    QTest::newRow("discard") << int(QMessageBox::Discard) << true << false;
    QTest::newRow("cancel") << int(QMessageBox::Cancel) << false << false;
  }

  void quitAsksAboutUnsavedChanges() {
    QFETCH(int, answer);
    QFETCH(bool, closes);
    QFETCH(bool, written);
    QString path = dir_.filePath("quit.py");
    QVERIFY(WriteFile(path, kProgram));
    MainWindow w;
    QVERIFY(w.OpenFile(path, true));
    w.show();
    TypeAtEnd(w, "\n# unsaved");
    w.Autosave();
    QVERIFY(QFile::exists(w.recovery().file()));
    auto box = AnswerSavePrompt(QMessageBox::StandardButton(answer));
    QCOMPARE(w.close(), closes);
    QVERIFY(box->seen);
    QVERIFY2(box->text.contains("quit.py has unsaved changes"), qPrintable(box->text));
    QCOMPARE(ReadFile(path), written ? QString(kProgram) + "\n# unsaved" : QString(kProgram));
    // Saved or discarded, the recovery copy goes; cancelled, the work (and its copy) stays.
    QCOMPARE(QFile::exists(w.recovery().file()), !closes);
    QCOMPARE(w.isVisible(), !closes);
    QVERIFY(w.editor()->toPlainText().endsWith("\n# unsaved"));
  }

  void quittingAnUnmodifiedDocumentAsksNothing() {
    QString path = dir_.filePath("clean.py");
    QVERIFY(WriteFile(path, kProgram));
    MainWindow w;
    QVERIFY(w.OpenFile(path, true));
    w.show();
    NoBoxExpected watch;
    QVERIFY(w.close());
    QCOMPARE(watch.boxes, 0);
  }

  void openRecentAsksAboutUnsavedChanges_data() {
    QTest::addColumn<int>("answer");
    QTest::addColumn<bool>("replaced");
    QTest::addColumn<bool>("written");
    QTest::newRow("save") << int(QMessageBox::Save) << true << true;
    QTest::newRow("discard") << int(QMessageBox::Discard) << true << false;
    QTest::newRow("cancel") << int(QMessageBox::Cancel) << false << false;
  }

  void openRecentAsksAboutUnsavedChanges() {
    QFETCH(int, answer);
    QFETCH(bool, replaced);
    QFETCH(bool, written);
    QString a = dir_.filePath("a.py"), b = dir_.filePath("b.py");
    QVERIFY(WriteFile(a, kProgram));
    QVERIFY(WriteFile(b, QString(kProgram) + "\n# this is b"));
    MainWindow w;
    QVERIFY(w.OpenFile(b, true));
    QVERIFY(w.OpenFile(a, true));
    w.show();
    TypeAtEnd(w, "\n# edit of a");
    // File > Open Recent > b.py, as a user picks it.
    Q_EMIT w.recentMenu()->aboutToShow();
    QAction* open_b = nullptr;
    for (QAction* action : w.recentMenu()->actions()) {
      if (action->text() == QFileInfo(b).absoluteFilePath()) open_b = action;
    }
    QVERIFY(open_b);
    auto box = AnswerSavePrompt(QMessageBox::StandardButton(answer));
    open_b->trigger();
    QVERIFY(box->seen);
    QCOMPARE(ReadFile(a), written ? QString(kProgram) + "\n# edit of a" : QString(kProgram));
    if (replaced) {
      QCOMPARE(w.documentPath(), b);
      QVERIFY(w.editor()->toPlainText().endsWith("\n# this is b"));
      QVERIFY(!w.documentModified());
    } else {
      QCOMPARE(w.documentPath(), a);
      QVERIFY(w.editor()->toPlainText().endsWith("\n# edit of a"));
      QVERIFY(w.documentModified());
    }
  }

  void newDocumentAsksFirstThenStartsUntitled() {
    QString path = dir_.filePath("new.py");
    QVERIFY(WriteFile(path, kProgram));
    MainWindow w;
    QVERIFY(w.OpenFile(path, true));
    w.show();
    TypeAtEnd(w, "\n# edit");
    QAction* new_action = nullptr;
    for (QAction* action : w.findChildren<QAction*>()) {
      if (action->shortcut() == QKeySequence(QKeySequence::New)) new_action = action;
    }
    QVERIFY(new_action);
    auto cancel = AnswerSavePrompt(QMessageBox::Cancel);
    new_action->trigger();
    QVERIFY(cancel->seen);
    QCOMPARE(w.documentPath(), path);
    auto discard = AnswerSavePrompt(QMessageBox::Discard);
    new_action->trigger();
    QVERIFY(discard->seen);
    QVERIFY(w.documentPath().isEmpty());
    QVERIFY(w.editor()->toPlainText().isEmpty());
    QVERIFY(w.windowTitle().contains("untitled"));
    QCOMPARE(ReadFile(path), QString(kProgram));
    // An untitled document is saved where the user says, and is then that file.
    TypeAtEnd(w, kProgram);
    QString saved = dir_.filePath("saved_as.py");
    QVERIFY(w.SaveTo(saved));
    QCOMPARE(w.documentPath(), saved);
    QCOMPARE(ReadFile(saved), QString(kProgram));
    QVERIFY(!w.isWindowModified());
  }

  void autosaveWritesARecoveryCopyNeverTheUsersFile() {
    QString path = dir_.filePath("autosave.py");
    QVERIFY(WriteFile(path, kProgram));
    MainWindow w;
    QVERIFY(w.OpenFile(path, true));
    TypeAtEnd(w, "\n# typed");
    QVERIFY(!QFile::exists(w.recovery().file()));
    // A few seconds after the change, by itself.
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(w.recovery().file()), MainWindow::kAutosaveDelayMs + 8000);
    QVERIFY(w.recovery().file().startsWith(Recovery::DefaultDirectory()));
    QCOMPARE(ReadFile(path), QString(kProgram));
    QFile copy(w.recovery().file());
    QVERIFY(copy.open(QIODevice::ReadOnly));
    QJsonObject o = QJsonDocument::fromJson(copy.readAll()).object();
    QCOMPARE(o["text"].toString(), QString(kProgram) + "\n# typed");
    QCOMPARE(o["document"].toString(), path);
    // A live window's copy is not offered to anyone.
    QVERIFY(Recovery().Pending().isEmpty());
    QVERIFY(w.Save());
    QVERIFY(!QFile::exists(w.recovery().file()));
  }

  // The whole story: the workbench (a child process) has unsaved changes autosaved, is killed,
  // and the next start offers them back.
  void afterAKillTheNextStartRecoversTheUnsavedText() {
    QString path = dir_.filePath("crash.py");
    QVERIFY(WriteFile(path, kProgram));
    const QString typed = "\n# typed before the crash";
    KillChildAfterAutosave(path, typed);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(ReadFile(path), QString(kProgram));
    QList<RecoveryFile> pending = Recovery().Pending();
    QCOMPARE(pending.size(), 1);

    MainWindow w;
    QVERIFY(w.OpenFile(path, true));  // what the start opens anyway
    auto box = AnswerRecoveryPrompt("Recover");
    QVERIFY(w.OfferRecovery());
    QVERIFY(box->seen);
    QVERIFY2(box->text.contains(path), qPrintable(box->text));
    // What would be restored: where it differs from the file, and the text itself.
    QVERIFY2(box->informative.contains("line 8 differs"), qPrintable(box->informative));
    QCOMPARE(box->detailed, QString(kProgram) + typed);
    QCOMPARE(w.editor()->toPlainText(), QString(kProgram) + typed);
    QCOMPARE(w.documentPath(), path);
    QVERIFY(w.isWindowModified());
    QCOMPARE(ReadFile(path), QString(kProgram));  // nothing written until the user saves
    QVERIFY(Recovery().Pending().isEmpty());       // this process holds the copy now
    QVERIFY(QFile::exists(pending[0].file));
    QVERIFY(w.Save());
    QCOMPARE(ReadFile(path), QString(kProgram) + typed);
    QVERIFY(!QFile::exists(pending[0].file));
  }

  void aDeclinedRecoveryIsRemovedAndOneKeptForLaterStays() {
    QString path = dir_.filePath("declined.py");
    QVERIFY(WriteFile(path, kProgram));
    KillChildAfterAutosave(path, "\n# lost on purpose");
    if (QTest::currentTestFailed()) return;
    QCOMPARE(Recovery().Pending().size(), 1);
    {
      MainWindow w;
      QVERIFY(w.OpenFile(path, true));
      auto later = AnswerRecoveryPrompt("Keep for later");
      QVERIFY(!w.OfferRecovery());
      QVERIFY(later->seen);
      QCOMPARE(w.editor()->toPlainText(), QString(kProgram));
      QCOMPARE(Recovery().Pending().size(), 1);
      // Editing the same file meanwhile does not overwrite the copy left behind.
      TypeAtEnd(w, "\n# another edit");
      w.Autosave();
      QCOMPARE(Recovery().Pending().size(), 1);
      QCOMPARE(Recovery().Pending()[0].text, QString(kProgram) + "\n# lost on purpose");
      w.editor()->document()->setModified(false);
    }
    MainWindow w;
    QVERIFY(w.OpenFile(path, true));
    auto discard = AnswerRecoveryPrompt("Discard");
    QVERIFY(!w.OfferRecovery());
    QVERIFY(discard->seen);
    QVERIFY(Recovery().Pending().isEmpty());
    QCOMPARE(w.editor()->toPlainText(), QString(kProgram));
    QCOMPARE(ReadFile(path), QString(kProgram));
    NoBoxExpected watch;
    QVERIFY(!w.OfferRecovery());
    QCOMPARE(watch.boxes, 0);
  }

  void formatIsOneUndoableEditThatKeepsTheCursor() {
    MainWindow w;
    w.SetText(kProgram, "f.py");
    // Already canonical, except for the loop someone wrote the long way.
    QTextCursor cursor(w.editor()->document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText("\n    for j in T.serial(0, 4):\n        A[j] = T.float32(2.0)");
    QString typed = w.editor()->toPlainText();
    // The cursor on `A` of the first store, before the change.
    QTextBlock store = w.editor()->document()->findBlockByNumber(6);
    QVERIFY(store.text().contains("A[i]"));
    QTextCursor at(store);
    at.setPosition(store.position() + store.text().indexOf("A[i]"));
    w.editor()->setTextCursor(at);

    w.FormatDocument();
    QVERIFY2(w.editor()->toPlainText().contains("for j in range(4):"), qPrintable(w.editor()->toPlainText()));
    QTextCursor after = w.editor()->textCursor();
    QCOMPARE(after.block().text().mid(after.positionInBlock(), 4), QString("A[i]"));
    QCOMPARE(after.blockNumber(), 6);
    QVERIFY(w.isWindowModified());

    // One undo takes the whole format back; the edits before it are still in the history.
    w.editor()->undo();
    QCOMPARE(w.editor()->toPlainText(), typed);
    w.editor()->undo();
    QCOMPARE(w.editor()->toPlainText(), QString(kProgram));
    QVERIFY(!w.isWindowModified());
  }

  void formatKeepsTheLineOfACursorInsideTheChange() {
    MainWindow w;
    w.SetText(QString(kProgram).replace("range(4)", "T.serial(0, 4)"), "f.py");
    QTextBlock loop = w.editor()->document()->findBlockByNumber(5);
    QVERIFY(loop.text().contains("T.serial"));
    QTextCursor at(loop);
    at.setPosition(loop.position() + 6);
    w.editor()->setTextCursor(at);
    w.FormatDocument();
    QCOMPARE(w.editor()->toPlainText(), QString(kProgram));
    QCOMPARE(w.editor()->textCursor().blockNumber(), 5);
    QCOMPARE(w.editor()->textCursor().positionInBlock(), 6);
  }

  void findWrapsAndCountsWithItsOptions() {
    MainWindow w;
    w.SetText("alpha beta Alpha\nbeta alphabet\n", "find.py");
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.editor()->setFocus();
    FindBar* bar = w.findBar();
    QVERIFY(!bar->isVisible());
    QTest::keyClick(w.editor(), Qt::Key_F, Qt::ControlModifier);
    QVERIFY(bar->isVisible());
    QVERIFY(!bar->replaceField()->isVisible());
    QVERIFY(bar->findField()->hasFocus());
    QTest::keyClicks(bar->findField(), "alpha");
    QCOMPARE(bar->statusLabel()->text(), QString("3 matches"));
    QCOMPARE(w.editor()->textCursor().selectionStart(), 0);  // found as typed
    QVERIFY(bar->FindNext());
    QCOMPARE(w.editor()->textCursor().selectionStart(), 11);  // Alpha: case ignored
    QVERIFY(bar->FindNext());
    QCOMPARE(w.editor()->textCursor().selectionStart(), 22);  // in alphabet
    QVERIFY(bar->FindNext());
    QCOMPARE(w.editor()->textCursor().selectionStart(), 0);  // wrapped
    QVERIFY(bar->FindPrevious());
    QCOMPARE(w.editor()->textCursor().selectionStart(), 22);  // wrapped backwards
    bar->wholeWords()->setChecked(true);
    QCOMPARE(bar->statusLabel()->text(), QString("2 matches"));
    bar->caseSensitive()->setChecked(true);
    QCOMPARE(bar->statusLabel()->text(), QString("1 match"));
    bar->findField()->setText("gamma");
    QVERIFY(!bar->FindNext());
    QCOMPARE(bar->statusLabel()->text(), QString("no match"));
    QTest::keyClick(bar->findField(), Qt::Key_Escape);
    QVERIFY(!bar->isVisible());
    QVERIFY(w.editor()->hasFocus());
  }

  void replaceOneAndReplaceAllInOneUndo() {
    MainWindow w;
    const QString text = "beta alpha beta\nbetamax beta\n";
    w.SetText(text, "replace.py");
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.editor()->setFocus();
    QTest::keyClick(w.editor(), Qt::Key_H, Qt::ControlModifier);
    FindBar* bar = w.findBar();
    QVERIFY(bar->replaceField()->isVisible());
    bar->findField()->setText("beta");
    bar->wholeWords()->setChecked(true);
    bar->replaceField()->setText("gamma");
    // The first Replace selects the first match, the next replaces it and moves on.
    QVERIFY(bar->ReplaceCurrent());
    QCOMPARE(w.editor()->toPlainText(), text);
    QVERIFY(bar->ReplaceCurrent());
    QCOMPARE(w.editor()->toPlainText(), QString("gamma alpha beta\nbetamax beta\n"));
    QCOMPARE(w.editor()->textCursor().selectedText(), QString("beta"));
    QCOMPARE(bar->ReplaceAll(), 2);
    QCOMPARE(w.editor()->toPlainText(), QString("gamma alpha gamma\nbetamax gamma\n"));
    QCOMPARE(bar->statusLabel()->text(), QString("replaced 2 matches"));
    w.editor()->undo();
    QCOMPARE(w.editor()->toPlainText(), QString("gamma alpha beta\nbetamax beta\n"));
    w.editor()->undo();
    QCOMPARE(w.editor()->toPlainText(), text);
  }

  void openingAFileNeverRunsIt() {
    QString marker = dir_.filePath("ran");
    QString path = dir_.filePath("hostile.py");
    QVERIFY(WriteFile(path, QString("import os\nos.system(\"touch %1\")\nopen(\"%1\", \"w\")\n"
                                    "exec(\"open('%1', 'w')\")\n")
                                .arg(marker)));
    MainWindow w;
    QVERIFY(w.OpenFile(path, true));
    w.FormatDocument();
    w.RunPipeline("LegalizeOps");
    QVERIFY(w.editor()->toPlainText().contains("os.system"));
    QVERIFY(!QFile::exists(marker));
  }

 private:
  // Runs the window in a child process on `path`, types `typed`, waits for its recovery copy,
  // then kills it with SIGKILL: no destructor, no close event, as in a crash.
  void KillChildAfterAutosave(const QString& path, const QString& typed) {
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(QCoreApplication::applicationFilePath(), {kCrashChild, path, typed});
    QVERIFY(child.waitForStarted(10000));
    QByteArray out;
    while (!out.contains("autosaved") && child.state() == QProcess::Running) {
      child.waitForReadyRead(30000);
      out += child.readAllStandardOutput();
    }
    QVERIFY2(out.contains("autosaved"), out.constData());
    child.kill();  // SIGKILL
    QVERIFY(child.waitForFinished(10000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);
  }

  QTemporaryDir dir_;
};

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], kCrashChild) == 0) return RunCrashChild(argc, argv);
  QApplication app(argc, argv);
  TestGuiDocument test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_gui_document.moc"
