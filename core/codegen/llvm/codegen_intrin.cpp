// Builtin calls: math (LLVM intrinsics where LLVM has one, libm otherwise; float16/bfloat16
// through float32; vectors lane by lane for libm), bit operations, if_then_else, reinterpret,
// the runtime-structure accessor tvm_struct_get that MakePackedAPI's prologue uses, and calls of
// LLVM intrinsics by name (call_llvm_intrin, call_llvm_pure_intrin).
#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/raw_ostream.h>

#include <limits>
#include <map>

#include "codegen/llvm/codegen_llvm.h"
#include "runtime/ndarray.h"
#include "tir/builtin.h"
#include "transform/tir/make_packed_api.h"

namespace wb::codegen {

using namespace tir;
using ir::DataType;

namespace {

// Ops that map to an LLVM intrinsic of the same arity on the value type.
const std::map<std::string, llvm::Intrinsic::ID>& LLVMMathIntrinsics() {
  static const std::map<std::string, llvm::Intrinsic::ID> table = {
      {"exp", llvm::Intrinsic::exp},         {"exp2", llvm::Intrinsic::exp2},
      {"exp10", llvm::Intrinsic::exp10},     {"log", llvm::Intrinsic::log},
      {"log2", llvm::Intrinsic::log2},       {"log10", llvm::Intrinsic::log10},
      {"sqrt", llvm::Intrinsic::sqrt},       {"sin", llvm::Intrinsic::sin},
      {"cos", llvm::Intrinsic::cos},         {"fabs", llvm::Intrinsic::fabs},
      {"floor", llvm::Intrinsic::floor},     {"ceil", llvm::Intrinsic::ceil},
      {"trunc", llvm::Intrinsic::trunc},     {"round", llvm::Intrinsic::roundeven},
      {"nearbyint", llvm::Intrinsic::roundeven}, {"pow", llvm::Intrinsic::pow},
      {"copysign", llvm::Intrinsic::copysign},
  };
  return table;
}

// Ops that are C math library calls (f suffix for float32).
const std::map<std::string, std::string>& LibmFunctions() {
  static const std::map<std::string, std::string> table = {
      {"tan", "tan"},     {"sinh", "sinh"},   {"cosh", "cosh"},   {"tanh", "tanh"},
      {"asin", "asin"},   {"acos", "acos"},   {"atan", "atan"},   {"asinh", "asinh"},
      {"acosh", "acosh"}, {"atanh", "atanh"}, {"atan2", "atan2"}, {"erf", "erf"},
      {"log1p", "log1p"}, {"fmod", "fmod"},   {"hypot", "hypot"}, {"nextafter", "nextafter"},
  };
  return table;
}

}  // namespace

llvm::Value* CodeGenLLVM::CallLibm(const std::string& base, std::vector<llvm::Value*> args, DataType t) {
  // t is float32 or float64 here (narrow floats were widened).
  std::string name = t.bits() == 32 ? base + "f" : base;
  llvm::Type* scalar = LLVMType(t.element_of());
  std::vector<llvm::Type*> params(args.size(), scalar);
  llvm::FunctionCallee fn =
      module_->getOrInsertFunction(name, llvm::FunctionType::get(scalar, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->setDoesNotThrow();
    f->setOnlyAccessesInaccessibleMemory();
  }
  if (t.lanes() == 1) return builder_.CreateCall(fn, args);
  llvm::Value* result = llvm::PoisonValue::get(LLVMType(t));
  for (int i = 0; i < t.lanes(); ++i) {
    std::vector<llvm::Value*> lane_args;
    for (auto* a : args) lane_args.push_back(builder_.CreateExtractElement(a, i));
    result = builder_.CreateInsertElement(result, builder_.CreateCall(fn, lane_args), i);
  }
  return result;
}

llvm::Value* CodeGenLLVM::VectorExpF32(llvm::Value* x, DataType t) {
  // Cephes' expf: exp(x) = 2^n * exp(r) with n = round(x / ln 2) and r = x - n ln 2 (ln 2 in
  // two parts, so r is exact), exp(r) by a degree-6 polynomial on |r| <= ln(2)/2; within 2 ulp
  // of the correctly rounded result.
  llvm::Type* vt = LLVMType(t);
  llvm::Type* it = LLVMType(DataType::Int(32, t.lanes()));
  auto c = [&](double v) { return llvm::ConstantFP::get(vt, v); };
  auto ci = [&](int64_t v) { return llvm::ConstantInt::get(it, static_cast<uint64_t>(v), true); };
  // With AVX-512, 2^n is applied by vscalefps (y * 2^n, overflowing to inf and underflowing
  // gradually to 0 as the exact product would): no exponent arithmetic, no selects for the
  // ends, 24 instructions a vector instead of 36 (softmax is bound by them). The clamp to
  // [-104, 89] (exp is 0 below, inf above, in float) keeps n small; its selects pass a NaN on.
  const char* scalef = nullptr;
  if (target_.HasFeature("avx512f") && t.lanes() == 16) scalef = "llvm.x86.avx512.mask.scalef.ps.512";
  if (target_.HasFeature("avx512vl") && t.lanes() == 8) scalef = "llvm.x86.avx512.mask.scalef.ps.256";
  if (target_.HasFeature("avx512vl") && t.lanes() == 4) scalef = "llvm.x86.avx512.mask.scalef.ps.128";
  if (scalef) {
    llvm::Value* v = builder_.CreateSelect(builder_.CreateFCmpOLT(x, c(-104.0)), c(-104.0), x);
    v = builder_.CreateSelect(builder_.CreateFCmpOGT(v, c(89.0)), c(89.0), v);
    llvm::Value* n = builder_.CreateUnaryIntrinsic(
        llvm::Intrinsic::floor, builder_.CreateFAdd(builder_.CreateFMul(v, c(1.44269504088896341)), c(0.5)));
    llvm::Value* r = builder_.CreateFSub(v, builder_.CreateFMul(n, c(0.693359375)));
    r = builder_.CreateFSub(r, builder_.CreateFMul(n, c(-2.12194440e-4)));
    llvm::Value* y = c(1.9875691500e-4);
    for (double k : {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1}) {
      y = builder_.CreateFAdd(builder_.CreateFMul(y, r), c(k));
    }
    y = builder_.CreateFAdd(builder_.CreateFAdd(builder_.CreateFMul(y, builder_.CreateFMul(r, r)), r), c(1.0));
    // (y, n, pass-through, lane mask[, rounding: 4, the current direction, for 512 bits only]).
    const bool zmm = t.lanes() == 16;
    llvm::Type* mask = llvm::Type::getIntNTy(*ctx_, zmm ? 16 : 8);
    std::vector<llvm::Type*> types = {vt, vt, vt, mask};
    std::vector<llvm::Value*> values = {y, n, y, llvm::ConstantInt::getAllOnesValue(mask)};
    if (zmm) {
      types.push_back(builder_.getInt32Ty());
      values.push_back(builder_.getInt32(4));
    }
    llvm::FunctionCallee fn = module_->getOrInsertFunction(scalef, llvm::FunctionType::get(vt, types, false));
    return builder_.CreateCall(fn, values);
  }
  // Without vscalefps: n by the round-to-nearest of adding 1.5 * 2^23 (the sum's low mantissa
  // bits are n: no floor, no float-to-int conversion, defined for every input), and 2^n applied
  // by adding n to exp(r)'s exponent bits (the sum's bits shifted left by 23 are n << 23, the
  // constant's bits shifted out). exp(r) is in [0.707, 1.415], so that addition is exact and in
  // range for every x in [lo, hi]: lo is the float just above ln(FLT_MIN) (n = -126 with r >= 0,
  // exp(r) >= 1) and hi the float just below 128 ln 2 (n = 128 with r < 0). Below lo the result
  // is 0 (exp is below FLT_MIN there: denormals are flushed), above hi inf, and a NaN is passed
  // on, by three selects at the end; what is computed in between for such x is discarded. About
  // 24 instructions a vector, where a floor, a float-to-int conversion, two clamps and two
  // factors of 2^n took 36 (softmax on AVX2 is bound by them).
  const double lo = -87.33654022216797, hi = 88.72283172607422;
  const double magic = 12582912.0;  // 1.5 * 2^23
  llvm::Value* shifted = builder_.CreateFAdd(builder_.CreateFMul(x, c(1.44269504088896341)), c(magic));
  llvm::Value* n = builder_.CreateFSub(shifted, c(magic));
  llvm::Value* r = builder_.CreateFSub(x, builder_.CreateFMul(n, c(0.693359375)));
  r = builder_.CreateFSub(r, builder_.CreateFMul(n, c(-2.12194440e-4)));
  llvm::Value* y = c(1.9875691500e-4);
  for (double k : {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1}) {
    y = builder_.CreateFAdd(builder_.CreateFMul(y, r), c(k));
  }
  y = builder_.CreateFAdd(builder_.CreateFAdd(builder_.CreateFMul(y, builder_.CreateFMul(r, r)), r), c(1.0));
  llvm::Value* exponent = builder_.CreateShl(builder_.CreateBitCast(shifted, it), ci(23));
  llvm::Value* result = builder_.CreateBitCast(builder_.CreateAdd(builder_.CreateBitCast(y, it), exponent), vt);
  result = builder_.CreateSelect(builder_.CreateFCmpOLT(x, c(lo)), c(0.0), result);
  result = builder_.CreateSelect(builder_.CreateFCmpOGT(x, c(hi)), c(std::numeric_limits<double>::infinity()), result);
  return builder_.CreateSelect(builder_.CreateFCmpUNO(x, x), x, result);
}

llvm::Value* CodeGenLLVM::EmitMath(const std::string& name, const CallNode* op) {
  bool known = LLVMMathIntrinsics().count(name) || LibmFunctions().count(name) ||
               name == "rsqrt" || name == "sigmoid" || name == "ldexp";
  if (!known) return nullptr;
  DataType t = op->args[0]->dtype;
  if (!t.is_floating_point()) {
    throw CodegenError("T." + name + " needs a floating-point argument, got " + t.ToString());
  }
  std::vector<llvm::Value*> args;
  for (const auto& a : op->args) args.push_back(Widen(Emit(a), a->dtype));
  DataType ct = IsNarrowFloat(t) ? DataType::Float(32, t.lanes()) : t;
  llvm::Value* result = nullptr;
  const auto& intrinsics = LLVMMathIntrinsics();
  if (name == "exp" && ct.lanes() > 1 && ct.bits() == 32) {
    result = VectorExpF32(args[0], ct);
  } else if (auto it = intrinsics.find(name); it != intrinsics.end()) {
    result = builder_.CreateIntrinsic(it->second, {LLVMType(ct)}, args);
  } else if (auto jt = LibmFunctions().find(name); jt != LibmFunctions().end()) {
    result = CallLibm(jt->second, args, ct);
  } else if (name == "rsqrt") {
    llvm::Value* s = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, args[0]);
    result = builder_.CreateFDiv(llvm::ConstantFP::get(LLVMType(ct), 1.0), s);
  } else if (name == "sigmoid") {
    llvm::Value* e = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, builder_.CreateFNeg(args[0]));
    llvm::Value* one = llvm::ConstantFP::get(LLVMType(ct), 1.0);
    result = builder_.CreateFDiv(one, builder_.CreateFAdd(one, e));
  } else if (name == "ldexp") {
    llvm::Value* e = builder_.CreateFPToSI(args[1], LLVMType(DataType::Int(32, ct.lanes())));
    result = builder_.CreateIntrinsic(llvm::Intrinsic::ldexp, {LLVMType(ct), e->getType()}, {args[0], e});
  } else {
    return nullptr;
  }
  return Narrow(result, t);
}

