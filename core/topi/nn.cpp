#include "topi/nn.h"

#include <cctype>
#include <stdexcept>

#include <algorithm>

#include "arith/analyzer.h"
#include "tir/builtin.h"
#include "tir/op.h"
#include "topi/broadcast.h"
#include "topi/elemwise.h"
#include "topi/reduction.h"
#include "topi/transform.h"
#include "topi/util.h"

namespace wb::topi {

namespace {

// The block attribute by which TVM's pools name the meta-schedule rule for them.
ir::AttrMap ScheduleRule(const char* rule) {
  ir::AttrMap attrs;
  attrs["schedule_rule"] = ir::MakeString(rule);
  return attrs;
}

}  // namespace

namespace {

using tir::Var;

std::vector<PrimExpr> Without(const std::vector<Var>& idx, const std::vector<bool>& drop) {
  std::vector<PrimExpr> out;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (!drop[i]) out.push_back(idx[i]);
  }
  return out;
}

std::vector<PrimExpr> Only(const std::vector<Var>& idx, const std::vector<bool>& keep) {
  std::vector<PrimExpr> out;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (keep[i]) out.push_back(idx[i]);
  }
  return out;
}

PrimExpr IfThenElse(const PrimExpr& cond, const PrimExpr& a, const PrimExpr& b) {
  return tir::MakeCall(a->dtype, tir::GetOp("tirx.if_then_else"), {cond, a, b});
}

// (in + pad - dilated_kernel) / stride + 1, with ceil rounding when asked.
PrimExpr WindowOut(const PrimExpr& in, int64_t pad_total, int64_t kernel, int64_t dilation,
                   int64_t stride, bool ceil_mode) {
  int64_t k_eff = (kernel - 1) * dilation + 1;
  PrimExpr span = tir::sub(tir::add(in, Index(pad_total)), Index(k_eff));
  if (ceil_mode) span = tir::add(span, Index(stride - 1));
  return tir::add(tir::floordiv(span, Index(stride)), Index(1));
}

bool AnyNonZero(const std::vector<int64_t>& v) {
  for (int64_t x : v) {
    if (x != 0) return true;
  }
  return false;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t axis) {
  axis = NormalizeAxis(axis, x.ndim(), "softmax");
  std::vector<bool> red(x.ndim(), false);
  red[axis] = true;
  std::vector<PrimExpr> reduced_shape;
  for (size_t i = 0; i < x.ndim(); ++i) {
    if (!red[i]) reduced_shape.push_back(x.shape()[i]);
  }
  auto full_index = [&](const std::vector<Var>& idx, const PrimExpr& k) {
    std::vector<PrimExpr> out;
    size_t j = 0;
    for (size_t i = 0; i < x.ndim(); ++i) out.push_back(red[i] ? k : PrimExpr(idx[j++]));
    return out;
  };
  Tensor max_elem = te::compute(
      reduced_shape,
      [&](const std::vector<Var>& idx) {
        te::IterVar k1 = te::reduce_axis(x.shape()[axis], "k1");
        return te::max(x(full_index(idx, k1->var)), {k1});
      },
      "T_softmax_maxelem");
  Tensor exp = te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        return Intrin("exp", {tir::sub(x(i), max_elem(Without(i, red)))});
      },
      "T_softmax_exp");
  Tensor expsum = te::compute(
      reduced_shape,
      [&](const std::vector<Var>& idx) {
        te::IterVar k2 = te::reduce_axis(x.shape()[axis], "k2");
        return te::sum(exp(full_index(idx, k2->var)), {k2});
      },
      "T_softmax_expsum");
  ir::AttrMap attrs;
  attrs["axis"] = ir::MakeInt(axis);
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) { return tir::div(exp(i), expsum(Without(i, red))); },
      "T_softmax_norm", "softmax_output", attrs);
}

Tensor log_softmax(const Tensor& x, int64_t axis) {
  axis = NormalizeAxis(axis, x.ndim(), "log_softmax");
  std::vector<bool> red(x.ndim(), false);
  red[axis] = true;
  std::vector<PrimExpr> reduced_shape;
  for (size_t i = 0; i < x.ndim(); ++i) {
    if (!red[i]) reduced_shape.push_back(x.shape()[i]);
  }
  auto full_index = [&](const std::vector<Var>& idx, const PrimExpr& k) {
    std::vector<PrimExpr> out;
    size_t j = 0;
    for (size_t i = 0; i < x.ndim(); ++i) out.push_back(red[i] ? k : PrimExpr(idx[j++]));
    return out;
  };
  Tensor max_elem = te::compute(
      reduced_shape,
      [&](const std::vector<Var>& idx) {
        te::IterVar k = te::reduce_axis(x.shape()[axis], "k");
        return te::max(x(full_index(idx, k->var)), {k});
      },
      "T_softmax_maxelem");
  Tensor expsum = te::compute(
      reduced_shape,
      [&](const std::vector<Var>& idx) {
        te::IterVar k = te::reduce_axis(x.shape()[axis], "k");
        return te::sum(Intrin("exp", {tir::sub(x(full_index(idx, k->var)), max_elem(idx))}), {k});
      },
      "compute");
  // TVM's names ("compute" twice) and its block attribute {"axis"} on the result.
  ir::AttrMap attrs;
  attrs["axis"] = ir::MakeInt(axis);
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> r = Without(i, red);
        return tir::sub(tir::sub(x(i), max_elem(r)), Intrin("log", {expsum(r)}));
      },
      "compute", "log_softmax_output", attrs);
}

Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                  const std::vector<int64_t>& axes_in, double epsilon) {
  std::vector<int64_t> axes = ReduceAxes(axes_in, x.ndim(), "layer_norm");
  std::vector<bool> red(x.ndim(), false);
  for (int64_t a : axes) red[a] = true;
  std::vector<PrimExpr> target;
  for (size_t i = 0; i < x.ndim(); ++i) {
    if (!red[i]) target.push_back(x.shape()[i]);
  }
  // float16 data is accumulated in float32.
  DataType t = x.dtype();
  bool half = t == DataType::Float(16);
  DataType acc = half ? DataType::Float(32) : t;
  // x at the target index `idx` and reduction vars `rv`, in the accumulation dtype.
  auto element = [&](const std::vector<Var>& idx, const std::vector<te::IterVar>& rv) {
    std::vector<PrimExpr> full;
    size_t j = 0, r = 0;
    for (size_t i = 0; i < x.ndim(); ++i) full.push_back(red[i] ? PrimExpr(rv[r++]->var) : PrimExpr(idx[j++]));
    PrimExpr v = x(full);
    return half ? tir::cast(acc, v) : v;
  };
  auto reduce_vars = [&] {
    std::vector<te::IterVar> rv;
    for (int64_t a : axes) rv.push_back(te::reduce_axis(x.shape()[a], "k" + std::to_string(a)));
    return rv;
  };
  // Two passes, as TVM's topi: the mean, then the sum of squared deviations from it.
  Tensor sum = te::compute(
      target,
      [&](const std::vector<Var>& idx) {
        std::vector<te::IterVar> rv = reduce_vars();
        return te::sum(element(idx, rv), rv);
      },
      x.name() + "_sum", kTagCommReduce);
  PrimExpr extent;
  for (int64_t a : axes) {
    PrimExpr d = tir::cast(acc, x.shape()[a]);
    extent = extent.defined() ? tir::mul(extent, d) : d;
  }
  Tensor mean = te::compute(
      target, [&](const std::vector<Var>& idx) { return tir::div(sum(idx), extent); }, x.name() + "_mean",
      kTagInjective);
  Tensor var_sum = te::compute(
      target,
      [&](const std::vector<Var>& idx) {
        std::vector<te::IterVar> rv = reduce_vars();
        PrimExpr diff = tir::sub(element(idx, rv), mean(idx));
        return te::sum(tir::mul(diff, diff), rv);
      },
      x.name() + "_var_sum", kTagCommReduce);
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> nr = Without(i, red), r = Only(i, red);
        PrimExpr var = tir::div(var_sum(nr), extent);
        PrimExpr out = tir::mul(tir::sub(x(i), mean(nr)), Intrin("rsqrt", {tir::add(var, Const(acc, epsilon))}));
        if (half) out = tir::cast(t, out);
        if (gamma.defined()) out = tir::mul(out, gamma(r));
        if (beta.defined()) out = tir::add(out, beta(r));
        return out;
      },
      "T_layer_norm", kTagInjective);
}

