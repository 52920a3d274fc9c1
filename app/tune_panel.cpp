#include "tune_panel.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPainterPath>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>

#include "codegen/target.h"
#include "meta_schedule/database.h"

namespace wb::app {

namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

QString Ms(std::optional<double> s) { return s ? QString::number(*s * 1e3, 'f', 4) : QStringLiteral("-"); }

// The target tuned for: this CPU, as `--target llvm` is.
constexpr const char* kTarget = "llvm";

// The line colours of the chart, one per task in turn.
QColor SeriesColor(size_t i) {
  static const QColor colors[] = {QColor("#1f77b4"), QColor("#d62728"), QColor("#2ca02c"), QColor("#9467bd"),
                                  QColor("#ff7f0e"), QColor("#8c564b"), QColor("#e377c2"), QColor("#17becf")};
  return colors[i % (sizeof(colors) / sizeof(colors[0]))];
}

QTableWidgetItem* Cell(const QString& text, const QString& tooltip = {}) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(item->flags() & ~Qt::ItemIsEditable);
  if (!tooltip.isEmpty()) item->setToolTip(tooltip);
  return item;
}

// A trace recorded on the workload (a module of one function named "main") rewritten for the
// document's function `name`.
QString ForFunction(QString trace, const QString& name) {
  return trace.replace(QStringLiteral("func_name=\"main\""), QStringLiteral("func_name=\"%1\"").arg(name));
}

}  // namespace

TuneChart::TuneChart(QWidget* parent) : QWidget(parent) { setObjectName("tuneChart"); }

void TuneChart::Clear() {
  series_.clear();
  max_trial_ = 1;
  max_gflops_ = 0;
  update();
}

void TuneChart::Add(const QString& task, Point point) {
  series_[task].push_back(point);
  max_trial_ = std::max(max_trial_, point.trial);
  max_gflops_ = std::max(max_gflops_, point.gflops);
  update();
}

void TuneChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().base());
  const QRectF plot = QRectF(rect()).adjusted(48, 20, -12, -28);
  p.setPen(palette().text().color());
  p.drawText(QRectF(rect()).adjusted(8, 2, -8, 0), Qt::AlignTop | Qt::AlignHCenter,
             tr("best GFLOP/s against trials, per task"));
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  p.drawLine(plot.bottomLeft(), plot.topLeft());
  if (series_.empty() || max_gflops_ <= 0) {
    p.drawText(plot, Qt::AlignCenter, tr("Tune to see the search"));
    return;
  }
  const double top = max_gflops_ * 1.1;
  p.drawText(QRectF(0, plot.top() - 8, 44, 16), Qt::AlignRight | Qt::AlignVCenter, QString::number(top, 'g', 3));
  p.drawText(QRectF(0, plot.bottom() - 8, 44, 16), Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("0"));
  p.drawText(QRectF(plot.left(), plot.bottom() + 4, plot.width(), 20), Qt::AlignHCenter,
             tr("trial (of %1)").arg(max_trial_));
  auto at = [&](const Point& pt) {
    return QPointF(plot.left() + plot.width() * pt.trial / std::max(1, max_trial_),
                   plot.bottom() - plot.height() * pt.gflops / top);
  };
  size_t i = 0;
  for (const auto& [task, points] : series_) {
    QColor color = SeriesColor(i);
    p.setPen(QPen(color, 1.6));
    QPainterPath path;
    for (size_t k = 0; k < points.size(); ++k) {
      // A step line: the best stays until a better one is found.
      QPointF pt = at(points[k]);
      if (k == 0) {
        path.moveTo(pt);
      } else {
        path.lineTo(QPointF(pt.x(), path.currentPosition().y()));
        path.lineTo(pt);
      }
    }
    p.drawPath(path);
    p.drawText(QPointF(plot.left() + 6, plot.top() + 14 * (i + 1)), task);
    ++i;
  }
}

