// The editor's language features driven through the real widgets, offscreen: the symbol popup,
// go to definition, find references, occurrence highlights, hover (the function the tooltip
// uses, and the tooltip event itself), completion and signature help; and every action on text
// that does not parse, on an empty document and at the last position, doing nothing harmful.
#include <QAction>
#include <QCompleter>
#include <QDockWidget>
#include <QFile>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QStatusBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QTextBlock>
#include <QToolTip>
#include <QTreeWidget>

#include "code_editor.h"
#include "editor_analysis.h"
#include "main_window.h"
#include "references_view.h"
#include "symbol_picker.h"

using wb::app::CodeEditor;
using wb::app::MainWindow;

namespace {

// Puts the cursor on the `nth` (0-based) occurrence of `word` in line `line` (1-based), one
// character into the word.
void PlaceCursor(CodeEditor* editor, int line, const QString& word, int nth = 0) {
  QTextBlock block = editor->document()->findBlockByNumber(line - 1);
  int column = -1;
  for (int i = 0; i <= nth; ++i) column = block.text().indexOf(word, column + 1);
  QVERIFY2(column >= 0, qPrintable(block.text()));
  QTextCursor cursor(block);
  cursor.setPosition(block.position() + column + std::min<int>(1, word.size() - 1));
  editor->setTextCursor(cursor);
}

void WaitForAnalysis(CodeEditor* editor) {
  QTRY_VERIFY_WITH_TIMEOUT(editor->analysis()->upToDate(), 10000);
}

// Opens `path` in the shown, active window with the editor focused, as a user would have it.
[[nodiscard]] bool OpenShown(MainWindow& w, const QString& path) {
  if (!w.OpenFile(path, true)) return false;
  w.show();
  if (!QTest::qWaitForWindowActive(&w)) return false;
  w.editor()->setFocus();
  return true;
}

QAction* GoAction(MainWindow& w, const QString& text) {
  auto* go = w.menuBar()->findChild<QMenu*>("goMenu");
  if (!go) return nullptr;
  for (QAction* a : go->actions()) {
    if (a->text().remove('&') == text) return a;
  }
  return nullptr;
}

}  // namespace