namespace {

// group_norm as TVM's topi writes it: the channel axis split into (groups, channels per group)
// by a reshape (the data cast to float32 when float16), one tuple reduction of x and x * x per
// (sample, group) ("<x>_red_temp"), gamma and beta reshaped to (groups, per group), the
// normalization "T_group_norm" on the split shape, and a reshape back.
Tensor GroupNormByGroups(const Tensor& x, const Tensor& gamma, const Tensor& beta, int64_t num_groups,
                         int64_t channel_axis, const std::vector<int64_t>& axes_in, double epsilon) {
  size_t ndim = x.ndim();
  int64_t c = NormalizeAxis(channel_axis, ndim, "group_norm");
  DataType t = x.dtype();
  if (t != DataType::Float(32) && t != DataType::Float(16)) {
    throw std::invalid_argument("group_norm: only float32 and float16 data are supported, got " + t.ToString());
  }
  bool half = t == DataType::Float(16);
  PrimExpr per_group = tir::floordiv(x.shape()[c], Index(num_groups));
  std::vector<PrimExpr> split;
  for (size_t i = 0; i < ndim; ++i) {
    if (int64_t(i) == c) {
      split.push_back(Index(num_groups));
      split.push_back(per_group);
    } else {
      split.push_back(x.shape()[i]);
    }
  }
  Tensor data = reshape(x, split);
  if (half) data = cast(data, DataType::Float(32));
  Tensor gamma_split = gamma.defined() ? reshape(gamma, {Index(num_groups), per_group}) : Tensor();
  Tensor beta_split = beta.defined() ? reshape(beta, {Index(num_groups), per_group}) : Tensor();
  // The reduced axes of the split shape: the channels of a group and the given axes.
  std::vector<int64_t> new_axes = {c + 1};
  for (int64_t a : axes_in) {
    int64_t axis = NormalizeAxis(a, ndim, "group_norm");
    if (axis == c) throw std::invalid_argument("group_norm: channel_axis must not be among the axes");
    new_axes.push_back(axis < c ? axis : axis + 1);
  }
  std::sort(new_axes.begin(), new_axes.end());
  auto reduced = [&](size_t i) { return std::find(new_axes.begin(), new_axes.end(), int64_t(i)) != new_axes.end(); };
  std::vector<PrimExpr> target;
  for (size_t i = 0; i < data.ndim(); ++i) {
    if (!reduced(i)) target.push_back(data.shape()[i]);
  }
  DataType acc = data.dtype();
  te::CommReducerSpec tuple_sum = te::MakeReducer(
      [](const std::vector<Var>& a, const std::vector<Var>& b) {
        return std::vector<PrimExpr>{tir::add(a[0], b[0]), tir::add(a[1], b[1])};
      },
      {Const(acc, 0), Const(acc, 0)});
  std::vector<Tensor> temp = te::compute_batch(
      target,
      [&](const std::vector<Var>& idx) {
        std::vector<te::IterVar> rv;
        for (int64_t a : new_axes) rv.push_back(te::reduce_axis(data.shape()[a], "k" + std::to_string(a)));
        std::vector<PrimExpr> full;
        for (size_t i = 0, j = 0, r = 0; i < data.ndim(); ++i) {
          full.push_back(reduced(i) ? PrimExpr(rv[r++]->var) : PrimExpr(idx[j++]));
        }
        PrimExpr v = data(full);
        return tuple_sum.Apply({v, tir::mul(data(full), data(full))}, rv);
      },
      x.name() + "_red_temp", kTagCommReduce);
  PrimExpr extent = Const(DataType::Float(32), 1.0);
  for (int64_t a : new_axes) extent = tir::mul(extent, tir::cast(DataType::Float(32), data.shape()[a]));
  Tensor normalized = te::compute(
      data.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> key;
        for (size_t k = 0; k < i.size(); ++k) {
          if (!reduced(k)) key.push_back(i[k]);
        }
        std::vector<PrimExpr> g = {i[c], i[c + 1]};
        PrimExpr mean = tir::div(temp[0](key), extent);
        PrimExpr var = tir::sub(tir::div(temp[1](key), extent), tir::mul(mean, mean));
        PrimExpr out = tir::mul(tir::sub(data(std::vector<PrimExpr>(i.begin(), i.end())), mean),
                                Intrin("rsqrt", {tir::add(var, Const(acc, epsilon))}));
        if (half) out = tir::cast(DataType::Float(16), out);
        if (gamma_split.defined()) out = tir::mul(out, gamma_split(g));
        if (beta_split.defined()) out = tir::add(out, beta_split(g));
        return out;
      },
      "T_group_norm", kTagInjective);
  return reshape(normalized, x.shape());
}

}  // namespace

