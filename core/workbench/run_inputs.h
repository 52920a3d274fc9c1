// The inputs of a run: for each parameter of a PrimFunc or a Relax function, the .npy file a
// user gave (DIR/<func>/<param>.npy, then DIR/<param>.npy) or seeded random values shaped by
// the shape variables those files bind. One maker for every run and check (run_check.h, the
// equivalence checks), so one seed means the same tensors everywhere.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/flop_count.h"
#include "relax/expr.h"
#include "relax/interpreter.h"
#include "runtime/ndarray.h"
#include "tir/interpreter.h"
#include "tir/stmt.h"

namespace wb::workbench {

struct InputSpec {
  std::string dir;  // empty or "random": no files
  uint64_t seed = 0;
  // The size of a symbolic dim (and the value of a scalar parameter) no file gives; nullopt:
  // a PrimFunc that needs one cannot get inputs, and a Relax function gets 4.
  std::optional<int64_t> symbolic_extent;
};

// The file for `param` of `func`; null when there is none. A file that exists but cannot be read
// sets *error (naming the file).
runtime::NDArray FindInputFile(const std::string& dir, const std::string& func, const std::string& param,
                               std::string* error);

struct PrimFuncInputs {
  std::vector<runtime::NDArray> arrays;         // per parameter; null for scalars
  std::vector<std::optional<double>> scalars;   // per parameter; set for scalars
  std::vector<std::string> names;               // per parameter: the buffer's name, else the param's
  codegen::VarBindings bindings;                // shape variables (and scalar params) bound
  // The arguments as the interpreter takes them, sharing `arrays`.
  std::vector<tir::InterpArg> InterpArgs(const tir::PrimFunc& func) const;
  // A deep copy (the arrays are written in place by a run).
  PrimFuncInputs Copy() const;
};

// False with the reason in *error: an unreadable file, a scalar or symbolic shape nothing gives,
// a raw handle parameter, a buffer with explicit strides.
bool MakePrimFuncInputs(const tir::PrimFunc& func, const std::string& name, const InputSpec& spec,
                        PrimFuncInputs* out, std::string* error);

struct RelaxInputs {
  std::vector<relax::Value> args;
  std::map<std::string, int64_t> symbolic;  // the size given to each symbolic var
};

// relax::RandomArguments, with the files where given; symbolic dims take the size a file fixes
// for them (a bare-var dim of a file's tensor), else the spec's extent.
bool MakeRelaxInputs(const relax::Function& func, const std::string& name, const InputSpec& spec,
                     RelaxInputs* out, std::string* error);

}  // namespace wb::workbench