class TestGuiEditor : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    // The window saves its state and last workspace in QSettings: keep every run of this suite
    // apart from the user's settings and from the previous run.
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  void goMenuHasTheActionsAndTheirShortcuts() {
    MainWindow w;
    QAction* symbol = GoAction(w, "Go to Symbol...");
    QVERIFY(symbol);
    QVERIFY(symbol->shortcuts().contains(QKeySequence("Ctrl+Shift+O")));
    QVERIFY(symbol->shortcuts().contains(QKeySequence("Ctrl+P")));
    QVERIFY(GoAction(w, "Go to Definition"));
    QCOMPARE(GoAction(w, "Go to Definition")->shortcut(), QKeySequence(Qt::Key_F12));
    QCOMPARE(GoAction(w, "Find References")->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F12));
    QCOMPARE(GoAction(w, "Complete")->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Space));
  }

  void symbolPopupFiltersAndJumps() {
    MainWindow w;
    QVERIFY(OpenShown(w, ":/examples/matmul.py"));
    CodeEditor* editor = w.editor();
    QTest::keyClick(editor, Qt::Key_O, Qt::ControlModifier | Qt::ShiftModifier);
    auto* picker = editor->symbolPicker();
    QTRY_VERIFY(picker->isVisible());
    // The function, its three parameter buffers and the block, each with its kind.
    QCOMPARE(picker->list()->topLevelItemCount(), 5);
    QStringList kinds;
    for (int i = 0; i < 5; ++i) kinds << picker->list()->topLevelItem(i)->text(1);
    QVERIFY2(kinds.contains("function") && kinds.contains("block") && kinds.count("buffer") == 3,
             qPrintable(kinds.join(",")));
    // A fuzzy filter: "mn" is only in "main".
    QTest::keyClicks(picker->filter(), "mn");
    QCOMPARE(picker->list()->topLevelItemCount(), 1);
    QTest::keyClick(picker->filter(), Qt::Key_Return);
    QVERIFY(!picker->isVisible());
    QCOMPARE(editor->textCursor().blockNumber() + 1, 8);
    QCOMPARE(editor->textCursor().selectedText(), QString("main"));

    // The block C is inside main: its container says so; Escape closes without moving.
    editor->ShowSymbolPicker();
    QTest::keyClicks(picker->filter(), "C");
    QTreeWidgetItem* block = nullptr;
    for (int i = 0; i < picker->list()->topLevelItemCount(); ++i) {
      if (picker->list()->topLevelItem(i)->text(1) == "block") block = picker->list()->topLevelItem(i);
    }
    QVERIFY(block);
    QCOMPARE(block->text(2), QString("main"));
    QTest::keyClick(picker->filter(), Qt::Key_Escape);
    QVERIFY(!picker->isVisible());
    QCOMPARE(editor->textCursor().blockNumber() + 1, 8);

    // ":line:column" goes to a place (Ctrl+P, as in other editors' quick open).
    QTest::keyClick(editor, Qt::Key_P, Qt::ControlModifier);
    QTRY_VERIFY(picker->isVisible());
    QTest::keyClicks(picker->filter(), ":12:13");
    QCOMPARE(picker->list()->topLevelItemCount(), 1);
    QTest::keyClick(picker->filter(), Qt::Key_Return);
    QCOMPARE(editor->textCursor().blockNumber() + 1, 12);
    QCOMPARE(editor->textCursor().positionInBlock(), 12);
  }

  void symbolPopupArrowKeysChooseAnotherRow() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/softmax.py", true));
    CodeEditor* editor = w.editor();
    editor->ShowSymbolPicker();
    auto* picker = editor->symbolPicker();
    QTest::keyClicks(picker->filter(), "row_sum");
    QCOMPARE(picker->list()->topLevelItemCount(), 2);  // the buffer and the block
    QTest::keyClick(picker->filter(), Qt::Key_Down);
    QTreeWidgetItem* second = picker->list()->topLevelItem(1);
    QCOMPARE(picker->list()->currentItem(), second);
    QTest::keyClick(picker->filter(), Qt::Key_Enter);
    QCOMPARE(editor->textCursor().selectedText(), QString("row_sum"));
    QString line = editor->textCursor().block().text();
    QVERIFY2(second->text(1) == "block" ? line.contains("T.sblock(\"row_sum\")") : line.contains("row_sum = "),
             qPrintable(line));
  }

  void fuzzyScoreRanksPrefixThenSubstringThenSubsequence() {
    using wb::app::FuzzyScore;
    QCOMPARE(FuzzyScore("xyz", "row_sum"), -1);
    QVERIFY(FuzzyScore("row", "row_sum") > FuzzyScore("sum", "row_sum"));
    QVERIFY(FuzzyScore("sum", "row_sum") > FuzzyScore("rsm", "row_sum"));
    QVERIFY(FuzzyScore("rsm", "row_sum") > 0);
    QVERIFY(FuzzyScore("RoW", "row_sum") > 0);
  }

  void f12OnABufferUseLandsOnItsDefinition() {
    MainWindow w;
    QVERIFY(OpenShown(w, ":/examples/matmul.py"));
    CodeEditor* editor = w.editor();
    PlaceCursor(editor, 18, "A[vi, vk]");
    QTest::keyClick(editor, Qt::Key_F12);
    QCOMPARE(editor->textCursor().blockNumber() + 1, 8);
    QCOMPARE(editor->textCursor().selectedText(), QString("A"));
    QVERIFY(editor->textCursor().block().text().mid(editor->textCursor().positionInBlock()).startsWith(": T.Buffer"));

    // With Ctrl held the name under the mouse reads as a link; Ctrl+click follows it.
    PlaceCursor(editor, 18, "B[vk, vj]");
    QRect at = editor->cursorRect();
    QMouseEvent move(QEvent::MouseMove, at.center(), editor->viewport()->mapToGlobal(at.center()), Qt::NoButton,
                     Qt::NoButton, Qt::ControlModifier);
    QCoreApplication::sendEvent(editor->viewport(), &move);
    auto underlined = [&] {
      QStringList out;
      for (const auto& sel : editor->extraSelections()) {
        if (sel.format.fontUnderline()) out << sel.cursor.selectedText();
      }
      return out;
    };
    QCOMPARE(underlined(), QStringList{"B"});
    QTest::keyRelease(editor, Qt::Key_Control);
    QCOMPARE(underlined(), QStringList{});
    // The cursor stays on B: moving it could scroll a narrow editor sideways under `at`. Only the
    // click can bring it to line 8.
    QTest::mouseClick(editor->viewport(), Qt::LeftButton, Qt::ControlModifier, at.center());
    QCOMPARE(editor->textCursor().blockNumber() + 1, 8);
    QCOMPARE(editor->textCursor().selectedText(), QString("B"));

    // On a name the document does not define: nothing moves, and the status bar says so.
    QSignalSpy said(editor, &CodeEditor::message);
    PlaceCursor(editor, 11, "T.grid", 0);
    int before = editor->textCursor().position();
    QVERIFY(!editor->GoToDefinition());
    QCOMPARE(editor->textCursor().position(), before);
    QCOMPARE(said.count(), 1);
    QCOMPARE(said.at(0).at(0).toString(), QString("No definition of 'T' in this document"));
    QCOMPARE(w.statusBar()->currentMessage(), said.at(0).at(0).toString());
  }

  void shiftF12ListsTheReferencesAndActivatingOneJumps() {
    MainWindow w;
    QVERIFY(OpenShown(w, ":/examples/matmul.py"));
    CodeEditor* editor = w.editor();
    PlaceCursor(editor, 18, "A[vi, vk]");
    QTest::keyClick(editor, Qt::Key_F12, Qt::ShiftModifier);
    auto* refs = w.findChild<wb::app::ReferencesView*>();
    QVERIFY(refs);
    auto* dock = w.findChild<QDockWidget*>("referencesDock");
    QVERIFY(dock->isVisible());
    // The definition (parameter A), T.reads(A[vi, vk]) and the update's A[vi, vk].
    QCOMPARE(refs->count(), 3);
    QCOMPARE(refs->symbolName(), QString("A"));
    QVERIFY2(refs->item(0)->text().startsWith("8:") && refs->item(0)->text().contains("definition"),
             qPrintable(refs->item(0)->text()));
    QVERIFY(refs->item(1)->text().startsWith("14:"));
    QVERIFY(dock->windowTitle().contains("(3)"));
    Q_EMIT refs->itemActivated(refs->item(1));
    QCOMPARE(editor->textCursor().blockNumber() + 1, 14);
    QCOMPARE(editor->textCursor().selectedText(), QString("A"));
  }

  void occurrencesOfTheSymbolUnderTheCursorAreHighlighted() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    CodeEditor* editor = w.editor();
    WaitForAnalysis(editor);
    QCOMPARE(editor->extraSelections().size(), 0);
    PlaceCursor(editor, 18, "vk]");  // vk: its definition in T.axis.remap and 3 uses
    QList<QTextEdit::ExtraSelection> sels = editor->extraSelections();
    QVERIFY2(sels.size() >= 4, qPrintable(QString::number(sels.size())));
    for (const auto& s : sels) QCOMPARE(s.cursor.selectedText(), QString("vk"));
    // The breadcrumb names the function and block around the cursor.
    QCOMPARE(editor->breadcrumb(), QString("main › C"));
    auto* crumb = w.findChild<QLabel*>("breadcrumb");
    QCOMPARE(crumb->text(), QString("main › C"));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY2(crumb->width() >= crumb->sizeHint().width(),
                 qPrintable(QStringLiteral("%1 < %2").arg(crumb->width()).arg(crumb->sizeHint().width())));
    // Moving to a keyword clears them.
    PlaceCursor(editor, 18, "C[vi");
    QVERIFY(editor->extraSelections().size() >= 3);  // C: definition, T.writes, init, update x2
    PlaceCursor(editor, 11, "for");
    QCOMPARE(editor->extraSelections().size(), 0);
  }

  void hoverDescribesABufferAndTheTooltipShowsIt() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    CodeEditor* editor = w.editor();
    WaitForAnalysis(editor);
    PlaceCursor(editor, 18, "A[vi, vk]");
    QString hover = editor->HoverMarkdownAt(editor->textCursor().position());
    QVERIFY2(hover.contains("256") && hover.contains("float32"), qPrintable(hover));
    // Over an op: its signature and documentation.
    PlaceCursor(editor, 11, "grid");
    QString op = editor->HoverMarkdownAt(editor->textCursor().position());
    QVERIFY2(op.contains("T.grid("), qPrintable(op));
    // Nothing to say over a comment.
    PlaceCursor(editor, 10, "root");
    QCOMPARE(editor->HoverMarkdownAt(editor->textCursor().position()), QString());

    // The real tooltip event over the same character.
    PlaceCursor(editor, 18, "A[vi, vk]");
    QPoint at = editor->cursorRect().center();
    QHelpEvent help(QEvent::ToolTip, at, editor->viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(editor->viewport(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains("float32"), qPrintable(QToolTip::text()));
    QToolTip::hideText();
  }

  void completionAfterTDotOffersSblockAndInsertsIt() {
    MainWindow w;
    QVERIFY(OpenShown(w, ":/examples/matmul.py"));
    CodeEditor* editor = w.editor();
    QTextBlock line11 = editor->document()->findBlockByNumber(10);
    QTextCursor cursor(line11);
    cursor.movePosition(QTextCursor::EndOfBlock);
    editor->setTextCursor(cursor);
    QTest::keyClick(editor, Qt::Key_Return);
    QTest::keyClicks(editor, "T.");
    // `T.` opens the popup by itself, once the analysis has the new text.
    QTRY_VERIFY_WITH_TIMEOUT(editor->completer()->popup()->isVisible(), 10000);
    bool has_sblock = false;
    for (const auto& item : editor->CompletionsAtCursor()) has_sblock |= item.label == "sblock";
    QVERIFY(has_sblock);
    QTest::keyClicks(editor, "sbl");
    QCOMPARE(editor->completer()->completionPrefix(), QString("sbl"));
    QCOMPARE(editor->completer()->currentCompletion(), QString("sblock"));
    QTest::keyClick(editor->completer()->popup(), Qt::Key_Return);
    QVERIFY(!editor->completer()->popup()->isVisible());
    QCOMPARE(editor->textCursor().block().text().trimmed(), QString("T.sblock"));

    // Ctrl+Space in an expression offers the names in scope, with their detail (once the line
    // that does not parse is gone).
    QTextCursor line = editor->textCursor();
    line.select(QTextCursor::BlockUnderCursor);
    line.removeSelectedText();
    PlaceCursor(editor, 18, "A[vi, vk]");
    editor->moveCursor(QTextCursor::StartOfWord);
    QTest::keyClick(editor, Qt::Key_Space, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(editor->completer()->popup()->isVisible(), 10000);
    QStringList labels;
    auto* model = editor->completer()->model();
    for (int r = 0; r < model->rowCount(); ++r) labels << model->index(r, 0).data().toString();
    QVERIFY2(labels.contains("A") && labels.contains("vk"), qPrintable(labels.join(",")));
    int a = labels.indexOf("A");
    QVERIFY2(model->index(a, 1).data().toString().contains("float32"), qPrintable(model->index(a, 1).data().toString()));
    QTest::keyClick(editor->completer()->popup(), Qt::Key_Escape);
    QVERIFY(!editor->completer()->popup()->isVisible());

    // Asked for, then the cursor goes elsewhere before the analysis answers: no popup.
    editor->moveCursor(QTextCursor::EndOfBlock);
    QTest::keyClick(editor, Qt::Key_Return);
    QTest::keyClicks(editor, "T.");
    editor->moveCursor(QTextCursor::Start);
    WaitForAnalysis(editor);
    QTest::qWait(50);
    QVERIFY(!editor->completer()->popup()->isVisible());
  }

  void signatureHelpInsideACall() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/matmul.py", true));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    CodeEditor* editor = w.editor();
    editor->setFocus();
    QTextCursor cursor(editor->document()->findBlockByNumber(10));
    cursor.movePosition(QTextCursor::EndOfBlock);
    editor->setTextCursor(cursor);
    QTest::keyClick(editor, Qt::Key_Return);
    QTest::keyClicks(editor, "x = T.grid(");
    QVERIFY2(editor->signatureLabel().startsWith("T.grid("), qPrintable(editor->signatureLabel()));
    QVERIFY(QToolTip::isVisible());
    QTest::keyClicks(editor, "4");
    // Still there while the arguments are typed.
    QVERIFY(editor->signatureLabel().startsWith("T.grid("));
    QVERIFY(QToolTip::isVisible());
    QTest::keyClicks(editor, ")");
    QVERIFY(editor->signatureLabel().isEmpty());
    QVERIFY(!editor->ShowSignatureHelp());

    // The active parameter follows the commas; a quote inside the call offers the dtypes.
    QTest::keyClick(editor, Qt::Key_Return);
    QTest::keyClicks(editor, "y = T.Buffer((4,), ");
    QVERIFY2(editor->signatureLabel().startsWith("T.Buffer("), qPrintable(editor->signatureLabel()));
    QCOMPARE(editor->signatureActiveParameter(), 1);
    QTest::keyClicks(editor, "\"");
    QTRY_VERIFY_WITH_TIMEOUT(editor->completer()->popup()->isVisible(), 10000);
    QTest::keyClicks(editor, "float3");
    QCOMPARE(editor->completer()->currentCompletion(), QString("float32"));
    QTest::keyClick(editor->completer()->popup(), Qt::Key_Tab);
    QCOMPARE(editor->textCursor().block().text().trimmed(), QString("y = T.Buffer((4,), \"float32"));
  }

  void everyActionIsHarmlessOnBrokenEmptyAndEndPositions() {
    MainWindow w;
    w.show();
    CodeEditor* editor = w.editor();
    QSignalSpy refs(editor, &CodeEditor::referencesFound);
    const QStringList texts = {
        "",
        "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\"):\n    for i in T.serial(\n",
        "\xF0\x9F\x98\x80 ((( \"unterminated\n\t\tT.",
        "@I.ir_module\nclass M:\n    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\")):\n"
        "        A[0] = A[1] +\n",
    };
    for (const QString& text : texts) {
      w.SetText(text, "broken.py");
      for (auto move : {QTextCursor::Start, QTextCursor::End}) {
        editor->moveCursor(move);
        editor->GoToDefinition();
        editor->FindReferences();
        editor->ShowSymbolPicker();
        editor->symbolPicker()->hide();
        editor->HoverMarkdownAt(editor->textCursor().position());
        editor->HoverMarkdownAt(1 << 20);
        editor->CompletionsAtCursor();
        editor->TriggerCompletion();
        editor->ShowSignatureHelp();
        for (QAction* a : editor->languageActions()) a->trigger();
        editor->symbolPicker()->hide();
        QTRY_VERIFY_WITH_TIMEOUT(editor->analysis()->upToDate(), 10000);
        QPoint at = editor->cursorRect().center();
        QHelpEvent help(QEvent::ToolTip, at, editor->viewport()->mapToGlobal(at));
        QCoreApplication::sendEvent(editor->viewport(), &help);
        editor->completer()->popup()->hide();
        QCOMPARE(editor->toPlainText(), text);
      }
    }
    QCOMPARE(refs.count(), 0);  // no text above defines a name at its start or end
    // The last text does not parse, but navigation still answers from the version that did.
    w.SetText("@I.ir_module\nclass M:\n    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\")):\n"
              "        A[0] = A[1]\n",
              "good.py");
    WaitForAnalysis(editor);
    QTextCursor end(editor->document());
    end.movePosition(QTextCursor::End);
    end.insertText("        A[1] = \n");
    PlaceCursor(editor, 5, "A[1]");
    QVERIFY(editor->GoToDefinition());
    QCOMPARE(editor->textCursor().blockNumber() + 1, 4);
  }

  // Every prefix of an example is a document that stops somewhere in the middle of a construct:
  // every query at its end and at a few places inside answers something or nothing, and the
  // text stays as it was.
  void everyPrefixOfAnExampleIsHarmless() {
    QFile f(":/examples/softmax.py");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString full = QString::fromUtf8(f.readAll());
    CodeEditor editor;
    editor.resize(600, 400);
    for (int n = 0; n <= full.size(); n += 5) {
      const QString text = full.left(n);
      editor.setPlainText(text);
      editor.analysis()->Current();
      for (int at : {n, n / 2, n / 3, std::max(0, n - 1)}) {
        QTextCursor cursor(editor.document());
        cursor.setPosition(std::min(at, static_cast<int>(text.size())));
        editor.setTextCursor(cursor);
        editor.GoToDefinition();
        editor.FindReferences();
        editor.HoverMarkdownAt(at);
        editor.CompletionsAtCursor();
        editor.ShowSignatureHelp();
      }
      QCOMPARE(editor.toPlainText(), text);
    }
  }
};

QTEST_MAIN(TestGuiEditor)
#include "tst_gui_editor.moc"
