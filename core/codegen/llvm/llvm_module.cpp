// The LLVM side of Build: TargetMachine from our Target, IR generation, LLVM's O3 pipeline,
// object emission, the ORC LLJIT that runs the object in process, `.so` export through lld, and
// the text views (IR before/after optimization, assembly) the GUI shows.
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <mutex>

#include "codegen/data_object.h"
#include "codegen/llvm/codegen_llvm.h"
#include "runtime/backend_env.h"
#include "runtime/c_backend_api.h"
#include "runtime/module_blob.h"
#include "tir/stmt.h"

#ifndef WB_LLVM_BINDIR
#define WB_LLVM_BINDIR ""
#endif

namespace wb::codegen {

namespace {

void InitializeLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

std::unique_ptr<llvm::TargetMachine> MakeTargetMachine(const Target& target) {
  InitializeLLVM();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(target.mtriple, error);
  if (!t) throw CodegenError("no LLVM backend for " + target.mtriple + ": " + error);
  std::string features;
  for (const auto& f : target.features) features += (features.empty() ? "" : ",") + f;
  llvm::CodeGenOptLevel level = target.opt_level >= 3 ? llvm::CodeGenOptLevel::Aggressive
                                : target.opt_level == 0 ? llvm::CodeGenOptLevel::None
                                                        : llvm::CodeGenOptLevel::Default;
  // A multiply feeding an add becomes one FMA, as TVM's LLVM backend does: twice the
  // arithmetic per cycle in a matmul's micro-kernel, and one rounding instead of two.
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> tm(t->createTargetMachine(
      target.mtriple, target.mcpu, features, options, llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm) throw CodegenError("cannot create an LLVM target machine for " + target.str());
  return tm;
}

std::string PrintModule(const llvm::Module& m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m.print(os, nullptr);
  return text;
}

void Optimize(llvm::Module& m, llvm::TargetMachine* tm, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = opt_level >= 3   ? llvm::OptimizationLevel::O3
                                  : opt_level == 2 ? llvm::OptimizationLevel::O2
                                  : opt_level == 1 ? llvm::OptimizationLevel::O1
                                                   : llvm::OptimizationLevel::O0;
  llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
}

std::string EmitFile(llvm::Module& m, llvm::TargetMachine* tm, llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, type)) {
    throw CodegenError("the LLVM target cannot emit this file type");
  }
  pm.run(m);
  return std::string(buffer.begin(), buffer.end());
}

class LLVMModuleNode : public runtime::ModuleNode, public std::enable_shared_from_this<LLVMModuleNode> {
 public:
  LLVMModuleNode(Target target, std::vector<std::string> names, std::string ll, std::string ll_opt,
                 std::string object)
      : target_(std::move(target)), names_(std::move(names)), ll_(std::move(ll)),
        ll_opt_(std::move(ll_opt)), object_(std::move(object)) {}

