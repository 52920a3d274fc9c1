#include "build_panel.h"

#include <QComboBox>
#include <QEventLoop>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBlock>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include "line_marks.h"
#include "profile_chart.h"
#include "roofline_chart.h"
#include "workbench/schedule_session.h"
#include "workbench/source_links.h"

namespace wb::app {

using workbench::OutcomeState;

namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

QString Ms(double seconds) { return QString::number(seconds * 1e3, 'f', 4); }

QPlainTextEdit* SourceView() {
  auto* view = new QPlainTextEdit;
  view->setReadOnly(true);
  view->setLineWrapMode(QPlainTextEdit::NoWrap);
  view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  return view;
}

// The primitive of a trace's last `sch.<primitive>(` call: what the step did, for a chart label.
QString LastPrimitive(const std::string& trace) {
  size_t at = trace.rfind("sch.");
  if (at == std::string::npos) return QObject::tr("original");
  size_t end = trace.find('(', at);
  return end == std::string::npos ? QString() : Q(trace.substr(at + 4, end - at - 4));
}

enum Column {
  kFunction,
  kMedian,
  kMin,
  kStd,
  kGflops,
  kBytes,
  kIntensity,
  kRoofline,
  kMaxError,
  kStatus,
  kColumns
};

// 49152 -> "48.0 KiB".
QString ByteText(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? QString::number(bytes, 'f', 0) + " B" : QString::number(bytes, 'f', 1) + " " + units[unit];
}

}  // namespace

