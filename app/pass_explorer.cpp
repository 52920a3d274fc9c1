#include "pass_explorer.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QMenu>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTextDocument>
#include <QToolButton>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>
#include <optional>

#include "diff_view.h"
#include "pass_control_form.h"
#include "pipeline_editor.h"
#include "script/tvmscript.h"
#include "transform/registry.h"
#include "transform/pass_control.h"
#include "workbench/changed_functions.h"
#include "workbench/check_each.h"
#include "workbench/pass_attribution.h"
#include "workbench/session.h"

namespace wb::app {

namespace {

// A worker's progress, each report queued to `receiver`'s thread and handed to `show` there.
workbench::ProgressFn QueuedProgress(QObject* receiver, std::function<void(const QString&, double)> show) {
  return [receiver, show = std::move(show)](const std::string& stage, double fraction) {
    QMetaObject::invokeMethod(
        receiver, [show, text = QString::fromStdString(stage), fraction] { show(text, fraction); },
        Qt::QueuedConnection);
  };
}

// Paints a pass row with its impact (PassExplorer::kImpactRole) right-aligned in a column of its
// own at the list's right edge while any pass has one, the row's text elided in the rest.
class ImpactColumnDelegate : public QStyledItemDelegate {
 public:
  ImpactColumnDelegate(const QHash<QString, QString>* impacts, QObject* parent)
      : QStyledItemDelegate(parent), impacts_(impacts) {}

  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    if (impacts_->isEmpty()) {
      QStyledItemDelegate::paint(painter, option, index);
      return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QWidget* widget = opt.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    const QString text = opt.text;
    opt.text.clear();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);  // background, selection
    QRect rect = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget);
    // The column stays at the right edge of what the list shows, however wide the row's text.
    if (auto* view = qobject_cast<const QAbstractItemView*>(widget)) {
      rect.setRight(std::min(rect.right(), view->viewport()->rect().right() - 2));
    }
    const QRect left = rect.adjusted(0, 0, -ColumnWidth(opt.fontMetrics), 0);
    const QRect right(left.right() + 1, rect.top(), rect.right() - left.right(), rect.height());
    painter->save();
    painter->setFont(opt.font);
    painter->setPen(opt.palette.color(opt.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(left, Qt::AlignLeft | Qt::AlignVCenter,
                      opt.fontMetrics.elidedText(text, Qt::ElideMiddle, left.width()));
    painter->drawText(right, Qt::AlignRight | Qt::AlignVCenter, index.data(PassExplorer::kImpactRole).toString());
    painter->restore();
  }

 private:
  // Room for the widest impact text, with a gap before it.
  static int ColumnWidth(const QFontMetrics& metrics) {
    int width = 0;
    for (const char* widest : {"  wrong results", "  cannot disable", "  breaks build", "  -100.0%"}) {
      width = std::max(width, metrics.horizontalAdvance(QLatin1String(widest)));
    }
    return width;
  }

  const QHash<QString, QString>* impacts_;
};

// One line each.
QString Lines(const std::vector<std::string>& lines) {
  QStringList out;
  for (const auto& line : lines) out << QString::fromStdString(line);
  return out.join('\n');
}

}  // namespace

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
  // Sized by a few words, not by the longest pipeline in the list: otherwise the Passes tab's
  // minimum width squeezes the editor beside it.
  pipeline_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  pipeline_->setMinimumContentsLength(16);
  pipeline_->setToolTip(
      tr("A named pipeline, or passes separated by commas, with keyword "
         "arguments: FuseOps(fuse_opt_level=2)"));
  composer_ = new PipelineEditor;
  pass_context_ = new PassControlForm;
  run_ = new QPushButton(tr("Run"));
  run_->setToolTip(tr("Run the pipeline over the document, off the UI thread (Ctrl+R)"));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setEnabled(false);
  cancel_->setToolTip(
      tr("Stop the run before its next pass. A pass that has started cannot be interrupted: it "
         "runs to its end first. The passes that finished stay listed."));
  progress_ = new QProgressBar;
  progress_->setRange(0, 100);
  progress_->setTextVisible(true);
  progress_->setVisible(false);
  hide_unchanged_ = new QCheckBox(tr("Hide unchanged"));
  changed_functions_only_ = new QCheckBox(tr("Changed functions only"));
  changed_functions_only_->setToolTip(tr("Show only the functions the selected pass rewrote"));
  passes_ = new QListWidget;
  structural_ = MakeCodePane();
  structural_->setObjectName("passesStructuralPane");
  structural_->setVisible(false);
  before_ = MakeCodePane();
  after_ = MakeCodePane();
  // Edit and resume: the module after the selected pass may be edited, then the passes after it
  // run on the edit.
  after_->setReadOnly(false);
  after_->setToolTip(tr("The module after the selected pass: edit it and Resume to run the rest "
                        "of the pipeline on the edit"));
  resume_ = new QPushButton(tr("Resume from here"));
  resume_->setToolTip(tr("Parse the module after the selected pass as edited (its problems are "
                         "shown as in the editor) and run the passes after it on it"));
  status_ = new QLabel;
  status_->setWordWrap(true);
  // What the tab tells about a run beyond its text, in one menu (the tool row's width is the
  // window's minimum width).
  analyze_ = new QToolButton;
  analyze_->setObjectName("passesAnalyze");
  analyze_->setText(tr("Analyze"));
  analyze_->setPopupMode(QToolButton::InstantPopup);
  analyze_->setToolButtonStyle(Qt::ToolButtonTextOnly);
  auto* analyze_menu = new QMenu(analyze_);
  structural_view_ = analyze_menu->addAction(tr("Structural view"));
  structural_view_->setCheckable(true);
  structural_view_->setToolTip(
      tr("Compare the functions before and after the selected pass by structure, aligned by name: a "
         "consistently renamed variable is no difference. Unchecked: the text side by side"));
  check_each_ = analyze_menu->addAction(tr("Check each pass"));
  check_each_->setCheckable(true);
  check_each_->setToolTip(
      tr("After each run, run every pass that changed the module against its input on seeded "
         "inputs (the reference interpreters), off the UI thread, and mark the first pass that "
         "changed what the module computes"));
  analyze_menu->addSeparator();
  impact_ = analyze_menu->addAction(tr("Measure impact of each pass"));
  impact_->setToolTip(
      tr("Build the last run's module for LLVM and time it with every pass, then without each "
         "pass in turn, off the UI thread: each pass gets the latency change without it, in "
         "percent (positive: slower without it), or that the build breaks without it"));
  impact_cancel_ = analyze_menu->addAction(tr("Cancel impact"));
  impact_cancel_->setEnabled(false);
  impact_cancel_->setToolTip(tr("Stop the attribution before its next build; the passes "
                                "attributed so far stay marked"));
  analyze_menu->setToolTipsVisible(true);
  analyze_->setMenu(analyze_menu);
  impact_progress_ = new QProgressBar;
  impact_progress_->setRange(0, 100);
  impact_progress_->setTextVisible(true);
  impact_progress_->setVisible(false);

