#include "workbench/code_actions.h"

#include <algorithm>

#include "transform/instrument.h"
#include "transform/registry.h"
#include "workbench/schedule_catalog.h"
#include "workbench/schedule_session.h"

namespace wb::workbench {

namespace {

// The module printed in the shape the document had (an `@I.ir_module` class or functions).
std::string PrintLike(const script::ParseResult& parsed, const ir::IRModule& module) {
  script::ParseResult shaped;
  shaped.module = module;
  shaped.is_module = parsed.is_module;
  return script::Print(shaped);
}

bool ParsesCleanly(const lang::Document& doc, RewriteResult* result) {
  const script::ParseResult& parsed = doc.Parsed();
  if (parsed.ok()) return true;
  result->error = "the document does not parse; fix its errors first";
  for (const Diagnostic& d : parsed.diagnostics) {
    if (d.severity == Severity::kError) {
      result->error += ": " + d.message;
      break;
    }
  }
  return false;
}

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string WordAt(const std::string& text, uint32_t offset) {
  uint32_t b = std::min<uint32_t>(offset, static_cast<uint32_t>(text.size()));
  uint32_t e = b;
  while (b > 0 && IsIdentChar(text[b - 1])) --b;
  while (e < text.size() && IsIdentChar(text[e])) ++e;
  return text.substr(b, e - b);
}

// A split factor that divides the extent (so no predicate is needed), else 32 with the outer
// factor inferred.
int64_t SplitFactor(const ScheduleTreeNode& loop) {
  if (!loop.extent_value) return 32;
  for (int64_t f : {32, 16, 8, 4, 2}) {
    if (f < *loop.extent_value && *loop.extent_value % f == 0) return f;
  }
  return 0;
}

}  // namespace

std::vector<PassChoice> PassChoices() {
  std::vector<PassChoice> out;
  for (const std::string& name : transform::PassRegistry::Global().Pipelines()) out.push_back({name, true});
  for (const transform::PassEntry* entry : transform::PassRegistry::Global().Passes()) {
    out.push_back({entry->name, false});
  }
  return out;
}

RewriteResult ApplyPipeline(const lang::Document& doc, const std::string& pipeline) {
  RewriteResult result;
  if (!ParsesCleanly(doc, &result)) return result;
  DiagnosticList diags;
  auto pass = transform::BuildPipeline(pipeline, diags);
  if (!pass) {
    result.error = diags.empty() ? "invalid pipeline '" + pipeline + "'" : diags[0].message;
    return result;
  }
  transform::PipelineResult run = transform::RunPipeline(*pass, doc.Parsed().module);
  if (!run.ok()) {
    result.error = run.diagnostics.empty() ? "the pipeline failed" : run.diagnostics[0].message;
    return result;
  }
  result.text = PrintLike(doc.Parsed(), run.module);
  return result;
}

RewriteResult ApplySchedule(const lang::Document& doc, const std::string& recipe,
                            const std::string& func_name) {
  RewriteResult result;
  if (!ParsesCleanly(doc, &result)) return result;
  ScheduleSession session;
  DiagnosticList diags = session.Reset(doc.Parsed().module, func_name);
  if (diags.empty()) diags = session.LoadRecipe(recipe, "<recipe>");
  if (diags.HasErrors()) {
    result.error = diags[0].message;
    if (diags[0].span.defined()) {
      result.error_line = diags[0].span.start().line;
      result.error_column = diags[0].span.start().column;
    }
    return result;
  }
  result.text = PrintLike(doc.Parsed(), session.module());
  result.trace = session.TraceText();
  return result;
}

std::vector<ScheduleAction> ComputeScheduleActions(const lang::Document& doc, lang::TextPosition position) {
  std::vector<ScheduleAction> out;
  const script::ParseResult& parsed = doc.Parsed();
  if (!parsed.ok()) return out;
  uint32_t offset = doc.OffsetOf(position);
  std::string word = WordAt(doc.text(), offset);
  ScheduleSession session;
  // The PrimFunc, and the node in it, under the cursor: the innermost node whose span holds it,
  // unless the cursor is on the name of an enclosing loop (`for i, j, k in T.grid`).
  std::vector<ScheduleTreeNode> tree;
  int target = -1;
  for (size_t i = 0; i < parsed.module->functions.size() && target < 0; ++i) {
    if (!parsed.module->functions[i].as<tir::PrimFuncNode>()) continue;
    if (session.Reset(parsed.module, parsed.module->global_vars[i]->name_hint).HasErrors()) continue;
    tree = session.Tree();
    for (size_t n = 0; n < tree.size(); ++n) {
      const Span& span = tree[n].span;
      if (!span.defined() || offset < span.begin || offset > span.end) continue;
      bool named = tree[n].kind == ScheduleTreeNode::Kind::kLoop && tree[n].name == word;
      if (target < 0 || named || (tree[n].depth > tree[target].depth &&
                                  !(tree[target].kind == ScheduleTreeNode::Kind::kLoop &&
                                    tree[target].name == word))) {
        target = static_cast<int>(n);
      }
    }
  }
  if (target < 0) return out;
  int loop = target;
  if (tree[target].kind == ScheduleTreeNode::Kind::kBlock) {
    if (tree[target].loops.empty()) return out;
    loop = tree[target].loops.back();
  }
  const std::string& func = session.func_name();
  const std::string& name = tree[loop].name;
  std::vector<std::pair<std::string, std::optional<std::string>>> candidates;
  std::string error;
  if (int64_t f = SplitFactor(tree[loop])) {
    candidates.push_back({"Split loop " + name + " by " + std::to_string(f),
                          SplitStep(tree, loop, {std::nullopt, f}, func, &error)});
  }
  // The next inner loop of the same nest, for fuse and reorder.
  int address = tree[loop].address_block;
  if (address >= 0) {
    const std::vector<int>& nest = tree[address].loops;
    auto it = std::find(nest.begin(), nest.end(), loop);
    if (it != nest.end() && it + 1 != nest.end()) {
      const std::string& inner = tree[*(it + 1)].name;
      candidates.push_back({"Fuse loops " + name + " and " + inner,
                            MultiLoopStep(tree, {loop, *(it + 1)}, "fuse", func, &error)});
      candidates.push_back({"Reorder: move loop " + inner + " outside " + name,
                            MultiLoopStep(tree, {*(it + 1), loop}, "reorder", func, &error)});
    }
  }
  candidates.push_back({"Parallelize loop " + name, LoopKindStep(tree, loop, "parallel", func, &error)});
  candidates.push_back({"Vectorize loop " + name, LoopKindStep(tree, loop, "vectorize", func, &error)});
  candidates.push_back({"Unroll loop " + name, LoopKindStep(tree, loop, "unroll", func, &error)});
  // The tensor intrinsics whose description the block, or the innermost loop's subtree, matches.
  if (const SchedulePrimitive* tensorize = FindSchedulePrimitive("tensorize")) {
    std::vector<int> nodes{target};
    if (loop != target) nodes.push_back(loop);
    for (int node : nodes) {
      const ScheduleTreeNode& n = tree[node];
      for (const std::string& intrin : n.tensor_intrins) {
        std::string what = n.kind == ScheduleTreeNode::Kind::kLoop ? "loop " : "block ";
        candidates.push_back({"Tensorize " + what + n.name + " with " + intrin,
                              ComposeStep(*tensorize, tree, node, {{"tensor_intrin", intrin}}, func,
                                          &error)});
      }
    }
  }
  for (auto& [title, step] : candidates) {
    if (!step) continue;
    ScheduleSession trial;
    trial.Reset(parsed.module, func);
    if (trial.Apply(*step).HasErrors()) continue;
    out.push_back({title, func, *step, PrintLike(parsed, trial.module())});
  }
  return out;
}

}  // namespace wb::workbench
