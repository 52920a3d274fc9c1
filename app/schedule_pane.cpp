#include "schedule_pane.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTreeWidget>
#include <QtConcurrent/QtConcurrent>

#include "diff_view.h"
#include "ir/structural_equal.h"
#include "tir/stmt.h"

namespace wb::app {

using schedule::RecipeParamKind;
using workbench::ScheduleChoice;
using workbench::ScheduleParam;
using workbench::SchedulePrimitive;
using workbench::ScheduleTreeNode;

namespace {

// The free-text primitive: a call written against the selection's names.
constexpr const char* kAny = "any";

QString Q(const std::string& s) { return QString::fromStdString(s); }

// "compute_at" -> "Compute at".
QString Title(const std::string& name) {
  QString t = Q(name).replace('_', ' ');
  if (!t.isEmpty()) t[0] = t[0].toUpper();
  return t;
}

// Kinds whose choices are the only valid values (the others' combo boxes are editable).
bool ClosedChoices(RecipeParamKind k) {
  switch (k) {
    case RecipeParamKind::kLoop:
    case RecipeParamKind::kConsumerLoop:
    case RecipeParamKind::kProducerLoop:
    case RecipeParamKind::kBlock:
    case RecipeParamKind::kReadBuffer:
    case RecipeParamKind::kWriteBuffer:
    case RecipeParamKind::kBuffer:
    case RecipeParamKind::kThreadAxis:
      return true;
    default:
      return false;
  }
}

QString FirstMessage(const DiagnosticList& diags) {
  if (diags.empty()) return {};
  const Diagnostic& d = diags[0];
  QString where =
      d.span.defined() ? QStringLiteral("line %1: ").arg(d.span.start().line) : QString();
  return where + Q(d.message);
}

}  // namespace

SchedulePane::SchedulePane(QWidget* parent) : QWidget(parent) {
  func_ = new QComboBox;
  undo_ = new QPushButton(tr("Undo"));
  redo_ = new QPushButton(tr("Redo"));
  load_ = new QPushButton(tr("Load recipe..."));
  save_ = new QPushButton(tr("Save recipe..."));
  default_ = new QPushButton(tr("Default schedule"));
  default_->setToolTip(tr("Start from the schedule the default build gives this function for this "
                          "machine (core/dlight's rules); its steps can be edited like any other"));
  check_each_ = new QCheckBox(tr("Check each step"));
  check_each_->setToolTip(tr("Run each step against the one before it on seeded random inputs "
                             "(the reference interpreter, in the background) and mark the steps "
                             "that change what the function computes"));
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("PrimFunc:")));
  top->addWidget(func_, 1);
  top->addWidget(undo_);
  top->addWidget(redo_);
  top->addWidget(load_);
  top->addWidget(save_);
  top->addWidget(default_);
  top->addWidget(check_each_);

  tree_ = new QTreeWidget;
  tree_->setHeaderLabels({tr("Loop / block"), tr("Kind"), tr("Extent"), tr("Bindings")});
  tree_->setContextMenuPolicy(Qt::CustomContextMenu);
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);

  primitive_ = new QComboBox;
  for (const SchedulePrimitive& p : workbench::ScheduleCatalog()) {
    primitive_->addItem(Q(p.name));
    primitive_->setItemData(primitive_->count() - 1, Q(p.group + ": " + p.summary),
                            Qt::ToolTipRole);
  }
  primitive_->addItem(kAny);
  primitive_->setCurrentText(QStringLiteral("split"));  // the most common first step
  primitive_->setItemData(primitive_->count() - 1,
                          tr("any schedule call, written against the selection's names"),
                          Qt::ToolTipRole);
  summary_ = new QLabel;
  summary_->setWordWrap(true);
  form_ = new QWidget;
  form_layout_ = new QFormLayout(form_);
  form_layout_->setContentsMargins(0, 0, 0, 0);
  spare_ = new QLineEdit(this);
  spare_->hide();
  apply_ = new QPushButton(tr("Apply"));
  auto* chooser = new QHBoxLayout;
  chooser->addWidget(new QLabel(tr("Primitive:")));
  chooser->addWidget(primitive_);
  chooser->addWidget(summary_, 1);
  chooser->addWidget(apply_);
  auto* panel = new QVBoxLayout;
  panel->addLayout(chooser);
  panel->addWidget(form_);

  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  trace_ = MakeCodePane();
  trace_->setPlaceholderText(tr("The trace of the schedule, in TVM's syntax"));
  steps_ = new QListWidget;
  before_ = MakeCodePane();
  after_ = MakeCodePane();
  diff_ = new DiffPanes(before_, after_, this);

  auto* left = new QSplitter(Qt::Vertical);
  // The tree is what the pane is for: it keeps most of the column, and the steps and the trace
  // share the rest as tabs (stacked, all three got too short to read beside the argument form).
  auto* history = new QTabWidget;
  history->setObjectName("scheduleHistoryTabs");
  history->addTab(steps_, tr("Steps"));
  history->addTab(trace_, tr("Trace"));
  left->addWidget(tree_);
  left->addWidget(history);
  left->setStretchFactor(0, 3);
  left->setStretchFactor(1, 2);
  left->setSizes({300, 200});
  auto* diff = new QSplitter(Qt::Horizontal);
  diff->addWidget(before_);
  diff->addWidget(after_);
  auto* body = new QSplitter(Qt::Horizontal);
  body->addWidget(left);
  body->addWidget(diff);
  body->setStretchFactor(1, 2);
  body->setSizes({340, 560});

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addLayout(panel);
  layout->addWidget(message_);
  layout->addWidget(body, 1);

  connect(func_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (!name.isEmpty() && name.toStdString() != session_.func_name()) SelectFunction(name);
  });
  connect(tree_, &QTreeWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    if (QTreeWidgetItem* item = tree_->itemAt(pos)) tree_->setCurrentItem(item);
    if (SelectedNode() < 0) return;
    QMenu* menu = ContextMenu();
    menu->exec(tree_->viewport()->mapToGlobal(pos));
    delete menu;
  });
  connect(primitive_, &QComboBox::currentTextChanged, this, [this] { RebuildForm(false); });
  connect(tree_, &QTreeWidget::currentItemChanged, this, [this] { RebuildForm(true); });
  connect(apply_, &QPushButton::clicked, this, [this] { ApplyPanel(); });
  connect(undo_, &QPushButton::clicked, this, [this] {
    if (session_.Undo()) Refresh();
  });
  connect(redo_, &QPushButton::clicked, this, [this] {
    if (session_.Redo()) Refresh();
  });
  connect(load_, &QPushButton::clicked, this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Load schedule recipe"), QString(),
                                                tr("Recipes (*.py *.recipe);;All files (*)"));
    if (!path.isEmpty()) LoadRecipeFile(path);
  });
  connect(save_, &QPushButton::clicked, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Save schedule recipe"), QString(),
                                                tr("Recipes (*.py *.recipe)"));
    if (!path.isEmpty()) SaveRecipeFile(path);
  });
  connect(default_, &QPushButton::clicked, this, [this] { LoadDefaultSchedule(); });
  connect(steps_, &QListWidget::currentRowChanged, this, [this](int row) { ShowStep(row); });
  connect(check_each_, &QCheckBox::toggled, this, [this](bool on) {
    if (on) {
      StartChecks();
    } else {
      check_token_.Cancel();
      MarkSteps();
    }
  });
  Refresh();
}

