// A built Relax VM as one shared library (TVM keeps the executable with the exported library):
// codegen::ExportVMLibrary links the kernels' object with the executable's binary form
// (Executable::SaveToBinary) under two symbols; LoadVMLibrary reads them back with the runtime
// alone, no compiler in the process.
//
//   auto lib = LoadVMLibrary("mlp.so", &error);
//   VirtualMachine vm(lib->exec, lib->kernels);
//   Value out = vm["main"](x, w0, b0, w1, b1);
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "runtime/module.h"
#include "runtime/vm/executable.h"

namespace wb::runtime::vm {

// The executable's bytes, and their count as a uint64_t.
inline constexpr const char* kExecutableSymbol = "__wb_vm_executable";
inline constexpr const char* kExecutableSizeSymbol = "__wb_vm_executable_size";

struct VMLibrary {
  std::shared_ptr<const Executable> exec;
  Module kernels;  // null when the executable calls no kernel
};

// nullopt with the reason in *error: the file cannot be loaded, holds no executable, or its
// executable is truncated, corrupt or of another format version.
std::optional<VMLibrary> LoadVMLibrary(const std::string& path, std::string* error);

}  // namespace wb::runtime::vm
