// The "changed functions only" view of a pass: the functions a pass rewrote (or added or
// removed), so that a module of fifty functions shows the two the pass touched.
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/structural_equal.h"

namespace wb::workbench {

// A function of two modules aligned by name.
struct FunctionDiff {
  // kSame: structurally equal (AlignFunctions only).
  enum class Kind { kSame, kChanged, kOnlyBefore, kOnlyAfter };
  std::string name;
  Kind kind;
  // kChanged: every place the two differ, in walk order (ir/structural_mismatches.h; at most
  // kMaxMismatches, `more_mismatches` counting the rest); the paths start at the function
  // (`root.body...`).
  std::vector<ir::StructuralMismatch> mismatches;
  size_t more_mismatches = 0;
};

inline constexpr size_t kMaxMismatches = 50;

// The functions of `before` and `after` aligned by name and compared structurally (a variable,
// buffer or callee consistently renamed is no difference): one entry per function, in the order of
// `before`, then the functions only `after` has.
std::vector<FunctionDiff> AlignFunctions(const ir::IRModule& before, const ir::IRModule& after);

// AlignFunctions' entries that differ (every kind but kSame).
std::vector<FunctionDiff> DiffFunctions(const ir::IRModule& before, const ir::IRModule& after);

// The structural view of a change, as text: a summary line, then one line per function (same,
// changed with the number of mismatches, added, removed), each changed function followed by one
// line per mismatch (path and reason) and the unified diff of only that function's text; what
// differs outside the functions (module attributes) when every function agrees.
std::string StructuralDiffText(const ir::IRModule& before, const ir::IRModule& after);

// One mismatch as a line: "at PATH (other side: PATH): REASON".
std::string MismatchText(const ir::StructuralMismatch& mismatch);

// The names of DiffFunctions' entries.
std::vector<std::string> ChangedFunctions(const ir::IRModule& before, const ir::IRModule& after);

// `module` restricted to the functions named in `names` (module attributes kept).
ir::IRModule OnlyFunctions(const ir::IRModule& module, const std::vector<std::string>& names);

}  // namespace wb::workbench
