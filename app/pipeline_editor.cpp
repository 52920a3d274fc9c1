#include "pipeline_editor.h"

#include "param_editor.h"

#include <QAbstractItemModel>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>
#include <functional>

namespace wb::app {

namespace {

QString SpecText(const transform::PassSpec& spec) {
  return QString::fromStdString(transform::PipelineText({spec}));
}

QString EntryToolTip(const transform::PassEntry& entry) {
  QString tip = QString::fromStdString(entry.doc);
  for (const auto& p : entry.params) {
    tip += QStringLiteral("\n  %1: %2, default %3")
               .arg(QString::fromStdString(p.name),
                    QString::fromUtf8(transform::ParamTypeName(p.type)),
                    QString::fromStdString(transform::ParamValueText(p.default_value)));
  }
  return tip;
}

}  // namespace

PipelineEditor::PipelineEditor(QWidget* parent) : QWidget(parent) {
  list_ = new QListWidget;
  list_->setDragDropMode(QAbstractItemView::InternalMove);
  list_->setDefaultDropAction(Qt::MoveAction);
  list_->setToolTip(tr("The passes in the order they run; drag to reorder"));
  add_ = new QPushButton(tr("Add"));
  add_->setToolTip(tr("Add the pass chosen below after the selected one"));
  remove_ = new QPushButton(tr("Remove"));
  // Arrows keep the column narrow: the diff panes beside it need the width.
  up_ = new QPushButton(QStringLiteral("\u2191"));
  up_->setToolTip(tr("Move the selected pass up (or drag it)"));
  down_ = new QPushButton(QStringLiteral("\u2193"));
  down_->setToolTip(tr("Move the selected pass down (or drag it)"));
  for (QPushButton* b : {up_, down_}) b->setMaximumWidth(36);
  expand_ = new QPushButton(tr("Expand"));
  expand_->setToolTip(tr("Replace the named pipeline by its passes, to edit them"));
  error_ = new QLabel;
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #c0392b"));
  args_title_ = new QLabel;
  args_title_->setWordWrap(true);
  args_ = new QWidget;
  args_form_ = new QFormLayout(args_);
  args_form_->setContentsMargins(0, 0, 0, 0);
  filter_ = new QLineEdit;
  filter_->setPlaceholderText(tr("Search passes (name or description)"));
  filter_->setClearButtonEnabled(true);
  catalog_ = new QListWidget;
  for (const transform::PassEntry* entry : transform::PassRegistry::Global().Passes()) {
    auto* item = new QListWidgetItem(QString::fromStdString(entry->name), catalog_);
    item->setToolTip(EntryToolTip(*entry));
  }
  if (catalog_->count() > 0) catalog_->setCurrentRow(0);

  auto* buttons = new QHBoxLayout;
  for (QPushButton* b : {add_, remove_, up_, down_, expand_}) buttons->addWidget(b);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("Passes of the pipeline:")));
  layout->addWidget(list_, 2);
  layout->addLayout(buttons);
  layout->addWidget(error_);
  layout->addWidget(args_title_);
  layout->addWidget(args_);
  layout->addWidget(filter_);
  layout->addWidget(catalog_, 2);

  connect(add_, &QPushButton::clicked, this, [this] {
    if (QListWidgetItem* item = catalog_->currentItem(); item && !item->isHidden())
      AddPass(item->text());
  });
  connect(catalog_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { AddPass(item->text()); });
  connect(remove_, &QPushButton::clicked, this, &PipelineEditor::RemoveSelected);
  connect(up_, &QPushButton::clicked, this, [this] { MoveSelected(-1); });
  connect(down_, &QPushButton::clicked, this, [this] { MoveSelected(1); });
  connect(expand_, &QPushButton::clicked, this, &PipelineEditor::ExpandNamed);
  connect(filter_, &QLineEdit::textChanged, this, &PipelineEditor::FilterCatalog);
  connect(filter_, &QLineEdit::returnPressed, add_, &QPushButton::click);
  connect(catalog_, &QListWidget::currentRowChanged, this, [this] { UpdateButtons(); });
  connect(list_, &QListWidget::currentRowChanged, this, [this] {
    if (populating_) return;
    ShowArguments();
    UpdateButtons();
  });
  // Dragging moves rows in the model; the specs follow.
  connect(list_->model(), &QAbstractItemModel::rowsMoved, this, [this] {
    if (!populating_) SyncOrderFromList();
  });
  Populate(-1);
}