  void StartJIT() {
    auto jit = llvm::orc::LLJITBuilder().create();
    if (!jit) throw CodegenError("cannot start the LLVM JIT: " + llvm::toString(jit.takeError()));
    jit_ = std::shared_ptr<llvm::orc::LLJIT>(std::move(*jit));
    // libm and friends (expf, tanhf, ...) resolve from the process.
    auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit_->getDataLayout().getGlobalPrefix());
    if (!generator) throw CodegenError("JIT: " + llvm::toString(generator.takeError()));
    jit_->getMainJITDylib().addGenerator(std::move(*generator));
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object_, "wb_module.o");
    if (auto err = jit_->addObjectFile(std::move(buffer))) {
      throw CodegenError("JIT: " + llvm::toString(std::move(err)));
    }
    auto lookup = [&](const char* name) -> void* {
      auto addr = jit_->lookup(name);
      if (!addr) {
        llvm::consumeError(addr.takeError());
        return nullptr;
      }
      return addr->toPtr<void*>();
    };
    runtime::LinkBackendApi(lookup);
    // call_packed looks functions up in this module and its imports.
    runtime::LinkModuleEnv(lookup, &env_);
  }

  std::string type_key() const override { return "llvm"; }

  runtime::PackedFunc GetFunction(const std::string& name) override {
    if (!jit_ || std::find(names_.begin(), names_.end(), name) == names_.end()) return {};
    auto addr = jit_->lookup(name);
    if (!addr) {
      llvm::consumeError(addr.takeError());
      return {};
    }
    // The function keeps the module alive: its code, its imports and the ModuleEnv it uses.
    return runtime::WrapPackedCFunc(addr->toPtr<WBPackedCFunc>(), shared_from_this());
  }

  std::vector<std::string> FunctionNames() const override { return names_; }

  std::string GetSource(const std::string& format) const override {
    if (format == "ll") return ll_;
    if (format == "ll-opt") return ll_opt_;
    // The relocatable object, for exports that link more into the library (codegen/vm_export.cpp).
    if (format == "o") return object_;
    if (format == "asm" || format == "s") {
      if (ll_opt_.empty()) return {};  // an object-only build
      // Made on demand from the optimized IR: most builds never show it.
      llvm::LLVMContext context;
      llvm::SMDiagnostic diag;
      std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(ll_opt_, diag, context);
      if (!m) return "; cannot re-read the optimized IR: " + diag.getMessage().str();
      auto tm = MakeTargetMachine(target_);
      return EmitFile(*m, tm.get(), llvm::CodeGenFileType::AssemblyFile);
    }
    // The imported modules' views: a GPU build's "cuda" and "ptx".
    for (const auto& imported : imports()) {
      if (std::string text = imported->GetSource(format); !text.empty()) return text;
    }
    return {};
  }

  bool ExportLibrary(const std::string& path, std::string* error) const override {
    std::string object_path = path + ".o";
    {
      std::ofstream out(object_path, std::ios::binary);
      out.write(object_.data(), static_cast<std::streamsize>(object_.size()));
      if (!out) {
        if (error) *error = "cannot write " + object_path;
        return false;
      }
    }
    // The imported device modules (a GPU build's kernels) travel in the library too, for
    // LoadModule to import back (runtime/module_blob.h).
    std::string imports_path;
    if (!imports().empty()) {
      std::string blob, object;
      try {
        blob = runtime::SaveImports(*this);
      } catch (const runtime::Error& e) {
        if (error) *error = e.what();
        std::remove(object_path.c_str());
        return false;
      }
      std::string why;
      imports_path = path + ".imports.o";
      std::ofstream out(imports_path, std::ios::binary);
      if (!EmitDataObject({{runtime::kImportsSymbol, blob}}, target_, &object, &why) ||
          !out.write(object.data(), static_cast<std::streamsize>(object.size()))) {
        if (error) *error = why.empty() ? "cannot write " + imports_path : why;
        std::remove(object_path.c_str());
        std::remove(imports_path.c_str());
        return false;
      }
    }
    std::string bindir = WB_LLVM_BINDIR;
    std::string linker = !bindir.empty() && access((bindir + "/ld.lld").c_str(), X_OK) == 0
                             ? bindir + "/ld.lld"
                             : std::string("cc");
    std::string log_path = path + ".link.log";
    std::string command = "'" + linker + "' -shared -o '" + path + "' '" + object_path + "'" +
                          (imports_path.empty() ? "" : " '" + imports_path + "'") + " > '" + log_path + "' 2>&1";
    int rc = std::system(command.c_str());
    std::string log;
    {
      std::ifstream in(log_path);
      log.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::remove(object_path.c_str());
    if (!imports_path.empty()) std::remove(imports_path.c_str());
    std::remove(log_path.c_str());
    if (rc != 0) {
      if (error) *error = "linking " + path + " with " + linker + " failed: " + log;
      return false;
    }
    return true;
  }

 private:
  Target target_;
  std::vector<std::string> names_;
  std::string ll_, ll_opt_, object_;
  runtime::ModuleEnv env_{this};
  std::shared_ptr<llvm::orc::LLJIT> jit_;
};

}  // namespace

runtime::Module CodegenLLVM(const ir::IRModule& packed, const Target& target, bool debug_lines,
                            bool object_only) {
  auto tm = MakeTargetMachine(target);
  llvm::LLVMContext context;
  auto module = std::make_unique<llvm::Module>("wb_module", context);
  module->setTargetTriple(target.mtriple);
  module->setDataLayout(tm->createDataLayout());
  CodeGenLLVM cg(&context, module.get(), target, debug_lines);
  std::vector<std::string> names;
  for (size_t i = 0; i < packed->functions.size(); ++i) {
    auto func = packed->functions[i].as_ref<tir::PrimFuncNode>();
    if (!func.defined()) continue;
    std::string name = func->global_symbol();
    if (name.empty()) name = packed->global_vars[i]->name_hint;
    cg.AddPackedFunction(func, name);
    names.push_back(name);
  }
  cg.Finish(names);
  std::string errors;
  llvm::raw_string_ostream es(errors);
  if (llvm::verifyModule(*module, &es)) {
    throw CodegenError("generated LLVM IR is invalid (a codegen bug): " + errors);
  }
  std::string ll = object_only ? std::string() : PrintModule(*module);
  Optimize(*module, tm.get(), target.opt_level);
  std::string ll_opt = object_only ? std::string() : PrintModule(*module);
  std::string object = EmitFile(*module, tm.get(), llvm::CodeGenFileType::ObjectFile);
  auto node = std::make_shared<LLVMModuleNode>(target, names, std::move(ll), std::move(ll_opt), std::move(object));
  if (!object_only) node->StartJIT();
  return runtime::Module(node);
}

runtime::Module LoadLLVMObject(std::string object, std::vector<std::string> names,
                               const Target& target) {
  InitializeLLVM();
  auto node = std::make_shared<LLVMModuleNode>(target, std::move(names), "", "", std::move(object));
  node->StartJIT();
  return runtime::Module(node);
}

}  // namespace wb::codegen
