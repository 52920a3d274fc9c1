#include "pass_explorer.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>

#include "diff_view.h"
#include "script/tvmscript.h"
#include "transform/registry.h"
#include "workbench/changed_functions.h"
#include "workbench/session.h"

namespace wb::app {

PassExplorer::PassExplorer(QWidget* parent) : QWidget(parent) {
  pipeline_ = new QComboBox;
  pipeline_->setEditable(true);
  pipeline_->addItem(QString::fromUtf8(workbench::Session::kDefaultPipeline));
  for (const auto& name : transform::PassRegistry::Global().Pipelines()) {
    pipeline_->addItem(QString::fromStdString(name));
  }
  for (const auto* entry : transform::PassRegistry::Global().Passes()) {
    pipeline_->addItem(QString::fromStdString(entry->name));
  }
  pipeline_->setToolTip(
      tr("A named pipeline, or passes separated by commas, with keyword "
         "arguments: FuseOps(fuse_opt_level=2)"));
  run_ = new QPushButton(tr("Run"));
  hide_unchanged_ = new QCheckBox(tr("Hide unchanged"));
  changed_functions_only_ = new QCheckBox(tr("Changed functions only"));
  changed_functions_only_->setToolTip(tr("Show only the functions the selected pass rewrote"));
  passes_ = new QListWidget;
  before_ = MakeCodePane();
  after_ = MakeCodePane();
  status_ = new QLabel;
  status_->setWordWrap(true);

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Pipeline:")));
  top->addWidget(pipeline_, 1);
  top->addWidget(run_);
  top->addWidget(hide_unchanged_);
  top->addWidget(changed_functions_only_);

  auto* panes = new QSplitter(Qt::Horizontal);
  panes->addWidget(before_);
  panes->addWidget(after_);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(passes_);
  split->addWidget(panes);
  split->setStretchFactor(1, 3);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(status_);
  layout->addWidget(split, 1);

  connect(run_, &QPushButton::clicked, this,
          [this] { Q_EMIT runRequested(pipeline_->currentText()); });
  connect(pipeline_->lineEdit(), &QLineEdit::returnPressed, this,
          [this] { Q_EMIT runRequested(pipeline_->currentText()); });
  connect(passes_, &QListWidget::currentRowChanged, this, [this](int row) { SelectPass(row); });
  connect(hide_unchanged_, &QCheckBox::toggled, this, [this] { Populate(); });
  connect(changed_functions_only_, &QCheckBox::toggled, this,
          [this] { SelectPass(passes_->currentRow()); });
  LinkScrolling(before_, after_);
}

QString PassExplorer::pipelineText() const { return pipeline_->currentText(); }
void PassExplorer::setPipelineText(const QString& text) { pipeline_->setCurrentText(text); }

void PassExplorer::ShowRun(const transform::PipelineResult& run) {
  snapshots_ = run.snapshots;
  QStringList messages;
  for (const auto& d : run.diagnostics) messages << QString::fromStdString(d.message);
  int changed = 0;
  double ms = 0;
  for (const auto& s : snapshots_) {
    changed += s.changed();
    ms += s.milliseconds;
  }
  status_->setText(messages.isEmpty() ? tr("%1 passes, %2 changed the module, %3 ms")
                                            .arg(snapshots_.size())
                                            .arg(changed)
                                            .arg(ms, 0, 'f', 2)
                                      : messages.join('\n'));
  status_->setStyleSheet(messages.isEmpty() ? QString() : QStringLiteral("color: #c0392b"));
  Populate();
}

void PassExplorer::Populate() {
  passes_->clear();
  for (size_t i = 0; i < snapshots_.size(); ++i) {
    const auto& s = snapshots_[i];
    if (hide_unchanged_->isChecked() && !s.changed()) continue;
    auto* item = new QListWidgetItem(QStringLiteral("%1  %2   %3 ms%4")
                                         .arg(s.index + 1, 2, 10, QLatin1Char('0'))
                                         .arg(QString::fromStdString(s.name))
                                         .arg(s.milliseconds, 0, 'f', 3)
                                         .arg(s.changed() ? QString() : tr("   (unchanged)")));
    item->setData(Qt::UserRole, static_cast<int>(i));
    if (!s.changed()) item->setForeground(QColor("#a0a1a7"));
    passes_->addItem(item);
  }
  if (passes_->count() > 0) {
    passes_->setCurrentRow(0);
  } else {
    before_->clear();
    after_->clear();
  }
}

void PassExplorer::SelectPass(int row) {
  if (row < 0 || row >= passes_->count()) return;
  int index = passes_->item(row)->data(Qt::UserRole).toInt();
  const auto& snap = snapshots_[index];
  std::string before, after;
  if (changed_functions_only_->isChecked() && snap.after.defined()) {
    std::vector<std::string> changed = workbench::ChangedFunctions(snap.before, snap.after);
    before = script::PrintModule(workbench::OnlyFunctions(snap.before, changed));
    after = script::PrintModule(workbench::OnlyFunctions(snap.after, changed));
  } else {
    before = snap.BeforeText();
    after = snap.after.defined() ? snap.AfterText() : std::string();
  }
  ShowDiff(before_, after_, before, after, &changed_before_, &changed_after_);
}

}  // namespace wb::app
