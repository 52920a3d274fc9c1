#include "code_editor.h"

#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>

#include "line_marks.h"

namespace wb::app {

namespace {

QTextCharFormat FormatFor(const std::string& capture) {
  QTextCharFormat f;
  auto starts = [&](const char* prefix) { return capture.rfind(prefix, 0) == 0; };
  if (starts("keyword")) {
    f.setForeground(QColor("#a626a4"));
    f.setFontWeight(QFont::Bold);
  } else if (starts("namespace")) {
    f.setForeground(QColor("#0184bc"));
  } else if (starts("attribute")) {
    f.setForeground(QColor("#c18401"));
  } else if (starts("type")) {
    f.setForeground(QColor("#986801"));
  } else if (starts("label")) {
    f.setForeground(QColor("#e45649"));
    f.setFontWeight(QFont::Bold);
  } else if (starts("string")) {
    f.setForeground(QColor("#50a14f"));
  } else if (starts("number") || starts("constant")) {
    f.setForeground(QColor("#986801"));
  } else if (starts("comment")) {
    f.setForeground(QColor("#a0a1a7"));
    f.setFontItalic(true);
  } else if (starts("function")) {
    f.setForeground(QColor("#4078f2"));
  } else if (starts("variable.buffer")) {
    f.setForeground(QColor("#e45649"));
  }
  return f;
}

// Byte offsets (tree-sitter) to character positions (Qt) for UTF-8 text.
std::vector<int> ByteToCharTable(const std::string& utf8) {
  std::vector<int> table(utf8.size() + 1);
  int chars = 0;
  for (size_t i = 0; i < utf8.size(); ++i) {
    table[i] = chars;
    unsigned char c = static_cast<unsigned char>(utf8[i]);
    if ((c & 0xC0) != 0x80) chars += (c >= 0xF0) ? 2 : 1;  // surrogate pairs count twice
  }
  table[utf8.size()] = chars;
  return table;
}

class LineNumberArea : public QWidget {
 public:
  explicit LineNumberArea(CodeEditor* editor) : QWidget(editor), editor_(editor) {}
  QSize sizeHint() const override { return QSize(editor_->LineNumberAreaWidth(), 0); }

 protected:
  void paintEvent(QPaintEvent* event) override { editor_->PaintLineNumbers(event); }

 private:
  CodeEditor* editor_;
};

}  // namespace

TVMScriptHighlighter::TVMScriptHighlighter(QTextDocument* document)
    : QSyntaxHighlighter(document) {}

void TVMScriptHighlighter::Refresh() {
  tree_.Update(document()->toPlainText().toStdString());
  const std::string& text = tree_.text();
  std::vector<int> to_char = ByteToCharTable(text);
  ranges_.clear();
  for (const auto& r : tree_.Highlight()) {
    ranges_.push_back({to_char[std::min<size_t>(r.begin, text.size())],
                       to_char[std::min<size_t>(r.end, text.size())], FormatFor(r.capture)});
  }
  rehighlight();
}

void TVMScriptHighlighter::highlightBlock(const QString& text) {
  int block_start = currentBlock().position();
  int block_end = block_start + text.size();
  for (const auto& r : ranges_) {
    if (r.end <= block_start || r.begin >= block_end) continue;
    int b = std::max(r.begin, block_start) - block_start;
    int e = std::min(r.end, block_end) - block_start;
    setFormat(b, e - b, r.format);
  }
}

CodeEditor::CodeEditor(QWidget* parent) : QPlainTextEdit(parent) {
  QFont mono("monospace");
  mono.setStyleHint(QFont::Monospace);
  setFont(mono);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setTabStopDistance(QFontMetricsF(mono).horizontalAdvance(' ') * 4);
  line_numbers_ = new LineNumberArea(this);
  highlighter_ = new TVMScriptHighlighter(document());
  connect(this, &QPlainTextEdit::blockCountChanged,
          [this](int) { setViewportMargins(LineNumberAreaWidth(), 0, 0, 0); });
  connect(this, &QPlainTextEdit::updateRequest, [this](const QRect& rect, int dy) {
    if (dy) {
      line_numbers_->scroll(0, dy);
    } else {
      line_numbers_->update(0, rect.y(), line_numbers_->width(), rect.height());
    }
  });
  setViewportMargins(LineNumberAreaWidth(), 0, 0, 0);
  SetUpLanguageFeatures();
}

int CodeEditor::LineNumberAreaWidth() const {
  int digits = QString::number(std::max(1, blockCount())).size();
  return 12 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
}

void CodeEditor::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  QRect cr = contentsRect();
  line_numbers_->setGeometry(QRect(cr.left(), cr.top(), LineNumberAreaWidth(), cr.height()));
}

