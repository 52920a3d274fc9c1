// ExportVMLibrary: the built VM as one `.so`, as TVM's export_library keeps the VM executable
// beside the kernels. The executable's binary form becomes a read-only global of a small LLVM
// object (runtime/vm/library.h names the symbols); the linker puts it beside the kernels' object.
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>

#include "codegen/vm_codegen.h"
#include "runtime/vm/library.h"
#include "runtime/vm/vm.h"

#ifndef WB_LLVM_BINDIR
#define WB_LLVM_BINDIR ""
#endif

namespace wb::codegen {

namespace {

// An object file with the executable's bytes and their count as exported globals.
bool EmitExecutableObject(const std::string& bytes, const Target& target, std::string* object, std::string* error) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  std::string why;
  std::string triple = target.mtriple.empty() ? llvm::sys::getDefaultTargetTriple() : target.mtriple;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, why);
  if (!t) {
    *error = "no LLVM backend for " + triple + ": " + why;
    return false;
  }
  std::unique_ptr<llvm::TargetMachine> tm(
      t->createTargetMachine(triple, "generic", "", llvm::TargetOptions(), llvm::Reloc::PIC_));
  if (!tm) {
    *error = "cannot create an LLVM target machine for " + triple;
    return false;
  }
  llvm::LLVMContext context;
  llvm::Module module("wb_vm_executable", context);
  module.setTargetTriple(triple);
  module.setDataLayout(tm->createDataLayout());
  llvm::Constant* data = llvm::ConstantDataArray::getString(context, bytes, /*AddNull=*/false);
  auto* blob = new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                                        data, runtime::vm::kExecutableSymbol);
  blob->setAlignment(llvm::Align(8));
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  new llvm::GlobalVariable(module, i64, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(i64, bytes.size()), runtime::vm::kExecutableSizeSymbol);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    *error = "the LLVM target cannot emit an object file";
    return false;
  }
  pm.run(module);
  object->assign(buffer.begin(), buffer.end());
  return true;
}

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
  std::string exec_object;
  if (!EmitExecutableObject(bytes, target, &exec_object, error)) return false;

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
