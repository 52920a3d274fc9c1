#include "references_view.h"

#include <QTextBlock>
#include <QTextDocument>

namespace wb::app {

ReferencesView::ReferencesView(QWidget* parent) : QListWidget(parent) {
  setObjectName("references");
  connect(this, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    int i = row(item);
    if (i >= 0 && i < static_cast<int>(ranges_.size())) Q_EMIT placeActivated(ranges_[i]);
  });
}

void ReferencesView::Show(const QString& name, const std::vector<lang::Highlight>& places,
                          const QTextDocument* doc) {
  clear();
  name_ = name;
  ranges_.clear();
  for (const auto& place : places) {
    QString line = doc->findBlockByNumber(static_cast<int>(place.range.start.line)).text().trimmed();
    auto* item = new QListWidgetItem(QStringLiteral("%1:%2: %3%4")
                                         .arg(place.range.start.line + 1)
                                         .arg(place.range.start.character + 1)
                                         .arg(place.is_definition ? tr("(definition) ") : QString())
                                         .arg(line));
    if (place.is_definition) {
      QFont bold = item->font();
      bold.setBold(true);
      item->setFont(bold);
    }
    addItem(item);
    ranges_.push_back(place.range);
  }
}

}  // namespace wb::app