llvm::Value* CodeGenLLVM::EmitStructGet(const CallNode* op) {
  llvm::Value* handle = Emit(op->args[0]);
  const int64_t* index = AsConstInt(op->args[1]);
  const int64_t* kind = AsConstInt(op->args[2]);
  if (!index || !kind) throw CodegenError("tvm_struct_get needs constant index and field");
  DataType t = op->dtype;
  llvm::Type* i8 = builder_.getInt8Ty();
  if (*kind == transform::kTVMValueContent) {
    llvm::Value* p = builder_.CreateInBoundsGEP(i8, handle, builder_.getInt64(*index * sizeof(WBValue)));
    return builder_.CreateAlignedLoad(LLVMType(t), p, llvm::Align(8));
  }
  // DLTensor fields, by their offsets in runtime::DLTensor.
  using runtime::DLTensor;
  int64_t base = *index * static_cast<int64_t>(sizeof(DLTensor));
  int64_t offset = 0;
  llvm::Type* field = nullptr;
  switch (*kind) {
    case transform::kArrAddr:
      return builder_.CreateInBoundsGEP(i8, handle, builder_.getInt64(base));
    case transform::kArrData: offset = offsetof(DLTensor, data); field = builder_.getPtrTy(); break;
    case transform::kArrShape: offset = offsetof(DLTensor, shape); field = builder_.getPtrTy(); break;
    case transform::kArrStrides: offset = offsetof(DLTensor, strides); field = builder_.getPtrTy(); break;
    case transform::kArrNDim: offset = offsetof(DLTensor, ndim); field = builder_.getInt32Ty(); break;
    case transform::kArrTypeCode: offset = offsetof(DLTensor, dtype); field = i8; break;
    case transform::kArrTypeBits: offset = offsetof(DLTensor, dtype) + 1; field = i8; break;
    case transform::kArrTypeLanes: offset = offsetof(DLTensor, dtype) + 2; field = builder_.getInt16Ty(); break;
    case transform::kArrByteOffset: offset = offsetof(DLTensor, byte_offset); field = builder_.getInt64Ty(); break;
    case transform::kArrDeviceId: offset = offsetof(DLTensor, device) + 4; field = builder_.getInt32Ty(); break;
    case transform::kArrDeviceType: offset = offsetof(DLTensor, device); field = builder_.getInt32Ty(); break;
    default: throw CodegenError("tvm_struct_get: unknown field " + std::to_string(*kind));
  }
  llvm::Value* p = builder_.CreateInBoundsGEP(i8, handle, builder_.getInt64(base + offset));
  llvm::Value* v = builder_.CreateLoad(field, p);
  if (field->isPointerTy() || t.is_handle()) return v;
  // Integer fields of the DLTensor are unsigned (type code, bits, lanes).
  return builder_.CreateZExtOrTrunc(v, LLVMType(t));
}