SchedulePane::~SchedulePane() { check_token_.Cancel(); }

const workbench::TransitionCheck* SchedulePane::FindCheck(const workbench::ScheduleStep& step) const {
  // Redo applies the step again, giving a new but equal module after the same one before.
  for (const CheckedStep& c : checked_) {
    if (c.before.same_as(step.before) && c.after.same_as(step.after)) return &c.check;
  }
  for (const CheckedStep& c : checked_) {
    if (c.before.same_as(step.before) && ir::StructuralEqual(c.after, step.after, false)) return &c.check;
  }
  return nullptr;
}

QString SchedulePane::stepCheck(int row) const {
  if (!check_each_->isChecked() || row < 0 || row >= static_cast<int>(session_.steps().size())) return {};
  const workbench::TransitionCheck* c = FindCheck(session_.steps()[row]);
  return c ? Q(workbench::TransitionOutcomeName(c->outcome)) : QStringLiteral("pending");
}

void SchedulePane::StartChecks() {
  if (!check_each_->isChecked()) return;
  std::vector<workbench::Transition> all = workbench::StepTransitions(session_.steps());
  std::vector<workbench::Transition> todo;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!FindCheck(session_.steps()[i])) todo.push_back(all[i]);
  }
  MarkSteps();
  if (todo.empty()) {
    Q_EMIT stepsChecked();
    return;
  }
  // A newer schedule supersedes the check under way; what it finished is kept.
  check_token_.Cancel();
  check_token_ = workbench::CancellationToken();
  workbench::CancellationToken token = check_token_;
  QtConcurrent::run([todo, token] { return workbench::CheckTransitions(todo, false, token); })
      .then(this, [this, todo, token](const std::vector<workbench::TransitionCheck>& checks) {
        for (size_t i = 0; i < checks.size(); ++i) {
          if (checks[i].outcome == workbench::TransitionCheck::Outcome::kCancelled) continue;
          checked_.push_back({todo[i].before, todo[i].after, checks[i]});
        }
        // Keep the cache to the steps a user can get back to with undo and redo.
        constexpr size_t kKeep = 256;
        if (checked_.size() > kKeep) checked_.erase(checked_.begin(), checked_.end() - kKeep);
        if (token.cancelled()) return;  // superseded: the newer check marks the list
        MarkSteps();
        Q_EMIT stepsChecked();
      });
}

