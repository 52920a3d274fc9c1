// LiftTransformParams (TVM's relax.transform.LiftTransformParams): moves the work that depends
// only on a model's weights out of the function that runs per input, into a function that runs
// once. A function with the attribute "num_input" = k takes its inputs first and its weights
// after them. Every binding of its dataflow blocks that reads only weights (and what was already
// lifted) goes to a new function `<name>_transform_params`, which takes the weights as one tuple
// parameter `params` and returns a tuple of what the rewritten `<name>` needs: the weights it
// still reads, in order, then the lifted values it reads, in order (preceded by an R.shape of the
// symbolic vars it needs that only the weights defined). `<name>` then takes its k inputs and
// those values, keeps its attributes (num_input stays k), and no longer computes them; weights
// it no longer reads leave its signature. The transform function has num_input = 0 and its name
// as global symbol, so it is callable from outside: call it once, then `<name>` on each input
// (workbench runs and checks do so: FindLiftedParams).
//
// As in TVM: bindings outside dataflow blocks, bindings whose type or value mentions a symbolic
// var the weights do not define, and extern function values stay; bindings that need neither
// inputs nor weights (an R.zeros) stay where they are and are copied into the transform function
// when it needs them. Functions whose name ends in "transform_params" are not lifted.
//
// lift_constants (off by default, TVM's behaviour): tensor constants count as weights too, so a
// computation on R.const data (the weights of an ONNX model imported without
// keep_params_in_input) moves out as well; a bare R.const binding does not (there is no work to
// save). FoldConstant folds such computations instead when their results are small enough.
//
// Not done: TVM's shared_transform (one transform function shared by several functions) and its
// consume_params option; a function whose `<name>_transform_params` already exists is left as it
// is (TVM composes the two transforms).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "ir/transform.h"

namespace wb::transform {

ir::Pass LiftTransformParams(bool lift_constants = false);

// How a function that LiftTransformParams split is called: `transform` on the tuple of the
// weights (the parameters after the first `num_input` of the function as it was), then the
// function on its first num_input arguments followed by the fields of what `transform` returned.
struct LiftedParams {
  std::string transform;
  size_t num_input = 0;
};
// The split of the Relax function `name` of `module`: set when the module also has the Relax
// function `<name>_transform_params` with one tuple parameter, and `name` has num_input.
std::optional<LiftedParams> FindLiftedParams(const ir::IRModule& module, const std::string& name);

}  // namespace wb::transform
