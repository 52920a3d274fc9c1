// Tensor manipulation ops (relax.reshape, relax.permute_dims, relax.concat, relax.take, ...):
// they move or select elements without arithmetic, so their inference is all about shapes:
// reshape's -1 is solved from the element count, split's sections must divide the axis, and so on.
#include <limits>

#include "arith/analyzer.h"
#include "relax/op/op_common.h"
#include "tir/builtin.h"
#include "tir/op.h"
#include "tir/index_map.h"

namespace wb::relax {
namespace {

using namespace op_common;

OpInfo Reshape() {
  OpDef def;
  def.name = "relax.reshape";
  def.args = {"x", "shape"};
  def.pattern = OpPatternKind::kInjective;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    std::optional<std::vector<PrimExpr>> target = ShapeArg(call, types, 1);
    if (!target) {
      auto* st = types[1].as<ShapeTypeNode>();
      return MakeTensorType(x->dtype, st ? st->ndim : kUnknownNDim);
    }
    std::vector<PrimExpr> dims = *target;
    int inferred = -1;
    std::vector<PrimExpr> known;
    for (size_t i = 0; i < dims.size(); ++i) {
      auto c = AsConstInt(dims[i]);
      if (c && *c == -1) {
        if (inferred >= 0) throw TypeError("the new shape has more than one -1");
        inferred = static_cast<int>(i);
      } else if (c && *c < 0) {
        throw TypeError("the new shape has a negative dimension " + std::to_string(*c));
      } else {
        known.push_back(dims[i]);
      }
    }
    if (!x->shape) {
      if (inferred >= 0) return MakeTensorType(x->dtype, static_cast<int64_t>(dims.size()));
      return MakeTensorType(dims, x->dtype);
    }
    PrimExpr total = Product(*x->shape);
    if (inferred >= 0) {
      PrimExpr known_product = Product(known);
      auto divisor = AsConstInt(known_product);
      if (!divisor) {
        dims[inferred] = FloorDiv(total, known_product);
      } else {
        if (*divisor == 0) throw TypeError("cannot infer the -1 dimension next to a 0");
        std::optional<PrimExpr> q = DivideProduct(*x->shape, *divisor);
        if (!q) {
          throw TypeError("cannot infer the -1 dimension: the input's " + DimText(total) +
                          " elements are not divisible by " + std::to_string(*divisor));
        }
        dims[inferred] = *q;
      }
      return MakeTensorType(dims, x->dtype);
    }
    PrimExpr new_total = Product(dims);
    if (ProveNotEqual(total, new_total)) {
      throw TypeError("the input " + ShapeText(*x->shape) + " has " + DimText(total) +
                      " elements but the new shape " + ShapeText(dims) + " has " +
                      DimText(new_total));
    }
    return MakeTensorType(dims, x->dtype);
  };
  def.normalize = [](const Call& call) -> Call {
    auto* shape = call->args[1].as<ShapeExprNode>();
    auto* type = call->struct_info.as<TensorTypeNode>();
    bool has_minus_one = false;
    for (const PrimExpr& d : shape ? shape->values : std::vector<PrimExpr>{}) {
      has_minus_one = has_minus_one || AsConstInt(d) == -1;
    }
    if (!has_minus_one || !type || !type->shape) return call;
    Call out = call;
    out.CopyOnWrite()->args[1] = MakeShapeExpr(*type->shape, shape->span);
    return out;
  };
  return Define(std::move(def));
}

OpInfo PermuteDims() {
  OpDef def;
  def.name = "relax.permute_dims";
  def.args = {"x"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.PermuteDimsAttrs";
  def.attrs = {OptionalIntsAttr("axes")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    if (x->IsUnknownNdim()) return GetRef(x);
    std::vector<int64_t> axes;
    if (AttrIsNone(call, "axes")) {
      for (int64_t i = x->ndim - 1; i >= 0; --i) axes.push_back(i);
    } else {
      axes = AttrInts(call, "axes");
      if (static_cast<int64_t>(axes.size()) != x->ndim) {
        throw TypeError("axes has " + std::to_string(axes.size()) +
                        " entries for a tensor of rank " + std::to_string(x->ndim));
      }
      axes = NormalizeAxes(axes, x->ndim);
    }
    if (!x->shape) return GetRef(x);
    std::vector<PrimExpr> dims;
    for (int64_t a : axes) dims.push_back((*x->shape)[a]);
    return MakeTensorType(dims, x->dtype);
  };
  return Define(std::move(def));
}

OpInfo ExpandDims() {
  OpDef def;
  def.name = "relax.expand_dims";
  def.args = {"x"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.ExpandDimsAttrs";
  def.attrs = {IntsAttr("axis", {})};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    std::vector<int64_t> axis = AttrInts(call, "axis");
    if (x->IsUnknownNdim()) return GetRef(x);
    int64_t out_ndim = x->ndim + static_cast<int64_t>(axis.size());
    std::vector<int64_t> axes = NormalizeAxes(axis, out_ndim);
    if (!x->shape) return MakeTensorType(x->dtype, out_ndim);
    std::vector<PrimExpr> dims(static_cast<size_t>(out_ndim));
    for (int64_t a : axes) dims[a] = Int64(1);
    size_t next = 0;
    for (auto& d : dims) {
      if (!d.defined()) d = (*x->shape)[next++];
    }
    return MakeTensorType(dims, x->dtype);
  };
  return Define(std::move(def));
}

OpInfo Squeeze() {
  OpDef def;
  def.name = "relax.squeeze";
  def.args = {"x"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.SqueezeAttrs";
  def.attrs = {OptionalIntsAttr("axis")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    bool all = AttrIsNone(call, "axis");
    if (x->IsUnknownNdim()) return GetRef(x);
    std::vector<bool> drop(static_cast<size_t>(x->ndim), false);
    if (all) {
      if (!x->shape) return MakeTensorType(x->dtype, kUnknownNDim);
      for (size_t i = 0; i < drop.size(); ++i) {
        auto c = AsConstInt((*x->shape)[i]);
        // A symbolic dim might be 1: the rank is then unknown.
        if (!c) return MakeTensorType(x->dtype, kUnknownNDim);
        drop[i] = *c == 1;
      }
    } else {
      for (int64_t a : NormalizeAxes(AttrInts(call, "axis"), x->ndim)) {
        if (x->shape) {
          auto c = AsConstInt((*x->shape)[a]);
          if (c && *c != 1) {
            throw TypeError("dimension " + std::to_string(*c) + " at axis " + std::to_string(a) +
                            " is not 1");
          }
        }
        drop[a] = true;
      }
    }
    int64_t kept = 0;
    std::vector<PrimExpr> dims;
    for (size_t i = 0; i < drop.size(); ++i) {
      if (drop[i]) continue;
      ++kept;
      if (x->shape) dims.push_back((*x->shape)[i]);
    }
    if (!x->shape) return MakeTensorType(x->dtype, kept);
    return MakeTensorType(dims, x->dtype);
  };
  return Define(std::move(def));
}

OpInfo Flatten() {
  OpDef def;
  def.name = "relax.flatten";
  def.args = {"x"};
  def.pattern = OpPatternKind::kInjective;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    if (!x->shape) return MakeTensorType(x->dtype, 1);
    return MakeTensorType({Product(*x->shape)}, x->dtype);
  };
  return Define(std::move(def));
}

OpInfo Concat() {
  OpDef def;
  def.name = "relax.concat";
  def.args = {"tensors"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.ConcatAttrs";
  def.attrs = {{"axis", AttrKind::kOptionalInt, ir::MakeInt(0)}};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    auto* tuple = types[0].as<TupleTypeNode>();
    if (!tuple)
      throw TypeError("the input must be a tuple of tensors, got " + TypeToString(types[0]));
    if (tuple->fields.empty()) throw TypeError("the input tuple is empty");
    bool flat = AttrIsNone(call, "axis");
    DataType dtype = DataType::Void();
    int64_t ndim = kUnknownNDim;
    std::vector<const TensorTypeNode*> items;
    for (size_t i = 0; i < tuple->fields.size(); ++i) {
      const TensorTypeNode* t = TensorArg(tuple->fields, i, "tensor " + std::to_string(i));
      if (!t->IsUnknownDtype()) {
        if (!dtype.is_void() && dtype != t->dtype) {
          throw TypeError("tensor " + std::to_string(i) + " has dtype " + t->dtype.ToString() +
                          " but the ones before it have " + dtype.ToString());
        }
        dtype = t->dtype;
      }
      if (!t->IsUnknownNdim()) {
        if (ndim != kUnknownNDim && ndim != t->ndim && !flat) {
          throw TypeError("tensor " + std::to_string(i) + " has rank " + std::to_string(t->ndim) +
                          " but the ones before it have rank " + std::to_string(ndim));
        }
        ndim = t->ndim;
      }
      items.push_back(t);
    }
    if (flat) {
      std::vector<PrimExpr> total;
      for (auto* t : items) {
        if (!t->shape) return MakeTensorType(dtype, 1);
        total.push_back(Product(*t->shape));
      }
      PrimExpr sum = total[0];
      for (size_t i = 1; i < total.size(); ++i) sum = Add(sum, total[i]);
      return MakeTensorType({sum}, dtype);
    }
    if (ndim == kUnknownNDim) return MakeTensorType(dtype, kUnknownNDim);
    int64_t axis = NormalizeAxis(AttrInt(call, "axis"), ndim);
    std::vector<PrimExpr> dims;
    for (size_t i = 0; i < items.size(); ++i) {
      if (!items[i]->shape) return MakeTensorType(dtype, ndim);
      const auto& s = *items[i]->shape;
      if (i == 0) {
        dims = s;
        continue;
      }
      for (int64_t k = 0; k < ndim; ++k) {
        if (k == axis) {
          dims[k] = Add(dims[k], s[k]);
        } else if (ProveNotEqual(dims[k], s[k])) {
          throw TypeError("tensor " + std::to_string(i) + " has dimension " + DimText(s[k]) +
                          " at axis " + std::to_string(k) + " where tensor 0 has " +
                          DimText(dims[k]));
        }
      }
    }
    return MakeTensorType(dims, dtype);
  };
  return Define(std::move(def));
}

OpInfo Split() {
  OpDef def;
  def.name = "relax.split";
  def.args = {"x"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.SplitAttrs";
  def.attrs = {{"indices_or_sections", AttrKind::kIntOrIntArray, ir::MakeInt(1)},
               IntAttr("axis", 0)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    const ObjectRef& spec = call->attrs.at("indices_or_sections");
    if (x->IsUnknownNdim()) throw TypeError("the input's rank must be known");
    int64_t axis = NormalizeAxis(AttrInt(call, "axis"), x->ndim);
    std::vector<Type> outs;
    auto with_dim = [&](PrimExpr d) -> Type {
      if (!x->shape) return MakeTensorType(x->dtype, x->ndim);
      std::vector<PrimExpr> dims = *x->shape;
      dims[axis] = std::move(d);
      return MakeTensorType(dims, x->dtype);
    };
    PrimExpr extent = x->shape ? (*x->shape)[axis] : PrimExpr();
    if (auto* sections = spec.as<ir::IntObj>()) {
      int64_t n = sections->value;
      if (n <= 0)
        throw TypeError("the number of sections must be positive, got " + std::to_string(n));
      // TVM's sections: ceil(extent / n) each, the last one what is left (10 in 3: 4, 4, 2).
      PrimExpr part, last;
      if (extent.defined()) {
        auto c = AsConstInt(extent);
        if (c && (*c + n - 1) / n * (n - 1) > *c) {
          throw TypeError("dimension " + std::to_string(*c) + " at axis " + std::to_string(axis) +
                          " cannot be split into " + std::to_string(n) + " sections");
        }
        if (std::optional<PrimExpr> exact = DivideProduct({extent}, n); exact && !c) {
          part = last = *exact;  // n * 3 in 3: n each
        } else {
          part = FloorDiv(Sub(Add(extent, Int64(n)), Int64(1)), Int64(n));
          last = Sub(extent, Mul(part, Int64(n - 1)));
        }
      }
      for (int64_t i = 0; i < n; ++i) outs.push_back(with_dim(i + 1 < n ? part : last));
    } else {
      std::vector<int64_t> indices = AttrInts(call, "indices_or_sections");
      PrimExpr begin = Int64(0);
      for (size_t i = 0; i <= indices.size(); ++i) {
        if (i < indices.size() && i > 0 && indices[i] < indices[i - 1]) {
          throw TypeError("split indices must be ascending");
        }
        PrimExpr end = i < indices.size() ? Int64(indices[i]) : extent;
        outs.push_back(with_dim(end.defined() ? Sub(end, begin) : PrimExpr()));
        begin = Int64(i < indices.size() ? indices[i] : 0);
      }
    }
    return ir::MakeTupleType(std::move(outs));
  };
  return Define(std::move(def));
}

// Python slice semantics on a constant extent.
int64_t SliceLength(int64_t extent, int64_t begin, int64_t end, int64_t stride) {
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); };
  if (stride > 0) {
    int64_t b = clamp(begin < 0 ? begin + extent : begin, 0, extent);
    int64_t e = clamp(end < 0 ? end + extent : end, 0, extent);
    return e > b ? (e - b + stride - 1) / stride : 0;
  }
  int64_t b = clamp(begin < 0 ? begin + extent : begin, -1, extent - 1);
  int64_t e = clamp(end < 0 ? end + extent : end, -1, extent - 1);
  return b > e ? (b - e + (-stride) - 1) / (-stride) : 0;
}

PrimExpr IfThenElse(const PrimExpr& cond, const PrimExpr& a, const PrimExpr& b) {
  if (auto c = AsConstInt(cond)) return *c ? a : b;
  return tir::MakeCall(a->dtype, tir::GetOp("tirx.if_then_else"), {cond, a, b});
}

PrimExpr CeilDiv(const PrimExpr& a, const PrimExpr& b) {
  return tir::floordiv(tir::sub(tir::add(a, b), Int64(1)), b);
}

// An index of a symbolic slice in range as TVM's topi does it (DynamicCanonicalizeIndex): a
// negative index counts from the end, then it is clamped to [0, extent] ([-1, extent - 1] for a
// negative stride), all as expressions.
PrimExpr ClampIndex(PrimExpr index, const PrimExpr& extent, const PrimExpr& stride) {
  auto* iv = index.as<tir::VarNode>();
  auto* ev = extent.as<tir::VarNode>();
  if (iv && ev && iv->name_hint == ev->name_hint) return index;
  PrimExpr negative = tir::less(stride, Int64(0));
  PrimExpr lo = IfThenElse(negative, Int64(-1), Int64(0));
  PrimExpr hi = IfThenElse(negative, tir::sub(extent, Int64(1)), extent);
  auto c = AsConstInt(index);
  if (!(c && *c >= 0)) index = IfThenElse(tir::less(index, Int64(0)), tir::add(index, extent), index);
  return tir::min(tir::max(index, lo), hi);
}

// The length of a slice whose bounds or extent are symbolic, as TVM's topi GetLength writes it,
// then simplified.
PrimExpr SymbolicSliceLength(const PrimExpr& extent, PrimExpr begin, PrimExpr end, const PrimExpr& stride,
                             bool assume_inbound) {
  PrimExpr length;
  if (assume_inbound) {
    length = CeilDiv(tir::sub(end, begin), stride);
  } else {
    begin = ClampIndex(begin, extent, stride);
    end = ClampIndex(end, extent, stride);
    length = IfThenElse(tir::less(stride, Int64(0)), CeilDiv(tir::sub(begin, end), tir::neg(stride)),
                        CeilDiv(tir::sub(end, begin), stride));
  }
  // A tensor's extent is never negative (TVM's BlockBuilder marks shape values non-negative).
  arith::Analyzer analyzer;
  auto non_negative = analyzer.constraint(tir::greater_equal(extent, Int64(0)));
  return analyzer.Simplify(length);
}

// Argument i of strided_slice (begin, end, strides) as its int64 values, written as a tuple
// of prim values (`[0, n // 2]`); nullopt when the argument is a tuple-typed value whose
// fields are not known (TVM then infers no shape).
std::optional<std::vector<PrimExpr>> SliceBounds(const Call& call, const std::vector<Type>& types,
                                                 size_t i, const char* what) {
  if (auto* tuple = call->args[i].as<TupleNode>()) {
    std::vector<PrimExpr> out;
    for (const Expr& item : tuple->fields) {
      auto* pv = item.as<PrimValueNode>();
      if (!pv || !pv->value->dtype.is_int()) {
        throw TypeError(std::string(what) + " must be a tuple of integers, got " + TypeToString(types[i]));
      }
      out.push_back(pv->value->dtype.bits() == 64 ? pv->value : tir::cast(DataType::Int(64), pv->value));
    }
    return out;
  }
  if (types[i].as<ir::TupleTypeNode>() || types[i].as<ObjectTypeNode>()) return std::nullopt;
  throw TypeError(std::string(what) + " must be a tuple of integers, got " + TypeToString(types[i]));
}

OpInfo StridedSlice() {
  OpDef def;
  def.name = "relax.strided_slice";
  def.args = {"x", "axes", "begin", "end", "strides"};
  def.optional_args = 1;
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.StridedSliceAttrs";
  // False as TVM's Python API and its MakeStridedSlice default it (TVMScript text without the
  // keyword means clamped bounds); only the attrs node's reflection default is true.
  def.attrs = {BoolAttr("assume_inbound", false)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    std::vector<int64_t> axes = IntTupleArg(call, 1, "axes");
    auto begin = SliceBounds(call, types, 2, "begin");
    auto end = SliceBounds(call, types, 3, "end");
    std::optional<std::vector<PrimExpr>> strides = std::vector<PrimExpr>(axes.size(), Int64(1));
    if (call->args.size() > 4) strides = SliceBounds(call, types, 4, "strides");
    auto check_length = [&](const std::optional<std::vector<PrimExpr>>& values) {
      if (values && values->size() != axes.size()) {
        throw TypeError("axes, begin, end and strides must have the same length");
      }
    };
    check_length(begin);
    check_length(end);
    check_length(strides);
    if (x->IsUnknownNdim()) return GetRef(x);
    axes = NormalizeAxes(axes, x->ndim);
    if (!x->shape || !begin || !end || !strides) return MakeTensorType(x->dtype, x->ndim);
    std::vector<PrimExpr> dims = *x->shape;
    bool assume_inbound = AttrBool(call, "assume_inbound");
    for (size_t i = 0; i < axes.size(); ++i) {
      auto stride = AsConstInt((*strides)[i]);
      if (stride && *stride == 0) throw TypeError("a stride is 0");
      auto extent = AsConstInt(dims[axes[i]]);
      auto b = AsConstInt((*begin)[i]);
      auto e = AsConstInt((*end)[i]);
      if (extent && b && e && stride) {
        dims[axes[i]] = Int64(SliceLength(*extent, *b, *e, *stride));
      } else {
        dims[axes[i]] = SymbolicSliceLength(dims[axes[i]], (*begin)[i], (*end)[i], (*strides)[i], assume_inbound);
      }
    }
    return MakeTensorType(dims, x->dtype);
  };
  return Define(std::move(def));
}

// dynamic_strided_slice: strided_slice with begin, end and strides given as 1-D int64 tensors
// (one value per axis) computed when it runs, so the result has the data's rank and no shape.
// Its legalization computes the shape first (TVM's shape function), then slices.
OpInfo DynamicStridedSlice() {
  OpDef def;
  def.name = "relax.dynamic_strided_slice";
  def.args = {"x", "begin", "end", "strides"};
  def.pattern = OpPatternKind::kInjective;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    const char* roles[] = {"begin", "end", "strides"};
    for (size_t i = 1; i < 4; ++i) {
      const TensorTypeNode* t = TensorArg(types, i, roles[i - 1]);
      if (!t->IsUnknownDtype() && t->dtype != DataType::Int(64)) {
        throw TypeError(std::string(roles[i - 1]) + " must be int64, got " + t->dtype.ToString());
      }
      if (!t->IsUnknownNdim() && t->ndim != 1) {
        throw TypeError(std::string(roles[i - 1]) + " must be 1-D, got rank " + std::to_string(t->ndim));
      }
      std::optional<int64_t> n = t->shape ? AsConstInt((*t->shape)[0]) : std::nullopt;
      if (!n) throw TypeError(std::string(roles[i - 1]) + " must have a static length");
      if (!x->IsUnknownNdim() && *n != x->ndim) {
        throw TypeError(std::string(roles[i - 1]) + " has " + std::to_string(*n) + " values for data of rank " +
                        std::to_string(x->ndim));
      }
    }
    return WithVDevice(MakeTensorType(x->dtype, x->ndim), x->vdevice);
  };
  return Define(std::move(def));
}