  // The composer and the pass context fold away: the before/after panes are what the tab is
  // for, and they get the width (a narrow pass list beside them, as Compiler Explorer's Opt
  // Pipeline pane has it).
  composer_toggle_ = new QToolButton;
  composer_toggle_->setObjectName("passesComposerToggle");
  composer_toggle_->setText(tr("Composer"));
  composer_toggle_->setCheckable(true);
  composer_toggle_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  composer_toggle_->setArrowType(Qt::RightArrow);
  composer_toggle_->setToolTip(tr("Show the pipeline composer and the pass context beside the "
                                  "pass list"));

  auto* top = new QHBoxLayout;
  top->addWidget(composer_toggle_);
  top->addWidget(new QLabel(tr("Pipeline:")));
  top->addWidget(pipeline_, 1);
  top->addWidget(run_);
  top->addWidget(cancel_);
  top->addWidget(resume_);
  top->addWidget(hide_unchanged_);
  top->addWidget(changed_functions_only_);
  top->addWidget(analyze_);

  side_tabs_ = new QTabWidget;
  side_tabs_->setObjectName("passesSideTabs");
  side_tabs_->addTab(composer_, tr("Pipeline"));
  side_tabs_->addTab(pass_context_, tr("Pass context"));
  side_tabs_->setTabToolTip(1, tr("Opt level, pass config keys, disabled and required passes: "
                                  "what every run of this tab runs under"));
  side_tabs_->setVisible(false);
  // Pass names, times and marks fit in about 28 characters; the list wraps nothing.
  passes_->setMinimumWidth(120);
  passes_->setTextElideMode(Qt::ElideMiddle);
  passes_->setItemDelegate(new ImpactColumnDelegate(&impact_text_, passes_));
  auto* body = new QSplitter(Qt::Horizontal);
  body->setObjectName("passesBodySplitter");
  body->addWidget(side_tabs_);
  body->addWidget(passes_);
  body->addWidget(before_);
  body->addWidget(after_);
  body->addWidget(structural_);
  body->setChildrenCollapsible(false);
  // Extra width goes to the panes, shared evenly.
  body->setStretchFactor(0, 0);
  body->setStretchFactor(1, 0);
  body->setStretchFactor(2, 1);
  body->setStretchFactor(3, 1);
  body->setStretchFactor(4, 1);
  body->setSizes({kComposerWidth, kPassListWidth, 1000, 1000, 0});
  body_ = body;

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(progress_);
  layout->addWidget(impact_progress_);
  layout->addWidget(status_);
  layout->addWidget(body, 1);
  connect(composer_toggle_, &QToolButton::toggled, this, &PassExplorer::ShowComposer);

