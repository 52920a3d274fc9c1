// The TVMScript editor: line numbers, tree-sitter highlighting, and diagnostics shown as
// squiggles under the offending text; and what the language analysis knows (the LSP server's
// answers, from an EditorAnalysis snapshot): go to symbol, go to definition (F12, Ctrl+click),
// find references, the symbol under the cursor's occurrences highlighted, hover tooltips,
// completion and signature help (code_editor_language.cpp).
#pragma once

#include <QPlainTextEdit>
#include <QSyntaxHighlighter>
#include <memory>
#include <vector>

#include "highlight.h"
#include "lang/analysis.h"
#include "support/diagnostic.h"

class QAction;
class QCompleter;
class QStandardItemModel;

namespace wb::app {

class EditorAnalysis;
class SymbolPicker;

// Paints the capture ranges of the whole document (computed once per text) block by block. The
// document's syntax tree is kept and reparsed incrementally on each change.
class TVMScriptHighlighter : public QSyntaxHighlighter {
 public:
  explicit TVMScriptHighlighter(QTextDocument* document);
  // Recomputes the captures for the current text and repaints.
  void Refresh();

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Range {
    int begin;  // character positions in the document
    int end;
    QTextCharFormat format;
  };
  SyntaxTree tree_;
  std::vector<Range> ranges_;
};

class CodeEditor : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit CodeEditor(QWidget* parent = nullptr);

  void SetDiagnostics(const DiagnosticList& diagnostics);
  // Moves the cursor to a 1-based line and column and shows it.
  void GoTo(int line, int column);
  // Marks whole lines (1-based) that a view linked to (the bindings of the kernel an assembly line
  // came from), scrolling the first into sight; the cursor stays. Empty: clears the marks.
  void SetLinkedLines(const QList<int>& lines);
  const QList<int>& linkedLines() const { return linked_lines_; }
  int LineNumberAreaWidth() const;
  void PaintLineNumbers(QPaintEvent* event);
  TVMScriptHighlighter* highlighter() const { return highlighter_; }

  // --- Language features ------------------------------------------------------------------------
  EditorAnalysis* analysis() const { return analysis_; }
  // The actions of the Go menu, with their shortcuts (active while the editor has the focus).
  QAction* goToSymbolAction() const { return go_to_symbol_; }
  QAction* goToDefinitionAction() const { return go_to_definition_; }
  QAction* findReferencesAction() const { return find_references_; }
  QAction* completeAction() const { return complete_; }
  QAction* signatureHelpAction() const { return signature_help_; }
  QList<QAction*> languageActions() const;

  lang::TextPosition PositionOf(const QTextCursor& cursor) const;
  QTextCursor CursorAt(lang::TextPosition position) const;
  // Selects `range` (a name, usually), shows it and focuses the editor.
  void SelectRange(const lang::TextRange& range);

  // Opens the symbol popup over the outline of the current text.
  void ShowSymbolPicker();
  SymbolPicker* symbolPicker() const { return picker_; }
  // Jumps to the definition of the name at the cursor; false (saying why) when there is none.
  bool GoToDefinition();
  // Emits referencesFound with every occurrence of the symbol at the cursor (false when none).
  bool FindReferences();
  // The hover text (markdown) at a character position: the analysis' hover, and the message
  // of any diagnostic there; empty when there is nothing to say.
  QString HoverMarkdownAt(int position) const;
  // Completion at the cursor: asks for the items (answered when the snapshot of the current
  // text is ready) and shows them in the popup; typing filters, Enter or Tab inserts.
  void TriggerCompletion();
  // The items ComputeCompletion offers at the cursor, on the current text (computed now).
  std::vector<lang::CompletionItem> CompletionsAtCursor();
  QCompleter* completer() const { return completer_; }
  // The signature of the call around the cursor (as a tooltip); false when not inside a call.
  bool ShowSignatureHelp();
  // The label of the signature last shown ("" when none is) and its active parameter.
  const QString& signatureLabel() const { return signature_label_; }
  int signatureActiveParameter() const { return signature_active_; }
  // "main › C": the function and blocks that hold the cursor.
  QString breadcrumb() const { return breadcrumb_; }

 Q_SIGNALS:
  // Something the user asked for has no answer ("no definition for 'x'").
  void message(const QString& text);
  void referencesFound(const QString& name, const std::vector<wb::lang::Highlight>& places);
  void breadcrumbChanged(const QString& text);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  bool viewportEvent(QEvent* event) override;

 private:
  void SetUpLanguageFeatures();
  void UpdateExtraSelections();
  void OnCursorMoved();
  void OnSnapshotReady();
  void ShowCompletions();
  void InsertCompletion(const QString& label);
  void UpdateCompletionPrefix();
  // The name at the cursor ("" when none), for messages.
  QString WordAtCursor() const;

  QWidget* line_numbers_;
  TVMScriptHighlighter* highlighter_;
  QList<QTextEdit::ExtraSelection> diagnostic_selections_;
  QList<QTextEdit::ExtraSelection> occurrence_selections_;
  QList<QTextEdit::ExtraSelection> link_selections_;  // the name under the mouse with Ctrl held
  QList<QTextEdit::ExtraSelection> linked_line_selections_;
  QList<int> linked_lines_;

  EditorAnalysis* analysis_ = nullptr;
  SymbolPicker* picker_ = nullptr;
  QAction* go_to_symbol_ = nullptr;
  QAction* go_to_definition_ = nullptr;
  QAction* find_references_ = nullptr;
  QAction* complete_ = nullptr;
  QAction* signature_help_ = nullptr;
  QCompleter* completer_ = nullptr;
  QStandardItemModel* completion_model_ = nullptr;
  bool completion_pending_ = false;  // asked for, waiting for the snapshot of the current text
  int completion_request_ = 0;       // where the cursor was when it was asked for
  int completion_start_ = 0;         // where the word being completed starts
  QString breadcrumb_;
  QString signature_label_;
  int signature_active_ = 0;
};

}  // namespace wb::app
