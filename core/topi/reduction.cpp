#include "topi/reduction.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "tir/op.h"
#include "topi/broadcast.h"
#include "topi/elemwise.h"
#include "topi/util.h"

namespace wb::topi {

std::vector<int64_t> ReduceAxes(const std::optional<std::vector<int64_t>>& axes, size_t ndim,
                                const char* op) {
  std::set<int64_t> out;
  if (!axes) {
    for (size_t i = 0; i < ndim; ++i) out.insert(int64_t(i));
  } else {
    for (int64_t a : *axes) out.insert(NormalizeAxis(a, ndim, op));
  }
  return {out.begin(), out.end()};
}

namespace {

struct ReducePlan {
  std::vector<int64_t> axes;
  std::vector<bool> reduced;
  std::vector<PrimExpr> target_shape;
};

ReducePlan Plan(const Tensor& x, const std::optional<std::vector<int64_t>>& axes, bool keepdims,
                const char* op) {
  ReducePlan p;
  p.axes = ReduceAxes(axes, x.ndim(), op);
  p.reduced.assign(x.ndim(), false);
  for (int64_t a : p.axes) p.reduced[a] = true;
  for (size_t i = 0; i < x.ndim(); ++i) {
    if (!p.reduced[i]) {
      p.target_shape.push_back(x.shape()[i]);
    } else if (keepdims) {
      p.target_shape.push_back(tir::make_const(x.shape()[i]->dtype, int64_t(1)));
    }
  }
  return p;
}

// The element of x read at output `indices` with the reduced dims at `rv`.
PrimExpr ReadAt(const Tensor& x, const ReducePlan& p, bool keepdims,
                const std::vector<tir::Var>& indices, const std::vector<te::IterVar>& rv) {
  std::vector<PrimExpr> idx;
  size_t arg = 0, red = 0;
  for (size_t i = 0; i < x.ndim(); ++i) {
    if (p.reduced[i]) {
      idx.push_back(rv[red++]->var);
      if (keepdims) ++arg;
    } else {
      idx.push_back(indices[arg++]);
    }
  }
  return x(idx);
}

std::vector<te::IterVar> MakeReduceAxes(const Tensor& x, const ReducePlan& p) {
  std::vector<te::IterVar> rv;
  for (int64_t a : p.axes) rv.push_back(te::reduce_axis(x.shape()[a], "k" + std::to_string(a)));
  return rv;
}

}  // namespace

Tensor reduce(ReduceKind kind, const Tensor& x, const std::optional<std::vector<int64_t>>& axes,
              bool keepdims) {
  ReducePlan p = Plan(x, axes, keepdims, "reduce");
  return te::compute(
      p.target_shape,
      [&](const std::vector<tir::Var>& indices) {
        std::vector<te::IterVar> rv = MakeReduceAxes(x, p);
        PrimExpr v = ReadAt(x, p, keepdims, indices, rv);
        // Nothing to reduce (a 0-d input): the element itself.
        if (rv.empty()) return v;
        switch (kind) {
          case ReduceKind::kSum:
            return te::sum(v, rv);
          case ReduceKind::kMax:
            return te::max(v, rv);
          case ReduceKind::kMin:
            return te::min(v, rv);
          case ReduceKind::kProd:
            return te::prod(v, rv);
        }
        return PrimExpr();
      },
      x.name() + "_red", kTagCommReduce);
}

Tensor mean(const Tensor& x, const std::optional<std::vector<int64_t>>& axes, bool keepdims) {
  std::vector<int64_t> real = ReduceAxes(axes, x.ndim(), "mean");
  std::vector<PrimExpr> dims;
  for (int64_t a : real) dims.push_back(x.shape()[a]);
  Tensor s = sum(x, axes, keepdims);
  return divide(s, Product(dims));
}

Tensor variance(const Tensor& x, const std::optional<std::vector<int64_t>>& axes, bool keepdims) {
  Tensor m = mean(x, axes, /*keepdims=*/true);
  Tensor d = subtract(x, m);
  return mean(multiply(d, d), axes, keepdims);
}

Tensor std_dev(const Tensor& x, const std::optional<std::vector<int64_t>>& axes, bool keepdims) {
  return unary(UnaryKind::kSqrt, variance(x, axes, keepdims));
}

Tensor collapse_sum(const Tensor& x, const std::vector<PrimExpr>& target_shape) {
  if (target_shape.size() > x.ndim()) {
    throw std::invalid_argument("topi.collapse_sum: the target rank " + std::to_string(target_shape.size()) +
                                " exceeds the data's rank " + std::to_string(x.ndim()));
  }
  auto dim = [](const PrimExpr& e, const char* what) {
    const int64_t* v = tir::AsConstInt(e);
    if (!v) throw std::invalid_argument(std::string("topi.collapse_sum: the ") + what + " shape must be static");
    return *v;
  };
  // From the right: an input axis matching the target's dim is kept; any other is reduced, and
  // a target dim of 1 against it is consumed (it stays as 1), a missing one squeezes the axis.
  std::vector<bool> reduced(x.ndim(), false), squeezed(x.ndim(), false);
  int64_t o = static_cast<int64_t>(target_shape.size()) - 1;
  for (int64_t i = static_cast<int64_t>(x.ndim()) - 1; i >= 0; --i) {
    int64_t in = dim(x.shape()[i], "data");
    if (o >= 0 && in == dim(target_shape[o], "target")) {
      --o;
      continue;
    }
    reduced[i] = true;
    if (o < 0) {
      squeezed[i] = true;
    } else if (dim(target_shape[o], "target") == 1) {
      --o;
    } else {
      throw std::invalid_argument("topi.collapse_sum: dimension " + std::to_string(in) + " at axis " +
                                  std::to_string(i) + " cannot collapse to " +
                                  std::to_string(dim(target_shape[o], "target")));
    }
  }
  if (std::none_of(reduced.begin(), reduced.end(), [](bool r) { return r; })) {
    return te::compute(
        x.shape(), [&](const std::vector<tir::Var>& i) { return x(i); }, "tensor", kTagCommReduce);
  }
  return te::compute(
      target_shape,
      [&](const std::vector<tir::Var>& indices) {
        std::vector<te::IterVar> rv;
        std::vector<PrimExpr> idx;
        size_t arg = 0;
        for (size_t i = 0; i < x.ndim(); ++i) {
          if (reduced[i]) {
            rv.push_back(te::reduce_axis(x.shape()[i], "k" + std::to_string(i)));
            idx.push_back(rv.back()->var);
            if (!squeezed[i]) ++arg;  // the kept 1 of the target
          } else {
            idx.push_back(indices[arg++]);
          }
        }
        return te::sum(x(idx), rv);
      },
      x.name() + "_red", kTagCommReduce, {}, te::AxisNames("ax", target_shape.size()));
}

namespace {

Tensor ArgReduce(const Tensor& x, std::optional<int64_t> axis, bool keepdims, bool largest) {
  std::optional<std::vector<int64_t>> axes;
  if (axis) axes = std::vector<int64_t>{*axis};
  ReducePlan p = Plan(x, axes, keepdims, largest ? "argmax" : "argmin");
  DataType idx_t = DataType::Int(64);
  te::CommReducerSpec reducer = te::MakeReducer(
      [largest](const std::vector<tir::Var>& lhs, const std::vector<tir::Var>& rhs) {
        // "bigger": lhs wins (larger for argmax, smaller for argmin).
        PrimExpr bigger = largest ? tir::greater(lhs[1], rhs[1]) : tir::less(lhs[1], rhs[1]);
        PrimExpr same = tir::equal(lhs[1], rhs[1]);
        PrimExpr earlier = tir::less(lhs[0], rhs[0]);
        PrimExpr take_index = tir::logical_or(bigger, tir::logical_and(same, earlier));
        return std::vector<PrimExpr>{tir::MakeSelect(take_index, lhs[0], rhs[0]),
                                     tir::MakeSelect(bigger, lhs[1], rhs[1])};
      },
      {tir::make_const(idx_t, int64_t(-1)), largest ? te::min_value(x.dtype()) : te::max_value(x.dtype())});
  std::vector<Tensor> temp = te::compute_batch(
      p.target_shape,
      [&](const std::vector<tir::Var>& indices) {
        std::vector<te::IterVar> rv = MakeReduceAxes(x, p);
        // The position within the reduced dims, raveled row-major.
        PrimExpr flat;
        for (size_t r = 0; r < rv.size(); ++r) {
          PrimExpr v = tir::cast(idx_t, rv[r]->var);
          flat = flat.defined()
                     ? tir::add(tir::mul(flat, tir::cast(idx_t, x.shape()[p.axes[r]])), v)
                     : v;
        }
        if (!flat.defined()) flat = tir::make_const(idx_t, int64_t(0));
        return reducer.Apply({flat, ReadAt(x, p, keepdims, indices, rv)}, rv);
      },
      x.name() + "_red_temp", kTagCommReduceIdx);
  Tensor index = temp[0];
  return te::compute(
      p.target_shape, [&](const std::vector<tir::Var>& i) { return index(i); }, x.name() + "_red",
      kTagCommReduceIdx);
}

}  // namespace

Tensor argmax(const Tensor& x, std::optional<int64_t> axis, bool keepdims) {
  return ArgReduce(x, axis, keepdims, /*largest=*/true);
}
Tensor argmin(const Tensor& x, std::optional<int64_t> axis, bool keepdims) {
  return ArgReduce(x, axis, keepdims, /*largest=*/false);
}

Tensor cumsum(const Tensor& x, int64_t axis, ir::DataType dtype, bool exclusive) {
  int64_t a = NormalizeAxis(axis, x.ndim(), "cumsum");
  ir::DataType t = dtype.is_void() ? x.dtype() : dtype;
  te::IterVar k = te::reduce_axis(x.shape()[a], "k");
  return te::compute(
      x.shape(),
      [&](const std::vector<tir::Var>& i) {
        std::vector<PrimExpr> idx(i.begin(), i.end());
        idx[a] = k->var;
        // The prefix as a select in the summand: create_prim_func takes no reduction condition.
        PrimExpr in_prefix = exclusive ? tir::less(k->var, i[a]) : tir::less_equal(k->var, i[a]);
        return te::sum(tir::MakeSelect(in_prefix, tir::cast(t, x(idx)), tir::make_const(t, 0.0)), {k});
      },
      "T_cumsum", kTagCommReduce, {}, te::AxisNames("ax", x.ndim()));
}

}  // namespace wb::topi