Tensor group_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, int64_t num_groups,
                  int64_t channel_axis, const std::vector<int64_t>& axes_in, double epsilon) {
  if (num_groups > 0) return GroupNormByGroups(x, gamma, beta, num_groups, channel_axis, axes_in, epsilon);
  const char* op = "instance_norm";
  size_t ndim = x.ndim();
  int64_t c = NormalizeAxis(channel_axis, ndim, op);
  std::vector<bool> red(ndim, false);
  for (int64_t a : axes_in) red[NormalizeAxis(a, ndim, op)] = true;
  if (red[c]) throw std::invalid_argument(std::string(op) + ": channel_axis must not be among the axes");
  // The statistics are kept per (the axes neither reduced nor the channel's, the group).
  PrimExpr per_group = num_groups == 0 ? Index(1) : tir::floordiv(x.shape()[c], Index(num_groups));
  PrimExpr group_count = num_groups == 0 ? x.shape()[c] : Index(num_groups);
  std::vector<PrimExpr> target, reduced = {per_group};
  for (size_t i = 0; i < ndim; ++i) {
    if (static_cast<int64_t>(i) == c) {
      target.push_back(group_count);
    } else if (red[i]) {
      reduced.push_back(x.shape()[i]);
    } else {
      target.push_back(x.shape()[i]);
    }
  }
  DataType t = x.dtype();
  te::CommReducerSpec tuple_sum = te::MakeReducer(
      [](const std::vector<Var>& a, const std::vector<Var>& b) {
        return std::vector<PrimExpr>{tir::add(a[0], b[0]), tir::add(a[1], b[1])};
      },
      {Const(t, 0), Const(t, 0)});
  std::vector<Tensor> temp = te::compute_batch(
      target,
      [&](const std::vector<Var>& idx) {
        std::vector<te::IterVar> rv;
        if (num_groups != 0) rv.push_back(te::reduce_axis(per_group, "kc"));
        std::vector<PrimExpr> full;
        for (size_t i = 0, j = 0; i < ndim; ++i) {
          if (static_cast<int64_t>(i) == c) {
            PrimExpr g = idx[j++];
            full.push_back(num_groups == 0 ? g : tir::add(tir::mul(g, per_group), rv[0]->var));
          } else if (red[i]) {
            rv.push_back(te::reduce_axis(x.shape()[i], "k" + std::to_string(i)));
            full.push_back(rv.back()->var);
          } else {
            full.push_back(idx[j++]);
          }
        }
        PrimExpr v = x(full);
        return tuple_sum.Apply({v, tir::mul(v, v)}, rv);
      },
      x.name() + "_red_temp", kTagCommReduce);
  PrimExpr extent = tir::cast(t, Product(reduced));
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> key;
        for (size_t k = 0; k < ndim; ++k) {
          if (static_cast<int64_t>(k) == c) {
            key.push_back(num_groups == 0 ? PrimExpr(i[k]) : tir::floordiv(i[k], per_group));
          } else if (!red[k]) {
            key.push_back(i[k]);
          }
        }
        PrimExpr mean = tir::div(temp[0](key), extent);
        PrimExpr var = tir::sub(tir::div(temp[1](key), extent), tir::mul(mean, mean));
        PrimExpr out = tir::mul(tir::sub(x(i), mean), Intrin("rsqrt", {tir::add(var, Const(t, epsilon))}));
        if (gamma.defined()) out = tir::mul(out, gamma(std::vector<PrimExpr>{i[c]}));
        if (beta.defined()) out = tir::add(out, beta(std::vector<PrimExpr>{i[c]}));
        return out;
      },
      num_groups == 0 ? "T_instance_norm" : "T_group_norm", kTagInjective);
}

Tensor rms_norm(const Tensor& x, const Tensor& weight, const std::vector<int64_t>& axes_in,
                double epsilon) {
  std::vector<int64_t> axes = ReduceAxes(axes_in, x.ndim(), "rms_norm");
  std::vector<bool> red(x.ndim(), false);
  for (int64_t a : axes) red[a] = true;
  std::vector<PrimExpr> rshape;
  for (size_t i = 0; i < x.ndim(); ++i) {
    if (!red[i]) rshape.push_back(x.shape()[i]);
  }
  // As TVM's topi: computed in float32, every operand cast in a stage of its own ("T_cast",
  // also when it is float32 already), the result cast back to the data's dtype.
  DataType t = x.dtype(), f32 = DataType::Float(32);
  auto to_f32 = [&](const Tensor& a) {
    return te::compute(
        a.shape(), [&](const std::vector<Var>& i) { return tir::cast(f32, a(i)); }, "T_cast", kTagElemWise);
  };
  Tensor xf = to_f32(x);
  Tensor square = multiply(xf, xf);
  Tensor square_sum = sum(square, axes, false);
  PrimExpr extent;
  for (int64_t a : axes) {
    PrimExpr d = tir::cast(f32, x.shape()[a]);
    extent = extent.defined() ? tir::mul(extent, d) : d;
  }
  Tensor rsqrt = te::compute(
      rshape,
      [&](const std::vector<Var>& i) {
        return Intrin("rsqrt", {tir::add(tir::div(square_sum(i), extent), Const(f32, epsilon))});
      },
      "rsqrt", kTagInjective);
  Tensor wf = weight.defined() ? to_f32(weight) : Tensor();
  Tensor out = te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        PrimExpr v = tir::mul(rsqrt(Without(i, red)), xf(i));
        if (wf.defined()) v = tir::mul(v, wf(Only(i, red)));
        return v;
      },
      "T_rms_norm", kTagInjective);
  return te::compute(
      out.shape(), [&](const std::vector<Var>& i) { return tir::cast(t, out(i)); }, "T_cast", kTagElemWise);
}

namespace {

std::vector<Tensor> BatchNormTraining(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                      const Tensor& moving_mean, const Tensor& moving_var,
                                      int64_t axis, double epsilon, bool center, bool scale,
                                      double momentum) {
  if (momentum < 0 || momentum > 1)
    throw std::invalid_argument("topi.batch_norm: the momentum must be in [0, 1]");
  DataType t = x.dtype();
  std::vector<PrimExpr> bshape(x.ndim(), Index(1));
  bshape[axis] = x.shape()[axis];
  std::vector<int64_t> reduce_axes;
  PrimExpr count = Index(1);
  for (size_t d = 0; d < x.ndim(); ++d) {
    if (int64_t(d) == axis) continue;
    reduce_axes.push_back(int64_t(d));
    count = tir::mul(count, x.shape()[d]);
  }
  // The element count as the data's dtype: a constant folds (1568.0), a symbolic one is a cast.
  PrimExpr n = tir::AsConstInt(count) ? Const(t, double(*tir::AsConstInt(count)))
                                      : tir::cast(t, count);
  Tensor mean = divide(sum(x, reduce_axes, false), n);
  Tensor mean_rs = reshape(mean, bshape);
  Tensor var = divide(sum(multiply(subtract(x, mean_rs), subtract(x, mean_rs)), reduce_axes, false), n);
  Tensor var_rs = reshape(var, bshape);
  Tensor out = divide(subtract(x, mean_rs),
                      unary(UnaryKind::kSqrt, add(var_rs, Const(t, epsilon))));
  if (scale) out = multiply(out, reshape(gamma, bshape));
  if (center) out = add(out, reshape(beta, bshape));
  auto update = [&](const Tensor& moving, const Tensor& batch) {
    return add(multiply(Const(t, 1 - momentum), moving), multiply(Const(t, momentum), batch));
  };
  return {out, update(moving_mean, mean), update(moving_var, var)};
}

}  // namespace

