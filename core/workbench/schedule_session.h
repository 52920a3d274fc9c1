// The interactive schedule of one PrimFunc: a list of recipe steps (TVM trace syntax, e.g.
// `l4, l5 = sch.split(loop=l1, factors=[None, 32])`) with undo/redo, replayed through
// schedule::ApplyRecipe onto the unscheduled module. The GUI's schedule pane and the LSP's
// schedule code actions both build steps here, so every primitive the recipe reader knows works
// in both without any UI code of its own.
//
// Why replay instead of keeping a live Schedule: a step's text is the only state, so undo is
// dropping a step, load/save is text, and a step may use names an earlier step bound.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/target.h"
#include "ir/expr.h"
#include "support/diagnostic.h"

namespace wb::workbench {

// One loop or block of the scheduled PrimFunc, as the schedule tree shows it. Nodes come in
// pre-order; `parent` indexes the same list.
struct ScheduleTreeNode {
  enum class Kind { kLoop, kBlock } kind = Kind::kLoop;
  int parent = -1;
  int depth = 0;
  std::string name;  // the loop variable, or the block's name
  Span span;         // where the parsed text had it (undefined for nodes a step created)

  // Loops.
  std::string min;     // "0"
  std::string extent;  // "256", or the expression for a symbolic extent
  std::optional<int64_t> extent_value;
  std::string kind_name;  // "serial", "parallel", "vectorized", "unrolled", "thread_binding"
  std::string thread;     // the thread tag of a bound loop
  // The block whose `sch.get_loops` returns this loop (-1: no block below it, so no recipe can
  // name it), and the loop's position in that list.
  int address_block = -1;
  int loop_index = -1;

  // Blocks: "vi: spatial [0, 256) = i" per iteration variable.
  std::vector<std::string> iter_vars;
  // Blocks: whether an iteration variable is a reduction (rfactor, decompose_reduction apply).
  bool reduction = false;
  // Tree indices of the loops `sch.get_loops(block)` returns, outer to inner.
  std::vector<int> loops;
  // The names of the buffers the block reads and writes, in T.reads/T.writes order (what a
  // read_buffer_index / write_buffer_index counts).
  std::vector<std::string> reads;
  std::vector<std::string> writes;

  // The registered tensor intrinsics tensorize(this loop or block) matches.
  std::vector<std::string> tensor_intrins;
};

// One applied step with the module before and after it.
struct ScheduleStep {
  std::string text;
  ir::IRModule before;
  ir::IRModule after;

  // The step's primitive statement: its last line (a step built from the tree starts with the
  // lookup lines), trimmed; what the step list and the check reports name it by.
  std::string Title() const;
};

class ScheduleSession {
 public:
  // Starts over on `module`, scheduling the PrimFunc `func_name` (empty: "main", else the only
  // PrimFunc, as TVM chooses). Fails (and holds nothing) when there is no such PrimFunc.
  DiagnosticList Reset(ir::IRModule module, std::string func_name = "");
  bool active() const { return original_.defined() && !func_name_.empty(); }

  // Starts over on an edited `module`: keeps the function selected (else "main", else the first
  // PrimFunc) and, with `keep_steps`, every function's steps where they still apply. Errors say
  // why there is nothing to schedule; a function whose steps no longer apply loses them with a
  // warning naming it.
  DiagnosticList Reload(ir::IRModule module, bool keep_steps = true);

  // Goes on scheduling another PrimFunc of the same module, keeping every function's steps: the
  // steps of the function left (and its redo list) come back when it is selected again, and the
  // module holds every function as scheduled so far. The steps of the function selected are
  // replayed on the module as the others leave it. Fails (changing nothing) when there is no
  // such PrimFunc or its kept steps no longer apply.
  DiagnosticList SelectFunction(const std::string& func_name);
  // The functions (other than the current one) that have steps, in module order.
  std::vector<std::string> FunctionsWithSteps() const;
  // Their recipes (what a workspace saves beside the current function's).
  std::map<std::string, std::string> OtherRecipes() const;

  const ir::IRModule& original() const { return original_; }
  // The module after the last step (the original, with the other functions' steps, when there
  // is none).
  const ir::IRModule& module() const;
  const std::string& func_name() const { return func_name_; }
  // Every PrimFunc of the original module, in order.
  std::vector<std::string> PrimFuncNames() const;

