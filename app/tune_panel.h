// The Tune tab of the Build & Profile panel: MetaSchedule-style tuning of the document's kernels
// (core/meta_schedule: task extraction, evolutionary search with the cost model, the closing
// re-measurement) for this CPU, off the UI thread with a progress bar and Cancel; a live chart of
// each task's best GFLOP/s against the trials; a table of the tasks (weight, trials, best and
// default median, speedup) and, for the selected task, the work directory's records (latency,
// trace); the best schedule, or any record, opens in the schedule pane as editable steps.
#pragma once

#include <QFutureWatcher>
#include <QString>
#include <QWidget>
#include <map>
#include <optional>
#include <vector>

#include "ir/expr.h"
#include "meta_schedule/search.h"
#include "meta_schedule/task.h"
#include "workbench/cancellation.h"

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace wb::app {

// Best GFLOP/s against trials, one line per task (QPainter; Qt Charts is not in the stack).
class TuneChart : public QWidget {
  Q_OBJECT

 public:
  explicit TuneChart(QWidget* parent = nullptr);
  struct Point {
    int trial = 0;
    double gflops = 0;
  };
  void Clear();
  void Add(const QString& task, Point point);
  const std::map<QString, std::vector<Point>>& series() const { return series_; }
  QSize minimumSizeHint() const override { return {120, 80}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::map<QString, std::vector<Point>> series_;
  int max_trial_ = 1;
  double max_gflops_ = 0;
};

class TunePanel : public QWidget {
  Q_OBJECT

 public:
  explicit TunePanel(QWidget* parent = nullptr);
  ~TunePanel() override;

  // The document's module, as written: what is tuned.
  void SetModule(ir::IRModule module) { module_ = std::move(module); }
  // Starts tuning; false (with the reason shown) when a run is under way or nothing can start.
  bool Tune();
  void Cancel();
  bool busy() const { return running_; }
  // Runs the event loop until the run has finished (true; also when none runs) or `timeout_ms`.
  bool WaitForJob(int timeout_ms);
  const std::optional<meta_schedule::TuneResult>& lastResult() const { return result_; }
  // Opens the selected record (else the selected task's best schedule) in the schedule pane;
  // false, with the reason shown, when there is none or its function is not in the document.
  bool OpenSelected();

  QSpinBox* trialsBox() const { return trials_; }
  QSpinBox* seedBox() const { return seed_; }
  QLineEdit* workDirEdit() const { return work_dir_; }
  QPushButton* tuneButton() const { return tune_; }
  QPushButton* cancelButton() const { return cancel_; }
  QPushButton* openButton() const { return open_; }
  QProgressBar* progressBar() const { return progress_; }
  QLabel* statusLabel() const { return status_; }
  QTableWidget* taskTable() const { return tasks_; }
  QTableWidget* recordTable() const { return records_; }
  TuneChart* chart() const { return chart_; }

 Q_SIGNALS:
  // A schedule to continue from by hand: the PrimFunc of the document and the recipe.
  void openSchedule(const QString& function, const QString& recipe);
  void jobFinished();

 private:
  struct JobResult {
    meta_schedule::ExtractedTasks tasks;
    meta_schedule::TuneResult result;
  };
  void Finish(JobResult job);
  void ShowTasks();
  void ShowRecords();
  void SetBusy(bool busy);

  ir::IRModule module_;
  workbench::CancellationToken token_;
  QFutureWatcher<JobResult> watcher_;
  bool running_ = false;
  meta_schedule::ExtractedTasks extracted_;
  std::optional<meta_schedule::TuneResult> result_;
  std::map<QString, double> task_flops_;  // of the run under way, for the chart

  QSpinBox* trials_;
  QSpinBox* seed_;
  QLineEdit* work_dir_;
  QPushButton* choose_dir_;
  QPushButton* tune_;
  QPushButton* cancel_;
  QPushButton* open_;
  QProgressBar* progress_;
  QLabel* status_;
  QTableWidget* tasks_;
  QTableWidget* records_;
  TuneChart* chart_;
};

}  // namespace wb::app