std::vector<Tensor> batch_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                               const Tensor& moving_mean, const Tensor& moving_var, int64_t axis,
                               double epsilon, bool center, bool scale, bool training,
                               double momentum) {
  axis = NormalizeAxis(axis, x.ndim(), "batch_norm");
  if (training) {
    return BatchNormTraining(x, gamma, beta, moving_mean, moving_var, axis, epsilon, center, scale,
                             momentum);
  }
  DataType t = x.dtype();
  Tensor out = te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        PrimExpr c = i[axis];
        PrimExpr v = tir::div(tir::sub(x(i), moving_mean(c)),
                              Intrin("sqrt", {tir::add(moving_var(c), Const(t, epsilon))}));
        if (scale) v = tir::mul(v, gamma(c));
        if (center) v = tir::add(v, beta(c));
        return v;
      },
      "T_batch_norm", kTagInjective);
  auto copy = [](const Tensor& src, const char* name) {
    return te::compute(
        src.shape(), [&](const std::vector<Var>& i) { return src(i); }, name, kTagElemWise);
  };
  return {out, copy(moving_mean, "T_moving_mean"), copy(moving_var, "T_moving_var")};
}

Tensor pad(const Tensor& x, const std::vector<PrimExpr>& before, const std::vector<PrimExpr>& after,
           const PrimExpr& pad_value, const std::string& name) {
  arith::Analyzer analyzer;
  auto is_zero = [](const PrimExpr& e) {
    const int64_t* v = tir::AsConstInt(e);
    return v && *v == 0;
  };
  std::vector<PrimExpr> shape;
  for (size_t i = 0; i < x.ndim(); ++i) {
    shape.push_back(analyzer.Simplify(tir::add(tir::add(x.shape()[i], before[i]), after[i])));
  }
  PrimExpr value = tir::cast(x.dtype(), pad_value);
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx;
        PrimExpr cond;
        auto conj = [&](const PrimExpr& c) {
          cond = cond.defined() ? tir::logical_and(cond, c) : c;
        };
        for (size_t d = 0; d < x.ndim(); ++d) {
          if (is_zero(before[d]) && is_zero(after[d])) {
            idx.push_back(i[d]);
            continue;
          }
          idx.push_back(tir::sub(i[d], before[d]));
          if (!is_zero(before[d])) conj(tir::greater_equal(i[d], before[d]));
          if (!is_zero(after[d])) conj(tir::less(i[d], tir::add(x.shape()[d], before[d])));
        }
        if (!cond.defined()) return x(idx);
        return IfThenElse(cond, x(idx), value);
      },
      name, kTagInjective, {}, te::AxisNames("i", x.ndim()));
}

Tensor pad(const Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           const PrimExpr& pad_value, const std::string& name) {
  std::vector<PrimExpr> b, a;
  for (int64_t v : before) b.push_back(Index(v));
  for (int64_t v : after) a.push_back(Index(v));
  return pad(x, b, a, pad_value, name);
}

namespace {

// The spatial letters of a layout with `k` spatial axes, outermost first.
std::string SpatialLetters(size_t k) { return k == 1 ? "W" : k == 2 ? "HW" : "DHW"; }

// Where each letter of `canonical` ("NC" + spatial, "OI" + spatial) sits in `layout`.
std::vector<size_t> LayoutPerm(const std::string& layout, const std::string& canonical, const std::string& op,
                               const char* what) {
  std::vector<size_t> pos;
  for (char c : canonical) pos.push_back(layout.find(c));
  bool ok = layout.size() == canonical.size();
  for (size_t p : pos) ok = ok && p != std::string::npos;
  if (!ok) {
    throw std::invalid_argument(op + ": " + what + " layout " + layout + " is not supported (expected a permutation of " +
                                canonical + ")");
  }
  return pos;
}

// One value per spatial axis (a single value repeats).
std::vector<int64_t> PerAxis(std::vector<int64_t> v, size_t k, const std::string& op, const char* what) {
  if (v.size() == 1) v.assign(k, v[0]);
  if (v.size() != k) {
    throw std::invalid_argument(op + ": " + what + " must have 1 or " + std::to_string(k) + " values, got " +
                                std::to_string(v.size()));
  }
  return v;
}

// Padding as the befores then the afters of the `k` spatial axes (1 value: every side; k
// values: the same before and after).
std::vector<int64_t> PadPairs(std::vector<int64_t> p, size_t k, const std::string& op) {
  if (p.size() == 1) p.assign(2 * k, p[0]);
  if (p.size() == k) p.insert(p.end(), p.begin(), p.end());
  if (p.size() != 2 * k) {
    throw std::invalid_argument(op + ": padding must have 1, " + std::to_string(k) + " or " + std::to_string(2 * k) +
                                " values, got " + std::to_string(p.size()));
  }
  return p;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The spatial rank of a windowed op's data (1 to 3 spatial axes after batch and channels).
size_t SpatialRank(const Tensor& data, const std::string& op) {
  if (data.ndim() < 3 || data.ndim() > 5) {
    throw std::invalid_argument(op + ": the data must be 3-D, 4-D or 5-D, got rank " + std::to_string(data.ndim()));
  }
  return data.ndim() - 2;
}

}  // namespace

Tensor conv(const Tensor& data, const Tensor& weight, const ConvParams& p) {
  const std::string op = "topi.conv";
  size_t k = SpatialRank(data, op);
  if (weight.ndim() != data.ndim()) throw std::invalid_argument(op + ": the weight must have the data's rank");
  std::string sp = SpatialLetters(k);
  std::vector<size_t> dpos = LayoutPerm(p.data_layout, "NC" + sp, op, "data");
  std::vector<size_t> wpos = LayoutPerm(p.kernel_layout, "OI" + sp, op, "kernel");
  std::vector<int64_t> strides = PerAxis(p.strides, k, op, "strides");
  std::vector<int64_t> dilation = PerAxis(p.dilation, k, op, "dilation");
  std::vector<int64_t> pads = PadPairs(p.padding, k, op);
  const auto& ds = data.shape();
  const auto& ws = weight.shape();
  arith::Analyzer analyzer;
  PrimExpr F = ws[wpos[0]];
  // TVM's extents: the data's channels per group, the output channels per group.
  PrimExpr CI = analyzer.Simplify(tir::floordiv(ds[dpos[1]], Index(p.groups)));
  PrimExpr f_per_group = analyzer.Simplify(tir::floordiv(F, Index(p.groups)));
  std::vector<PrimExpr> kernel;
  for (size_t i = 0; i < k; ++i) kernel.push_back(ws[wpos[2 + i]]);
  // Canonical order (batch, channel, spatial...) -> the layout's order; each spatial extent
  // (d - (k - 1) * dilation - 1 + pads) // stride + 1, simplified as TVM's topi does.
  std::vector<PrimExpr> canonical = {ds[dpos[0]], F};
  for (size_t i = 0; i < k; ++i) {
    PrimExpr span = tir::sub(tir::sub(ds[dpos[2 + i]], tir::mul(tir::sub(kernel[i], Index(1)), Index(dilation[i]))),
                             Index(1));
    span = tir::add(span, Index(pads[i] + pads[k + i]));
    canonical.push_back(analyzer.Simplify(tir::add(tir::floordiv(span, Index(strides[i])), Index(1))));
  }
  static const char* kAxisNames[] = {"nn", "ff", "yy", "xx", "zz"};
  static const char* kTapNames[] = {"ry", "rx", "rz"};
  std::vector<PrimExpr> out_shape(k + 2);
  std::vector<std::string> names(k + 2);
  std::vector<int64_t> before(k + 2, 0), after(k + 2, 0);
  for (size_t j = 0; j < k + 2; ++j) {
    out_shape[dpos[j]] = canonical[j];
    names[dpos[j]] = kAxisNames[j];
    if (j >= 2) {
      before[dpos[j]] = pads[j - 2];
      after[dpos[j]] = pads[k + j - 2];
    }
  }
  // TVM's generic conv pads always, a copy stage when the padding is zero.
  Tensor in = pad(data, before, after, Const(data.dtype(), 0), "pad_temp");
  DataType out_t = p.out_dtype.is_void() ? data.dtype() : p.out_dtype;
  std::string name = std::string(p.groups > 1 ? "group_" : "") + "conv" + std::to_string(k) + "d_" + Lower(p.data_layout);
  return te::compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        te::IterVar rc = te::reduce_axis(CI, "rc");
        std::vector<te::IterVar> taps;
        for (size_t s = 0; s < k; ++s) taps.push_back(te::reduce_axis(kernel[s], kTapNames[s]));
        PrimExpr f = i[dpos[1]];
        PrimExpr c = rc->var;
        // The input channel of group g = f / (F / groups).
        if (p.groups > 1) c = tir::add(tir::mul(tir::floordiv(f, f_per_group), CI), rc->var);
        std::vector<PrimExpr> in_idx(k + 2), w_idx(k + 2);
        in_idx[dpos[0]] = i[dpos[0]];
        in_idx[dpos[1]] = c;
        w_idx[wpos[0]] = f;
        w_idx[wpos[1]] = rc->var;
        for (size_t s = 0; s < k; ++s) {
          in_idx[dpos[2 + s]] = tir::add(tir::mul(i[dpos[2 + s]], Index(strides[s])),
                                         tir::mul(taps[s]->var, Index(dilation[s])));
          w_idx[wpos[2 + s]] = taps[s]->var;
        }
        // The reduction axes in the order of their dims in the data layout (TVM's order, which
        // schedules rely on): NCHW reduces rc, ry, rx; NHWC ry, rx, rc.
        std::vector<std::pair<size_t, te::IterVar>> by_pos = {{dpos[1], rc}};
        for (size_t s = 0; s < k; ++s) by_pos.emplace_back(dpos[2 + s], taps[s]);
        std::sort(by_pos.begin(), by_pos.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<te::IterVar> axes;
        for (auto& [pos, axis] : by_pos) axes.push_back(axis);
        return te::sum(tir::mul(tir::cast(out_t, in(in_idx)), tir::cast(out_t, weight(w_idx))), axes);
      },
      name, name, {}, names);
}

