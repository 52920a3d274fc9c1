#include "workbench/changed_functions.h"

#include <algorithm>

#include "ir/structural_mismatches.h"
#include "script/tvmscript.h"
#include "workbench/text_diff.h"

namespace wb::workbench {

std::vector<FunctionDiff> AlignFunctions(const ir::IRModule& before, const ir::IRModule& after) {
  std::vector<FunctionDiff> out;
  if (!before.defined() || !after.defined()) return out;
  for (size_t i = 0; i < before->functions.size(); ++i) {
    const std::string& name = before->global_vars[i]->name_hint;
    ir::BaseFunc other = after->Lookup(name);
    if (!other.defined()) {
      out.push_back({name, FunctionDiff::Kind::kOnlyBefore, {}});
      continue;
    }
    FunctionDiff diff{name, FunctionDiff::Kind::kSame, {}};
    diff.mismatches =
        ir::FindMismatches(before->functions[i], other, kMaxMismatches, &diff.more_mismatches);
    if (!diff.mismatches.empty()) diff.kind = FunctionDiff::Kind::kChanged;
    out.push_back(std::move(diff));
  }
  for (size_t i = 0; i < after->functions.size(); ++i) {
    const std::string& name = after->global_vars[i]->name_hint;
    if (!before->Lookup(name).defined()) out.push_back({name, FunctionDiff::Kind::kOnlyAfter, {}});
  }
  return out;
}

std::vector<FunctionDiff> DiffFunctions(const ir::IRModule& before, const ir::IRModule& after) {
  std::vector<FunctionDiff> out = AlignFunctions(before, after);
  std::erase_if(out, [](const FunctionDiff& d) { return d.kind == FunctionDiff::Kind::kSame; });
  return out;
}

std::string StructuralDiffText(const ir::IRModule& before, const ir::IRModule& after) {
  if (!before.defined() || !after.defined()) return "no module after the pass: nothing to compare\n";
  std::vector<FunctionDiff> aligned = AlignFunctions(before, after);
  int counts[4] = {0, 0, 0, 0};
  for (const FunctionDiff& d : aligned) ++counts[static_cast<int>(d.kind)];
  std::string out = std::to_string(aligned.size()) + " function(s): " + std::to_string(counts[0]) + " same, " +
                    std::to_string(counts[1]) + " changed, " + std::to_string(counts[3]) + " added, " +
                    std::to_string(counts[2]) + " removed\n";
  if (counts[1] + counts[2] + counts[3] == 0) {
    if (auto whole = ir::FindFirstMismatch(before, after)) {
      out += "module: first mismatch at " + whole->lhs_path + " (" + whole->reason + ")\n";
    } else {
      out += "structurally equal\n";
    }
  }
  for (const FunctionDiff& d : aligned) {
    switch (d.kind) {
      case FunctionDiff::Kind::kSame: out += "same     " + d.name + "\n"; break;
      case FunctionDiff::Kind::kOnlyBefore: out += "removed  " + d.name + "\n"; break;
      case FunctionDiff::Kind::kOnlyAfter: out += "added    " + d.name + "\n"; break;
      case FunctionDiff::Kind::kChanged: {
        size_t count = d.mismatches.size() + d.more_mismatches;
        out += "changed  " + d.name + ": " + std::to_string(count) +
               (count == 1 ? " mismatch\n" : " mismatches\n");
        for (const ir::StructuralMismatch& m : d.mismatches) out += "  " + MismatchText(m) + "\n";
        if (d.more_mismatches) out += "  and " + std::to_string(d.more_mismatches) + " more\n";
        out += UnifiedDiff(script::PrintModule(OnlyFunctions(before, {d.name})),
                           script::PrintModule(OnlyFunctions(after, {d.name})), "before/" + d.name,
                           "after/" + d.name);
        break;
      }
    }
  }
  return out;
}

std::string MismatchText(const ir::StructuralMismatch& m) {
  std::string out = "at " + m.lhs_path;
  if (m.rhs_path != m.lhs_path) out += " (other side: " + m.rhs_path + ")";
  if (!m.reason.empty()) out += ": " + m.reason;
  return out;
}

std::vector<std::string> ChangedFunctions(const ir::IRModule& before, const ir::IRModule& after) {
  std::vector<std::string> out;
  for (const FunctionDiff& diff : DiffFunctions(before, after)) out.push_back(diff.name);
  return out;
}

ir::IRModule OnlyFunctions(const ir::IRModule& module, const std::vector<std::string>& names) {
  if (!module.defined()) return module;
  std::vector<ir::GlobalVar> vars;
  std::vector<ir::BaseFunc> funcs;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    if (std::find(names.begin(), names.end(), module->global_vars[i]->name_hint) == names.end()) continue;
    vars.push_back(module->global_vars[i]);
    funcs.push_back(module->functions[i]);
  }
  return ir::WithFunctions(module, std::move(vars), std::move(funcs));
}

}  // namespace wb::workbench
