#include "find_bar.h"

#include <QApplication>
#include <QCheckBox>
#include <QGridLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextCursor>
#include <QToolButton>

namespace wb::app {

FindBar::FindBar(QPlainTextEdit* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
  find_ = new QLineEdit;
  find_->setPlaceholderText(tr("Find"));
  find_->setClearButtonEnabled(true);
  replace_ = new QLineEdit;
  replace_->setPlaceholderText(tr("Replace with"));
  case_ = new QCheckBox(tr("Match &case"));
  words_ = new QCheckBox(tr("&Whole words"));
  status_ = new QLabel;
  auto* previous = new QPushButton(tr("&Previous"));
  auto* next = new QPushButton(tr("&Next"));
  auto* replace = new QPushButton(tr("&Replace"));
  auto* replace_all = new QPushButton(tr("Replace &all"));
  auto* close = new QToolButton;
  close->setText(QStringLiteral("✕"));
  close->setToolTip(tr("Close (Esc)"));
  close->setAutoRaise(true);

  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(4, 2, 4, 2);
  grid->setVerticalSpacing(2);
  grid->addWidget(find_, 0, 0);
  grid->addWidget(previous, 0, 1);
  grid->addWidget(next, 0, 2);
  grid->addWidget(case_, 0, 3);
  grid->addWidget(words_, 0, 4);
  grid->addWidget(status_, 0, 5);
  grid->addWidget(close, 0, 6);
  grid->setColumnStretch(0, 1);
  replace_row_ = new QWidget;
  auto* row = new QHBoxLayout(replace_row_);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(replace_, 1);
  row->addWidget(replace);
  row->addWidget(replace_all);
  grid->addWidget(replace_row_, 1, 0, 1, 3);

  connect(next, &QPushButton::clicked, this, &FindBar::FindNext);
  connect(previous, &QPushButton::clicked, this, &FindBar::FindPrevious);
  connect(replace, &QPushButton::clicked, this, &FindBar::ReplaceCurrent);
  connect(replace_all, &QPushButton::clicked, this, &FindBar::ReplaceAll);
  connect(close, &QToolButton::clicked, this, [this] {
    hide();
    editor_->setFocus();
  });
  connect(find_, &QLineEdit::returnPressed, this, [this] {
    (QApplication::keyboardModifiers() & Qt::ShiftModifier) ? FindPrevious() : FindNext();
  });
  connect(replace_, &QLineEdit::returnPressed, this, &FindBar::ReplaceCurrent);
  // Searching as you type starts where the current match starts, so each letter narrows it.
  connect(find_, &QLineEdit::textEdited, this, [this] {
    QTextCursor c = editor_->textCursor();
    c.setPosition(c.selectionStart());
    editor_->setTextCursor(c);
    if (find_->text().isEmpty()) {
      status_->clear();
    } else {
      Find(false);
    }
  });
  for (QCheckBox* box : {case_, words_}) connect(box, &QCheckBox::toggled, this, &FindBar::UpdateStatus);
  hide();
}

void FindBar::ShowFind() {
  SetReplaceVisible(false);
  QString selected = editor_->textCursor().selectedText();
  // A selection over several lines is a region, not something to look for.
  if (!selected.isEmpty() && !selected.contains(QChar::ParagraphSeparator)) find_->setText(selected);
  show();
  find_->setFocus();
  find_->selectAll();
  UpdateStatus();
}

void FindBar::ShowReplace() {
  ShowFind();
  SetReplaceVisible(true);
}

void FindBar::SetReplaceVisible(bool visible) { replace_row_->setVisible(visible); }

QTextDocument::FindFlags FindBar::Flags(bool backward) const {
  QTextDocument::FindFlags flags;
  if (backward) flags |= QTextDocument::FindBackward;
  if (case_->isChecked()) flags |= QTextDocument::FindCaseSensitively;
  if (words_->isChecked()) flags |= QTextDocument::FindWholeWords;
  return flags;
}

bool FindBar::FindNext() { return Find(false); }
bool FindBar::FindPrevious() { return Find(true); }

bool FindBar::Find(bool backward) {
  const QString text = find_->text();
  if (text.isEmpty()) return false;
  QTextDocument* doc = editor_->document();
  QTextCursor found = doc->find(text, editor_->textCursor(), Flags(backward));
  if (found.isNull()) {
    QTextCursor wrap(doc);
    wrap.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
    found = doc->find(text, wrap, Flags(backward));
  }
  if (found.isNull()) {
    status_->setText(tr("no match"));
    return false;
  }
  editor_->setTextCursor(found);
  editor_->centerCursor();
  UpdateStatus();
  return true;
}

bool FindBar::SelectionIsMatch() const {
  QTextCursor selection = editor_->textCursor();
  if (!selection.hasSelection() || find_->text().isEmpty()) return false;
  QTextCursor match = editor_->document()->find(find_->text(), selection.selectionStart(), Flags(false));
  return !match.isNull() && match.selectionStart() == selection.selectionStart() &&
         match.selectionEnd() == selection.selectionEnd();
}

bool FindBar::ReplaceCurrent() {
  if (SelectionIsMatch()) editor_->textCursor().insertText(replace_->text());
  return FindNext();
}

int FindBar::ReplaceAll() {
  const QString text = find_->text();
  if (text.isEmpty()) return 0;
  QTextDocument* doc = editor_->document();
  // Every replacement through one cursor inside one edit block: a single undo step.
  QTextCursor edit(doc);
  int count = 0;
  int from = 0;
  edit.beginEditBlock();
  for (;;) {
    QTextCursor found = doc->find(text, from, Flags(false));
    if (found.isNull()) break;
    edit.setPosition(found.selectionStart());
    edit.setPosition(found.selectionEnd(), QTextCursor::KeepAnchor);
    edit.insertText(replace_->text());
    from = edit.position();
    ++count;
  }
  edit.endEditBlock();
  status_->setText(count == 0   ? tr("no match")
                   : count == 1 ? tr("replaced 1 match")
                                : tr("replaced %1 matches").arg(count));
  return count;
}

int FindBar::CountMatches() const {
  int count = 0;
  QTextDocument* doc = editor_->document();
  for (QTextCursor c = doc->find(find_->text(), 0, Flags(false)); !c.isNull();
       c = doc->find(find_->text(), c.selectionEnd(), Flags(false))) {
    ++count;
  }
  return count;
}

void FindBar::UpdateStatus() {
  if (find_->text().isEmpty()) {
    status_->clear();
    return;
  }
  int count = CountMatches();
  status_->setText(count == 0   ? tr("no match")
                   : count == 1 ? tr("1 match")
                                : tr("%1 matches").arg(count));
}

void FindBar::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape) {
    hide();
    editor_->setFocus();
    return;
  }
  QWidget::keyPressEvent(event);
}

}  // namespace wb::app