Tensor dilate(const Tensor& x, const std::vector<int64_t>& strides, const std::string& name) {
  if (strides.size() != x.ndim()) throw std::invalid_argument("topi.dilate: one stride per axis is needed");
  arith::Analyzer analyzer;
  std::vector<PrimExpr> shape;
  for (size_t i = 0; i < x.ndim(); ++i) {
    shape.push_back(analyzer.Simplify(tir::add(tir::mul(tir::sub(x.shape()[i], Index(1)), Index(strides[i])), Index(1))));
  }
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx;
        PrimExpr on_grid;
        for (size_t d = 0; d < x.ndim(); ++d) {
          if (strides[d] == 1) {
            idx.push_back(i[d]);
            continue;
          }
          idx.push_back(tir::floordiv(i[d], Index(strides[d])));
          PrimExpr c = tir::equal(tir::floormod(i[d], Index(strides[d])), Index(0));
          on_grid = on_grid.defined() ? tir::logical_and(on_grid, c) : c;
        }
        if (!on_grid.defined()) return x(idx);
        return IfThenElse(on_grid, x(idx), Const(x.dtype(), 0));
      },
      name, kTagInjective, {}, te::AxisNames("i", x.ndim()));
}

Tensor conv_transpose(const Tensor& data, const Tensor& weight, const ConvTransposeParams& p) {
  // TVM's topi.nn.conv{1,2,3}d_transpose: the data dilated by the strides ("data_dilate") and
  // padded by kernel - 1 - padding ("data_pad", output_padding added after), the kernel's in and
  // out channels swapped and its taps mirrored ("kernel" for 1-D, "kernel_transform"), then a
  // plain convolution ("compute").
  const std::string op = "topi.conv_transpose";
  size_t k = SpatialRank(data, op);
  if (weight.ndim() != data.ndim()) throw std::invalid_argument(op + ": the weight must have the data's rank");
  std::vector<int64_t> strides = PerAxis(p.strides, k, op, "strides");
  std::vector<int64_t> dilation = PerAxis(p.dilation, k, op, "dilation");
  std::vector<int64_t> out_pad = PerAxis(p.output_padding, k, op, "output_padding");
  std::vector<int64_t> pads = PadPairs(p.padding, k, op);
  int64_t groups = p.groups;
  for (size_t s = 0; s < k; ++s) {
    if (out_pad[s] >= strides[s]) {
      throw std::invalid_argument(op + ": output_padding " + std::to_string(out_pad[s]) + " must be smaller than the stride " +
                                  std::to_string(strides[s]));
    }
  }
  arith::Analyzer analyzer;
  std::vector<int64_t> data_strides = {1, 1};
  data_strides.insert(data_strides.end(), strides.begin(), strides.end());
  Tensor dilated = dilate(data, data_strides, "data_dilate");
  Tensor kernel = weight;
  if (std::any_of(dilation.begin(), dilation.end(), [](int64_t d) { return d != 1; })) {
    std::vector<int64_t> kd = {1, 1};
    kd.insert(kd.end(), dilation.begin(), dilation.end());
    kernel = dilate(weight, kd, "kernel_dilate");
  }
  const auto& ks = kernel.shape();
  std::vector<PrimExpr> before = {Index(0), Index(0)}, after = {Index(0), Index(0)};
  for (size_t s = 0; s < k; ++s) {
    before.push_back(analyzer.Simplify(tir::sub(tir::sub(ks[2 + s], Index(1)), Index(pads[s]))));
    after.push_back(analyzer.Simplify(tir::add(tir::sub(tir::sub(ks[2 + s], Index(1)), Index(pads[k + s])), Index(out_pad[s]))));
  }
  Tensor padded = pad(dilated, before, after, Const(data.dtype(), 0), "data_pad");
  PrimExpr in_c = data.shape()[1], out_c = ks[1];
  std::vector<PrimExpr> kt_shape = {out_c, in_c};
  for (size_t s = 0; s < k; ++s) kt_shape.push_back(ks[2 + s]);
  std::vector<std::string> kt_names = {"o", "i"};
  for (char c : SpatialLetters(k)) kt_names.emplace_back(1, static_cast<char>(std::tolower(c)));
  Tensor transformed = te::compute(
      kt_shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx = {i[1], i[0]};
        for (size_t s = 0; s < k; ++s) idx.push_back(tir::sub(tir::sub(ks[2 + s], Index(1)), i[2 + s]));
        return kernel(idx);
      },
      k == 1 ? "kernel" : "kernel_transform", kTagInjective, {}, kt_names);
  DataType out_t = p.out_dtype.is_void() ? data.dtype() : p.out_dtype;
  std::vector<PrimExpr> out_shape = {data.shape()[0], groups > 1 ? analyzer.Simplify(tir::mul(out_c, Index(groups))) : out_c};
  for (size_t s = 0; s < k; ++s) {
    out_shape.push_back(analyzer.Simplify(tir::add(tir::sub(padded.shape()[2 + s], ks[2 + s]), Index(1))));
  }
  std::vector<std::string> names = {"b", "c"};
  for (char c : SpatialLetters(k)) names.emplace_back(1, static_cast<char>(std::tolower(c)));
  static const char* kTapNames[] = {"dd", "dh", "dw"};
  PrimExpr group_in = groups > 1 ? analyzer.Simplify(tir::floordiv(in_c, Index(groups))) : in_c;
  return te::compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        te::IterVar dc = te::reduce_axis(group_in, "dc");
        std::vector<te::IterVar> taps;
        for (size_t s = 0; s < k; ++s) taps.push_back(te::reduce_axis(ks[2 + s], kTapNames[3 - k + s]));
        PrimExpr c_in = dc->var, c_out = i[1];
        if (groups > 1) {
          // The input channel dc of output channel c's group, and c within its group.
          PrimExpr per_group_out = analyzer.Simplify(tir::floordiv(out_shape[1], Index(groups)));
          c_in = tir::add(tir::mul(tir::floordiv(i[1], per_group_out), group_in), dc->var);
          c_out = tir::floormod(i[1], per_group_out);
        }
        std::vector<PrimExpr> d_idx = {i[0], c_in}, k_idx = {c_out, c_in};
        for (size_t s = 0; s < k; ++s) {
          d_idx.push_back(tir::add(i[2 + s], taps[s]->var));
          k_idx.push_back(taps[s]->var);
        }
        std::vector<te::IterVar> axes = {dc};
        axes.insert(axes.end(), taps.begin(), taps.end());
        // The data read first: the stages are ordered by first read (TVM's data_dilate, data_pad,
        // then the kernel's).
        PrimExpr d = tir::cast(out_t, padded(d_idx));
        PrimExpr w = tir::cast(out_t, transformed(k_idx));
        return te::sum(tir::mul(d, w), axes);
      },
      "compute", std::string(groups > 1 ? "group_" : "") + "conv" + std::to_string(k) + "d_transpose", {}, names);
}

