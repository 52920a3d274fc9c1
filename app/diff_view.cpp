#include "diff_view.h"

#include <QScrollBar>
#include <QTextBlock>
#include <QtConcurrent/QtConcurrent>

#include "line_marks.h"

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

namespace {

int Tint(QPlainTextEdit* pane, const std::vector<bool>& changed, const QColor& tint) {
  QList<int> lines;
  for (size_t i = 0; i < changed.size(); ++i) {
    if (changed[i]) lines << static_cast<int>(i);
  }
  QList<QTextEdit::ExtraSelection> selections = LineMarks(pane->document(), lines, tint);
  pane->setExtraSelections(selections);
  return static_cast<int>(selections.size());
}

}  // namespace

void LinkScrolling(QPlainTextEdit* a, QPlainTextEdit* b) {
  QObject::connect(a->verticalScrollBar(), &QScrollBar::valueChanged, b->verticalScrollBar(),
                   &QScrollBar::setValue);
  QObject::connect(b->verticalScrollBar(), &QScrollBar::valueChanged, a->verticalScrollBar(),
                   &QScrollBar::setValue);
}

DiffPanes::DiffPanes(QPlainTextEdit* before, QPlainTextEdit* after, QObject* parent)
    : QObject(parent), before_(before), after_(after) {
  LinkScrolling(before_, after_);
}

void DiffPanes::Show(const std::string& before, const std::string& after) {
  int generation = ++generation_;
  pending_ = true;
  before_->setPlainText(QString::fromStdString(before));
  after_->setPlainText(QString::fromStdString(after));
  before_->setExtraSelections({});
  after_->setExtraSelections({});
  future_ = QtConcurrent::run(
      [before, after] { return workbench::DiffLines(before, after); });
  // Runs on this object's thread; dropped when this object is gone first. Posted, not called:
  // when the diff is done before the continuation is attached, Qt runs it at once, inside Show.
  future_.then(this, [this, generation](const workbench::LineDiff& diff) {
    QMetaObject::invokeMethod(this, [this, generation, diff] { Apply(generation, diff); }, Qt::QueuedConnection);
  });
}

void DiffPanes::WaitForDiff() {
  if (!pending_) return;
  future_.waitForFinished();
  Apply(generation_, future_.result());
}

void DiffPanes::Apply(int generation, const workbench::LineDiff& diff) {
  // A superseded diff, or one WaitForDiff has shown already.
  if (generation != generation_ || !pending_) return;
  pending_ = false;
  // Pale tints under dark text, deep ones under light text (the dark theme).
  bool dark = before_->palette().color(QPalette::Base).lightness() < 128;
  removed_ = Tint(before_, diff.removed, dark ? QColor(110, 40, 40) : QColor(255, 220, 220));
  added_ = Tint(after_, diff.added, dark ? QColor(35, 90, 40) : QColor(215, 245, 215));
  Q_EMIT diffShown(removed_, added_);
}

}  // namespace wb::app
