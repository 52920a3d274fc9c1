// DataType -> CUDA C: scalar and native vector type names, literals (exact: floats round-trip,
// infinities and NaN as bit patterns), conversions (float16 through cuda_fp16.h, bfloat16
// through cuda_bf16.h; both convert with round-to-nearest-even, as the reference interpreter
// does), and the prelude the printed kernels need.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "codegen/cuda/cuda_printer.h"

namespace wb::codegen::cuda {

namespace {

std::string ScalarName(DataType t) {
  if (t.is_bool()) return "bool";
  if (t.is_handle()) return "void*";
  if (t.is_int()) {
    switch (t.bits()) {
      case 8: return "signed char";
      case 16: return "short";
      case 32: return "int";
      case 64: return "long long";
      default: break;
    }
  }
  if (t.is_uint()) {
    switch (t.bits()) {
      case 8: return "unsigned char";
      case 16: return "unsigned short";
      case 32: return "unsigned int";
      case 64: return "unsigned long long";
      default: break;
    }
  }
  if (t.is_float()) {
    switch (t.bits()) {
      case 16: return "half";
      case 32: return "float";
      case 64: return "double";
      default: break;
    }
  }
  if (t.is_bfloat16()) return "nv_bfloat16";
  return "";
}

// CUDA's vector type base names ("float" -> float2/float4) for the element types that have them.
std::string VectorBase(DataType e) {
  if (e.is_float() && e.bits() == 32) return "float";
  if (e.is_float() && e.bits() == 64) return "double";
  if (e.is_int()) {
    switch (e.bits()) {
      case 8: return "char";
      case 16: return "short";
      case 32: return "int";
      case 64: return "longlong";
      default: return "";
    }
  }
  if (e.is_uint()) {
    switch (e.bits()) {
      case 8: return "uchar";
      case 16: return "ushort";
      case 32: return "uint";
      case 64: return "ulonglong";
      default: return "";
    }
  }
  return "";
}

}  // namespace

bool CudaPrinter::HasVectorType(DataType t) const {
  int lanes = t.lanes();
  DataType e = t.element_of();
  if (IsNarrowFloat(e)) return lanes == 2;  // half2, nv_bfloat162
  if (VectorBase(e).empty()) return false;
  // Only the widths that are a single aligned load: 2, 4, 8 or 16 bytes.
  int bytes = e.bytes() * lanes;
  if (lanes != 2 && lanes != 4) return false;
  return bytes <= 16;
}

std::string CudaPrinter::TypeName(DataType t) {
  if (t.is_scalable_vector()) Unsupported("scalable vector dtype " + t.ToString());
  if (IsHalf(t.element_of())) need_fp16_ = true;
  if (t.element_of().is_bfloat16()) need_bf16_ = true;
  if (t.lanes() == 1) {
    std::string name = ScalarName(t);
    if (name.empty()) Unsupported("dtype " + t.ToString() + " (no CUDA C type)");
    return name;
  }
  if (!HasVectorType(t)) Unsupported("vector dtype " + t.ToString() + " as a whole value");
  DataType e = t.element_of();
  if (IsHalf(e)) return "half2";
  if (e.is_bfloat16()) return "nv_bfloat162";
  return VectorBase(e) + std::to_string(t.lanes());
}

std::string CudaPrinter::MakeVector(DataType t, const std::vector<std::string>& lanes) {
  std::string type = TypeName(t);
  std::string call;
  if (IsHalf(t.element_of())) {
    call = "__halves2half2(";
  } else if (t.element_of().is_bfloat16()) {
    call = "__halves2bfloat162(";
  } else {
    call = "make_" + type + "(";
  }
  for (size_t i = 0; i < lanes.size(); ++i) call += (i ? ", " : "") + lanes[i];
  return call + ")";
}

std::string CudaPrinter::LaneField(int i) {
  static const char* fields[] = {".x", ".y", ".z", ".w"};
  return fields[i];
}

std::string CudaPrinter::IntLiteral(DataType t, int64_t v) {
  if (t.is_bool()) return v ? "true" : "false";
  if (t.is_float() || t.is_bfloat16()) return FloatLiteral(t, static_cast<double>(v));
  char buf[64];
  if (t.is_uint()) {
    uint64_t u = static_cast<uint64_t>(v);
    if (t.bits() < 64) u &= (uint64_t{1} << t.bits()) - 1;
    if (t.bits() == 64) std::snprintf(buf, sizeof buf, "%" PRIu64 "ULL", u);
    else if (t.bits() == 32) std::snprintf(buf, sizeof buf, "%" PRIu64 "U", u);
    else std::snprintf(buf, sizeof buf, "((%s)%" PRIu64 "U)", ScalarName(t).c_str(), u);
    return buf;
  }
  if (t.bits() == 64) {
    if (v == INT64_MIN) return "(-9223372036854775807LL - 1LL)";
    std::snprintf(buf, sizeof buf, v < 0 ? "(%" PRId64 "LL)" : "%" PRId64 "LL", v);
    return buf;
  }
  if (t.bits() == 32) {
    if (v == INT32_MIN) return "(-2147483647 - 1)";
    std::snprintf(buf, sizeof buf, v < 0 ? "(%" PRId64 ")" : "%" PRId64, v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "((%s)%" PRId64 ")", TypeName(t).c_str(), v);
  return buf;
}

std::string CudaPrinter::FloatLiteral(DataType t, double v) {
  char buf[64];
  DataType e = t.element_of();
  if (IsNarrowFloat(e)) return FromFloat(e, FloatLiteral(DataType::Float(32), v));
  bool is64 = e.bits() == 64;
  if (std::isnan(v)) return is64 ? "__longlong_as_double(0x7ff8000000000000LL)" : "__int_as_float(0x7fc00000)";
  if (std::isinf(v)) {
    if (is64) return v > 0 ? "__longlong_as_double(0x7ff0000000000000LL)" : "__longlong_as_double(0xfff0000000000000ULL)";
    return v > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000U)";
  }
  if (is64) {
    std::snprintf(buf, sizeof buf, "%.17g", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<float>(v));
  }
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  if (!is64) s += "f";
  if (v < 0 || std::signbit(v)) s = "(" + s + ")";
  return s;
}

std::string CudaPrinter::ToFloat(DataType t, const std::string& v) {
  if (IsHalf(t)) return "__half2float(" + v + ")";
  if (t.is_bfloat16()) return "__bfloat162float(" + v + ")";
  return v;
}

std::string CudaPrinter::FromFloat(DataType t, const std::string& v) {
  if (IsHalf(t)) {
    need_fp16_ = true;
    return "__float2half_rn(" + v + ")";
  }
  if (t.is_bfloat16()) {
    need_bf16_ = true;
    return "__float2bfloat16_rn(" + v + ")";
  }
  return v;
}

std::string CudaPrinter::CastString(DataType from, DataType to, const std::string& v) {
  if (from == to) return v;
  if (from.is_handle() || to.is_handle()) {
    if (from.is_handle() && to.is_handle()) return v;
    return "((" + TypeName(to) + ")(" + v + "))";
  }
  // Narrow floats go through float32; float64 -> float16 rounds once.
  if (IsNarrowFloat(from)) return CastString(DataType::Float(32), to, ToFloat(from, v));
  if (IsNarrowFloat(to)) {
    if (IsHalf(to) && from.is_float() && from.bits() == 64) return "__double2half(" + v + ")";
    if (to.is_bfloat16() && from.is_float() && from.bits() == 64) return "__double2bfloat16(" + v + ")";
    return FromFloat(to, CastString(from, DataType::Float(32), v));
  }
  if (to.is_bool()) return "((" + v + ") != 0)";
  return "((" + TypeName(to) + ")(" + v + "))";
}

std::string CudaPrinter::Finish() const {
  std::ostringstream os;
  os << "// Generated by workbench's CUDA codegen for " << arch_ << ".\n";
  if (need_fp16_) os << "#include <cuda_fp16.h>\n";
  if (need_bf16_) os << "#include <cuda_bf16.h>\n";
  if (need_fp16_ || need_bf16_) os << "\n";
  if (helpers_.count("floordiv")) {
    os << "// TIR's floor division and modulo (the result takes the divisor's sign).\n"
          "template <typename T> __device__ __forceinline__ T wb_floordiv(T a, T b) {\n"
          "  T q = a / b, r = a % b;\n"
          "  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;\n"
          "}\n"
          "template <typename T> __device__ __forceinline__ T wb_floormod(T a, T b) {\n"
          "  T r = a % b;\n"
          "  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n"
          "}\n\n";
  }
  if (helpers_.count("bitcast")) {
    os << "// T.reinterpret between same-sized types.\n"
          "template <typename To, typename From> __device__ __forceinline__ To wb_bitcast(From v) {\n"
          "  static_assert(sizeof(To) == sizeof(From), \"reinterpret needs equal sizes\");\n"
          "  To t;\n"
          "  memcpy(&t, &v, sizeof(To));\n"
          "  return t;\n"
          "}\n\n";
  }
  if (helpers_.count("dyn_shared")) {
    // Declared once at file scope: every kernel's dynamic shared memory starts here.
    os << "extern __shared__ __align__(16) unsigned char wb_dyn_shared[];\n\n";
  }
  os << body_.str();
  return os.str();
}

}  // namespace wb::codegen::cuda
