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

// (x - mean) / sqrt(var + eps) * gamma + beta over `axes`, in TVM's two passes ("<x>_sum",
// "<x>_mean", "<x>_var_sum" of the squared deviations, then "T_layer_norm"; float16 data
// accumulates in float32). gamma/beta may be undefined (scale/center off).
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
// Training: the batch's mean and (biased) variance over every axis but `axis` normalize instead,
// and the other two results are the updated running statistics
// (1 - momentum) * moving + momentum * batch, in the stages TVM's topi composes (x_red,
// T_divide, T_reshape, T_subtract, ...).
std::vector<Tensor> batch_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                               const Tensor& moving_mean, const Tensor& moving_var, int64_t axis,
                               double epsilon, bool center, bool scale, bool training = false,
                               double momentum = 0.1);

// Pads with `pad_value` (`before`/`after` per dim); stage `name`, axes i0, i1, ...
Tensor pad(const Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           const PrimExpr& pad_value, const std::string& name = "PadInput");
// The same with widths that may be symbolic (a transposed convolution's kernel - 1).
Tensor pad(const Tensor& x, const std::vector<PrimExpr>& before, const std::vector<PrimExpr>& after,
           const PrimExpr& pad_value, const std::string& name = "PadInput");
// Spreads x by `strides` per dim, zeros between (TVM's topi.nn.dilate): out[i] = x[i / s] where
// every i is a multiple of its s; the shape (n - 1) * s + 1.
Tensor dilate(const Tensor& x, const std::vector<int64_t>& strides, const std::string& name = "DilatedInput");

// Convolution over 1 to 3 spatial axes (3-D to 5-D operands). The layouts name where batch (N),
// channels (C) and the spatial axes (W; H, W; D, H, W) are, in any order: NCW, NCHW, NHWC,
// NCDHW, ...; the kernel's likewise with O (output channels) and I (input channels per group):
// OIW, OIHW, HWIO, OIDHW, ... Strides and dilation hold one value per spatial axis (or one for
// all); padding the befores then the afters (or one value for every side, or one per axis for
// both sides).
struct ConvParams {
  std::vector<int64_t> strides = {1};
  std::vector<int64_t> padding = {0};
  std::vector<int64_t> dilation = {1};
  int64_t groups = 1;
  std::string data_layout = "NCHW";
  std::string kernel_layout = "OIHW";
  DataType out_dtype = DataType::Void();
};
// out[n, f, p...] sums data[n, c, p * stride + r * dilation - pad_before] * weight[f, c, r...]
// over the input channels c of f's group and the kernel taps r, as TVM's topi.nn.conv names it:
// "conv1d_ncw", "conv2d_nchw", "conv2d_nhwc", "conv3d_ncdhw" ("group_" before when grouped), its
// axes nn, ff, yy, xx, zz and taps ry, rx, rz; zero padding is the stage "pad_temp".
Tensor conv(const Tensor& data, const Tensor& weight, const ConvParams& params);

struct ConvTransposeParams {
  std::vector<int64_t> strides = {1};
  std::vector<int64_t> padding = {0};  // befores then afters, as ConvParams
  std::vector<int64_t> output_padding = {0};
  std::vector<int64_t> dilation = {1};
  int64_t groups = 1;
  DataType out_dtype = DataType::Void();
};
// The gradient of conv with respect to its input, over 1 or more spatial axes: NCW / NCHW /
// NCDHW data, IOW / IOHW / IODHW weight. out[n, f, p...] sums data[n, c, q...] * weight[c, f % O,
// r...] over the input channels c of f's group and the taps r, where p + pad_before - r *
// dilation = q * stride (the positions that conv with these attributes would have read). Built
// as TVM's topi builds it: a dilated kernel for dilation > 1 ("kernel_dilate"), the data dilated
// by the strides and padded ("data_dilate", "data_pad"), the kernel transposed and mirrored
// ("kernel" in 1-D, else "kernel_transform"), and a direct convolution ("compute").
Tensor conv_transpose(const Tensor& data, const Tensor& weight, const ConvTransposeParams& params);

// x where x >= 0, alpha[i[axis]] * x elsewhere ("compute").
Tensor prelu(const Tensor& x, const Tensor& alpha, int64_t axis);

// Max and average pooling over 1 to 3 spatial axes; the layout and the per-axis attributes as
// ConvParams reads them. ceil_mode covers the last partial window; count_include_pad divides an
// average by the whole window, else by its taps inside the data. Stages "pad_temp", "pool_max" /
// "pool_sum" and "pool_avg", window axes rv0, rv1, rv2.
struct PoolParams {
  std::vector<int64_t> pool_size = {1};
  std::vector<int64_t> strides = {1};
  std::vector<int64_t> dilation = {1};
  std::vector<int64_t> padding = {0};
  bool ceil_mode = false;
  bool count_include_pad = false;
  std::string layout = "NCHW";
};
Tensor max_pool(const Tensor& data, const PoolParams& params);
Tensor avg_pool(const Tensor& data, const PoolParams& params);
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
// The same in the stages TVM's legalization composes (transposes to BNSH, reshapes to
// (B * N, S, H), T_batch_matmul_NT, scale, bias, softmax or the trilu-masked softmax,
// T_batch_matmul_NN, back to BSNH); key and value have the query's heads.
Tensor attention_composed(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* bias,
                          const AttentionParams& params);
Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* bias,
                 const AttentionParams& params);

}  // namespace wb::topi
