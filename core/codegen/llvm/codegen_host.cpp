// Functions: the packed entry, and the functions outlined from it: the `compute_scope` body
// (whose buffer pointers become noalias, aligned parameters, the facts LLVM needs to vectorize
// and hoist), and each parallel loop (a closure the runtime thread pool calls per task).
#include <set>

#include "codegen/llvm/codegen_llvm.h"
#include "runtime/c_backend_api.h"

namespace wb::codegen {

using namespace tir;
using ir::DataType;

namespace {

class FreeVarCollector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  void VisitExpr_(const VarNode* op) override { Use(op); }
  void VisitExpr_(const SizeVarNode* op) override { Use(op); }
  void VisitExpr_(const LetNode* op) override {
    defined.insert(op->var.get());
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BindNode* op) override {
    defined.insert(op->var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ForNode* op) override {
    defined.insert(op->loop_var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AllocBufferNode* op) override {
    defined.insert(op->buffer->data.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const DeclBufferNode* op) override {
    UseBuffer(op->buffer);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    UseBuffer(op->buffer);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    UseBuffer(op->buffer);
    StmtExprVisitor::VisitStmt_(op);
  }

  // The codegen flattens with the buffer's shape, strides and offset: their variables count.
  void UseBuffer(const Buffer& b) {
    Use(b->data.get());
    for (const auto& e : b->shape) ExprVisitor::VisitExpr(e);
    for (const auto& e : b->strides) ExprVisitor::VisitExpr(e);
    if (b->elem_offset.defined()) ExprVisitor::VisitExpr(b->elem_offset);
  }
  void Use(const VarNode* v) {
    if (seen.insert(v).second) order.push_back(v);
  }

  std::set<const VarNode*> defined;
  std::set<const VarNode*> seen;
  std::vector<const VarNode*> order;
};

}  // namespace

std::vector<Var> CodeGenLLVM::FreeVars(const Stmt& body, const std::vector<Var>& exclude) {
  FreeVarCollector c;
  c(body);
  std::set<const VarNode*> skip(c.defined.begin(), c.defined.end());
  for (const auto& v : exclude) skip.insert(v.get());
  std::vector<Var> out;
  for (const VarNode* v : c.order) {
    if (skip.count(v) || !fs_.vars.count(v)) continue;
    out.push_back(ir::GetRef(v));
  }
  return out;
}

void CodeGenLLVM::SetFunctionAttributes(llvm::Function* fn) {
  fn->addFnAttr("target-cpu", target_.mcpu);
  std::string features;
  for (const auto& f : target_.features) features += (features.empty() ? "" : ",") + f;
  fn->addFnAttr("target-features", features);
  // LLVM tunes AVX-512 hosts for 256-bit vectors; generated kernels want the full width.
  if (target_.HasFeature("avx512f")) fn->addFnAttr("prefer-vector-width", "512");
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  if (fs_.fast_math) {
    fn->addFnAttr("unsafe-fp-math", "true");
    fn->addFnAttr("no-signed-zeros-fp-math", "true");
  }
}

llvm::Value* CodeGenLLVM::BackendFunction(const char* global_name, llvm::FunctionType* type) {
  llvm::GlobalVariable* g = module_->getNamedGlobal(global_name);
  if (!g) {
    g = new llvm::GlobalVariable(*module_, builder_.getPtrTy(), false, llvm::GlobalValue::ExternalLinkage,
                                 llvm::ConstantPointerNull::get(builder_.getPtrTy()), global_name);
    g->setAlignment(llvm::Align(8));
  }
  return builder_.CreateAlignedLoad(builder_.getPtrTy(), g, llvm::Align(8));
}

llvm::Function* CodeGenLLVM::CreateScopeFunction(const std::string& name, const std::vector<llvm::Type*>& lead,
                                                 const std::vector<Var>& vars) {
  std::vector<llvm::Type*> params = lead;
  for (const auto& v : vars) params.push_back(LLVMType(v->dtype));
  auto* type = llvm::FunctionType::get(builder_.getInt32Ty(), params, false);
  auto* fn = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, module_);
  SetFunctionAttributes(fn);
  for (size_t i = 0; i < vars.size(); ++i) {
    llvm::Argument* arg = fn->getArg(static_cast<unsigned>(lead.size() + i));
    arg->setName(vars[i]->name_hint);
    auto* ptr = vars[i]->type_annotation.as<ir::PointerTypeNode>();
    if (ptr && ptr->element_type.defined()) {
      // Buffer data: distinct buffers do not overlap (TVM's assumption for PrimFunc buffers).
      arg->addAttr(llvm::Attribute::NoAlias);
      if (auto it = aligned_.find(vars[i].get()); it != aligned_.end()) {
        arg->addAttr(llvm::Attribute::getWithAlignment(*ctx_, llvm::Align(it->second)));
      }
    }
  }
  return fn;
}

void CodeGenLLVM::AddPackedFunction(const PrimFunc& func, const std::string& name) {
  llvm::Type* ptr = builder_.getPtrTy();
  auto* type = llvm::FunctionType::get(builder_.getInt32Ty(),
                                       {ptr, ptr, builder_.getInt32Ty(), ptr, ptr, ptr}, false);
  if (func->params.size() != 6) {
    throw CodegenError("function '" + name + "' is not in the packed form: run MakePackedAPI first");
  }
  auto* fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module_);
  fs_ = FunctionState{};
  fs_.function = fn;
  func_name_ = name;
  func_span_ = func->span;
  BeginDebugFunction(fn, func->span);
  if (auto* fm = func->GetAttr("fast_math")) {
    if (ir::IsInstance<ir::BoolObj>(fm)) fs_.fast_math = static_cast<const ir::BoolObj*>(fm)->value;
    if (ir::IsInstance<ir::IntObj>(fm)) fs_.fast_math = static_cast<const ir::IntObj*>(fm)->value != 0;
  }
  SetFunctionAttributes(fn);
  builder_.clearFastMathFlags();
  if (fs_.fast_math) builder_.setFastMathFlags(llvm::FastMathFlags::getFast());
  for (size_t i = 0; i < 6; ++i) {
    fn->getArg(static_cast<unsigned>(i))->setName(func->params[i]->name_hint);
    fs_.vars[func->params[i].get()] = fn->getArg(static_cast<unsigned>(i));
  }
  builder_.SetInsertPoint(llvm::BasicBlock::Create(*ctx_, "entry", fn));
  EmitStmt(func->body);
  if (!builder_.GetInsertBlock()->getTerminator()) builder_.CreateRet(builder_.getInt32(0));
}

namespace {

// Swaps in a fresh function state for an outlined function and restores the caller's after.
struct NestedFunction {
  NestedFunction(CodeGenLLVM* cg, llvm::Function* fn)
      : cg(cg), saved(std::move(cg->fs_)), ip(cg->builder_.saveIP()), loc(cg->builder_.getCurrentDebugLocation()) {
    cg->fs_ = CodeGenLLVM::FunctionState{};
    cg->fs_.function = fn;
    cg->fs_.fast_math = saved.fast_math;
    cg->builder_.SetInsertPoint(llvm::BasicBlock::Create(*cg->ctx_, "entry", fn));
    cg->BeginDebugFunction(fn, {});
  }
  ~NestedFunction() {
    cg->fs_ = std::move(saved);
    cg->builder_.restoreIP(ip);
    cg->builder_.SetCurrentDebugLocation(loc);
  }
  CodeGenLLVM* cg;
  CodeGenLLVM::FunctionState saved;
  llvm::IRBuilderBase::InsertPoint ip;
  llvm::DebugLoc loc;
};

}  // namespace

void CodeGenLLVM::EmitComputeScope(const AttrStmtNode* op) {
  std::vector<Var> vars = FreeVars(op->body, {});
  std::vector<llvm::Value*> values;
  for (const auto& v : vars) values.push_back(Lookup(v.get()));
  llvm::Function* fn = CreateScopeFunction(func_name_ + "_compute_", {}, vars);
  {
    NestedFunction nested(this, fn);
    for (size_t i = 0; i < vars.size(); ++i) fs_.vars[vars[i].get()] = fn->getArg(static_cast<unsigned>(i));
    EmitStmt(op->body);
    if (!builder_.GetInsertBlock()->getTerminator()) builder_.CreateRet(builder_.getInt32(0));
  }
  CheckReturnCode(builder_.CreateCall(fn, values));
}

void CodeGenLLVM::EmitParallelFor(const ForNode* op) {
  if (op->step.defined() && !IsConstInt(op->step, 1)) {
    throw CodegenError("parallel loop '" + op->loop_var->name_hint + "' must have step 1");
  }
  DataType t = op->loop_var->dtype;
  llvm::Type* i64 = builder_.getInt64Ty();
  llvm::Type* i32 = builder_.getInt32Ty();
  llvm::Type* ptr = builder_.getPtrTy();
  std::vector<Var> vars = FreeVars(op->body, {op->loop_var});
  int id = closure_counter_++;
  std::string base = func_name_ + "_parallel_" + std::to_string(id);

  // The closure data: {min, extent, free variables...}, on the caller's stack.
  std::vector<llvm::Type*> fields{i64, i64};
  for (const auto& v : vars) fields.push_back(LLVMType(v->dtype));
  auto* cdata_type = llvm::StructType::create(*ctx_, fields, base + "_cdata");
  llvm::IRBuilder<> entry(&fs_.function->getEntryBlock(), fs_.function->getEntryBlock().begin());
  llvm::Value* cdata = entry.CreateAlloca(cdata_type);
  builder_.CreateStore(builder_.CreateSExtOrTrunc(Emit(op->min), i64), builder_.CreateStructGEP(cdata_type, cdata, 0));
  builder_.CreateStore(builder_.CreateSExtOrTrunc(Emit(op->extent), i64), builder_.CreateStructGEP(cdata_type, cdata, 1));
  for (size_t i = 0; i < vars.size(); ++i) {
    builder_.CreateStore(Lookup(vars[i].get()), builder_.CreateStructGEP(cdata_type, cdata, static_cast<unsigned>(i + 2)));
  }

  // The loop over one task's chunk, with the variables as (noalias) parameters.
  llvm::Function* body_fn = CreateScopeFunction(base + "_body", {i64, i64}, vars);
  {
    NestedFunction nested(this, body_fn);
    for (size_t i = 0; i < vars.size(); ++i) fs_.vars[vars[i].get()] = body_fn->getArg(static_cast<unsigned>(i + 2));
    llvm::Value* begin = CastValue(body_fn->getArg(0), DataType::Int(64), t);
    llvm::Value* end = CastValue(body_fn->getArg(1), DataType::Int(64), t);
    EmitSerialLoop(op->loop_var, begin, end, ConstInt(t, 1), op->body, {});
    if (!builder_.GetInsertBlock()->getTerminator()) builder_.CreateRet(builder_.getInt32(0));
  }

  // The lambda the thread pool calls: task `task_id` of `num_task` takes a contiguous chunk.
  auto* lambda_type = llvm::FunctionType::get(i32, {i32, i32, ptr}, false);
  auto* lambda = llvm::Function::Create(lambda_type, llvm::GlobalValue::InternalLinkage, base, module_);
  SetFunctionAttributes(lambda);
  {
    NestedFunction nested(this, lambda);
    llvm::Value* data = lambda->getArg(2);
    llvm::Value* min = builder_.CreateLoad(i64, builder_.CreateStructGEP(cdata_type, data, 0));
    llvm::Value* extent = builder_.CreateLoad(i64, builder_.CreateStructGEP(cdata_type, data, 1));
    llvm::Value* task = builder_.CreateSExt(lambda->getArg(0), i64);
    llvm::Value* ntask = builder_.CreateSExt(lambda->getArg(1), i64);
    llvm::Value* chunk = builder_.CreateSDiv(builder_.CreateAdd(extent, builder_.CreateSub(ntask, builder_.getInt64(1))), ntask);
    llvm::Value* begin = builder_.CreateMul(task, chunk);
    llvm::Value* end = builder_.CreateAdd(begin, chunk);
    end = builder_.CreateSelect(builder_.CreateICmpSLT(extent, end), extent, end);
    std::vector<llvm::Value*> args{builder_.CreateAdd(min, begin), builder_.CreateAdd(min, end)};
    for (size_t i = 0; i < vars.size(); ++i) {
      llvm::Type* ft = fields[i + 2];
      args.push_back(builder_.CreateLoad(ft, builder_.CreateStructGEP(cdata_type, data, static_cast<unsigned>(i + 2))));
    }
    builder_.CreateRet(builder_.CreateCall(body_fn, args));
  }

  // As many tasks as the loop has iterations, at most (the pool takes fewer when it has fewer
  // threads): a short loop wakes no thread it has no work for.
  llvm::Value* extent64 = builder_.CreateSExtOrTrunc(Emit(op->extent), i64);
  llvm::Value* int32_max = builder_.getInt64(INT32_MAX);
  llvm::Value* clamped =
      builder_.CreateSelect(builder_.CreateICmpSLT(extent64, int32_max), extent64, int32_max);
  clamped = builder_.CreateSelect(builder_.CreateICmpSLT(clamped, builder_.getInt64(1)),
                                  builder_.getInt64(1), clamped);
  llvm::Value* num_task = builder_.CreateTrunc(clamped, i32);
  auto* launch_type = llvm::FunctionType::get(i32, {ptr, ptr, i32}, false);
  llvm::Value* rc = builder_.CreateCall(launch_type, BackendFunction(runtime::kParallelLaunchSymbol, launch_type),
                                        {lambda, cdata, num_task});
  CheckReturnCode(rc);
}

void CodeGenLLVM::Finish(const std::vector<std::string>& entry_names) {
  std::string list;
  for (const auto& n : entry_names) list += (list.empty() ? "" : ",") + n;
  auto* init = llvm::ConstantDataArray::getString(*ctx_, list, /*AddNull=*/true);
  new llvm::GlobalVariable(*module_, init->getType(), true, llvm::GlobalValue::ExternalLinkage, init,
                           runtime::kFunctionListSymbol);
  FinishDebugInfo();
}

}  // namespace wb::codegen
