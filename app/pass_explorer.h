// The pass pipeline panel: pipeline text (a named pipeline or a composed one), the passes of the
// last run with their time and whether they changed the module, and the module before and after
// the selected pass side by side, changed lines highlighted, scrolling kept in step, optionally
// only the functions the pass changed. The panes get most of the width, a narrow pass list left
// of them; the composer and the pass context the runs use (opt level, config keys, disabled and
// required passes) fold out beside the list. Runs go to a worker thread, with the current pass in a
// progress bar and a Cancel that stops the run between passes. The Analyze menu adds a structural
// view of the selected pass, a check of each pass's meaning after every run and an impact column
// (what each pass is worth in latency), the last two off the UI thread.
#pragma once

#include <QFutureWatcher>
#include <QHash>
#include <QWidget>
#include <functional>

#include "transform/instrument.h"
#include "workbench/cancellation.h"

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTabWidget;
class QToolButton;
class QTextDocument;

namespace wb::workbench {
struct PassImpact;
}

namespace wb::app {

class PassControlForm;
class DiffPanes;
class PipelineEditor;

class PassExplorer : public QWidget {
  Q_OBJECT

 public:
  explicit PassExplorer(QWidget* parent = nullptr);
  // Cancels a run in flight and waits for it (a pass that has started finishes first).
  ~PassExplorer() override;

  // The document runs are made on: a result that comes back after it changed says which
  // revision it ran on.
  void SetDocument(QTextDocument* document) { document_ = document; }

  // Starts `pipeline` over `module` (undefined when the document does not parse) on a worker
  // thread; runFinished follows. Refused (false, with the reason in the status line) while a
  // run is in flight.
  bool StartRun(const ir::IRModule& module, const QString& pipeline);
  // Edit and resume: the after pane's text (the module after the selected pass, as edited) is
  // parsed and the passes of the last run's pipeline after that pass run on it, on a worker
  // thread; runFinished follows. The run is marked as resumed from an edit. Refused (false, with
  // the reason in the status line) while a run is in flight, with no pass selected, or while the
  // after pane shows only the changed functions.
  bool ResumeFromSelected();
  // Stops the run in flight before its next pass.
  void Cancel();
  bool running() const { return running_; }
  // Blocks until the run in flight is finished and shown (tests, batch-like callers).
  void WaitForRun();
  const transform::PipelineResult& lastRun() const { return last_run_; }

  // Impact: the last run's module built for LLVM and timed with every pass, then without each
  // pass in turn (workbench::AttributePasses, under the tab's pass context), on a worker thread;
  // each pass's row gets its latency change in percent (positive: slower without it) or why it
  // has none ("breaks build" without it, ...) as soon as it is known. Refused (false, with the
  // reason in the status line) with no run, while a run or an attribution is in flight.
  bool StartImpact();
  // Stops the attribution in flight between builds (the passes attributed stay marked).
  void CancelImpact();
  bool impactRunning() const { return impact_running_; }
  // Blocks until the attribution in flight is finished and shown (tests).
  void WaitForImpact();
  // A pass's impact text as its row shows it ("+3.2%", "breaks build", ...); empty: not known.
  // Each row holds it under kImpactRole; the list paints it in a column of its own, right of the
  // pass's name and time, while any pass has one.
  QString impactText(const QString& pass) const { return impact_text_.value(pass); }
  static constexpr int kImpactRole = Qt::UserRole + 1;
  // Check each pass: after every run (and when checked after one), the passes that changed the
  // module checked on a worker thread by workbench::CheckTransitions, as batch --check-each does;
  // the first pass that changed what the module computes is marked in the list, what differs
  // (its max error) as the row's tooltip.
  struct MeaningCheck {
    int changed = -1;  // the position in lastRun().snapshots of the first pass that changed it
    std::vector<std::string> changes;  // what differs there, one line per function
    size_t equal = 0, skipped = 0;     // the passes before it found equal, or not checkable
    bool cancelled = false;
  };
  QAction* checkEachPass() const { return check_each_; }
  // Starts the check of the last run; false when there is nothing to check or a check or a run
  // is in flight.
  bool StartCheck();
  bool checkRunning() const { return check_running_; }
  // Blocks until the check in flight is finished and shown (tests).
  void WaitForCheck();
  // The last check's result (for the run shown); nullptr when there is none.
  const MeaningCheck* lastCheck() const { return has_check_ ? &check_ : nullptr; }
  // The Analyze menu of the tool row holds the structural view, the check and the impact.
  QToolButton* analyzeButton() const { return analyze_; }
  QAction* impactAction() const { return impact_; }
  QAction* impactCancelAction() const { return impact_cancel_; }
  QProgressBar* impactProgressBar() const { return impact_progress_; }

  QString pipelineText() const;
  void setPipelineText(const QString& text);
  // Shows a run's snapshots (or its errors).
  void ShowRun(const transform::PipelineResult& run);
  void SelectPass(int row);