TunePanel::TunePanel(QWidget* parent) : QWidget(parent) {
  trials_ = new QSpinBox;
  trials_->setRange(1, 100000);
  trials_->setValue(64);
  trials_->setToolTip(tr("Candidates measured, over all tasks (the default schedule included)"));
  seed_ = new QSpinBox;
  seed_->setRange(0, 1 << 30);
  seed_->setValue(1);
  seed_->setToolTip(tr("The same seed gives the same candidates for the same measurements"));
  work_dir_ = new QLineEdit;
  work_dir_->setPlaceholderText(tr("the tuning database (a directory; created when missing)"));
  work_dir_->setText(QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath("tuning"));
  choose_dir_ = new QPushButton(tr("..."));
  choose_dir_->setMaximumWidth(32);
  tune_ = new QPushButton(tr("Tune"));
  tune_->setToolTip(tr("Search schedules for the document's kernels on this CPU, measuring each candidate "
                       "(checked against the reference) and recording it in the work directory"));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setEnabled(false);
  open_ = new QPushButton(tr("Open in schedule pane"));
  open_->setToolTip(tr("Continue by hand from the selected record (or the task's best schedule)"));
  open_->setEnabled(false);
  progress_ = new QProgressBar;
  progress_->setRange(0, 1);
  progress_->setValue(0);
  status_ = new QLabel(tr("Tune searches schedules for the kernels of the document (%1)").arg(kTarget));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  tasks_ = new QTableWidget(0, 8);
  tasks_->setObjectName("tuneTasks");
  tasks_->setHorizontalHeaderLabels({tr("Task"), tr("Weight"), tr("Trials"), tr("Failed"), tr("Best (ms)"),
                                     tr("GFLOP/s"), tr("Default (ms)"), tr("Speedup")});
  tasks_->setSelectionBehavior(QAbstractItemView::SelectRows);
  tasks_->setSelectionMode(QAbstractItemView::SingleSelection);
  tasks_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  records_ = new QTableWidget(0, 3);
  records_->setObjectName("tuneRecords");
  records_->setHorizontalHeaderLabels({tr("Mean (ms)"), tr("Status"), tr("Trace")});
  records_->setSelectionBehavior(QAbstractItemView::SelectRows);
  records_->setSelectionMode(QAbstractItemView::SingleSelection);
  records_->horizontalHeader()->setStretchLastSection(true);
  chart_ = new TuneChart;

  // Two short rows: the panel shares the dock's width with the results and the charts.
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Trials:")));
  row->addWidget(trials_);
  row->addWidget(new QLabel(tr("Seed:")));
  row->addWidget(seed_);
  row->addWidget(progress_, 1);
  row->addWidget(tune_);
  row->addWidget(cancel_);
  auto* dir_row = new QHBoxLayout;
  dir_row->addWidget(new QLabel(tr("Work dir:")));
  dir_row->addWidget(work_dir_, 1);
  dir_row->addWidget(choose_dir_);
  dir_row->addWidget(open_);
  auto* tables = new QSplitter(Qt::Vertical);
  tables->addWidget(tasks_);
  tables->addWidget(records_);
  for (QTableWidget* t : {tasks_, records_}) t->setMinimumSize(80, 40);
  work_dir_->setMinimumWidth(60);
  auto* body = new QSplitter(Qt::Horizontal);
  body->addWidget(tables);
  body->addWidget(chart_);
  body->setStretchFactor(0, 3);
  body->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(3);
  layout->addLayout(row);
  layout->addLayout(dir_row);
  layout->addWidget(status_);
  layout->addWidget(body, 1);

  connect(choose_dir_, &QPushButton::clicked, this, [this] {
    QString dir = QFileDialog::getExistingDirectory(this, tr("Tuning work directory"), work_dir_->text());
    if (!dir.isEmpty()) work_dir_->setText(dir);
  });
  connect(tune_, &QPushButton::clicked, this, [this] { Tune(); });
  connect(cancel_, &QPushButton::clicked, this, [this] { Cancel(); });
  connect(open_, &QPushButton::clicked, this, [this] { OpenSelected(); });
  connect(tasks_, &QTableWidget::itemSelectionChanged, this, [this] { ShowRecords(); });
  connect(records_, &QTableWidget::cellDoubleClicked, this, [this] { OpenSelected(); });
  connect(&watcher_, &QFutureWatcher<JobResult>::finished, this, [this] { Finish(watcher_.result()); });
}

TunePanel::~TunePanel() {
  // The worker posts its progress to this object: it must be done before the object goes.
  token_.Cancel();
  watcher_.waitForFinished();
}

void TunePanel::SetBusy(bool busy) {
  running_ = busy;
  tune_->setEnabled(!busy);
  cancel_->setEnabled(busy);
  trials_->setEnabled(!busy);
  seed_->setEnabled(!busy);
  work_dir_->setEnabled(!busy);
  choose_dir_->setEnabled(!busy);
}