OpInfo Take() {
  OpDef def;
  def.name = "relax.take";
  def.args = {"x", "indices"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.TakeAttrs";
  def.attrs = {OptionalIntAttr("axis"), StringAttr("mode", "fast")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    // A scalar index (R.Prim) takes part as a 0-d index tensor: the axis is dropped.
    TensorType scalar_index;
    if (auto* p = types[1].as<PrimTypeNode>()) scalar_index = MakeTensorType({}, p->dtype);
    const TensorTypeNode* idx = scalar_index.defined() ? scalar_index.get() : TensorArg(types, 1, "the indices");
    if (!idx->IsUnknownDtype() && !idx->dtype.is_integer()) {
      throw TypeError("the indices must have an integer dtype, got " + idx->dtype.ToString());
    }
    std::string mode = AttrString(call, "mode");
    if (mode != "fast" && mode != "clip" && mode != "wrap") {
      throw TypeError("mode must be \"fast\", \"clip\" or \"wrap\", got \"" + mode + "\"");
    }
    if (AttrIsNone(call, "axis")) {
      // Indices into the flattened input.
      if (!idx->shape) return MakeTensorType(x->dtype, idx->ndim);
      return MakeTensorType(*idx->shape, x->dtype);
    }
    if (x->IsUnknownNdim() || idx->IsUnknownNdim()) return MakeTensorType(x->dtype, kUnknownNDim);
    int64_t axis = NormalizeAxis(AttrInt(call, "axis"), x->ndim);
    int64_t ndim = x->ndim - 1 + idx->ndim;
    if (!x->shape || !idx->shape) return MakeTensorType(x->dtype, ndim);
    std::vector<PrimExpr> dims(x->shape->begin(), x->shape->begin() + axis);
    dims.insert(dims.end(), idx->shape->begin(), idx->shape->end());
    dims.insert(dims.end(), x->shape->begin() + axis + 1, x->shape->end());
    return MakeTensorType(dims, x->dtype);
  };
  return Define(std::move(def));
}

// one_hot: on_value where an index equals the position along the new axis `axis` of extent
// `depth`, off_value elsewhere; both values are R.Prim scalars of one dtype, the result's.
OpInfo OneHot() {
  OpDef def;
  def.name = "relax.one_hot";
  def.args = {"indices", "on_value", "off_value"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.OneHotAttrs";
  def.attrs = {IntAttr("depth", 1), IntAttr("axis", -1)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* idx = TensorArg(types, 0, "the indices");
    if (!idx->IsUnknownDtype() && !idx->dtype.is_integer()) {
      throw TypeError("the indices must have an integer dtype, got " + idx->dtype.ToString());
    }
    const PrimTypeNode* on = types.size() > 1 ? types[1].as<PrimTypeNode>() : nullptr;
    const PrimTypeNode* off = types.size() > 2 ? types[2].as<PrimTypeNode>() : nullptr;
    if (!on || !off) throw TypeError("on_value and off_value must be R.Prim values");
    if (on->dtype != off->dtype) {
      throw TypeError("on_value (" + on->dtype.ToString() + ") and off_value (" + off->dtype.ToString() +
                      ") must have one dtype");
    }
    int64_t depth = AttrInt(call, "depth");
    if (depth <= 0) throw TypeError("depth must be positive, got " + std::to_string(depth));
    if (idx->IsUnknownNdim()) return MakeTensorType(on->dtype, kUnknownNDim);
    int64_t axis = NormalizeAxis(AttrInt(call, "axis"), idx->ndim + 1);
    if (!idx->shape) return WithVDevice(MakeTensorType(on->dtype, idx->ndim + 1), idx->vdevice);
    std::vector<PrimExpr> dims = *idx->shape;
    dims.insert(dims.begin() + axis, Int64(depth));
    return WithVDevice(MakeTensorType(dims, on->dtype), idx->vdevice);
  };
  return Define(std::move(def));
}

OpInfo BroadcastTo() {
  OpDef def;
  def.name = "relax.broadcast_to";
  def.args = {"x", "shape"};
  def.pattern = OpPatternKind::kBroadcast;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    std::optional<std::vector<PrimExpr>> target = ShapeArg(call, types, 1);
    if (!target) return MakeTensorType(x->dtype, types[1].as<ShapeTypeNode>()->ndim);
    if (!x->IsUnknownNdim() && x->ndim > static_cast<int64_t>(target->size())) {
      throw TypeError("cannot broadcast a tensor of rank " + std::to_string(x->ndim) +
                      " to the lower rank " + std::to_string(target->size()));
    }
    if (x->shape) {
      size_t offset = target->size() - x->shape->size();
      for (size_t i = 0; i < x->shape->size(); ++i) {
        const PrimExpr& from = (*x->shape)[i];
        const PrimExpr& to = (*target)[offset + i];
        if (AsConstInt(from) != 1 && ProveNotEqual(from, to)) {
          throw TypeError("dimension " + DimText(from) + " at axis " + std::to_string(i) +
                          " cannot be broadcast to " + DimText(to));
        }
      }
    }
    return MakeTensorType(*target, x->dtype);
  };
  return Define(std::move(def));
}

// The target shape of a collapse_sum must broadcast to the data's shape (right-aligned, each
// dim 1 or the data's).
void CheckCollapse(const std::vector<PrimExpr>& data, const std::vector<PrimExpr>& target) {
  if (target.size() > data.size()) {
    throw TypeError("the target shape " + ShapeText(target) + " has more axes than the data " + ShapeText(data));
  }
  size_t offset = data.size() - target.size();
  for (size_t i = 0; i < target.size(); ++i) {
    if (AsConstInt(target[i]) != 1 && ProveNotEqual(target[i], data[offset + i])) {
      throw TypeError("the data " + ShapeText(data) + " cannot collapse to " + ShapeText(target) + ": dimension " +
                      DimText(data[offset + i]) + " at axis " + std::to_string(offset + i) + " against " +
                      DimText(target[i]));
    }
  }
}

// collapse_sum_like / collapse_sum_to: the sum of the data over the axes a broadcast from the
// target shape would stretch (the gradient of broadcasting); the result has the target's shape.
OpInfo CollapseSumLike() {
  OpDef def;
  def.name = "relax.collapse_sum_like";
  def.args = {"data", "collapse_target"};
  def.pattern = OpPatternKind::kCommReduce;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    const TensorTypeNode* target = TensorArg(types, 1, "the collapse target");
    if (x->shape && target->shape) CheckCollapse(*x->shape, *target->shape);
    return WithVDevice(TensorOf(target->shape, x->dtype, target->ndim), target->vdevice);
  };
  return Define(std::move(def));
}

