// Debug line information (BuildOptions::debug_lines): a compile unit on the file the spans point
// into, a subprogram per generated function (the packed entry and its outlined closures), and on
// each instruction the line of the innermost statement it was generated for. Line tables only:
// nothing here changes an instruction, so the code runs as it does without them.
#include "codegen/llvm/codegen_llvm.h"

#include <llvm/BinaryFormat/Dwarf.h>

namespace wb::codegen {

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext* context, llvm::Module* module, const Target& target,
                         bool debug_lines)
    : ctx_(context), module_(module), target_(target), builder_(*context), md_(*context) {
  if (debug_lines) di_ = std::make_unique<llvm::DIBuilder>(*module);
}

CodeGenLLVM::~CodeGenLLVM() = default;

void CodeGenLLVM::EmitStmt(const tir::Stmt& s) {
  if (!di_ || !s.defined()) {
    tir::StmtFunctor<void(const tir::Stmt&)>::VisitStmt(s);
    return;
  }
  // The statement's instructions carry its line; what its parent emits after it, the parent's.
  llvm::DebugLoc outer = builder_.getCurrentDebugLocation();
  if (llvm::DILocation* loc = DebugLocation(s->span)) builder_.SetCurrentDebugLocation(loc);
  tir::StmtFunctor<void(const tir::Stmt&)>::VisitStmt(s);
  builder_.SetCurrentDebugLocation(outer);
}

llvm::DIFile* CodeGenLLVM::DebugFile(const SourceFilePtr& file) {
  auto [it, added] = di_files_.try_emplace(file.get(), nullptr);
  if (added) {
    // The path as the file was named (relative paths stay relative): the views print it.
    it->second = di_->createFile(file ? file->path() : "<generated>", "");
    if (!di_unit_) {
      di_unit_ = di_->createCompileUnit(llvm::dwarf::DW_LANG_Python, it->second, "workbench",
                                        /*isOptimized=*/target_.opt_level > 0, "", 0, "",
                                        llvm::DICompileUnit::LineTablesOnly);
    }
  }
  return it->second;
}

void CodeGenLLVM::BeginDebugFunction(llvm::Function* fn, const Span& span) {
  if (!di_) return;
  const Span& at = span.defined() ? span : func_span_;
  llvm::DIFile* file = DebugFile(at.file);
  unsigned line = at.defined() ? at.start().line : 0;
  auto* type = di_->createSubroutineType(di_->getOrCreateTypeArray({}));
  llvm::DISubprogram* sp = di_->createFunction(
      file, fn->getName(), fn->getName(), file, line, type, line, llvm::DINode::FlagZero,
      llvm::DISubprogram::SPFlagDefinition |
          (target_.opt_level > 0 ? llvm::DISubprogram::SPFlagOptimized : llvm::DISubprogram::SPFlagZero));
  fn->setSubprogram(sp);
  fs_.subprogram = sp;
  // Every instruction has a location in the function, the function's line until a statement's.
  builder_.SetCurrentDebugLocation(llvm::DILocation::get(*ctx_, line, 0, sp));
}

llvm::DILocation* CodeGenLLVM::DebugLocation(const Span& span) {
  if (!di_ || !fs_.subprogram || !span.defined()) return nullptr;
  SourceFile::Position pos = span.start();
  llvm::DIScope* scope = fs_.subprogram;
  if (DebugFile(span.file) != fs_.subprogram->getFile()) {
    scope = di_->createLexicalBlockFile(fs_.subprogram, DebugFile(span.file));
  }
  return llvm::DILocation::get(*ctx_, pos.line, pos.column, scope);
}

void CodeGenLLVM::FinishDebugInfo() {
  if (!di_) return;
  di_->finalize();
  module_->addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  module_->addModuleFlag(llvm::Module::Warning, "Dwarf Version", 4);
}

}  // namespace wb::codegen