  connect(run_, &QPushButton::clicked, this,
          [this] { Q_EMIT runRequested(pipeline_->currentText()); });
  connect(pipeline_->lineEdit(), &QLineEdit::returnPressed, this,
          [this] { Q_EMIT runRequested(pipeline_->currentText()); });
  connect(passes_, &QListWidget::currentRowChanged, this, [this](int row) { SelectPass(row); });
  connect(hide_unchanged_, &QCheckBox::toggled, this, [this] { Populate(); });
  connect(changed_functions_only_, &QCheckBox::toggled, this,
          [this] { SelectPass(passes_->currentRow()); });
  connect(structural_view_, &QAction::toggled, this, [this](bool on) {
    before_->setVisible(!on);
    after_->setVisible(!on);
    structural_->setVisible(on);
    SelectPass(passes_->currentRow());
  });
  connect(cancel_, &QPushButton::clicked, this, &PassExplorer::Cancel);
  connect(impact_, &QAction::triggered, this, [this] { StartImpact(); });
  connect(impact_cancel_, &QAction::triggered, this, &PassExplorer::CancelImpact);
  connect(check_each_, &QAction::toggled, this, [this](bool on) {
    if (on && !has_check_) StartCheck();
  });
  connect(&check_watcher_, &QFutureWatcher<MeaningCheck>::finished, this,
          &PassExplorer::FinishCheck);
  connect(&impact_watcher_, &QFutureWatcher<ImpactOutcome>::finished, this, &PassExplorer::FinishImpact);
  connect(resume_, &QPushButton::clicked, this, [this] { ResumeFromSelected(); });
  // Two-way: the text box drives the composer, and the composer's edits write canonical text.
  connect(pipeline_, &QComboBox::currentTextChanged, composer_,
          [this](const QString& text) { composer_->SetText(text); });
  connect(composer_, &PipelineEditor::textEdited, this, [this](const QString& text) {
    if (pipeline_->currentText() != text) pipeline_->setCurrentText(text);
  });
  connect(&watcher_, &QFutureWatcher<transform::PipelineResult>::finished, this,
          &PassExplorer::FinishRun);
  diff_ = new DiffPanes(before_, after_, this);
  composer_->SetText(pipeline_->currentText());
}

PassExplorer::~PassExplorer() {
  // The worker reports progress to this widget; it must be done before the widget goes. It
  // stops at the next pass boundary.
  token_.Cancel();
  impact_token_.Cancel();
  check_token_.Cancel();
  watcher_.waitForFinished();
  impact_watcher_.waitForFinished();
  check_watcher_.waitForFinished();
}

