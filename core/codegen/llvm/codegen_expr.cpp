// Expressions: arithmetic with TVM's semantics (wrapping integers, truncdiv/floordiv), vectors
// (Ramp/Broadcast/Shuffle), and buffer loads.
#include <llvm/IR/Intrinsics.h>

#include "codegen/llvm/codegen_llvm.h"
#include "tir/op.h"

namespace wb::codegen {

using namespace tir;
using ir::DataType;

namespace {

// The narrow-float wrapper: evaluate `fn` on float32 operands, round the result back.
template <typename F>
llvm::Value* FloatArith(CodeGenLLVM* cg, DataType t, llvm::Value* a, llvm::Value* b, F fn) {
  if (!cg->IsNarrowFloat(t)) return fn(a, b);
  return cg->Narrow(fn(cg->Widen(a, t), cg->Widen(b, t)), t);
}

// x / y. A vector divided by one value in every lane (softmax's rows by their sum, a mean by its
// count) may use the reciprocal (LLVM's arcp): LICM computes 1 / y once before the loop and the
// loop multiplies, as hand-written kernels do (a vector division costs ~5x a multiply); the
// result is within an ulp of the quotient. Other divisions stay exact.
llvm::Value* FloatDivide(llvm::IRBuilder<>& builder, llvm::Value* x, llvm::Value* y,
                         const PrimExpr& divisor) {
  llvm::Value* q = builder.CreateFDiv(x, y);
  if (divisor.as<BroadcastNode>() && q->getType()->isVectorTy()) {
    if (auto* inst = llvm::dyn_cast<llvm::Instruction>(q)) inst->setHasAllowReciprocal(true);
  }
  return q;
}

}  // namespace

llvm::Value* CodeGenLLVM::Splat(llvm::Value* v, int lanes) {
  if (lanes == 1 || v->getType()->isVectorTy()) return v;
  return builder_.CreateVectorSplat(lanes, v);
}

llvm::Value* CodeGenLLVM::Lookup(const VarNode* var) {
  auto it = fs_.vars.find(var);
  if (it == fs_.vars.end()) {
    throw CodegenError("variable '" + var->name_hint + "' is used but not defined here");
  }
  return it->second;
}

llvm::Value* CodeGenLLVM::VisitExpr_(const IntImmNode* op) {
  if (op->dtype.is_bool()) return llvm::ConstantInt::get(LLVMType(op->dtype), op->value != 0);
  return ConstInt(op->dtype, op->value);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const FloatImmNode* op) {
  DataType t = op->dtype;
  if (IsNarrowFloat(t)) {
    return Narrow(llvm::ConstantFP::get(LLVMType(DataType::Float(32, t.lanes())), op->value), t);
  }
  return llvm::ConstantFP::get(LLVMType(t), op->value);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const StringImmNode* op) {
  auto it = strings_.find(op->value);
  if (it != strings_.end()) return it->second;
  llvm::GlobalVariable* g = builder_.CreateGlobalString(op->value, ".str", 0, module_);
  strings_[op->value] = g;
  return g;
}

llvm::Value* CodeGenLLVM::VisitExpr_(const VarNode* op) { return Lookup(op); }
llvm::Value* CodeGenLLVM::VisitExpr_(const SizeVarNode* op) { return Lookup(op); }

llvm::Value* CodeGenLLVM::VisitExpr_(const CastNode* op) {
  return CastValue(Emit(op->value), op->value->dtype, op->dtype);
}

#define WB_ARITH(Node, IntOp, FloatOp)                                                     \
  llvm::Value* CodeGenLLVM::VisitExpr_(const Node* op) {                                   \
    llvm::Value* a = Emit(op->a);                                                          \
    llvm::Value* b = Emit(op->b);                                                          \
    DataType t = op->dtype;                                                                \
    if (t.is_floating_point()) {                                                           \
      return FloatArith(this, t, a, b, [&](llvm::Value* x, llvm::Value* y) { return FloatOp; }); \
    }                                                                                      \
    return IntOp;                                                                          \
  }

WB_ARITH(AddNode, builder_.CreateAdd(a, b), builder_.CreateFAdd(x, y))
WB_ARITH(SubNode, builder_.CreateSub(a, b), builder_.CreateFSub(x, y))
WB_ARITH(MulNode, builder_.CreateMul(a, b), builder_.CreateFMul(x, y))
WB_ARITH(DivNode, t.is_int() ? builder_.CreateSDiv(a, b) : builder_.CreateUDiv(a, b),
         FloatDivide(builder_, x, y, op->b))
WB_ARITH(ModNode, t.is_int() ? builder_.CreateSRem(a, b) : builder_.CreateURem(a, b),
         builder_.CreateFRem(x, y))
#undef WB_ARITH

llvm::Value* CodeGenLLVM::VisitExpr_(const FloorDivNode* op) {
  llvm::Value* a = Emit(op->a);
  llvm::Value* b = Emit(op->b);
  DataType t = op->dtype;
  if (t.is_floating_point()) {
    return FloatArith(this, t, a, b, [&](llvm::Value* x, llvm::Value* y) {
      return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(x, y));
    });
  }
  if (t.is_uint() || t.is_bool()) return builder_.CreateUDiv(a, b);
  // Truncating quotient, minus one when the remainder is non-zero and its sign differs from b's.
  llvm::Value* q = builder_.CreateSDiv(a, b);
  llvm::Value* r = builder_.CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* adjust = builder_.CreateAnd(builder_.CreateICmpNE(r, zero),
                                           builder_.CreateICmpNE(builder_.CreateICmpSLT(r, zero),
                                                                 builder_.CreateICmpSLT(b, zero)));
  return builder_.CreateSub(q, builder_.CreateZExt(adjust, a->getType()));
}

