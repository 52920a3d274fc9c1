// Does a transformed module compute what the original did? Runs each PrimFunc of both modules
// through the reference interpreter on the same seeded random inputs and compares every buffer
// afterwards. This is how passes and schedule steps are checked on real data, not only on text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace wb::workbench {

struct FunctionCheck {
  std::string name;
  enum class Outcome { kEqual, kDifferent, kFailed, kSkipped } outcome = Outcome::kEqual;
  std::string detail;  // what differs (buffer, max abs/rel error), why it failed or was skipped
};

struct EquivalenceOptions {
  uint64_t seed = 0;
  // Value given to each symbolic shape variable of a signature.
  int64_t symbolic_extent = 5;
  // Functions above this many elements in their arguments are skipped (the interpreter is slow).
  int64_t max_elements = 1 << 22;
  // Loop iterations allowed per run before the function is skipped as too expensive to check.
  uint64_t max_iterations = 20'000'000;
  // For CheckTransition (check_each.h): a function the interpreter skips is checked compiled,
  // the function after against the function before, both built with LLVM.
  bool compiled_fallback = true;
};

// One entry per PrimFunc of `before` (matched by name in `after`).
std::vector<FunctionCheck> CheckEquivalence(const ir::IRModule& before, const ir::IRModule& after,
                                            const EquivalenceOptions& options = {});

const char* OutcomeName(FunctionCheck::Outcome outcome);

}  // namespace wb::workbench