void SchedulePane::MarkSteps() {
  bool on = check_each_->isChecked();
  int first_changed = -1;
  QString first_detail;
  for (int row = 0; row < steps_->count() && row < static_cast<int>(session_.steps().size()); ++row) {
    QListWidgetItem* item = steps_->item(row);
    const workbench::ScheduleStep& step = session_.steps()[row];
    QString title = Q(step.Title());
    const workbench::TransitionCheck* c = on ? FindCheck(step) : nullptr;
    item->setBackground(QBrush());
    item->setToolTip(QString());
    if (!on) {
      item->setText(title);
      continue;
    }
    if (!c) {
      item->setText(QStringLiteral("\u2026 ") + title);  // pending
      item->setToolTip(tr("being checked against the step before it"));
      continue;
    }
    QStringList lines;
    for (const auto& line : c->lines) lines << Q(line);
    item->setToolTip(lines.join('\n'));
    switch (c->outcome) {
      case workbench::TransitionCheck::Outcome::kEqual:
        item->setText(QStringLiteral("\u2713 ") + title);
        break;
      case workbench::TransitionCheck::Outcome::kChanged:
        item->setText(QStringLiteral("\u2717 ") + title);
        item->setBackground(QColor("#f8d7da"));
        if (first_changed < 0) {
          first_changed = row;
          first_detail = c->changes.empty() ? QString() : Q(c->changes.front());
        }
        break;
      default:
        item->setText(QStringLiteral("\u2013 ") + title);  // skipped: could not be run
        break;
    }
  }
  if (first_changed >= 0) {
    ShowError(tr("Step %1 changed what the function computes: %2").arg(first_changed + 1).arg(first_detail));
  }
}

void SchedulePane::SetModule(const ir::IRModule& module, bool keep_recipe) {
  DiagnosticList diags = session_.Reload(module, keep_recipe);
  Refresh();
  if (!diags.empty()) ShowError(FirstMessage(diags));
}

void SchedulePane::SelectFunction(const QString& name) {
  if (!session_.original().defined()) return;
  // The steps of the function left are kept in the session and come back with it.
  DiagnosticList diags = session_.SelectFunction(name.toStdString());
  Refresh();
  if (diags.HasErrors()) ShowError(FirstMessage(diags));
}