// A vector if_then_else evaluates a branch only for the lanes that take it: when every lane
// agrees (a condition uniform over the vector, such as a row bound) only that branch runs, as
// in the scalar case; otherwise both run with their loads masked to their own lanes (masked
// vector loads and gathers), and the lanes are selected.
llvm::Value* CodeGenLLVM::EmitVectorIfThenElse(const CallNode* op) {
  llvm::Function* fn = fs_.function;
  llvm::Value* cond = Emit(op->args[0]);
  // Nested in a branch of an enclosing one: only that one's lanes matter.
  llvm::Value* outer = fs_.load_mask;
  if (outer && outer->getType() != cond->getType()) outer = nullptr;
  llvm::Value* live = outer ? builder_.CreateAnd(cond, outer) : cond;
  auto* all_bb = llvm::BasicBlock::Create(*ctx_, "if_all", fn);
  auto* not_all_bb = llvm::BasicBlock::Create(*ctx_, "if_not_all", fn);
  auto* none_bb = llvm::BasicBlock::Create(*ctx_, "if_none", fn);
  auto* mixed_bb = llvm::BasicBlock::Create(*ctx_, "if_mixed", fn);
  auto* end_bb = llvm::BasicBlock::Create(*ctx_, "if_end", fn);
  builder_.CreateCondBr(
      builder_.CreateAndReduce(outer ? builder_.CreateOr(cond, builder_.CreateNot(outer)) : cond),
      all_bb, not_all_bb);
  builder_.SetInsertPoint(not_all_bb);
  builder_.CreateCondBr(builder_.CreateOrReduce(live), mixed_bb, none_bb);
  llvm::Value* saved_mask = fs_.load_mask;
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> incoming;
  builder_.SetInsertPoint(all_bb);
  incoming.emplace_back(Emit(op->args[1]), builder_.GetInsertBlock());
  builder_.CreateBr(end_bb);
  builder_.SetInsertPoint(none_bb);
  incoming.emplace_back(Emit(op->args[2]), builder_.GetInsertBlock());
  builder_.CreateBr(end_bb);
  builder_.SetInsertPoint(mixed_bb);
  fs_.load_mask = live;
  llvm::Value* tv = Emit(op->args[1]);
  fs_.load_mask = outer ? builder_.CreateAnd(builder_.CreateNot(cond), outer)
                        : builder_.CreateNot(cond);
  llvm::Value* ev = Emit(op->args[2]);
  fs_.load_mask = saved_mask;
  incoming.emplace_back(builder_.CreateSelect(cond, tv, ev), builder_.GetInsertBlock());
  builder_.CreateBr(end_bb);
  builder_.SetInsertPoint(end_bb);
  llvm::PHINode* phi = builder_.CreatePHI(incoming[0].first->getType(), 3);
  for (const auto& [value, block] : incoming) phi->addIncoming(value, block);
  return phi;
}

