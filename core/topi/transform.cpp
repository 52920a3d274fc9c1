#include "topi/transform.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "tir/builtin.h"
#include "tir/op.h"
#include "topi/reduction.h"
#include "topi/util.h"

namespace wb::topi {

namespace {

using tir::Var;

// The row-major flat position of `idx` in `shape`, and back.
PrimExpr Ravel(const std::vector<PrimExpr>& idx, const std::vector<PrimExpr>& shape) {
  if (idx.empty()) return Index(0);
  PrimExpr flat = idx[0];
  for (size_t i = 1; i < idx.size(); ++i) flat = tir::add(tir::mul(flat, shape[i]), idx[i]);
  return flat;
}

std::vector<PrimExpr> Unravel(const PrimExpr& flat, const std::vector<PrimExpr>& shape) {
  std::vector<PrimExpr> idx(shape.size());
  PrimExpr rest = flat;
  // Every dim is taken modulo its extent, the first too, as TVM's UnravelIndex does.
  for (size_t i = shape.size(); i > 0; --i) {
    idx[i - 1] = tir::floormod(rest, shape[i - 1]);
    if (i > 1) rest = tir::floordiv(rest, shape[i - 1]);
  }
  return idx;
}

PrimExpr IfThenElse(const PrimExpr& cond, const PrimExpr& a, const PrimExpr& b) {
  return tir::MakeCall(a->dtype, tir::GetOp("tirx.if_then_else"), {cond, a, b});
}

std::vector<PrimExpr> AsExprs(const std::vector<Var>& v) { return {v.begin(), v.end()}; }

}  // namespace

Tensor reshape(const Tensor& x, const std::vector<PrimExpr>& new_shape) {
  return te::compute(
      new_shape,
      [&](const std::vector<Var>& i) {
        if (x.ndim() == 0) return x(std::vector<PrimExpr>{});
        return x(Unravel(Ravel(AsExprs(i), new_shape), x.shape()));
      },
      "T_reshape", kTagInjective);
}

Tensor transpose(const Tensor& x, const std::optional<std::vector<int64_t>>& axes_in) {
  std::vector<int64_t> axes;
  if (axes_in) {
    for (int64_t a : *axes_in) axes.push_back(NormalizeAxis(a, x.ndim(), "transpose"));
  } else {
    for (size_t i = x.ndim(); i > 0; --i) axes.push_back(int64_t(i - 1));
  }
  if (axes.size() != x.ndim())
    throw std::invalid_argument("topi.transpose: axes must name every dim");
  std::vector<PrimExpr> shape;
  for (int64_t a : axes) shape.push_back(x.shape()[a]);
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx(x.ndim());
        for (size_t j = 0; j < axes.size(); ++j) idx[axes[j]] = i[j];
        return x(idx);
      },
      "T_transpose", kTagInjective);
}

Tensor expand_dims(const Tensor& x, const std::vector<int64_t>& axes_in) {
  size_t out_ndim = x.ndim() + axes_in.size();
  std::vector<bool> is_new(out_ndim, false);
  for (int64_t a : axes_in) is_new[NormalizeAxis(a, out_ndim, "expand_dims")] = true;
  std::vector<PrimExpr> shape;
  size_t j = 0;
  for (size_t i = 0; i < out_ndim; ++i) shape.push_back(is_new[i] ? Index(1) : x.shape()[j++]);
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx;
        for (size_t d = 0; d < out_ndim; ++d) {
          if (!is_new[d]) idx.push_back(i[d]);
        }
        return x(idx);
      },
      "expand_dims", "", {}, te::AxisNames("i", out_ndim));
}

Tensor repeat(const Tensor& x, int64_t repeats, int64_t axis) {
  int64_t a = NormalizeAxis(axis, x.ndim(), "repeat");
  std::vector<PrimExpr> shape = x.shape();
  shape[a] = tir::mul(Index(repeats), shape[a]);  // TVM writes repeats * dim
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx(i.begin(), i.end());
        idx[a] = tir::floordiv(i[a], Index(repeats));
        return x(idx);
      },
      "T_repeat", kTagInjective, {}, te::AxisNames("ax", x.ndim()));
}

