// Building many modules at once, each in its own child process (support/child_process.h): what
// the tuner's builder does with a batch of candidates (TVM's LocalBuilder), so that the builds
// use every core and a build that crashes, hangs or runs out of memory is that candidate's
// failure and not the tuner's end.
//
// The child runs Compile (run_check.h) and sends back the relocatable object of the LLVM module
// and its imports (a cuda build's CUDA module, as runtime/module_blob.h saves it); this process
// JIT-links the object (codegen::LoadLLVMObject), which compiles nothing again, and the result is
// a CompiledModule as Compile would have made it, ready for RunCompiled. The loaded module has no
// text views (LLVM IR, assembly): a face that shows them builds with Compile.
//
// A module with Relax functions is built in this process, one after another: its VM executable
// does not cross a process boundary.
//
// The child is a fork: a lock that another thread of this process held at that moment (LLVM's,
// were another thread compiling then) stays held in it, and that build hangs until its timeout,
// a failed build and nothing worse. The tuner builds from one thread.
#pragma once

#include <vector>

#include "codegen/target.h"
#include "ir/expr.h"
#include "support/child_process.h"
#include "workbench/cancellation.h"
#include "workbench/run_check.h"

namespace wb::workbench {

struct IsolatedBuildOptions {
  int jobs = 0;                  // builds at once; 0: this machine's cores
  double timeout_s = 60;         // per build; 0: none
  bool default_schedule = true;  // as Compile's
  // The lowering pipeline (codegen::BuildOptions::pipeline); empty: the build's default.
  std::string pipeline;
};

struct IsolatedBuild {
  CompiledModule compiled;  // diagnostics say why, when the build failed or its process did
  ChildEnd end = ChildEnd::kFinished;  // how the build's process ended (kFinished in-process)
  double seconds = 0;                  // the build's own time
};

// Builds each of `modules` for `target`, options.jobs at a time; the results in the modules'
// order. A cancel kills the builds running and fails the ones not started.
std::vector<IsolatedBuild> CompileIsolated(const std::vector<ir::IRModule>& modules,
                                           const codegen::Target& target,
                                           const IsolatedBuildOptions& options = {},
                                           const CancellationToken& token = {});

}  // namespace wb::workbench