QString PassExplorer::pipelineText() const { return pipeline_->currentText(); }
void PassExplorer::setPipelineText(const QString& text) { pipeline_->setCurrentText(text); }

bool PassExplorer::StartRun(const ir::IRModule& module, const QString& pipeline) {
  transform::PassControl control = pass_context_->control();
  bool started = StartJob(pipeline, control, tr("Running %1...").arg(pipeline),
                          [module, text = pipeline.toStdString(), control](const workbench::CancellationToken& token,
                                                                           const workbench::ProgressFn& progress) {
                            return workbench::RunPipelineOn(module, text, token, progress, control);
                          });
  if (started) run_module_ = module;
  return started;
}

bool PassExplorer::ResumeFromSelected() {
  auto refuse = [this](const QString& why) {
    status_->setText(why);
    status_->setStyleSheet(QStringLiteral("color: #b7950b"));
    return false;
  };
  int row = passes_->currentRow();
  if (row < 0 || row >= passes_->count()) return refuse(tr("Select the pass to resume after"));
  if (changed_functions_only_->isChecked()) {
    return refuse(tr("The after pane shows only the changed functions: uncheck \"Changed functions "
                     "only\" to edit the whole module before resuming"));
  }
  int index = passes_->item(row)->data(Qt::UserRole).toInt();
  // Checked here first, so that an edit with a mistake stays in the pane to be fixed.
  workbench::Analysis edit = workbench::Analyze(after_->toPlainText().toStdString(), "<edited>");
  if (edit.diagnostics.HasErrors()) {
    QStringList messages;
    for (const auto& d : edit.diagnostics) {
      QString where = d.span.defined()
                          ? tr("line %1, column %2: ").arg(d.span.start().line).arg(d.span.start().column)
                          : QString();
      messages << where + QString::fromStdString(d.message);
    }
    status_->setText(tr("The edited module has problems; nothing ran:\n%1").arg(messages.join('\n')));
    status_->setStyleSheet(QStringLiteral("color: #c0392b"));
    return false;
  }
  transform::PassControl control = pass_context_->control();
  const QString pipeline = run_pipeline_;
  return StartJob(pipeline, control,
                  tr("Resuming %1 after pass %2 (%3), edited...")
                      .arg(pipeline)
                      .arg(index + 1)
                      .arg(QString::fromStdString(snapshots_[index].name)),
                  [run = last_run_, index, edited = after_->toPlainText().toStdString(),
                   text = pipeline.toStdString(), control](const workbench::CancellationToken& token,
                                                           const workbench::ProgressFn& progress) {
                    return workbench::ResumePipelineOn(run, index, edited, text, token, progress, control);
                  });
}

bool PassExplorer::StartJob(const QString& pipeline, const transform::PassControl& control,
                            const QString& status, Job job) {
  if (running_) {
    status_->setText(tr("A pipeline is already running (%1); cancel it or wait for it before "
                        "running another")
                         .arg(progress_->format()));
    status_->setStyleSheet(QStringLiteral("color: #b7950b"));
    return false;
  }
  token_ = workbench::CancellationToken();
  int generation = ++generation_;
  // The impacts shown belong to the run before; an attribution in flight is for it too.
  CancelImpact();
  ++impact_generation_;
  impact_text_.clear();
  impact_tip_.clear();
  check_token_.Cancel();
  ++check_generation_;
  has_check_ = false;
  run_text_ = document_ ? document_->toPlainText() : QString();
  run_revision_ = document_ ? document_->revision() : 0;
  workbench::ProgressFn progress = QueuedProgress(this, [this, generation](const QString& text, double fraction) {
    if (generation != generation_ || !running_) return;
    progress_->setValue(int(fraction * 100));
    progress_->setFormat(text);
  });
  progress_->setValue(0);
  progress_->setFormat(tr("starting %1").arg(pipeline));
  status_->setText(status);
  status_->setStyleSheet(QString());
  SetRunning(true);
  run_control_ = control;
  run_pipeline_ = pipeline;
  watcher_.setFuture(QtConcurrent::run(
      [job = std::move(job), token = token_, progress] { return job(token, progress); }));
  return true;
}