bool TunePanel::Tune() {
  if (running_) {
    status_->setText(tr("A tuning run is under way: wait for it or cancel it"));
    return false;
  }
  if (!module_.defined()) {
    status_->setText(tr("Nothing to tune: the document does not parse"));
    return false;
  }
  QString dir = work_dir_->text().trimmed();
  if (dir.isEmpty()) {
    status_->setText(tr("Choose a work directory: the tuning records are kept there"));
    return false;
  }
  meta_schedule::TuneOptions options;
  options.target = kTarget;
  options.max_trials = trials_->value();
  options.seed = static_cast<uint64_t>(seed_->value());
  options.work_dir = dir.toStdString();
  token_ = workbench::CancellationToken();
  chart_->Clear();
  task_flops_.clear();
  progress_->setRange(0, options.max_trials);
  progress_->setValue(0);
  status_->setText(tr("Extracting the tuning tasks..."));
  SetBusy(true);
  ir::IRModule module = module_;
  workbench::CancellationToken token = token_;
  watcher_.setFuture(QtConcurrent::run([this, module, options, token] {
    JobResult job;
    job.tasks = meta_schedule::ExtractTasks(module);
    std::map<QString, double> flops;
    for (const auto& t : job.tasks.tasks) flops[Q(t.name)] = t.flops;
    QMetaObject::invokeMethod(this, [this, flops] { task_flops_ = flops; }, Qt::QueuedConnection);
    if (job.tasks.tasks.empty()) return job;
    job.result = meta_schedule::Tune(job.tasks, options, token, [this](const meta_schedule::TuneProgress& p) {
      QMetaObject::invokeMethod(
          this,
          [this, p] {
            progress_->setRange(0, std::max(1, p.total));
            progress_->setValue(p.trial);
            status_->setText(tr("%1: trial %2 of %3, best %4 ms, about %5 s left")
                                 .arg(Q(p.task))
                                 .arg(p.trial)
                                 .arg(p.total)
                                 .arg(Ms(p.best_s))
                                 .arg(p.eta_s, 0, 'f', 0));
            auto f = task_flops_.find(Q(p.task));
            if (p.best_s && *p.best_s > 0 && f != task_flops_.end() && f->second > 0) {
              chart_->Add(Q(p.task), {p.trial, f->second / *p.best_s / 1e9});
            }
          },
          Qt::QueuedConnection);
    });
    return job;
  }));
  return true;
}

void TunePanel::Cancel() {
  if (!running_) return;
  token_.Cancel();
  status_->setText(tr("Cancelling after the candidate being measured..."));
}

bool TunePanel::WaitForJob(int timeout_ms) {
  QElapsedTimer timer;
  timer.start();
  while (running_) {
    if (timer.elapsed() > timeout_ms) return false;
    QEventLoop loop;
    QTimer::singleShot(20, &loop, &QEventLoop::quit);
    loop.exec();
  }
  return true;
}

void TunePanel::Finish(JobResult job) {
  SetBusy(false);
  extracted_ = std::move(job.tasks);
  if (extracted_.tasks.empty()) {
    result_.reset();
    status_->setText(tr("Nothing to tune: %1").arg(Q(extracted_.error)));
    ShowTasks();
    Q_EMIT jobFinished();
    return;
  }
  result_ = std::move(job.result);
  if (!result_->error.empty()) {
    status_->setText(tr("Tuning failed: %1").arg(Q(result_->error)));
  } else {
    QString what = result_->cancelled ? tr("Cancelled after %1 trial(s)") : tr("%1 trial(s)");
    status_->setText(what.arg(result_->trials) +
                     tr(" and %1 re-measurement(s) in %2 s: build %3 s, run %4 s, search %5 s, cost model %6 s")
                         .arg(result_->verify_runs)
                         .arg(result_->total_s, 0, 'f', 1)
                         .arg(result_->build_s, 0, 'f', 1)
                         .arg(result_->run_s, 0, 'f', 1)
                         .arg(result_->generate_s, 0, 'f', 1)
                         .arg(result_->model_s, 0, 'f', 1));
  }
  progress_->setValue(progress_->maximum());
  ShowTasks();
  if (tasks_->rowCount() > 0) tasks_->selectRow(0);
  Q_EMIT jobFinished();
}

