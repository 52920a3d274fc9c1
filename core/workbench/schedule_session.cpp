#include "workbench/schedule_session.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "dlight/cpu/rules.h"
#include "lang/analysis_describe.h"
#include "schedule/recipe.h"
#include "schedule/primitive/tensorize.h"
#include "script/tvmscript.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace wb::workbench {

std::string ScheduleStep::Title() const {
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return {};
  size_t start = text.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  start = text.find_first_not_of(" \t", start);
  return text.substr(start, end + 1 - start);
}

namespace {

// Re-anchors a diagnostic found in the joined recipe onto the step's own text, so that its span
// points into what the user wrote rather than into earlier steps.
DiagnosticList Rebase(const DiagnosticList& diags, const std::string& step, uint32_t step_begin,
                      const std::string& path) {
  auto file = std::make_shared<SourceFile>(path, step);
  DiagnosticList out;
  for (const Diagnostic& d : diags) {
    Diagnostic copy = d;
    if (d.span.defined() && d.span.begin >= step_begin) {
      uint32_t size = static_cast<uint32_t>(step.size());
      copy.span = Span(file, std::min(d.span.begin - step_begin, size),
                       std::min(d.span.end - step_begin, size));
    }
    out.Add(std::move(copy));
  }
  return out;
}

std::string Join(const std::vector<ScheduleStep>& steps, size_t count) {
  std::string out;
  for (size_t i = 0; i < count && i < steps.size(); ++i) {
    out += steps[i].text;
    if (out.empty() || out.back() != '\n') out += '\n';
  }
  return out;
}

std::vector<std::string> StepTexts(const std::vector<ScheduleStep>& steps) {
  std::vector<std::string> out;
  for (const ScheduleStep& step : steps) out.push_back(step.text);
  return out;
}

// The statements of a recipe: a newline outside brackets and strings ends one; blank and
// comment-only lines are dropped.
std::vector<std::string> SplitStatements(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  char quote = 0;
  bool in_comment = false;
  auto flush = [&] {
    size_t b = current.find_first_not_of(" \t\r\n");
    if (b != std::string::npos) {
      size_t e = current.find_last_not_of(" \t\r\n");
      out.push_back(current.substr(b, e - b + 1));
    }
    current.clear();
  };
  for (char c : text) {
    if (in_comment) {
      if (c != '\n') continue;
      in_comment = false;
    }
    if (quote) {
      current += c;
      if (c == quote || c == '\n') quote = 0;
      continue;
    }
    if (c == '#') {
      in_comment = true;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth > 0) --depth;
    if (c == '\n' && depth == 0) {
      flush();
      continue;
    }
    current += c;
  }
  flush();
  return out;
}

// Iteration kinds as TVMScript spells them (T.axis.spatial, T.axis.reduce).
std::string IterKind(tir::IterVarType type) {
  switch (type) {
    case tir::IterVarType::kDataPar:
      return "spatial";
    case tir::IterVarType::kCommReduce:
      return "reduce";
    default: {
      std::string name = tir::IterVarTypeName(type);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return name;
    }
  }
}

class TreeBuilder : public tir::StmtVisitor {
 public:
  std::vector<ScheduleTreeNode> nodes;

  void Build(const tir::PrimFunc& func) {
    func_ = func;
    frames_.push_back({});
    VisitStmt(func->body);
  }

 protected:
  void VisitStmt_(const tir::ForNode* op) override {
    ScheduleTreeNode n;
    n.kind = ScheduleTreeNode::Kind::kLoop;
    n.name = op->loop_var->name_hint;
    n.span = op->span;
    n.min = lang::ExprText(op->min);
    n.extent = lang::ExprText(op->extent);
    if (auto imm = op->extent.as<tir::IntImmNode>()) n.extent_value = imm->value;
    n.kind_name = tir::ForKindName(op->kind);
    if (op->thread_binding.defined()) n.thread = op->thread_binding->thread_tag;
    n.tensor_intrins = schedule::MatchingTensorIntrins(func_, ir::GetRef(op));
    int index = Push(std::move(n));
    frames_.back().push_back(index);
    parents_.push_back(index);
    VisitStmt(op->body);
    parents_.pop_back();
    frames_.back().pop_back();
  }

  void VisitStmt_(const tir::SBlockRealizeNode* op) override {
    realize_ = op;
    VisitStmt(op->block);
  }

