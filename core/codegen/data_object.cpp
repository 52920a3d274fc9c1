#include "codegen/data_object.h"

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

#include <memory>
#include <mutex>

namespace wb::codegen {

bool EmitDataObject(const std::vector<std::pair<std::string, std::string>>& blobs, const Target& target,
                    std::string* object, std::string* error) {
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
  llvm::Module module("wb_data", context);
  module.setTargetTriple(triple);
  module.setDataLayout(tm->createDataLayout());
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  for (const auto& [name, bytes] : blobs) {
    llvm::Constant* data = llvm::ConstantDataArray::getString(context, bytes, /*AddNull=*/false);
    auto* blob = new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::ExternalLinkage, data, name);
    blob->setAlignment(llvm::Align(8));
    new llvm::GlobalVariable(module, i64, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                             llvm::ConstantInt::get(i64, bytes.size()), name + "_size");
  }
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

}  // namespace wb::codegen