// T.call_llvm_(pure_)intrin(dtype, name, args...): the intrinsic by name (the IR keeps names, as
// intrinsic IDs differ between LLVM versions), its overloaded types inferred from the argument
// and result types as LLVM's verifier matches them.
llvm::Value* CodeGenLLVM::EmitCallLLVMIntrin(const CallNode* op) {
  auto* o = op->op.as<ir::OpNode>();
  std::string call = "T." + InfoOf(ir::GetRef(o))->script_name;
  auto* iname = op->args.empty() ? nullptr : op->args[0].as<StringImmNode>();
  if (!iname) {
    throw CodegenError(call + " needs the LLVM intrinsic's name first, e.g. "
                       "T.llvm_lookup_intrinsic_id(\"llvm.x86.avx512.vpdpbusd.512\")");
  }
  llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(iname->value);
  if (id == llvm::Intrinsic::not_intrinsic) {
    throw CodegenError(call + ": LLVM has no intrinsic named " + iname->value);
  }
  std::vector<llvm::Value*> args;
  std::vector<llvm::Type*> types;
  for (size_t i = 1; i < op->args.size(); ++i) {
    args.push_back(Emit(op->args[i]));
    types.push_back(args.back()->getType());
  }
  llvm::Type* ret = op->dtype.is_void() ? builder_.getVoidTy() : LLVMType(op->dtype);
  llvm::FunctionType* fty = llvm::FunctionType::get(ret, types, false);
  llvm::SmallVector<llvm::Intrinsic::IITDescriptor, 8> table;
  llvm::Intrinsic::getIntrinsicInfoTableEntries(id, table);
  llvm::ArrayRef<llvm::Intrinsic::IITDescriptor> infos = table;
  llvm::SmallVector<llvm::Type*, 4> overloads;
  if (llvm::Intrinsic::matchIntrinsicSignature(fty, infos, overloads) !=
          llvm::Intrinsic::MatchIntrinsicTypes_Match ||
      llvm::Intrinsic::matchIntrinsicVarArg(false, infos)) {
    std::string sig;
    llvm::raw_string_ostream os(sig);
    fty->print(os);
    throw CodegenError(call + "(\"" + iname->value + "\"): the result and argument types " + os.str() +
                       " do not fit the intrinsic's signature");
  }
  llvm::Function* f = llvm::Intrinsic::getDeclaration(module_, id, overloads);
  return builder_.CreateCall(f, args);
}