Tensor prelu(const Tensor& x, const Tensor& alpha, int64_t axis) {
  int64_t a = NormalizeAxis(axis, x.ndim(), "prelu");
  Tensor slope = alpha;
  const int64_t* alpha_size = alpha.ndim() == 1 ? tir::AsConstInt(alpha.shape()[0]) : nullptr;
  const int64_t* channels = tir::AsConstInt(x.shape()[a]);
  if (alpha_size && *alpha_size == 1 && !(channels && *channels == 1)) {
    // One value for every channel: broadcast first, as TVM's stage "slope_broadcasted".
    slope = te::compute(
        {x.shape()[a]},
        [&](const std::vector<Var>&) { return alpha(std::vector<PrimExpr>{Index(0)}); },
        "slope_broadcasted", kTagElemWise, {}, {"c"});
  }
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        PrimExpr v = x(i);
        PrimExpr s = slope(std::vector<PrimExpr>{i[a]});
        return tir::MakeSelect(tir::greater(v, Const(x.dtype(), 0)), v, tir::mul(v, s));
      },
      "compute", kTagElemWise, {}, te::AxisNames("i", x.ndim()));
}

namespace {

enum class PoolKind { kMax, kAvg };

Tensor Pool(const Tensor& data, const PoolParams& p, PoolKind kind) {
  const std::string op = kind == PoolKind::kMax ? "topi.max_pool" : "topi.avg_pool";
  size_t k = SpatialRank(data, op);
  std::string sp = SpatialLetters(k);
  std::vector<size_t> pos = LayoutPerm(p.layout, "NC" + sp, op, "data");
  std::vector<int64_t> pool = PerAxis(p.pool_size, k, op, "pool_size");
  std::vector<int64_t> strides = PerAxis(p.strides, k, op, "strides");
  std::vector<int64_t> dilation = PerAxis(p.dilation, k, op, "dilation");
  std::vector<int64_t> pads = PadPairs(p.padding, k, op);
  std::vector<size_t> dims;  // the data's axis of each spatial axis
  for (size_t s = 0; s < k; ++s) dims.push_back(pos[2 + s]);
  const auto& ds = data.shape();
  std::vector<PrimExpr> out_shape = ds;
  std::vector<int64_t> before(data.ndim(), 0), after(data.ndim(), 0);
  for (size_t s = 0; s < k; ++s) {
    out_shape[dims[s]] = WindowOut(ds[dims[s]], pads[s] + pads[k + s], pool[s], dilation[s], strides[s], p.ceil_mode);
    before[dims[s]] = pads[s];
    after[dims[s]] = pads[k + s] + (p.ceil_mode ? strides[s] - 1 : 0);
  }
  DataType t = data.dtype();
  Tensor in = data;
  if (AnyNonZero(before) || AnyNonZero(after)) {
    in = pad(data, before, after, kind == PoolKind::kMax ? te::min_value(t) : Const(t, 0), "pad_temp");
  }
  auto window_axes = [&]() {
    std::vector<te::IterVar> axes;
    for (size_t s = 0; s < k; ++s) axes.push_back(te::reduce_axis(Index(pool[s]), "rv" + std::to_string(s)));
    return axes;
  };
  auto window = [&](const std::vector<Var>& i, const std::vector<te::IterVar>& r) {
    std::vector<PrimExpr> idx(i.begin(), i.end());
    for (size_t s = 0; s < k; ++s) {
      idx[dims[s]] = tir::add(tir::mul(i[dims[s]], Index(strides[s])), tir::mul(r[s]->var, Index(dilation[s])));
    }
    return in(idx);
  };
  if (kind == PoolKind::kMax) {
    return te::compute(
        out_shape,
        [&](const std::vector<Var>& i) {
          std::vector<te::IterVar> r = window_axes();
          return te::max(window(i, r), r);
        },
        "pool_max", "pool_max", ScheduleRule("meta_schedule.pool_max"));
  }
  Tensor s = te::compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        std::vector<te::IterVar> r = window_axes();
        return te::sum(window(i, r), r);
      },
      "pool_sum", "pool_sum");
  // The number of window taps inside the unpadded input along one dim at output index o, in
  // TVM's terms: the window's first and last positions, the dilation steps that skip the
  // leading padding, the last position clamped to the data.
  auto taps = [&](const PrimExpr& o, const PrimExpr& size, int64_t pad_before, int64_t window_size,
                  int64_t stride, int64_t d) {
    PrimExpr start = tir::sub(tir::mul(o, Index(stride)), Index(pad_before));
    PrimExpr end = tir::add(start, Index((window_size - 1) * d));
    PrimExpr jumps = tir::max(tir::truncdiv(tir::sub(Index(d - 1), start), Index(d)), Index(0));
    end = tir::min(end, tir::sub(size, Index(1)));
    return tir::add(tir::truncdiv(tir::sub(end, tir::add(start, tir::mul(Index(d), jumps))), Index(d)), Index(1));
  };
  return te::compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        PrimExpr count;
        if (p.count_include_pad) {
          int64_t n = 1;
          for (int64_t w : pool) n *= w;
          count = Index(n);
        } else {
          for (size_t d = 0; d < k; ++d) {
            PrimExpr c = taps(i[dims[d]], ds[dims[d]], pads[d], pool[d], strides[d], dilation[d]);
            count = count.defined() ? tir::mul(count, c) : c;
          }
          count = tir::max(count, Index(1));
        }
        return tir::div(s(i), tir::cast(t, count));
      },
      "pool_avg", kTagElemWise, ScheduleRule("meta_schedule.pool_avg"));
}

}  // namespace