  void VisitStmt_(const tir::SBlockNode* op) override {
    ScheduleTreeNode n;
    n.kind = ScheduleTreeNode::Kind::kBlock;
    n.name = op->name_hint;
    n.span = op->span;
    const tir::SBlockRealizeNode* realize = realize_;
    realize_ = nullptr;
    for (size_t i = 0; i < op->iter_vars.size(); ++i) {
      const tir::IterVar& iv = op->iter_vars[i];
      n.reduction = n.reduction || iv->iter_type == tir::IterVarType::kCommReduce;
      std::string text = iv->var->name_hint + ": " + IterKind(iv->iter_type) + " [" +
                         lang::ExprText(iv->dom->min) + ", " +
                         lang::ExprText(tir::add(iv->dom->min, iv->dom->extent)) + ")";
      if (realize && i < realize->iter_values.size()) {
        text += " = " + lang::ExprText(realize->iter_values[i]);
      }
      n.iter_vars.push_back(std::move(text));
    }
    n.loops = frames_.back();
    for (const tir::BufferRegion& r : op->reads) n.reads.push_back(r->buffer->name);
    for (const tir::BufferRegion& r : op->writes) n.writes.push_back(r->buffer->name);
    if (realize) n.tensor_intrins = schedule::MatchingTensorIntrins(func_, ir::GetRef(op));
    int index = Push(std::move(n));
    // The loops since the enclosing block are what get_loops(block) returns; the first block
    // below a loop is how recipes reach it.
    for (size_t k = 0; k < frames_.back().size(); ++k) {
      ScheduleTreeNode& loop = nodes[frames_.back()[k]];
      if (loop.address_block < 0) {
        loop.address_block = index;
        loop.loop_index = static_cast<int>(k);
      }
    }
    frames_.push_back({});
    parents_.push_back(index);
    tir::StmtVisitor::VisitStmt_(op);
    parents_.pop_back();
    frames_.pop_back();
  }

 private:
  int Push(ScheduleTreeNode n) {
    n.parent = parents_.empty() ? -1 : parents_.back();
    n.depth = static_cast<int>(parents_.size());
    nodes.push_back(std::move(n));
    return static_cast<int>(nodes.size()) - 1;
  }

  tir::PrimFunc func_;
  std::vector<std::vector<int>> frames_;  // loops since the innermost enclosing block
  std::vector<int> parents_;
  const tir::SBlockRealizeNode* realize_ = nullptr;
};

// The block a node is reached through and, for a loop, its position in that block's loops.
bool Address(const std::vector<ScheduleTreeNode>& tree, int node, int* block, int* loop_index,
             std::string* error) {
  if (node < 0 || node >= static_cast<int>(tree.size())) {
    *error = "nothing is selected in the schedule tree";
    return false;
  }
  const ScheduleTreeNode& n = tree[node];
  if (n.kind == ScheduleTreeNode::Kind::kBlock) {
    *block = node;
    *loop_index = -1;
    return true;
  }
  if (n.address_block < 0) {
    *error = "loop '" + n.name + "' encloses no block, so no schedule primitive can reach it";
    return false;
  }
  *block = n.address_block;
  *loop_index = n.loop_index;
  return true;
}

std::string Lookup(const std::vector<ScheduleTreeNode>& tree, int block, int selected,
                   const std::string& func_name) {
  const ScheduleTreeNode& b = tree[block];
  std::string out = "block = sch.get_sblock(name=" + Quote(b.name) +
                    (func_name.empty() ? "" : ", func_name=" + Quote(func_name)) + ")\n";
  if (!b.loops.empty()) {
    for (size_t i = 0; i < b.loops.size(); ++i) {
      if (i) out += ", ";
      out += static_cast<int>(i) == selected ? "loop" : "l" + std::to_string(i);
    }
    if (b.loops.size() == 1) out += ",";
    out += " = sch.get_loops(block=block)\n";
  }
  return out;
}

}  // namespace

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