llvm::Value* CodeGenLLVM::EmitCall(const CallNode* op) {
  auto* o = op->op.as<ir::OpNode>();
  if (!o) throw CodegenError("calls to other functions of the module are not supported by the LLVM codegen");
  const OpInfo* info = InfoOf(ir::GetRef(o));
  if (!info) throw CodegenError("unknown op " + o->name);
  const std::string& name = info->script_name;
  DataType t = op->dtype;
  if (llvm::Value* v = nullptr; (t.is_floating_point() || (!op->args.empty() && op->args[0]->dtype.is_floating_point())) &&
                                info->result == OpResultType::kSameAsFirstArg &&
                                (v = EmitMath(name, op))) {
    return v;
  }
  auto arg = [&](size_t i) { return Emit(op->args.at(i)); };
  DataType a0 = op->args.empty() ? DataType() : op->args[0]->dtype;
  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    if (!a0.is_floating_point()) return ConstInt(DataType::Bool(a0.lanes()), name == "isfinite");
    llvm::Value* x = Widen(arg(0), a0);
    if (name == "isnan") return builder_.CreateFCmpUNO(x, x);
    llvm::Value* ax = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    llvm::Value* inf = llvm::ConstantFP::getInfinity(x->getType());
    if (name == "isinf") return builder_.CreateFCmpOEQ(ax, inf);
    return builder_.CreateFCmpOLT(ax, inf);
  }
  if (name == "popcount") return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, arg(0));
  if (name == "clz") {
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, arg(0), builder_.getFalse());
  }
  if (name == "bitwise_and") return builder_.CreateAnd(arg(0), arg(1));
  if (name == "bitwise_or") return builder_.CreateOr(arg(0), arg(1));
  if (name == "bitwise_xor") return builder_.CreateXor(arg(0), arg(1));
  if (name == "bitwise_not") return builder_.CreateNot(arg(0));
  if (name == "shift_left") return builder_.CreateShl(arg(0), arg(1));
  if (name == "shift_right") {
    return a0.is_int() ? builder_.CreateAShr(arg(0), arg(1)) : builder_.CreateLShr(arg(0), arg(1));
  }
  if (name == "likely") return arg(0);
  if (name == "assume") {
    builder_.CreateAssumption(arg(0));
    return ConstInt(DataType::Bool(), 1);
  }
  if (name == "reinterpret") {
    llvm::Value* v = arg(0);
    if (a0.is_handle() && !t.is_handle()) return builder_.CreatePtrToInt(v, LLVMType(t));
    if (!a0.is_handle() && t.is_handle()) return builder_.CreateIntToPtr(v, LLVMType(t));
    return builder_.CreateBitCast(v, LLVMType(t));
  }
  if (name == "if_then_else") {
    // Only the taken branch is evaluated (it may guard an out-of-bounds load).
    llvm::Function* fn = fs_.function;
    if (op->args[0]->dtype.lanes() > 1) return EmitVectorIfThenElse(op);
    auto* then_bb = llvm::BasicBlock::Create(*ctx_, "if_then", fn);
    auto* else_bb = llvm::BasicBlock::Create(*ctx_, "if_else", fn);
    auto* end_bb = llvm::BasicBlock::Create(*ctx_, "if_end", fn);
    builder_.CreateCondBr(arg(0), then_bb, else_bb);
    builder_.SetInsertPoint(then_bb);
    llvm::Value* tv = arg(1);
    llvm::BasicBlock* then_end = builder_.GetInsertBlock();
    builder_.CreateBr(end_bb);
    builder_.SetInsertPoint(else_bb);
    llvm::Value* ev = arg(2);
    llvm::BasicBlock* else_end = builder_.GetInsertBlock();
    builder_.CreateBr(end_bb);
    builder_.SetInsertPoint(end_bb);
    llvm::PHINode* phi = builder_.CreatePHI(tv->getType(), 2);
    phi->addIncoming(tv, then_end);
    phi->addIncoming(ev, else_end);
    return phi;
  }
  if (name == "tvm_struct_get") return EmitStructGet(op);
  if (name == "call_packed") return EmitCallPacked(op);
  if (name == "break_loop" || name == "continue_loop") {
    if (fs_.loops.empty()) throw CodegenError("T." + name + " outside a loop");
    const LoopTargets& loop = fs_.loops.back();
    builder_.CreateBr(name == "break_loop" ? loop.break_to : loop.continue_to);
    builder_.SetInsertPoint(llvm::BasicBlock::Create(*ctx_, "after_" + name, fs_.function));
    return builder_.getInt32(0);
  }
  if (name == "address_of") {
    auto* load = op->args[0].as<BufferLoadNode>();
    if (!load) throw CodegenError("T.address_of needs a buffer element");
    return BufferAccess(load->buffer, load->indices, load->dtype).address;
  }
  if (name == "call_llvm_intrin" || name == "call_llvm_pure_intrin") return EmitCallLLVMIntrin(op);
  if (name == "call_extern" || name == "call_pure_extern") {
    auto* fname = op->args.empty() ? nullptr : op->args[0].as<StringImmNode>();
    if (!fname) throw CodegenError("T." + name + " needs the function name first");
    std::vector<llvm::Value*> args;
    std::vector<llvm::Type*> types;
    for (size_t i = 1; i < op->args.size(); ++i) {
      args.push_back(arg(i));
      types.push_back(args.back()->getType());
    }
    llvm::FunctionCallee fn = module_->getOrInsertFunction(
        fname->value, llvm::FunctionType::get(LLVMType(t), types, false));
    return builder_.CreateCall(fn, args);
  }
  throw CodegenError("the LLVM codegen does not support T." + name);
}

}  // namespace wb::codegen