BuildPanel::BuildPanel(QWidget* parent) : QWidget(parent) {
  target_ = new QComboBox;
  target_->setObjectName("buildTarget");
  // Target descriptions are long (a GPU tag spells out its limits and host): the box keeps a
  // modest width and its popup shows them whole.
  target_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  target_->setMinimumContentsLength(28);
  targets_ = workbench::BuildTargets();
  auto* model = qobject_cast<QStandardItemModel*>(target_->model());
  for (const auto& t : targets_) {
    target_->addItem(Q(t.name + "  (" + t.description + ")"));
    QStandardItem* item = model->item(target_->count() - 1);
    if (!t.reason.empty()) item->setToolTip(Q(t.reason));
    // Greyed and unselectable: there is nothing it could do here.
    if (!t.can_build) item->setEnabled(false);
  }
  number_ = new QSpinBox;
  number_->setRange(1, 1000000);
  number_->setValue(10);
  number_->setToolTip(tr("Calls per measurement"));
  repeat_ = new QSpinBox;
  repeat_->setRange(1, 10000);
  repeat_->setValue(3);
  repeat_->setToolTip(tr("Measurements (each the mean of 'number' calls)"));
  inputs_ = new QLineEdit;
  inputs_->setPlaceholderText(tr("random (seeded)"));
  inputs_->setToolTip(tr("A directory of .npy files: DIR/<func>/<param>.npy or DIR/<param>.npy; "
                         "empty for random inputs"));
  choose_inputs_ = new QPushButton(tr("Choose..."));
  reference_ = new QComboBox;
  reference_->setObjectName("buildReference");
  for (auto kind : {workbench::ReferenceKind::kAuto, workbench::ReferenceKind::kInterpreter,
                    workbench::ReferenceKind::kCompiled, workbench::ReferenceKind::kNone}) {
    reference_->addItem(Q(workbench::ReferenceName(kind)), static_cast<int>(kind));
  }
  reference_->setToolTip(tr("What checks the results: the interpreter, the module as written compiled with "
                            "LLVM, auto (the interpreter up to %1 executed operations, compiled above) or none")
                             .arg(workbench::kAutoInterpreterLimit, 0, 'g', 3));
  auto* random = new QPushButton(tr("Random"));

  build_ = new QPushButton(tr("Build"));
  run_ = new QPushButton(tr("Run"));
  profile_ = new QPushButton(tr("Profile"));
  cancel_ = new QPushButton(tr("Cancel"));
  measure_peaks_ = new QPushButton(tr("Measure peaks"));
  measure_peaks_->setToolTip(tr("Measure this machine's FMA throughput and memory bandwidth again (the roofline's "
                                "roofs; cached in %1)")
                                 .arg(Q(workbench::HostPeaksCachePath())));
  build_->setToolTip(tr("Lower and compile the scheduled module"));
  run_->setToolTip(tr("Build if needed, run every PrimFunc (or Relax function, through the VM) and check it "
                      "against the reference"));
  profile_->setToolTip(tr("Run, check and time every function (number x repeat)"));
  progress_ = new QProgressBar;
  progress_->setRange(0, 100);
  progress_->setTextVisible(false);
  progress_->setMaximumHeight(12);
  target_status_ = new QLabel;
  target_status_->setWordWrap(true);
  status_ = new QLabel(tr("Build the scheduled module, then run or profile it"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  // Two rows of controls, so the results, chart and views keep the height.
  auto* settings = new QHBoxLayout;
  settings->addWidget(new QLabel(tr("Target:")));
  settings->addWidget(target_, 2);
  settings->addWidget(new QLabel(tr("number")));
  settings->addWidget(number_);
  settings->addWidget(new QLabel(tr("repeat")));
  settings->addWidget(repeat_);
  settings->addWidget(new QLabel(tr("Inputs:")));
  settings->addWidget(inputs_, 1);
  settings->addWidget(choose_inputs_);
  settings->addWidget(random);
  settings->addWidget(new QLabel(tr("Reference:")));
  settings->addWidget(reference_);
  auto* buttons = new QHBoxLayout;
  for (QPushButton* b : {build_, run_, profile_, cancel_}) buttons->addWidget(b);
  buttons->addWidget(measure_peaks_);
  buttons->addWidget(progress_, 1);
  buttons->addStretch();

  errors_ = new QListWidget;
  errors_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  errors_->setVisible(false);
  results_ = new QTableWidget(0, kColumns);
  results_->setHorizontalHeaderLabels({tr("Function"), tr("Median (ms)"), tr("Min (ms)"), tr("Std (ms)"),
                                       tr("GFLOP/s"), tr("Bytes"), tr("FLOP/byte"), tr("Of roof"),
                                       tr("Max error"), tr("Status")});
  results_->horizontalHeaderItem(kBytes)->setToolTip(
      tr("Bytes one call moves: each region its loop nest touches once, while the nest fits in the last-level "
         "cache (else once per iteration of its outer loop)"));
  results_->horizontalHeaderItem(kRoofline)->setToolTip(
      tr("GFLOP/s over the roof at this intensity: min(FMA peak, intensity x bandwidth), of every thread for a "
         "parallel function, of one thread otherwise; the L2's bandwidth when its bytes fit there, memory's "
         "otherwise"));
  results_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  results_->horizontalHeader()->setStretchLastSection(true);
  results_->verticalHeader()->setVisible(false);
  results_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  results_->setSelectionBehavior(QAbstractItemView::SelectRows);
  chart_ = new ProfileChart;
  roofline_ = new RooflineChart;
  auto* charts = new QSplitter(Qt::Horizontal);
  charts->addWidget(chart_);
  charts->addWidget(roofline_);
  ir_ = SourceView();
  ir_opt_ = SourceView();
  asm_ = SourceView();
  views_ = new QTabWidget;
  // Five code views: scroll their tabs rather than widen the panel (and the window) for them.
  views_->setUsesScrollButtons(true);
  views_->addTab(ir_, tr("LLVM IR"));
  views_->addTab(ir_opt_, tr("Optimized IR"));
  views_->addTab(asm_, tr("Assembly"));
  cuda_ = SourceView();
  ptx_ = SourceView();
  views_->addTab(cuda_, tr("CUDA"));
  views_->addTab(ptx_, tr("PTX"));
  calls_ = new QTableWidget(0, 6);
  calls_->setObjectName("callsTable");
  calls_->setHorizontalHeaderLabels(
      {tr("Kernel or builtin"), tr("Kind"), tr("Calls"), tr("Time (ms)"), tr("Share"), tr("GFLOP/s")});
  calls_->setToolTip(tr("Where a profiled Relax function's time goes: every packed call of the VM, per call of "
                        "the function, the most time first"));
  calls_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  calls_->horizontalHeader()->setStretchLastSection(true);
  calls_->verticalHeader()->setVisible(false);
  calls_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  calls_->setSelectionBehavior(QAbstractItemView::SelectRows);
  views_->addTab(calls_, tr("Calls"));
  connect(results_, &QTableWidget::currentCellChanged, this, [this](int row) { ShowCalls(row); });
  printed_ = SourceView();
  printed_->setToolTip(
      tr("The module as built, printed: the LLVM IR and assembly lines map to its lines"));
  views_->addTab(printed_, tr("Built TVMScript"));
  for (QPlainTextEdit* view : {ir_, asm_}) {
    connect(view, &QPlainTextEdit::cursorPositionChanged, this,
            [this, view] { LinkViewLine(view); });
  }

  splitter_ = new QSplitter(Qt::Vertical);
  splitter_->setObjectName("buildSplitter");
  splitter_->addWidget(results_);
  splitter_->addWidget(charts);
  splitter_->addWidget(views_);
  splitter_->setSizes({140, 200, 260});

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(settings);
  layout->addLayout(buttons);
  layout->addWidget(target_status_);
  layout->addWidget(status_);
  layout->addWidget(errors_);
  layout->addWidget(splitter_, 1);

  connect(build_, &QPushButton::clicked, this, [this] { Build(); });
  connect(run_, &QPushButton::clicked, this, [this] { Run(); });
  connect(profile_, &QPushButton::clicked, this, [this] { Profile(); });
  connect(cancel_, &QPushButton::clicked, this, &BuildPanel::Cancel);
  connect(measure_peaks_, &QPushButton::clicked, this, [this] { MeasurePeaks(); });
  connect(choose_inputs_, &QPushButton::clicked, this, [this] {
    QString dir = QFileDialog::getExistingDirectory(this, tr("Input directory (.npy files)"));
    if (!dir.isEmpty()) SetInputsDirectory(dir);
  });
  connect(random, &QPushButton::clicked, this, [this] { SetInputsDirectory(QString()); });
  connect(target_, &QComboBox::currentIndexChanged, this, [this] {
    UpdateTargetStatus();
    SetBusy(busy());
  });
  connect(&watcher_, &QFutureWatcher<JobResult>::finished, this,
          [this] { Finish(watcher_.result()); });
  connect(errors_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    int line = item->data(Qt::UserRole).toInt();
    if (line > 0) Q_EMIT sourceLocationActivated(line, item->data(Qt::UserRole + 1).toInt());
  });
  UpdateTargetStatus();
  SetBusy(false);
}

BuildPanel::~BuildPanel() {
  // The worker holds no pointer to this panel's state, but its progress reports are queued to
  // it: stop it before the panel goes.
  token_.Cancel();
  watcher_.waitForFinished();
}

// Until Finish has run: the future may be done while its result still waits in the event queue.
bool BuildPanel::busy() const { return job_running_; }

std::string BuildPanel::TargetText() const {
  int i = target_->currentIndex();
  return i >= 0 && i < static_cast<int>(targets_.size()) ? targets_[i].text : "llvm";
}

bool BuildPanel::SelectTarget(const QString& name) {
  for (size_t i = 0; i < targets_.size(); ++i) {
    if (Q(targets_[i].name) == name) {
      if (!targets_[i].can_build) return false;
      target_->setCurrentIndex(static_cast<int>(i));
      return true;
    }
  }
  return false;
}

void BuildPanel::SetInputsDirectory(const QString& dir) { inputs_->setText(dir); }

void BuildPanel::UpdateTargetStatus() {
  QStringList lines;
  int i = target_->currentIndex();
  if (i >= 0 && i < static_cast<int>(targets_.size())) {
    const auto& t = targets_[i];
    lines << tr("Builds for %1").arg(Q(t.description));
    if (t.can_build && !t.can_run) lines << Q(t.reason);
  }
  for (const auto& t : targets_) {
    if (!t.can_build) lines << tr("%1 unavailable: %2").arg(Q(t.name), Q(t.reason));
  }
  target_status_->setText(lines.join('\n'));
}

void BuildPanel::SetBusy(bool busy) {
  int i = target_->currentIndex();
  bool can_run = i >= 0 && i < static_cast<int>(targets_.size()) && targets_[i].can_run;
  build_->setEnabled(!busy);
  run_->setEnabled(!busy && can_run);
  profile_->setEnabled(!busy && can_run);
  cancel_->setEnabled(busy);
  measure_peaks_->setEnabled(!busy);
  progress_->setVisible(busy);
  if (!busy) progress_->setValue(0);
}

bool BuildPanel::Build() { return Start({.build = true, .run = std::nullopt}); }

bool BuildPanel::SelectReference(workbench::ReferenceKind kind) {
  int i = reference_->findData(static_cast<int>(kind));
  if (i < 0) return false;
  reference_->setCurrentIndex(i);
  return true;
}

workbench::ReferenceKind BuildPanel::reference() const {
  return static_cast<workbench::ReferenceKind>(reference_->currentData().toInt());
}

bool BuildPanel::Run() {
  workbench::RunRequest request;
  request.inputs = inputs_->text().trimmed().toStdString();
  request.reference = reference();
  return Start({.build = false, .run = request});
}

bool BuildPanel::Profile() {
  workbench::RunRequest request;
  request.inputs = inputs_->text().trimmed().toStdString();
  request.reference = reference();
  request.profile = true;
  request.number = number_->value();
  request.repeat = repeat_->value();
  return Start({.build = false, .run = request});
}

bool BuildPanel::MeasurePeaks() {
  Job job;
  job.measure_peaks = true;
  return Start(job);
}

void BuildPanel::Cancel() {
  if (!busy()) return;
  token_.Cancel();
  status_->setText(tr("cancelling..."));
}

bool BuildPanel::Start(Job job) {
  if (busy()) {
    status_->setText(tr("A build or profile is running: wait for it or cancel it"));
    return false;
  }
  if (!job.measure_peaks && !blocked_reason_.isEmpty()) {
    status_->setText(blocked_reason_);
    return false;
  }
  workbench::BuildRequest request;
  if (job.measure_peaks) {
    // Nothing to build: the peaks are the machine's.
  } else if (schedule_ && schedule_->module().defined()) {
    request = workbench::RequestFromSchedule(*schedule_, TargetText());
  } else if (document_module_.defined()) {
    request.module = document_module_;
    request.original = document_module_;
    request.target = TargetText();
  } else {
    status_->setText(tr("Nothing to build: the document does not parse"));
    return false;
  }
  // The views link to the document (LinkDocumentLine) through the module printed under this name.
  if (!job.measure_peaks) request.link_path = "built.py";
  // Reuse the current build when it is of this very module and target.
  std::optional<workbench::BuildOutcome> current;
  if (!job.build && !job.measure_peaks && session_.IsCurrent(request)) current = *session_.build();
  token_ = workbench::CancellationToken();
  workbench::CancellationToken token = token_;
  workbench::ProgressFn progress = [this](const std::string& stage, double fraction) {
    QMetaObject::invokeMethod(
        this,
        [this, text = Q(stage), fraction] {
          progress_->setValue(static_cast<int>(fraction * 100));
          if (busy()) status_->setText(text + "...");
          Q_EMIT progressed(text);
        },
        Qt::QueuedConnection);
  };
  errors_->clear();
  errors_->setVisible(false);
  job_running_ = true;
  SetBusy(true);
  status_->setText(tr("starting..."));
  watcher_.setFuture(QtConcurrent::run([request, current, job, token, progress] {
    JobResult result;
    if (job.measure_peaks) {
      if (progress) progress("measure this machine's peaks", 0);
      result.peaks = workbench::MeasureHostPeaks(0, &result.peaks_warning);
      return result;
    }
    try {
      const workbench::BuildOutcome* build = current ? &*current : nullptr;
      if (!build) {
        result.build = workbench::BuildModule(request, token, progress);
        build = &*result.build;
      }
      if (job.run && build->ok()) result.run = workbench::RunBuilt(*build, *job.run, token, progress);
    } catch (const std::exception& e) {
      // The core reports failures as outcomes; anything else still ends as a message here, since
      // an exception out of the worker would be rethrown into the UI thread by result().
      workbench::BuildOutcome failed;
      failed.request = request;
      failed.diagnostics.Error(std::string("internal error: ") + e.what());
      result = JobResult{failed, std::nullopt, std::nullopt, std::string()};
    }
    return result;
  }));
  return true;
}

bool BuildPanel::WaitForJob(int timeout_ms) {
  if (!busy()) return true;
  QEventLoop loop;
  QTimer timer;
  timer.setSingleShot(true);
  bool finished = false;
  connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
  // A slot run before this one may already have started the next job: what counts is that
  // this one finished.
  connect(this, &BuildPanel::jobFinished, &loop, [&] {
    finished = true;
    loop.quit();
  });
  timer.start(timeout_ms);
  loop.exec();
  return finished;
}

void BuildPanel::Finish(JobResult result) {
  job_running_ = false;
  SetBusy(false);
  if (result.build) {
    session_.AdoptBuild(*result.build);
    ShowBuild(*result.build);
  }
  if (result.run) {
    session_.AdoptRun(*result.run);
    ShowRun(*result.run);
    UpdateChart();
  }
  if (result.peaks) {
    const workbench::HostPeaks& p = *result.peaks;
    session_.AdoptPeaks(p);
    QString text = tr("Peaks of %1: FP32 FMA %2 GFLOP/s (1 thread), %3 (%4 threads); memory %5 GB/s (1 thread), %6 "
                      "(%4 threads); L2 %7 GB/s, %8")
                       .arg(Q(p.cpu))
                       .arg(p.gflops_1, 0, 'f', 1)
                       .arg(p.gflops_all, 0, 'f', 1)
                       .arg(p.threads)
                       .arg(p.gbytes_per_s_1, 0, 'f', 1)
                       .arg(p.gbytes_per_s_all, 0, 'f', 1)
                       .arg(p.cache_gbytes_per_s_1, 0, 'f', 1)
                       .arg(p.cache_gbytes_per_s_all, 0, 'f', 1);
    if (!result.peaks_warning.empty()) text += " (" + Q(result.peaks_warning) + ")";
    status_->setText(text);
    // The chart draws the new roofs; the table keeps the fractions of the roofs its run was under.
    UpdateRoofline();
  }
  Q_EMIT jobFinished();
}

void BuildPanel::ShowErrors(const DiagnosticList& diags) {
  errors_->clear();
  for (const Diagnostic& d : diags) {
    auto* item = new QListWidgetItem(Q(RenderDiagnostic(d)).trimmed());
    if (d.span.defined()) {
      item->setData(Qt::UserRole, static_cast<int>(d.span.start().line));
      item->setData(Qt::UserRole + 1, static_cast<int>(d.span.start().column));
      item->setToolTip(tr("Activate to go to line %1").arg(d.span.start().line));
    }
    item->setForeground(d.severity == Severity::kError ? QColor("#c0392b") : QColor("#b7950b"));
    errors_->addItem(item);
  }
  errors_->setVisible(errors_->count() > 0);
  errors_->setMaximumHeight(errors_->count() > 0 ? 140 : 0);
}

void BuildPanel::ShowBuild(const workbench::BuildOutcome& build) {
  switch (build.state) {
    case OutcomeState::kCancelled:
      status_->setText(tr("Build cancelled"));
      return;
    case OutcomeState::kFailed:
      // Nothing of the old build stays on screen as if it were this one's.
      ir_->clear();
      ir_opt_->clear();
      asm_->clear();
      cuda_->clear();
      ptx_->clear();
      printed_->clear();
      linked_.clear();
      results_->setRowCount(0);
      ShowErrors(build.diagnostics);
      status_->setText(tr("Build failed: %1")
                           .arg(build.diagnostics.empty() ? QString()
                                                          : Q(build.diagnostics[0].message)));
      return;
    case OutcomeState::kOk:
      ir_->setPlainText(Q(build.llvm_ir));
      ir_opt_->setPlainText(Q(build.llvm_ir_opt));
      asm_->setPlainText(Q(build.assembly));
      cuda_->setPlainText(Q(build.cuda_source));
      ptx_->setPlainText(Q(build.ptx));
      printed_->setPlainText(build.links ? Q(build.links->printed().text) : QString());
      linked_.clear();
      ShowErrors(build.diagnostics);
      status_->setText(tr("Built step %1 for %2 in %3 ms")
                           .arg(build.request.step)
                           .arg(Q(build.target))
                           .arg(build.seconds * 1e3, 0, 'f', 0));
      return;
  }
}

void BuildPanel::Highlight(QPlainTextEdit* view, const QList<int>& lines, bool scroll) {
  linked_[view] = lines;
  view->setExtraSelections(LineMarks(view->document(), lines, LinkedLineTint()));
  if (scroll && !lines.isEmpty()) {
    QSignalBlocker block(view);
    view->setTextCursor(QTextCursor(view->document()->findBlockByNumber(lines.front())));
    view->centerCursor();
  }
}

QList<int> BuildPanel::linkedLines(QPlainTextEdit* view) const {
  auto it = linked_.find(view);
  return it == linked_.end() ? QList<int>{} : it->second;
}

QString BuildPanel::LinkDocumentLine(int line) {
  for (QPlainTextEdit* view : {ir_, asm_, printed_}) Highlight(view, {}, false);
  const auto& build = session_.build();
  if (!build) {
    status_->setText(tr("Build the module to link its lines to the LLVM IR and assembly"));
    return {};
  }
  if (!build->ok()) {
    status_->setText(tr("No linked views: the last build failed"));
    return {};
  }
  if (!build->links) {
    status_->setText(tr("This build's views are not linked to the source"));
    return {};
  }
  const workbench::SourceLinks& links = *build->links;
  std::string kernel = links.KernelAtDocumentLine(line);
  if (kernel.empty()) {
    status_->setText(tr("Line %1 calls no kernel of the build").arg(line));
    return {};
  }
  auto lines = [&](codegen::SourceMapFormat format) {
    QList<int> out;
    for (int l : links.ViewLines(kernel, format)) out << l;
    return out;
  };
  QList<int> ir = lines(codegen::SourceMapFormat::kLLVMIR);
  QList<int> assembly = lines(codegen::SourceMapFormat::kAssembly);
  Highlight(ir_, ir, true);
  Highlight(asm_, assembly, true);
  auto [first, last] = links.PrintedRange(kernel);
  QList<int> printed;
  for (int l = first; first > 0 && l <= last; ++l) printed << l - 1;
  Highlight(printed_, printed, true);
  status_->setText(tr("Line %1 runs %2: %3 lines of assembly, %4 of LLVM IR")
                       .arg(line)
                       .arg(Q(kernel))
                       .arg(assembly.size())
                       .arg(ir.size()));
  return Q(kernel);
}

void BuildPanel::LinkViewLine(QPlainTextEdit* view) {
  const auto& build = session_.build();
  if (!build || !build->ok() || !build->links) return;
  auto format =
      view == asm_ ? codegen::SourceMapFormat::kAssembly : codegen::SourceMapFormat::kLLVMIR;
  auto origin = build->links->OriginOfViewLine(view->textCursor().blockNumber(), format);
  if (!origin) return;
  Highlight(printed_, {origin->printed_line - 1}, true);
  QList<int> document;
  for (int l : origin->bindings) document << l;
  if (document.isEmpty() && origin->document_range.first > 0)
    document << origin->document_range.first;
  status_->setText(
      tr("%1: line %2 of the built module").arg(Q(origin->kernel)).arg(origin->printed_line));
  Q_EMIT viewLineLinked(Q(origin->kernel), document);
}

void BuildPanel::ShowRun(const workbench::RunOutcome& run) {
  if (run.state == OutcomeState::kFailed) {
    results_->setRowCount(0);
    status_->setText(Q(run.message));
    return;
  }
  results_->setRowCount(0);
  shown_ = run.functions;
  int failures = 0;
  int crashes = 0;
  for (const auto& f : run.functions) {
    int row = results_->rowCount();
    results_->insertRow(row);
    auto set = [&](int column, const QString& text) {
      auto* item = new QTableWidgetItem(text);
      if (column != kFunction && column != kStatus) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      results_->setItem(row, column, item);
      return item;
    };
    set(kFunction, Q(f.name));
    bool timed = !f.samples_s.empty();
    set(kMedian, timed ? Ms(f.median_s()) : QString());
    set(kMin, timed ? Ms(f.min_s()) : QString());
    set(kStd, timed ? Ms(f.std_s()) : QString());
    auto gflops = f.gflops_per_s();
    set(kGflops, gflops ? QString::number(*gflops, 'f', 2) : QString());
    QTableWidgetItem* bytes = set(kBytes, f.bytes ? ByteText(*f.bytes) : QString());
    if (f.bytes) {
      bytes->setData(Qt::UserRole, *f.bytes);
      bytes->setToolTip(tr("%1 bytes a call").arg(*f.bytes, 0, 'f', 0));
    }
    auto intensity = f.arithmetic_intensity();
    set(kIntensity, intensity ? QString::number(*intensity, 'g', 3) : QString());
    auto fraction = f.roofline_fraction();
    QTableWidgetItem* roof = set(kRoofline, fraction ? QString::number(*fraction * 100, 'f', 1) + "%" : QString());
    if (fraction && intensity) {
      roof->setToolTip(tr("of %1 GFLOP/s, the %2 %3 roof at %4 FLOP/byte")
                           .arg(std::min(*f.peak_gflops, *intensity * *f.peak_gbytes_per_s), 0, 'f', 1)
                           .arg(f.parallel ? tr("every-thread") : tr("one-thread"))
                           .arg(f.in_cache ? tr("L2") : tr("memory"))
                           .arg(*intensity, 0, 'g', 3));
    }
    QTableWidgetItem* error = set(kMaxError, f.checked() ? QString::number(f.max_abs_error, 'g', 3) : QString());
    if (!f.worst.empty()) error->setToolTip(tr("worst element: %1").arg(Q(f.worst)));
    QString status = Q(workbench::RunStatusName(f.status));
    if (f.ok()) {
      status = !f.checked() ? tr("ok")
               : f.reference == "compiled" ? tr("ok (matches the compiled reference)")
                                           : tr("ok (matches the %1)").arg(Q(f.reference));
    } else if (f.checked()) {
      status += tr(" (against the %1 reference)").arg(Q(f.reference));
    }
    if (f.relax) status += tr(" [Relax VM]");
    if (!f.message.empty()) status += ": " + Q(f.message);
    QTableWidgetItem* item = set(kStatus, status);
    item->setToolTip(status);
    if (!f.ok()) {
      ++failures;
      item->setForeground(QColor("#c0392b"));
    }
    // A crashed kernel ran in its own process (RunRequest::isolate): the row says which signal
    // ended it, in bold so it is not read as a wrong result.
    if (f.status == workbench::RunStatus::kCrashed) {
      ++crashes;
      QFont bold = item->font();
      bold.setBold(true);
      item->setFont(bold);
    }
  }
  ShowCalls(results_->currentRow());
  QString what = run.profiled ? tr("Profiled") : tr("Ran");
  if (run.state == OutcomeState::kCancelled) {
    status_->setText(run.functions.empty()
                         ? tr("Cancelled before any function ran")
                         : tr("Cancelled: %1").arg(Q(run.functions.back().message)));
  } else {
    QString text = tr("%1 step %2 on %3: %4 function(s), %5 failed")
                       .arg(what)
                       .arg(run.step)
                       .arg(Q(run.target))
                       .arg(run.functions.size())
                       .arg(failures);
    if (crashes > 0) text += tr(" (%1 crashed)").arg(crashes);
    status_->setText(text);
  }
}

void BuildPanel::ShowCalls(int row) {
  const workbench::FunctionResult* shown = nullptr;
  if (row >= 0 && row < static_cast<int>(shown_.size()) && !shown_[row].call_times.empty()) shown = &shown_[row];
  for (size_t i = 0; !shown && i < shown_.size(); ++i) {
    if (!shown_[i].call_times.empty()) shown = &shown_[i];
  }
  calls_->setRowCount(0);
  if (!shown) return;
  double total = 0;
  for (const auto& c : shown->call_times) total += c.seconds;
  for (const auto& c : shown->call_times) {
    int r = calls_->rowCount();
    calls_->insertRow(r);
    auto set = [&](int column, const QString& text) {
      auto* item = new QTableWidgetItem(text);
      if (column >= 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      calls_->setItem(r, column, item);
    };
    set(0, Q(c.name));
    set(1, c.kernel ? tr("kernel") : tr("builtin"));
    set(2, QString::number(c.calls, 'g', 4));
    set(3, Ms(c.seconds));
    set(4, total > 0 ? QString::number(100 * c.seconds / total, 'f', 1) + "%" : QString());
    auto g = c.gflops_per_s();
    set(5, g ? QString::number(*g, 'f', 2) : QString());
  }
  calls_->setToolTip(tr("%1: every packed call of the VM, per call of %1, the most time first").arg(Q(shown->name)));
}

void BuildPanel::UpdateChart() {
  const auto& history = session_.history();
  if (history.empty()) {
    chart_->SetPoints(QString(), {});
    UpdateRoofline();
    return;
  }
  // The schedule's function on the target last profiled.
  const std::string& target = session_.lastRun() ? session_.lastRun()->target : history.back().target;
  std::string func = schedule_ ? schedule_->func_name() : std::string();
  if (func.empty() && !history.back().functions.empty()) func = history.back().functions[0].name;
  std::vector<ChartPoint> points;
  for (const auto& point : history) {
    if (point.target != target) continue;
    const workbench::FunctionResult* f = point.Find(func);
    if (!f || f->samples_s.empty()) continue;
    ChartPoint p;
    p.label = tr("%1: %2").arg(point.step).arg(LastPrimitive(point.trace));
    p.tooltip = Q(point.trace);
    p.time_ms = f->median_s() * 1e3;
    p.gflops = f->gflops_per_s();
    points.push_back(p);
  }
  chart_->SetPoints(tr("%1 on %2").arg(Q(func), Q(target)), std::move(points));
  UpdateRoofline();
}

void BuildPanel::UpdateRoofline() {
  roofline_->SetRoofs(session_.peaks());
  const auto& history = session_.history();
  const workbench::RunOutcome* last = session_.lastRun() ? &*session_.lastRun() : nullptr;
  const std::string target = last ? last->target : history.empty() ? std::string() : history.back().target;
  // Every function of every profiled step on the target last profiled.
  std::vector<RooflinePoint> points;
  for (const auto& point : history) {
    if (point.target != target) continue;
    const bool latest = last && last->profiled && point.step == last->step && point.trace == last->trace;
    for (const auto& f : point.functions) {
      auto intensity = f.arithmetic_intensity();
      auto gflops = f.gflops_per_s();
      if (!intensity || !gflops || *intensity <= 0 || *gflops <= 0) continue;
      RooflinePoint p;
      p.label = tr("%1, step %2: %3").arg(Q(f.name)).arg(point.step).arg(LastPrimitive(point.trace));
      p.intensity = *intensity;
      p.gflops = *gflops;
      p.parallel = f.parallel;
      p.in_cache = f.in_cache;
      p.latest = latest;
      points.push_back(p);
    }
  }
  roofline_->SetPoints(Q(target), std::move(points));
}

}  // namespace wb::app