  QListWidget* passList() const { return passes_; }
  QPlainTextEdit* beforePane() const { return before_; }
  QPlainTextEdit* afterPane() const { return after_; }
  QLabel* statusLabel() const { return status_; }
  QPushButton* runButton() const { return run_; }
  QPushButton* cancelButton() const { return cancel_; }
  QPushButton* resumeButton() const { return resume_; }
  QProgressBar* progressBar() const { return progress_; }
  PipelineEditor* composer() const { return composer_; }
  // The composer and the pass context sit in a fold beside the pass list, closed at first; the
  // toggle in the tool row opens it (its width comes out of the before/after panes).
  QToolButton* composerToggle() const { return composer_toggle_; }
  void ShowComposer(bool show);
  // The pass list, the before pane and the after pane, left to right (and the fold left of them).
  QSplitter* bodySplitter() const { return body_; }
  // The pass context every run of the tab runs under (opt level, config, disabled passes).
  PassControlForm* passContext() const { return pass_context_; }
  QComboBox* pipelineBox() const { return pipeline_; }
  QCheckBox* hideUnchanged() const { return hide_unchanged_; }
  QCheckBox* changedFunctionsOnly() const { return changed_functions_only_; }
  // Structural view: in place of the before/after panes, the selected pass's functions aligned by
  // name and compared structurally (a consistently renamed variable is no difference): same,
  // changed (the first mismatch path and the text diff of only that function), added, removed.
  QAction* structuralView() const { return structural_view_; }
  QPlainTextEdit* structuralPane() const { return structural_; }
  // The before/after panes' diff: computed on a worker thread after SelectPass shows the texts
  // (diffPanes()->WaitForDiff() blocks until it is shown).
  DiffPanes* diffPanes() const { return diff_; }
  // Lines highlighted as changed in each pane by the last diff shown.
  int changedLinesBefore() const;
  int changedLinesAfter() const;

 Q_SIGNALS:
  void runRequested(const QString& pipeline);
  // A run started with StartRun has finished (done, failed or cancelled) and is shown.
  void runFinished();
  // An attribution started with StartImpact has finished (done, failed or cancelled).
  void impactFinished();
  // A check started with StartCheck has finished (done or cancelled) and is shown.
  void checkFinished();

 private:
  void Populate();
  // A row's text, colour, tooltip and impact from its snapshot, the impacts and the check.
  void DecorateRow(QListWidgetItem* item);
  // Every row decorated again in place (the selection stays).
  void RefreshRows();
  // A pass's row: number, name, time, marks (its impact is painted beside it).
  QString RowText(const transform::PassSnapshot& s) const;
  void ShowImpact(int generation, const workbench::PassImpact& impact);
  void FinishImpact();
  void SetImpactRunning(bool running);
  void FinishCheck();
  void FinishRun();
  void SetRunning(bool running);
  using Job = std::function<transform::PipelineResult(const workbench::CancellationToken&,
                                                      const workbench::ProgressFn&)>;
  bool StartJob(const QString& pipeline, const transform::PassControl& control, const QString& status,
                Job job);

  static constexpr int kComposerWidth = 300;
  static constexpr int kPassListWidth = 220;

  QComboBox* pipeline_;
  QToolButton* composer_toggle_;
  QTabWidget* side_tabs_;
  QSplitter* body_;
  PipelineEditor* composer_;
  PassControlForm* pass_context_;
  QPushButton* run_;
  QPushButton* cancel_;
  QPushButton* resume_;
  QProgressBar* progress_;
  QCheckBox* hide_unchanged_;
  QCheckBox* changed_functions_only_;
  QToolButton* analyze_;
  QAction* structural_view_;
  QPlainTextEdit* structural_;
  QListWidget* passes_;
  QPlainTextEdit* before_;
  QPlainTextEdit* after_;
  QLabel* status_;
  DiffPanes* diff_;
  std::vector<transform::PassSnapshot> snapshots_;

  QAction* check_each_;
  QAction* impact_;
  QAction* impact_cancel_;
  QProgressBar* impact_progress_;

  QTextDocument* document_ = nullptr;
  QFutureWatcher<transform::PipelineResult> watcher_;
  workbench::CancellationToken token_;
  transform::PipelineResult last_run_;
  bool running_ = false;
  int generation_ = 0;  // which run progress reports belong to
  transform::PassControl run_control_;  // what the last run started ran under
  QString run_pipeline_;                // and its pipeline
  int resumed_after_ = -1;              // the shown run's PipelineResult::resumed_after
  QString run_text_;    // the document text and revision the run in flight was made on
  int run_revision_ = 0;
  ir::IRModule run_module_;  // what the last StartRun started from

  // The attribution in flight: its rows come one by one through ShowImpact, then this.
  struct ImpactOutcome {
    std::string message;  // why nothing could be attributed
    bool cancelled = false;
    size_t attributed = 0, passes = 0;
  };
  QFutureWatcher<ImpactOutcome> impact_watcher_;
  workbench::CancellationToken impact_token_;
  bool impact_running_ = false;
  int impact_generation_ = 0;  // which run the impacts belong to
  int impact_started_ = 0;     // the generation of the attribution in flight
  QHash<QString, QString> impact_text_;  // per pass name
  QHash<QString, QString> impact_tip_;

  QFutureWatcher<MeaningCheck> check_watcher_;
  workbench::CancellationToken check_token_;
  bool check_running_ = false;
  int check_generation_ = 0, check_started_ = 0;  // as impact_generation_, impact_started_
  MeaningCheck check_;
  bool has_check_ = false;
};

}  // namespace wb::app