void CodeEditor::PaintLineNumbers(QPaintEvent* event) {
  QPainter painter(line_numbers_);
  painter.fillRect(event->rect(), palette().window());
  QTextBlock block = firstVisibleBlock();
  int number = block.blockNumber();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  int bottom = top + qRound(blockBoundingRect(block).height());
  painter.setPen(palette().color(QPalette::PlaceholderText));
  while (block.isValid() && top <= event->rect().bottom()) {
    if (block.isVisible() && bottom >= event->rect().top()) {
      painter.drawText(0, top, line_numbers_->width() - 6, fontMetrics().height(), Qt::AlignRight,
                       QString::number(number + 1));
    }
    block = block.next();
    top = bottom;
    bottom = top + qRound(blockBoundingRect(block).height());
    ++number;
  }
}

void CodeEditor::SetDiagnostics(const DiagnosticList& diagnostics) {
  QList<QTextEdit::ExtraSelection> selections;
  std::string text = toPlainText().toStdString();
  std::vector<int> to_char = ByteToCharTable(text);
  for (const auto& d : diagnostics) {
    if (!d.span.defined()) continue;
    QTextEdit::ExtraSelection sel;
    sel.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    sel.format.setUnderlineColor(d.severity == Severity::kError ? Qt::red : QColor("#c18401"));
    sel.format.setToolTip(QString::fromStdString(d.message));
    sel.cursor = QTextCursor(document());
    int begin = to_char[std::min<size_t>(d.span.begin, text.size())];
    int end = to_char[std::min<size_t>(std::max(d.span.end, d.span.begin + 1), text.size())];
    // At least one character wide, so that an error at the very end still shows, but never
    // past the end (an empty document has no character to underline).
    int last = document()->characterCount() - 1;
    sel.cursor.setPosition(std::min(begin, last));
    sel.cursor.setPosition(std::min(std::max(end, begin + 1), last), QTextCursor::KeepAnchor);
    selections.push_back(sel);
  }
  diagnostic_selections_ = selections;
  UpdateExtraSelections();
}

void CodeEditor::UpdateExtraSelections() {
  // Occurrences under the squiggles, so that an error stays visible on a highlighted name.
  setExtraSelections(linked_line_selections_ + occurrence_selections_ + diagnostic_selections_ +
                     link_selections_);
}

void CodeEditor::SetLinkedLines(const QList<int>& lines) {
  linked_lines_ = lines;
  QList<int> lines0;
  for (int line : lines) lines0 << line - 1;
  linked_line_selections_ = LineMarks(document(), lines0, LinkedLineTint());
  UpdateExtraSelections();
  if (!lines.isEmpty()) {
    QTextBlock block = document()->findBlockByNumber(std::max(0, lines.front() - 1));
    // Into sight without moving the cursor.
    QRectF rect = blockBoundingGeometry(block).translated(contentOffset());
    if (rect.top() < 0 || rect.bottom() > viewport()->height()) {
      verticalScrollBar()->setValue(std::max(0, lines.front() - 1 - 5));
    }
  }
}

void CodeEditor::GoTo(int line, int column) {
  QTextBlock block = document()->findBlockByNumber(std::max(0, line - 1));
  QTextCursor cursor(block);
  cursor.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                      std::min(std::max(0, column - 1), block.length() - 1));
  setTextCursor(cursor);
  centerCursor();
  setFocus();
}

}  // namespace wb::app