DiagnosticList ScheduleSession::Reset(ir::IRModule module, std::string func_name) {
  DiagnosticList diags;
  original_ = ir::IRModule();
  base_ = ir::IRModule();
  kept_.clear();
  func_name_.clear();
  steps_.clear();
  redo_.clear();
  trace_.clear();
  if (!module.defined()) {
    diags.Error("there is no module to schedule: the document does not parse");
    return diags;
  }
  std::vector<std::string> prim_funcs;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    if (module->functions[i].as<tir::PrimFuncNode>()) {
      prim_funcs.push_back(module->global_vars[i]->name_hint);
    }
  }
  if (func_name.empty()) {
    for (const std::string& f : prim_funcs) {
      if (f == "main") func_name = f;
    }
    if (func_name.empty() && prim_funcs.size() == 1) func_name = prim_funcs[0];
    if (func_name.empty()) {
      diags.Error(prim_funcs.empty() ? "the module has no PrimFunc to schedule"
                                     : "the module has several PrimFuncs and none is named "
                                       "\"main\": choose the one to schedule");
      return diags;
    }
  } else if (std::find(prim_funcs.begin(), prim_funcs.end(), func_name) == prim_funcs.end()) {
    diags.Error("the module has no PrimFunc named \"" + func_name + "\"");
    return diags;
  }
  original_ = std::move(module);
  base_ = original_;
  func_name_ = std::move(func_name);
  return diags;
}

DiagnosticList ScheduleSession::Reload(ir::IRModule module, bool keep_steps) {
  std::map<std::string, std::vector<std::string>> recipes;
  if (keep_steps) {
    for (const auto& [name, kept] : kept_) recipes[name] = kept.steps;
    if (!steps_.empty()) recipes[func_name_] = StepTexts(steps_);
  }
  std::string selected = func_name_;
  DiagnosticList diags = Reset(module, selected);
  if (diags.HasErrors() && !selected.empty()) diags = Reset(module);  // the function is gone
  if (diags.HasErrors() && module.defined()) {
    // No "main" among several PrimFuncs: start on the first.
    for (size_t i = 0; i < module->functions.size(); ++i) {
      if (module->functions[i].as<tir::PrimFuncNode>()) {
        diags = Reset(module, module->global_vars[i]->name_hint);
        break;
      }
    }
  }
  if (diags.HasErrors()) return diags;
  selected = func_name_;
  auto dropped = [&](const std::string& name, const DiagnosticList& why) {
    std::string first = why.empty() ? std::string("it failed") : why[0].message;
    diags.Add(Diagnostic::Warning("the schedule of '" + name + "' no longer applies to the edited module and was dropped: " + first));
  };
  // The other functions first, each onto the module as the ones before left it.
  for (const std::string& name : PrimFuncNames()) {
    auto it = recipes.find(name);
    if (name == selected || it == recipes.end()) continue;
    func_name_ = name;
    std::vector<ScheduleStep> steps;
    std::string trace;
    DiagnosticList replay = BuildSteps(it->second, "<recipe of " + name + ">", &steps, &trace);
    if (replay.HasErrors()) {
      dropped(name, replay);
      continue;
    }
    if (!steps.empty()) base_ = steps.back().after;
    kept_[name] = {it->second, {}};
  }
  func_name_ = selected;
  if (auto it = recipes.find(selected); it != recipes.end()) {
    std::vector<ScheduleStep> steps;
    std::string trace;
    DiagnosticList replay = BuildSteps(it->second, "<recipe of " + selected + ">", &steps, &trace);
    if (replay.HasErrors()) {
      dropped(selected, replay);
    } else {
      steps_ = std::move(steps);
      trace_ = steps_.empty() ? std::string() : trace;
    }
  }
  return diags;
}

DiagnosticList ScheduleSession::SelectFunction(const std::string& func_name) {
  DiagnosticList diags;
  if (!original_.defined()) {
    diags.Error("there is no module to schedule: the document does not parse");
    return diags;
  }
  if (func_name == func_name_) return diags;
  std::vector<std::string> names = PrimFuncNames();
  if (std::find(names.begin(), names.end(), func_name) == names.end()) {
    diags.Error("the module has no PrimFunc named \"" + func_name + "\"");
    return diags;
  }
  // The module as every function's steps leave it becomes the base of the one selected; its
  // own kept steps replay onto that (the others' schedules do not change what they name).
  ir::IRModule base = module();
  std::vector<std::string> recipe;
  std::vector<ScheduleStep> redo;
  if (auto it = kept_.find(func_name); it != kept_.end()) {
    recipe = it->second.steps;
    redo = it->second.redo;
  }
  // The function selected starts from its unscheduled self, its kept steps replayed on it.
  base = ir::WithFunction(base, base->GetGlobalVar(func_name), original_->Lookup(func_name));
  std::swap(base_, base);
  std::string previous = func_name_;
  func_name_ = func_name;
  std::vector<ScheduleStep> steps;
  std::string trace;
  diags = BuildSteps(recipe, "<recipe of " + func_name + ">", &steps, &trace);
  if (diags.HasErrors()) {
    std::swap(base_, base);
    func_name_ = previous;
    return diags;
  }
  if (!steps_.empty() || !redo_.empty()) {
    kept_[previous] = {StepTexts(steps_), std::move(redo_)};
  } else {
    kept_.erase(previous);
  }
  kept_.erase(func_name);
  steps_ = std::move(steps);
  redo_ = std::move(redo);
  trace_ = steps_.empty() ? std::string() : trace;
  return diags;
}

