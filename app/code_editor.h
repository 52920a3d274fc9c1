// The TVMScript editor: line numbers, tree-sitter highlighting, and diagnostics shown as
// squiggles under the offending text.
#pragma once

#include <QPlainTextEdit>
#include <QSyntaxHighlighter>

#include "support/diagnostic.h"

namespace wb::app {

// Paints the capture ranges of the whole document (computed once per text) block by block.
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
  std::vector<Range> ranges_;
};

class CodeEditor : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit CodeEditor(QWidget* parent = nullptr);

  void SetDiagnostics(const DiagnosticList& diagnostics);
  // Moves the cursor to a 1-based line and column and shows it.
  void GoTo(int line, int column);
  int LineNumberAreaWidth() const;
  void PaintLineNumbers(QPaintEvent* event);
  TVMScriptHighlighter* highlighter() const { return highlighter_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  QWidget* line_numbers_;
  TVMScriptHighlighter* highlighter_;
};

}  // namespace wb::app
