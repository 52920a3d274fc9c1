#include "schedule_pane.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>

#include "diff_view.h"
#include "tir/stmt.h"

namespace wb::app {

using workbench::ScheduleTreeNode;

namespace {

// The primitives of the argument panel, with what their argument line holds.
struct PanelPrimitive {
  const char* name;
  const char* hint;  // placeholder of the argument line
};
constexpr PanelPrimitive kPrimitives[] = {
    {"split", "factors, e.g. None, 32"},
    {"fuse", "loops of the selection's nest, outer to inner, e.g. i, j"},
    {"reorder", "loops of the selection's nest in the new order, e.g. k, i"},
    {"parallel", "(no arguments)"},
    {"vectorize", "(no arguments)"},
    {"unroll", "(no arguments)"},
    {"bind", "thread axis, e.g. threadIdx.x"},
    {"any", "sch.<primitive>(...) using block, loop, l0, l1, ..."},
};

QString Q(const std::string& s) { return QString::fromStdString(s); }

QString FirstMessage(const DiagnosticList& diags) {
  if (diags.empty()) return {};
  const Diagnostic& d = diags[0];
  QString where =
      d.span.defined() ? QStringLiteral("line %1: ").arg(d.span.start().line) : QString();
  return where + Q(d.message);
}

// The step's primitive line (its last statement), for the step list.
QString StepTitle(const std::string& text) {
  QStringList lines = Q(text).split('\n', Qt::SkipEmptyParts);
  return lines.isEmpty() ? QString() : lines.last().trimmed();
}

}  // namespace

SchedulePane::SchedulePane(QWidget* parent) : QWidget(parent) {
  func_ = new QComboBox;
  undo_ = new QPushButton(tr("Undo"));
  redo_ = new QPushButton(tr("Redo"));
  load_ = new QPushButton(tr("Load recipe..."));
  save_ = new QPushButton(tr("Save recipe..."));
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("PrimFunc:")));
  top->addWidget(func_, 1);
  top->addWidget(undo_);
  top->addWidget(redo_);
  top->addWidget(load_);
  top->addWidget(save_);

  tree_ = new QTreeWidget;
  tree_->setHeaderLabels({tr("Loop / block"), tr("Kind"), tr("Extent"), tr("Bindings")});
  tree_->setContextMenuPolicy(Qt::CustomContextMenu);
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);

  primitive_ = new QComboBox;
  for (const PanelPrimitive& p : kPrimitives) primitive_->addItem(QString::fromUtf8(p.name));
  args_ = new QLineEdit;
  apply_ = new QPushButton(tr("Apply"));
  auto* panel = new QHBoxLayout;
  panel->addWidget(new QLabel(tr("Primitive:")));
  panel->addWidget(primitive_);
  panel->addWidget(args_, 1);
  panel->addWidget(apply_);

  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  trace_ = MakeCodePane();
  trace_->setPlaceholderText(tr("The trace of the schedule, in TVM's syntax"));
  steps_ = new QListWidget;
  before_ = MakeCodePane();
  after_ = MakeCodePane();
  LinkScrolling(before_, after_);

  auto* left = new QSplitter(Qt::Vertical);
  left->addWidget(tree_);
  left->addWidget(steps_);
  left->addWidget(trace_);
  left->setStretchFactor(0, 3);
  auto* diff = new QSplitter(Qt::Horizontal);
  diff->addWidget(before_);
  diff->addWidget(after_);
  auto* body = new QSplitter(Qt::Horizontal);
  body->addWidget(left);
  body->addWidget(diff);
  body->setStretchFactor(1, 2);

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
  connect(primitive_, &QComboBox::currentTextChanged, this, [this] { UpdateArgumentHint(); });
  connect(apply_, &QPushButton::clicked, this, [this] { ApplyPanel(); });
  connect(args_, &QLineEdit::returnPressed, this, [this] { ApplyPanel(); });
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
  connect(steps_, &QListWidget::currentRowChanged, this, [this](int row) { ShowStep(row); });
  UpdateArgumentHint();
  Refresh();
}

void SchedulePane::SetModule(const ir::IRModule& module, bool keep_recipe) {
  std::string recipe = keep_recipe ? session_.RecipeText() : std::string();
  std::string func = session_.func_name();
  DiagnosticList diags = session_.Reset(module, func);
  if (diags.HasErrors() && !func.empty()) diags = session_.Reset(module);  // the function is gone
  if (diags.HasErrors() && module.defined()) {
    // No "main" among several PrimFuncs: start on the first; the function box offers the rest.
    for (size_t i = 0; i < module->functions.size(); ++i) {
      if (module->functions[i].as<tir::PrimFuncNode>()) {
        diags = session_.Reset(module, module->global_vars[i]->name_hint);
        break;
      }
    }
  }
  QString problem = FirstMessage(diags);
  if (!diags.HasErrors() && !recipe.empty()) {
    DiagnosticList replay = session_.LoadRecipe(recipe);
    if (replay.HasErrors()) {
      problem = tr("The schedule no longer applies to the edited module and was dropped: %1")
                    .arg(FirstMessage(replay));
    }
  }
  Refresh();
  if (!problem.isEmpty()) ShowError(problem);
}

void SchedulePane::SelectFunction(const QString& name) {
  if (!session_.original().defined()) return;
  DiagnosticList diags = session_.Reset(session_.original(), name.toStdString());
  Refresh();
  if (diags.HasErrors()) ShowError(FirstMessage(diags));
}

void SchedulePane::Refresh() {
  nodes_ = session_.Tree();
  {
    QSignalBlocker block(func_);
    func_->clear();
    for (const std::string& f : session_.PrimFuncNames()) func_->addItem(Q(f));
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
  trace_->setPlainText(Q(session_.TraceText()));
  steps_->clear();
  for (const auto& step : session_.steps()) steps_->addItem(StepTitle(step.text));
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
    ShowDiff(before_, after_, text, text);
  }
  Q_EMIT scheduleChanged();
}

