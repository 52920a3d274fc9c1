// The Build & Profile panel: choose a target (those this machine cannot use greyed, with the
// reason), build the scheduled module, run its PrimFuncs (or its Relax functions, through the VM)
// on random or loaded inputs and check them against the chosen reference, time them (number x
// repeat; the median is the figure shown); a results table (with each function's bytes moved,
// arithmetic intensity and fraction of the roof), a chart of time and GFLOP/s across schedule
// steps beside a roofline of every profiled function and step under this machine's measured peaks
// (re-measured by "Measure peaks"), and the build's LLVM IR, optimized IR and assembly. The work is
// workbench::BuildModule / RunBuilt on a worker thread with a progress bar and Cancel; outcomes
// come back to a workbench::BuildSession on the UI thread.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <functional>
#include <map>
#include <optional>

#include "workbench/build_session.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QTableWidget;

namespace wb::app {

class ProfileChart;
class RooflineChart;

class BuildPanel : public QWidget {
  Q_OBJECT

 public:
  explicit BuildPanel(QWidget* parent = nullptr);
  ~BuildPanel() override;

  // Where the module to build comes from (the schedule pane's session).
  void SetSchedule(const workbench::ScheduleSession* schedule) { schedule_ = schedule; }
  // The document's module: what is built when the schedule holds none (a module of Relax
  // functions, with no PrimFunc to schedule).
  void SetDocumentModule(ir::IRModule module) { document_module_ = std::move(module); }
  // Why nothing may be built now (the document does not parse); empty when it may.
  void SetBlockedReason(const QString& reason) { blocked_reason_ = reason; }

  // Start a job; false (with the reason shown) when one is running or nothing can start.
  bool Build();
  bool Run();
  bool Profile();
  // Measures this machine's FMA and bandwidth peaks again on the worker (workbench/host_peaks.h).
  bool MeasurePeaks();
  void Cancel();
  bool busy() const;
  // Runs the event loop until the current job has finished (true; also when none runs) or
  // `timeout_ms` has passed (false).
  bool WaitForJob(int timeout_ms);
  // The input directory; empty means random inputs.
  void SetInputsDirectory(const QString& dir);
  // Selects a target by name ("llvm", "avx2", "cuda"); false when there is none or it is greyed.
  bool SelectTarget(const QString& name);
  // What checks the results (run_check.h); auto at first.
  bool SelectReference(workbench::ReferenceKind kind);
  workbench::ReferenceKind reference() const;

  const workbench::BuildSession& session() const { return session_; }
  QComboBox* targetBox() const { return target_; }
  QComboBox* referenceBox() const { return reference_; }
  QLabel* targetStatus() const { return target_status_; }
  QSpinBox* numberBox() const { return number_; }
  QSpinBox* repeatBox() const { return repeat_; }
  QLineEdit* inputsEdit() const { return inputs_; }
  QPushButton* buildButton() const { return build_; }
  QPushButton* runButton() const { return run_; }
  QPushButton* profileButton() const { return profile_; }
  QPushButton* cancelButton() const { return cancel_; }
  QPushButton* measurePeaksButton() const { return measure_peaks_; }
  QProgressBar* progressBar() const { return progress_; }
  QLabel* statusLabel() const { return status_; }
  QListWidget* errorList() const { return errors_; }
  QTableWidget* resultsTable() const { return results_; }
  // The selected Relax function's kernels and builtins by time, from its last profile.
  QTableWidget* callsTable() const { return calls_; }
  ProfileChart* chart() const { return chart_; }
  RooflineChart* roofline() const { return roofline_; }
  QTabWidget* views() const { return views_; }
  QPlainTextEdit* irView() const { return ir_; }
  QPlainTextEdit* optimizedIrView() const { return ir_opt_; }
  QPlainTextEdit* assemblyView() const { return asm_; }
  QPlainTextEdit* cudaView() const { return cuda_; }
  QPlainTextEdit* ptxView() const { return ptx_; }
  // The module the build compiled, printed: the text its views' lines map to
  // (workbench/source_links.h).
  QPlainTextEdit* printedView() const { return printed_; }

  // Linked views: highlights the LLVM IR, assembly and printed-module lines of the kernel that
  // the document's line `line` (1-based) calls or defines, and says so in the status line. Returns
  // the kernel's name; empty (with the reason shown, nothing highlighted) when there is none or
  // no build to link.
  QString LinkDocumentLine(int line);
  // The lines (0-based) highlighted in a view by the last link.
  QList<int> linkedLines(QPlainTextEdit* view) const;
  QSplitter* splitter() const { return splitter_; }

 Q_SIGNALS:
  // A job's stage as it starts (on the UI thread).
  void progressed(const QString& stage);
  void jobFinished();
  // An error with a source location was activated: go there in the editor.
  void sourceLocationActivated(int line, int column);
  // The cursor went onto a line of the LLVM IR or assembly that came from `kernel`: the document's
  // lines to mark (the bindings that call it, else its definition).
  void viewLineLinked(const QString& kernel, const QList<int>& document_lines);

 private:
  // What a job does and what it gives back.
  struct Job {
    bool build = false;  // build even when the current build matches
    bool measure_peaks = false;  // only that: no build, no run
    std::optional<workbench::RunRequest> run;
  };
  struct JobResult {
    std::optional<workbench::BuildOutcome> build;
    std::optional<workbench::RunOutcome> run;
    std::optional<workbench::HostPeaks> peaks;
    std::string peaks_warning;
  };
  bool Start(Job job);
  void Finish(JobResult result);
  void ShowBuild(const workbench::BuildOutcome& build);
  void ShowRun(const workbench::RunOutcome& run);
  // Fills the Calls tab from the function of the results table's row (the first with a profile
  // of its calls when the row has none).
  void ShowCalls(int row);
  void ShowErrors(const DiagnosticList& diags);
  void UpdateChart();
  void UpdateRoofline();
  void UpdateTargetStatus();
  void SetBusy(bool busy);
  void LinkViewLine(QPlainTextEdit* view);
  void Highlight(QPlainTextEdit* view, const QList<int>& lines, bool scroll);
  std::string TargetText() const;

  const workbench::ScheduleSession* schedule_ = nullptr;
  ir::IRModule document_module_;
  QString blocked_reason_;
  workbench::BuildSession session_;
  workbench::CancellationToken token_;
  QFutureWatcher<JobResult> watcher_;
  bool job_running_ = false;
  std::vector<workbench::TargetOption> targets_;

  QComboBox* target_;
  QLabel* target_status_;
  QSpinBox* number_;
  QSpinBox* repeat_;
  QLineEdit* inputs_;
  QPushButton* choose_inputs_;
  QComboBox* reference_;
  QPushButton* build_;
  QPushButton* run_;
  QPushButton* profile_;
  QPushButton* cancel_;
  QPushButton* measure_peaks_;
  QProgressBar* progress_;
  QLabel* status_;
  QListWidget* errors_;
  QTableWidget* results_;
  QTableWidget* calls_;
  std::vector<workbench::FunctionResult> shown_;  // the rows of results_
  ProfileChart* chart_;
  RooflineChart* roofline_;
  QTabWidget* views_;
  QPlainTextEdit* ir_;
  QPlainTextEdit* ir_opt_;
  QPlainTextEdit* asm_;
  QPlainTextEdit* cuda_;  // CUDA targets: the kernels' CUDA C and PTX
  QPlainTextEdit* ptx_;
  QPlainTextEdit* printed_;
  std::map<QPlainTextEdit*, QList<int>> linked_;
  QSplitter* splitter_;
};

}  // namespace wb::app
