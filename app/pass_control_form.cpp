#include "pass_control_form.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "param_editor.h"

namespace wb::app {

namespace {

constexpr int kNameColumn = 0;
constexpr int kDisabledColumn = 1;
constexpr int kRequiredColumn = 2;

// The opt level a PassContext has when nobody sets one.
int DefaultOptLevel() { return ir::PassContext().opt_level; }

}  // namespace

PassControlForm::PassControlForm(QWidget* parent) : QWidget(parent) {
  opt_level_ = new QSpinBox;
  opt_level_->setRange(0, transform::kMaxOptLevel);
  opt_level_->setValue(DefaultOptLevel());
  opt_level_->setToolTip(tr("Passes registered above this level do not run; FuseOps fuses at it "
                            "(default %1)")
                             .arg(DefaultOptLevel()));
  connect(opt_level_, &QSpinBox::valueChanged, this, [this] { Changed(); });

  auto* content = new QWidget;
  auto* column = new QVBoxLayout(content);
  column->setContentsMargins(0, 0, 0, 0);
  auto* top = new QFormLayout;
  top->addRow(new QLabel(tr("Opt level:")), opt_level_);
  column->addLayout(top);

  for (const transform::PassConfigOption* option : transform::PassConfigRegistry::Global().Options()) {
    auto* group = new QGroupBox(QString::fromStdString(option->key));
    group->setToolTip(QString::fromStdString(option->doc));
    auto* form = new QFormLayout(group);
    for (const transform::PassParam& p : option->fields) {
      std::string key = option->key, name = p.name;
      ParamEditor made = MakeParamEditor(p, p.default_value, [this, key, name](ir::ObjectRef v) {
        FieldEdited(key, name, std::move(v));
      });
      QString default_text = QString::fromStdString(transform::ParamValueText(p.default_value));
      auto* reset = new QToolButton;
      reset->setText(tr("Reset"));
      reset->setToolTip(tr("Back to the default, %1").arg(default_text));
      reset->setEnabled(false);
      connect(reset, &QToolButton::clicked, this, [this, key, name] {
        Field& f = fields_.at({key, name});
        f.show(f.param.default_value);
        FieldEdited(key, name, f.param.default_value);
      });
      auto* line = new QHBoxLayout;
      line->addWidget(made.widget, 1);
      line->addWidget(reset);
      auto* label = new QLabel(tr("%1 (default %2)").arg(QString::fromStdString(p.name), default_text));
      label->setTextFormat(Qt::PlainText);
      label->setToolTip(made.widget->toolTip());
      form->addRow(label, line);
      fields_[{key, name}] = Field{made.widget, reset, made.show, p, p.default_value};
    }
    column->addWidget(group);
  }

  filter_ = new QLineEdit;
  filter_->setPlaceholderText(tr("Filter passes"));
  filter_->setClearButtonEnabled(true);
  passes_ = new QTableWidget;
  passes_->setColumnCount(3);
  passes_->setHorizontalHeaderLabels({tr("Pass"), tr("Disable"), tr("Require")});
  passes_->horizontalHeader()->setSectionResizeMode(kNameColumn, QHeaderView::Stretch);
  passes_->horizontalHeader()->setSectionResizeMode(kDisabledColumn, QHeaderView::ResizeToContents);
  passes_->horizontalHeader()->setSectionResizeMode(kRequiredColumn, QHeaderView::ResizeToContents);
  passes_->verticalHeader()->setVisible(false);
  passes_->setSelectionMode(QAbstractItemView::NoSelection);
  passes_->setMinimumHeight(160);
  passes_->setToolTip(tr("A disabled pass never runs, in the pipeline or in a build's lowering; a "
                         "required pass runs whatever its opt level"));
  auto passes = transform::PassRegistry::Global().Passes();
  passes_->setRowCount(int(passes.size()));
  for (int row = 0; row < int(passes.size()); ++row) {
    auto* name = new QTableWidgetItem(QString::fromStdString(passes[row]->name));
    name->setFlags(Qt::ItemIsEnabled);
    name->setToolTip(QString::fromStdString(passes[row]->doc));
    passes_->setItem(row, kNameColumn, name);
    for (int c : {kDisabledColumn, kRequiredColumn}) {
      auto* box = new QTableWidgetItem;
      box->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
      box->setCheckState(Qt::Unchecked);
      passes_->setItem(row, c, box);
    }
  }
  connect(passes_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (item->column() != kNameColumn) Changed();
  });
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    for (int row = 0; row < passes_->rowCount(); ++row) {
      passes_->setRowHidden(row, !passes_->item(row, kNameColumn)->text().contains(text, Qt::CaseInsensitive));
    }
  });
  column->addWidget(new QLabel(tr("Passes:")));
  column->addWidget(filter_);
  column->addWidget(passes_, 1);

  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setWidget(content);
  command_line_ = new QLabel;
  command_line_->setWordWrap(true);
  command_line_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  command_line_->setToolTip(tr("The same settings as options of workbench --batch"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(scroll, 1);
  layout->addWidget(command_line_);
  Changed();
}

void PassControlForm::FieldEdited(const std::string& key, const std::string& field,
                                  ir::ObjectRef value) {
  Field& f = fields_.at({key, field});
  f.value = std::move(value);
  f.reset->setEnabled(!transform::IsDefaultValue(f.param, f.value));
  Changed();
}

void PassControlForm::Changed() {
  if (updating_) return;
  std::string text = control().CommandLineText();
  command_line_->setText(text.empty() ? tr("Batch: (the defaults)")
                                      : tr("Batch: %1").arg(QString::fromStdString(text)));
  Q_EMIT changed();
}

transform::PassControl PassControlForm::control() const {
  transform::PassControl out;
  if (opt_level_->value() != DefaultOptLevel()) out.opt_level = opt_level_->value();
  std::map<std::string, ir::AttrMap> config;
  for (const auto& [where, f] : fields_) {
    if (!transform::IsDefaultValue(f.param, f.value)) config[where.first][where.second] = f.value;
  }
  for (auto& [key, fields] : config) out.config[key] = ir::MakeMap(std::move(fields));
  for (int row = 0; row < passes_->rowCount(); ++row) {
    std::string name = passes_->item(row, kNameColumn)->text().toStdString();
    if (passes_->item(row, kDisabledColumn)->checkState() == Qt::Checked) out.disabled_passes.push_back(name);
    if (passes_->item(row, kRequiredColumn)->checkState() == Qt::Checked) out.required_passes.push_back(name);
  }
  return out;
}

void PassControlForm::SetControl(const transform::PassControl& control) {
  updating_ = true;
  opt_level_->setValue(control.opt_level.value_or(DefaultOptLevel()));
  for (auto& [where, f] : fields_) {
    ir::ObjectRef value = f.param.default_value;
    if (auto it = control.config.find(where.first); it != control.config.end()) {
      if (auto* map = it->second.as<ir::MapObj>()) {
        if (auto v = map->items.find(where.second); v != map->items.end()) value = v->second;
      }
    }
    f.value = value;
    f.show(value);
    f.reset->setEnabled(!transform::IsDefaultValue(f.param, value));
  }
  auto listed = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (int row = 0; row < passes_->rowCount(); ++row) {
    std::string name = passes_->item(row, kNameColumn)->text().toStdString();
    passes_->item(row, kDisabledColumn)
        ->setCheckState(listed(control.disabled_passes, name) ? Qt::Checked : Qt::Unchecked);
    passes_->item(row, kRequiredColumn)
        ->setCheckState(listed(control.required_passes, name) ? Qt::Checked : Qt::Unchecked);
  }
  updating_ = false;
  Changed();
}

QWidget* PassControlForm::fieldEditor(const QString& key, const QString& field) const {
  auto it = fields_.find({key.toStdString(), field.toStdString()});
  return it == fields_.end() ? nullptr : it->second.editor;
}

QToolButton* PassControlForm::fieldReset(const QString& key, const QString& field) const {
  auto it = fields_.find({key.toStdString(), field.toStdString()});
  return it == fields_.end() ? nullptr : it->second.reset;
}

bool PassControlForm::SetPassColumn(const QString& name, int column, bool checked) {
  auto found = passes_->findItems(name, Qt::MatchExactly);
  for (QTableWidgetItem* item : found) {
    if (item->column() != kNameColumn) continue;
    passes_->item(item->row(), column)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    return true;
  }
  return false;
}

bool PassControlForm::SetPassDisabled(const QString& name, bool disabled) {
  return SetPassColumn(name, kDisabledColumn, disabled);
}

bool PassControlForm::SetPassRequired(const QString& name, bool required) {
  return SetPassColumn(name, kRequiredColumn, required);
}

}  // namespace wb::app