void PassExplorer::Cancel() {
  if (!running_) return;
  token_.Cancel();
  cancel_->setEnabled(false);
  progress_->setFormat(tr("cancelling after the current pass: %1").arg(progress_->format()));
}

bool PassExplorer::StartImpact() {
  auto refuse = [this](const QString& why) {
    status_->setText(why);
    status_->setStyleSheet(QStringLiteral("color: #b7950b"));
    return false;
  };
  if (impact_running_) return refuse(tr("The impact of the passes is being measured already"));
  if (running_) return refuse(tr("A pipeline is running: measure the impact of its passes when it is done"));
  if (!run_module_.defined() || snapshots_.empty() || !last_run_.ok()) {
    return refuse(tr("Run a pipeline that succeeds first: the impact is measured for its passes"));
  }
  if (resumed_after_ >= 0) {
    return refuse(tr("The run shown was resumed from an edit, which the impact cannot rebuild: run the "
                     "pipeline on the document again first"));
  }
  std::string error;
  std::optional<codegen::Target> target = codegen::ParseTarget("llvm", &error);
  if (!target) return refuse(tr("No LLVM target: %1").arg(QString::fromStdString(error)));
  workbench::PassAttributionRequest request;
  request.module = run_module_;
  request.pipeline = run_pipeline_.toStdString();
  request.target = *target;
  impact_token_ = workbench::CancellationToken();
  int generation = ++impact_generation_;
  impact_started_ = generation;
  impact_text_.clear();
  impact_tip_.clear();
  RefreshRows();
  workbench::ProgressFn progress = QueuedProgress(this, [this, generation](const QString& text, double fraction) {
    if (generation != impact_generation_ || !impact_running_) return;
    impact_progress_->setValue(int(fraction * 100));
    impact_progress_->setFormat(tr("impact: %1").arg(text));
  });
  auto on_impact = [this, generation](const workbench::PassImpact& impact) {
    QMetaObject::invokeMethod(
        this, [this, generation, impact] { ShowImpact(generation, impact); }, Qt::QueuedConnection);
  };
  impact_progress_->setValue(0);
  impact_progress_->setFormat(tr("impact: build with every pass"));
  status_->setText(tr("Measuring the impact of each pass of %1...").arg(run_pipeline_));
  status_->setStyleSheet(QString());
  SetImpactRunning(true);
  impact_watcher_.setFuture(QtConcurrent::run(
      [request, control = run_control_, token = impact_token_, progress, on_impact] {
        ir::PassContext context = transform::ContextWith(control);
        ir::PassContext::Scope scope(context);
        workbench::PassAttribution attribution = workbench::AttributePasses(request, token, progress, on_impact);
        return ImpactOutcome{attribution.message, attribution.cancelled, attribution.impacts.size(),
                             attribution.passes.size()};
      }));
  return true;
}

void PassExplorer::ShowImpact(int generation, const workbench::PassImpact& impact) {
  if (generation != impact_generation_) return;
  using Outcome = workbench::PassImpact::Outcome;
  QString text, tip;
  const QString why = QString::fromStdString(impact.message);
  switch (impact.outcome) {
    case Outcome::kTimed:
      text = QStringLiteral("%1%2%").arg(impact.change_percent() >= 0 ? "+" : "").arg(impact.change_percent(), 0, 'f', 1);
      tip = tr("Without this pass: %1 ms a call instead of %2 ms (the sum of the functions' medians)")
                .arg(impact.without_s * 1e3, 0, 'g', 4)
                .arg(impact.with_s * 1e3, 0, 'g', 4);
      break;
    case Outcome::kBuildFails: text = tr("breaks build"); tip = tr("The build fails without it: %1").arg(why); break;
    case Outcome::kWrongResults: text = tr("wrong results"); tip = tr("Without it the results differ: %1").arg(why); break;
    case Outcome::kRunFails: text = tr("run fails"); tip = tr("Without it a function fails: %1").arg(why); break;
    case Outcome::kNotDisablable: text = tr("cannot disable"); tip = why; break;
  }
  const QString pass = QString::fromStdString(impact.pass);
  impact_text_[pass] = text;
  impact_tip_[pass] = tip;
  RefreshRows();
}

