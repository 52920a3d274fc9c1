// Reductions over axes (TVM's topi/reduction.h): sum, max, min, prod and argmax keep or drop
// the reduced axes (keepdims); no axes means every axis. A reduction of `x` is one stage
// "<x>_red" with reduction axes k<i> named after the reduced dim; argmax is the two-value stage
// "<x>_red_temp" (index, value) and the stage "<x>_red" taking its index. mean divides the sum
// by the number of reduced elements ("T_divide").
#pragma once

#include <optional>
#include <vector>

#include "te/tensor.h"

namespace wb::topi {

using te::Tensor;

enum class ReduceKind { kSum, kMax, kMin, kProd };

// `axes` nullopt: every axis. Negative axes count from the end.
Tensor reduce(ReduceKind kind, const Tensor& x, const std::optional<std::vector<int64_t>>& axes,
              bool keepdims);
inline Tensor sum(const Tensor& x, const std::optional<std::vector<int64_t>>& axes, bool keepdims) {
  return reduce(ReduceKind::kSum, x, axes, keepdims);
}
Tensor mean(const Tensor& x, const std::optional<std::vector<int64_t>>& axes, bool keepdims);
// The int64 position of the first largest element along `axis` (nullopt: of the flattened
// tensor).
Tensor argmax(const Tensor& x, std::optional<int64_t> axis, bool keepdims);
// The int64 position of the first smallest element ("<x>_red_temp", "<x>_red" as argmax).
Tensor argmin(const Tensor& x, std::optional<int64_t> axis, bool keepdims);
// The population variance mean((x - mean(x))^2) over `axes` (TVM's relax.variance).
Tensor variance(const Tensor& x, const std::optional<std::vector<int64_t>>& axes, bool keepdims);

// The population standard deviation sqrt(variance) ("compute" over variance's stages).
Tensor std_dev(const Tensor& x, const std::optional<std::vector<int64_t>>& axes, bool keepdims);
// The sum of x over the axes that broadcasting `target_shape` to x's shape would stretch (TVM's
// topi.collapse_sum): target_shape right-aligned with x's; an axis of x is reduced where the
// target has no dim or a 1 against a larger dim. Stage "<x>_red" (x itself copied when nothing
// is reduced, as TVM's identity). The shapes must be static.
Tensor collapse_sum(const Tensor& x, const std::vector<ir::PrimExpr>& target_shape);

// The running sum along `axis` (inclusive, or exclusive of the element itself), in `dtype`
// (Void: x's). One stage "T_cumsum" summing select(k <= i, x, 0) over the axis; quadratic in
// the axis length.
Tensor cumsum(const Tensor& x, int64_t axis, ir::DataType dtype, bool exclusive);

// The sorted, de-duplicated, non-negative axes of a reduction over `ndim` dims.
std::vector<int64_t> ReduceAxes(const std::optional<std::vector<int64_t>>& axes, size_t ndim,
                                const char* op);

}  // namespace wb::topi
