// Builtin calls in CUDA C: math per dtype (float32 `expf`, float64 `exp`, float16/bfloat16 through
// float32 and rounded back; `__expf` & co. only under the function's fast_math attribute), bit
// operations, reinterpretation, barriers (tvm_storage_sync -> __syncthreads / __syncwarp), warp
// shuffles with their masks, atomics, address_of and extern calls. Ops are matched by their
// registered name without the dialect prefix, so ops another part of the tree registers later
// (tvm_warp_shuffle_down, tvm_warp_activemask, atomic_add) print as soon as they exist.
#include <map>
#include <set>

#include "codegen/cuda/cuda_printer.h"
#include "tir/builtin.h"

namespace wb::codegen::cuda {

using namespace tir;

namespace {

// TIR math op -> the CUDA math library's double-precision name (float32 adds "f").
const std::map<std::string, std::string>& MathFunctions() {
  static const std::map<std::string, std::string> table = {
      {"exp", "exp"},       {"exp2", "exp2"},     {"exp10", "exp10"},   {"log", "log"},
      {"log2", "log2"},     {"log10", "log10"},   {"log1p", "log1p"},   {"sqrt", "sqrt"},
      {"rsqrt", "rsqrt"},   {"sin", "sin"},       {"cos", "cos"},       {"tan", "tan"},
      {"sinh", "sinh"},     {"cosh", "cosh"},     {"tanh", "tanh"},     {"asin", "asin"},
      {"acos", "acos"},     {"atan", "atan"},     {"asinh", "asinh"},   {"acosh", "acosh"},
      {"atanh", "atanh"},   {"atan2", "atan2"},   {"erf", "erf"},       {"fabs", "fabs"},
      {"floor", "floor"},   {"ceil", "ceil"},     {"round", "round"},   {"nearbyint", "rint"},
      {"trunc", "trunc"},   {"pow", "pow"},       {"fmod", "fmod"},     {"copysign", "copysign"},
      {"hypot", "hypot"},   {"nextafter", "nextafter"},
  };
  return table;
}

// float32 intrinsics that trade accuracy for speed: used only under fast math.
const std::map<std::string, std::string>& FastMathFunctions() {
  static const std::map<std::string, std::string> table = {
      {"exp", "__expf"},   {"exp10", "__exp10f"}, {"log", "__logf"}, {"log2", "__log2f"},
      {"log10", "__log10f"}, {"sin", "__sinf"},   {"cos", "__cosf"}, {"tan", "__tanf"},
      {"pow", "__powf"},
  };
  return table;
}

std::string Join(const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
  return out;
}

}  // namespace

std::string CudaPrinter::ElementwiseCall(const std::string& name, DataType result,
                                         const std::vector<DataType>& arg_types,
                                         const std::vector<std::string>& args) {
  DataType a0 = arg_types.empty() ? DataType() : arg_types[0];
  bool is_math = MathFunctions().count(name) || name == "sigmoid" || name == "ldexp";
  if (is_math) {
    if (!a0.is_floating_point()) Unsupported("T." + name + " needs a floating-point argument, got " + a0.ToString());
    if (a0.is_narrow_float()) Unsupported("T." + name + " on " + a0.ToString());
    bool narrow = IsNarrowFloat(a0);
    bool f64 = a0.is_float() && a0.bits() == 64;
    std::vector<std::string> fargs;
    for (size_t i = 0; i < args.size(); ++i) fargs.push_back(narrow ? ToFloat(arg_types[i], args[i]) : args[i]);
    std::string suffix = f64 ? "" : "f";
    std::string r;
    if (name == "sigmoid") {
      std::string one = f64 ? "1.0" : "1.0f";
      std::string e = (!f64 && fast_math_) ? "__expf" : "exp" + suffix;
      r = "(" + one + " / (" + one + " + " + e + "(-" + fargs[0] + ")))";
    } else if (name == "ldexp") {
      r = "ldexp" + suffix + "(" + fargs[0] + ", (int)(" + fargs[1] + "))";
    } else if (auto fm = FastMathFunctions().find(name); !f64 && fast_math_ && fm != FastMathFunctions().end()) {
      r = fm->second + "(" + Join(fargs) + ")";
    } else {
      r = MathFunctions().at(name) + suffix + "(" + Join(fargs) + ")";
    }
    return narrow ? FromFloat(a0, r) : r;
  }
  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    if (!a0.is_floating_point()) return name == "isfinite" ? "true" : "false";
    std::string x = IsNarrowFloat(a0) ? ToFloat(a0, args[0]) : args[0];
    return name + "(" + x + ")";
  }
  auto wrap = [&](const std::string& v) {
    return (result.is_int() || result.is_uint()) && result.bits() < 32 ? "((" + TypeName(result) + ")" + v + ")" : v;
  };
  if (name == "popcount" || name == "clz") {
    if (!a0.is_int() && !a0.is_uint()) Unsupported("T." + name + " on " + a0.ToString());
    bool wide = a0.bits() == 64;
    std::string u = wide ? "(unsigned long long)" : "(unsigned int)";
    // Narrow values are zero-extended first so that the sign bits do not count.
    std::string v = a0.bits() < 32 ? "(unsigned int)(" + TypeName(DataType::UInt(a0.bits())) + ")(" + args[0] + ")"
                                   : u + "(" + args[0] + ")";
    if (name == "popcount") return wrap(std::string(wide ? "__popcll(" : "__popc(") + v + ")");
    std::string c = std::string(wide ? "__clzll(" : "__clz(") + v + ")";
    if (a0.bits() < 32) c = "(" + c + " - " + std::to_string(32 - a0.bits()) + ")";
    return wrap(c);
  }
  if (name == "bitwise_and") return wrap("(" + args[0] + " & " + args[1] + ")");
  if (name == "bitwise_or") return wrap("(" + args[0] + " | " + args[1] + ")");
  if (name == "bitwise_xor") return wrap("(" + args[0] + " ^ " + args[1] + ")");
  if (name == "bitwise_not") return wrap("(~" + args[0] + ")");
  if (name == "shift_left") return wrap("(" + args[0] + " << " + args[1] + ")");
  if (name == "shift_right") return wrap("(" + args[0] + " >> " + args[1] + ")");
  if (name == "likely") return args[0];
  if (name == "reinterpret") {
    DataType from = a0, to = result;
    if (from.bits() != to.bits()) {
      Unsupported("T.reinterpret from " + from.ToString() + " to " + to.ToString() + " (sizes differ)");
    }
    if (from == to) return args[0];
    auto is = [](DataType t, bool is_float, bool is_int, bool is_uint) {
      return (is_float && t.is_float()) || (is_int && t.is_int()) || (is_uint && t.is_uint());
    };
    if (from.bits() == 32 && from.is_float() && is(to, false, true, false)) return "__float_as_int(" + args[0] + ")";
    if (from.bits() == 32 && from.is_float() && to.is_uint()) return "__float_as_uint(" + args[0] + ")";
    if (to.bits() == 32 && to.is_float() && from.is_int()) return "__int_as_float(" + args[0] + ")";
    if (to.bits() == 32 && to.is_float() && from.is_uint()) return "__uint_as_float(" + args[0] + ")";
    if (from.bits() == 64 && from.is_float() && to.is_int()) return "__double_as_longlong(" + args[0] + ")";
    if (to.bits() == 64 && to.is_float() && from.is_int()) return "__longlong_as_double(" + args[0] + ")";
    helpers_.insert("bitcast");
    return "wb_bitcast<" + TypeName(to) + ">(" + args[0] + ")";
  }
  return "";
}

