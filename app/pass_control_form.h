// The pass context of the Passes tab: the opt level, a group per registered pass config key with
// an editor per field (built from the key's typed fields, as the composer's argument form is
// from a pass's), and the passes to disable or require. Every run of the tab runs under it; the
// line under it is the same settings as batch options, to paste into a CI script.
#pragma once

#include <QWidget>
#include <functional>
#include <map>
#include <string>

#include "transform/pass_control.h"

class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;
class QToolButton;

namespace wb::app {

class PassControlForm : public QWidget {
  Q_OBJECT

 public:
  explicit PassControlForm(QWidget* parent = nullptr);

  // The settings: the opt level when it is not the default, the config fields that differ from
  // their defaults, the passes checked.
  transform::PassControl control() const;
  // Shows `control` (a field it does not set shows its default).
  void SetControl(const transform::PassControl& control);

  QSpinBox* optLevel() const { return opt_level_; }
  // The editor of a config field (QSpinBox, QDoubleSpinBox, QCheckBox or QLineEdit) and its
  // reset button; null when the key has no such field.
  QWidget* fieldEditor(const QString& key, const QString& field) const;
  QToolButton* fieldReset(const QString& key, const QString& field) const;
  // Rows: the registered passes; columns: name, disabled, required (check boxes).
  QTableWidget* passTable() const { return passes_; }
  // Checks a pass's "disabled" or "required" box; false when there is no such pass.
  bool SetPassDisabled(const QString& name, bool disabled);
  bool SetPassRequired(const QString& name, bool required);
  QLineEdit* passFilter() const { return filter_; }
  QLabel* commandLine() const { return command_line_; }

 Q_SIGNALS:
  void changed();

 private:
  struct Field {
    QWidget* editor = nullptr;
    QToolButton* reset = nullptr;
    std::function<void(const ir::ObjectRef&)> show;
    transform::PassParam param;
    ir::ObjectRef value;
  };
  void FieldEdited(const std::string& key, const std::string& field, ir::ObjectRef value);
  bool SetPassColumn(const QString& name, int column, bool checked);
  void Changed();

  QSpinBox* opt_level_;
  QLineEdit* filter_;
  QTableWidget* passes_;
  QLabel* command_line_;
  std::map<std::pair<std::string, std::string>, Field> fields_;
  bool updating_ = false;
};

}  // namespace wb::app
