#include "diff_view.h"

#include <QScrollBar>
#include <QTextBlock>

#include "workbench/text_diff.h"

namespace wb::app {

QPlainTextEdit* MakeCodePane() {
  auto* pane = new QPlainTextEdit;
  pane->setReadOnly(true);
  pane->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono("monospace");
  mono.setStyleHint(QFont::Monospace);
  pane->setFont(mono);
  return pane;
}

int ShowWithChanges(QPlainTextEdit* pane, const std::string& text, const std::vector<bool>& changed,
                    const QColor& tint) {
  pane->setPlainText(QString::fromStdString(text));
  QList<QTextEdit::ExtraSelection> selections;
  for (size_t i = 0; i < changed.size(); ++i) {
    if (!changed[i]) continue;
    QTextEdit::ExtraSelection sel;
    sel.format.setBackground(tint);
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = QTextCursor(pane->document()->findBlockByNumber(static_cast<int>(i)));
    selections.push_back(sel);
  }
  pane->setExtraSelections(selections);
  return static_cast<int>(selections.size());
}

void ShowDiff(QPlainTextEdit* before_pane, QPlainTextEdit* after_pane, const std::string& before,
              const std::string& after, int* removed, int* added) {
  workbench::LineDiff diff = workbench::DiffLines(before, after);
  // Pale tints under dark text, deep ones under light text (the dark theme).
  bool dark = before_pane->palette().color(QPalette::Base).lightness() < 128;
  int r = ShowWithChanges(before_pane, before, diff.removed,
                          dark ? QColor(110, 40, 40) : QColor(255, 220, 220));
  int a = ShowWithChanges(after_pane, after, diff.added,
                          dark ? QColor(35, 90, 40) : QColor(215, 245, 215));
  if (removed) *removed = r;
  if (added) *added = a;
}

void LinkScrolling(QPlainTextEdit* a, QPlainTextEdit* b) {
  QObject::connect(a->verticalScrollBar(), &QScrollBar::valueChanged, b->verticalScrollBar(),
                   &QScrollBar::setValue);
  QObject::connect(b->verticalScrollBar(), &QScrollBar::valueChanged, a->verticalScrollBar(),
                   &QScrollBar::setValue);
}

}  // namespace wb::app