Tensor tile(const Tensor& x, const std::vector<int64_t>& repeats) {
  size_t ndim = std::max(x.ndim(), repeats.size());
  size_t xoff = ndim - x.ndim(), roff = ndim - repeats.size();
  std::vector<PrimExpr> shape;
  for (size_t d = 0; d < ndim; ++d) {
    PrimExpr dim = d >= xoff ? x.shape()[d - xoff] : Index(1);
    shape.push_back(tir::mul(dim, Index(d >= roff ? repeats[d - roff] : 1)));
  }
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx;
        for (size_t d = xoff; d < ndim; ++d) idx.push_back(tir::floormod(i[d], x.shape()[d - xoff]));
        return x(idx);
      },
      "T_tile", kTagInjective, {}, te::AxisNames("ax", ndim));
}

namespace {

Tensor SortRank(const Tensor& x, int64_t a, bool descending) {
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        te::IterVar j = te::reduce_axis(x.shape()[a], "j");
        std::vector<PrimExpr> other(i.begin(), i.end());
        other[a] = j->var;
        PrimExpr xi = x(i), xj = x(other);
        PrimExpr before = descending ? tir::greater(xj, xi) : tir::less(xj, xi);
        before = tir::logical_or(before, tir::logical_and(tir::equal(xj, xi), tir::less(j->var, i[a])));
        return te::sum(tir::cast(ir::DataType::Int(64), before), {j});
      },
      "T_sort_rank", kTagCommReduce, {}, te::AxisNames("ax", x.ndim()));
}

// Output position k along axis a (of `extent` positions) holds value(i) of the element i whose
// rank is k; value(i) is x's element or its position.
Tensor ByRank(const Tensor& x, const Tensor& rank, int64_t a, const PrimExpr& extent, ir::DataType dtype,
              bool positions, const std::string& name) {
  std::vector<PrimExpr> shape = x.shape();
  shape[a] = extent;
  return te::compute(
      shape,
      [&](const std::vector<Var>& k) {
        te::IterVar i = te::reduce_axis(x.shape()[a], "i");
        std::vector<PrimExpr> at(k.begin(), k.end());
        at[a] = i->var;
        PrimExpr value = positions ? tir::cast(dtype, i->var) : x(at);
        PrimExpr hit = tir::equal(rank(at), tir::cast(ir::DataType::Int(64), k[a]));
        return te::sum(tir::MakeSelect(hit, value, tir::make_const(dtype, 0.0)), {i});
      },
      name, kTagCommReduce, {}, te::AxisNames("ax", x.ndim()));
}

}  // namespace

Tensor sort(const Tensor& x, int64_t axis, bool descending) {
  int64_t a = NormalizeAxis(axis, x.ndim(), "sort");
  Tensor rank = SortRank(x, a, descending);
  return ByRank(x, rank, a, x.shape()[a], x.dtype(), false, "T_sort");
}

Tensor argsort(const Tensor& x, int64_t axis, bool descending, ir::DataType dtype) {
  int64_t a = NormalizeAxis(axis, x.ndim(), "argsort");
  Tensor rank = SortRank(x, a, descending);
  return ByRank(x, rank, a, x.shape()[a], dtype, true, "T_argsort");
}

std::vector<Tensor> topk(const Tensor& x, int64_t k, int64_t axis, bool largest, ir::DataType dtype) {
  int64_t a = NormalizeAxis(axis, x.ndim(), "topk");
  Tensor rank = SortRank(x, a, largest);
  PrimExpr extent = Index(k);
  return {ByRank(x, rank, a, extent, x.dtype(), false, "T_topk_values"),
          ByRank(x, rank, a, extent, dtype, true, "T_topk_indices")};
}

Tensor flip(const Tensor& x, int64_t axis) {
  int64_t a = NormalizeAxis(axis, x.ndim(), "flip");
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx(i.begin(), i.end());
        idx[a] = tir::sub(tir::sub(x.shape()[a], Index(1)), i[a]);
        return x(idx);
      },
      "T_reverse_sequence", kTagInjective, {}, te::AxisNames("ax", x.ndim()));
}