void PassExplorer::CancelImpact() {
  if (!impact_running_) return;
  impact_token_.Cancel();
  impact_cancel_->setEnabled(false);
  impact_progress_->setFormat(tr("cancelling after the current build: %1").arg(impact_progress_->format()));
}

void PassExplorer::WaitForImpact() {
  if (!impact_running_) return;
  impact_watcher_.waitForFinished();
  // The rows the worker queued before it finished.
  QCoreApplication::sendPostedEvents(this);
  FinishImpact();
}

void PassExplorer::SetImpactRunning(bool running) {
  impact_running_ = running;
  impact_->setEnabled(!running);
  impact_cancel_->setEnabled(running);
  impact_progress_->setVisible(running);
}

void PassExplorer::FinishImpact() {
  if (!impact_running_ || !impact_watcher_.isFinished()) return;
  SetImpactRunning(false);
  const ImpactOutcome outcome = impact_watcher_.result();
  if (impact_started_ != impact_generation_) {
    // Cancelled by a new run, whose status line stays.
  } else if (!outcome.message.empty()) {
    status_->setText(tr("Impact: %1").arg(QString::fromStdString(outcome.message)));
    status_->setStyleSheet(QStringLiteral("color: #c0392b"));
  } else if (outcome.cancelled) {
    status_->setText(tr("Impact cancelled: %1 of %2 passes measured").arg(outcome.attributed).arg(outcome.passes));
    status_->setStyleSheet(QStringLiteral("color: #b7950b"));
  } else {
    status_->setText(tr("Impact of %1 passes measured (the latency change without each, in percent; the "
                        "build's own passes are measured too, only the listed ones are shown)")
                         .arg(outcome.attributed));
    status_->setStyleSheet(QString());
  }
  Q_EMIT impactFinished();
}

bool PassExplorer::StartCheck() {
  if (check_running_ || running_ || snapshots_.empty()) return false;
  check_token_ = workbench::CancellationToken();
  int generation = ++check_generation_;
  check_started_ = generation;
  has_check_ = false;
  RefreshRows();
  workbench::ProgressFn progress = QueuedProgress(this, [this, generation](const QString& text, double) {
    if (generation != check_generation_ || !check_running_) return;
    status_->setText(tr("Checking each pass: %1...").arg(text));
  });
  check_running_ = true;
  status_->setText(tr("Checking each pass..."));
  status_->setStyleSheet(QString());
  check_watcher_.setFuture(QtConcurrent::run([run = last_run_, token = check_token_, progress] {
    std::vector<workbench::Transition> transitions = workbench::PassTransitions(run);
    std::vector<workbench::TransitionCheck> checks =
        workbench::CheckTransitions(transitions, /*stop_at_first_change=*/true, token, progress);
    MeaningCheck out;
    using Outcome = workbench::TransitionCheck::Outcome;
    for (size_t i = 0; i < checks.size(); ++i) {
      out.equal += checks[i].outcome == Outcome::kEqual;
      out.skipped += checks[i].outcome == Outcome::kSkipped;
      out.cancelled |= checks[i].outcome == Outcome::kCancelled;
      if (checks[i].outcome == Outcome::kChanged) {
        out.changed = static_cast<int>(transitions[i].source);
        out.changes = checks[i].changes;
      }
    }
    return out;
  }));
  return true;
}

void PassExplorer::WaitForCheck() {
  if (!check_running_) return;
  check_watcher_.waitForFinished();
  FinishCheck();
}

