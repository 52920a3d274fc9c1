// The LLVM IR generator for lowered, packed TIR (internal to core/codegen/llvm: it includes LLVM
// headers, which no public header of the core does). One CodeGenLLVM fills one llvm::Module:
//   codegen_types.cpp   dtypes -> LLVM types, casts, float16/bfloat16 by conversion
//   codegen_expr.cpp    expressions, buffer loads/stores (Ramp/Broadcast -> LLVM vectors)
//   codegen_intrin.cpp  builtin calls: math intrinsics, bit ops, tvm_struct_get, reinterpret
//   codegen_stmt.cpp    statements: loops (vectorize/unroll hints), branches, allocation
//   codegen_host.cpp    functions: the packed entry, compute_scope and parallel-loop closures
//   codegen_debug.cpp   debug line information from the statements' spans (DIBuilder)
#pragma once

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/build.h"
#include "codegen/target.h"
#include "tir/functor.h"
#include "tir/stmt.h"

namespace wb::codegen {



class CodeGenLLVM : public tir::ExprFunctor<llvm::Value*(const ir::PrimExpr&)>,
                    public tir::StmtFunctor<void(const tir::Stmt&)> {
 public:
  using PrimExpr = ir::PrimExpr;
  using DataType = ir::DataType;

  // `debug_lines`: DWARF line information from the statements' spans (BuildOptions::debug_lines).
  CodeGenLLVM(llvm::LLVMContext* context, llvm::Module* module, const Target& target,
              bool debug_lines = false);
  ~CodeGenLLVM();

  // Compiles a PrimFunc that MakePackedAPI produced into the external packed entry `name`.
  void AddPackedFunction(const tir::PrimFunc& func, const std::string& name);
  // Defines the backend-API pointer globals and the function list.
  void Finish(const std::vector<std::string>& entry_names);

  // --- types (codegen_types.cpp)
  llvm::Type* LLVMType(DataType t);     // value in registers (bool: i1, bfloat16: i16)
  llvm::Type* MemoryType(DataType t);   // value in memory (bool: i8)
  bool IsNarrowFloat(DataType t) const { return (t.is_float() && t.bits() == 16) || t.is_bfloat16(); }
  // float16/bfloat16 values widen to float32 for arithmetic and narrow back after each op.
  llvm::Value* Widen(llvm::Value* v, DataType t);
  llvm::Value* Narrow(llvm::Value* v, DataType t);
  llvm::Value* CastValue(llvm::Value* v, DataType from, DataType to);
  llvm::Value* ToMemory(llvm::Value* v, DataType t);
  llvm::Value* FromMemory(llvm::Value* v, DataType t);
  llvm::Constant* ConstInt(DataType t, int64_t v);

  // --- expressions (codegen_expr.cpp)
#define WB_DECL(Name) llvm::Value* VisitExpr_(const tir::Name##Node* op) override;
  WB_EXPR_NODES(WB_DECL)
#undef WB_DECL
  llvm::Value* Emit(const PrimExpr& e) { return tir::ExprFunctor<llvm::Value*(const PrimExpr&)>::VisitExpr(e); }
  llvm::Value* Splat(llvm::Value* v, int lanes);
  // The address of element `index` (scalar) of `buffer`, and a contiguous vector access of
  // `lanes` elements when the flattened index is a unit-stride Ramp.
  struct Access {
    llvm::Value* address = nullptr;   // scalar access / vector base
    llvm::Value* vector_index = nullptr;  // non-contiguous lanes: i64 vector of element indices
    int lanes = 1;
  };
  Access BufferAccess(const tir::Buffer& buffer, const std::vector<PrimExpr>& indices, DataType access);
  llvm::Value* BufferBase(const tir::Buffer& buffer);

  // --- builtin calls (codegen_intrin.cpp)
  llvm::Value* EmitCall(const tir::CallNode* op);
  llvm::Value* EmitMath(const std::string& name, const tir::CallNode* op);
  llvm::Value* EmitCallLLVMIntrin(const tir::CallNode* op);
  llvm::Value* EmitStructGet(const tir::CallNode* op);
  llvm::Value* EmitVectorIfThenElse(const tir::CallNode* op);
  // T.call_packed("name", args...): a lookup through the module context, cached in a global,
  // and a packed call (codegen_call_packed.cpp).
  llvm::Value* EmitCallPacked(const tir::CallNode* op);
  llvm::Value* CallLibm(const std::string& base, std::vector<llvm::Value*> args, DataType t);
  // exp of a float32 vector computed in its lanes (LLVM would call expf lane by lane).
  llvm::Value* VectorExpF32(llvm::Value* x, DataType t);

  // --- statements (codegen_stmt.cpp)
#define WB_DECL(Name) void VisitStmt_(const tir::Name##Node* op) override;
  WB_STMT_NODES(WB_DECL)
#undef WB_DECL
  // Emits `s`; with debug lines on, its instructions carry the line of its span.
  void EmitStmt(const tir::Stmt& s);
  // A loop over [begin, end) of `loop_var` around `body`; `loop_md` are hints for the latch.
  void EmitSerialLoop(const tir::Var& loop_var, llvm::Value* begin, llvm::Value* end, llvm::Value* step,
                      const tir::Stmt& body, std::vector<llvm::Metadata*> loop_md);
  // Returns from the current function with `rc` when it is non-zero.
  void CheckReturnCode(llvm::Value* rc);

  // --- functions (codegen_host.cpp)
  // Variables a statement uses but does not define, in first-use order.
  std::vector<tir::Var> FreeVars(const tir::Stmt& body, const std::vector<tir::Var>& exclude);
  void EmitComputeScope(const tir::AttrStmtNode* op);
  void EmitParallelFor(const tir::ForNode* op);
  // A new internal function i32(params...) whose pointer params that hold buffer data are
  // noalias and aligned; its body is emitted by `emit` with the params bound to `vars`.
  llvm::Function* CreateScopeFunction(const std::string& name, const std::vector<llvm::Type*>& lead,
                                      const std::vector<tir::Var>& vars);
  void SetFunctionAttributes(llvm::Function* fn);
  llvm::Value* BackendFunction(const char* global_name, llvm::FunctionType* type);
  llvm::Value* Lookup(const tir::VarNode* var);

  // --- debug lines (codegen_debug.cpp); no-ops with debug lines off
  // Gives `fn` a subprogram at the line of `span` (or of the function being compiled when
  // undefined) and makes it the builder's current location.
  void BeginDebugFunction(llvm::Function* fn, const Span& span);
  // The location of `span` in the current function; null when there is none.
  llvm::DILocation* DebugLocation(const Span& span);
  llvm::DIFile* DebugFile(const SourceFilePtr& file);
  void FinishDebugInfo();

  // Per-function state, saved and restored around nested functions.
  struct LoopTargets {
    llvm::BasicBlock* break_to;
    llvm::BasicBlock* continue_to;
  };
  struct FunctionState {
    llvm::Function* function = nullptr;
    std::unordered_map<const tir::VarNode*, llvm::Value*> vars;
    std::vector<LoopTargets> loops;
    // Workspace allocations of the statement sequences being emitted, freed at their end.
    std::vector<std::vector<llvm::Value*>> workspaces;
    bool fast_math = false;
    // The lanes a vector if_then_else's branch is evaluated for, while it is emitted: its loads
    // touch only those lanes' elements (null: every lane).
    llvm::Value* load_mask = nullptr;
    llvm::DISubprogram* subprogram = nullptr;  // with debug lines on
  };

  llvm::LLVMContext* ctx_;
  llvm::Module* module_;
  Target target_;
  llvm::IRBuilder<> builder_;
  llvm::MDBuilder md_;
  FunctionState fs_;
  std::string func_name_;  // the entry being compiled, for nested function names
  int closure_counter_ = 0;
  bool fast_math_default_ = false;
  std::unordered_map<std::string, llvm::GlobalVariable*> strings_;
  // Pointers known aligned (bytes): allocations, and arguments after MakePackedAPI's check.
  std::unordered_map<const tir::VarNode*, int64_t> aligned_;
  // Debug lines: null when off. One DIFile per source file the spans point into; the compile
  // unit is on the first.
  std::unique_ptr<llvm::DIBuilder> di_;
  llvm::DICompileUnit* di_unit_ = nullptr;
  std::unordered_map<const SourceFile*, llvm::DIFile*> di_files_;
  Span func_span_;  // the packed entry being compiled
};

}  // namespace wb::codegen