bool PipelineEditor::SetText(const QString& text) {
  if (text == last_text_) return true;
  DiagnosticList diags;
  std::string source = text.toStdString();
  auto specs = transform::ParsePipeline(source, diags);
  if (!specs) {
    QStringList messages;
    for (const auto& d : diags) messages << QString::fromStdString(d.message);
    error_->setText(messages.join('\n'));
    return false;
  }
  error_->clear();
  last_text_ = text;
  std::string trimmed = text.trimmed().toStdString();
  if (transform::PassRegistry::Global().FindPipeline(trimmed))
    named_ = trimmed;
  else
    named_.reset();
  int row = list_->currentRow();
  specs_ = std::move(*specs);
  Populate(row < int(specs_.size()) ? row : -1);
  return true;
}

QString PipelineEditor::text() const {
  if (named_) return QString::fromStdString(*named_);
  return QString::fromStdString(transform::PipelineText(specs_));
}

void PipelineEditor::Populate(int select) {
  populating_ = true;
  list_->clear();
  if (named_) {
    auto* item = new QListWidgetItem(tr("%1  (named pipeline, %2 passes: Expand to edit them)")
                                         .arg(QString::fromStdString(*named_))
                                         .arg(specs_.size()),
                                     list_);
    QStringList passes;
    for (const auto& spec : specs_) passes << SpecText(spec);
    item->setToolTip(passes.join('\n'));
    item->setFlags(item->flags() & ~Qt::ItemIsDragEnabled);
  } else {
    for (size_t i = 0; i < specs_.size(); ++i) {
      auto* item = new QListWidgetItem(SpecText(specs_[i]), list_);
      item->setData(Qt::UserRole, int(i));
      item->setFlags((item->flags() | Qt::ItemIsDragEnabled) & ~Qt::ItemIsDropEnabled);
      if (const auto* entry = transform::PassRegistry::Global().Find(specs_[i].name)) {
        item->setToolTip(EntryToolTip(*entry));
      }
    }
  }
  if (select >= 0 && select < list_->count()) list_->setCurrentRow(select);
  populating_ = false;
  ShowArguments();
  UpdateButtons();
}

void PipelineEditor::UpdateItem(int row) {
  if (QListWidgetItem* item = list_->item(row)) item->setText(SpecText(specs_[row]));
}

void PipelineEditor::UpdateButtons() {
  int row = list_->currentRow();
  bool editable = !named_ && row >= 0 && row < int(specs_.size());
  remove_->setEnabled(editable);
  up_->setEnabled(editable && row > 0);
  down_->setEnabled(editable && row + 1 < int(specs_.size()));
  expand_->setEnabled(named_.has_value());
  QListWidgetItem* pick = catalog_->currentItem();
  add_->setEnabled(pick && !pick->isHidden());
}

void PipelineEditor::Edited() {
  last_text_ = text();
  error_->clear();
  Q_EMIT textEdited(last_text_);
}

void PipelineEditor::MakeEditable() {
  if (named_) ExpandNamed();
}

void PipelineEditor::ExpandNamed() {
  if (!named_) return;
  named_.reset();
  Populate(0);
  Edited();
}

bool PipelineEditor::AddPass(const QString& name) {
  const transform::PassEntry* entry = transform::PassRegistry::Global().Find(name.toStdString());
  if (!entry) {
    error_->setText(tr("unknown pass '%1'").arg(name));
    return false;
  }
  MakeEditable();
  transform::PassSpec spec;
  spec.name = entry->name;
  for (const auto& p : entry->params) spec.args.values[p.name] = p.default_value;
  int row = list_->currentRow();
  int at = row >= 0 && row < int(specs_.size()) ? row + 1 : int(specs_.size());
  specs_.insert(specs_.begin() + at, std::move(spec));
  Populate(at);
  Edited();
  return true;
}

void PipelineEditor::RemoveSelected() {
  int row = list_->currentRow();
  if (named_ || row < 0 || row >= int(specs_.size())) return;
  specs_.erase(specs_.begin() + row);
  Populate(std::min(row, int(specs_.size()) - 1));
  Edited();
}

void PipelineEditor::MoveSelected(int delta) {
  int row = list_->currentRow();
  int to = row + delta;
  if (named_ || row < 0 || row >= int(specs_.size()) || to < 0 || to >= int(specs_.size())) return;
  std::swap(specs_[row], specs_[to]);
  Populate(to);
  Edited();
}

