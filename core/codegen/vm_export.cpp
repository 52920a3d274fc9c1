// ExportVMLibrary: the built VM as one `.so`, as TVM's export_library keeps the VM executable
// beside the kernels. The executable's binary form (and the kernels' device modules, for a GPU
// build) become read-only globals of a small object (runtime/vm/library.h and
// runtime/module_blob.h name the symbols); the linker puts it beside the kernels' object.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "codegen/data_object.h"
#include "codegen/vm_codegen.h"
#include "runtime/module_blob.h"
#include "runtime/vm/library.h"
#include "runtime/vm/vm.h"

#ifndef WB_LLVM_BINDIR
#define WB_LLVM_BINDIR ""
#endif

namespace wb::codegen {

namespace {

bool WriteFile(const std::string& path, const std::string& bytes, std::string* error) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace

bool ExportVMLibrary(const VMBuildResult& built, const Target& target, const std::string& path, std::string* error) {
  std::string ignored;
  if (!error) error = &ignored;
  if (!built.ok()) {
    *error = "the VM build failed: nothing to export";
    return false;
  }
  std::string kernels;
  if (built.kernels.defined()) {
    kernels = built.kernels->GetSource("o");
    if (kernels.empty()) {
      *error = "the kernels (a '" + built.kernels->type_key() + "' module) have no object to link";
      return false;
    }
  }
  std::string bytes;
  try {
    bytes = built.exec->SaveToBinary();
  } catch (const runtime::vm::VMError& e) {
    *error = e.what();
    return false;
  }
  std::vector<std::pair<std::string, std::string>> blobs = {{runtime::vm::kExecutableSymbol, bytes}};
  // The kernels' device modules (a GPU build's CUDA module), which LoadModule imports back.
  if (built.kernels.defined() && !built.kernels->imports().empty()) {
    try {
      blobs.push_back({runtime::kImportsSymbol, runtime::SaveImports(*built.kernels.node())});
    } catch (const runtime::Error& e) {
      *error = e.what();
      return false;
    }
  }
  std::string exec_object;
  if (!EmitDataObject(blobs, target, &exec_object, error)) return false;

  std::string kernels_path = path + ".kernels.o", exec_path = path + ".exec.o", log_path = path + ".link.log";
  bool written = (kernels.empty() || WriteFile(kernels_path, kernels, error)) && WriteFile(exec_path, exec_object, error);
  int rc = -1;
  std::string linker;
  if (written) {
    std::string bindir = WB_LLVM_BINDIR;
    linker = !bindir.empty() && access((bindir + "/ld.lld").c_str(), X_OK) == 0 ? bindir + "/ld.lld" : std::string("cc");
    std::string command = "'" + linker + "' -shared -o '" + path + "' '" + exec_path + "'" +
                          (kernels.empty() ? "" : " '" + kernels_path + "'") + " > '" + log_path + "' 2>&1";
    rc = std::system(command.c_str());
  }
  std::string log;
  {
    std::ifstream in(log_path);
    log.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::remove(kernels_path.c_str());
  std::remove(exec_path.c_str());
  std::remove(log_path.c_str());
  if (!written) return false;
  if (rc != 0) {
    *error = "linking " + path + " with " + linker + " failed: " + log;
    return false;
  }
  return true;
}

}  // namespace wb::codegen
