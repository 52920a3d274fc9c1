// The places a symbol occurs (find references): one row a place, with its line and the line's
// text, the definition marked; activating a row asks the editor to go there.
#pragma once

#include <QListWidget>
#include <vector>

#include "lang/analysis.h"

class QTextDocument;

namespace wb::app {

class ReferencesView : public QListWidget {
  Q_OBJECT

 public:
  explicit ReferencesView(QWidget* parent = nullptr);

  // Lists `places` (the definition first, as ComputeHighlights orders them) in `doc`'s text.
  void Show(const QString& name, const std::vector<lang::Highlight>& places,
            const QTextDocument* doc);
  const QString& symbolName() const { return name_; }

 Q_SIGNALS:
  void placeActivated(const wb::lang::TextRange& range);

 private:
  QString name_;
  std::vector<lang::TextRange> ranges_;
};

}  // namespace wb::app