OpInfo CollapseSumTo() {
  OpDef def;
  def.name = "relax.collapse_sum_to";
  def.args = {"data", "shape"};
  def.pattern = OpPatternKind::kCommReduce;
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    std::optional<std::vector<PrimExpr>> target = ShapeArg(call, types, 1);
    if (!target) return WithVDevice(MakeTensorType(x->dtype, types[1].as<ShapeTypeNode>()->ndim), x->vdevice);
    if (x->shape) CheckCollapse(*x->shape, *target);
    return WithVDevice(MakeTensorType(*target, x->dtype), x->vdevice);
  };
  return Define(std::move(def));
}

// tile: the input repeated `repeats` times along each axis, numpy's rank rule (the shorter of
// the input's rank and repeats' length is padded with leading 1s).
OpInfo Tile() {
  OpDef def;
  def.name = "relax.tile";
  def.args = {"data"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.TileAttrs";
  def.attrs = {IntsAttr("repeats", {})};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    std::vector<int64_t> repeats = AttrInts(call, "repeats");
    for (int64_t r : repeats) {
      if (r < 0) throw TypeError("repeats must not be negative");
    }
    if (x->IsUnknownNdim()) return MakeTensorType(x->dtype, kUnknownNDim);
    int64_t ndim = std::max<int64_t>(x->ndim, static_cast<int64_t>(repeats.size()));
    if (!x->shape) return MakeTensorType(x->dtype, ndim);
    std::vector<PrimExpr> dims(ndim);
    for (int64_t i = 0; i < ndim; ++i) {
      int64_t xi = i - (ndim - x->ndim), ri = i - (ndim - static_cast<int64_t>(repeats.size()));
      PrimExpr d = xi >= 0 ? (*x->shape)[xi] : Int64(1);
      dims[i] = Mul(d, Int64(ri >= 0 ? repeats[ri] : 1));
    }
    return WithVDevice(MakeTensorType(dims, x->dtype), x->vdevice);
  };
  return Define(std::move(def));
}

