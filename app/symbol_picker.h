// "Go to symbol": a popup over the editor listing the document's functions, blocks and buffers
// (the outline of lang::ComputeDocumentSymbols) with their kind and container, filtered
// as you type (a fuzzy match: the letters in order, the best matches first). Enter or a click
// chooses one; Escape closes. ":42" (or ":42:7") goes to a line instead.
#pragma once

#include <QFrame>
#include <QString>
#include <optional>
#include <vector>

#include "lang/analysis.h"

class QLineEdit;
class QTreeWidget;

namespace wb::app {

struct SymbolEntry {
  QString name;
  QString kind;       // "function", "block", "buffer"...
  QString container;  // "main › C": where it is defined
  QString detail;
  lang::TextRange selection;  // its name
};

// The outline flattened in document order (the module itself left out: it is not a place).
std::vector<SymbolEntry> FlattenSymbols(const std::vector<lang::DocumentSymbol>& symbols);

// How well `pattern` matches `text`: -1 when its characters do not all occur in order
// (case-insensitive); otherwise higher for a prefix, then a substring, then a tighter spread.
int FuzzyScore(const QString& pattern, const QString& text);

class SymbolPicker : public QFrame {
  Q_OBJECT

 public:
  explicit SymbolPicker(QWidget* parent = nullptr);

  // Shows the entries (all of them until a filter is typed) and focuses the filter.
  void Open(std::vector<SymbolEntry> entries);
  QLineEdit* filter() const { return filter_; }
  QTreeWidget* list() const { return list_; }

 Q_SIGNALS:
  void chosen(const wb::lang::TextRange& selection);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void Refilter();
  void Choose();

  QLineEdit* filter_;
  QTreeWidget* list_;
  std::vector<SymbolEntry> entries_;
  std::optional<lang::TextPosition> line_target_;  // while the filter is ":line"
};

}  // namespace wb::app