llvm::Value* CodeGenLLVM::VisitExpr_(const FloorModNode* op) {
  llvm::Value* a = Emit(op->a);
  llvm::Value* b = Emit(op->b);
  DataType t = op->dtype;
  if (t.is_floating_point()) {
    return FloatArith(this, t, a, b, [&](llvm::Value* x, llvm::Value* y) {
      llvm::Value* q = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(x, y));
      return builder_.CreateFSub(x, builder_.CreateFMul(q, y));
    });
  }
  if (t.is_uint() || t.is_bool()) return builder_.CreateURem(a, b);
  llvm::Value* r = builder_.CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* adjust = builder_.CreateAnd(builder_.CreateICmpNE(r, zero),
                                           builder_.CreateICmpNE(builder_.CreateICmpSLT(r, zero),
                                                                 builder_.CreateICmpSLT(b, zero)));
  return builder_.CreateSelect(adjust, builder_.CreateAdd(r, b), r);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const MinNode* op) {
  llvm::Value* a = Emit(op->a);
  llvm::Value* b = Emit(op->b);
  DataType t = op->dtype;
  if (t.is_floating_point()) {
    return FloatArith(this, t, a, b, [&](llvm::Value* x, llvm::Value* y) {
      return builder_.CreateSelect(builder_.CreateFCmpOLT(y, x), y, x);
    });
  }
  llvm::Value* lt = t.is_int() ? builder_.CreateICmpSLT(b, a) : builder_.CreateICmpULT(b, a);
  return builder_.CreateSelect(lt, b, a);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const MaxNode* op) {
  llvm::Value* a = Emit(op->a);
  llvm::Value* b = Emit(op->b);
  DataType t = op->dtype;
  if (t.is_floating_point()) {
    return FloatArith(this, t, a, b, [&](llvm::Value* x, llvm::Value* y) {
      return builder_.CreateSelect(builder_.CreateFCmpOLT(x, y), y, x);
    });
  }
  llvm::Value* lt = t.is_int() ? builder_.CreateICmpSLT(a, b) : builder_.CreateICmpULT(a, b);
  return builder_.CreateSelect(lt, b, a);
}