std::string CudaPrinter::PrintCall(const CallNode* op) {
  auto* o = op->op.as<ir::OpNode>();
  if (!o) Unsupported("a call to another function of the module (device function calls are not supported)");
  std::string name = o->name.substr(o->name.find('.') + 1);
  if (const OpInfo* info = InfoOf(ir::GetRef(o))) name = info->name.substr(info->name.find('.') + 1);
  const auto& args = op->args;
  auto arg = [&](size_t i) { return Print(args.at(i)); };
  auto need = [&](size_t n) {
    if (args.size() != n) {
      Unsupported("T." + name + " with " + std::to_string(args.size()) + " arguments (expected " + std::to_string(n) + ")");
    }
  };
  if (op->dtype.lanes() > 1) return Lanes(PrimExpr(ir::GetRef(op)), op->dtype.lanes())[0];
  if (name == "if_then_else") {
    need(3);
    // C's conditional evaluates only the taken side, as TIR's if_then_else requires.
    return "(" + arg(0) + " ? " + arg(1) + " : " + arg(2) + ")";
  }
  if (name == "tvm_storage_sync") {
    auto* scope = args.empty() ? nullptr : args[0].as<StringImmNode>();
    std::string s = scope ? scope->value : "";
    if (s == "shared" || s == "shared.dyn") return "__syncthreads()";
    if (s == "warp") return "__syncwarp()";
    Unsupported("T.tvm_storage_sync(\"" + s + "\") (only shared and warp barriers exist inside a kernel)");
  }
  if (name == "tvm_warp_activemask") return "__activemask()";
  if (name == "tvm_warp_shuffle" || name == "tvm_warp_shuffle_down" || name == "tvm_warp_shuffle_up") {
    // (mask, value, lane or delta, width, warp_size), as LowerThreadAllreduce emits them.
    need(5);
    const char* fn = name == "tvm_warp_shuffle" ? "__shfl_sync" : name == "tvm_warp_shuffle_down" ? "__shfl_down_sync" : "__shfl_up_sync";
    DataType vt = args[1]->dtype;
    if (vt.is_bool()) {
      return std::string("(") + fn + "(" + arg(0) + ", (int)" + arg(1) + ", " + arg(2) + ", " + arg(3) + ") != 0)";
    }
    if (TypeName(vt).empty()) Unsupported("a warp shuffle of " + vt.ToString());
    return std::string(fn) + "(" + arg(0) + ", " + arg(1) + ", " + arg(2) + ", " + arg(3) + ")";
  }
  if (name == "tvm_thread_allreduce") {
    Unsupported("T.tvm_thread_allreduce (lower it first: LowerThreadAllreduce)");
  }
  if (name == "address_of") {
    need(1);
    auto* load = args[0].as<BufferLoadNode>();
    if (!load) Unsupported("T.address_of of something that is not a buffer element");
    if (load->dtype.lanes() > 1) Unsupported("T.address_of a vector access");
    return "(&" + Element(load->buffer, Print(FlatIndex(load->buffer, load->indices))) + ")";
  }
  if (name == "atomic_add" || name == "tvm_atomic_add") {
    // (address, value): the address of a buffer element or a typed pointer.
    need(2);
    DataType vt = args[1]->dtype;
    std::string ptr = arg(0);
    if (!args[0].as<CallNode>()) ptr = "((" + TypeName(vt) + "*)" + ptr + ")";
    return "atomicAdd(" + ptr + ", " + arg(1) + ")";
  }
  if (name == "call_extern" || name == "call_pure_extern") {
    auto* fname = args.empty() ? nullptr : args[0].as<StringImmNode>();
    if (!fname) Unsupported("T." + name + " without the function name first");
    std::vector<std::string> rest;
    for (size_t i = 1; i < args.size(); ++i) rest.push_back(arg(i));
    return fname->value + "(" + Join(rest) + ")";
  }
  if (name == "assume") {
    need(1);
    return "__builtin_assume(" + arg(0) + ")";
  }
  static const std::set<std::string> host_only = {"tvm_call_packed", "tvm_call_cpacked", "tvm_struct_get",
                                                  "tvm_struct_set", "tvm_stack_alloca", "ret",
                                                  "call_llvm_intrin", "call_llvm_pure_intrin"};
  if (host_only.count(name)) Unsupported("T." + name + " (a host-side builtin) inside a kernel");
  std::vector<std::string> printed;
  std::vector<DataType> types;
  for (size_t i = 0; i < args.size(); ++i) {
    printed.push_back(arg(i));
    types.push_back(args[i]->dtype);
  }
  std::string v = ElementwiseCall(name, op->dtype, types, printed);
  if (v.empty()) Unsupported("T." + name + " (no CUDA translation)");
  return v;
}

}  // namespace wb::codegen::cuda
