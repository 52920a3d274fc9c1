// DataType -> LLVM types and conversions. float16 values live as LLVM `half`, bfloat16 as its
// 16 bits (i16): both widen to float32 for arithmetic and round back to nearest-even after each
// operation, which is what the reference interpreter does.
#include "codegen/llvm/codegen_llvm.h"

namespace wb::codegen {

using ir::DataType;

llvm::Type* CodeGenLLVM::LLVMType(DataType t) {
  llvm::Type* elem = nullptr;
  if (t.is_handle()) return llvm::PointerType::get(*ctx_, 0);
  if (t.is_void()) return llvm::Type::getVoidTy(*ctx_);
  if (t.is_bool()) {
    elem = llvm::Type::getInt1Ty(*ctx_);
  } else if (t.is_int() || t.is_uint()) {
    elem = llvm::Type::getIntNTy(*ctx_, t.bits());
  } else if (t.is_float()) {
    switch (t.bits()) {
      case 16: elem = llvm::Type::getHalfTy(*ctx_); break;
      case 32: elem = llvm::Type::getFloatTy(*ctx_); break;
      case 64: elem = llvm::Type::getDoubleTy(*ctx_); break;
      default: break;
    }
  } else if (t.is_bfloat16()) {
    elem = llvm::Type::getInt16Ty(*ctx_);
  }
  if (!elem) throw CodegenError("the LLVM codegen does not support dtype " + t.ToString());
  if (t.is_scalable_vector()) throw CodegenError("scalable vectors are not supported: " + t.ToString());
  if (t.lanes() > 1) return llvm::FixedVectorType::get(elem, t.lanes());
  return elem;
}

llvm::Type* CodeGenLLVM::MemoryType(DataType t) {
  if (t.is_bool()) return LLVMType(DataType::Int(8, t.lanes()));
  return LLVMType(t);
}

llvm::Value* CodeGenLLVM::ToMemory(llvm::Value* v, DataType t) {
  if (t.is_bool()) return builder_.CreateZExt(v, MemoryType(t));
  return v;
}

llvm::Value* CodeGenLLVM::FromMemory(llvm::Value* v, DataType t) {
  if (t.is_bool()) return builder_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  return v;
}

llvm::Constant* CodeGenLLVM::ConstInt(DataType t, int64_t v) {
  auto* c = llvm::ConstantInt::get(LLVMType(t.element_of()), static_cast<uint64_t>(v), t.is_int());
  if (t.lanes() > 1) return llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(t.lanes()), c);
  return c;
}

llvm::Value* CodeGenLLVM::Widen(llvm::Value* v, DataType t) {
  llvm::Type* f32 = LLVMType(DataType::Float(32, t.lanes()));
  if (t.is_float() && t.bits() == 16) return builder_.CreateFPExt(v, f32);
  if (t.is_bfloat16()) {
    llvm::Type* i32 = LLVMType(DataType::Int(32, t.lanes()));
    llvm::Value* bits = builder_.CreateShl(builder_.CreateZExt(v, i32), ConstInt(DataType::Int(32, t.lanes()), 16));
    return builder_.CreateBitCast(bits, f32);
  }
  return v;
}

// float32 -> float16 / bfloat16, rounding to nearest even (bfloat16 by integer arithmetic, NaN
// kept quiet).
llvm::Value* CodeGenLLVM::Narrow(llvm::Value* v, DataType t) {
  if (t.is_float() && t.bits() == 16) return builder_.CreateFPTrunc(v, LLVMType(t));
  if (t.is_bfloat16()) {
    DataType i32t = DataType::Int(32, t.lanes());
    llvm::Value* bits = builder_.CreateBitCast(v, LLVMType(i32t));
    llvm::Value* lsb = builder_.CreateAnd(builder_.CreateLShr(bits, ConstInt(i32t, 16)), ConstInt(i32t, 1));
    llvm::Value* rounded = builder_.CreateAdd(bits, builder_.CreateAdd(lsb, ConstInt(i32t, 0x7FFF)));
    llvm::Value* result = builder_.CreateTrunc(builder_.CreateLShr(rounded, ConstInt(i32t, 16)),
                                               LLVMType(t));
    llvm::Value* is_nan = builder_.CreateFCmpUNO(v, v);
    llvm::Value* qnan = builder_.CreateOr(
        builder_.CreateTrunc(builder_.CreateLShr(bits, ConstInt(i32t, 16)), LLVMType(t)),
        ConstInt(DataType::Int(16, t.lanes()), 0x40));
    return builder_.CreateSelect(is_nan, qnan, result);
  }
  return v;
}

llvm::Value* CodeGenLLVM::CastValue(llvm::Value* v, DataType from, DataType to) {
  if (from == to) return v;
  if (to.lanes() != from.lanes()) {
    if (from.lanes() == 1) {
      v = Splat(v, to.lanes());
      from = from.with_lanes(to.lanes());
    } else {
      throw CodegenError("cast between different lane counts: " + from.ToString() + " to " + to.ToString());
    }
  }
  if (from.is_handle() || to.is_handle()) {
    if (from.is_handle() && to.is_handle()) return v;
    if (from.is_handle()) return builder_.CreatePtrToInt(v, LLVMType(to));
    return builder_.CreateIntToPtr(v, LLVMType(to));
  }
  // Narrow floats convert through float32 (from float64 directly, to round only once).
  if (IsNarrowFloat(from)) {
    return CastValue(Widen(v, from), DataType::Float(32, from.lanes()), to);
  }
  if (IsNarrowFloat(to)) {
    if (to.is_float() && from.is_float() && from.bits() == 64) return builder_.CreateFPTrunc(v, LLVMType(to));
    return Narrow(CastValue(v, from, DataType::Float(32, to.lanes())), to);
  }
  llvm::Type* target = LLVMType(to);
  if (to.is_bool()) {
    if (from.is_float()) return builder_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    return builder_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (from.is_bool()) {
    if (to.is_float()) return builder_.CreateUIToFP(v, target);
    return builder_.CreateZExt(v, target);
  }
  if (from.is_float() && to.is_float()) return builder_.CreateFPCast(v, target);
  if (from.is_float()) return to.is_int() ? builder_.CreateFPToSI(v, target) : builder_.CreateFPToUI(v, target);
  if (to.is_float()) return from.is_int() ? builder_.CreateSIToFP(v, target) : builder_.CreateUIToFP(v, target);
  return builder_.CreateIntCast(v, target, from.is_int());
}

}  // namespace wb::codegen