Tensor reverse_sequence(const Tensor& x, const Tensor& seq_lengths, int64_t seq_axis,
                        int64_t batch_axis) {
  int64_t s = NormalizeAxis(seq_axis, x.ndim(), "reverse_sequence");
  int64_t b = NormalizeAxis(batch_axis, x.ndim(), "reverse_sequence");
  if (seq_lengths.ndim() != 1) throw std::invalid_argument("topi.reverse_sequence: seq_lengths must be 1-D");
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx(i.begin(), i.end());
        PrimExpr len = seq_lengths(std::vector<PrimExpr>{i[b]});
        if (len->dtype != i[s]->dtype) len = tir::cast(i[s]->dtype, len);
        PrimExpr extent = x.shape()[s];
        PrimExpr keep = tir::logical_or(tir::less_equal(len, Index(1)), tir::less_equal(len, i[s]));
        PrimExpr reversed = IfThenElse(
            tir::greater(len, extent), tir::sub(tir::sub(extent, Index(1)), i[s]),
            tir::sub(tir::sub(len, Index(1)), i[s]));
        idx[s] = IfThenElse(keep, i[s], reversed);
        return x(idx);
      },
      "T_reverse_sequence", kTagInjective, {}, te::AxisNames("ax", x.ndim()));
}

Tensor trilu(const Tensor& x, PrimExpr k, bool upper) {
  size_t n = x.ndim();
  if (n < 2) throw std::invalid_argument("topi.trilu: the input must have at least two axes, got " + std::to_string(n));
  return te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx(i.begin(), i.end());
        // TVM's comparison, row against col - k, in the form its simplifier leaves: a constant
        // offset is added on the side where it is positive (col <= row + 1, col + 2 <= row,
        // row < col for row + 1 <= col).
        PrimExpr row = i[n - 2], col = i[n - 1];
        PrimExpr offset = tir::cast(col->dtype, k);
        PrimExpr keep;
        if (const int64_t* c = tir::AsConstInt(offset)) {
          PrimExpr lhs = upper ? row : col, rhs = upper ? col : row;
          // tril: col - k <= row; triu: row <= col - k.
          bool lhs_grows = upper ? *c > 0 : *c < 0;
          PrimExpr amount = Const(col->dtype, *c < 0 ? -*c : *c);
          if (*c == 0) {
            keep = tir::less_equal(lhs, rhs);
          } else if (lhs_grows && (*c == 1 || *c == -1)) {
            keep = tir::less(lhs, rhs);  // x + 1 <= y is x < y on integers
          } else if (lhs_grows) {
            keep = tir::less_equal(tir::add(lhs, amount), rhs);
          } else {
            keep = tir::less_equal(lhs, tir::add(rhs, amount));
          }
        } else {
          PrimExpr shifted = tir::sub(col, offset);
          keep = upper ? tir::less_equal(row, shifted) : tir::greater_equal(row, shifted);
        }
        return tir::MakeSelect(keep, x(idx), Const(x.dtype(), 0));
      },
      "trilu", kTagElemWise, {}, te::AxisNames("ax", n));
}

Tensor squeeze(const Tensor& x, const std::optional<std::vector<int64_t>>& axes) {
  std::vector<bool> drop(x.ndim(), false);
  if (axes) {
    for (int64_t a : *axes) {
      int64_t d = NormalizeAxis(a, x.ndim(), "squeeze");
      if (!tir::IsConstInt(x.shape()[d], 1)) {
        throw std::invalid_argument("topi.squeeze: dim " + std::to_string(d) + " is not 1");
      }
      drop[d] = true;
    }
  } else {
    for (size_t d = 0; d < x.ndim(); ++d) drop[d] = tir::IsConstInt(x.shape()[d], 1);
  }
  std::vector<PrimExpr> shape;
  for (size_t d = 0; d < x.ndim(); ++d) {
    if (!drop[d]) shape.push_back(x.shape()[d]);
  }
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx;
        size_t j = 0;
        for (size_t d = 0; d < x.ndim(); ++d) {
          idx.push_back(drop[d] ? tir::make_const(x.shape()[d]->dtype, int64_t(0))
                                : PrimExpr(i[j++]));
        }
        return x(idx);
      },
      "T_squeeze", kTagInjective);
}

Tensor flatten(const Tensor& x) { return reshape(x, {Product(x.shape())}); }

