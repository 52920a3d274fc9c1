// The schedule pane: the block/loop tree of the selected PrimFunc, every schedule primitive of
// workbench::ScheduleCatalog from a context menu on a loop or block (grouped as the catalog
// groups them), an argument form generated from the primitive's parameter kinds (combo boxes for
// loops, buffers, scopes and thread axes with the choices the selection allows, spin boxes for
// integers, check boxes for flags, line edits for the rest; each field's doc as its tooltip),
// the trace (TVM syntax, copyable, loadable from a file), undo/redo, and the function before and
// after each step. Every step is recipe text handed to workbench::ScheduleSession; the free-text
// "any" primitive takes a call written against the selection's names. With "Check each step" on,
// every step is run against the one before it in the background (workbench::CheckTransitions,
// as `--check-each` does) and the step list marks the steps that changed what the function
// computes.
#pragma once

#include <QWidget>
#include <map>
#include <string>
#include <vector>

#include "workbench/cancellation.h"
#include "workbench/check_each.h"
#include "workbench/schedule_catalog.h"
#include "workbench/schedule_session.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QMenu;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace wb::app {

class DiffPanes;

class SchedulePane : public QWidget {
  Q_OBJECT

 public:
  explicit SchedulePane(QWidget* parent = nullptr);
  ~SchedulePane() override;

  // Schedules `module` from scratch; when it is a new version of the same document, the current
  // recipe is replayed onto it (and dropped, with the reason shown, when it no longer applies).
  void SetModule(const ir::IRModule& module, bool keep_recipe = true);
  const workbench::ScheduleSession& session() const { return session_; }

  // Selects the tree node named `name` (a loop variable or a block); false when none.
  bool SelectNode(const QString& name);
  // The context menu for the selected node (built fresh; the caller owns it).
  QMenu* ContextMenu();
  // Applies the primitive and arguments currently in the argument form to the selection.
  bool ApplyPanel();
  // The form's field for parameter `name` (a QComboBox, QSpinBox, QCheckBox or QLineEdit), or
  // null; "call" is the "any" primitive's line.
  QWidget* argumentField(const QString& name) const;
  // The parameters the form asks for now, in order.
  QStringList argumentNames() const;
  // Applies a whole step as written; returns false and shows the error when it fails.
  bool ApplyStep(const QString& text);
  bool LoadRecipeFile(const QString& path);
  bool LoadRecipeText(const QString& text);
  // Replaces the steps by the function's default schedule for the host (core/dlight).
  bool LoadDefaultSchedule();
  bool SaveRecipeFile(const QString& path);
  void SelectFunction(const QString& name);
  // Linked views: shows the PrimFunc `name` with its outermost loop selected in the tree. Switches
  // to it only while the current function has no schedule step (switching drops the steps); false
  // when it does not show it (not a function of the module, or steps in the way), with the reason
  // in the message line.
  bool ShowKernel(const QString& name);

  QTreeWidget* tree() const { return tree_; }
  QComboBox* functionBox() const { return func_; }
  QComboBox* primitiveBox() const { return primitive_; }
  // The form's first line edit (split's factors, fuse's loops, the "any" call), or a hidden
  // spare one when the form has none.
  QLineEdit* argumentsEdit() const;
  QPushButton* applyButton() const { return apply_; }
  QPushButton* undoButton() const { return undo_; }
  QPushButton* redoButton() const { return redo_; }
  QPushButton* defaultScheduleButton() const { return default_; }
  QPlainTextEdit* traceView() const { return trace_; }
  QListWidget* stepList() const { return steps_; }
  QPlainTextEdit* beforePane() const { return before_; }
  QPlainTextEdit* afterPane() const { return after_; }
  // The before/after diff of the selected step (computed on a worker thread).
  DiffPanes* diffPanes() const { return diff_; }
  QLabel* messageLabel() const { return message_; }
  // "Check each step": runs each step against the one before it in the background.
  QCheckBox* checkEachBox() const { return check_each_; }
  // What the check found for step `row`: "equal", "changed", "skipped", "pending" (running or
  // queued), or empty while checking is off.
  QString stepCheck(int row) const;

 Q_SIGNALS:
  // After every change of the schedule (step, undo, redo, load).
  void scheduleChanged();
  // After a background check of the steps finished (the marks are up to date).
  void stepsChecked();

 private:
  void Refresh();
  void ShowStep(int row);
  void ShowError(const QString& text);
  // Rebuilds the form for the chosen primitive and the current selection, keeping the values
  // of fields that still exist (and, for choices, are still offered).
  void RebuildForm(bool keep_values);
  std::map<std::string, std::string> FormValues() const;
  // Chooses `primitive` in the panel; applies it at once when it takes no arguments, else fills
  // `prefill` into the form and focuses its first field.
  void Choose(const QString& primitive, const std::map<std::string, std::string>& prefill);
  int SelectedNode() const;
  // Checks, on a worker thread, the steps that have no result yet; then MarkSteps.
  void StartChecks();
  // Marks each step in the list with its check and names the first that changed meaning.
  void MarkSteps();
  const workbench::TransitionCheck* FindCheck(const workbench::ScheduleStep& step) const;

  workbench::ScheduleSession session_;
  std::vector<workbench::ScheduleTreeNode> nodes_;
  QComboBox* func_;
  QTreeWidget* tree_;
  QComboBox* primitive_;
  QLabel* summary_;
  QWidget* form_;
  QFormLayout* form_layout_;
  struct Field {
    std::string name;
    QWidget* widget;
  };
  std::vector<Field> fields_;
  QString form_primitive_;
  QLineEdit* spare_;
  QPushButton* apply_;
  QPushButton* undo_;
  QPushButton* redo_;
  QPushButton* load_;
  QPushButton* save_;
  QPushButton* default_;
  QPlainTextEdit* trace_;
  QListWidget* steps_;
  QPlainTextEdit* before_;
  QPlainTextEdit* after_;
  DiffPanes* diff_;
  QLabel* message_;
  QCheckBox* check_each_;
  // Results by the step's modules: a step keeps its modules across refreshes and undo (redo
  // makes an equal one), so a new step checks only itself.
  struct CheckedStep {
    ir::IRModule before;
    ir::IRModule after;
    workbench::TransitionCheck check;
  };
  std::vector<CheckedStep> checked_;
  workbench::CancellationToken check_token_;
};

}  // namespace wb::app