void SchedulePane::ShowStep(int row) {
  if (row < 0 || row >= static_cast<int>(session_.steps().size())) return;
  const workbench::ScheduleStep& step = session_.steps()[row];
  ShowDiff(before_, after_, session_.FuncText(step.before), session_.FuncText(step.after));
}

void SchedulePane::ShowError(const QString& text) {
  message_->setText(text);
  message_->setStyleSheet(QStringLiteral("color: #c0392b"));
}

void SchedulePane::UpdateArgumentHint() {
  int index = primitive_->currentIndex();
  if (index < 0) return;
  args_->setPlaceholderText(tr(kPrimitives[index].hint));
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
  // Chooses a primitive in the panel with a suggested argument; those without arguments apply.
  auto choose = [this](const QString& primitive, const QString& args, bool apply_now) {
    primitive_->setCurrentText(primitive);
    args_->setText(args);
    if (apply_now) {
      ApplyPanel();
    } else {
      args_->setFocus();
      args_->selectAll();
    }
  };
  if (n.kind == ScheduleTreeNode::Kind::kLoop) {
    QString name = Q(n.name);
    menu->addAction(tr("Split %1...").arg(name), this, [=] { choose("split", "None, 32", false); });
    // Fuse and reorder start from the loop and the next inner loop of its nest.
    QString inner;
    if (n.address_block >= 0) {
      const std::vector<int>& nest = nodes_[n.address_block].loops;
      auto it = std::find(nest.begin(), nest.end(), node);
      if (it != nest.end() && it + 1 != nest.end()) inner = Q(nodes_[*(it + 1)].name);
    }
    if (!inner.isEmpty()) {
      menu->addAction(tr("Fuse %1 with %2").arg(name, inner), this,
                      [=] { choose("fuse", name + ", " + inner, false); });
      menu->addAction(tr("Reorder %1 and %2...").arg(name, inner), this,
                      [=] { choose("reorder", inner + ", " + name, false); });
    }
    menu->addSeparator();
    menu->addAction(tr("Parallel"), this, [=] { choose("parallel", "", true); });
    menu->addAction(tr("Vectorize"), this, [=] { choose("vectorize", "", true); });
    menu->addAction(tr("Unroll"), this, [=] { choose("unroll", "", true); });
    menu->addAction(tr("Bind to thread..."), this, [=] { choose("bind", "threadIdx.x", false); });
    menu->addSeparator();
    menu->addAction(tr("Any primitive..."), this,
                    [=] { choose("any", "sch.unroll(loop=loop)", false); });
  } else {
    // A block's loop primitives act on its innermost loop, which becomes the selection.
    if (!n.loops.empty()) {
      QString inner = Q(nodes_[n.loops.back()].name);
      auto on_inner = [=](const QString& primitive, const QString& args, bool apply_now) {
        SelectNode(inner);
        choose(primitive, args, apply_now);
      };
      menu->addAction(tr("Split innermost loop %1...").arg(inner), this,
                      [=] { on_inner("split", "None, 32", false); });
      menu->addAction(tr("Vectorize innermost loop %1").arg(inner), this,
                      [=] { on_inner("vectorize", "", true); });
      menu->addAction(tr("Unroll innermost loop %1").arg(inner), this,
                      [=] { on_inner("unroll", "", true); });
      menu->addSeparator();
    }
    menu->addAction(tr("Any primitive on block %1...").arg(Q(n.name)), this,
                    [=] { choose("any", "sch.compute_inline(block=block)", false); });
  }
  return menu;
}

std::optional<std::vector<int>> SchedulePane::LoopsNamed(const QString& text,
                                                         QString* error) const {
  int node = SelectedNode();
  int block = node >= 0 && nodes_[node].kind == ScheduleTreeNode::Kind::kBlock ? node
              : node >= 0 ? nodes_[node].address_block
                          : -1;
  if (block < 0) {
    *error = tr("select a loop (or block) of the nest first");
    return std::nullopt;
  }
  std::vector<int> out;
  for (const QString& raw : text.split(',', Qt::SkipEmptyParts)) {
    QString name = raw.trimmed();
    int found = -1;
    for (int l : nodes_[block].loops) {
      if (Q(nodes_[l].name) == name) found = l;
    }
    if (found < 0) {
      *error = tr("'%1' is not a loop around block '%2'").arg(name, Q(nodes_[block].name));
      return std::nullopt;
    }
    out.push_back(found);
  }
  return out;
}

bool SchedulePane::ApplyPanel() {
  int node = SelectedNode();
  std::string func = session_.func_name();
  std::string primitive = primitive_->currentText().toStdString();
  QString args = args_->text().trimmed();
  std::string error;
  std::optional<std::string> step;
  if (primitive == "split") {
    auto factors = workbench::ParseFactors(args.toStdString(), &error);
    if (factors) step = workbench::SplitStep(nodes_, node, *factors, func, &error);
  } else if (primitive == "fuse" || primitive == "reorder") {
    QString why;
    auto loops = LoopsNamed(args, &why);
    if (loops) {
      step = workbench::MultiLoopStep(nodes_, *loops, primitive, func, &error);
    } else {
      error = why.toStdString();
    }
  } else if (primitive == "parallel" || primitive == "vectorize" || primitive == "unroll") {
    step = workbench::LoopKindStep(nodes_, node, primitive, func, &error);
  } else if (primitive == "bind") {
    step = workbench::BindStep(nodes_, node, args.toStdString(), func, &error);
  } else {
    step = workbench::CustomStep(nodes_, node, args.toStdString(), func, &error);
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