Tensor concatenate(const std::vector<Tensor>& xs, int64_t axis) {
  if (xs.empty()) throw std::invalid_argument("topi.concatenate: no inputs");
  axis = NormalizeAxis(axis, xs[0].ndim(), "concatenate");
  std::vector<PrimExpr> offsets;  // where each input starts along the axis
  PrimExpr total = Index(0);
  for (const Tensor& t : xs) {
    if (t.ndim() != xs[0].ndim())
      throw std::invalid_argument("topi.concatenate: inputs differ in rank");
    offsets.push_back(total);
    total = tir::add(total, t.shape()[axis]);
  }
  std::vector<PrimExpr> shape = xs[0].shape();
  shape[axis] = total;
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        auto read = [&](size_t k) {
          std::vector<PrimExpr> idx = AsExprs(i);
          idx[axis] = tir::sub(i[axis], offsets[k]);
          return xs[k](idx);
        };
        // TVM's nesting: the last input's range tested outermost.
        PrimExpr ret = read(0);
        for (size_t k = 1; k < xs.size(); ++k) {
          ret = IfThenElse(tir::greater_equal(i[axis], offsets[k]), read(k), ret);
        }
        return ret;
      },
      "T_concat", kTagInjective);
}

namespace {

std::vector<Tensor> SplitAt(const Tensor& x, const std::vector<PrimExpr>& begins,
                            const std::vector<PrimExpr>& lengths, int64_t axis,
                            const std::string& name) {
  std::vector<Tensor> out;
  for (size_t k = 0; k < begins.size(); ++k) {
    std::vector<PrimExpr> shape = x.shape();
    shape[axis] = lengths[k];
    PrimExpr begin = begins[k];
    out.push_back(te::compute(
        shape,
        [&](const std::vector<Var>& i) {
          std::vector<PrimExpr> idx = AsExprs(i);
          idx[axis] = tir::add(i[axis], begin);
          return x(idx);
        },
        name, kTagInjective));
  }
  return out;
}

}  // namespace

std::vector<Tensor> split_sections(const Tensor& x, int64_t sections, int64_t axis) {
  axis = NormalizeAxis(axis, x.ndim(), "split");
  if (sections <= 0) throw std::invalid_argument("topi.split: sections must be positive");
  // TVM's topi.split: sections of ceil(dim / sections), the last one taking what is left.
  PrimExpr dim = x.shape()[axis];
  PrimExpr part = tir::floordiv(tir::sub(tir::add(dim, Index(sections)), Index(1)), Index(sections));
  std::vector<PrimExpr> begins, lengths;
  for (int64_t k = 0; k < sections; ++k) begins.push_back(k == 0 ? Index(0) : tir::mul(part, Index(k)));
  for (int64_t k = 0; k < sections; ++k) {
    lengths.push_back(k + 1 < sections ? tir::sub(begins[k + 1], begins[k]) : tir::sub(dim, begins[k]));
    const int64_t* c = tir::AsConstInt(lengths.back());
    if (c && *c < 0) {
      throw std::invalid_argument("topi.split: the dim is too small for " +
                                  std::to_string(sections) + " sections");
    }
  }
  return SplitAt(x, begins, lengths, axis, "T_split_sections");
}

std::vector<Tensor> split_indices(const Tensor& x, const std::vector<int64_t>& indices,
                                  int64_t axis) {
  axis = NormalizeAxis(axis, x.ndim(), "split");
  const int64_t* c = tir::AsConstInt(x.shape()[axis]);
  if (!c) throw std::invalid_argument("topi.split: splitting at indices needs a static dim");
  std::vector<PrimExpr> begins, lengths;
  int64_t prev = 0;
  for (size_t k = 0; k <= indices.size(); ++k) {
    int64_t end = k < indices.size() ? std::clamp<int64_t>(indices[k], prev, *c) : *c;
    begins.push_back(Index(prev));
    lengths.push_back(Index(end - prev));
    prev = end;
  }
  return SplitAt(x, begins, lengths, axis, "T_split");
}

int64_t SliceLength(int64_t extent, int64_t begin, int64_t end, int64_t stride, int64_t* start) {
  if (stride == 0) throw std::invalid_argument("topi.strided_slice: a stride is 0");
  auto norm = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v += extent;
    return std::clamp(v, lo, hi);
  };
  int64_t b, e;
  if (stride > 0) {
    b = norm(begin, 0, extent);
    e = norm(end, 0, extent);
  } else {
    b = norm(begin, -1, extent - 1);
    e = end < -extent ? -1 : norm(end, -1, extent - 1);
  }
  *start = b;
  int64_t span = stride > 0 ? e - b : b - e;
  int64_t s = stride > 0 ? stride : -stride;
  return span <= 0 ? 0 : (span + s - 1) / s;
}

