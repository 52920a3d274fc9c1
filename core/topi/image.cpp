#include "topi/image.h"

#include <stdexcept>

#include "tir/op.h"
#include "topi/util.h"

namespace wb::topi {

namespace {

using ir::DataType;
using ir::PrimExpr;

const DataType kF32 = DataType::Float(32);

PrimExpr F(double v) { return Const(kF32, v); }

// The input coordinate of output coordinate `o` along an axis of `in` -> `out` elements.
PrimExpr SourceCoordinate(const std::string& mode, const PrimExpr& o, const PrimExpr& in, const PrimExpr& out) {
  PrimExpr of = tir::cast(kF32, o), inf = tir::cast(kF32, in), outf = tir::cast(kF32, out);
  PrimExpr half = tir::sub(tir::div(tir::mul(tir::add(of, F(0.5)), inf), outf), F(0.5));
  if (mode == "half_pixel") return half;
  if (mode == "pytorch_half_pixel") return tir::MakeSelect(tir::greater(out, Index(1)), half, F(0.0));
  if (mode == "asymmetric") return tir::div(tir::mul(of, inf), outf);
  if (mode == "align_corners") {
    PrimExpr ratio = tir::div(tir::sub(inf, F(1)), tir::max(tir::sub(outf, F(1)), F(1)));
    return tir::MakeSelect(tir::greater(out, Index(1)), tir::mul(of, ratio), F(0.0));
  }
  throw std::invalid_argument("resize2d: coordinate_transformation_mode " + mode +
                              " is not supported (half_pixel, pytorch_half_pixel, align_corners, asymmetric)");
}

PrimExpr Rounded(const std::string& method, const PrimExpr& c) {
  if (method == "round") return Intrin("round", {c});
  if (method == "floor") return Intrin("floor", {c});
  if (method == "ceil") return Intrin("ceil", {c});
  if (method == "round_prefer_floor") return Intrin("ceil", {tir::sub(c, F(0.5))});
  if (method == "round_prefer_ceil") return Intrin("floor", {tir::add(c, F(0.5))});
  throw std::invalid_argument("resize2d: rounding_method " + method +
                              " is not supported (round, floor, ceil, round_prefer_floor, round_prefer_ceil)");
}

// An int64 index clamped to [0, extent).
PrimExpr Clamp(const PrimExpr& i, const PrimExpr& extent) {
  return tir::max(tir::min(i, tir::sub(extent, Index(1))), Index(0));
}

}  // namespace

te::Tensor resize2d(const te::Tensor& data, const PrimExpr& out_height, const PrimExpr& out_width,
                    const Resize2DParams& p) {
  if (data.ndim() != 4) throw std::invalid_argument("resize2d: the data must be 4-D");
  size_t h, w;
  if (p.layout == "NCHW") {
    h = 2, w = 3;
  } else if (p.layout == "NHWC") {
    h = 1, w = 2;
  } else {
    throw std::invalid_argument("resize2d: layout " + p.layout + " is not supported (NCHW or NHWC)");
  }
  bool linear = p.method == "linear";
  if (!linear && p.method != "nearest_neighbor") {
    throw std::invalid_argument("resize2d: method " + p.method + " is not supported (nearest_neighbor or linear)");
  }
  std::string rounding = p.rounding_method;
  if (rounding.empty()) rounding = p.coordinate_transformation_mode == "align_corners" ? "round" : "floor";
  const std::string& mode = p.coordinate_transformation_mode;
  SourceCoordinate(mode, Index(0), Index(1), Index(1));  // rejects an unknown mode before compute
  if (!linear) Rounded(rounding, F(0));
  DataType out_dtype = p.out_dtype.is_void() ? data.dtype() : p.out_dtype;
  std::vector<PrimExpr> shape = data.shape();
  PrimExpr in_h = shape[h], in_w = shape[w];
  shape[h] = out_height;
  shape[w] = out_width;
  return te::compute(
      shape,
      [&](const std::vector<tir::Var>& i) {
        PrimExpr cy = SourceCoordinate(mode, i[h], in_h, out_height);
        PrimExpr cx = SourceCoordinate(mode, i[w], in_w, out_width);
        std::vector<PrimExpr> idx(i.begin(), i.end());
        if (!linear) {
          idx[h] = Clamp(tir::cast(DataType::Int(64), Rounded(rounding, cy)), in_h);
          idx[w] = Clamp(tir::cast(DataType::Int(64), Rounded(rounding, cx)), in_w);
          return tir::cast(out_dtype, data(idx));
        }
        PrimExpr fy = Intrin("floor", {cy}), fx = Intrin("floor", {cx});
        PrimExpr ty = tir::sub(cy, fy), tx = tir::sub(cx, fx);
        PrimExpr y0 = tir::cast(DataType::Int(64), fy), x0 = tir::cast(DataType::Int(64), fx);
        auto at = [&](const PrimExpr& y, const PrimExpr& x) {
          idx[h] = Clamp(y, in_h);
          idx[w] = Clamp(x, in_w);
          return tir::cast(kF32, data(idx));
        };
        auto lerp = [](const PrimExpr& a, const PrimExpr& b, const PrimExpr& t) {
          return tir::add(tir::mul(a, tir::sub(F(1), t)), tir::mul(b, t));
        };
        PrimExpr y1 = tir::add(y0, Index(1)), x1 = tir::add(x0, Index(1));
        PrimExpr top = lerp(at(y0, x0), at(y0, x1), tx);
        PrimExpr bottom = lerp(at(y1, x0), at(y1, x1), tx);
        return tir::cast(out_dtype, lerp(top, bottom, ty));
      },
      "resize", kTagInjective);
}

}  // namespace wb::topi