bool SchedulePane::ShowKernel(const QString& name) {
  std::vector<std::string> names = session_.PrimFuncNames();
  if (std::find(names.begin(), names.end(), name.toStdString()) == names.end()) {
    message_->setText(
        tr("%1 is made by the build (LegalizeOps); the module has no such PrimFunc to schedule")
            .arg(name));
    return false;
  }
  if (Q(session_.func_name()) != name) SelectFunction(name);
  for (QTreeWidgetItemIterator it(tree_); *it; ++it) {
    int node = (*it)->data(0, Qt::UserRole).toInt();
    if (node >= 0 && node < static_cast<int>(nodes_.size()) &&
        nodes_[node].kind == ScheduleTreeNode::Kind::kLoop) {
      tree_->setCurrentItem(*it);
      return true;
    }
  }
  tree_->setCurrentItem(tree_->topLevelItemCount() ? tree_->topLevelItem(0) : nullptr);
  return true;
}

void SchedulePane::Refresh() {
  nodes_ = session_.Tree();
  {
    QSignalBlocker block(func_);
    func_->clear();
    std::vector<std::string> scheduled = session_.FunctionsWithSteps();
    for (const std::string& f : session_.PrimFuncNames()) {
      func_->addItem(Q(f));
      if (std::find(scheduled.begin(), scheduled.end(), f) != scheduled.end()) {
        // Its steps are kept: they come back when it is selected again.
        QFont bold = func_->font();
        bold.setBold(true);
        func_->setItemData(func_->count() - 1, bold, Qt::FontRole);
        func_->setItemData(func_->count() - 1, tr("%1 has schedule steps").arg(Q(f)), Qt::ToolTipRole);
      }
    }
    func_->setCurrentText(Q(session_.func_name()));
  }
  // Keep the selection on the same name across steps (a split loop's name is gone, then none).
  QString selected = tree_->currentItem() ? tree_->currentItem()->text(0) : QString();
  tree_->clear();
  std::vector<QTreeWidgetItem*> items;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const ScheduleTreeNode& n = nodes_[i];
    QTreeWidgetItem* parent = n.parent >= 0 ? items[n.parent] : nullptr;
    auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(tree_);
    bool loop = n.kind == ScheduleTreeNode::Kind::kLoop;
    item->setText(0, Q(n.name));
    item->setText(1, loop ? Q(n.kind_name) + (n.thread.empty() ? QString() : " " + Q(n.thread))
                          : tr("block"));
    item->setText(2, loop ? (n.min == "0" ? Q(n.extent)
                                          : QStringLiteral("[%1, +%2)").arg(Q(n.min), Q(n.extent)))
                          : QString());
    QStringList iters;
    for (const std::string& iv : n.iter_vars) iters << Q(iv);
    item->setText(3, iters.join("; "));
    item->setData(0, Qt::UserRole, static_cast<int>(i));
    if (!loop) item->setForeground(0, QColor("#a626a4"));
    items.push_back(item);
  }
  tree_->expandAll();
  if (!selected.isEmpty()) SelectNode(selected);
  // The choices (tree indices) belong to the old tree: start the form afresh.
  RebuildForm(false);
  trace_->setPlainText(Q(session_.TraceText()));
  steps_->clear();
  for (const auto& step : session_.steps()) steps_->addItem(Q(step.Title()));
  undo_->setEnabled(session_.CanUndo());
  redo_->setEnabled(session_.CanRedo());
  save_->setEnabled(session_.CanUndo());
  bool active = session_.active();
  apply_->setEnabled(active);
  load_->setEnabled(active);
  message_->setStyleSheet(QString());
  message_->setText(
      active ? tr("%1 step(s) on %2").arg(session_.steps().size()).arg(Q(session_.func_name()))
             : tr("Nothing to schedule: the document has no PrimFunc that parses"));
  if (!session_.steps().empty()) {
    steps_->setCurrentRow(steps_->count() - 1);
  } else {
    std::string text = session_.FuncText();
    diff_->Show(text, text);
  }
  StartChecks();
  Q_EMIT scheduleChanged();
}