Tensor strided_slice(const Tensor& x, const std::vector<int64_t>& axes,
                     const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                     const std::vector<int64_t>& strides) {
  std::vector<PrimExpr> shape = x.shape();
  std::vector<int64_t> start(x.ndim(), 0), step(x.ndim(), 1);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t a = NormalizeAxis(axes[k], x.ndim(), "strided_slice");
    const int64_t* extent = tir::AsConstInt(x.shape()[a]);
    if (!extent) throw std::invalid_argument("topi.strided_slice: a sliced dim must be static");
    int64_t s = k < strides.size() ? strides[k] : 1;
    shape[a] = Index(SliceLength(*extent, begin[k], end[k], s, &start[a]));
    step[a] = s;
  }
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx;
        for (size_t d = 0; d < x.ndim(); ++d) {
          if (start[d] == 0 && step[d] == 1) {
            idx.push_back(i[d]);
          } else {
            idx.push_back(tir::add(Index(start[d]), tir::mul(i[d], Index(step[d]))));
          }
        }
        return x(idx);
      },
      "T_strided_slice_with_axes", kTagInjective);
}

namespace {

// A slice bound canonicalized as Python's: negative from the end, then clamped into range.
PrimExpr CanonicalBound(const PrimExpr& index, const PrimExpr& extent, const PrimExpr& stride) {
  PrimExpr negative = tir::less(stride, Index(0));
  PrimExpr lo = tir::MakeSelect(negative, Index(-1), Index(0));
  PrimExpr hi = tir::MakeSelect(negative, tir::sub(extent, Index(1)), extent);
  PrimExpr i = tir::MakeSelect(tir::less(index, Index(0)), tir::add(index, extent), index);
  return tir::min(tir::max(i, lo), hi);
}

void CheckSliceOperands(const Tensor& x, const Tensor& begin, const Tensor& end, const Tensor& strides) {
  for (const Tensor* t : {&begin, &end, &strides}) {
    const int64_t* n = t->ndim() == 1 ? tir::AsConstInt(t->shape()[0]) : nullptr;
    if (!n || *n != static_cast<int64_t>(x.ndim())) {
      throw std::invalid_argument("topi.dynamic_strided_slice: begin, end and strides must be 1-D with one value per "
                                  "axis of the data");
    }
  }
}

}  // namespace

Tensor shape_func_dynamic_strided_slice(const Tensor& x, const Tensor& begin, const Tensor& end,
                                        const Tensor& strides) {
  CheckSliceOperands(x, begin, end, strides);
  return te::compute(
      {Index(static_cast<int64_t>(x.ndim()))},
      [&](const std::vector<Var>& i) {
        PrimExpr extent = Index(-1);
        for (size_t d = 0; d < x.ndim(); ++d) {
          extent = tir::MakeSelect(tir::equal(i[0], Index(static_cast<int64_t>(d))), tir::cast(extent->dtype, x.shape()[d]),
                                   extent);
        }
        PrimExpr s = strides(std::vector<PrimExpr>{i[0]});
        PrimExpr b = CanonicalBound(begin(std::vector<PrimExpr>{i[0]}), extent, s);
        PrimExpr e = CanonicalBound(end(std::vector<PrimExpr>{i[0]}), extent, s);
        // ceildiv(n, m) for m > 0 is floordiv(n + m - 1, m).
        PrimExpr up = tir::floordiv(tir::add(tir::sub(e, b), tir::sub(s, Index(1))), s);
        PrimExpr down = tir::floordiv(tir::sub(tir::sub(b, e), tir::add(s, Index(1))), tir::neg(s));
        PrimExpr n = tir::MakeSelect(tir::less(s, Index(0)), down, up);
        return tir::max(n, Index(0));
      },
      "T_shape_func_strided_slice_dynamic", kTagInjective);
}

