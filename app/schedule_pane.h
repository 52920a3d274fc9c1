// The schedule pane: the block/loop tree of the selected PrimFunc, schedule primitives from a
// context menu on a loop or block with an argument panel, the trace (TVM syntax, copyable,
// loadable from a file), undo/redo, and the function before and after each step. Every step is
// a recipe line handed to workbench::ScheduleSession, so a primitive the schedule learns works
// here through the "any primitive" line with no new widget code.
#pragma once

#include <QWidget>

#include "workbench/schedule_session.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QMenu;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace wb::app {

class SchedulePane : public QWidget {
  Q_OBJECT

 public:
  explicit SchedulePane(QWidget* parent = nullptr);

  // Schedules `module` from scratch; when it is a new version of the same document, the current
  // recipe is replayed onto it (and dropped, with the reason shown, when it no longer applies).
  void SetModule(const ir::IRModule& module, bool keep_recipe = true);
  const workbench::ScheduleSession& session() const { return session_; }

  // Selects the tree node named `name` (a loop variable or a block); false when none.
  bool SelectNode(const QString& name);
  // The context menu for the selected node (built fresh; the caller owns it).
  QMenu* ContextMenu();
  // Applies the primitive and arguments currently in the argument panel to the selection.
  bool ApplyPanel();
  // Applies a whole step as written; returns false and shows the error when it fails.
  bool ApplyStep(const QString& text);
  bool LoadRecipeFile(const QString& path);
  bool LoadRecipeText(const QString& text);
  bool SaveRecipeFile(const QString& path);
  void SelectFunction(const QString& name);

  QTreeWidget* tree() const { return tree_; }
  QComboBox* functionBox() const { return func_; }
  QComboBox* primitiveBox() const { return primitive_; }
  QLineEdit* argumentsEdit() const { return args_; }
  QPushButton* applyButton() const { return apply_; }
  QPushButton* undoButton() const { return undo_; }
  QPushButton* redoButton() const { return redo_; }
  QPlainTextEdit* traceView() const { return trace_; }
  QListWidget* stepList() const { return steps_; }
  QPlainTextEdit* beforePane() const { return before_; }
  QPlainTextEdit* afterPane() const { return after_; }
  QLabel* messageLabel() const { return message_; }

 Q_SIGNALS:
  // After every change of the schedule (step, undo, redo, load).
  void scheduleChanged();

 private:
  void Refresh();
  void ShowStep(int row);
  void ShowError(const QString& text);
  void UpdateArgumentHint();
  int SelectedNode() const;
  // Tree indices of the loop names in `text` ("i, j") within the selection's loop nest.
  std::optional<std::vector<int>> LoopsNamed(const QString& text, QString* error) const;

  workbench::ScheduleSession session_;
  std::vector<workbench::ScheduleTreeNode> nodes_;
  QComboBox* func_;
  QTreeWidget* tree_;
  QComboBox* primitive_;
  QLineEdit* args_;
  QPushButton* apply_;
  QPushButton* undo_;
  QPushButton* redo_;
  QPushButton* load_;
  QPushButton* save_;
  QPlainTextEdit* trace_;
  QListWidget* steps_;
  QPlainTextEdit* before_;
  QPlainTextEdit* after_;
  QLabel* message_;
};

}  // namespace wb::app
