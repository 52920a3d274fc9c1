// BindParams (TVM's relax.transform.BindParams): replaces parameters of one Relax function by
// constant tensors, so that a model's weights become part of the program (and FoldConstant,
// LiftTransformParams and the kernels' specialization can use their values). The bound parameters
// leave the signature; every use reads an R.const. A symbolic dim that a bound parameter's type
// declares as a bare var (`w: R.Tensor((n, 4))`) takes the constant's extent everywhere in the
// function, types and shapes included, as TVM infers it from the constant's shape.
//
// The function is found as TVM finds it: by its global_symbol when it has one, else by its name
// in the module. Unlike TVM, a function or a parameter that is not there is an error (a PassError
// naming what the function has), not a silent no-op; so is a constant whose dtype or shape does
// not fit the parameter's type, and two constants that give one symbolic var different extents.
// The function's attributes are kept as they are (`num_input` too, as in TVM).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/transform.h"
#include "relax/expr.h"

namespace wb::transform {

// A parameter to bind: by its name (which must be unique among the function's parameters) or by
// the Var itself (when `var` is set, `name` is ignored).
struct ParamKey {
  std::string name;
  relax::Var var;
};

using ParamBindings = std::vector<std::pair<ParamKey, relax::Constant>>;

ir::Pass BindParams(std::string func_name, ParamBindings params);

// BindParams from files, the face the pass registry gives it: binds each parameter named in
// `names` to `params_dir/<name>.npy` (every such file must exist); with no names, every parameter
// of the function that has a file there. A file that does not load is a PassError with its path.
ir::Pass BindParamsFromDir(std::string func_name, std::string params_dir,
                           std::vector<std::string> names);

// The parameters of `written` (a function as written) that `bound` (the same function after
// BindParams) still takes, matched by name in order; nullopt when `bound` takes as many
// parameters or its names are no subsequence of written's. How runs and checks tell that a
// pipeline bound parameters, whose values they then need from elsewhere.
std::optional<std::vector<size_t>> KeptParams(const relax::Function& written, const relax::Function& bound);

}  // namespace wb::transform
