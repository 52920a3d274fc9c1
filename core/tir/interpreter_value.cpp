// The interpreter's arithmetic: every operation TVM defines on scalars and vectors, lane by
// lane, with TVM's integer semantics (wrap at the bit width; truncdiv/truncmod round toward
// zero, floordiv/floormod toward negative infinity) and floats rounded to their dtype after
// every operation (float16/bfloat16 through the runtime's round-to-nearest-even conversions).
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "runtime/half.h"
#include "tir/interpreter_value.h"

namespace wb::tir::interp {

using ir::TypeIndex;

Value::Value(DataType dtype) : dtype_(dtype), kind_(KindOf(dtype)), lanes_(dtype.lanes()) {
  if (kind_ == Kind::kUndefined) kind_ = Kind::kInt;  // void calls evaluate to an int 0
  if (lanes_ < 1) lanes_ = 1;
  if (lanes_ > kInline) big_.assign(lanes_, Scalar{0});
}

Value Value::Int(DataType dtype, int64_t v) {
  Value r(dtype);
  const Scalar s = r.kind_ == Kind::kFloat ? Normalize(dtype, Scalar{.f = static_cast<double>(v)})
                                           : Normalize(dtype, Scalar{.i = v});
  for (int i = 0; i < r.lanes(); ++i) r[i] = s;
  return r;
}

Value Value::Float(DataType dtype, double v) {
  Value r(dtype);
  for (int i = 0; i < r.lanes(); ++i) {
    r[i] = r.kind_ == Kind::kFloat ? Normalize(dtype, Scalar{.f = v})
                                   : Normalize(dtype, Scalar{.i = static_cast<int64_t>(v)});
  }
  return r;
}

Value Value::Handle(Storage* storage, int64_t byte_offset) {
  Value r(DataType::Handle());
  r.storage_ = storage;
  r[0].i = byte_offset;
  return r;
}

double Value::AsDouble(int lane) const {
  const Scalar& s = (*this)[lane];
  switch (kind_) {
    case Kind::kFloat: return s.f;
    case Kind::kUInt: return dtype_.bits() == 64 ? static_cast<double>(static_cast<uint64_t>(s.i)) : static_cast<double>(s.i);
    default: return static_cast<double>(s.i);
  }
}

void Fail(const std::string& message, const Span& span) {
  throw InterpError(Diagnostic::Error(message, span));
}

void CheckSupported(DataType t, const Span& span) {
  if (t.is_narrow_float() && t.code() != DataType::kFloat8_e4m3fn &&
      t.code() != DataType::kFloat8_e5m2) {
    Fail("the interpreter does not support " + t.element_of().ToString() + " values", span);
  }
  if ((t.is_int() || t.is_uint()) && t.bits() != 8 && t.bits() != 16 && t.bits() != 32 &&
      t.bits() != 64) {
    Fail("the interpreter does not support " + t.element_of().ToString() + " values", span);
  }
  if (t.is_float() && t.bits() != 16 && t.bits() != 32 && t.bits() != 64) {
    Fail("the interpreter does not support " + t.element_of().ToString() + " values", span);
  }
  if (t.code() == DataType::kBFloat && t.bits() != 16) {
    Fail("the interpreter does not support " + t.element_of().ToString() + " values", span);
  }
}

int64_t ElementBytes(DataType t) { return int64_t{(t.bits() + 7) / 8} * t.lanes(); }

namespace {

// Lane `i` of `v`, broadcasting a scalar.
const Scalar& LaneOf(const Value& v, int i) { return v.lanes() == 1 ? v[0] : v[i]; }

int ResultLanes(const Value& a, const Value& b, const Span& span) {
  if (a.lanes() == b.lanes() || b.lanes() == 1) return a.lanes();
  if (a.lanes() == 1) return b.lanes();
  Fail("operands have " + std::to_string(a.lanes()) + " and " + std::to_string(b.lanes()) +
           " lanes",
       span);
}

// A float to an integer type: truncate toward zero; NaN and out-of-range values (undefined in
// C and poison in LLVM) saturate so that the oracle stays deterministic.
int64_t FloatToInt(double f, DataType to) {
  if (std::isnan(f)) return 0;
  if (to.is_uint() && to.bits() == 64) {
    if (f <= 0) return 0;
    if (f >= 18446744073709551616.0) return -1;
    return static_cast<int64_t>(static_cast<uint64_t>(f));
  }
  if (f >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
  if (f < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

uint64_t BitsOf(DataType t, Scalar s) {
  if (KindOf(t) != Kind::kFloat) return static_cast<uint64_t>(s.i) & (t.bits() >= 64 ? ~uint64_t{0} : ((uint64_t{1} << t.bits()) - 1));
  if (t.code() == DataType::kFloat8_e4m3fn) return runtime::DoubleToFloat8E4M3FNBits(s.f);
  if (t.code() == DataType::kFloat8_e5m2) return runtime::DoubleToFloat8E5M2Bits(s.f);
  if (t.is_bfloat16()) return runtime::DoubleToBFloat16Bits(s.f);
  if (t.bits() == 16) return runtime::DoubleToHalfBits(s.f);
  if (t.bits() == 32) return std::bit_cast<uint32_t>(static_cast<float>(s.f));
  return std::bit_cast<uint64_t>(s.f);
}

Scalar FromBits(DataType t, uint64_t bits) {
  Scalar s{0};
  if (KindOf(t) != Kind::kFloat) {
    s.i = static_cast<int64_t>(bits);
    return Normalize(t, s);
  }
  if (t.code() == DataType::kFloat8_e4m3fn) s.f = runtime::Float8E4M3FNBitsToDouble(static_cast<uint8_t>(bits));
  else if (t.code() == DataType::kFloat8_e5m2) s.f = runtime::Float8E5M2BitsToDouble(static_cast<uint8_t>(bits));
  else if (t.is_bfloat16()) s.f = runtime::BFloat16BitsToFloat(static_cast<uint16_t>(bits));
  else if (t.bits() == 16) s.f = runtime::HalfBitsToFloat(static_cast<uint16_t>(bits));
  else if (t.bits() == 32) s.f = std::bit_cast<float>(static_cast<uint32_t>(bits));
  else s.f = std::bit_cast<double>(bits);
  return s;
}

}  // namespace

Value Cast(DataType to, const Value& v, const Span& span) {
  CheckSupported(to, span);
  if (to.is_handle() || v.kind() == Kind::kHandle) {
    if (to.is_handle() && v.kind() == Kind::kHandle) return v;
    Fail("cannot cast between handle and " + (to.is_handle() ? v.dtype() : to).ToString(), span);
  }
  int lanes = to.lanes();
  if (v.lanes() != lanes && v.lanes() != 1) {
    Fail("cast from " + v.dtype().ToString() + " to " + to.ToString() + " changes the lane count", span);
  }
  Value r(to);
  for (int i = 0; i < lanes; ++i) r[i] = CastLane(to, v.dtype(), LaneOf(v, i));
  return r;
}

Scalar CastLane(DataType to, DataType from, Scalar s) {
  const Kind from_kind = KindOf(from);
  const Kind kind = KindOf(to);
  Scalar out{0};
  if (kind == Kind::kFloat) {
    out.f = from_kind == Kind::kFloat                          ? s.f
            : from_kind == Kind::kUInt && from.bits() == 64 ? static_cast<double>(static_cast<uint64_t>(s.i))
                                                               : static_cast<double>(s.i);
  } else if (kind == Kind::kBool) {
    out.i = from_kind == Kind::kFloat ? s.f != 0 : s.i != 0;
  } else if (from_kind == Kind::kFloat) {
    out.i = FloatToInt(s.f, to);
  } else {
    out.i = s.i;
  }
  return Normalize(to, out);
}

Value Reinterpret(DataType to, const Value& v, const Span& span) {
  CheckSupported(to, span);
  if (to.bits() * to.lanes() != v.dtype().bits() * v.lanes() || to.lanes() != v.lanes()) {
    Fail("reinterpret from " + v.dtype().ToString() + " to " + to.ToString() +
             " must keep the lane count and the bit width",
         span);
  }
  Value r(to);
  for (int i = 0; i < to.lanes(); ++i) r[i] = FromBits(to, BitsOf(v.dtype(), v[i]));
  return r;
}

Value LogicalNot(const Value& a) {
  Value r(DataType::Bool(a.lanes()));
  for (int i = 0; i < a.lanes(); ++i) r[i].i = a.kind() == Kind::kFloat ? a[i].f == 0 : a[i].i == 0;
  return r;
}

Value Binary(TypeIndex kind, const Value& a, const Value& b, const Span& span) {
  if (a.kind() == Kind::kHandle || b.kind() == Kind::kHandle) {
    if (kind == TypeIndex::kEQ || kind == TypeIndex::kNE) {
      bool same = a.storage() == b.storage() && a[0].i == b[0].i;
      return Value::Int(DataType::Bool(), (kind == TypeIndex::kEQ) == same);
    }
    Fail("arithmetic on a handle is not supported", span);
  }
  const bool compare = IsComparison(kind) || kind == TypeIndex::kAnd || kind == TypeIndex::kOr;
  if (a.lanes() == 1 && b.lanes() == 1 && a.kind() == b.kind()) {
    // Scalars of one kind: the common case in index arithmetic and loop bodies, without the
    // lane loop's bookkeeping. Same semantics as below.
    Value r(compare ? DataType::Bool() : a.dtype());
    r[0] = BinaryLane(kind, a.dtype(), a[0], b[0], span);
    return r;
  }
  const int lanes = ResultLanes(a, b, span);
  // The operation's type is the operands' (TIR matches them); a scalar operand may meet a vector.
  DataType op_type = a.lanes() >= b.lanes() ? a.dtype() : b.dtype();
  DataType result = compare ? DataType::Bool(lanes) : op_type.with_lanes(lanes);
  Value r(result);
  const bool is_float = a.kind() == Kind::kFloat || b.kind() == Kind::kFloat;
  for (int i = 0; i < lanes; ++i) {
    if (is_float) {
      double x = a.lanes() == 1 ? a.AsDouble(0) : a.AsDouble(i);
      double y = b.lanes() == 1 ? b.AsDouble(0) : b.AsDouble(i);
      double v = FloatBinary(kind, x, y, span);
      r[i] = compare ? Scalar{.i = v != 0} : Normalize(result, Scalar{.f = v});
    } else {
      int64_t v = IntBinary(kind, KindOf(op_type), op_type, LaneOf(a, i).i, LaneOf(b, i).i, span);
      r[i] = Normalize(result, Scalar{.i = v});
    }
  }
  return r;
}

namespace {

double Unary(const std::string& name, double x, bool* found) {
  *found = true;
  if (name == "exp") return std::exp(x);
  if (name == "exp2") return std::exp2(x);
  if (name == "exp10") return std::pow(10.0, x);
  if (name == "log") return std::log(x);
  if (name == "log2") return std::log2(x);
  if (name == "log10") return std::log10(x);
  if (name == "log1p") return std::log1p(x);
  if (name == "sqrt") return std::sqrt(x);
  if (name == "rsqrt") return 1.0 / std::sqrt(x);
  if (name == "sin") return std::sin(x);
  if (name == "cos") return std::cos(x);
  if (name == "tan") return std::tan(x);
  if (name == "sinh") return std::sinh(x);
  if (name == "cosh") return std::cosh(x);
  if (name == "tanh") return std::tanh(x);
  if (name == "asin") return std::asin(x);
  if (name == "acos") return std::acos(x);
  if (name == "atan") return std::atan(x);
  if (name == "asinh") return std::asinh(x);
  if (name == "acosh") return std::acosh(x);
  if (name == "atanh") return std::atanh(x);
  if (name == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (name == "erf") return std::erf(x);
  if (name == "fabs") return std::fabs(x);
  if (name == "floor") return std::floor(x);
  if (name == "ceil") return std::ceil(x);
  // TVM lowers round to llvm.nearbyint (ties to even), as NumPy's round does.
  if (name == "round" || name == "nearbyint") return std::nearbyint(x);
  if (name == "trunc") return std::trunc(x);
  *found = false;
  return 0;
}

double BinaryMath(const std::string& name, double x, double y, bool* found) {
  *found = true;
  if (name == "pow") return std::pow(x, y);
  if (name == "atan2") return std::atan2(x, y);
  if (name == "fmod") return std::fmod(x, y);
  if (name == "copysign") return std::copysign(x, y);
  if (name == "hypot") return std::hypot(x, y);
  if (name == "ldexp") return std::ldexp(x, static_cast<int>(y));
  if (name == "nextafter") return std::nextafter(x, y);
  *found = false;
  return 0;
}

}  // namespace

Value PureIntrinsic(const std::string& name, DataType result, const std::vector<Value>& args,
                    const Span& span) {
  auto need = [&](size_t n) {
    if (args.size() != n) {
      Fail("T." + name + " takes " + std::to_string(n) + " argument(s), got " +
               std::to_string(args.size()),
           span);
    }
  };
  bool found = false;
  if (args.size() == 1 && args[0].kind() == Kind::kFloat) {
    Value r(args[0].dtype());
    for (int i = 0; i < r.lanes(); ++i) {
      r[i] = Normalize(r.dtype(), Scalar{.f = Unary(name, args[0][i].f, &found)});
      if (!found) break;
    }
    if (found) return r;
  }
  if (args.size() == 2 && (args[0].kind() == Kind::kFloat || args[1].kind() == Kind::kFloat)) {
    DataType t = args[0].kind() == Kind::kFloat ? args[0].dtype() : args[1].dtype();
    int lanes = ResultLanes(args[0], args[1], span);
    Value r(t.with_lanes(lanes));
    for (int i = 0; i < lanes; ++i) {
      double x = args[0].AsDouble(args[0].lanes() == 1 ? 0 : i);
      double y = args[1].AsDouble(args[1].lanes() == 1 ? 0 : i);
      r[i] = Normalize(r.dtype(), Scalar{.f = BinaryMath(name, x, y, &found)});
      if (!found) break;
    }
    if (found) return r;
  }
  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    need(1);
    Value r(DataType::Bool(args[0].lanes()));
    for (int i = 0; i < r.lanes(); ++i) {
      double x = args[0].AsDouble(i);
      r[i].i = name == "isnan" ? std::isnan(x) : name == "isinf" ? std::isinf(x) : std::isfinite(x);
    }
    return r;
  }
  if (name == "fabs" && args.size() == 1) {  // integer abs
    Value r = args[0];
    for (int i = 0; i < r.lanes(); ++i) r[i] = Normalize(r.dtype(), Scalar{.i = r[i].i < 0 ? -r[i].i : r[i].i});
    return r;
  }
  if (name == "bitwise_and" || name == "bitwise_or" || name == "bitwise_xor" ||
      name == "shift_left" || name == "shift_right") {
    need(2);
    const Value& a = args[0];
    const Value& b = args[1];
    if (a.kind() == Kind::kFloat || b.kind() == Kind::kFloat) Fail("T." + name + " needs integer operands", span);
    int lanes = ResultLanes(a, b, span);
    Value r(a.dtype().with_lanes(lanes));
    for (int i = 0; i < lanes; ++i) {
      int64_t x = LaneOf(a, i).i, y = LaneOf(b, i).i;
      auto ux = static_cast<uint64_t>(x);
      int64_t v = 0;
      if (name == "bitwise_and") v = x & y;
      else if (name == "bitwise_or") v = x | y;
      else if (name == "bitwise_xor") v = x ^ y;
      else if (y < 0 || y >= a.dtype().bits()) v = name == "shift_right" && x < 0 && a.kind() == Kind::kInt ? -1 : 0;
      else if (name == "shift_left") v = static_cast<int64_t>(ux << y);
      else if (a.kind() == Kind::kInt) v = x >> y;  // arithmetic for signed types
      else v = static_cast<int64_t>(ux >> y);       // logical for unsigned
      r[i] = Normalize(r.dtype(), Scalar{.i = v});
    }
    return r;
  }
  if (name == "bitwise_not" || name == "popcount" || name == "clz") {
    need(1);
    const Value& a = args[0];
    if (a.kind() == Kind::kFloat) Fail("T." + name + " needs an integer operand", span);
    Value r(a.dtype());
    const int bits = a.dtype().bits();
    for (int i = 0; i < r.lanes(); ++i) {
      uint64_t u = BitsOf(a.dtype(), a[i]);
      int64_t v = 0;
      if (name == "bitwise_not") v = static_cast<int64_t>(~u);
      else if (name == "popcount") v = std::popcount(u);
      else v = std::countl_zero(u) - (64 - bits);
      r[i] = Normalize(r.dtype(), Scalar{.i = v});
    }
    return r;
  }
  if (name == "likely") {
    need(1);
    return args[0];
  }
  if (name == "reinterpret") {
    need(1);
    return Reinterpret(result, args[0], span);
  }
  if (name == "vectorlow" || name == "vectorhigh") {
    need(1);
    Value r(result);
    int half = r.lanes();
    if (half > args[0].lanes()) Fail("T." + name + ": result has more lanes than its operand", span);
    int start = name == "vectorlow" ? 0 : args[0].lanes() - half;
    for (int i = 0; i < half; ++i) r[i] = args[0][start + i];
    return r;
  }
  if (name == "vectorcombine") {
    need(2);
    Value r(result);
    if (r.lanes() != args[0].lanes() + args[1].lanes()) Fail("vectorcombine: lane counts do not add up", span);
    for (int i = 0; i < args[0].lanes(); ++i) r[i] = args[0][i];
    for (int i = 0; i < args[1].lanes(); ++i) r[args[0].lanes() + i] = args[1][i];
    return r;
  }
  if (name == "get_active_lane_mask") {
    need(2);
    Value r(result);
    int64_t base = args[0].AsInt(), limit = args[1].AsInt();
    for (int i = 0; i < r.lanes(); ++i) r[i].i = base + i < limit;
    return r;
  }
  return Value();
}

std::string ValueToString(const Value& v) {
  std::ostringstream os;
  os.precision(9);
  if (v.lanes() > 1) os << "[";
  for (int i = 0; i < v.lanes(); ++i) {
    if (i) os << ", ";
    if (v.kind() == Kind::kFloat) os << v[i].f;
    else if (v.kind() == Kind::kUInt && v.dtype().bits() == 64) os << static_cast<uint64_t>(v[i].i);
    else os << v[i].i;
  }
  if (v.lanes() > 1) os << "]";
  return os.str();
}

}  // namespace wb::tir::interp
