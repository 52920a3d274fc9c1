// Build: IRModule -> runtime::Module for a Target. For a CPU target, first the default
// schedules (transform::ApplyDefaultSchedule: core/dlight's rules on every PrimFunc that does
// not carry a schedule yet, dlight::IsScheduled); then the TIR lowering pipeline (the named
// "tir_lowering" pipeline when one is registered, else the lowering passes that exist),
// MakePackedAPI, then the LLVM codegen (JIT-compiled in process; exportable as a `.so`).
// BuildVM builds its kernels through here, so a module of PrimFuncs and a Relax model get the
// same default schedules.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "ir/expr.h"
#include "runtime/module.h"
#include "support/diagnostic.h"

namespace wb::codegen {

// TIR the LLVM codegen cannot compile, or an LLVM failure (verifier, target lookup, JIT).
class CodegenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BuildOptions {
  // Pass pipeline text before MakePackedAPI; empty: DefaultLoweringPipeline().
  std::string pipeline;
  // Schedule the unscheduled PrimFuncs by core/dlight's rules for the target first. Off (or
  // "ApplyDefaultSchedule" among the current PassContext's disabled_passes) builds them as
  // written: the compiled reference, and a user who wants to see the unscheduled code.
  bool default_schedule = true;
  // DWARF line information (llvm::DIBuilder) on the generated code: each statement's
  // instructions carry the line of its span, each PrimFunc a subprogram. Debug info only: the
  // instructions are the same with it off (the default).
  bool debug_lines = false;
  // The relocatable object alone: no LLVM IR listings and no JIT (the module runs nothing and
  // shows no text; GetSource("o") is all it has). What a build in a child process sends back
  // (workbench/isolated_build.h), whose parent JIT-links the object itself.
  bool object_only = false;
};

struct BuildResult {
  runtime::Module module;      // null when the build failed
  ir::IRModule lowered;        // after the pipeline and MakePackedAPI (when they ran)
  DiagnosticList diagnostics;  // why it failed
  bool ok() const { return module.defined(); }
};

// The lowering pipeline text Build uses by default.
std::string DefaultLoweringPipeline();

BuildResult Build(const ir::IRModule& module, const Target& target, const BuildOptions& options = {});

// The codegen alone, on a module whose PrimFuncs MakePackedAPI produced. Throws CodegenError.
// The module's sources: "ll" (before LLVM's optimization), "ll-opt" (after) and "asm".
// `debug_lines`, `object_only`: as BuildOptions' fields.
runtime::Module CodegenLLVM(const ir::IRModule& packed, const Target& target, bool debug_lines = false,
                            bool object_only = false);

// The module back from the relocatable object a CodegenLLVM module holds (its GetSource("o")) and
// its FunctionNames(): the object JIT-linked in this process, nothing compiled again. For builds
// done in another process (workbench/isolated_build.h); the module has no text views. Throws
// CodegenError.
runtime::Module LoadLLVMObject(std::string object, std::vector<std::string> names,
                               const Target& target);

}  // namespace wb::codegen
