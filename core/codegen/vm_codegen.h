// The Relax VM's code generator and one-call build (TVM's relax.build with the "bytecode" exec
// mode): a lowered Relax module (LegalizeOps, ToNonDataflow, RemovePurityChecking,
// CallTIRRewrite: call_tir is explicit allocation plus a direct kernel call) becomes a
// runtime::vm::Executable; its PrimFuncs become a runtime::Module through codegen::Build.
//
// Shapes are lowered as TVM's VMShapeLower does: each function allocates a shape heap; every
// parameter (and every R.match_cast) is checked (kind, rank, dtype, static dims) and its
// symbolic dims are stored into the heap on first sight and compared on later ones; shapes the
// program builds (allocation sizes, R.shape) read from the heap. Compound dims (`n * 2`, floordiv,
// min, ...) are computed at run time by a small postfix shape program (runtime/vm/vm.h) where TVM
// generates a shape PrimFunc; a compound dim in a checked type is checked once its vars are
// stored, one in a built shape is a codegen error when a var in it is never bound.
#pragma once

#include <memory>
#include <string>

#include "codegen/target.h"
#include "ir/expr.h"
#include "ir/transform.h"
#include "runtime/module.h"
#include "runtime/vm/executable.h"
#include "support/diagnostic.h"

namespace wb::codegen {

// Every Relax function of `lowered` as a VM function (named by its global symbol, else its
// GlobalVar). Throws DiagnosticError, at the span of what it cannot compile.
std::shared_ptr<runtime::vm::Executable> VMCodeGen(const ir::IRModule& lowered);

struct VMBuildOptions {
  // Relax pipeline text before the VM codegen; empty: the registered "default_build_pipeline".
  std::string relax_pipeline;
  // Fuse operators first (AnnotateTIROpPattern, FuseOps, FuseTIR after LegalizeOps).
  bool fuse = false;
  // Schedule the kernels by core/dlight's default rules for the target (the pipeline's
  // ApplyDefaultSchedule, and codegen::Build's for the kernels the pipeline left unscheduled);
  // false leaves them as legalized, to see the unscheduled code.
  bool default_schedule = true;
  // The kernels' code carries DWARF line information from their statements' spans
  // (BuildOptions::debug_lines).
  bool debug_lines = false;
};

struct VMBuildResult {
  runtime::Module kernels;                           // the compiled PrimFuncs
  std::shared_ptr<runtime::vm::Executable> exec;     // null when the build failed
  ir::IRModule lowered;                              // the Relax module the VM codegen read
  // The module as the pipeline's ApplyDefaultSchedule got it (kernels legalized and fused, before
  // the default schedules' padding); null when that pass did not run.
  ir::IRModule unscheduled;
  DiagnosticList diagnostics;                        // why it failed
  bool ok() const { return exec != nullptr; }
};

// The relax pipeline text BuildVM runs for these options.
std::string VMRelaxPipeline(const VMBuildOptions& options);
// The pass context BuildVM runs that pipeline in: the current one, with `target` as
// ApplyDefaultSchedule's target unless the current config names one, and, when
// `options.default_schedule` is off, that pass disabled.
ir::PassContext VMPassContext(const Target& target, const VMBuildOptions& options);

VMBuildResult BuildVM(const ir::IRModule& module, const Target& target, const VMBuildOptions& options = {});

// The built VM as one shared library: the kernels' object and the executable's binary form
// (runtime/vm/library.h), which runtime::vm::LoadVMLibrary reads back in a process with the
// runtime alone. `target` is the one the kernels were built for. False with the reason when
// the build failed, the kernels are not an LLVM module, or linking fails.
bool ExportVMLibrary(const VMBuildResult& built, const Target& target, const std::string& path, std::string* error);

}  // namespace wb::codegen
