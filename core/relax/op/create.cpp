// Tensor creation (relax.full, relax.zeros, relax.ones, and their _like forms, arange, tril/triu): the shape is a value argument, so the
// result's dims are exactly the ShapeExpr's, symbolic ones included.
#include <algorithm>
#include <cmath>
#include <limits>

#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

Type Created(const Call& call, const std::vector<Type>& types, DataType dtype) {
  std::optional<std::vector<PrimExpr>> shape = ShapeArg(call, types, 0);
  if (!shape) return MakeTensorType(dtype, types[0].as<ShapeTypeNode>()->ndim);
  return MakeTensorType(*shape, dtype);
}

OpInfo Full() {
  OpDef def;
  def.name = "relax.full";
  def.args = {"shape", "fill_value"};
  def.pattern = OpPatternKind::kElemWise;
  def.attrs_type_key = "relax.attrs.InitAttrs";
  def.attrs = {DTypeField("dtype")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* fill = TensorArg(types, 1, "the fill value");
    if (!fill->IsUnknownNdim() && fill->ndim != 0) {
      throw TypeError("the fill value must be a scalar tensor, got rank " +
                      std::to_string(fill->ndim));
    }
    DataType dtype = AttrDataType(call, "dtype");
    return Created(call, types, dtype.is_void() ? fill->dtype : dtype);
  };
  return Define(std::move(def));
}

OpInfo Constant(const char* name) {
  OpDef def;
  def.name = std::string("relax.") + name;
  def.args = {"shape"};
  def.pattern = OpPatternKind::kElemWise;
  def.attrs_type_key = "relax.attrs.InitAttrs";
  def.attrs = {DTypeField("dtype", DataType::Float(32))};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    DataType dtype = AttrDataType(call, "dtype");
    if (dtype.is_void()) throw TypeError("the dtype is not given");
    return Created(call, types, dtype);
  };
  return Define(std::move(def));
}

// zeros_like / ones_like / full_like: the input's shape, in `dtype` when given (else the input's).
OpInfo Like(const char* name, bool with_fill) {
  OpDef def;
  def.name = std::string("relax.") + name;
  def.args = {"x"};
  if (with_fill) def.args.push_back("fill_value");
  def.pattern = OpPatternKind::kElemWise;
  def.attrs_type_key = "relax.attrs.InitAttrs";
  def.attrs = {DTypeField("dtype")};
  def.infer = [with_fill](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    if (with_fill) {
      const TensorTypeNode* fill = TensorArg(types, 1, "the fill value");
      if (!fill->IsUnknownNdim() && fill->ndim != 0) {
        throw TypeError("the fill value must be a scalar tensor, got rank " +
                        std::to_string(fill->ndim));
      }
    }
    DataType dtype = AttrDataType(call, "dtype");
    if (dtype.is_void()) dtype = x->dtype;
    return WithVDevice(TensorOf(x->shape, dtype, x->ndim), x->vdevice);
  };
  return Define(std::move(def));
}