#define WB_CMP(Node, SInt, UInt, Float)                                            \
  llvm::Value* CodeGenLLVM::VisitExpr_(const Node* op) {                           \
    llvm::Value* a = Emit(op->a);                                                  \
    llvm::Value* b = Emit(op->b);                                                  \
    DataType t = op->a->dtype;                                                     \
    if (t.is_floating_point()) {                                                   \
      a = Widen(a, t);                                                             \
      b = Widen(b, t);                                                             \
      return builder_.Float(a, b);                                                 \
    }                                                                              \
    if (t.is_handle()) {                                                           \
      a = builder_.CreatePtrToInt(a, builder_.getInt64Ty());                       \
      b = builder_.CreatePtrToInt(b, builder_.getInt64Ty());                       \
    }                                                                              \
    return t.is_int() ? builder_.SInt(a, b) : builder_.UInt(a, b);                 \
  }

WB_CMP(EQNode, CreateICmpEQ, CreateICmpEQ, CreateFCmpOEQ)
WB_CMP(NENode, CreateICmpNE, CreateICmpNE, CreateFCmpUNE)
WB_CMP(LTNode, CreateICmpSLT, CreateICmpULT, CreateFCmpOLT)
WB_CMP(LENode, CreateICmpSLE, CreateICmpULE, CreateFCmpOLE)
WB_CMP(GTNode, CreateICmpSGT, CreateICmpUGT, CreateFCmpOGT)
WB_CMP(GENode, CreateICmpSGE, CreateICmpUGE, CreateFCmpOGE)
#undef WB_CMP

llvm::Value* CodeGenLLVM::VisitExpr_(const AndNode* op) {
  return builder_.CreateAnd(Emit(op->a), Emit(op->b));
}
llvm::Value* CodeGenLLVM::VisitExpr_(const OrNode* op) {
  return builder_.CreateOr(Emit(op->a), Emit(op->b));
}
llvm::Value* CodeGenLLVM::VisitExpr_(const NotNode* op) { return builder_.CreateNot(Emit(op->a)); }

llvm::Value* CodeGenLLVM::VisitExpr_(const SelectNode* op) {
  llvm::Value* c = Emit(op->condition);
  llvm::Value* t = Emit(op->true_value);
  llvm::Value* f = Emit(op->false_value);
  int lanes = op->dtype.lanes();
  if (lanes > 1 && !c->getType()->isVectorTy()) c = Splat(c, lanes);
  return builder_.CreateSelect(c, t, f);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const RampNode* op) {
  DataType t = op->dtype;
  llvm::Value* base = Emit(op->base);
  llvm::Value* stride = Emit(op->stride);
  DataType et = t.element_of();
  std::vector<llvm::Constant*> steps;
  for (int64_t i = 0; i < op->lanes; ++i) steps.push_back(ConstInt(et, i));
  llvm::Value* iota = llvm::ConstantVector::get(steps);
  int lanes = static_cast<int>(op->lanes);
  return builder_.CreateAdd(Splat(base, lanes), builder_.CreateMul(Splat(stride, lanes), iota));
}

llvm::Value* CodeGenLLVM::VisitExpr_(const BroadcastNode* op) {
  return Splat(Emit(op->value), static_cast<int>(op->lanes));
}

