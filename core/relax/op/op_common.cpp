#include "relax/op/op_common.h"

#include "arith/int_math.h"
#include "ir/structural_equal.h"
#include "relax/dim_text.h"
#include "tir/op.h"

namespace wb::relax::op_common {

OpInfo Define(OpDef def) {
  OpInfo info;
  info.name = def.name;
  info.arg_names = std::move(def.args);
  info.variadic = def.variadic;
  info.optional_args = def.optional_args;
  info.ty_args = def.ty_args;
  info.default_arg = std::move(def.default_arg);
  info.attrs_type_key = std::move(def.attrs_type_key);
  info.attrs = std::move(def.attrs);
  info.pattern = def.pattern;
  info.pure = def.pure;
  info.normalize = std::move(def.normalize);
  info.call_packed = std::move(def.call_packed);
  std::string script = info.script_name();
  auto infer = std::move(def.infer);
  info.infer = [script, infer](const Call& call, const std::vector<Type>& types) -> InferResult {
    try {
      return infer(call, types);
    } catch (const TypeError& e) {
      return InferResult::Error(script + ": " + e.what());
    }
  };
  return info;
}

std::string Ordinal(size_t i) {
  static const char* kNames[] = {"first", "second", "third", "fourth", "fifth", "sixth"};
  if (i < 6) return kNames[i];
  return std::to_string(i + 1) + "th";
}

const TensorTypeNode* TensorArg(const std::vector<Type>& types, size_t i, const std::string& role) {
  std::string who = role.empty() ? "the " + Ordinal(i) + " operand" : role;
  if (i >= types.size()) throw TypeError(who + " is missing");
  auto* t = types[i].as<TensorTypeNode>();
  if (!t) throw TypeError(who + " must be a tensor, got " + TypeToString(types[i]));
  return t;
}

std::optional<std::vector<PrimExpr>> ShapeArg(const Call& call, const std::vector<Type>& types,
                                              size_t i) {
  if (auto* s = call->args[i].as<ShapeExprNode>()) return s->values;
  if (auto* t = types[i].as<ShapeTypeNode>()) return t->values;
  throw TypeError("the " + Ordinal(i) + " argument must be a shape, got " + TypeToString(types[i]));
}

void ExpectArg(bool ok, const std::vector<Type>& types, size_t i, const char* what) {
  if (!ok) throw TypeError("the " + Ordinal(i) + " argument must be " + what + ", got " + TypeToString(types[i]));
}

DataType DTypeArg(const Call& call, size_t i) {
  auto* d = call->args[i].as<DataTypeImmNode>();
  if (!d) throw TypeError("the " + Ordinal(i) + " argument must be a dtype (R.dtype(...))");
  return d->value;
}

std::vector<int64_t> IntTupleArg(const Call& call, size_t i, const char* what) {
  std::vector<int64_t> out;
  auto* tuple = call->args[i].as<TupleNode>();
  if (!tuple) throw TypeError(std::string(what) + " must be a tuple of integers");
  for (const Expr& item : tuple->fields) {
    auto* pv = item.as<PrimValueNode>();
    std::optional<int64_t> v = pv ? AsConstInt(pv->value) : std::nullopt;
    if (!v) throw TypeError(std::string(what) + " must be a tuple of integer constants");
    out.push_back(*v);
  }
  return out;
}

int64_t NormalizeAxis(int64_t axis, int64_t ndim) {
  if (axis < -ndim || axis >= ndim) {
    throw TypeError("axis " + std::to_string(axis) + " is out of range for a tensor of rank " +
                    std::to_string(ndim));
  }
  return axis < 0 ? axis + ndim : axis;
}

std::vector<int64_t> NormalizeAxes(const std::vector<int64_t>& axes, int64_t ndim) {
  std::vector<int64_t> out;
  std::vector<bool> seen(static_cast<size_t>(ndim), false);
  for (int64_t a : axes) {
    int64_t n = NormalizeAxis(a, ndim);
    if (seen[n]) throw TypeError("axis " + std::to_string(a) + " appears more than once");
    seen[n] = true;
    out.push_back(n);
  }
  return out;
}

PrimExpr Int64(int64_t value) { return tir::MakeIntImm(DataType::Int(64), value); }

std::optional<int64_t> AsConstInt(const PrimExpr& e) {
  if (auto* i = e.as<tir::IntImmNode>()) return i->value;
  return std::nullopt;
}

bool ProveEqual(const PrimExpr& a, const PrimExpr& b) {
  auto ca = AsConstInt(a);
  auto cb = AsConstInt(b);
  if (ca && cb) return *ca == *cb;
  if (ca || cb) return false;
  return a.same_as(b) || ir::StructuralEqual(a, b, /*map_free_vars=*/false);
}

bool ProveNotEqual(const PrimExpr& a, const PrimExpr& b) {
  auto ca = AsConstInt(a);
  auto cb = AsConstInt(b);
  return ca && cb && *ca != *cb;
}

std::string DimText(const PrimExpr& e) { return DimToString(e); }

std::string ShapeText(const std::vector<PrimExpr>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += DimToString(dims[i]);
  }
  if (dims.size() == 1) s += ",";
  return s + ")";
}

