// Read-only code panes and the changed-line tint shared by the pass and schedule views.
#pragma once

#include <QColor>
#include <QFuture>
#include <QObject>
#include <QPlainTextEdit>
#include <string>
#include <vector>

#include "workbench/text_diff.h"

namespace wb::app {

// A read-only, non-wrapping monospace pane.
QPlainTextEdit* MakeCodePane();
void LinkScrolling(QPlainTextEdit* a, QPlainTextEdit* b);

// Two panes showing a module before and after a change, removed and added lines tinted, the
// panes scrolling together. The line diff (linear in space, but O((N+M)D) in time) runs on a
// worker thread: Show puts both texts up at once and the tints follow when the diff is done
// (diffShown). A later Show supersedes a diff still in flight; its result is dropped.
class DiffPanes : public QObject {
  Q_OBJECT

 public:
  DiffPanes(QPlainTextEdit* before, QPlainTextEdit* after, QObject* parent = nullptr);

  void Show(const std::string& before, const std::string& after);
  // Whether the last Show's tints are still being computed.
  bool pending() const { return pending_; }
  // Blocks until the last Show's diff is computed and shown (tests, callers that need it now).
  void WaitForDiff();
  // Lines tinted in each pane by the last diff shown.
  int removed() const { return removed_; }
  int added() const { return added_; }

 Q_SIGNALS:
  void diffShown(int removed, int added);

 private:
  void Apply(int generation, const workbench::LineDiff& diff);

  QPlainTextEdit* before_;
  QPlainTextEdit* after_;
  QFuture<workbench::LineDiff> future_;
  int generation_ = 0;
  bool pending_ = false;
  int removed_ = 0;
  int added_ = 0;
};

}  // namespace wb::app