llvm::Value* CodeGenLLVM::VisitExpr_(const ShuffleNode* op) {
  // Concatenate the inputs (as scalars, whatever their lanes), then pick lanes by index.
  std::vector<llvm::Value*> lanes;
  for (const auto& v : op->vectors) {
    llvm::Value* x = Emit(v);
    if (v->dtype.lanes() == 1) {
      lanes.push_back(x);
    } else {
      for (int i = 0; i < v->dtype.lanes(); ++i) lanes.push_back(builder_.CreateExtractElement(x, i));
    }
  }
  llvm::Value* result = llvm::PoisonValue::get(LLVMType(op->dtype));
  for (size_t i = 0; i < op->indices.size(); ++i) {
    const int64_t* idx = AsConstInt(op->indices[i]);
    if (!idx || *idx < 0 || *idx >= static_cast<int64_t>(lanes.size())) {
      throw CodegenError("Shuffle indices must be constants within the input lanes");
    }
    if (op->dtype.lanes() == 1) return lanes[*idx];
    result = builder_.CreateInsertElement(result, lanes[*idx], i);
  }
  return result;
}

llvm::Value* CodeGenLLVM::VisitExpr_(const LetNode* op) {
  fs_.vars[op->var.get()] = Emit(op->value);
  return Emit(op->body);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const CallNode* op) { return EmitCall(op); }

llvm::Value* CodeGenLLVM::VisitExpr_(const ReduceNode* op) {
  throw CodegenError("T.reduce cannot be compiled: lower the function first");
}

// --- buffer access ------------------------------------------------------------------------------

llvm::Value* CodeGenLLVM::BufferBase(const Buffer& buffer) { return Lookup(buffer->data.get()); }

// Buffers the lowering left multi-dimensional are flattened here, row-major or by their
// strides; a unit-stride Ramp in the flattened index becomes one contiguous vector access.
CodeGenLLVM::Access CodeGenLLVM::BufferAccess(const Buffer& buffer, const std::vector<PrimExpr>& indices,
                                              DataType access) {
  DataType idx_t = DataType::Int(64);
  PrimExpr flat;
  if (indices.size() == 1 && buffer->strides.empty()) {
    flat = indices[0];
  } else {
    if (indices.size() != buffer->shape.size()) {
      throw CodegenError("access to buffer '" + buffer->name + "' has " + std::to_string(indices.size()) +
                         " indices for " + std::to_string(buffer->shape.size()) + " dimensions");
    }
    PrimExpr stride = make_const(idx_t, int64_t{1});
    for (size_t k = indices.size(); k-- > 0;) {
      PrimExpr s = buffer->strides.empty() ? stride : cast(idx_t, buffer->strides[k]);
      PrimExpr idx = indices[k];
      PrimExpr term;
      if (auto* ramp = idx.as<RampNode>()) {
        term = MakeRamp(mul(cast(idx_t, ramp->base), s), mul(cast(idx_t, ramp->stride), s), ramp->lanes);
      } else if (idx->dtype.lanes() > 1) {
        term = mul(cast(idx_t.with_lanes(idx->dtype.lanes()), idx), MakeBroadcast(s, idx->dtype.lanes()));
      } else {
        term = mul(cast(idx_t, idx), s);
      }
      if (!flat.defined()) {
        flat = term;
      } else if (auto* r = flat.as<RampNode>(); r && term->dtype.lanes() == 1) {
        flat = MakeRamp(add(r->base, term), r->stride, r->lanes);
      } else if (auto* r2 = term.as<RampNode>(); r2 && flat->dtype.lanes() == 1) {
        flat = MakeRamp(add(r2->base, flat), r2->stride, r2->lanes);
      } else if (flat->dtype.lanes() != term->dtype.lanes()) {
        int lanes = std::max(flat->dtype.lanes(), term->dtype.lanes());
        auto widen = [&](PrimExpr e) { return e->dtype.lanes() == 1 ? MakeBroadcast(e, lanes) : e; };
        flat = add(widen(flat), widen(term));
      } else {
        flat = add(flat, term);
      }
      stride = mul(stride, cast(idx_t, buffer->shape[k]));
    }
  }
  if (buffer->elem_offset.defined() && !IsConstInt(buffer->elem_offset, 0)) {
    PrimExpr off = cast(idx_t, buffer->elem_offset);
    if (auto* r = flat.as<RampNode>()) flat = MakeRamp(add(cast(idx_t, r->base), off), r->stride, r->lanes);
    else if (flat->dtype.lanes() > 1) flat = add(flat, MakeBroadcast(off, flat->dtype.lanes()));
    else flat = add(cast(idx_t, flat), off);
  }
  llvm::Type* elem = MemoryType(buffer->dtype);
  llvm::Value* base = BufferBase(buffer);
  Access result;
  int buffer_lanes = buffer->dtype.lanes();
  result.lanes = access.lanes() / std::max(buffer_lanes, 1);
  if (flat->dtype.lanes() == 1) {
    llvm::Value* index = builder_.CreateSExtOrTrunc(Emit(flat), builder_.getInt64Ty());
    result.address = builder_.CreateInBoundsGEP(elem, base, index);
    if (result.lanes > 1) {
      throw CodegenError("a " + access.ToString() + " access to buffer '" + buffer->name +
                         "' needs a vector index");
    }
    result.lanes = 1;
    return result;
  }
  if (auto* r = flat.as<RampNode>(); r && IsConstInt(r->stride, 1)) {
    llvm::Value* index = builder_.CreateSExtOrTrunc(Emit(r->base), builder_.getInt64Ty());
    result.address = builder_.CreateInBoundsGEP(elem, base, index);
    result.lanes = static_cast<int>(r->lanes);
    return result;
  }
  llvm::Value* vindex = Emit(flat);
  result.vector_index = builder_.CreateSExtOrTrunc(
      vindex, llvm::FixedVectorType::get(builder_.getInt64Ty(), flat->dtype.lanes()));
  result.address = base;
  result.lanes = flat->dtype.lanes();
  return result;
}

