// Statements: loops (vectorized/unrolled loops become loops with LLVM's vectorize/unroll hints;
// parallel loops are outlined in codegen_host.cpp), branches, asserts, allocation.
#include "codegen/llvm/codegen_llvm.h"
#include "runtime/c_backend_api.h"
#include "tir/builtin.h"
#include "tir/op.h"

namespace wb::codegen {

using namespace tir;
using ir::DataType;

namespace {
// Allocations up to this size live on the stack; larger ones come from the runtime workspace.
constexpr int64_t kMaxStackAlloc = 64 * 1024;
}  // namespace

void CodeGenLLVM::CheckReturnCode(llvm::Value* rc) {
  llvm::Function* fn = fs_.function;
  auto* fail = llvm::BasicBlock::Create(*ctx_, "call_fail", fn);
  auto* ok = llvm::BasicBlock::Create(*ctx_, "call_ok", fn);
  builder_.CreateCondBr(builder_.CreateICmpEQ(rc, builder_.getInt32(0)), ok, fail,
                        md_.createBranchWeights(1 << 20, 1));
  builder_.SetInsertPoint(fail);
  builder_.CreateRet(rc);
  builder_.SetInsertPoint(ok);
}

void CodeGenLLVM::EmitSerialLoop(const Var& loop_var, llvm::Value* begin, llvm::Value* end,
                                 llvm::Value* step, const Stmt& body,
                                 std::vector<llvm::Metadata*> loop_md) {
  llvm::Function* fn = fs_.function;
  llvm::BasicBlock* pre = builder_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(*ctx_, "for_begin", fn);
  auto* body_bb = llvm::BasicBlock::Create(*ctx_, "for_body", fn);
  auto* latch = llvm::BasicBlock::Create(*ctx_, "for_latch", fn);
  auto* exit = llvm::BasicBlock::Create(*ctx_, "for_end", fn);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode* iv = builder_.CreatePHI(begin->getType(), 2, loop_var->name_hint);
  iv->addIncoming(begin, pre);
  llvm::Value* cond = loop_var->dtype.is_uint() ? builder_.CreateICmpULT(iv, end)
                                                 : builder_.CreateICmpSLT(iv, end);
  builder_.CreateCondBr(cond, body_bb, exit);
  builder_.SetInsertPoint(body_bb);
  fs_.vars[loop_var.get()] = iv;
  fs_.loops.push_back({exit, latch});
  EmitStmt(body);
  fs_.loops.pop_back();
  if (!builder_.GetInsertBlock()->getTerminator()) builder_.CreateBr(latch);
  builder_.SetInsertPoint(latch);
  llvm::Value* next = builder_.CreateAdd(iv, step, "", /*HasNUW=*/false, /*HasNSW=*/true);
  llvm::BranchInst* back = builder_.CreateBr(header);
  iv->addIncoming(next, latch);
  if (!loop_md.empty()) {
    std::vector<llvm::Metadata*> ops{nullptr};
    for (auto* m : loop_md) ops.push_back(m);
    llvm::MDNode* node = llvm::MDNode::getDistinct(*ctx_, ops);
    node->replaceOperandWith(0, node);
    back->setMetadata(llvm::LLVMContext::MD_loop, node);
  }
  builder_.SetInsertPoint(exit);
}

void CodeGenLLVM::VisitStmt_(const ForNode* op) {
  if (op->kind == ForKind::kParallel) return EmitParallelFor(op);
  if (op->kind == ForKind::kThreadBinding) {
    throw CodegenError("loop '" + op->loop_var->name_hint +
                       "' is bound to a GPU thread: the LLVM (CPU) target cannot run it");
  }
  DataType t = op->loop_var->dtype;
  llvm::Value* begin = CastValue(Emit(op->min), op->min->dtype, t);
  llvm::Value* extent = CastValue(Emit(op->extent), op->extent->dtype, t);
  llvm::Value* end = builder_.CreateAdd(begin, extent);
  llvm::Value* step = op->step.defined() ? CastValue(Emit(op->step), op->step->dtype, t) : ConstInt(t, 1);
  std::vector<llvm::Metadata*> md;
  auto flag = [&](const char* name) { return llvm::MDNode::get(*ctx_, {llvm::MDString::get(*ctx_, name)}); };
  auto flag_value = [&](const char* name, llvm::Constant* value) {
    return llvm::MDNode::get(*ctx_, {llvm::MDString::get(*ctx_, name), llvm::ConstantAsMetadata::get(value)});
  };
  if (op->kind == ForKind::kVectorized) {
    // The schedule asked for SIMD: LLVM's loop vectorizer does it, at most one register wide.
    md.push_back(flag_value("llvm.loop.vectorize.enable", builder_.getTrue()));
    if (const int64_t* n = AsConstInt(op->extent)) {
      int64_t width = 1;
      while (width * 2 <= *n && width * 2 <= 64) width *= 2;
      md.push_back(flag_value("llvm.loop.vectorize.width", builder_.getInt32(static_cast<uint32_t>(width))));
    }
  } else if (op->kind == ForKind::kUnrolled) {
    md.push_back(flag("llvm.loop.unroll.full"));
  }
  EmitSerialLoop(op->loop_var, begin, end, step, op->body, md);
}

void CodeGenLLVM::VisitStmt_(const WhileNode* op) {
  llvm::Function* fn = fs_.function;
  auto* header = llvm::BasicBlock::Create(*ctx_, "while_cond", fn);
  auto* body = llvm::BasicBlock::Create(*ctx_, "while_body", fn);
  auto* exit = llvm::BasicBlock::Create(*ctx_, "while_end", fn);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  builder_.CreateCondBr(Emit(op->condition), body, exit);
  builder_.SetInsertPoint(body);
  fs_.loops.push_back({exit, header});
  EmitStmt(op->body);
  fs_.loops.pop_back();
  if (!builder_.GetInsertBlock()->getTerminator()) builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
}

void CodeGenLLVM::VisitStmt_(const BreakNode* op) {
  if (fs_.loops.empty()) throw CodegenError("break outside a loop");
  builder_.CreateBr(fs_.loops.back().break_to);
  builder_.SetInsertPoint(llvm::BasicBlock::Create(*ctx_, "after_break", fs_.function));
}

void CodeGenLLVM::VisitStmt_(const ContinueNode* op) {
  if (fs_.loops.empty()) throw CodegenError("continue outside a loop");
  builder_.CreateBr(fs_.loops.back().continue_to);
  builder_.SetInsertPoint(llvm::BasicBlock::Create(*ctx_, "after_continue", fs_.function));
}

void CodeGenLLVM::VisitStmt_(const IfThenElseNode* op) {
  llvm::Function* fn = fs_.function;
  auto* then_bb = llvm::BasicBlock::Create(*ctx_, "if_then", fn);
  auto* end_bb = llvm::BasicBlock::Create(*ctx_, "if_end", fn);
  auto* else_bb = op->else_case.defined() ? llvm::BasicBlock::Create(*ctx_, "if_else", fn) : end_bb;
  builder_.CreateCondBr(Emit(op->condition), then_bb, else_bb);
  builder_.SetInsertPoint(then_bb);
  EmitStmt(op->then_case);
  if (!builder_.GetInsertBlock()->getTerminator()) builder_.CreateBr(end_bb);
  if (op->else_case.defined()) {
    builder_.SetInsertPoint(else_bb);
    EmitStmt(op->else_case);
    if (!builder_.GetInsertBlock()->getTerminator()) builder_.CreateBr(end_bb);
  }
  builder_.SetInsertPoint(end_bb);
}

void CodeGenLLVM::VisitStmt_(const SeqStmtNode* op) {
  fs_.workspaces.emplace_back();
  for (const auto& s : op->seq) EmitStmt(s);
  std::vector<llvm::Value*> frees = std::move(fs_.workspaces.back());
  fs_.workspaces.pop_back();
  if (!frees.empty() && !builder_.GetInsertBlock()->getTerminator()) {
    auto* type = llvm::FunctionType::get(builder_.getInt32Ty(), {builder_.getPtrTy()}, false);
    for (auto it = frees.rbegin(); it != frees.rend(); ++it) {
      builder_.CreateCall(type, BackendFunction(runtime::kFreeWorkspaceSymbol, type), {*it});
    }
  }
}

void CodeGenLLVM::VisitStmt_(const EvaluateNode* op) {
  if (op->value.as<IntImmNode>() || op->value.as<FloatImmNode>()) return;
  Emit(op->value);
}

void CodeGenLLVM::VisitStmt_(const BindNode* op) { fs_.vars[op->var.get()] = Emit(op->value); }

void CodeGenLLVM::VisitStmt_(const AttrStmtNode* op) {
  if (op->attr_key == "compute_scope") return EmitComputeScope(op);
  if (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread") {
    throw CodegenError("thread launch (" + op->attr_key + ") in a CPU function: the LLVM target cannot run GPU kernels");
  }
  EmitStmt(op->body);
}

void CodeGenLLVM::VisitStmt_(const AssertStmtNode* op) {
  // A MakePackedAPI alignment check tells the code after it the pointer's alignment.
  if (auto* eq = op->condition.as<EQNode>()) {
    if (auto* mod = eq->a.as<FloorModNode>(); mod && IsConstInt(eq->b, 0)) {
      auto* call = mod->a.as<CallNode>();
      const int64_t* align = AsConstInt(mod->b);
      if (call && align && call->args.size() == 1) {
        if (auto* v = call->args[0].as<VarNode>()) aligned_[v] = *align;
      }
    }
  }
  llvm::Function* fn = fs_.function;
  auto* fail = llvm::BasicBlock::Create(*ctx_, "assert_fail", fn);
  auto* ok = llvm::BasicBlock::Create(*ctx_, "assert_ok", fn);
  builder_.CreateCondBr(Emit(op->condition), ok, fail, md_.createBranchWeights(1 << 20, 1));
  builder_.SetInsertPoint(fail);
  std::string message;
  for (const auto& part : op->message_parts) message += part->value;
  if (message.empty()) message = "assertion failed";
  auto* type = llvm::FunctionType::get(builder_.getVoidTy(), {builder_.getPtrTy()}, false);
  builder_.CreateCall(type, BackendFunction(runtime::kSetLastErrorSymbol, type),
                      {Emit(MakeStringImm(message))});
  builder_.CreateRet(builder_.getInt32(-1));
  builder_.SetInsertPoint(ok);
}

void CodeGenLLVM::VisitStmt_(const BufferStoreNode* op) {
  DataType t = op->value->dtype;
  llvm::Value* value = ToMemory(Emit(op->value), t);
  Access a = BufferAccess(op->buffer, op->indices, t);
  DataType elem_t = op->buffer->dtype;
  llvm::Type* mem_elem = MemoryType(elem_t);
  llvm::Align align(std::max(1, elem_t.bytes() * elem_t.lanes()));
  llvm::Value* predicate = op->predicate.defined() ? Emit(op->predicate) : nullptr;
  if (a.vector_index) {
    for (int i = 0; i < a.lanes; ++i) {
      llvm::Value* idx = builder_.CreateExtractElement(a.vector_index, i);
      llvm::Value* p = builder_.CreateInBoundsGEP(mem_elem, a.address, idx);
      llvm::Value* lane = builder_.CreateExtractElement(value, i);
      if (predicate) {
        auto* store_bb = llvm::BasicBlock::Create(*ctx_, "lane_store", fs_.function);
        auto* next_bb = llvm::BasicBlock::Create(*ctx_, "lane_next", fs_.function);
        builder_.CreateCondBr(builder_.CreateExtractElement(predicate, i), store_bb, next_bb);
        builder_.SetInsertPoint(store_bb);
        builder_.CreateAlignedStore(lane, p, align);
        builder_.CreateBr(next_bb);
        builder_.SetInsertPoint(next_bb);
      } else {
        builder_.CreateAlignedStore(lane, p, align);
      }
    }
  } else if (predicate) {
    builder_.CreateMaskedStore(value, a.address, align, predicate);
  } else {
    builder_.CreateAlignedStore(value, a.address, align);
  }
}

void CodeGenLLVM::VisitStmt_(const AllocBufferNode* op) {
  const Buffer& buffer = op->buffer;
  std::string scope = buffer->scope();
  if (scope != "global" && scope != "local" && scope != "" && scope != "global.workspace") {
    throw CodegenError("buffer '" + buffer->name + "' in scope '" + scope + "' cannot live on the CPU");
  }
  int64_t elem_bytes = std::max<int64_t>(1, (buffer->dtype.bits() * buffer->dtype.lanes() + 7) / 8);
  PrimExpr count = make_const(DataType::Int(64), int64_t{1});
  for (const auto& d : buffer->shape) count = mul(count, cast(DataType::Int(64), d));
  const int64_t* n = AsConstInt(count);
  llvm::Value* ptr;
  if (n && *n * elem_bytes <= kMaxStackAlloc) {
    // In the entry block: one stack slot per function, whatever loop the allocation sits in.
    llvm::IRBuilder<> entry(&fs_.function->getEntryBlock(), fs_.function->getEntryBlock().begin());
    auto* alloca = entry.CreateAlloca(builder_.getInt8Ty(), entry.getInt64(std::max<int64_t>(1, *n * elem_bytes)),
                                      buffer->name);
    alloca->setAlignment(llvm::Align(64));
    ptr = alloca;
  } else {
    llvm::Value* bytes = builder_.CreateMul(Emit(count), builder_.getInt64(elem_bytes));
    auto* type = llvm::FunctionType::get(builder_.getPtrTy(), {builder_.getInt64Ty()}, false);
    ptr = builder_.CreateCall(type, BackendFunction(runtime::kAllocWorkspaceSymbol, type), {bytes});
    if (fs_.workspaces.empty()) fs_.workspaces.emplace_back();
    fs_.workspaces.back().push_back(ptr);
  }
  aligned_[buffer->data.get()] = 64;
  fs_.vars[buffer->data.get()] = ptr;
}

void CodeGenLLVM::VisitStmt_(const DeclBufferNode* op) {
  if (!fs_.vars.count(op->buffer->data.get())) {
    throw CodegenError("buffer '" + op->buffer->name + "' is declared over an undefined pointer");
  }
}

void CodeGenLLVM::VisitStmt_(const SBlockNode* op) {
  throw CodegenError("block '" + op->name_hint + "' is still present: lower the function first");
}

void CodeGenLLVM::VisitStmt_(const SBlockRealizeNode* op) {
  throw CodegenError("block '" + op->block->name_hint + "' is still present: lower the function first");
}

}  // namespace wb::codegen