std::vector<std::string> ScheduleSession::FunctionsWithSteps() const {
  std::vector<std::string> out;
  for (const std::string& name : PrimFuncNames()) {
    auto it = kept_.find(name);
    if (name != func_name_ && it != kept_.end() && !it->second.steps.empty()) out.push_back(name);
  }
  return out;
}

std::map<std::string, std::string> ScheduleSession::OtherRecipes() const {
  std::map<std::string, std::string> out;
  for (const std::string& name : FunctionsWithSteps()) {
    std::string recipe;
    for (const std::string& text : kept_.at(name).steps) {
      recipe += text;
      if (recipe.back() != '\n') recipe += '\n';
    }
    out[name] = recipe;
  }
  return out;
}

const ir::IRModule& ScheduleSession::module() const {
  return steps_.empty() ? base_ : steps_.back().after;
}

std::vector<std::string> ScheduleSession::PrimFuncNames() const {
  std::vector<std::string> out;
  if (!original_.defined()) return out;
  for (size_t i = 0; i < original_->functions.size(); ++i) {
    if (original_->functions[i].as<tir::PrimFuncNode>()) {
      out.push_back(original_->global_vars[i]->name_hint);
    }
  }
  return out;
}

DiagnosticList ScheduleSession::Replay(const std::string& recipe, const std::string& path,
                                       ir::IRModule* module, std::string* trace) const {
  DiagnosticList diags;
  try {
    schedule::Schedule sch(base_);
    sch.WorkOn(func_name_);
    diags = schedule::ApplyRecipe(sch, recipe, path);
    if (diags.HasErrors()) return diags;
    *module = sch.mod();
    *trace = sch.trace().AsPython();
  } catch (const std::exception& e) {
    // A primitive failing outside its declared errors still must not take the session down.
    diags.Error(std::string("the schedule failed: ") + e.what());
  }
  return diags;
}

DiagnosticList ScheduleSession::Apply(const std::string& text) {
  DiagnosticList diags;
  if (!active()) {
    diags.Error("there is no PrimFunc to schedule");
    return diags;
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    diags.Error("the step is empty: write a schedule call such as sch.split(loop=loop, "
                "factors=[None, 32])");
    return diags;
  }
  std::string prefix = Join(steps_, steps_.size());
  ir::IRModule after;
  std::string trace;
  diags = Replay(prefix + text, "<recipe>", &after, &trace);
  if (diags.HasErrors()) return Rebase(diags, text, static_cast<uint32_t>(prefix.size()), "<step>");
  steps_.push_back({text, module(), after});
  redo_.clear();
  trace_ = std::move(trace);
  return diags;
}

bool ScheduleSession::Undo() {
  if (steps_.empty()) return false;
  redo_.push_back(std::move(steps_.back()));
  steps_.pop_back();
  // The trace is that of the remaining recipe; replaying it again cannot fail, it did before.
  ir::IRModule mod;
  std::string trace;
  if (Replay(Join(steps_, steps_.size()), "<recipe>", &mod, &trace).HasErrors()) trace.clear();
  trace_ = steps_.empty() ? std::string() : trace;
  return true;
}

bool ScheduleSession::Redo() {
  if (redo_.empty()) return false;
  ScheduleStep step = std::move(redo_.back());
  redo_.pop_back();
  std::vector<ScheduleStep> keep = std::move(redo_);
  bool ok = !Apply(step.text).HasErrors();
  redo_ = std::move(keep);
  return ok;
}

std::string ScheduleSession::RecipeText() const { return Join(steps_, steps_.size()); }

std::string ScheduleSession::FuncText() const { return FuncText(module()); }