void TunePanel::ShowTasks() {
  tasks_->setRowCount(0);
  records_->setRowCount(0);
  open_->setEnabled(false);
  if (!result_) return;
  tasks_->setRowCount(static_cast<int>(result_->tasks.size()));
  for (int r = 0; r < tasks_->rowCount(); ++r) {
    const meta_schedule::TaskReport& t = result_->tasks[r];
    tasks_->setItem(r, 0, Cell(Q(t.name), Q(t.message)));
    tasks_->setItem(r, 1, Cell(QString::number(t.weight)));
    tasks_->setItem(r, 2, Cell(QString::number(t.trials)));
    tasks_->setItem(r, 3, Cell(QString::number(t.failed)));
    tasks_->setItem(r, 4,
                    Cell(Ms(t.best_s), t.verified ? tr("re-measured beside the default schedule")
                                                  : tr("the search's own measurement")));
    tasks_->setItem(r, 5, Cell(t.gflops() ? QString::number(*t.gflops(), 'f', 2) : QStringLiteral("-")));
    tasks_->setItem(r, 6, Cell(Ms(t.default_s)));
    tasks_->setItem(r, 7, Cell(t.speedup() ? QString::number(*t.speedup(), 'f', 2) + "x" : QStringLiteral("-")));
  }
}

void TunePanel::ShowRecords() {
  records_->setRowCount(0);
  int row = tasks_->currentRow();
  open_->setEnabled(row >= 0 && result_ && row < static_cast<int>(result_->tasks.size()));
  if (!open_->isEnabled() || row >= static_cast<int>(extracted_.tasks.size())) return;
  std::string error;
  std::optional<meta_schedule::JSONDatabase> db = meta_schedule::JSONDatabase::Open(work_dir_->text().toStdString(), &error);
  std::optional<codegen::Target> target = codegen::ParseTarget(kTarget, &error);
  if (!db || !target) {
    status_->setText(tr("The work directory cannot be read: %1").arg(Q(error)));
    return;
  }
  std::optional<size_t> w = db->FindWorkload(meta_schedule::WorkloadFunc(extracted_.tasks[row].func));
  if (!w) return;
  std::vector<meta_schedule::TuningRecord> records = db->Records(*w, meta_schedule::DatabaseTarget(*target));
  std::stable_sort(records.begin(), records.end(),
                   [](const auto& a, const auto& b) { return a.mean_s() < b.mean_s(); });
  records_->setRowCount(static_cast<int>(records.size()));
  for (int r = 0; r < records_->rowCount(); ++r) {
    const meta_schedule::TuningRecord& rec = records[r];
    QString trace = Q(rec.trace);
    QString first = trace.section('\n', -2, -1, QString::SectionSkipEmpty).simplified();
    records_->setItem(r, 0, Cell(rec.failed() ? QStringLiteral("-") : Ms(rec.mean_s())));
    records_->setItem(r, 1, Cell(rec.failed() ? tr("failed") : tr("ok")));
    auto* item = Cell(trace.isEmpty() ? tr("(as written)") : first, trace);
    item->setData(Qt::UserRole, trace);
    records_->setItem(r, 2, item);
  }
}

bool TunePanel::OpenSelected() {
  int row = tasks_->currentRow();
  if (!result_ || row < 0 || row >= static_cast<int>(result_->tasks.size()) ||
      row >= static_cast<int>(extracted_.tasks.size())) {
    status_->setText(tr("Select a tuned task first"));
    return false;
  }
  QString trace;
  int record = records_->currentRow();
  if (record >= 0 && records_->item(record, 2)) {
    trace = records_->item(record, 2)->data(Qt::UserRole).toString();
  } else {
    trace = Q(result_->tasks[row].best_trace);
  }
  if (trace.trimmed().isEmpty()) {
    status_->setText(tr("That schedule is the function as written: nothing to open"));
    return false;
  }
  // The schedule pane schedules the document's PrimFuncs; a task made by fusing a Relax module
  // has no function of the document to open it on.
  for (const std::string& f : extracted_.tasks[row].functions) {
    if (module_.defined() && module_->Lookup(f).as<tir::PrimFuncNode>()) {
      Q_EMIT openSchedule(Q(f), ForFunction(trace, Q(f)));
      return true;
    }
  }
  status_->setText(tr("Task %1 was made by fusing the Relax functions: the document has no PrimFunc of "
                      "that name to open it on")
                       .arg(Q(result_->tasks[row].name)));
  return false;
}

}  // namespace wb::app
