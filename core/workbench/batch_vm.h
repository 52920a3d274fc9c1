// `workbench --batch FILE --run` for modules with Relax functions: the module is built through
// the default build pipeline and the Relax VM (codegen::BuildVM), each Relax function runs on
// seeded random inputs (or .npy files), its result is checked against the Relax reference
// interpreter (tolerances per dtype) and, with --profile, it is timed with the time evaluator,
// as TVM times `vm["main"]`. The PrimFunc-only path stays in batch.cpp.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "codegen/target.h"
#include "ir/expr.h"

namespace wb::workbench {

struct VMRunOptions {
  std::string func;          // one Relax function; empty: every one
  std::string inputs;        // "", "random" or a directory of <param>.npy / <func>/<param>.npy
  uint64_t seed = 0;
  int64_t symbolic_extent = 4;  // the size picked for symbolic dims not fixed by an input file
  bool profile = false;
  int number = 10;
  int repeat = 3;
  std::string json_path;
  bool color = false;
};

// True when `module` has at least one Relax function (then --run goes through the VM).
bool HasRelaxFunctions(const ir::IRModule& module);

// Exit code: 0 all ran and matched, 1 a build, run or check failed, 2 bad usage (unknown --func,
// unreadable input, unwritable report).
int RunRelaxBuild(const ir::IRModule& module, const codegen::Target& target, const VMRunOptions& options,
                  std::ostream& out, std::ostream& err);

}  // namespace wb::workbench