namespace {

// e = base + offset, with base null for a constant. Keeps window arithmetic such as
// (n + 2) - 3 + 1 down to n, which is what a reader of the inferred type expects.
std::pair<PrimExpr, int64_t> SplitOffset(const PrimExpr& e) {
  if (auto c = AsConstInt(e)) return {PrimExpr(), *c};
  if (auto* add = e.as<tir::AddNode>()) {
    if (auto c = AsConstInt(add->b)) return {add->a, *c};
  }
  if (auto* sub = e.as<tir::SubNode>()) {
    if (auto c = AsConstInt(sub->b)) return {sub->a, arith::WrappingSub(0, *c)};
  }
  return {e, 0};
}

PrimExpr WithOffset(const PrimExpr& base, int64_t offset) {
  if (!base.defined()) return Int64(offset);
  if (offset > 0) return tir::add(base, Int64(offset));
  if (offset < 0) return tir::sub(base, Int64(arith::WrappingSub(0, offset)));
  return base;
}

}  // namespace

PrimExpr Add(PrimExpr a, PrimExpr b) {
  auto [ba, ca] = SplitOffset(a);
  auto [bb, cb] = SplitOffset(b);
  PrimExpr base = !ba.defined() ? bb : !bb.defined() ? ba : tir::add(ba, bb);
  return WithOffset(base, arith::WrappingAdd(ca, cb));
}

PrimExpr Sub(PrimExpr a, PrimExpr b) {
  auto [ba, ca] = SplitOffset(a);
  auto [bb, cb] = SplitOffset(b);
  if (bb.defined() && ba.defined() && ProveEqual(ba, bb)) return Int64(arith::WrappingSub(ca, cb));
  if (bb.defined()) return WithOffset(tir::sub(ba.defined() ? ba : Int64(0), bb), arith::WrappingSub(ca, cb));
  return WithOffset(ba, arith::WrappingSub(ca, cb));
}

PrimExpr Mul(PrimExpr a, PrimExpr b) {
  if (AsConstInt(a) == 1) return b;
  if (AsConstInt(b) == 1) return a;
  return tir::mul(std::move(a), std::move(b));
}

PrimExpr FloorDiv(PrimExpr a, PrimExpr b) {
  if (AsConstInt(b) == 1) return a;
  return tir::floordiv(std::move(a), std::move(b));
}

namespace {

void SplitProduct(const std::vector<PrimExpr>& dims, int64_t* constant,
                  std::vector<PrimExpr>* symbolic) {
  *constant = 1;
  for (const PrimExpr& d : dims) {
    if (auto c = AsConstInt(d)) {
      *constant = arith::WrappingMul(*constant, *c);
    } else {
      symbolic->push_back(d);
    }
  }
}

PrimExpr Multiply(const std::vector<PrimExpr>& symbolic, int64_t constant) {
  PrimExpr out;
  for (const PrimExpr& s : symbolic) out = out.defined() ? Mul(out, s) : s;
  if (!out.defined()) return Int64(constant);
  if (constant == 1) return out;
  return Mul(out, Int64(constant));
}

}  // namespace

PrimExpr Product(const std::vector<PrimExpr>& dims) {
  int64_t constant = 1;
  std::vector<PrimExpr> symbolic;
  SplitProduct(dims, &constant, &symbolic);
  return Multiply(symbolic, constant);
}

