// The pass pipeline panel: pipeline text (a named pipeline or a composed one), the passes of the
// last run with their time and whether they changed the module, and the module before and after
// the selected pass side by side, changed lines highlighted, scrolling kept in step, optionally
// only the functions the pass changed.
#pragma once

#include <QWidget>

#include "transform/instrument.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace wb::app {

class PassExplorer : public QWidget {
  Q_OBJECT

 public:
  explicit PassExplorer(QWidget* parent = nullptr);

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
  QCheckBox* hideUnchanged() const { return hide_unchanged_; }
  QCheckBox* changedFunctionsOnly() const { return changed_functions_only_; }
  // Lines highlighted as changed in each pane.
  int changedLinesBefore() const { return changed_before_; }
  int changedLinesAfter() const { return changed_after_; }

 Q_SIGNALS:
  void runRequested(const QString& pipeline);

 private:
  void Populate();

  QComboBox* pipeline_;
  QPushButton* run_;
  QCheckBox* hide_unchanged_;
  QCheckBox* changed_functions_only_;
  QListWidget* passes_;
  QPlainTextEdit* before_;
  QPlainTextEdit* after_;
  QLabel* status_;
  std::vector<transform::PassSnapshot> snapshots_;
  int changed_before_ = 0;
  int changed_after_ = 0;
};

}  // namespace wb::app