Tensor max_pool(const Tensor& data, const PoolParams& params) { return Pool(data, params, PoolKind::kMax); }
Tensor avg_pool(const Tensor& data, const PoolParams& params) { return Pool(data, params, PoolKind::kAvg); }
Tensor adaptive_avg_pool2d(const Tensor& data, std::vector<int64_t> output_size,
                           const std::string& layout) {
  // The layout's axes: a capital letter, or a block of a split axis (the "16c" of NCHW16c).
  size_t axes = 0, hd = 0, wd = 0;
  bool has_h = false, has_w = false;
  for (size_t i = 0; i < layout.size(); ++i) {
    char c = layout[i];
    if (std::isdigit(static_cast<unsigned char>(c))) continue;
    if (c == 'H') hd = axes, has_h = true;
    if (c == 'W') wd = axes, has_w = true;
    ++axes;
  }
  if (!has_h || !has_w || axes != data.ndim()) {
    throw std::invalid_argument("topi.adaptive_pool2d: layout " + layout +
                                " does not describe the data's " + std::to_string(data.ndim()) +
                                " axes with H and W");
  }
  const auto& ds = data.shape();
  std::vector<PrimExpr> out_shape = ds;
  if (!output_size.empty()) {
    if (output_size.size() == 1) output_size.push_back(output_size[0]);
    out_shape[hd] = Index(output_size[0]);
    out_shape[wd] = Index(output_size[1]);
  }
  auto start = [](const PrimExpr& o, const PrimExpr& in, const PrimExpr& out) {
    return tir::floordiv(tir::mul(o, in), out);
  };
  auto end = [](const PrimExpr& o, const PrimExpr& in, const PrimExpr& out) {
    return tir::floordiv(tir::sub(tir::add(tir::mul(tir::add(o, Index(1)), in), out), Index(1)),
                         out);
  };
  Tensor s = te::compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        PrimExpr h0 = start(i[hd], ds[hd], out_shape[hd]), h1 = end(i[hd], ds[hd], out_shape[hd]);
        PrimExpr w0 = start(i[wd], ds[wd], out_shape[wd]), w1 = end(i[wd], ds[wd], out_shape[wd]);
        te::IterVar r0 = te::reduce_axis(tir::sub(h1, h0), "rv0");
        te::IterVar r1 = te::reduce_axis(tir::sub(w1, w0), "rv1");
        std::vector<PrimExpr> idx(i.begin(), i.end());
        idx[hd] = tir::add(h0, r0->var);
        idx[wd] = tir::add(w0, r1->var);
        return te::sum(data(idx), {r0, r1});
      },
      "adaptive_pool_sum", "adaptive_pool_sum");
  DataType t = data.dtype();
  return te::compute(
      out_shape,
      [&](const std::vector<Var>& i) {
        PrimExpr kh =
            tir::sub(end(i[hd], ds[hd], out_shape[hd]), start(i[hd], ds[hd], out_shape[hd]));
        PrimExpr kw =
            tir::sub(end(i[wd], ds[wd], out_shape[wd]), start(i[wd], ds[wd], out_shape[wd]));
        return tir::div(s(i), tir::cast(t, tir::mul(kh, kw)));
      },
      "adaptive_pool_avg", kTagElemWise, ScheduleRule("meta_schedule.adaptive_pool_avg"));
}

namespace {

// TVM's topi.nn.batch_matmul of (B, I, K) and (B, J, K) (transpose_b) or (B, K, J): stage
// "T_batch_matmul_NT" / "T_batch_matmul_NN" over b, i, j.
Tensor BatchMatmul(const Tensor& a, const Tensor& b, bool transpose_b) {
  std::vector<PrimExpr> shape = {a.shape()[0], a.shape()[1],
                                 transpose_b ? b.shape()[1] : b.shape()[2]};
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        te::IterVar k = te::reduce_axis(a.shape()[2], "k");
        PrimExpr x = a(std::vector<PrimExpr>{i[0], i[1], k->var});
        PrimExpr y = transpose_b ? b(std::vector<PrimExpr>{i[0], i[2], k->var})
                                 : b(std::vector<PrimExpr>{i[0], k->var, i[2]});
        return te::sum(tir::mul(x, y), {k});
      },
      transpose_b ? "T_batch_matmul_NT" : "T_batch_matmul_NN", "batch_matmul",
      {{"layout_free_placeholders", ir::MakeArray({b.buffer()})}}, {"b", "i", "j"});
}

}  // namespace