void SchedulePane::ShowStep(int row) {
  if (row < 0 || row >= static_cast<int>(session_.steps().size())) return;
  const workbench::ScheduleStep& step = session_.steps()[row];
  diff_->Show(session_.FuncText(step.before), session_.FuncText(step.after));
}

void SchedulePane::ShowError(const QString& text) {
  message_->setText(text);
  message_->setStyleSheet(QStringLiteral("color: #c0392b"));
}

void SchedulePane::RebuildForm(bool keep_values) {
  // Values by parameter name, kept where the field survives the rebuild (a choice only while it
  // is still offered).
  std::map<std::string, std::string> keep;
  QString primitive = primitive_->currentText();
  if (keep_values && primitive == form_primitive_) keep = FormValues();
  form_primitive_ = primitive;
  while (form_layout_->rowCount() > 0) form_layout_->removeRow(0);
  fields_.clear();
  auto keep_text = [&](const std::string& name, const std::string& initial) {
    auto it = keep.find(name);
    return Q(it != keep.end() ? it->second : initial);
  };
  if (primitive == kAny) {
    summary_->setText(tr("any schedule call, using block, loop, l0, l1, ... of the selection"));
    auto* edit = new QLineEdit;
    edit->setPlaceholderText(tr("sch.<primitive>(...) using block, loop, l0, l1, ..."));
    edit->setToolTip(tr("A schedule call in TVM's syntax; the selection's block is `block`, its "
                        "loops l0, l1, ... and the selected loop `loop`"));
    edit->setText(keep_text("call", ""));
    // Queued: applying rebuilds the form, which deletes this very line edit.
    connect(edit, &QLineEdit::returnPressed, this, [this] { ApplyPanel(); },
            Qt::QueuedConnection);
    form_layout_->addRow(tr("call"), edit);
    fields_.push_back({"call", edit});
    return;
  }
  const SchedulePrimitive* prim = workbench::FindSchedulePrimitive(primitive.toStdString());
  if (!prim) {
    summary_->clear();
    return;
  }
  summary_->setText(Q(prim->summary));
  int node = SelectedNode();
  for (const ScheduleParam& param : prim->params) {
    std::vector<ScheduleChoice> choices = workbench::ParamChoices(*prim, param, nodes_, node);
    std::string initial = workbench::InitialValue(param, choices);
    QString tip = Q(param.doc) +
                  (param.dflt.empty() ? tr(" (required)") : tr(" (default %1)").arg(Q(param.dflt)));
    QWidget* widget = nullptr;
    if (param.kind == RecipeParamKind::kBool) {
      auto* box = new QCheckBox;
      box->setChecked(keep_text(param.name, initial) == "True");
      widget = box;
    } else if (param.kind == RecipeParamKind::kInt) {
      auto* spin = new QSpinBox;
      spin->setRange(-(1 << 30), 1 << 30);
      spin->setValue(keep_text(param.name, initial.empty() ? "0" : initial).toInt());
      widget = spin;
    } else if (!choices.empty() && param.kind != RecipeParamKind::kBlockList) {
      auto* combo = new QComboBox;
      combo->setEditable(!ClosedChoices(param.kind));
      for (const ScheduleChoice& c : choices) combo->addItem(Q(c.label), Q(c.value));
      QString value = keep_text(param.name, initial);
      int at = combo->findData(value);
      if (at >= 0) {
        combo->setCurrentIndex(at);
      } else if (combo->isEditable()) {
        combo->setEditText(value);
      }
      widget = combo;
    } else {
      auto* edit = new QLineEdit;
      edit->setPlaceholderText(Q(workbench::ExampleValue(param)));
      edit->setText(keep_text(param.name, initial));
      if (!choices.empty()) {
        QStringList names;
        for (const ScheduleChoice& c : choices) names << Q(c.label);
        tip += tr("; one or more of: %1").arg(names.join(", "));
      }
      connect(edit, &QLineEdit::returnPressed, this, [this] { ApplyPanel(); },
              Qt::QueuedConnection);
      widget = edit;
    }
    widget->setToolTip(tip);
    widget->setObjectName(Q(param.name));
    form_layout_->addRow(Q(param.name), widget);
    fields_.push_back({param.name, widget});
  }
}