Tensor dynamic_strided_slice(const Tensor& x, const Tensor& begin, const Tensor& end, const Tensor& strides,
                             const std::vector<PrimExpr>& output_shape) {
  CheckSliceOperands(x, begin, end, strides);
  if (output_shape.size() != x.ndim()) {
    throw std::invalid_argument("topi.dynamic_strided_slice: the output shape must have the data's rank");
  }
  return te::compute(
      output_shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx;
        for (size_t d = 0; d < x.ndim(); ++d) {
          PrimExpr at = Index(static_cast<int64_t>(d));
          PrimExpr s = strides(std::vector<PrimExpr>{at});
          PrimExpr extent = tir::cast(ir::DataType::Int(64), x.shape()[d]);
          PrimExpr b = CanonicalBound(begin(std::vector<PrimExpr>{at}), extent, s);
          idx.push_back(tir::add(b, tir::mul(tir::cast(ir::DataType::Int(64), i[d]), s)));
        }
        return x(idx);
      },
      "T_dynamic_strided_slice", kTagInjective);
}

Tensor one_hot(const Tensor& indices, const PrimExpr& on_value, const PrimExpr& off_value, int64_t depth,
               int64_t axis) {
  int64_t a = NormalizeAxis(axis, indices.ndim() + 1, "one_hot");
  std::vector<PrimExpr> shape = indices.shape();
  shape.insert(shape.begin() + a, Index(depth));
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx;
        for (size_t d = 0; d < i.size(); ++d) {
          if (static_cast<int64_t>(d) != a) idx.push_back(i[d]);
        }
        PrimExpr k = indices(idx);
        return tir::MakeSelect(tir::equal(k, tir::cast(k->dtype, i[a])), on_value, tir::cast(on_value->dtype, off_value));
      },
      "T_one_hot", kTagInjective);
}

namespace {

// take's kernel: `index_at` gives the index read at the indices' coordinates (`ni` of them).
Tensor TakeAlong(const Tensor& x, const std::vector<PrimExpr>& index_shape,
                 const std::function<PrimExpr(const std::vector<PrimExpr>&)>& index_at, int64_t axis,
                 const std::string& mode) {
  if (mode != "fast" && mode != "clip" && mode != "wrap") {
    throw std::invalid_argument("topi.take: mode " + mode + " is not one of fast, clip, wrap");
  }
  int64_t a = NormalizeAxis(axis, x.ndim(), "take");
  std::vector<PrimExpr> shape;
  for (int64_t d = 0; d < a; ++d) shape.push_back(x.shape()[d]);
  for (const PrimExpr& d : index_shape) shape.push_back(d);
  for (size_t d = a + 1; d < x.ndim(); ++d) shape.push_back(x.shape()[d]);
  size_t ni = index_shape.size();
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx_of_indices(i.begin() + a, i.begin() + a + ni);
        std::vector<PrimExpr> idx;
        for (int64_t d = 0; d < a; ++d) idx.push_back(i[d]);
        PrimExpr k = index_at(idx_of_indices);
        PrimExpr extent = tir::cast(k->dtype, x.shape()[a]);
        if (mode == "clip") {
          k = tir::min(tir::max(k, tir::make_const(k->dtype, int64_t(0))),
                       tir::sub(extent, tir::make_const(k->dtype, int64_t(1))));
        } else if (mode == "wrap") {
          k = tir::floormod(k, extent);
        }
        idx.push_back(k);
        for (size_t d = a + ni; d < i.size(); ++d) idx.push_back(i[d]);
        return x(idx);
      },
      "T_take", kTagInjective);
}

}  // namespace

Tensor take(const Tensor& x, const Tensor& indices, std::optional<int64_t> axis,
            const std::string& mode) {
  if (!axis) return take(flatten(x), indices, 0, mode);
  return TakeAlong(x, indices.shape(), [&](const std::vector<PrimExpr>& i) { return indices(i); }, *axis, mode);
}

Tensor take(const Tensor& x, const PrimExpr& index, std::optional<int64_t> axis, const std::string& mode) {
  if (!axis) return take(flatten(x), index, 0, mode);
  return TakeAlong(x, {}, [&](const std::vector<PrimExpr>&) { return index; }, *axis, mode);
}