std::string ScheduleSession::FuncText(const ir::IRModule& module) const {
  if (!module.defined()) return {};
  ir::BaseFunc f = module->Lookup(func_name_);
  if (!f.defined() || !f.as<tir::PrimFuncNode>()) return {};
  try {
    return script::PrintPrimFunc(ir::Downcast<tir::PrimFuncNode>(f));
  } catch (const std::exception& e) {
    return std::string("# cannot print the function: ") + e.what() + "\n";
  }
}

DiagnosticList ScheduleSession::LoadRecipe(std::string_view text, const std::string& path) {
  DiagnosticList diags;
  if (!active()) {
    diags.Error("there is no PrimFunc to schedule");
    return diags;
  }
  // The whole recipe first, so that errors point into the file as written.
  ir::IRModule final_module;
  std::string trace;
  diags = Replay(std::string(text), path, &final_module, &trace);
  if (diags.HasErrors()) return diags;
  std::vector<ScheduleStep> steps;
  diags = BuildSteps(SplitStatements(text), path, &steps, &trace);
  if (diags.HasErrors()) return diags;
  steps_ = std::move(steps);
  redo_.clear();
  trace_ = steps_.empty() ? std::string() : trace;
  return diags;
}

DiagnosticList ScheduleSession::BuildSteps(const std::vector<std::string>& texts,
                                           const std::string& path,
                                           std::vector<ScheduleStep>* steps,
                                           std::string* trace) const {
  DiagnosticList diags;
  ir::IRModule before = base_;
  std::string joined;
  for (const std::string& text : texts) {
    joined += text;
    if (joined.empty() || joined.back() != '\n') joined += '\n';
    ir::IRModule after;
    diags = Replay(joined, path, &after, trace);
    if (diags.HasErrors()) return diags;
    steps->push_back({text, before, after});
    before = after;
  }
  return diags;
}

DiagnosticList ScheduleSession::LoadRecipeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    DiagnosticList diags;
    diags.Error("cannot read the recipe file " + path);
    return diags;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return LoadRecipe(buffer.str(), path);
}

DiagnosticList ScheduleSession::LoadDefaultSchedule(const codegen::Target& target) {
  DiagnosticList diags;
  if (!active()) {
    diags.Error("there is no PrimFunc to schedule");
    return diags;
  }
  auto func = ir::Downcast<tir::PrimFuncNode>(original_->Lookup(func_name_));
  if (dlight::IsScheduled(func)) {
    diags.Error("'" + func_name_ + "' already carries a schedule: the default schedule applies to unscheduled functions");
    return diags;
  }
  std::optional<dlight::AppliedRule> applied = dlight::ApplyRules(func, target, dlight::cpu::DefaultRules());
  if (!applied || applied->schedule.trace().instructions().empty()) {
    diags.Error("no default schedule rule schedules '" + func_name_ + "' for " + target.str());
    return diags;
  }
  return LoadRecipe(dlight::RecipeFor(*applied, func_name_), "<default schedule: " + applied->rule + ">");
}

DiagnosticList ScheduleSession::SaveRecipeFile(const std::string& path) const {
  DiagnosticList diags;
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    diags.Error("cannot write the recipe file " + path);
    return diags;
  }
  out << RecipeText();
  if (!out.good()) diags.Error("writing the recipe file " + path + " failed");
  return diags;
}

std::vector<ScheduleTreeNode> ScheduleSession::Tree() const {
  if (!active()) return {};
  ir::BaseFunc f = module()->Lookup(func_name_);
  auto* func = f.as<tir::PrimFuncNode>();
  if (!func) return {};
  TreeBuilder builder;
  builder.Build(ir::GetRef(func));
  return std::move(builder.nodes);
}

// --- Steps --------------------------------------------------------------------------------------

std::optional<std::string> LookupLines(const std::vector<ScheduleTreeNode>& tree, int node,
                                       const std::string& func_name, std::string* error) {
  int block = -1, index = -1;
  if (!Address(tree, node, &block, &index, error)) return std::nullopt;
  return Lookup(tree, block, index, func_name);
}

std::optional<std::string> SplitStep(const std::vector<ScheduleTreeNode>& tree, int loop,
                                     const std::vector<std::optional<int64_t>>& factors,
                                     const std::string& func_name, std::string* error) {
  if (loop < 0 || loop >= static_cast<int>(tree.size()) ||
      tree[loop].kind != ScheduleTreeNode::Kind::kLoop) {
    *error = "split needs a loop";
    return std::nullopt;
  }
  if (factors.size() < 2) {
    *error = "split needs at least two factors, e.g. None, 32";
    return std::nullopt;
  }
  auto lookup = LookupLines(tree, loop, func_name, error);
  if (!lookup) return std::nullopt;
  std::string lhs, list;
  for (size_t i = 0; i < factors.size(); ++i) {
    lhs += (i ? ", " : "") + tree[loop].name + "_" + std::to_string(i);
    list += (i ? ", " : "") + (factors[i] ? std::to_string(*factors[i]) : std::string("None"));
  }
  return *lookup + lhs + " = sch.split(loop=loop, factors=[" + list + "])\n";
}