std::map<std::string, std::string> SchedulePane::FormValues() const {
  std::map<std::string, std::string> out;
  for (const Field& f : fields_) {
    std::string value;
    if (auto* box = qobject_cast<QCheckBox*>(f.widget)) {
      value = box->isChecked() ? "True" : "False";
    } else if (auto* spin = qobject_cast<QSpinBox*>(f.widget)) {
      value = std::to_string(spin->value());
    } else if (auto* combo = qobject_cast<QComboBox*>(f.widget)) {
      // An edited text that is no offered label is taken as written.
      int at = combo->findText(combo->currentText());
      value = (at >= 0 ? combo->itemData(at).toString() : combo->currentText()).toStdString();
    } else if (auto* edit = qobject_cast<QLineEdit*>(f.widget)) {
      value = edit->text().toStdString();
    }
    out[f.name] = value;
  }
  return out;
}

QWidget* SchedulePane::argumentField(const QString& name) const {
  for (const Field& f : fields_) {
    if (Q(f.name) == name) return f.widget;
  }
  return nullptr;
}

QStringList SchedulePane::argumentNames() const {
  QStringList out;
  for (const Field& f : fields_) out << Q(f.name);
  return out;
}

QLineEdit* SchedulePane::argumentsEdit() const {
  for (const Field& f : fields_) {
    if (auto* edit = qobject_cast<QLineEdit*>(f.widget)) return edit;
  }
  return spare_;
}

void SchedulePane::Choose(const QString& primitive,
                          const std::map<std::string, std::string>& prefill) {
  primitive_->setCurrentText(primitive);
  RebuildForm(false);
  if (fields_.empty()) {
    ApplyPanel();
    return;
  }
  for (const auto& [name, value] : prefill) {
    QWidget* w = argumentField(Q(name));
    if (auto* edit = qobject_cast<QLineEdit*>(w)) edit->setText(Q(value));
  }
  fields_.front().widget->setFocus();
  if (auto* edit = qobject_cast<QLineEdit*>(fields_.front().widget)) edit->selectAll();
}

int SchedulePane::SelectedNode() const {
  QTreeWidgetItem* item = tree_->currentItem();
  return item ? item->data(0, Qt::UserRole).toInt() : -1;
}

bool SchedulePane::SelectNode(const QString& name) {
  for (QTreeWidgetItemIterator it(tree_); *it; ++it) {
    if ((*it)->text(0) == name) {
      tree_->setCurrentItem(*it);
      return true;
    }
  }
  return false;
}

