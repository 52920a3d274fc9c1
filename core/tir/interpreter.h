// The reference interpreter: runs any PrimFunc (scheduled or lowered) on NDArrays. It is the
// oracle for every transformation (a schedule step or a pass kept the meaning when the
// interpreter gives the same outputs before and after), so it is written to be obviously
// right: every loop kind runs sequentially in order (parallel, vectorized, unrolled,
// thread-bound loops and thread launches included), every buffer access is bounds-checked and
// an out-of-bounds access stops the run with a diagnostic naming the buffer, the index and the
// access's span, and arithmetic follows TVM exactly (wrapping integers at their bit width,
// truncdiv/truncmod vs floordiv/floormod, float16/bfloat16/float8 rounding after every
// operation).
//
// Speed is second but not ignored: the function is compiled once into a tree of closures with
// every variable and buffer resolved to a slot, so no name or map lookup happens per element.
//
// GPU functions run as on a GPU (interpreter_gpu.h): thread launches (blockIdx/threadIdx) run
// for every block, one block after another, the threads of a block together, meeting at
// T.tvm_storage_sync barriers and exchanging values through warp shuffles; shared-scope memory
// is one allocation per block and races on it (a missing barrier) stop the run with a
// diagnostic. A host function's T.call_packed of a device PrimFunc of the module (as
// LowerDeviceKernelLaunch makes) launches it. Other external calls (call_extern, call_packed
// of anything else, ...) stop the run with a diagnostic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/expr.h"
#include "runtime/ndarray.h"
#include "support/diagnostic.h"
#include "tir/stmt.h"

namespace wb::tir {

// One argument of a PrimFunc: an NDArray for a buffer (or handle) parameter, a number for a
// scalar parameter (converted to the parameter's dtype).
class InterpArg {
 public:
  InterpArg(runtime::NDArray array) : value_(std::move(array)) {}  // NOLINT
  InterpArg(int64_t v) : value_(v) {}                               // NOLINT
  InterpArg(int v) : value_(int64_t{v}) {}                          // NOLINT
  InterpArg(bool v) : value_(int64_t{v}) {}                         // NOLINT
  InterpArg(double v) : value_(v) {}                                // NOLINT
  InterpArg(float v) : value_(double{v}) {}                         // NOLINT

  const runtime::NDArray* array() const { return std::get_if<runtime::NDArray>(&value_); }
  const int64_t* int_value() const { return std::get_if<int64_t>(&value_); }
  const double* float_value() const { return std::get_if<double>(&value_); }

 private:
  std::variant<runtime::NDArray, int64_t, double> value_;
};

// A scalar result (`return x` in a PrimFunc).
struct InterpValue {
  DataType dtype;
  int64_t int_value = 0;  // ints, uints (bit pattern) and bool
  double float_value = 0;
};

struct InterpretOptions {
  // Upper bound on loop iterations (all loops together) before the run is stopped with a
  // diagnostic: keeps a runaway while loop from hanging a batch run. 0: no limit.
  uint64_t max_iterations = 2'000'000'000;
};

struct InterpretResult {
  DiagnosticList diagnostics;
  std::optional<InterpValue> return_value;
  bool ok() const { return !diagnostics.HasErrors(); }
};

// Runs `func` on `args` (one per parameter, in order). Buffer arguments are read and written in
// place. Shape variables are bound from the arrays' shapes (and strides / byte offsets where
// the buffer declares them), then checked against every other use.
InterpretResult Interpret(const PrimFunc& func, std::vector<InterpArg> args,
                          const InterpretOptions& options = {});

// Runs the PrimFunc `name` of `module`; calls to other PrimFuncs of the module (GlobalVar
// calls) run too.
InterpretResult InterpretModule(const ir::IRModule& module, const std::string& name,
                                std::vector<InterpArg> args, const InterpretOptions& options = {});

// The runtime dtype an NDArray argument for a buffer of `dtype` must have.
runtime::DLDataType ToRuntimeDType(DataType dtype);

}  // namespace wb::tir
