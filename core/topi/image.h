// Image operators (TVM's topi/image): 2-D resize by nearest neighbor or bilinear interpolation.
#pragma once

#include <string>

#include "te/tensor.h"

namespace wb::topi {

struct Resize2DParams {
  std::string layout = "NCHW";  // or NHWC
  std::string method = "linear";  // or nearest_neighbor
  // half_pixel, pytorch_half_pixel, align_corners or asymmetric: how an output coordinate maps
  // to the input's.
  std::string coordinate_transformation_mode = "half_pixel";
  // nearest_neighbor's rounding of the input coordinate: round (ties to even), floor, ceil,
  // round_prefer_floor, round_prefer_ceil; "" picks round with align_corners, else floor.
  std::string rounding_method = "round";
  ir::DataType out_dtype = ir::DataType::Void();  // Void: the data's
};
// The data resized to (out_height, out_width); coordinates in float32, the neighbors clamped to
// the image (edge values outside it). std::invalid_argument names an unsupported parameter.
// "resize".
te::Tensor resize2d(const te::Tensor& data, const ir::PrimExpr& out_height, const ir::PrimExpr& out_width,
                    const Resize2DParams& params);

}  // namespace wb::topi
