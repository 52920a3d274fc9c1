// Legalization of the reductions (sum, mean, max, min, argmax) and of the creation ops (full,
// zeros, ones).
#include "relax/op/registry.h"
#include "runtime/ndarray.h"
#include "tir/interpreter.h"
#include "tir/op.h"
#include "topi/elemwise.h"
#include "topi/reduction.h"
#include "topi/transform.h"
#include "transform/relax/legalize/common.h"

namespace wb::transform::legalize {

namespace {

std::optional<std::vector<int64_t>> Axes(const Call& call) {
  if (relax::AttrIsNone(call, "axis")) return std::nullopt;
  return relax::AttrInts(call, "axis");
}

LegalizeFunc Statistical(topi::ReduceKind kind, const char* name) {
  return [kind, name](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return te.Emit(topi::reduce(kind, x, Axes(call), relax::AttrBool(call, "keepdims")), name);
  };
}

// The PrimFunc is named as TVM names it: "full", "zeros" or "ones" (the _like forms too).
LegalizeFunc Fill(std::optional<double> value, const char* name) {
  return [value, name](BlockBuilder& bb, const Call& call) -> Expr {
    const relax::TensorTypeNode* out = OutputTensorType(call);
    TECall te(bb);
    std::vector<ir::PrimExpr> shape = te.Dims(*out->shape);
    if (value)
      return te.Emit(topi::full(shape, out->dtype, tir::make_const(out->dtype, *value)), name);
    ir::PrimExpr fill = te.Scalar(call->args[1]);
    if (fill.defined()) return te.Emit(topi::full(shape, out->dtype, fill), name);
    // A fill value computed at run time: a 0-d tensor read by every element.
    te::Tensor v = te.Tensor(call, 1);
    ir::DataType t = out->dtype;
    te::Tensor f = te::compute(
        shape,
        [&](const std::vector<tir::Var>&) { return tir::cast(t, v(std::vector<ir::PrimExpr>{})); },
        "T_full");
    return te.Emit(f, name);
  };
}

// collapse_sum_like / collapse_sum_to: reduced to the call's (static) output shape.
Expr LegalizeCollapseSum(BlockBuilder& bb, const Call& call) {
  const relax::TensorTypeNode* out = OutputTensorType(call);
  TECall te(bb);
  te::Tensor x = te.Tensor(call, 0);
  try {
    return te.Emit(topi::collapse_sum(x, te.Dims(*out->shape)), "collapse_sum");
  } catch (const std::invalid_argument& e) {
    throw LegalizeError(e.what());
  }
}

// A range of constant start, end and step is a constant, as TVM folds it (np.arange): the
// values are start + i * step in the result's dtype.
std::optional<Expr> ConstantRange(const Call& call, const relax::TensorTypeNode* out) {
  const int64_t* n = tir::AsConstInt((*out->shape)[0]);
  if (!n || *n < 0) return std::nullopt;
  double start = 0, step = 0;
  int64_t istart = 0, istep = 0;
  bool all_int = true;
  for (size_t i : {size_t(0), size_t(2)}) {
    auto* pv = call->args[i].as<relax::PrimValueNode>();
    if (!pv) return std::nullopt;
    double& d = i == 0 ? start : step;
    int64_t& k = i == 0 ? istart : istep;
    if (const int64_t* c = tir::AsConstInt(pv->value)) {
      d = double(*c);
      k = *c;
    } else if (auto* f = pv->value.as<tir::FloatImmNode>()) {
      d = f->value;
      all_int = false;
    } else {
      return std::nullopt;
    }
  }
  auto* end = call->args[1].as<relax::PrimValueNode>();
  if (!end || (!tir::AsConstInt(end->value) && !end->value.as<tir::FloatImmNode>())) {
    return std::nullopt;
  }
  runtime::NDArray values = runtime::NDArray::Empty({*n}, tir::ToRuntimeDType(out->dtype));
  for (int64_t i = 0; i < *n; ++i) {
    if (all_int && out->dtype.is_integer()) {
      values.SetInt(i, istart + i * istep);
    } else {
      values.SetDouble(i, start + double(i) * step);
    }
  }
  std::string bytes(values.CompactBytes(), '\0');
  if (!values.CopyToBytes(bytes.data(), bytes.size())) return std::nullopt;
  return Expr(relax::MakeConstant(out->dtype, {*n}, std::move(bytes), call->span));
}

}  // namespace

void RegisterReduce(LegalizeTable& table) {
  table["relax.sum"] = Statistical(topi::ReduceKind::kSum, "sum");
  table["relax.max"] = Statistical(topi::ReduceKind::kMax, "max");
  table["relax.min"] = Statistical(topi::ReduceKind::kMin, "min");
  table["relax.cumsum"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    if (relax::AttrIsNone(call, "axis")) throw LegalizeError("cumsum without an axis is not supported; reshape first");
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return te.Emit(topi::cumsum(x, relax::AttrInt(call, "axis"), relax::AttrDataType(call, "dtype"),
                                relax::AttrBool(call, "exclusive")),
                   "cumsum");
  };
  table["relax.collapse_sum_like"] = LegalizeCollapseSum;
  table["relax.collapse_sum_to"] = LegalizeCollapseSum;
  table["relax.prod"] = Statistical(topi::ReduceKind::kProd, "prod");
  table["relax.mean"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return te.Emit(topi::mean(x, Axes(call), relax::AttrBool(call, "keepdims")), "mean");
  };
  for (bool largest : {true, false}) {
    const char* name = largest ? "argmax" : "argmin";
    table[std::string("relax.") + name] = [largest, name](BlockBuilder& bb, const Call& call) -> Expr {
      TECall te(bb);
      te::Tensor x = te.Tensor(call, 0);
      std::optional<int64_t> axis;
      if (!relax::AttrIsNone(call, "axis")) axis = relax::AttrInt(call, "axis");
      bool keepdims = relax::AttrBool(call, "keepdims");
      return te.Emit(largest ? topi::argmax(x, axis, keepdims) : topi::argmin(x, axis, keepdims), name);
    };
  }
  table["relax.std"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return te.Emit(topi::std_dev(x, Axes(call), relax::AttrBool(call, "keepdims")), "std");
  };
  table["relax.variance"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return te.Emit(topi::variance(x, Axes(call), relax::AttrBool(call, "keepdims")), "variance");
  };
}

void RegisterCreate(LegalizeTable& table) {
  table["relax.full"] = Fill(std::nullopt, "full");
  table["relax.arange"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    const relax::TensorTypeNode* out = OutputTensorType(call);
    if (!out->shape) throw LegalizeError("the length of the range is not known");
    if (std::optional<Expr> folded = ConstantRange(call, out)) return *folded;
    TECall te(bb);
    auto value = [&](size_t i) { return te.Dim(call->args[i].as<relax::PrimValueNode>()->value); };
    return te.Emit(topi::arange(value(0), value(2), te.Dim((*out->shape)[0]), out->dtype), "arange");
  };
  for (bool upper : {false, true}) {
    table[upper ? "relax.triu" : "relax.tril"] = [upper](BlockBuilder& bb, const Call& call) -> Expr {
      TECall te(bb);
      te::Tensor x = te.Tensor(call, 0);
      // A symbolic k is a dim of the program; a R.Prim var a scalar parameter.
      auto* pv = call->args[1].as<relax::PrimValueNode>();
      ir::PrimExpr k = pv ? te.Dim(pv->value) : te.Scalar(call->args[1]);
      if (!k.defined()) throw LegalizeError("the diagonal offset is not a R.prim_value");
      return te.Emit(topi::trilu(x, k, upper), upper ? "triu" : "tril");
    };
  }
  table["relax.zeros"] = Fill(0.0, "zeros");
  table["relax.ones"] = Fill(1.0, "ones");
  // The _like forms: the output type carries the shape and dtype; full_like's fill value is
  // its second argument, as full's is.
  table["relax.zeros_like"] = Fill(0.0, "zeros");
  table["relax.ones_like"] = Fill(1.0, "ones");
  table["relax.full_like"] = Fill(std::nullopt, "full");
}

}  // namespace wb::transform::legalize
