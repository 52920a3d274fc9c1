// The "changed functions only" view of a pass: the functions a pass rewrote (or added or
// removed), so that a module of fifty functions shows the two the pass touched.
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/structural_equal.h"

namespace wb::workbench {

// A function that differs between two modules.
struct FunctionDiff {
  enum class Kind { kChanged, kOnlyBefore, kOnlyAfter };
  std::string name;
  Kind kind;
  // kChanged: where the two first differ; the paths start at the function (`root.body...`).
  ir::StructuralMismatch mismatch;
};

// The functions of `before` and `after` aligned by name and compared structurally (a variable,
// buffer or callee consistently renamed is no difference): one entry per function that differs,
// in the order of `before`, then the functions only `after` has.
std::vector<FunctionDiff> DiffFunctions(const ir::IRModule& before, const ir::IRModule& after);

// The names of DiffFunctions' entries.
std::vector<std::string> ChangedFunctions(const ir::IRModule& before, const ir::IRModule& after);

// `module` restricted to the functions named in `names` (module attributes kept).
ir::IRModule OnlyFunctions(const ir::IRModule& module, const std::vector<std::string>& names);

}  // namespace wb::workbench