namespace {

// An index read from an index tensor, as int64, counted from the end when negative.
PrimExpr WrapIndex(const PrimExpr& index, const PrimExpr& extent) {
  PrimExpr i = tir::cast(ir::DataType::Int(64), index);
  return tir::MakeSelect(tir::less(i, Index(0)), tir::add(i, extent), i);
}


// A scatter in gather form: each output element reduces the updates that land on it (`land`
// gives, for the output index and the reduction vars, whether an update lands there and its
// value; one that does not is the reduction's identity) and combines the result with the data. "update" keeps the last landing update in
// row-major order of the reduction, as a sequential scatter would.
Tensor ScatterByLanding(const Tensor& data, const std::string& reduction, const std::vector<PrimExpr>& extents,
                        const std::function<std::pair<PrimExpr, PrimExpr>(const std::vector<Var>&,
                                                                            const std::vector<Var>&)>& land,
                        const std::string& name) {
  ir::DataType t = data.dtype();
  auto reduce_vars = [&] {
    std::vector<te::IterVar> rv;
    for (size_t k = 0; k < extents.size(); ++k) rv.push_back(te::reduce_axis(extents[k], "k" + std::to_string(k)));
    return rv;
  };
  auto vars_of = [](const std::vector<te::IterVar>& rv) {
    std::vector<Var> v;
    for (const auto& r : rv) v.push_back(r->var);
    return v;
  };
  if (reduction == "update") {
    te::CommReducerSpec last = te::MakeReducer(
        [](const std::vector<Var>& a, const std::vector<Var>& b) {
          PrimExpr later = tir::greater(b[0], a[0]);
          return std::vector<PrimExpr>{tir::MakeSelect(later, b[0], a[0]), tir::MakeSelect(later, b[1], a[1])};
        },
        {Index(-1), Const(t, 0)});
    std::vector<Tensor> found = te::compute_batch(
        data.shape(),
        [&](const std::vector<Var>& i) {
          std::vector<te::IterVar> rv = reduce_vars();
          std::vector<Var> r = vars_of(rv);
          auto [lands, value] = land(i, r);
          PrimExpr pos = tir::MakeSelect(lands, Ravel(std::vector<PrimExpr>(r.begin(), r.end()), extents), Index(-1));
          return last.Apply({pos, value}, rv);
        },
        name + "_found", kTagCommReduce);
    return te::compute(
        data.shape(),
        [&](const std::vector<Var>& i) {
          return tir::MakeSelect(tir::greater_equal(found[0](i), Index(0)), found[1](i), data(i));
        },
        name, kTagInjective);
  }
  PrimExpr identity;
  std::function<PrimExpr(PrimExpr, PrimExpr)> combine;
  if (reduction == "add") {
    identity = Const(t, 0), combine = [](PrimExpr a, PrimExpr b) { return tir::add(a, b); };
  } else if (reduction == "mul") {
    identity = Const(t, 1), combine = [](PrimExpr a, PrimExpr b) { return tir::mul(a, b); };
  } else if (reduction == "max") {
    identity = te::min_value(t), combine = [](PrimExpr a, PrimExpr b) { return tir::max(a, b); };
  } else if (reduction == "min") {
    identity = te::max_value(t), combine = [](PrimExpr a, PrimExpr b) { return tir::min(a, b); };
  } else {
    throw std::invalid_argument(name.substr(2) + ": reduction " + reduction +
                                " is not supported (update, add, mul, max, min)");
  }
  te::CommReducerSpec reducer = te::MakeReducer(
      [&](const std::vector<Var>& a, const std::vector<Var>& b) { return std::vector<PrimExpr>{combine(a[0], b[0])}; },
      {identity});
  std::vector<Tensor> acc = te::compute_batch(
      data.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<te::IterVar> rv = reduce_vars();
        auto [lands, value] = land(i, vars_of(rv));
        return reducer.Apply({tir::MakeSelect(lands, value, identity)}, rv);
      },
      name + "_acc", kTagCommReduce);
  return te::compute(
      data.shape(), [&](const std::vector<Var>& i) { return combine(data(i), acc[0](i)); }, name, kTagInjective);
}

}  // namespace

