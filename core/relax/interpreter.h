// The Relax reference interpreter: evaluates a Relax function of a module on NDArrays, the oracle
// that tells whether a Relax pass kept the program's meaning (as tir/interpreter.h is for
// PrimFuncs; the batch runner's --check and the pass tests use both).
//
// It is written to be obviously right rather than fast. Bindings run in order; symbolic shape
// vars are bound from the arguments and by R.match_cast, which checks the value against its
// type at run time; call_tir / call_tir_inplace / direct calls of PrimFuncs run the kernel in
// the TensorIR reference interpreter with outputs allocated from out_ty; an op call runs by
// legalizing that one call (the op's FLegalize) into PrimFuncs and interpreting them; R.nonzero,
// whose result's size only the data gives, runs runtime::NonZero as the VM does, and
// R.tensor_to_shape reads the tensor's values as the VM's builtin does. Anything
// that cannot be evaluated (an extern function, an op without a legalization) stops the run with
// a diagnostic that names it, at the span of the expression.
//
// Memory builtins: R.builtin.alloc_tensor and R.memory.alloc_tensor allocate a fresh zeroed
// tensor (a storage's memory is not shared between the tensors placed in it, so a wrong memory
// plan that overlaps live tensors is not detected); kill_* are no-ops.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "relax/expr.h"
#include "runtime/ndarray.h"
#include "support/diagnostic.h"

namespace wb::relax {

// A run-time value of a Relax program.
struct Value {
  enum class Kind { kTensor, kTuple, kShape, kPrim, kString, kDataType, kFunction, kObject };
  Kind kind = Kind::kTuple;  // the default value is the empty tuple (what R.print returns)

  runtime::NDArray tensor;        // kTensor
  std::vector<Value> fields;      // kTuple
  std::vector<int64_t> shape;     // kShape
  DataType dtype;                 // kPrim (its dtype), kDataType (the value)
  int64_t int_value = 0;          // kPrim: ints and bool
  double float_value = 0;         // kPrim: floats
  std::string string_value;       // kString
  // kFunction: a GlobalVar, a relax::Function (a closure, with the values it captured), or an
  // ExternFunc.
  ObjectRef function;
  std::shared_ptr<const void> captured;

  static Value Tensor(runtime::NDArray array);
  static Value TupleOf(std::vector<Value> fields);
  static Value ShapeOf(std::vector<int64_t> dims);
  static Value Int(DataType dtype, int64_t v);
  static Value Float(DataType dtype, double v);
  static Value String(std::string s);
  static Value DType(DataType d);

  // What the value is, for messages: `tensor (2, 3) float32`, `tuple of 2`, `shape (4, 5)`.
  std::string Describe() const;
};

class BlockBuilder;

// Rewrites one op call (typed, with static shapes) into calls of PrimFuncs that it adds to the
// builder's module; nullopt when the op has no legalization.
using LegalizeFunction = std::function<std::optional<Expr>(BlockBuilder&, const Call&)>;

struct RelaxInterpretOptions {
  // How op calls are legalized. Empty: the op registry's FLegalize slots. The LegalizeOps pass's
  // LegalizeCall (transform/, which this module may not include) is passed in by its callers.
  LegalizeFunction legalize;
  // Loop iterations allowed per kernel run (see tir::InterpretOptions).
  uint64_t max_iterations = 200'000'000;
  // Nested calls of Relax functions before the run is stopped (runaway recursion).
  int max_call_depth = 256;
  // Where R.print's lines go; empty: stdout. A reference run beside the run it checks, which
  // printed already, passes one that drops them.
  std::function<void(const std::string&)> print;
};

struct RelaxInterpretResult {
  DiagnosticList diagnostics;
  Value value;
  bool ok() const { return !diagnostics.HasErrors(); }
};

// Runs the Relax function `name` of `module` on `args` (one per parameter). Never throws on a
// program it cannot run: the reason is a diagnostic.
RelaxInterpretResult InterpretRelax(const ir::IRModule& module, const std::string& name,
                                    std::vector<Value> args,
                                    const RelaxInterpretOptions& options = {});

// Seeded random arguments for `func`'s parameters: tensors of their declared shapes (each
// symbolic dim named by a bare var gets `symbolic_extent`, compound dims are computed from those)
// filled as runtime::FillRandom does (parameter i with runtime::InputSeed(seed, i)), shapes
// with those dims, scalars small random values.
// nullopt, with the reason in *why, when a parameter has no static shape or dtype or is not data
// (a function, an object).
std::optional<std::vector<Value>> RandomArguments(const Function& func, uint64_t seed,
                                                  int64_t symbolic_extent, std::string* why);

// Element-wise comparison of two values of the same structure (runtime::Compare's default
// tolerances per dtype). `message` says where they differ; max_abs_error is over all tensors.
struct ValueComparison {
  bool ok = true;
  double max_abs_error = 0;
  std::string message;
};
ValueComparison CompareValues(const Value& actual, const Value& expected);

}  // namespace wb::relax
