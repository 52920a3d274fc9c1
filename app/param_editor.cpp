#include "param_editor.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStringList>
#include <climits>

namespace wb::app {

namespace {

// "a, b" -> ["a", "b"]; blanks dropped.
ir::ObjectRef StringListFrom(const QString& text) {
  std::vector<ir::ObjectRef> items;
  for (const QString& part : text.split(',')) {
    QString name = part.trimmed();
    if (!name.isEmpty()) items.push_back(ir::MakeString(name.toStdString()));
  }
  return ir::MakeArray(std::move(items));
}

QString StringListText(const ir::ObjectRef& value) {
  QStringList out;
  if (auto* arr = value.as<ir::ArrayObj>()) {
    for (const auto& item : arr->items) {
      if (auto* s = item.as<ir::StringObj>()) out << QString::fromStdString(s->value);
    }
  }
  return out.join(", ");
}

double AsDouble(const ir::ObjectRef& v) {
  if (auto* i = v.as<ir::IntObj>()) return double(i->value);
  if (auto* f = v.as<ir::FloatObj>()) return f->value;
  return 0;
}

int64_t AsInt(const ir::ObjectRef& v) {
  if (auto* i = v.as<ir::IntObj>()) return i->value;
  return 0;
}

}  // namespace

ParamEditor MakeParamEditor(const transform::PassParam& param, const ir::ObjectRef& value,
                            std::function<void(ir::ObjectRef)> on_change) {
  ParamEditor out;
  switch (param.type) {
    case transform::ParamType::kInt: {
      auto* spin = new QSpinBox;
      spin->setRange(INT_MIN, INT_MAX);
      spin->setValue(int(AsInt(value)));
      QObject::connect(spin, &QSpinBox::valueChanged, spin,
                       [on_change](int v) { on_change(ir::MakeInt(v)); });
      out.show = [spin](const ir::ObjectRef& v) {
        QSignalBlocker block(spin);
        spin->setValue(int(AsInt(v)));
      };
      out.widget = spin;
      break;
    }
    case transform::ParamType::kFloat: {
      auto* spin = new QDoubleSpinBox;
      spin->setDecimals(6);
      spin->setRange(-1e12, 1e12);
      spin->setSingleStep(0.1);
      spin->setValue(AsDouble(value));
      QObject::connect(spin, &QDoubleSpinBox::valueChanged, spin,
                       [on_change](double v) { on_change(ir::MakeFloat(v)); });
      out.show = [spin](const ir::ObjectRef& v) {
        QSignalBlocker block(spin);
        spin->setValue(AsDouble(v));
      };
      out.widget = spin;
      break;
    }
    case transform::ParamType::kBool: {
      auto* check = new QCheckBox;
      auto* b = value.as<ir::BoolObj>();
      check->setChecked(b && b->value);
      QObject::connect(check, &QCheckBox::toggled, check,
                       [on_change](bool v) { on_change(ir::MakeBool(v)); });
      out.show = [check](const ir::ObjectRef& v) {
        QSignalBlocker block(check);
        auto* b = v.as<ir::BoolObj>();
        check->setChecked(b && b->value);
      };
      out.widget = check;
      break;
    }
    case transform::ParamType::kString: {
      auto* s = value.as<ir::StringObj>();
      auto* line = new QLineEdit(s ? QString::fromStdString(s->value) : QString());
      QObject::connect(line, &QLineEdit::textChanged, line, [on_change](const QString& v) {
        on_change(ir::MakeString(v.toStdString()));
      });
      out.show = [line](const ir::ObjectRef& v) {
        QSignalBlocker block(line);
        auto* s = v.as<ir::StringObj>();
        line->setText(s ? QString::fromStdString(s->value) : QString());
      };
      out.widget = line;
      break;
    }
    case transform::ParamType::kStringList: {
      auto* line = new QLineEdit(StringListText(value));
      line->setPlaceholderText(QObject::tr("names, separated by commas"));
      QObject::connect(line, &QLineEdit::textChanged, line,
                       [on_change](const QString& v) { on_change(StringListFrom(v)); });
      out.show = [line](const ir::ObjectRef& v) {
        QSignalBlocker block(line);
        line->setText(StringListText(v));
      };
      out.widget = line;
      break;
    }
  }
  out.widget->setToolTip(QObject::tr("%1\n%2, default %3")
                             .arg(QString::fromStdString(param.doc),
                                  QString::fromUtf8(transform::ParamTypeName(param.type)),
                                  QString::fromStdString(transform::ParamValueText(param.default_value))));
  return out;
}

}  // namespace wb::app
