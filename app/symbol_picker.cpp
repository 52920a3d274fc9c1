#include "symbol_picker.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLineEdit>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace wb::app {

namespace {

QString KindName(lang::SymbolKind kind) {
  switch (kind) {
    case lang::SymbolKind::kModule: return QStringLiteral("module");
    case lang::SymbolKind::kFunction: return QStringLiteral("function");
    case lang::SymbolKind::kBlock: return QStringLiteral("block");
    case lang::SymbolKind::kBuffer: return QStringLiteral("buffer");
    case lang::SymbolKind::kVariable: return QStringLiteral("variable");
  }
  return {};
}

void Flatten(const std::vector<lang::DocumentSymbol>& symbols, const QString& container,
             std::vector<SymbolEntry>* out) {
  for (const auto& s : symbols) {
    QString name = QString::fromStdString(s.name);
    QString inner = container;
    if (s.kind != lang::SymbolKind::kModule) {
      out->push_back({name, KindName(s.kind), container, QString::fromStdString(s.detail),
                      s.selection_range});
      inner = container.isEmpty() ? name : container + QStringLiteral(" › ") + name;
    }
    Flatten(s.children, inner, out);
  }
}

}  // namespace

std::vector<SymbolEntry> FlattenSymbols(const std::vector<lang::DocumentSymbol>& symbols) {
  std::vector<SymbolEntry> out;
  Flatten(symbols, QString(), &out);
  return out;
}

int FuzzyScore(const QString& pattern, const QString& text) {
  if (pattern.isEmpty()) return 0;
  int at = text.indexOf(pattern, 0, Qt::CaseInsensitive);
  if (at == 0) return 3000 - static_cast<int>(text.size());
  if (at > 0) return 2000 - at;
  // A subsequence: score by how spread out the matched characters are.
  int first = -1, last = -1, k = 0;
  for (int i = 0; i < text.size() && k < pattern.size(); ++i) {
    if (text[i].toLower() == pattern[k].toLower()) {
      if (first < 0) first = i;
      last = i;
      ++k;
    }
  }
  if (k < pattern.size()) return -1;
  return std::max(1, 1000 - (last - first));
}

SymbolPicker::SymbolPicker(QWidget* parent) : QFrame(parent, Qt::Popup) {
  setFrameShape(QFrame::StyledPanel);
  filter_ = new QLineEdit;
  filter_->setPlaceholderText(tr("Go to function, block or buffer (:line to go to a line)..."));
  filter_->setClearButtonEnabled(true);
  list_ = new QTreeWidget;
  list_->setColumnCount(4);
  list_->setHeaderLabels({tr("Name"), tr("Kind"), tr("In"), tr("Detail")});
  list_->setRootIsDecorated(false);
  list_->setUniformRowHeights(true);
  list_->header()->setStretchLastSection(true);
  list_->setFocusPolicy(Qt::NoFocus);  // the filter keeps the keyboard
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(filter_);
  layout->addWidget(list_);
  resize(620, 320);
  filter_->installEventFilter(this);
  connect(filter_, &QLineEdit::textChanged, this, &SymbolPicker::Refilter);
  connect(list_, &QTreeWidget::itemClicked, this, [this] { Choose(); });
  connect(list_, &QTreeWidget::itemActivated, this, [this] { Choose(); });
}

void SymbolPicker::Open(std::vector<SymbolEntry> entries) {
  entries_ = std::move(entries);
  filter_->clear();
  Refilter();
  if (parentWidget()) {
    QWidget* anchor = parentWidget();
    QPoint top = anchor->mapToGlobal(QPoint((anchor->width() - width()) / 2, 8));
    move(top);
  }
  show();
  raise();
  activateWindow();
  filter_->setFocus();
}

void SymbolPicker::Refilter() {
  QString pattern = filter_->text().trimmed();
  list_->clear();
  // ":42" or ":42:7" goes to a line (and column), as in other editors' quick open.
  static const QRegularExpression line_re(QStringLiteral("^:(\\d+)(?::(\\d+))?$"));
  QRegularExpressionMatch line = line_re.match(pattern);
  if (line.hasMatch()) {
    uint32_t n = std::max(1u, line.captured(1).toUInt());
    uint32_t column = line.captured(2).isEmpty() ? 1 : std::max(1u, line.captured(2).toUInt());
    line_target_ = lang::TextPosition{n - 1, column - 1};
    auto* item = new QTreeWidgetItem({tr("Go to line %1").arg(n), tr("line")});
    list_->addTopLevelItem(item);
    list_->setCurrentItem(item);
    return;
  }
  line_target_.reset();
  std::vector<std::pair<int, size_t>> ranked;
  for (size_t i = 0; i < entries_.size(); ++i) {
    int score = FuzzyScore(pattern, entries_[i].name);
    if (score >= 0) ranked.push_back({score, i});
  }
  // Best first; document order among equals.
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [score, i] : ranked) {
    const SymbolEntry& e = entries_[i];
    auto* item = new QTreeWidgetItem({e.name, e.kind, e.container, e.detail});
    item->setData(0, Qt::UserRole, static_cast<qulonglong>(i));
    item->setToolTip(3, e.detail);
    list_->addTopLevelItem(item);
  }
  if (list_->topLevelItemCount() > 0) list_->setCurrentItem(list_->topLevelItem(0));
  for (int c = 0; c < 3; ++c) list_->resizeColumnToContents(c);
}

void SymbolPicker::Choose() {
  QTreeWidgetItem* item = list_->currentItem();
  if (!item) return;
  if (line_target_) {
    lang::TextRange at{*line_target_, *line_target_};
    hide();
    Q_EMIT chosen(at);
    return;
  }
  size_t i = item->data(0, Qt::UserRole).toULongLong();
  if (i >= entries_.size()) return;
  lang::TextRange selection = entries_[i].selection;
  hide();
  Q_EMIT chosen(selection);
}

bool SymbolPicker::eventFilter(QObject* watched, QEvent* event) {
  if (watched != filter_ || event->type() != QEvent::KeyPress) return QFrame::eventFilter(watched, event);
  auto* key = static_cast<QKeyEvent*>(event);
  switch (key->key()) {
    case Qt::Key_Escape:
      hide();
      return true;
    case Qt::Key_Return:
    case Qt::Key_Enter:
      Choose();
      return true;
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_PageUp:
    case Qt::Key_PageDown: {
      // Move the list's current row; the filter keeps the focus.
      QKeyEvent copy(key->type(), key->key(), key->modifiers());
      QCoreApplication::sendEvent(list_, &copy);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace wb::app