// repeat: each element repeated `repeats` times along `axis` (numpy's repeat); without an axis,
// of the flattened input.
OpInfo Repeat() {
  OpDef def;
  def.name = "relax.repeat";
  def.args = {"data"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.RepeatAttrs";
  def.attrs = {IntAttr("repeats", 1), OptionalIntAttr("axis")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    int64_t repeats = AttrInt(call, "repeats");
    if (repeats < 1) throw TypeError("repeats must be at least 1, got " + std::to_string(repeats));
    if (AttrIsNone(call, "axis")) {
      if (!x->shape) return WithVDevice(MakeTensorType(x->dtype, 1), x->vdevice);
      std::vector<PrimExpr> dims = *x->shape;
      dims.push_back(Int64(repeats));
      return WithVDevice(MakeTensorType({Product(dims)}, x->dtype), x->vdevice);
    }
    if (x->IsUnknownNdim()) return GetRef(x);
    int64_t axis = NormalizeAxis(AttrInt(call, "axis"), x->ndim);
    if (!x->shape) return repeats == 1 ? GetRef(x) : WithVDevice(MakeTensorType(x->dtype, x->ndim), x->vdevice);
    std::vector<PrimExpr> dims = *x->shape;
    dims[axis] = Mul(dims[axis], Int64(repeats));
    return WithVDevice(MakeTensorType(dims, x->dtype), x->vdevice);
  };
  return Define(std::move(def));
}

// flip: the elements in reverse order along one axis; the type is the input's.
OpInfo Flip() {
  OpDef def;
  def.name = "relax.flip";
  def.args = {"data"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.FlipAttrs";
  def.attrs = {IntAttr("axis", 0)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    if (!x->IsUnknownNdim()) {
      if (x->ndim == 0) throw TypeError("the data must have at least one axis");
      NormalizeAxis(AttrInt(call, "axis"), x->ndim);
    }
    return GetRef(x);
  };
  return Define(std::move(def));
}

// reverse_sequence: along seq_axis, the first seq_lengths[b] elements of each batch b (on
// batch_axis) in reverse order, the rest as they are.
OpInfo ReverseSequence() {
  OpDef def;
  def.name = "relax.reverse_sequence";
  def.args = {"data", "seq_lengths"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.ReverseSequenceAttrs";
  def.attrs = {IntAttr("seq_axis", 1), IntAttr("batch_axis", 0)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    const TensorTypeNode* lengths = TensorArg(types, 1, "seq_lengths");
    if (!lengths->IsUnknownNdim() && lengths->ndim != 1) {
      throw TypeError("seq_lengths must be 1-D, got rank " + std::to_string(lengths->ndim));
    }
    if (!lengths->IsUnknownDtype() && lengths->dtype != DataType::Int(32) &&
        lengths->dtype != DataType::Int(64)) {
      throw TypeError("seq_lengths must be int32 or int64, got " + lengths->dtype.ToString());
    }
    if (x->IsUnknownNdim()) return GetRef(x);
    NormalizeAxis(AttrInt(call, "seq_axis"), x->ndim);
    int64_t batch = NormalizeAxis(AttrInt(call, "batch_axis"), x->ndim);
    if (x->shape && lengths->shape && ProveNotEqual((*lengths->shape)[0], (*x->shape)[batch])) {
      throw TypeError("seq_lengths has " + DimText((*lengths->shape)[0]) +
                      " values where the data has " + DimText((*x->shape)[batch]) +
                      " on the batch axis " + std::to_string(batch));
    }
    return GetRef(x);
  };
  return Define(std::move(def));
}

const TensorTypeNode* IndicesArg(const std::vector<Type>& types, size_t i) {
  const TensorTypeNode* t = TensorArg(types, i, "the indices");
  if (!t->IsUnknownDtype() && !t->dtype.is_integer()) {
    throw TypeError("the indices must have an integer dtype, got " + t->dtype.ToString());
  }
  return t;
}

OpInfo GatherElements() {
  OpDef def;
  def.name = "relax.gather_elements";
  def.args = {"data", "indices"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.GatherElementsAttrs";
  def.attrs = {IntAttr("axis", 0)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    const TensorTypeNode* indices = IndicesArg(types, 1);
    if (!x->IsUnknownNdim()) {
      NormalizeAxis(AttrInt(call, "axis"), x->ndim);
      if (!indices->IsUnknownNdim() && indices->ndim != x->ndim) {
        throw TypeError("the indices must have the data's rank " + std::to_string(x->ndim) + ", got " +
                        std::to_string(indices->ndim));
      }
    }
    return WithVDevice(TensorOf(indices->shape, x->dtype, indices->ndim), x->vdevice);
  };
  return Define(std::move(def));
}

// The reductions a scatter combines the data and its updates with (TVM's names).
void CheckScatterReduction(const Call& call) {
  std::string r = AttrString(call, "reduction");
  if (r != "update" && r != "add" && r != "mul" && r != "mean" && r != "max" && r != "min") {
    throw TypeError("reduction must be update, add, mul, mean, max or min, got " + r);
  }
}

// The updates of a scatter: the data's dtype, and `want` as their shape when known.
void CheckUpdates(const std::vector<Type>& types, const TensorTypeNode* x,
                  const std::optional<std::vector<PrimExpr>>& want, int64_t want_ndim) {
  const TensorTypeNode* u = TensorArg(types, 2, "the updates");
  if (!u->IsUnknownDtype() && !x->IsUnknownDtype() && u->dtype != x->dtype) {
    throw TypeError("the updates have dtype " + u->dtype.ToString() + " where the data has " + x->dtype.ToString());
  }
  if (want_ndim == kUnknownNDim || u->IsUnknownNdim()) return;
  if (u->ndim != want_ndim) {
    throw TypeError("the updates must have rank " + std::to_string(want_ndim) + ", got " + std::to_string(u->ndim));
  }
  if (!want || !u->shape) return;
  for (size_t d = 0; d < want->size(); ++d) {
    if (ProveNotEqual((*want)[d], (*u->shape)[d])) {
      throw TypeError("the updates have shape " + ShapeText(*u->shape) + " where " + ShapeText(*want) +
                      " is expected");
    }
  }
}

// scatter_elements (ONNX ScatterElements): data with updates[q] combined into
// data[q with q[axis] = indices[q]]; the type is the data's.
OpInfo ScatterElements() {
  OpDef def;
  def.name = "relax.scatter_elements";
  def.args = {"data", "indices", "updates"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.ScatterElementsAttrs";
  def.attrs = {IntAttr("axis", 0), StringAttr("reduction", "update")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    const TensorTypeNode* indices = IndicesArg(types, 1);
    CheckScatterReduction(call);
    if (!x->IsUnknownNdim()) {
      NormalizeAxis(AttrInt(call, "axis"), x->ndim);
      if (!indices->IsUnknownNdim() && indices->ndim != x->ndim) {
        throw TypeError("the indices must have the data's rank " + std::to_string(x->ndim) + ", got " +
                        std::to_string(indices->ndim));
      }
    }
    CheckUpdates(types, x, indices->shape, indices->ndim);
    return GetRef(x);
  };
  return Define(std::move(def));
}

// scatter_nd (ONNX ScatterND): the last axis of `indices` (K long) holds coordinates into the
// data's first K axes; updates has shape indices.shape[:-1] + data.shape[K:].
OpInfo ScatterND() {
  OpDef def;
  def.name = "relax.scatter_nd";
  def.args = {"data", "indices", "updates"};
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.ScatterNDAttrs";
  def.attrs = {StringAttr("reduction", "update")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    const TensorTypeNode* indices = IndicesArg(types, 1);
    CheckScatterReduction(call);
    if (x->IsUnknownNdim() || !indices->shape || indices->shape->empty()) {
      CheckUpdates(types, x, std::nullopt, kUnknownNDim);
      return GetRef(x);
    }
    auto depth = AsConstInt(indices->shape->back());
    if (!depth) throw TypeError("the indices' last dimension must be static");
    if (*depth < 1 || *depth > x->ndim) {
      throw TypeError("the indices' last dimension " + std::to_string(*depth) + " must be in [1, " +
                      std::to_string(x->ndim) + "]");
    }
    int64_t want_ndim = indices->ndim - 1 + x->ndim - *depth;
    std::optional<std::vector<PrimExpr>> want;
    if (x->shape) {
      want.emplace(indices->shape->begin(), indices->shape->end() - 1);
      want->insert(want->end(), x->shape->begin() + *depth, x->shape->end());
    }
    CheckUpdates(types, x, want, want_ndim);
    return GetRef(x);
  };
  return Define(std::move(def));
}

OpInfo GatherND() {
  OpDef def;
  def.name = "relax.gather_nd";
  def.args = {"data", "indices"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.GatherNDAttrs";
  def.attrs = {IntAttr("batch_dims", 0)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    const TensorTypeNode* indices = IndicesArg(types, 1);
    int64_t batch = AttrInt(call, "batch_dims");
    if (batch != 0) throw TypeError("batch_dims other than 0 are not supported");
    if (!x->shape || !indices->shape || indices->shape->empty()) return MakeTensorType(x->dtype, kUnknownNDim);
    auto depth = AsConstInt(indices->shape->back());
    if (!depth) return MakeTensorType(x->dtype, kUnknownNDim);
    if (*depth < 1 || *depth > x->ndim) {
      throw TypeError("the indices' last dimension " + std::to_string(*depth) + " must be in [1, " +
                      std::to_string(x->ndim) + "]");
    }
    std::vector<PrimExpr> dims(indices->shape->begin(), indices->shape->end() - 1);
    dims.insert(dims.end(), x->shape->begin() + *depth, x->shape->end());
    return WithVDevice(MakeTensorType(dims, x->dtype), x->vdevice);
  };
  return Define(std::move(def));
}

OpInfo LayoutTransform() {
  OpDef def;
  def.name = "relax.layout_transform";
  def.args = {"x"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.LayoutTransformAttrs";
  def.attrs = {{"index_map", AttrKind::kObject, {}},
               {"pad_value", AttrKind::kObject, {}},
               OptionalIntsAttr("axis_separators"),
               OptionalIntsAttr("input_axis_separators")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    if (AttrIsNone(call, "index_map")) throw TypeError("index_map is required");
    auto it = call->attrs.find("index_map");
    const auto* map = it->second.as<tir::IndexMapNode>();
    // Without an IndexMap (a hand-built call) only the dtype is known.
    if (!map) return MakeTensorType(x->dtype, kUnknownNDim);
    int64_t ndim = static_cast<int64_t>(map->initial_indices.size());
    if (!x->IsUnknownNdim() && x->ndim != ndim) {
      throw TypeError("the index map takes " + std::to_string(ndim) +
                      " indices, but the input has " + std::to_string(x->ndim) + " dimensions");
    }
    int64_t out_ndim = static_cast<int64_t>(map->final_indices.size());
    if (!x->shape) return MakeTensorType(x->dtype, out_ndim);
    // The result's shape is the image of the input shape under the map.
    std::vector<PrimExpr> shape;
    try {
      shape = tir::MapShape(tir::GetRef(map), *x->shape);
    } catch (const std::invalid_argument& e) {
      throw TypeError(e.what());
    }
    return MakeTensorType(shape, x->dtype);
  };
  return Define(std::move(def));
}

OpInfo Where() {
  OpDef def;
  def.name = "relax.where";
  def.args = {"condition", "x1", "x2"};
  def.pattern = OpPatternKind::kBroadcast;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* cond = TensorArg(types, 0, "the condition");
    const TensorTypeNode* a = TensorArg(types, 1, "the second operand");
    const TensorTypeNode* b = TensorArg(types, 2, "the third operand");
    if (!cond->IsUnknownDtype() && !cond->dtype.is_bool()) {
      throw TypeError("the condition must have dtype bool, got " + cond->dtype.ToString());
    }
    DataType dtype = DataType::Void();
    if (!a->IsUnknownDtype() && !b->IsUnknownDtype()) {
      if (a->dtype != b->dtype) {
        throw TypeError("data types " + a->dtype.ToString() + " and " + b->dtype.ToString() +
                        " of the operands do not match");
      }
      dtype = a->dtype;
    }
    int64_t ndim = kUnknownNDim;
    if (!cond->IsUnknownNdim() && !a->IsUnknownNdim() && !b->IsUnknownNdim()) {
      ndim = std::max({cond->ndim, a->ndim, b->ndim});
    }
    std::optional<std::vector<PrimExpr>> shape;
    if (cond->shape && a->shape && b->shape) {
      shape = BroadcastShapes(*cond->shape, *a->shape, "condition", "second operand");
      if (shape) shape = BroadcastShapes(*shape, *b->shape, "first two operands", "third operand");
    }
    return WithVDevice(TensorOf(shape, dtype, ndim), OutVDevice({cond, a, b}));
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(CollapseSumLike()), OpRegistrar(CollapseSumTo()),
    OpRegistrar(Reshape()),     OpRegistrar(PermuteDims()),     OpRegistrar(ExpandDims()),
    OpRegistrar(Squeeze()),     OpRegistrar(Flatten()),         OpRegistrar(Concat()),
    OpRegistrar(Split()),       OpRegistrar(StridedSlice()),    OpRegistrar(Take()),
    OpRegistrar(BroadcastTo()), OpRegistrar(LayoutTransform()), OpRegistrar(Tile()),
    OpRegistrar(GatherElements()), OpRegistrar(GatherND()), OpRegistrar(Where()),
    OpRegistrar(Flip()),        OpRegistrar(Repeat()),          OpRegistrar(ScatterElements()),
    OpRegistrar(ScatterND()),   OpRegistrar(OneHot()),          OpRegistrar(DynamicStridedSlice()),
    OpRegistrar(ReverseSequence()),
};

}  // namespace
}  // namespace wb::relax
