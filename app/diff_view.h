// Read-only code panes and the changed-line tint shared by the pass and schedule views.
#pragma once

#include <QColor>
#include <QPlainTextEdit>
#include <string>
#include <vector>

namespace wb::app {

// A read-only, non-wrapping monospace pane.
QPlainTextEdit* MakeCodePane();
// Shows `text` with the lines flagged in `changed` on a tinted background; returns how many.
int ShowWithChanges(QPlainTextEdit* pane, const std::string& text, const std::vector<bool>& changed,
                    const QColor& tint);
// Shows `before` and `after` side by side with removed and added lines tinted; keeps the two
// panes scrolling together once `LinkScrolling` was called on them.
void ShowDiff(QPlainTextEdit* before_pane, QPlainTextEdit* after_pane, const std::string& before,
              const std::string& after, int* removed = nullptr, int* added = nullptr);
void LinkScrolling(QPlainTextEdit* a, QPlainTextEdit* b);

}  // namespace wb::app