llvm::Value* CodeGenLLVM::VisitExpr_(const BufferLoadNode* op) {
  DataType t = op->dtype;
  Access a = BufferAccess(op->buffer, op->indices, t);
  DataType elem_t = op->buffer->dtype;
  llvm::Type* mem_elem = MemoryType(elem_t);
  llvm::Align align(std::max(1, elem_t.bytes() * elem_t.lanes()));
  llvm::Value* predicate = op->predicate.defined() ? Emit(op->predicate) : nullptr;
  // Inside one branch of a vector if_then_else, the other branch's lanes are not loaded.
  llvm::Value* mask = fs_.load_mask;
  if (mask && a.lanes > 1 &&
      llvm::cast<llvm::FixedVectorType>(mask->getType())->getNumElements() ==
          static_cast<unsigned>(a.lanes)) {
    predicate = predicate ? builder_.CreateAnd(predicate, mask) : mask;
  }
  llvm::Value* v;
  if (a.vector_index && predicate) {
    llvm::Value* pointers = builder_.CreateInBoundsGEP(mem_elem, a.address, a.vector_index);
    v = builder_.CreateMaskedGather(MemoryType(t), pointers, align, predicate,
                                    llvm::Constant::getNullValue(MemoryType(t)));
  } else if (a.vector_index) {
    // A gather: one scalar load a lane.
    v = llvm::PoisonValue::get(MemoryType(t));
    for (int i = 0; i < a.lanes; ++i) {
      llvm::Value* idx = builder_.CreateExtractElement(a.vector_index, i);
      llvm::Value* p = builder_.CreateInBoundsGEP(mem_elem, a.address, idx);
      v = builder_.CreateInsertElement(v, builder_.CreateAlignedLoad(mem_elem, p, align), i);
    }
  } else if (predicate) {
    v = builder_.CreateMaskedLoad(MemoryType(t), a.address, align, predicate,
                                  llvm::Constant::getNullValue(MemoryType(t)));
  } else {
    v = builder_.CreateAlignedLoad(MemoryType(t), a.address, align);
  }
  return FromMemory(v, t);
}

}  // namespace wb::codegen