Tensor scatter_elements(const Tensor& x, const Tensor& indices, const Tensor& updates, int64_t axis,
                        const std::string& reduction) {
  int64_t a = NormalizeAxis(axis, x.ndim(), "scatter_elements");
  if (indices.ndim() != x.ndim() || updates.ndim() != x.ndim()) {
    throw std::invalid_argument("scatter_elements: the data, indices and updates must have one rank");
  }
  const std::vector<PrimExpr>& is = indices.shape();
  return ScatterByLanding(
      x, reduction, {is[a]},
      [&](const std::vector<Var>& i, const std::vector<Var>& r) {
        // The update at q = i with q[axis] = k lands on i when indices[q] is i[axis]; q's other
        // coordinates must be inside the indices (clamped for the read, checked in the condition).
        std::vector<PrimExpr> q;
        PrimExpr inside = tir::make_const(ir::DataType::Bool(), int64_t(1));
        for (size_t d = 0; d < x.ndim(); ++d) {
          if (static_cast<int64_t>(d) == a) {
            q.push_back(r[0]);
          } else {
            q.push_back(tir::min(i[d], tir::sub(is[d], Index(1))));
            inside = tir::logical_and(inside, tir::less(i[d], is[d]));
          }
        }
        PrimExpr lands = tir::logical_and(inside, tir::equal(WrapIndex(indices(q), x.shape()[a]), i[a]));
        return std::pair{lands, updates(q)};
      },
      "T_scatter_elements");
}

Tensor scatter_nd(const Tensor& x, const Tensor& indices, const Tensor& updates, const std::string& reduction) {
  const int64_t* k = indices.ndim() ? tir::AsConstInt(indices.shape().back()) : nullptr;
  if (!k || *k < 1 || *k > static_cast<int64_t>(x.ndim())) throw std::invalid_argument("scatter_nd: bad index depth");
  std::vector<PrimExpr> outer(indices.shape().begin(), indices.shape().end() - 1);
  if (outer.empty()) outer.push_back(Index(1));
  bool scalar_outer = indices.ndim() == 1;
  return ScatterByLanding(
      x, reduction, outer,
      [&](const std::vector<Var>& i, const std::vector<Var>& r) {
        std::vector<PrimExpr> at;
        if (!scalar_outer) at.assign(r.begin(), r.end());
        PrimExpr lands = tir::make_const(ir::DataType::Bool(), int64_t(1));
        for (int64_t d = 0; d < *k; ++d) {
          std::vector<PrimExpr> where = at;
          where.push_back(Index(d));
          lands = tir::logical_and(lands, tir::equal(WrapIndex(indices(where), x.shape()[d]), i[d]));
        }
        std::vector<PrimExpr> u = at;
        for (size_t d = *k; d < x.ndim(); ++d) u.push_back(i[d]);
        return std::pair{lands, updates(u)};
      },
      "T_scatter_nd");
}

Tensor gather_elements(const Tensor& x, const Tensor& indices, int64_t axis) {
  int64_t a = NormalizeAxis(axis, x.ndim(), "gather_elements");
  return te::compute(
      indices.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> idx(i.begin(), i.end());
        idx[a] = WrapIndex(indices(std::vector<PrimExpr>(i.begin(), i.end())), x.shape()[a]);
        return x(idx);
      },
      "T_gather_elements", kTagInjective, {}, te::AxisNames("ax", indices.ndim()));
}

Tensor gather_nd(const Tensor& x, const Tensor& indices) {
  const int64_t* k = tir::AsConstInt(indices.shape().back());
  if (!k || *k > static_cast<int64_t>(x.ndim())) throw std::invalid_argument("gather_nd: bad index depth");
  std::vector<PrimExpr> shape(indices.shape().begin(), indices.shape().end() - 1);
  for (size_t d = *k; d < x.ndim(); ++d) shape.push_back(x.shape()[d]);
  size_t outer = indices.ndim() - 1;
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        std::vector<PrimExpr> at(i.begin(), i.begin() + outer);
        std::vector<PrimExpr> idx;
        for (int64_t d = 0; d < *k; ++d) {
          std::vector<PrimExpr> where = at;
          where.push_back(Index(d));
          idx.push_back(WrapIndex(indices(where), x.shape()[d]));
        }
        for (size_t d = outer; d < i.size(); ++d) idx.push_back(i[d]);
        return x(idx);
      },
      "T_gather_nd", kTagInjective, {}, te::AxisNames("ax", shape.size()));
}

}  // namespace wb::topi