  // Appends a step (one or more recipe statements). A step that does not parse or whose
  // primitive does not apply changes nothing and comes back as an error, its span in `text`.
  // Clears the redo list on success.
  DiagnosticList Apply(const std::string& text);
  bool CanUndo() const { return !steps_.empty(); }
  bool CanRedo() const { return !redo_.empty(); }
  bool Undo();
  bool Redo();
  const std::vector<ScheduleStep>& steps() const { return steps_; }

  // The steps as one recipe (what is saved), and the trace the schedule recorded when the
  // recipe was replayed, printed as TVM prints it.
  std::string RecipeText() const;
  const std::string& TraceText() const { return trace_; }
  // Canonical TVMScript of the scheduled PrimFunc (as a standalone function).
  std::string FuncText() const;
  std::string FuncText(const ir::IRModule& module) const;

  // Replaces every step by the statements of `text` (one step per statement). On any error
  // nothing changes.
  DiagnosticList LoadRecipe(std::string_view text, const std::string& path = "<recipe>");
  DiagnosticList LoadRecipeFile(const std::string& path);
  // Replaces every step by the default schedule core/dlight chooses for the function on
  // `target` (one step per statement, editable like any other). An error when the function
  // already carries a schedule or no rule schedules anything.
  DiagnosticList LoadDefaultSchedule(const codegen::Target& target);
  DiagnosticList SaveRecipeFile(const std::string& path) const;

  // The loops and blocks of the scheduled PrimFunc.
  std::vector<ScheduleTreeNode> Tree() const;

 private:
  // Replays `recipe` onto the original module. On success fills `module` and `trace`.
  DiagnosticList Replay(const std::string& recipe, const std::string& path, ir::IRModule* module,
                        std::string* trace) const;

  // Rebuilds steps of these texts on base_ (with the trace of them all).
  DiagnosticList BuildSteps(const std::vector<std::string>& texts, const std::string& path,
                            std::vector<ScheduleStep>* steps, std::string* trace) const;

  // The steps of a function not selected now.
  struct KeptSchedule {
    std::vector<std::string> steps;
    std::vector<ScheduleStep> redo;
  };

  ir::IRModule original_;
  // original_ with every other function as its kept steps left it: what steps replay onto.
  ir::IRModule base_;
  std::map<std::string, KeptSchedule> kept_;
  std::string func_name_;
  std::vector<ScheduleStep> steps_;
  std::vector<ScheduleStep> redo_;
  std::string trace_;
};

// --- Steps built from the tree ----------------------------------------------------------------
// Each returns a self-contained step: it looks the block up by name (`block`), unpacks its loops
// (`l0`, `l1`, ..., the selected one named `loop`), then calls the primitive. An empty optional
// comes back, with the reason in `error`, when the selection cannot be addressed.

// A Python string literal of `s`, as recipe lines quote block and function names.
std::string Quote(const std::string& s);
// The lookup lines for a node (a loop or a block) of `tree`: binds `block`, `l<i>` and `loop`.
std::optional<std::string> LookupLines(const std::vector<ScheduleTreeNode>& tree, int node,
                                       const std::string& func_name, std::string* error);
// `sch.split(loop=loop, factors=[...])`; nullopt entries print as None (inferred).
std::optional<std::string> SplitStep(const std::vector<ScheduleTreeNode>& tree, int loop,
                                     const std::vector<std::optional<int64_t>>& factors,
                                     const std::string& func_name, std::string* error);
// A one-loop primitive without other arguments: parallel, vectorize, unroll.
std::optional<std::string> LoopKindStep(const std::vector<ScheduleTreeNode>& tree, int loop,
                                        const std::string& primitive, const std::string& func_name,
                                        std::string* error);
// `sch.fuse(...)` / `sch.reorder(...)` over loops (tree indices, in the order given) that one
// block's get_loops returns.
std::optional<std::string> MultiLoopStep(const std::vector<ScheduleTreeNode>& tree,
                                         const std::vector<int>& loops, const std::string& primitive,
                                         const std::string& func_name, std::string* error);
// The lookup lines for `node` followed by `call`, a statement the user wrote against those names
// (`sch.unroll(loop=loop)`, `sch.compute_at(block=block, loop=l0)`).
std::optional<std::string> CustomStep(const std::vector<ScheduleTreeNode>& tree, int node,
                                      const std::string& call, const std::string& func_name,
                                      std::string* error);
// Parses "None, 32" / "[4, -1, 8]" into split factors; nullopt with `error` on bad text.
std::optional<std::vector<std::optional<int64_t>>> ParseFactors(std::string_view text,
                                                                std::string* error);

}  // namespace wb::workbench