// arange: start, end and step are PrimValues (symbolic ones included); the length is
// (end - start + step - 1) // step for integers, as TVM computes it, and ceil((end - start) / step)
// for constant floats. Without a dtype: int64 when all three are integers, else float32.
OpInfo Arange() {
  OpDef def;
  def.name = "relax.arange";
  def.args = {"start", "end", "step"};
  // As TVM's Python API: arange(end) and arange(start, end) count by 1 from 0 or start; the
  // call is normalized to all three.
  def.optional_args = 2;
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.InitAttrs";
  def.attrs = {DTypeField("dtype")};
  def.normalize = [](const Call& call) -> Call {
    Call out = call;
    // The dtype inference chose is written down, as TVM's Python API does.
    if (AttrDataType(call, "dtype").is_void()) {
      if (auto* t = call->struct_info.as<TensorTypeNode>()) out.CopyOnWrite()->attrs["dtype"] = DTypeAttr(t->dtype);
    }
    if (call->args.size() == 3) return out;
    std::vector<Expr> args = call->args;
    auto literal = [&](int64_t value) { return MakePrimValue(tir::MakeIntImm(DataType::Int(64), value), call->span); };
    if (args.size() == 1) args.insert(args.begin(), literal(0));
    args.push_back(literal(1));
    out.CopyOnWrite()->args = std::move(args);
    return out;
  };
  def.infer = [](const Call& call, const std::vector<Type>&) -> Type {
    const char* roles[] = {"start", "end", "step"};
    std::vector<PrimExpr> v;
    bool ints = true;
    // arange(end): start 0; a missing step: 1.
    size_t given = call->args.size();
    if (given == 1) v.push_back(Int64(0));
    for (size_t i = 0; i < given; ++i) {
      auto* pv = call->args[i].as<PrimValueNode>();
      const char* role = roles[given == 1 ? 1 : i];
      if (!pv) throw TypeError(std::string("the ") + role + " must be a R.prim_value");
      v.push_back(pv->value);
      ints = ints && pv->value->dtype.is_integer();
    }
    if (v.size() == 2) v.push_back(Int64(1));
    DataType dtype = AttrDataType(call, "dtype");
    if (dtype.is_void()) dtype = ints ? DataType::Int(64) : DataType::Float(32);
    if (auto s = AsConstInt(v[2]); s && *s == 0) throw TypeError("the step must not be 0");
    if (ints) {
      auto first = AsConstInt(v[0]), last = AsConstInt(v[1]), step = AsConstInt(v[2]);
      if (first && last && step) {
        // All constant: the exact count, computed wide so that no bound overflows; an empty
        // range is 0 elements, a count beyond int64 is refused.
        __int128 span = static_cast<__int128>(*last) - *first;
        __int128 count = *step > 0 ? (span + *step - 1) / *step : (span + *step + 1) / *step;
        if (count < 0) count = 0;
        if (count > std::numeric_limits<int64_t>::max()) throw TypeError("the range has more than 2^63 - 1 elements");
        return MakeTensorType({Int64(static_cast<int64_t>(count))}, dtype);
      }
      int64_t offset = 0;  // step - 1 - start, where it does not overflow
      bool folded = first && step && !__builtin_sub_overflow(*step - 1, *first, &offset);
      PrimExpr numer = folded ? Add(v[1], Int64(offset)) : Sub(Add(Sub(v[1], v[0]), v[2]), Int64(1));
      return MakeTensorType({step && *step == 1 ? numer : FloorDiv(numer, v[2])}, dtype);
    }
    auto as_double = [](const PrimExpr& e) -> std::optional<double> {
      if (auto c = AsConstInt(e)) return double(*c);
      if (auto* f = e.as<tir::FloatImmNode>()) return f->value;
      return std::nullopt;
    };
    auto start = as_double(v[0]), end = as_double(v[1]), step = as_double(v[2]);
    if (!start || !end || !step) return MakeTensorType(dtype, 1);
    if (*step == 0) throw TypeError("the step must not be 0");
    auto n = static_cast<int64_t>(std::ceil(static_cast<float>(*end - *start) / static_cast<float>(*step)));
    return MakeTensorType({Int64(std::max<int64_t>(n, 0))}, dtype);
  };
  return Define(std::move(def));
}

// tril / triu: the input (at least 2-D) with the elements above (tril) or below (triu) diagonal
// k of its last two axes zeroed; k is an integer R.prim_value (symbolic allowed), 0 when left
// out (the call is normalized to carry it). The type is the input's.
OpInfo Trilu(const char* name) {
  OpDef def;
  def.name = std::string("relax.") + name;
  def.args = {"x", "k"};
  def.optional_args = 1;
  def.pattern = OpPatternKind::kElemWise;
  def.normalize = [](const Call& call) -> Call {
    if (call->args.size() == 2) return call;
    Call out = call;
    out.CopyOnWrite()->args.push_back(MakePrimValue(tir::MakeIntImm(DataType::Int(64), 0), call->span));
    return out;
  };
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    if (!x->IsUnknownNdim() && x->ndim < 2) {
      throw TypeError("the input must have at least two axes, got rank " + std::to_string(x->ndim));
    }
    if (call->args.size() > 1) {
      auto* p = types[1].as<PrimTypeNode>();
      if (!p || !p->dtype.is_integer()) throw TypeError("the diagonal offset k must be an integer R.prim_value");
    }
    return GetRef(x);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(Arange()),
    OpRegistrar(Trilu("tril")),
    OpRegistrar(Trilu("triu")),
    OpRegistrar(Like("zeros_like", false)),
    OpRegistrar(Like("ones_like", false)),
    OpRegistrar(Like("full_like", true)),
    OpRegistrar(Full()),
    OpRegistrar(Constant("zeros")),
    OpRegistrar(Constant("ones")),
};

}  // namespace
}  // namespace wb::relax
