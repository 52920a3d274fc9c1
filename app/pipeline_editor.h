// The pipeline composer of the Passes tab: the pipeline's passes as an ordered list (add from
// the registry, remove, move, drag to reorder, expand a named pipeline into its passes) and a
// form for the selected pass's keyword arguments generated from their PassParam types. It edits
// the same pipeline text the text box holds: text -> list through ParsePipeline (a text that does
// not parse leaves the list as it was and shows the error with its column), list -> canonical
// text through PipelineText.
#pragma once

#include <QWidget>
#include <map>
#include <optional>
#include <vector>

#include "transform/registry.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QToolButton;
class QFormLayout;

namespace wb::app {

class PipelineEditor : public QWidget {
  Q_OBJECT

 public:
  explicit PipelineEditor(QWidget* parent = nullptr);

  // Shows the pipeline `text` (from the text box). Returns false, with the error shown and the
  // list unchanged, when it does not parse.
  bool SetText(const QString& text);
  // The canonical text of the list (or the named pipeline's name, until it is expanded).
  QString text() const;
  const std::vector<transform::PassSpec>& specs() const { return specs_; }
  // The named pipeline the list stands for, when the text is one's name.
  const std::optional<std::string>& namedPipeline() const { return named_; }

  // The actions behind the buttons, for the menu and for tests.
  bool AddPass(const QString& name);  // after the selected pass (at the end when none is)
  void RemoveSelected();
  void MoveSelected(int delta);
  void ExpandNamed();

  QListWidget* list() const { return list_; }
  QLineEdit* filter() const { return filter_; }
  QListWidget* catalog() const { return catalog_; }
  QPushButton* addButton() const { return add_; }
  QPushButton* removeButton() const { return remove_; }
  QPushButton* upButton() const { return up_; }
  QPushButton* downButton() const { return down_; }
  QPushButton* expandButton() const { return expand_; }
  QLabel* errorLabel() const { return error_; }
  // The selected pass's argument editor (QSpinBox, QDoubleSpinBox, QCheckBox or QLineEdit) and
  // its reset button; null when the selected pass has no such argument.
  QWidget* argumentEditor(const QString& name) const;
  QToolButton* resetButton(const QString& name) const;

 Q_SIGNALS:
  // The composer changed the pipeline: the new canonical text.
  void textEdited(const QString& text);

 private:
  void Populate(int select);
  void ShowArguments();
  void SetArgument(int row, const std::string& name, ir::ObjectRef value);
  void UpdateItem(int row);
  void Edited();
  void UpdateButtons();
  void SyncOrderFromList();
  void FilterCatalog(const QString& filter);
  void MakeEditable();  // expands a named pipeline before an edit

  QListWidget* list_;
  QLineEdit* filter_;
  QListWidget* catalog_;
  QPushButton* add_;
  QPushButton* remove_;
  QPushButton* up_;
  QPushButton* down_;
  QPushButton* expand_;
  QLabel* error_;
  QLabel* args_title_;
  QWidget* args_;
  QFormLayout* args_form_;
  std::map<std::string, std::pair<QWidget*, QToolButton*>> arg_widgets_;
  std::vector<transform::PassSpec> specs_;
  std::optional<std::string> named_;
  QString last_text_;
  bool populating_ = false;
};

}  // namespace wb::app