void PassExplorer::FinishCheck() {
  if (!check_running_ || !check_watcher_.isFinished()) return;
  check_running_ = false;
  // Superseded by a new run: its result is for snapshots no longer shown.
  if (check_started_ != check_generation_) {
    Q_EMIT checkFinished();
    return;
  }
  check_ = check_watcher_.result();
  has_check_ = !check_.cancelled;
  RefreshRows();
  if (check_.changed >= 0) {
    const auto& s = snapshots_[check_.changed];
    status_->setText(tr("Pass %1 %2 changed what the module computes:\n%3")
                         .arg(s.index + 1)
                         .arg(QString::fromStdString(s.name))
                         .arg(Lines(check_.changes)));
    status_->setStyleSheet(QStringLiteral("color: #c0392b"));
  } else if (check_.cancelled) {
    status_->setText(tr("Check of each pass cancelled"));
    status_->setStyleSheet(QStringLiteral("color: #b7950b"));
  } else {
    status_->setText(tr("Each pass kept what the module computes (%1 checked on seeded inputs%2)")
                         .arg(check_.equal)
                         .arg(check_.skipped ? tr(", %1 could not be checked").arg(check_.skipped) : QString()));
    status_->setStyleSheet(QString());
  }
  Q_EMIT checkFinished();
}

void PassExplorer::WaitForRun() {
  if (!running_) return;
  watcher_.waitForFinished();
  FinishRun();
}

void PassExplorer::SetRunning(bool running) {
  running_ = running;
  run_->setEnabled(!running);
  resume_->setEnabled(!running);
  cancel_->setEnabled(running);
  progress_->setVisible(running);
}

void PassExplorer::FinishRun() {
  // WaitForRun may have shown this run already; the watcher's signal then comes late (and must
  // not take the next run's place).
  if (!running_ || !watcher_.isFinished()) return;
  SetRunning(false);
  last_run_ = watcher_.result();
  ShowRun(last_run_);
  if (check_each_->isChecked()) StartCheck();
  if (document_ && document_->toPlainText() != run_text_) {
    status_->setText(tr("Ran on revision %1 of the document, which has changed since (now "
                        "revision %2): run again to see the current text.\n%3")
                         .arg(run_revision_)
                         .arg(document_->revision())
                         .arg(status_->text()));
  }
  Q_EMIT runFinished();
}

void PassExplorer::ShowRun(const transform::PipelineResult& run) {
  snapshots_ = run.snapshots;
  resumed_after_ = run.resumed_after;
  QStringList messages;
  for (const auto& d : run.diagnostics) {
    QString where = d.span.defined() ? QStringLiteral("%1:%2: ").arg(d.span.start().line).arg(d.span.start().column)
                                     : QString();
    messages << where + QString::fromStdString(d.message);
  }
  int changed = 0;
  double ms = 0;
  for (const auto& s : snapshots_) {
    changed += s.changed();
    ms += s.milliseconds;
  }
  QString summary = tr("%1 passes, %2 changed the module, %3 ms")
                        .arg(snapshots_.size())
                        .arg(changed)
                        .arg(ms, 0, 'f', 2);
  if (run.cancelled) {
    // Not a failure: the passes that finished are listed as usual.
    summary = tr("Pipeline %1 (%2 changed the module, %3 ms)")
                  .arg(QString::fromStdString(run.CancelledMessage()))
                  .arg(changed)
                  .arg(ms, 0, 'f', 2);
  }
  std::string control = run_control_.CommandLineText();
  if (!control.empty()) summary += tr(", under %1").arg(QString::fromStdString(control));
  if (run.resumed_after >= 0) {
    summary = tr("Resumed after pass %1, edited: %2").arg(run.resumed_after + 1).arg(summary);
  }
  status_->setText(messages.isEmpty() ? summary : messages.join('\n'));
  status_->setStyleSheet(!messages.isEmpty() ? QStringLiteral("color: #c0392b")
                         : run.cancelled     ? QStringLiteral("color: #b7950b")
                                             : QString());
  Populate();
}