std::optional<std::string> LoopKindStep(const std::vector<ScheduleTreeNode>& tree, int loop,
                                        const std::string& primitive, const std::string& func_name,
                                        std::string* error) {
  if (loop < 0 || loop >= static_cast<int>(tree.size()) ||
      tree[loop].kind != ScheduleTreeNode::Kind::kLoop) {
    *error = primitive + " needs a loop";
    return std::nullopt;
  }
  auto lookup = LookupLines(tree, loop, func_name, error);
  if (!lookup) return std::nullopt;
  return *lookup + "sch." + primitive + "(loop=loop)\n";
}

std::optional<std::string> MultiLoopStep(const std::vector<ScheduleTreeNode>& tree,
                                         const std::vector<int>& loops, const std::string& primitive,
                                         const std::string& func_name, std::string* error) {
  if (loops.size() < 2) {
    *error = primitive + " needs at least two loops";
    return std::nullopt;
  }
  // The deepest loop's block sees every loop above it up to the enclosing block.
  int deepest = -1;
  for (int l : loops) {
    if (l < 0 || l >= static_cast<int>(tree.size()) ||
        tree[l].kind != ScheduleTreeNode::Kind::kLoop) {
      *error = primitive + " takes loops only";
      return std::nullopt;
    }
    if (deepest < 0 || tree[l].depth > tree[deepest].depth) deepest = l;
  }
  int block = -1, index = -1;
  if (!Address(tree, deepest, &block, &index, error)) return std::nullopt;
  const std::vector<int>& block_loops = tree[block].loops;
  std::vector<std::string> names;
  for (int l : loops) {
    auto it = std::find(block_loops.begin(), block_loops.end(), l);
    if (it == block_loops.end()) {
      *error = "loops '" + tree[l].name + "' and '" + tree[deepest].name +
               "' are not in one loop nest of block '" + tree[block].name + "'";
      return std::nullopt;
    }
    names.push_back("l" + std::to_string(it - block_loops.begin()));
  }
  std::string out = Lookup(tree, block, -1, func_name);
  std::string args;
  for (size_t i = 0; i < names.size(); ++i) args += (i ? ", " : "") + names[i];
  if (primitive == "fuse") return out + "fused = sch.fuse(" + args + ")\n";
  return out + "sch." + primitive + "(" + args + ")\n";
}

std::optional<std::string> CustomStep(const std::vector<ScheduleTreeNode>& tree, int node,
                                      const std::string& call, const std::string& func_name,
                                      std::string* error) {
  if (call.find_first_not_of(" \t\r\n") == std::string::npos) {
    *error = "write a schedule call, e.g. sch.unroll(loop=loop)";
    return std::nullopt;
  }
  auto lookup = LookupLines(tree, node, func_name, error);
  if (!lookup) return std::nullopt;
  std::string out = *lookup + call;
  if (out.back() != '\n') out += '\n';
  return out;
}

std::optional<std::vector<std::optional<int64_t>>> ParseFactors(std::string_view text,
                                                                std::string* error) {
  std::string s(text);
  for (char& c : s) {
    if (c == '[' || c == ']' || c == '(' || c == ')') c = ' ';
  }
  std::vector<std::optional<int64_t>> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t b = item.find_first_not_of(" \t");
    size_t e = item.find_last_not_of(" \t");
    std::string word = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    if (word == "None" || word == "-1") {
      out.push_back(std::nullopt);
      continue;
    }
    bool digits = !word.empty() && word.size() < 18;
    for (char c : word) digits &= std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (!digits || std::stoll(word) <= 0) {
      *error = "a split factor must be a positive integer or None, got '" + word + "'";
      return std::nullopt;
    }
    out.push_back(std::stoll(word));
  }
  if (out.size() < 2) {
    *error = "give at least two split factors, e.g. None, 32";
    return std::nullopt;
  }
  return out;
}

}  // namespace wb::workbench
