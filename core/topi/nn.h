// Neural-network operators (TVM's topi/nn): softmax, normalizations, padding, convolution and
// pooling, with TVM's stage names ("T_softmax_maxelem", "pad_temp", "conv2d_nchw",
// "pool_max", ...).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "te/tensor.h"

namespace wb::topi {

using ir::DataType;
using ir::PrimExpr;
using te::Tensor;

// softmax along `axis`: T_softmax_maxelem, T_softmax_exp, T_softmax_expsum, T_softmax_norm.
Tensor softmax(const Tensor& x, int64_t axis);
// log(softmax(x)) computed as x - max - log(sum(exp(x - max))).
Tensor log_softmax(const Tensor& x, int64_t axis);

// (x - mean) / sqrt(var + eps) * gamma + beta over `axes` (TVM's one-pass form: a two-value
// reduction of x and x*x, then "T_layer_norm"). gamma/beta may be undefined (scale/center off).
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                  const std::vector<int64_t>& axes, double epsilon);
// x / sqrt(mean(x*x over axes) + eps) * weight ("T_rms_norm").
Tensor rms_norm(const Tensor& x, const Tensor& weight, const std::vector<int64_t>& axes,
                double epsilon);
// Group normalization: the channels on `channel_axis` split into `num_groups` groups; each
// group of each sample normalized over its channels and `axes` (one-pass mean and variance, as
// layer_norm), then * gamma[c] + beta[c] (either may be undefined). num_groups 0: one channel a
// group (instance normalization). "T_group_norm" / "T_instance_norm".
Tensor group_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, int64_t num_groups,
                  int64_t channel_axis, const std::vector<int64_t>& axes, double epsilon);
// Inference batch norm along `axis`: (x - moving_mean) / sqrt(moving_var + eps) * gamma + beta;
// also returns copies of moving_mean and moving_var (the op's other two results).
std::vector<Tensor> batch_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                               const Tensor& moving_mean, const Tensor& moving_var, int64_t axis,
                               double epsilon, bool center, bool scale);

// Pads with `pad_value` (`before`/`after` per dim); stage `name`, axes i0, i1, ...
Tensor pad(const Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           const PrimExpr& pad_value, const std::string& name = "PadInput");

struct Conv2DParams {
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> padding = {0, 0, 0, 0};  // top, left, bottom, right
  std::vector<int64_t> dilation = {1, 1};
  int64_t groups = 1;
  std::string data_layout = "NCHW";    // or NHWC
  std::string kernel_layout = "OIHW";  // or HWIO (with NHWC)
  DataType out_dtype = DataType::Void();
};
Tensor conv2d(const Tensor& data, const Tensor& weight, const Conv2DParams& params);

struct Conv1DParams {
  int64_t stride = 1;
  std::vector<int64_t> padding = {0, 0};  // left, right
  int64_t dilation = 1;
  int64_t groups = 1;
  DataType out_dtype = DataType::Void();
};
// NCW data, OIW weight: out[n, f, x] sums data[n, c, x * stride + rx * dilation - pad_left] *
// weight[f, c, rx] over the input channels c of f's group ("conv1d_ncw", "group_conv1d_ncw").
Tensor conv1d(const Tensor& data, const Tensor& weight, const Conv1DParams& params);

struct Conv2DTransposeParams {
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> padding = {0, 0, 0, 0};  // top, left, bottom, right
  std::vector<int64_t> output_padding = {0, 0};
  std::vector<int64_t> dilation = {1, 1};
  int64_t groups = 1;
  DataType out_dtype = DataType::Void();
};
// NCHW data, IOHW weight: out[n, f, y, x] sums data[n, c, iy, ix] * weight[c, f % O, ry, rx]
// over the input channels c of f's group and the kernel window, where y + pad_top - ry * dilation
// = iy * stride (the positions that conv2d with these attributes would have read).
// "conv2d_transpose_nchw".
Tensor conv2d_transpose(const Tensor& data, const Tensor& weight, const Conv2DTransposeParams& params);

// x where x >= 0, alpha[i[axis]] * x elsewhere ("compute").
Tensor prelu(const Tensor& x, const Tensor& alpha, int64_t axis);

struct Pool2DParams {
  std::vector<int64_t> pool_size = {1, 1};
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> dilation = {1, 1};
  std::vector<int64_t> padding = {0, 0, 0, 0};
  bool ceil_mode = false;
  bool count_include_pad = false;
  std::string layout = "NCHW";  // or NHWC
};
Tensor max_pool2d(const Tensor& data, const Pool2DParams& params);
Tensor avg_pool2d(const Tensor& data, const Pool2DParams& params);
// Average over adaptive windows: output element i covers [floor(i*H/OH), ceil((i+1)*H/OH)).
Tensor adaptive_avg_pool2d(const Tensor& data, std::vector<int64_t> output_size,
                           const std::string& layout = "NCHW");

struct AttentionParams {
  std::optional<double> scale;  // default 1 / sqrt(head_dim)
  std::string causal_mask;      // "", "TopLeft" or "BottomRight"
};
// Multi-head attention over BSNH q (B, S, N, H), k (B, L, Nk, H), v (B, L, Nk, Hv), N a multiple
// of Nk (query head h reads key/value head h / (N / Nk)): out (B, S, N, Hv) is
// softmax(q k^T * scale + bias) v over the keys j a causal mask allows (TopLeft: j <= i,
// BottomRight: j <= i + |S - L|). `bias` (null: none) is 4-D, broadcast to (B, N, S, L).
Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* bias,
                 const AttentionParams& params);

}  // namespace wb::topi
