// Find and replace in a text editor: a bar under it with the text to find (and, for replace,
// its replacement), case and whole-word options, and how many matches there are. Searching
// wraps around the end of the document; Replace all is one undoable edit.
#pragma once

#include <QTextDocument>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace wb::app {

class FindBar : public QWidget {
  Q_OBJECT

 public:
  explicit FindBar(QPlainTextEdit* editor, QWidget* parent = nullptr);

  // Shows the bar with the field to find focused (holding the editor's selection, if any);
  // ShowReplace also shows the replacement field.
  void ShowFind();
  void ShowReplace();
  // Selects the next (previous) match after (before) the cursor, wrapping around; false, with
  // "no match" shown, when there is none.
  bool FindNext();
  bool FindPrevious();
  // Replaces the selected match, if the selection is one, then selects the next match.
  bool ReplaceCurrent();
  // Replaces every match in one edit (one undo step); returns how many.
  int ReplaceAll();

  QLineEdit* findField() const { return find_; }
  QLineEdit* replaceField() const { return replace_; }
  QCheckBox* caseSensitive() const { return case_; }
  QCheckBox* wholeWords() const { return words_; }
  QLabel* statusLabel() const { return status_; }

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  bool Find(bool backward);
  QTextDocument::FindFlags Flags(bool backward) const;
  bool SelectionIsMatch() const;
  int CountMatches() const;
  void UpdateStatus();
  void SetReplaceVisible(bool visible);

  QPlainTextEdit* editor_;
  QLineEdit* find_;
  QLineEdit* replace_;
  QCheckBox* case_;
  QCheckBox* words_;
  QLabel* status_;
  QWidget* replace_row_;
};

}  // namespace wb::app