QMenu* SchedulePane::ContextMenu() {
  auto* menu = new QMenu(this);
  int node = SelectedNode();
  if (node < 0 || node >= static_cast<int>(nodes_.size())) return menu;
  const ScheduleTreeNode& n = nodes_[node];
  QString name = Q(n.name);
  bool loop = n.kind == ScheduleTreeNode::Kind::kLoop;
  // The next inner loop of the selected loop's nest: fuse and reorder start from the pair.
  QString inner;
  if (loop && n.address_block >= 0) {
    const std::vector<int>& nest = nodes_[n.address_block].loops;
    auto it = std::find(nest.begin(), nest.end(), node);
    if (it != nest.end() && it + 1 != nest.end()) inner = Q(nodes_[*(it + 1)].name);
  }
  if (!loop && !n.loops.empty()) {
    // A block's most common loop primitives act on its innermost loop, which becomes the
    // selection.
    QString innermost = Q(nodes_[n.loops.back()].name);
    auto on_inner = [=, this](const QString& primitive,
                        const std::map<std::string, std::string>& prefill) {
      SelectNode(innermost);
      Choose(primitive, prefill);
    };
    menu->addSection(tr("Innermost loop %1").arg(innermost));
    menu->addAction(tr("Split innermost loop %1...").arg(innermost), this,
                    [=] { on_inner("split", {{"factors", "None, 32"}}); });
    menu->addAction(tr("Vectorize innermost loop %1").arg(innermost), this,
                    [=] { on_inner("vectorize", {}); });
    menu->addAction(tr("Unroll innermost loop %1").arg(innermost), this,
                    [=] { on_inner("unroll", {}); });
  }
  std::string group;
  for (const SchedulePrimitive* p : workbench::PrimitivesFor(nodes_, node)) {
    if (p->group != group) {
      group = p->group;
      QString title = Q(group);
      if (!title.isEmpty() && group != "GPU") title[0] = title[0].toUpper();
      menu->addSection(title);
    }
    QString primitive = Q(p->name);
    std::map<std::string, std::string> prefill;
    QString label = Title(p->name) + (p->params.empty() ? QString() : QStringLiteral("..."));
    if (p->name == "split") {
      label = tr("Split %1...").arg(name);
      prefill["factors"] = "None, 32";
    } else if (p->name == "fuse" && !inner.isEmpty()) {
      label = tr("Fuse %1 with %2").arg(name, inner);
      prefill["loops"] = (name + ", " + inner).toStdString();
    } else if (p->name == "reorder" && !inner.isEmpty()) {
      label = tr("Reorder %1 and %2...").arg(name, inner);
      prefill["loops"] = (inner + ", " + name).toStdString();
    } else if (p->name == "bind") {
      label = tr("Bind to a thread axis...");
    }
    QAction* action = menu->addAction(label, this, [=, this] { Choose(primitive, prefill); });
    action->setToolTip(Q(p->summary));
  }
  menu->addSeparator();
  menu->addAction(loop ? tr("Any primitive...") : tr("Any primitive on block %1...").arg(name),
                  this, [=, this] {
                    Choose(kAny, {{"call", loop ? "sch.unroll(loop=loop)"
                                               : "sch.compute_inline(block=block)"}});
                  });
  menu->setToolTipsVisible(true);
  return menu;
}

bool SchedulePane::ApplyPanel() {
  int node = SelectedNode();
  std::string func = session_.func_name();
  QString primitive = primitive_->currentText();
  std::map<std::string, std::string> values = FormValues();
  std::string error;
  std::optional<std::string> step;
  if (primitive == kAny) {
    step = workbench::CustomStep(nodes_, node, values["call"], func, &error);
  } else if (const SchedulePrimitive* prim =
                 workbench::FindSchedulePrimitive(primitive.toStdString())) {
    step = workbench::ComposeStep(*prim, nodes_, node, values, func, &error);
  } else {
    error = "no schedule primitive named '" + primitive.toStdString() + "'";
  }
  if (!step) {
    ShowError(QString::fromStdString(error));
    return false;
  }
  return ApplyStep(QString::fromStdString(*step));
}

bool SchedulePane::ApplyStep(const QString& text) {
  DiagnosticList diags = session_.Apply(text.toStdString());
  if (diags.HasErrors()) {
    ShowError(FirstMessage(diags));
    return false;
  }
  Refresh();
  return true;
}

bool SchedulePane::LoadRecipeFile(const QString& path) {
  DiagnosticList diags = session_.LoadRecipeFile(path.toStdString());
  if (diags.HasErrors()) {
    ShowError(FirstMessage(diags));
    return false;
  }
  Refresh();
  return true;
}

bool SchedulePane::LoadRecipeText(const QString& text) {
  DiagnosticList diags = session_.LoadRecipe(text.toStdString());
  if (diags.HasErrors()) {
    ShowError(FirstMessage(diags));
    return false;
  }
  Refresh();
  return true;
}

bool SchedulePane::LoadDefaultSchedule() {
  DiagnosticList diags = session_.LoadDefaultSchedule(codegen::Target::Host());
  if (diags.HasErrors()) {
    ShowError(FirstMessage(diags));
    return false;
  }
  Refresh();
  return true;
}

bool SchedulePane::SaveRecipeFile(const QString& path) {
  DiagnosticList diags = session_.SaveRecipeFile(path.toStdString());
  if (diags.HasErrors()) {
    ShowError(FirstMessage(diags));
    return false;
  }
  message_->setText(tr("saved %1").arg(path));
  return true;
}

}  // namespace wb::app
