// T.call_packed("name", args...) in host code (after LowerDeviceKernelLaunch the host launches
// each GPU kernel this way), lowered as TVM's codegen_cpu lowers tvm_call_packed_lowered:
//   1. the function handle, cached in a module global `__wb_func_<name>`; on first use it is
//      looked up with WBBackendGetFuncFromEnv(__wb_module_ctx, "name", &handle);
//   2. the arguments packed into WBValue / type-code arrays on the stack;
//   3. WBFuncCall(handle, values, codes, n, &ret, &ret_code); a non-zero result returns from
//      the function with that code (the callee's message is the last error).
// The entry points are pointer globals the loader fills (runtime/backend_env.h); a module
// loaded without them fails with a message instead of jumping to null.
#include "codegen/llvm/codegen_llvm.h"
#include "runtime/backend_env.h"
#include "runtime/c_backend_api.h"

namespace wb::codegen {

using namespace tir;
using ir::DataType;

namespace {

llvm::GlobalVariable* PointerGlobal(llvm::Module* m, const std::string& name, llvm::GlobalValue::LinkageTypes linkage) {
  if (auto* g = m->getNamedGlobal(name)) return g;
  auto* ptr = llvm::PointerType::getUnqual(m->getContext());
  auto* g = new llvm::GlobalVariable(*m, ptr, false, linkage, llvm::ConstantPointerNull::get(ptr), name);
  g->setAlignment(llvm::Align(8));
  return g;
}

}  // namespace

llvm::Value* CodeGenLLVM::EmitCallPacked(const CallNode* op) {
  auto* name = op->args.empty() ? nullptr : op->args[0].as<StringImmNode>();
  if (!name) throw CodegenError("T.call_packed needs the function name (a string) first");
  llvm::Type* i32 = builder_.getInt32Ty();
  llvm::Type* i64 = builder_.getInt64Ty();
  llvm::Type* ptr = builder_.getPtrTy();
  llvm::Function* fn = fs_.function;

  // 1. The handle: cached per module and name (internal: each module looks up its own).
  llvm::GlobalVariable* cache = PointerGlobal(module_, "__wb_func_" + name->value, llvm::GlobalValue::InternalLinkage);
  llvm::Value* cached = builder_.CreateAlignedLoad(ptr, cache, llvm::Align(8));
  llvm::BasicBlock* before = builder_.GetInsertBlock();
  auto* lookup_bb = llvm::BasicBlock::Create(*ctx_, "packed_lookup", fn);
  auto* ready_bb = llvm::BasicBlock::Create(*ctx_, "packed_ready", fn);
  builder_.CreateCondBr(builder_.CreateIsNull(cached), lookup_bb, ready_bb, md_.createBranchWeights(1, 1 << 20));
  builder_.SetInsertPoint(lookup_bb);
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  llvm::Value* out = entry.CreateAlloca(ptr);
  auto* lookup_type = llvm::FunctionType::get(i32, {ptr, ptr, ptr}, false);
  llvm::Value* lookup_fn = BackendFunction(runtime::kGetFuncFromEnvSymbol, lookup_type);
  auto* linked_bb = llvm::BasicBlock::Create(*ctx_, "packed_env_linked", fn);
  auto* unlinked_bb = llvm::BasicBlock::Create(*ctx_, "packed_env_missing", fn);
  builder_.CreateCondBr(builder_.CreateIsNull(lookup_fn), unlinked_bb, linked_bb);
  builder_.SetInsertPoint(unlinked_bb);
  {
    // Loaded without a module environment: say so through the last error.
    auto* set_error_type = llvm::FunctionType::get(builder_.getVoidTy(), {ptr}, false);
    llvm::Value* set_error = BackendFunction(runtime::kSetLastErrorSymbol, set_error_type);
    std::string message = "call_packed(\"" + name->value +
                          "\"): this module was loaded without a module environment to find it in";
    auto* has_setter = llvm::BasicBlock::Create(*ctx_, "packed_set_error", fn);
    auto* fail = llvm::BasicBlock::Create(*ctx_, "packed_fail", fn);
    builder_.CreateCondBr(builder_.CreateIsNull(set_error), fail, has_setter);
    builder_.SetInsertPoint(has_setter);
    builder_.CreateCall(set_error_type, set_error, {builder_.CreateGlobalStringPtr(message)});
    builder_.CreateBr(fail);
    builder_.SetInsertPoint(fail);
    builder_.CreateRet(builder_.getInt32(-1));
  }
  builder_.SetInsertPoint(linked_bb);
  llvm::Value* ctx = builder_.CreateAlignedLoad(ptr, PointerGlobal(module_, runtime::kModuleCtxSymbol,
                                                                    llvm::GlobalValue::ExternalLinkage),
                                                llvm::Align(8));
  llvm::Value* rc = builder_.CreateCall(lookup_type, lookup_fn, {ctx, Emit(op->args[0]), out});
  CheckReturnCode(rc);
  llvm::Value* found = builder_.CreateLoad(ptr, out);
  builder_.CreateAlignedStore(found, cache, llvm::Align(8));
  llvm::BasicBlock* lookup_end = builder_.GetInsertBlock();
  builder_.CreateBr(ready_bb);
  builder_.SetInsertPoint(ready_bb);
  llvm::PHINode* handle = builder_.CreatePHI(ptr, 2);
  handle->addIncoming(cached, before);
  handle->addIncoming(found, lookup_end);

  // 2. The arguments: 8-byte WBValue slots and their type codes.
  const int n = static_cast<int>(op->args.size()) - 1;
  llvm::Value* values = entry.CreateAlloca(llvm::ArrayType::get(i64, std::max(n, 1)));
  llvm::Value* codes = entry.CreateAlloca(llvm::ArrayType::get(i32, std::max(n, 1)));
  auto* values_type = llvm::ArrayType::get(i64, std::max(n, 1));
  auto* codes_type = llvm::ArrayType::get(i32, std::max(n, 1));
  for (int i = 0; i < n; ++i) {
    const PrimExpr& a = op->args[i + 1];
    DataType t = a->dtype;
    if (t.lanes() != 1) throw CodegenError("T.call_packed: argument " + std::to_string(i) + " is a vector");
    llvm::Value* v = Emit(a);
    int32_t code = 0;
    llvm::Value* stored = nullptr;
    if (a.as<StringImmNode>()) {
      code = kWBStr;
      stored = v;
    } else if (t.is_handle()) {
      code = kWBOpaqueHandle;
      stored = v;
    } else if (t.is_floating_point()) {
      code = kWBArgFloat;
      stored = builder_.CreateFPCast(Widen(v, t), builder_.getDoubleTy());
    } else if (t.is_int() || t.is_uint() || t.is_bool()) {
      code = kWBArgInt;
      stored = t.is_int() ? builder_.CreateSExt(v, i64) : builder_.CreateZExt(v, i64);
    } else {
      throw CodegenError("T.call_packed: argument " + std::to_string(i) + " has unsupported dtype " + t.ToString());
    }
    llvm::Value* slot = builder_.CreateInBoundsGEP(values_type, values, {builder_.getInt32(0), builder_.getInt32(i)});
    builder_.CreateAlignedStore(stored, slot, llvm::Align(8));
    llvm::Value* code_slot = builder_.CreateInBoundsGEP(codes_type, codes, {builder_.getInt32(0), builder_.getInt32(i)});
    builder_.CreateStore(builder_.getInt32(code), code_slot);
  }

  // 3. The call.
  llvm::Value* ret_value = entry.CreateAlloca(i64);
  llvm::Value* ret_code = entry.CreateAlloca(i32);
  auto* call_type = llvm::FunctionType::get(i32, {ptr, ptr, ptr, i32, ptr, ptr}, false);
  llvm::Value* call_fn = BackendFunction(runtime::kFuncCallSymbol, call_type);
  CheckReturnCode(builder_.CreateCall(call_type, call_fn,
                                      {handle, values, codes, builder_.getInt32(n), ret_value, ret_code}));
  return builder_.getInt32(0);
}

}  // namespace wb::codegen