std::optional<PrimExpr> DivideProduct(const std::vector<PrimExpr>& dims, int64_t divisor) {
  int64_t constant = 1;
  std::vector<PrimExpr> symbolic;
  SplitProduct(dims, &constant, &symbolic);
  if (divisor != 0 && constant % divisor == 0) return Multiply(symbolic, constant / divisor);
  if (symbolic.empty()) return std::nullopt;
  return FloorDiv(Multiply(symbolic, constant), Int64(divisor));
}

std::optional<std::vector<PrimExpr>> BroadcastShapes(const std::vector<PrimExpr>& a,
                                                     const std::vector<PrimExpr>& b,
                                                     const char* lhs_role, const char* rhs_role) {
  size_t n = std::max(a.size(), b.size());
  std::vector<PrimExpr> out(n);
  bool known = true;
  for (size_t k = 0; k < n; ++k) {
    // k counts from the right.
    bool has_a = k < a.size();
    bool has_b = k < b.size();
    const PrimExpr* da = has_a ? &a[a.size() - 1 - k] : nullptr;
    const PrimExpr* db = has_b ? &b[b.size() - 1 - k] : nullptr;
    PrimExpr& dst = out[n - 1 - k];
    if (!da) {
      dst = *db;
    } else if (!db) {
      dst = *da;
    } else if (AsConstInt(*da) == 1) {
      dst = *db;
    } else if (AsConstInt(*db) == 1) {
      dst = *da;
    } else if (ProveEqual(*da, *db)) {
      dst = *da;
    } else if (ProveNotEqual(*da, *db)) {
      throw TypeError("dimension " + DimText(*da) + " of the " + lhs_role + " (axis " +
                      std::to_string(a.size() - 1 - k) + ") and dimension " + DimText(*db) +
                      " of the " + rhs_role + " (axis " + std::to_string(b.size() - 1 - k) +
                      ") cannot be broadcast");
    } else {
      known = false;
    }
  }
  if (!known) return std::nullopt;
  return out;
}

TensorType TensorOf(const std::optional<std::vector<PrimExpr>>& shape, DataType dtype,
                    int64_t ndim) {
  if (shape) return MakeTensorType(*shape, dtype);
  return MakeTensorType(dtype, ndim);
}

ir::VDevice OutVDevice(const std::vector<const TensorTypeNode*>& operands) {
  ir::VDevice out;
  size_t out_index = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    const ir::VDevice& v = operands[i]->vdevice;
    if (!v.defined()) continue;
    if (!out.defined()) {
      out = v;
      out_index = i;
    } else if (!SameVDevice(out, v)) {
      throw TypeError("the " + Ordinal(out_index) + " operand is on vdevice " +
                      VDeviceToString(out) + " but the " + Ordinal(i) + " is on " +
                      VDeviceToString(v) + "; copy one with R.to_vdevice");
    }
  }
  return out;
}

AttrField IntAttr(std::string name, int64_t value) {
  return {std::move(name), AttrKind::kInt, ir::MakeInt(value)};
}
AttrField FloatAttr(std::string name, double value) {
  return {std::move(name), AttrKind::kFloat, ir::MakeFloat(value)};
}
AttrField BoolAttr(std::string name, bool value) {
  return {std::move(name), AttrKind::kBool, ir::MakeBool(value)};
}
AttrField StringAttr(std::string name, std::string value) {
  return {std::move(name), AttrKind::kString, ir::MakeString(std::move(value))};
}
AttrField StringAttrFrom(std::string name, std::string from) {
  return {std::move(name), AttrKind::kString, ObjectRef(), std::move(from)};
}
AttrField DTypeField(std::string name, DataType value) {
  return {std::move(name), AttrKind::kDataType, DTypeAttr(value)};
}
AttrField IntsAttr(std::string name, std::vector<int64_t> value) {
  return {std::move(name), AttrKind::kIntArray, IntArray(value)};
}
AttrField OptionalIntAttr(std::string name) {
  return {std::move(name), AttrKind::kOptionalInt, {}};
}
AttrField OptionalIntsAttr(std::string name) {
  return {std::move(name), AttrKind::kOptionalIntArray, {}};
}

}  // namespace wb::relax::op_common