Tensor attention_composed(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* bias,
                          const AttentionParams& params) {
  if (q.ndim() != 4 || k.ndim() != 4 || v.ndim() != 4) {
    throw std::invalid_argument("topi.attention: query, key and value must be 4-D (BSNH)");
  }
  if (bias && bias->ndim() != 4) throw std::invalid_argument("topi.attention: the bias must be 4-D");
  const PrimExpr &batch = q.shape()[0], &seq = q.shape()[1], &heads = q.shape()[2],
                 &head_dim = q.shape()[3];
  const PrimExpr &seq_kv = v.shape()[1], &head_dim_v = v.shape()[3];
  DataType t = q.dtype();
  std::vector<int64_t> bsnh = {0, 2, 1, 3};
  PrimExpr bs = tir::mul(batch, heads);
  Tensor qr = reshape(transpose(q, bsnh), {bs, seq, head_dim});
  Tensor kr = reshape(transpose(k, bsnh), {bs, seq_kv, head_dim});
  Tensor vr = reshape(transpose(v, bsnh), {bs, seq_kv, head_dim_v});
  Tensor p = BatchMatmul(qr, kr, true);
  p = params.scale ? multiply(p, Const(t, *params.scale))
                   : divide(p, Intrin("sqrt", {tir::cast(t, head_dim)}));
  if (bias) {
    p = reshape(add(reshape(p, {batch, heads, seq, seq_kv}), *bias), {bs, seq, seq_kv});
  }
  Tensor s;
  if (params.causal_mask.empty()) {
    s = softmax(p, -1);
  } else {
    PrimExpr offset;
    if (params.causal_mask == "TopLeft") {
      offset = tir::make_const(DataType::Int(32), int64_t(0));
    } else if (params.causal_mask == "BottomRight") {
      PrimExpr d = tir::sub(seq, seq_kv);
      offset = tir::cast(DataType::Int(32), tir::max(d, tir::neg(d)));
    } else {
      throw std::invalid_argument("topi.attention: causal_mask " + params.causal_mask +
                                  " is not supported");
    }
    Tensor masked = trilu(p, offset, false);
    Tensor e = trilu(unary(UnaryKind::kExp, subtract(masked, reduce(ReduceKind::kMax, masked, std::vector<int64_t>{-1}, true))),
                     offset, false);
    s = divide(e, reduce(ReduceKind::kSum, e, std::vector<int64_t>{-1}, true));
  }
  Tensor o = reshape(BatchMatmul(s, vr, false), {batch, heads, seq, head_dim_v});
  return transpose(o, bsnh);
}

Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* bias,
                 const AttentionParams& params) {
  if (q.ndim() != 4 || k.ndim() != 4 || v.ndim() != 4) {
    throw std::invalid_argument("topi.attention: query, key and value must be 4-D (BSNH)");
  }
  if (bias && bias->ndim() != 4) throw std::invalid_argument("topi.attention: the bias must be 4-D");
  using Idx = std::vector<PrimExpr>;
  DataType t = q.dtype();
  const auto& qs = q.shape();
  const PrimExpr& seq = qs[1];
  const PrimExpr& heads = qs[2];
  const PrimExpr& head_dim = qs[3];
  const PrimExpr& seq_kv = k.shape()[1];
  // Query head h reads key/value head h / group.
  PrimExpr group = tir::floordiv(heads, k.shape()[2]);
  auto kv_head = [&](const PrimExpr& h) {
    return tir::IsConstInt(group, 1) ? h : tir::floordiv(h, group);
  };
  PrimExpr scale = params.scale ? Const(t, *params.scale)
                                : tir::div(Const(t, 1.0), Intrin("sqrt", {tir::cast(t, head_dim)}));
  // Whether key j is visible from query i.
  auto allowed = [&](const PrimExpr& i, const PrimExpr& j) -> PrimExpr {
    if (params.causal_mask.empty()) return PrimExpr();
    PrimExpr offset = Index(0);
    if (params.causal_mask == "BottomRight") {
      PrimExpr d = tir::sub(seq, seq_kv);
      offset = tir::max(d, tir::neg(d));
    } else if (params.causal_mask != "TopLeft") {
      throw std::invalid_argument("topi.attention: causal_mask " + params.causal_mask + " is not supported");
    }
    return tir::less_equal(j, tir::add(i, offset));
  };
  // score[b, h, i, j] = sum_d q[b, i, h, d] k[b, j, h / group, d] * scale + bias.
  Tensor score = te::compute(
      {qs[0], heads, seq, seq_kv},
      [&](const std::vector<Var>& x) {
        te::IterVar d = te::reduce_axis(head_dim, "d");
        PrimExpr dot = te::sum(tir::mul(q(Idx{x[0], x[2], x[1], d->var}), k(Idx{x[0], x[3], kv_head(x[1]), d->var})), {d});
        return dot;
      },
      "T_attention_score");
  Tensor logits = te::compute(
      {qs[0], heads, seq, seq_kv},
      [&](const std::vector<Var>& x) {
        PrimExpr s = tir::mul(score(std::vector<PrimExpr>(x.begin(), x.end())), scale);
        if (bias) {
          std::vector<PrimExpr> bi;
          for (size_t a = 0; a < 4; ++a) {
            bool one = tir::IsConstInt(bias->shape()[a], 1) && !tir::IsConstInt(a == 0 ? qs[0] : a == 1 ? heads : a == 2 ? seq : seq_kv, 1);
            bi.push_back(one ? Index(0) : PrimExpr(x[a]));
          }
          s = tir::add(s, (*bias)(bi));
        }
        return s;
      },
      "T_attention_logits");
  Tensor row_max = te::compute(
      {qs[0], heads, seq},
      [&](const std::vector<Var>& x) {
        te::IterVar j = te::reduce_axis(seq_kv, "j");
        PrimExpr value = logits(Idx{x[0], x[1], x[2], j->var});
        PrimExpr mask = allowed(x[2], j->var);
        return te::max(mask.defined() ? tir::MakeSelect(mask, value, te::min_value(t)) : value, {j});
      },
      "T_attention_max");
  Tensor exp = te::compute(
      {qs[0], heads, seq, seq_kv},
      [&](const std::vector<Var>& x) {
        PrimExpr e = Intrin("exp", {tir::sub(logits(std::vector<PrimExpr>(x.begin(), x.end())),
                                             row_max(Idx{x[0], x[1], x[2]}))});
        PrimExpr mask = allowed(x[2], x[3]);
        return mask.defined() ? tir::MakeSelect(mask, e, Const(t, 0)) : e;
      },
      "T_attention_exp");
  Tensor row_sum = te::compute(
      {qs[0], heads, seq},
      [&](const std::vector<Var>& x) {
        te::IterVar j = te::reduce_axis(seq_kv, "j");
        return te::sum(exp(Idx{x[0], x[1], x[2], j->var}), {j});
      },
      "T_attention_sum");
  // out[b, i, h, e] = sum_j exp[b, h, i, j] v[b, j, h / group, e] / sum[b, h, i].
  Tensor weighted = te::compute(
      {qs[0], seq, heads, v.shape()[3]},
      [&](const std::vector<Var>& x) {
        te::IterVar j = te::reduce_axis(seq_kv, "j");
        return te::sum(tir::mul(exp(Idx{x[0], x[2], x[1], j->var}), v(Idx{x[0], j->var, kv_head(x[2]), x[3]})), {j});
      },
      "T_attention_weighted");
  return te::compute(
      {qs[0], seq, heads, v.shape()[3]},
      [&](const std::vector<Var>& x) {
        return tir::div(weighted(std::vector<PrimExpr>(x.begin(), x.end())), row_sum(Idx{x[0], x[2], x[1]}));
      },
      "T_attention");
}

}  // namespace wb::topi