QString PassExplorer::RowText(const transform::PassSnapshot& s) const {
  bool edited = resumed_after_ == s.index;
  int at = static_cast<int>(&s - snapshots_.data());
  // Marked before its name too, which a narrow list still shows.
  const bool broke = has_check_ && check_.changed == at;
  return QStringLiteral("%1  %2   %3 ms%4%5%6")
      .arg(s.index + 1, 2, 10, QLatin1Char('0'))
      .arg((broke ? QStringLiteral("\u26A0 ") : QString()) + QString::fromStdString(s.name))
      .arg(s.milliseconds, 0, 'f', 3)
      .arg(s.changed() ? QString() : tr("   (unchanged)"))
      .arg(edited ? tr("   (edited after it)") : QString())
      .arg(broke ? tr("   (changed the meaning)") : QString());
}

void PassExplorer::Populate() {
  passes_->clear();
  for (size_t i = 0; i < snapshots_.size(); ++i) {
    if (hide_unchanged_->isChecked() && !snapshots_[i].changed()) continue;
    auto* item = new QListWidgetItem;
    item->setData(Qt::UserRole, static_cast<int>(i));
    DecorateRow(item);
    passes_->addItem(item);
  }
  if (passes_->count() > 0) {
    passes_->setCurrentRow(0);
  } else {
    diff_->Show({}, {});
    structural_->clear();
  }
}

void PassExplorer::DecorateRow(QListWidgetItem* item) {
  const int i = item->data(Qt::UserRole).toInt();
  const auto& s = snapshots_[i];
  item->setText(RowText(s));
  QString tip = impact_tip_.value(QString::fromStdString(s.name));
  item->setForeground(QBrush());
  if (has_check_ && check_.changed == i) {
    item->setForeground(QColor("#c0392b"));
    tip = tr("Changed what the module computes:\n%1%2")
              .arg(Lines(check_.changes))
              .arg(tip.isEmpty() ? QString() : "\n" + tip);
  } else if (!s.changed()) {
    item->setForeground(QColor("#a0a1a7"));
  }
  item->setToolTip(tip);
  item->setData(kImpactRole, impact_text_.value(QString::fromStdString(s.name)));
}

void PassExplorer::RefreshRows() {
  for (int row = 0; row < passes_->count(); ++row) DecorateRow(passes_->item(row));
  passes_->viewport()->update();  // the impact column appears with the first impact
}

void PassExplorer::ShowComposer(bool show) {
  if (composer_toggle_->isChecked() != show) {
    composer_toggle_->setChecked(show);  // its toggled signal comes back here
    return;
  }
  if (side_tabs_->isHidden() != show) return;
  composer_toggle_->setArrowType(show ? Qt::DownArrow : Qt::RightArrow);
  // The fold's width comes out of the panes (and goes back to them); the pass list keeps its own.
  QList<int> sizes = body_->sizes();
  side_tabs_->setVisible(show);
  int panes = sizes[2] + sizes[3] + sizes[4] + (show ? -kComposerWidth : sizes[0]);
  if (!structural_->isHidden()) {
    body_->setSizes({show ? kComposerWidth : 0, sizes[1], 0, 0, panes});
  } else {
    body_->setSizes({show ? kComposerWidth : 0, sizes[1], panes / 2, panes - panes / 2, 0});
  }
}

int PassExplorer::changedLinesBefore() const { return diff_->removed(); }
int PassExplorer::changedLinesAfter() const { return diff_->added(); }

void PassExplorer::SelectPass(int row) {
  if (row < 0 || row >= passes_->count()) return;
  int index = passes_->item(row)->data(Qt::UserRole).toInt();
  const auto& snap = snapshots_[index];
  if (structural_view_->isChecked()) {
    structural_->setPlainText(QString::fromStdString(workbench::StructuralDiffText(snap.before, snap.after)));
  }
  std::string before, after;
  if (changed_functions_only_->isChecked() && snap.after.defined()) {
    std::vector<std::string> changed = workbench::ChangedFunctions(snap.before, snap.after);
    before = script::PrintModule(workbench::OnlyFunctions(snap.before, changed));
    after = script::PrintModule(workbench::OnlyFunctions(snap.after, changed));
  } else {
    before = snap.BeforeText();
    after = snap.after.defined() ? snap.AfterText() : std::string();
  }
  diff_->Show(before, after);
}

}  // namespace wb::app