void PipelineEditor::SyncOrderFromList() {
  if (named_ || list_->count() != int(specs_.size())) return;
  std::vector<transform::PassSpec> reordered;
  for (int i = 0; i < list_->count(); ++i) {
    int old = list_->item(i)->data(Qt::UserRole).toInt();
    if (old < 0 || old >= int(specs_.size())) return;
    reordered.push_back(specs_[old]);
  }
  specs_ = std::move(reordered);
  for (int i = 0; i < list_->count(); ++i) list_->item(i)->setData(Qt::UserRole, i);
  ShowArguments();
  UpdateButtons();
  Edited();
}

void PipelineEditor::FilterCatalog(const QString& filter) {
  QListWidgetItem* first = nullptr;
  for (int i = 0; i < catalog_->count(); ++i) {
    QListWidgetItem* item = catalog_->item(i);
    bool match = filter.isEmpty() || item->text().contains(filter, Qt::CaseInsensitive) ||
                 item->toolTip().contains(filter, Qt::CaseInsensitive);
    item->setHidden(!match);
    if (match && !first) first = item;
  }
  QListWidgetItem* current = catalog_->currentItem();
  if ((!current || current->isHidden()) && first) catalog_->setCurrentItem(first);
  UpdateButtons();
}

QWidget* PipelineEditor::argumentEditor(const QString& name) const {
  auto it = arg_widgets_.find(name.toStdString());
  return it == arg_widgets_.end() ? nullptr : it->second.first;
}

QToolButton* PipelineEditor::resetButton(const QString& name) const {
  auto it = arg_widgets_.find(name.toStdString());
  return it == arg_widgets_.end() ? nullptr : it->second.second;
}

void PipelineEditor::SetArgument(int row, const std::string& name, ir::ObjectRef value) {
  if (row < 0 || row >= int(specs_.size())) return;
  specs_[row].args.values[name] = std::move(value);
  UpdateItem(row);
  if (const auto* entry = transform::PassRegistry::Global().Find(specs_[row].name)) {
    for (const auto& p : entry->params) {
      if (p.name == name && arg_widgets_.count(name)) {
        arg_widgets_[name].second->setEnabled(
            !transform::IsDefaultValue(p, specs_[row].args.values[name]));
      }
    }
  }
  Edited();
}

void PipelineEditor::ShowArguments() {
  while (args_form_->rowCount() > 0) args_form_->removeRow(0);
  arg_widgets_.clear();
  int row = list_->currentRow();
  if (named_ || row < 0 || row >= int(specs_.size())) {
    args_title_->setText(named_ ? tr("Expand the named pipeline to edit its passes' arguments")
                                : tr("Select a pass to edit its arguments"));
    return;
  }
  const transform::PassSpec& spec = specs_[row];
  const transform::PassEntry* entry = transform::PassRegistry::Global().Find(spec.name);
  if (!entry || entry->params.empty()) {
    args_title_->setText(tr("%1 takes no arguments").arg(QString::fromStdString(spec.name)));
    return;
  }
  args_title_->setText(tr("Arguments of %1:").arg(QString::fromStdString(spec.name)));
  for (const transform::PassParam& p : entry->params) {
    const ir::ObjectRef& value = spec.args.values.at(p.name);
    std::string name = p.name;
    ParamEditor made =
        MakeParamEditor(p, value, [this, row, name](ir::ObjectRef v) { SetArgument(row, name, v); });
    QWidget* editor = made.widget;
    auto show = made.show;
    QString default_text = QString::fromStdString(transform::ParamValueText(p.default_value));
    auto* reset = new QToolButton;
    reset->setText(tr("Reset"));
    reset->setToolTip(tr("Back to the default, %1").arg(default_text));
    reset->setEnabled(!transform::IsDefaultValue(p, value));
    ir::ObjectRef default_value = p.default_value;
    connect(reset, &QToolButton::clicked, this, [this, row, name, show, default_value] {
      show(default_value);
      SetArgument(row, name, default_value);
    });
    auto* line = new QHBoxLayout;
    line->addWidget(editor, 1);
    line->addWidget(reset);
    auto* label =
        new QLabel(tr("%1 (default %2)").arg(QString::fromStdString(p.name), default_text));
    label->setTextFormat(Qt::PlainText);
    label->setToolTip(editor->toolTip());
    args_form_->addRow(label, line);
    arg_widgets_[name] = {editor, reset};
  }
}

}  // namespace wb::app
