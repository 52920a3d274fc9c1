// Whole lines of a text view tinted, as extra selections: the changed lines of a diff pane, the
// lines a linked view points at.
#pragma once

#include <QColor>
#include <QList>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextEdit>

namespace wb::app {

// `lines` 0-based; lines past the end are left out.
inline QList<QTextEdit::ExtraSelection> LineMarks(QTextDocument* document, const QList<int>& lines,
                                                  const QColor& tint) {
  QList<QTextEdit::ExtraSelection> selections;
  for (int line : lines) {
    QTextBlock block = document->findBlockByNumber(line);
    if (!block.isValid()) continue;
    QTextEdit::ExtraSelection sel;
    sel.format.setBackground(tint);
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = QTextCursor(block);
    selections.push_back(sel);
  }
  return selections;
}

// The tint of a linked line.
inline QColor LinkedLineTint() { return QColor("#fff3b0"); }

}  // namespace wb::app
