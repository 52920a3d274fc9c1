// Does a Relax transformation keep what the module computes? Runs each Relax function of both
// modules through the Relax interpreter on the same seeded random arguments and compares the
// results (the Relax counterpart of workbench/equivalence.h, which checks PrimFuncs). Used by the
// batch runner's --check, FoldConstant's evaluation options and the pass tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "relax/interpreter.h"

namespace wb::transform {

// The interpreter options every transform-level user runs with: op calls are legalized the way
// LegalizeOps does it (which the relax module itself cannot reach: transform sits above it).
relax::RelaxInterpretOptions InterpreterOptions();

struct RelaxFunctionCheck {
  std::string name;
  enum class Outcome { kEqual, kDifferent, kFailed, kSkipped } outcome = Outcome::kEqual;
  std::string detail;  // where the results differ and by how much, or why it failed/was skipped
  double max_abs_error = 0;
};

struct RelaxCheckOptions {
  uint64_t seed = 0;
  int64_t symbolic_extent = 5;  // the value of each symbolic dim of a signature
};

// One entry per Relax function of `before` (matched by name in `after`). kFailed: the
// transformed function does not run though the original does; kSkipped: the original cannot be
// run (its arguments cannot be made, or it calls something the interpreter cannot evaluate).
// A function that LiftTransformParams split in `after` (and not in `before`) is called as its
// FindLiftedParams says: its weights through `<name>_transform_params` first. One whose
// parameters BindParams bound is kSkipped: the values the original needs are not known here.
std::vector<RelaxFunctionCheck> CheckRelaxEquivalence(const ir::IRModule& before,
                                                      const ir::IRModule& after,
                                                      const RelaxCheckOptions& options = {});

const char* RelaxOutcomeName(RelaxFunctionCheck::Outcome outcome);

}  // namespace wb::transform
