#include "workbench/changed_functions.h"

#include <algorithm>

#include "ir/structural_hash.h"

namespace wb::workbench {

std::vector<std::string> ChangedFunctions(const ir::IRModule& before, const ir::IRModule& after) {
  std::vector<std::string> out;
  if (!before.defined() || !after.defined()) return out;
  for (size_t i = 0; i < before->functions.size(); ++i) {
    const std::string& name = before->global_vars[i]->name_hint;
    ir::BaseFunc other = after->Lookup(name);
    if (!other.defined() || ir::StructuralHash(other) != ir::StructuralHash(before->functions[i])) {
      out.push_back(name);
    }
  }
  for (size_t i = 0; i < after->functions.size(); ++i) {
    const std::string& name = after->global_vars[i]->name_hint;
    if (!before->Lookup(name).defined()) out.push_back(name);
  }
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
