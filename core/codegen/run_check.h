// Runs the PrimFuncs of a built module on inputs (seeded random, or .npy files), checks every
// tensor against the reference interpreter run on the same inputs (tolerances per dtype), and
// optionally times them with the time evaluator: what `workbench --batch --run --profile`
// reports, and what the GUI's build-and-profile shows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "runtime/module.h"
#include "runtime/time_evaluator.h"

namespace wb::codegen {

struct RunCheckOptions {
  // Empty or "random": seeded random tensors (scalars and symbolic shapes then cannot be
  // chosen: such functions report an error). Otherwise a directory with DIR/<func>/<param>.npy
  // or DIR/<param>.npy per parameter or buffer name (scalars as 0-d or 1-element arrays); tensors not found
  // there are random, with their shape from the bound shape variables.
  std::string inputs;
  uint64_t seed = 0;
  bool check = true;  // compare with the interpreter
  bool profile = false;
  runtime::TimeEvaluatorOptions timing{.number = 10, .repeat = 3};
  // Where the built functions take their tensors: cuda(0) for a GPU build (the inputs are
  // copied there, the results back for the comparison, and the timing uses CUDA events).
  runtime::DLDevice device{};
};

struct FunctionRunResult {
  std::string name;
  enum class Status { kOk, kMismatch, kError } status = Status::kOk;
  std::string message;              // the mismatch or the error
  bool checked = false;             // compared with the interpreter
  double max_abs_error = 0;         // when checked: the largest difference the comparison saw
  std::vector<double> samples_s;    // when profiled: seconds per call, one per repeat
  std::optional<double> flops;      // FLOP count of one call, when known
  double median_s() const;
  std::optional<double> gflops_per_s() const;
};

const char* StatusName(FunctionRunResult::Status status);

// `source` is the module as given (what the interpreter runs); `built` its compiled form.
std::vector<FunctionRunResult> RunAndCheck(const ir::IRModule& source, const runtime::Module& built,
                                           const RunCheckOptions& options);

}  // namespace wb::codegen
