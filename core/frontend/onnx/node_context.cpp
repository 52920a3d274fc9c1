// The converters' view of a node, and the values known at import time (constants and their
// element-wise conversions).
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "frontend/onnx/importer.h"
#include "relax/dim_text.h"
#include "relax/type.h"
#include "runtime/half.h"
#include "tir/op.h"

namespace wb::frontend::onnx {

// --- dtypes and constants ----------------------------------------------------------------------

DataType DataTypeOf(int32_t t) {
  using P = ::onnx::TensorProto;
  switch (t) {
    case P::FLOAT: return DataType::Float(32);
    case P::DOUBLE: return DataType::Float(64);
    case P::FLOAT16: return DataType::Float(16);
    case P::BFLOAT16: return DataType::BFloat(16);
    case P::INT8: return DataType::Int(8);
    case P::INT16: return DataType::Int(16);
    case P::INT32: return DataType::Int(32);
    case P::INT64: return DataType::Int(64);
    case P::UINT8: return DataType::UInt(8);
    case P::UINT16: return DataType::UInt(16);
    case P::UINT32: return DataType::UInt(32);
    case P::UINT64: return DataType::UInt(64);
    case P::BOOL: return DataType::Bool();
    default: return DataType::Void();
  }
}

std::string ONNXTypeName(int32_t t) {
  if (::onnx::TensorProto::DataType_IsValid(t)) {
    return ::onnx::TensorProto::DataType_Name(static_cast<::onnx::TensorProto::DataType>(t));
  }
  return "data type " + std::to_string(t);
}

namespace {

void StoreElement(DataType dtype, double v, char* out) {
  auto put = [&](auto x) { std::memcpy(out, &x, sizeof(x)); };
  if (dtype.is_bool()) return put(static_cast<uint8_t>(v != 0));
  if (dtype.is_float()) {
    if (dtype.bits() == 32) return put(static_cast<float>(v));
    if (dtype.bits() == 64) return put(v);
    if (dtype.bits() == 16) return put(runtime::DoubleToHalfBits(v));
  }
  if (dtype.is_bfloat16()) return put(runtime::DoubleToBFloat16Bits(v));
  if (dtype.is_int()) {
    switch (dtype.bits()) {
      case 8: return put(static_cast<int8_t>(v));
      case 16: return put(static_cast<int16_t>(v));
      case 32: return put(static_cast<int32_t>(v));
      case 64: return put(static_cast<int64_t>(v));
    }
  }
  if (dtype.is_uint()) {
    switch (dtype.bits()) {
      case 8: return put(static_cast<uint8_t>(v));
      case 16: return put(static_cast<uint16_t>(v));
      case 32: return put(static_cast<uint32_t>(v));
      case 64: return put(static_cast<uint64_t>(v));
    }
  }
  throw ImportError("constants of dtype " + dtype.ToString() + " are not supported");
}

double LoadElement(DataType dtype, const char* in) {
  auto get = [&](auto x) {
    std::memcpy(&x, in, sizeof(x));
    return x;
  };
  if (dtype.is_bool()) return get(uint8_t{}) != 0;
  if (dtype.is_float()) {
    if (dtype.bits() == 32) return get(float{});
    if (dtype.bits() == 64) return get(double{});
    if (dtype.bits() == 16) return runtime::HalfBitsToFloat(get(uint16_t{}));
  }
  if (dtype.is_bfloat16()) return runtime::BFloat16BitsToFloat(get(uint16_t{}));
  if (dtype.is_int()) {
    switch (dtype.bits()) {
      case 8: return get(int8_t{});
      case 16: return get(int16_t{});
      case 32: return get(int32_t{});
      case 64: return static_cast<double>(get(int64_t{}));
    }
  }
  if (dtype.is_uint()) {
    switch (dtype.bits()) {
      case 8: return get(uint8_t{});
      case 16: return get(uint16_t{});
      case 32: return get(uint32_t{});
      case 64: return static_cast<double>(get(uint64_t{}));
    }
  }
  throw ImportError("constants of dtype " + dtype.ToString() + " are not supported");
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace

relax::Constant MakeConstantOf(DataType dtype, const std::vector<int64_t>& shape,
                               const std::vector<double>& values) {
  std::string bytes(values.size() * dtype.bytes(), '\0');
  for (size_t i = 0; i < values.size(); ++i) StoreElement(dtype, values[i], &bytes[i * dtype.bytes()]);
  return relax::MakeConstant(dtype, shape, std::move(bytes));
}

relax::Constant ScalarConstant(DataType dtype, double value) {
  return MakeConstantOf(dtype, {}, {value});
}

bool KnownInts::AllConstant() const {
  for (const auto& v : values) {
    if (!tir::AsConstInt(v)) return false;
  }
  return true;
}

std::vector<int64_t> KnownInts::Constants(const std::string& what) const {
  std::vector<int64_t> out;
  for (const auto& v : values) {
    const int64_t* c = tir::AsConstInt(v);
    if (!c) throw ImportError(what + " must be known at import time, but it depends on the input's shape");
    out.push_back(*c);
  }
  return out;
}

relax::Constant ConstantOfKnown(const KnownInts& known) {
  std::vector<int64_t> ints = known.Constants("the integer tensor");
  return MakeConstantOf(known.dtype, known.shape, std::vector<double>(ints.begin(), ints.end()));
}

std::vector<double> ConstantValues(const relax::ConstantNode& c) {
  size_t n = c.data.size() / std::max(1, c.dtype.bytes());
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = LoadElement(c.dtype, &c.data[i * c.dtype.bytes()]);
  return out;
}

std::optional<KnownInts> KnownOfConstant(const relax::ConstantNode& c) {
  if (!(c.dtype.is_integer() || c.dtype.is_bool()) || NumElements(c.shape) > int64_t(kMaxKnownElements)) {
    return std::nullopt;
  }
  KnownInts k{c.dtype, c.shape, {}};
  DataType elem = c.dtype.is_bool() ? DataType::Bool() : DataType::Int(64);
  int bytes = c.dtype.bytes();
  for (size_t i = 0; i < c.data.size() / bytes; ++i) {
    // Read exactly (INT64_MAX, the exporters' "to the end", does not survive a double).
    int64_t v = 0;
    const char* p = &c.data[i * bytes];
    switch (bytes) {
      case 1: v = c.dtype.is_int() ? int64_t(int8_t(*p)) : int64_t(uint8_t(*p)); break;
      case 2: { int16_t x; std::memcpy(&x, p, 2); v = c.dtype.is_int() ? x : uint16_t(x); break; }
      case 4: { int32_t x; std::memcpy(&x, p, 4); v = c.dtype.is_int() ? x : uint32_t(x); break; }
      default: std::memcpy(&v, p, 8); break;
    }
    k.values.push_back(tir::MakeIntImm(elem, c.dtype.is_bool() ? v != 0 : v));
  }
  return k;
}

Operand Value(relax::Expr expr) {
  Operand op;
  if (auto* c = expr.as<relax::ConstantNode>()) op.known = KnownOfConstant(*c);
  op.expr = std::move(expr);
  return op;
}

Operand Value(KnownInts known) {
  Operand op;
  if (known.AllConstant()) op.expr = ConstantOfKnown(known);
  op.known = std::move(known);
  return op;
}

std::string FormatNumber(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<int64_t>(value));
  }
  std::ostringstream os;
  os << std::setprecision(6) << value;
  return os.str();
}

int64_t NormalizeAxis(int64_t axis, int64_t rank, const NodeContext& ctx) {
  if (axis < -rank || axis >= rank) {
    ctx.Fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

relax::Expr PrimTuple(const std::vector<int64_t>& values) {
  std::vector<relax::Expr> fields;
  for (int64_t v : values) fields.push_back(relax::MakePrimValue(tir::MakeIntImm(DataType::Int(64), v)));
  return relax::MakeTuple(std::move(fields));
}

// --- NodeContext -------------------------------------------------------------------------------

NodeContext::NodeContext(Importer& importer, const ::onnx::NodeProto& node, int64_t opset)
    : importer_(importer), node_(node), opset_(opset) {}

const std::string& NodeContext::model_path() const { return importer_.path; }

bool NodeContext::HasInput(size_t i) const {
  return i < NumInputs() && !node_.input(static_cast<int>(i)).empty();
}

const Operand& NodeContext::Input(size_t i) const {
  if (!HasInput(i)) Fail("input " + std::to_string(i) + " is required");
  auto it = importer_.values.find(node_.input(static_cast<int>(i)));
  if (it == importer_.values.end()) {
    Fail("input '" + node_.input(static_cast<int>(i)) + "' is not produced by an earlier node, an initializer or a graph input");
  }
  return it->second;
}

relax::Expr NodeContext::Expr(size_t i) const {
  const Operand& op = Input(i);
  if (op.expr.defined()) return op.expr;
  std::string dims;
  for (const auto& v : op.known->values) dims += (dims.empty() ? "" : ", ") + relax::DimToString(v);
  Fail("input '" + node_.input(static_cast<int>(i)) + "' holds the symbolic shape values (" + dims +
       ") and is used as tensor data, which the importer cannot express yet");
}

relax::TensorType NodeContext::Type(size_t i) const {
  const Operand& op = Input(i);
  if (!op.expr.defined()) {
    // A shape value holding symbolic dims: an integer tensor of known shape.
    std::vector<PrimExpr> dims;
    for (int64_t d : op.known->shape) dims.push_back(tir::MakeIntImm(DataType::Int(64), d));
    return relax::MakeTensorType(dims, op.known->dtype);
  }
  auto* t = relax::GetType(op.expr).as<relax::TensorTypeNode>();
  if (!t) Fail("input '" + node_.input(static_cast<int>(i)) + "' is not a tensor");
  return GetRef(t);
}

DataType NodeContext::DType(size_t i) const { return Type(i)->dtype; }

int64_t NodeContext::Rank(size_t i) const {
  relax::TensorType t = Type(i);
  if (t->IsUnknownNdim()) Fail("the rank of input '" + node_.input(static_cast<int>(i)) + "' is unknown");
  return t->ndim;
}

std::vector<PrimExpr> NodeContext::Shape(size_t i) const {
  relax::TensorType t = Type(i);
  if (!t->shape) Fail("the shape of input '" + node_.input(static_cast<int>(i)) + "' is unknown");
  return *t->shape;
}

const KnownInts* NodeContext::Known(size_t i) const {
  const Operand& op = Input(i);
  return op.known ? &*op.known : nullptr;
}

std::vector<int64_t> NodeContext::ConstInts(size_t i, const std::string& what) const {
  const KnownInts* k = Known(i);
  if (!k) Fail(what + " (input '" + node_.input(static_cast<int>(i)) + "') must be a constant integer tensor");
  return k->Constants(what + " (input '" + node_.input(static_cast<int>(i)) + "')");
}

std::optional<double> NodeContext::ConstScalar(size_t i) const {
  const Operand& op = Input(i);
  auto* c = op.expr.as<relax::ConstantNode>();
  if (!c || NumElements(c->shape) != 1) return std::nullopt;
  return ConstantValues(*c)[0];
}

const ::onnx::AttributeProto* NodeContext::Attr(const std::string& name) const {
  for (const auto& a : node_.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t NodeContext::AttrInt(const std::string& name, int64_t fallback) const {
  const auto* a = Attr(name);
  return a ? a->i() : fallback;
}

float NodeContext::AttrFloat(const std::string& name, float fallback) const {
  const auto* a = Attr(name);
  return a ? a->f() : fallback;
}

std::string NodeContext::AttrString(const std::string& name, const std::string& fallback) const {
  const auto* a = Attr(name);
  return a ? a->s() : fallback;
}

std::vector<int64_t> NodeContext::AttrInts(const std::string& name, std::vector<int64_t> fallback) const {
  const auto* a = Attr(name);
  if (!a) return fallback;
  return {a->ints().begin(), a->ints().end()};
}

std::optional<std::vector<int64_t>> NodeContext::AttrIntsIfAny(const std::string& name) const {
  const auto* a = Attr(name);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

relax::Var NodeContext::Emit(const relax::Expr& call) const {
  size_t before = importer_.builder.diagnostics().size();
  relax::Var var = importer_.builder.Emit(call);
  const DiagnosticList& diags = importer_.builder.diagnostics();
  if (diags.size() > before) throw ImportError(diags[diags.size() - 1].message);
  if (!var->struct_info.defined()) throw ImportError("the result's type could not be inferred");
  return var;
}

relax::Var NodeContext::MatchCast(const relax::Expr& value, const relax::Type& type) const {
  size_t before = importer_.builder.diagnostics().size();
  relax::Var var = importer_.builder.EmitMatchCast(value, type);
  const DiagnosticList& diags = importer_.builder.diagnostics();
  if (diags.size() > before) throw ImportError(diags[diags.size() - 1].message);
  return var;
}

tir::Var NodeContext::FreshVar(const std::string& base) const {
  int n = importer_.fresh[base]++;
  return tir::MakeVar(n == 0 ? base : base + std::to_string(n), DataType::Int(64));
}

relax::Var NodeContext::Op(const std::string& name, std::vector<relax::Expr> args,
                           ir::AttrMap attrs) const {
  try {
    return Emit(relax::MakeOpCall(name, std::move(args), std::move(attrs)));
  } catch (const DiagnosticError& e) {
    throw ImportError(e.diagnostic().message);
  }
}

}  // namespace wb::frontend::onnx
