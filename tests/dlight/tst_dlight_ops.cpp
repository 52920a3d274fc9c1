// The default CPU schedules on every kernel the Relax op set and the bundled examples legalize
// to: one case (or more) per op with a lowering, at odd sizes (primes, 1, non-multiples of the
// vector width) and symbolic dims, each kernel scheduled for an AVX2 and an AVX-512 target
// description and the host, its trace replayed, and its result compared with the unscheduled
// kernel's in the interpreter and, for the host, compiled (dlight_test_util.h). Which rule each
// kernel gets is checked too, so that a kernel falling to the Fallback is a decision written
// here, not an accident.
#include <QDir>
#include <QFile>
#include <QTest>
#include <map>
#include <set>

#include "dlight_test_util.h"
#include "relax/op/registry.h"
#include "transform/relax/legalize_ops.h"

using namespace wb;
using namespace wb::dlight::testing;

namespace {

struct OpCase {
  std::string name;
  std::vector<std::string> ops;  // the Relax ops it covers ("relax.add")
  std::vector<TensorParam> params;
  std::vector<std::string> lines;
  // The rules of its kernels (joined by "+", in the module's order), the same on every target.
  std::string rules;
  bool fuse = false;
  IntRange ints = {};
  int64_t symbolic = 5;  // every symbolic dim's value
};

std::vector<OpCase> Cases() {
  std::vector<OpCase> cases;
  auto add = [&](OpCase c) { cases.push_back(std::move(c)); };
  const std::vector<std::string> binary = {
      "add",     "subtract", "multiply", "divide",        "floor_divide", "power",
      "maximum", "minimum",  "equal",    "not_equal",     "less",         "less_equal",
      "greater", "greater_equal", "floor_mod", "mod"};
  for (const std::string& op : binary) {
    add({op, {"relax." + op}, {{"x", {"3", "17"}}, {"y", {"17"}}}, {"gv = R." + op + "(x, y)"},
         "Injective"});
  }
  for (const std::string& op : {"logical_and", "logical_or", "logical_xor"}) {
    add({op, {std::string("relax.") + op},
         {{"x", {"n", "13"}, "bool"}, {"y", {"n", "13"}, "bool"}},
         {std::string("gv = R.") + op + "(x, y)"}, "Injective"});
  }
  add({"atan2", {"relax.atan2"}, {{"x", {"3", "17"}}, {"y", {"3", "17"}}}, {"gv = R.atan2(x, y)"},
       "Injective"});
  add({"add_int32_symbolic", {"relax.add"}, {{"x", {"n", "9"}, "int32"}, {"y", {"1", "9"}, "int32"}},
       {"gv = R.add(x, y)"}, "Injective"});
  const std::vector<std::string> unary = {
      "negative", "exp",  "log",   "sqrt", "rsqrt", "tanh",  "sigmoid", "abs",   "erf",  "floor",
      "ceil",     "trunc", "sin",  "cos",  "tan",   "sinh",  "cosh",    "asin",  "acos", "atan",
      "asinh",    "acosh", "atanh", "square", "sign", "round", "isnan",  "isinf", "isfinite"};
  for (const std::string& op : unary) {
    add({op, {"relax." + op}, {{"x", {"3", "19"}}}, {"gv = R." + op + "(x)"}, "Injective"});
  }
  add({"exp_symbolic", {"relax.exp"}, {{"x", {"n", "40"}}}, {"gv = R.exp(x)"}, "Injective"});
  add({"logical_not", {"relax.logical_not"}, {{"x", {"5", "7"}, "bool"}}, {"gv = R.logical_not(x)"},
       "Injective"});
  add({"clip", {"relax.clip"}, {{"x", {"4", "33"}}},
       {"gv = R.clip(x, R.prim_value(T.float32(-1.0)), R.prim_value(T.float32(1.0)))"},
       "Injective"});
  add({"astype", {"relax.astype"}, {{"x", {"3", "24"}}}, {"gv = R.astype(x, dtype=\"float16\")"},
       "Injective"});
  add({"astype_int", {"relax.astype"}, {{"x", {"n", "5"}, "int32"}},
       {"gv = R.astype(x, dtype=\"float32\")"}, "Injective"});
  add({"where", {"relax.where"}, {{"c", {"3", "17"}, "bool"}, {"x", {"3", "17"}}, {"y", {"17"}}},
       {"gv = R.where(c, x, y)"}, "Injective"});
  add({"quantize", {"relax.quantize"}, {{"x", {"3", "16"}}, {"s", {"16"}}, {"z", {"16"}, "int8"}},
       {"gv = R.quantize(x, s, z, out_dtype=\"int8\", axis=-1)"}, "Injective"});
  add({"dequantize", {"relax.dequantize"},
       {{"q", {"3", "16"}, "int8"}, {"s", {"16"}}, {"z", {"16"}, "int8"}},
       {"gv = R.dequantize(q, s, z, out_dtype=\"float32\", axis=-1)"}, "Injective"});
  // Linear algebra (the shapes of tst_dlight's matmul cases are many more).
  add({"matmul_odd", {"relax.matmul"}, {{"x", {"5", "7"}}, {"w", {"7", "13"}}},
       {"gv = R.matmul(x, w)"}, "Matmul"});
  add({"einsum_batch", {"relax.einsum"}, {{"a", {"2", "3", "5"}}, {"b", {"2", "5", "16"}}},
       {"gv = R.einsum((a, b), subscripts=\"bij,bjk->bik\")"}, "Matmul"});
  add({"einsum_outer", {"relax.einsum"}, {{"a", {"7"}}, {"b", {"9"}}},
       {"gv = R.einsum((a, b), subscripts=\"i,j->ji\")"}, "Injective"});
  // Manipulation.
  add({"reshape", {"relax.reshape"}, {{"x", {"2", "3", "10"}}},
       {"gv = R.reshape(x, R.shape([6, 10]))"}, "Injective"});
  add({"flatten", {"relax.flatten"}, {{"x", {"2", "3", "5"}}}, {"gv = R.flatten(x)"}, "Injective"});
  add({"permute_dims", {"relax.permute_dims"}, {{"x", {"n", "3", "17"}}},
       {"gv = R.permute_dims(x, [2, 0, 1])"}, "Injective"});
  add({"expand_dims", {"relax.expand_dims"}, {{"x", {"3", "17"}}},
       {"gv = R.expand_dims(x, axis=[1])"}, "Injective"});
  add({"squeeze", {"relax.squeeze"}, {{"x", {"3", "1", "17"}}}, {"gv = R.squeeze(x, axis=[1])"},
       "Injective"});
  add({"concat", {"relax.concat"}, {{"x", {"3", "17"}}, {"y", {"5", "17"}}},
       {"gv = R.concat((x, y), axis=0)"}, "Injective"});
  add({"split", {"relax.split"}, {{"x", {"3", "18"}}},
       {"lv = R.split(x, indices_or_sections=3, axis=1)", "gv = lv[1]"}, "Injective"});
  add({"strided_slice", {"relax.strided_slice"}, {{"x", {"9", "17"}}},
       {"gv = R.strided_slice(x, axes=[0, 1], begin=[1, 2], end=[8, 15], strides=[2, 3])"},
       "Injective"});
  add({"take_clip", {"relax.take"}, {{"x", {"7", "17"}}, {"i", {"5"}, "int64"}},
       {"gv = R.take(x, i, axis=0, mode=\"clip\")"}, "Injective", false, {-9, 9}});
  add({"take_fast", {"relax.take"}, {{"x", {"7", "17"}}, {"i", {"n"}, "int64"}},
       {"gv = R.take(x, i, axis=0, mode=\"fast\")"}, "Injective", false, {0, 6}});
  add({"one_hot", {"relax.one_hot"}, {{"i", {"3", "5"}, "int32"}},
       {"gv = R.one_hot(i, R.prim_value(T.float32(2.5)), R.prim_value(T.float32(-1.0)), depth=4, "
        "axis=1)"},
       "Injective", false, {-1, 4}});
  add({"flip", {"relax.flip"}, {{"x", {"3", "17"}}}, {"gv = R.flip(x, axis=-1)"}, "Injective"});
  add({"reverse_sequence", {"relax.reverse_sequence"}, {{"x", {"5", "3", "4"}}, {"s", {"3"}, "int64"}},
       {"gv = R.reverse_sequence(x, s, seq_axis=0, batch_axis=1)"}, "Injective", false, {0, 6}});
  add({"layout_transform", {"relax.layout_transform"}, {{"x", {"3", "10", "4"}}},
       {"gv = R.layout_transform(x, index_map=T.index_map(lambda a, b, c: (a, c, b // 4, b % 4)), "
        "pad_value=1)"},
       "Injective"});
  add({"broadcast_to", {"relax.broadcast_to"}, {{"x", {"1", "9"}}},
       {"gv = R.broadcast_to(x, R.shape([5, 9]))"}, "Injective"});
  add({"gather_elements", {"relax.gather_elements"},
       {{"x", {"4", "9"}}, {"i", {"4", "5"}, "int64"}}, {"gv = R.gather_elements(x, i, axis=1)"},
       "Injective", false, {0, 8}});
  add({"gather_nd", {"relax.gather_nd"}, {{"x", {"4", "9"}}, {"i", {"3", "2"}, "int64"}},
       {"gv = R.gather_nd(x, i)"}, "Injective", false, {0, 3}});
  add({"scatter_elements", {"relax.scatter_elements"},
       {{"x", {"4", "9"}}, {"i", {"4", "3"}, "int64"}, {"u", {"4", "3"}}},
       {"gv = R.scatter_elements(x, i, u, axis=1, reduction=\"add\")"}, "Fallback", false, {0, 8}});
  add({"scatter_nd", {"relax.scatter_nd"},
       {{"x", {"4", "9"}}, {"i", {"3", "1"}, "int64"}, {"u", {"3", "9"}}},
       {"gv = R.scatter_nd(x, i, u, reduction=\"update\")"}, "Reduction", false, {0, 3}});
  // Its slicing kernel's output dims are symbolic: 1 keeps every read in bounds for bounds and
  // strides in [1, 2].
  add({"dynamic_strided_slice", {"relax.dynamic_strided_slice"},
       {{"x", {"4", "6"}}, {"b", {"2"}, "int64"}, {"e", {"2"}, "int64"}, {"s", {"2"}, "int64"}},
       {"gv = R.dynamic_strided_slice(x, b, e, s)"}, "Injective+Injective", false, {1, 2}, 1});
  add({"repeat", {"relax.repeat"}, {{"x", {"3", "5"}}}, {"gv = R.repeat(x, 3, axis=1)"},
       "Injective"});
  add({"tile", {"relax.tile"}, {{"x", {"3", "5"}}}, {"gv = R.tile(x, [2, 3])"}, "Injective"});
  add({"sort", {"relax.sort"}, {{"x", {"3", "11"}}}, {"gv = R.sort(x, axis=-1, descending=False)"},
       "Fallback"});
  // Whole vectors of columns: the ranks and the gather by rank vectorized along the columns.
  add({"sort_vectors", {"relax.sort"}, {{"x", {"3", "32"}}},
       {"gv = R.sort(x, axis=-1, descending=True)"}, "Fallback"});
  add({"argsort_vectors", {"relax.argsort"}, {{"x", {"2", "16"}}},
       {"gv = R.argsort(x, axis=-1, descending=False, dtype=\"int32\")"}, "Fallback"});
  add({"topk_vectors", {"relax.topk"}, {{"x", {"2", "32"}}},
       {"gv = R.topk(x, k=16, axis=-1, ret_type=\"values\", largest=False, dtype=\"int32\")"},
       "Fallback"});
  add({"argsort", {"relax.argsort"}, {{"x", {"3", "11"}}},
       {"gv = R.argsort(x, axis=-1, descending=True, dtype=\"int32\")"}, "Fallback"});
  add({"topk", {"relax.topk"}, {{"x", {"3", "11"}}},
       {"gv = R.topk(x, k=3, axis=-1, ret_type=\"values\", largest=True, dtype=\"int32\")"},
       "Fallback"});
  // Neural network.
  add({"relu", {"relax.nn.relu"}, {{"x", {"n", "17"}}}, {"gv = R.nn.relu(x)"}, "Injective"});
  add({"gelu", {"relax.nn.gelu"}, {{"x", {"3", "17"}}}, {"gv = R.nn.gelu(x)"}, "Injective"});
  add({"silu", {"relax.nn.silu"}, {{"x", {"3", "17"}}}, {"gv = R.nn.silu(x)"}, "Injective"});
  add({"leakyrelu", {"relax.nn.leakyrelu"}, {{"x", {"3", "17"}}},
       {"gv = R.nn.leakyrelu(x, alpha=0.1)"}, "Injective"});
  add({"softplus", {"relax.nn.softplus"}, {{"x", {"3", "17"}}},
       {"gv = R.nn.softplus(x, beta=1.0, threshold=20.0)"}, "Injective"});
  add({"prelu", {"relax.nn.prelu"}, {{"x", {"1", "3", "5", "7"}}, {"a", {"3"}}},
       {"gv = R.nn.prelu(x, a, axis=1)"}, "Injective"});
  add({"pad", {"relax.nn.pad"}, {{"x", {"1", "3", "5", "7"}}},
       {"gv = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 2, 2, 1], pad_mode=\"constant\", pad_value=0.5)"},
       "Injective"});
  add({"softmax_odd", {"relax.nn.softmax"}, {{"x", {"5", "13"}}}, {"gv = R.nn.softmax(x, axis=-1)"},
       "Reduction"});
  // Over a leading axis: read along the output's contiguous axis, not a row (the Fallback's
  // vector along the output, the reduction outside it).
  add({"softmax_axis0", {"relax.nn.softmax"}, {{"x", {"6", "11"}}}, {"gv = R.nn.softmax(x, axis=0)"},
       "Fallback"});
  add({"log_softmax", {"relax.nn.log_softmax"}, {{"x", {"n", "24"}}},
       {"gv = R.nn.log_softmax(x, axis=-1)"}, "Reduction"});
  add({"layer_norm", {"relax.nn.layer_norm"}, {{"x", {"3", "17"}}, {"g", {"17"}}, {"b", {"17"}}},
       {"gv = R.nn.layer_norm(x, g, b, axes=[-1])"}, "Reduction"});
  add({"rms_norm", {"relax.nn.rms_norm"}, {{"x", {"n", "24"}}, {"g", {"24"}}},
       {"gv = R.nn.rms_norm(x, g, axes=[-1])"}, "Reduction"});
  // TVM's legalized form: a reshape to (n, groups, channels of a group, ..), one reduction of
  // the sum and the sum of squares, the reshape back (reverse-inlined).
  add({"group_norm", {"relax.nn.group_norm"},
       {{"x", {"2", "4", "3", "5"}}, {"g", {"4"}}, {"b", {"4"}}},
       {"gv = R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2, 3])"}, "Reduction"});
  // Rows of groups: the channel loop split by the group size, 4 channels a group.
  add({"group_norm_rows", {"relax.nn.group_norm"},
       {{"x", {"2", "8", "3", "16"}}, {"g", {"8"}}, {"b", {"8"}}},
       {"gv = R.nn.group_norm(x, g, b, num_groups=2, channel_axis=1, axes=[2, 3])"}, "Reduction"});
  add({"instance_norm", {"relax.nn.instance_norm"},
       {{"x", {"2", "3", "4", "5"}}, {"g", {"3"}}, {"b", {"3"}}},
       {"gv = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2, 3])"}, "Reduction"});
  add({"batch_norm", {"relax.nn.batch_norm"},
       {{"x", {"2", "3", "4", "5"}}, {"g", {"3"}}, {"b", {"3"}}, {"m", {"3"}}, {"v", {"3"}}},
       {"lv = R.nn.batch_norm(x, g, b, m, v, axis=1, training=False)", "gv = lv[0]"},
       "Injective"});
  add({"dropout", {"relax.nn.dropout"}, {{"x", {"3", "17"}}},
       {"lv = R.nn.dropout(x, rate=0.5)", "gv = lv[0]"}, "Injective"});
  add({"conv1d", {"relax.nn.conv1d"}, {{"x", {"1", "3", "19"}}, {"w", {"4", "3", "3"}}},
       {"gv = R.nn.conv1d(x, w, strides=[2], padding=[1, 1])"}, "Conv2d"});
  // 10 outputs wide: no whole vectors along x; the vector runs along the 8 output channels.
  add({"conv1d_channels", {"relax.nn.conv1d"}, {{"x", {"1", "3", "12"}}, {"w", {"8", "3", "3"}}},
       {"gv = R.nn.conv1d(x, w)"}, "Conv2d"});
  // 5 output channels and 11 outputs wide: no vector of 4 lanes in either.
  add({"conv2d_odd", {"relax.nn.conv2d"}, {{"x", {"1", "3", "9", "11"}}, {"w", {"5", "3", "3", "3"}}},
       {"gv = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1])"}, "Fallback"});
  add({"conv3d", {"relax.nn.conv3d"}, {{"x", {"1", "2", "4", "5", "6"}}, {"w", {"3", "2", "2", "2", "2"}}},
       {"gv = R.nn.conv3d(x, w, padding=[1, 0, 1, 0, 1, 1])"}, "Fallback"});
  add({"conv3d_channels", {"relax.nn.conv3d"},
       {{"x", {"1", "2", "4", "5", "6"}}, {"w", {"8", "2", "2", "2", "2"}}},
       {"gv = R.nn.conv3d(x, w, padding=[1, 0, 1, 0, 1, 1])"}, "Conv2d"});
  // ResNet's last stage: 7x7, the vector along the output channels.
  add({"conv2d_7x7", {"relax.nn.conv2d"}, {{"x", {"1", "8", "7", "7"}}, {"w", {"16", "8", "3", "3"}}},
       {"lv = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])", "gv = R.nn.relu(lv)"}, "Conv2d", true});
  add({"conv1d_transpose", {"relax.nn.conv1d_transpose"},
       {{"x", {"1", "2", "6"}}, {"w", {"2", "3", "3"}}},
       {"gv = R.nn.conv1d_transpose(x, w, strides=[2], output_padding=[1])"}, "Fallback"});
  add({"conv2d_transpose", {"relax.nn.conv2d_transpose"},
       {{"x", {"1", "2", "5", "4"}}, {"w", {"2", "3", "3", "3"}}},
       {"gv = R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 1, 1, 1])"}, "Fallback"});
  add({"conv2d_transpose_channels", {"relax.nn.conv2d_transpose"},
       {{"x", {"1", "2", "5", "4"}}, {"w", {"2", "8", "3", "3"}}},
       {"gv = R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 1, 1, 1])"}, "Conv2d"});
  add({"conv3d_transpose", {"relax.nn.conv3d_transpose"},
       {{"x", {"1", "2", "3", "3", "3"}}, {"w", {"2", "3", "2", "2", "2"}}},
       {"gv = R.nn.conv3d_transpose(x, w, strides=[2, 2, 2])"}, "Fallback"});
  add({"max_pool1d", {"relax.nn.max_pool1d"}, {{"x", {"1", "2", "11"}}},
       {"gv = R.nn.max_pool1d(x, pool_size=[3], padding=[1, 1])"}, "Pool"});
  add({"avg_pool1d", {"relax.nn.avg_pool1d"}, {{"x", {"1", "2", "11"}}},
       {"gv = R.nn.avg_pool1d(x, pool_size=[2], strides=[2])"}, "Pool"});
  add({"max_pool3d", {"relax.nn.max_pool3d"}, {{"x", {"1", "2", "5", "5", "5"}}},
       {"gv = R.nn.max_pool3d(x, pool_size=[2, 2, 2], strides=[2, 2, 2], ceil_mode=True)"}, "Pool"});
  add({"avg_pool3d", {"relax.nn.avg_pool3d"}, {{"x", {"1", "2", "4", "4", "4"}}},
       {"gv = R.nn.avg_pool3d(x, pool_size=[3, 3, 3], padding=[1, 1, 1, 1, 1, 1])"}, "Pool"});
  add({"max_pool2d_odd", {"relax.nn.max_pool2d"}, {{"x", {"1", "3", "11", "13"}}},
       {"gv = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])"}, "Pool"});
  add({"avg_pool2d_odd", {"relax.nn.avg_pool2d"}, {{"x", {"1", "3", "11", "13"}}},
       {"gv = R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)"}, "Pool"});
  add({"adaptive_avg_pool2d", {"relax.nn.adaptive_avg_pool2d"}, {{"x", {"1", "3", "7", "9"}}},
       {"gv = R.nn.adaptive_avg_pool2d(x, output_size=[2, 4])"}, "Pool"});
  add({"attention", {"relax.nn.attention"},
       {{"q", {"1", "5", "2", "8"}}, {"k", {"1", "7", "2", "8"}}, {"v", {"1", "7", "2", "8"}}},
       {"gv = R.nn.attention(q, k, v)"}, "Fallback"});
  add({"attention_bias", {"relax.nn.attention_bias"},
       {{"q", {"1", "3", "2", "5"}}, {"k", {"1", "6", "2", "5"}}, {"v", {"1", "6", "2", "7"}},
        {"bias", {"1", "2", "3", "6"}}},
       {"gv = R.nn.attention_bias(q, k, v, bias, scale=T.float32(0.5), causal_mask=\"BottomRight\", "
        "window_size=None)"},
       "Fallback"});
  // Reductions.
  add({"sum_rows", {"relax.sum"}, {{"x", {"n", "19"}}}, {"gv = R.sum(x, axis=[1])"}, "Reduction"});
  // 95 elements: no whole vectors to accumulate in lanes.
  add({"sum_all", {"relax.sum"}, {{"x", {"5", "19"}}}, {"gv = R.sum(x)"}, "Fallback"});
  // Over every axis: vector partial results (rfactor); many elements: per chunk, in parallel.
  add({"sum_all_vectors", {"relax.sum"}, {{"x", {"6", "32"}}}, {"gv = R.sum(x)"}, "Reduction"});
  add({"max_all_keepdims", {"relax.max"}, {{"x", {"3", "4", "16"}}},
       {"gv = R.max(x, keepdims=True)"}, "Reduction"});
  add({"mean_all_parallel", {"relax.mean"}, {{"x", {"512", "384"}}}, {"gv = R.mean(x)"},
       "Reduction"});
  add({"sum_axis0", {"relax.sum"}, {{"x", {"5", "19"}}}, {"gv = R.sum(x, axis=[0])"}, "Fallback"});
  add({"sum_axis0_vectors", {"relax.sum"}, {{"x", {"5", "32"}}}, {"gv = R.sum(x, axis=[0])"},
       "Fallback"});
  add({"max_rows", {"relax.max"}, {{"x", {"3", "40"}}}, {"gv = R.max(x, axis=[-1])"}, "Reduction"});
  add({"min_rows", {"relax.min"}, {{"x", {"3", "17"}}}, {"gv = R.min(x, axis=[1], keepdims=True)"},
       "Reduction"});
  add({"prod_rows", {"relax.prod"}, {{"x", {"3", "17"}}}, {"gv = R.prod(x, axis=[1])"},
       "Reduction"});
  add({"mean_rows", {"relax.mean"}, {{"x", {"3", "17"}}}, {"gv = R.mean(x, axis=[1])"},
       "Reduction"});
  add({"std", {"relax.std"}, {{"x", {"3", "17"}}}, {"gv = R.std(x, axis=[1], keepdims=False)"}, "Reduction"});
  add({"gelu_tanh", {"relax.nn.gelu_tanh"}, {{"x", {"3", "17"}}}, {"gv = R.nn.gelu_tanh(x)"}, "Injective"});
  add({"batch_flatten", {"relax.nn.batch_flatten"}, {{"x", {"2", "3", "5"}}}, {"gv = R.nn.batch_flatten(x)"},
       "Injective"});
  add({"collapse_sum", {"relax.collapse_sum_like", "relax.collapse_sum_to"}, {{"x", {"3", "17"}}, {"y", {"1", "17"}}},
       {"a = R.collapse_sum_like(x, y)", "gv = R.collapse_sum_to(x, R.shape([17]))"}, "Fallback+Fallback"});
  add({"cross_entropy", {"relax.nn.cross_entropy_with_logits"}, {{"x", {"3", "17"}}, {"y", {"3", "17"}}},
       {"gv = R.nn.cross_entropy_with_logits(x, y)"}, "Fallback"});
  add({"nll_loss", {"relax.nn.nll_loss", "relax.grad.nll_loss_backward"},
       {{"x", {"3", "5"}}, {"t", {"3"}, "int64"}, {"w", {"5"}}},
       {"a = R.nn.nll_loss(x, t, w, reduction=\"mean\", ignore_index=-1)",
        "gv = R.grad.nll_loss_backward(a, x, t, w, reduction=\"mean\", ignore_index=-1)"},
       "Fallback+Fallback", false, {0, 4}});
  add({"variance", {"relax.variance"}, {{"x", {"3", "17"}}},
       {"gv = R.variance(x, axis=[1], keepdims=False)"}, "Reduction"});
  // Its mean kept as (n, 1) beside the (n,) sum of squares: the rows without the unit dims.
  add({"variance_symbolic_keepdims", {"relax.variance"}, {{"x", {"n", "64"}}},
       {"gv = R.variance(x, axis=[1], keepdims=True)"}, "Reduction"});
  add({"variance_symbolic", {"relax.variance"}, {{"x", {"n", "64"}}},
       {"gv = R.variance(x, axis=[-1])"}, "Reduction"});
  add({"argmax", {"relax.argmax"}, {{"x", {"3", "17"}}}, {"gv = R.argmax(x, axis=1, keepdims=False)"},
       "Reduction"});
  add({"argmin", {"relax.argmin"}, {{"x", {"3", "4", "5"}}},
       {"gv = R.argmin(x, axis=2, keepdims=False)"}, "Reduction"});
  add({"cumsum", {"relax.cumsum"}, {{"x", {"3", "17"}}}, {"gv = R.cumsum(x, axis=1)"}, "Reduction"});
  // Creation.
  add({"full_like", {"relax.full_like"}, {{"x", {"3", "17"}}},
       {"gv = R.full_like(x, R.const(1.5, \"float32\"))"}, "Injective"});
  add({"zeros_like", {"relax.zeros_like"}, {{"x", {"n", "17"}}}, {"gv = R.zeros_like(x)"},
       "Injective"});
  add({"ones_like", {"relax.ones_like"}, {{"x", {"3", "17"}}}, {"gv = R.ones_like(x)"},
       "Injective"});
  add({"tril", {"relax.tril"}, {{"x", {"5", "7"}}}, {"gv = R.tril(x, -1)"}, "Injective"});
  add({"triu", {"relax.triu"}, {{"x", {"5", "7"}}}, {"gv = R.triu(x, 1)"}, "Injective"});
  // A shape as a tensor: its known values written into the kernel.
  add({"shape_to_tensor", {"relax.shape_to_tensor"}, {{"x", {"3", "17"}}},
       {"gv = R.shape_to_tensor(R.shape_of(x))"}, "Injective"});
  // Image.
  add({"resize2d", {"relax.image.resize2d"}, {{"x", {"1", "2", "4", "6"}}},
       {"gv = R.image.resize2d(x, R.shape([5, 7]), method=\"linear\")"}, "Injective"});
  return cases;
}

}  // namespace

class TestDlightOps : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Every op with a lowering has a case here (a new op's kernels must be checked too). Ops whose
  // kernels need no program arguments (full, zeros, ones, arange) are covered by the kernels
  // they make: no inputs, so they are checked in allocations.
  void everyLegalizedOpHasACase() {
    std::set<std::string> covered;
    for (const OpCase& c : Cases()) covered.insert(c.ops.begin(), c.ops.end());
    for (const char* op : {"relax.full", "relax.zeros", "relax.ones", "relax.arange"})
      covered.insert(op);
    // The collectives lower to calls of the runtime's disco functions, not to kernels (the
    // reshape and transpose before a scatter are those ops' kernels).
    for (const char* op : {"relax.ccl.allreduce", "relax.ccl.allgather", "relax.ccl.broadcast_from_worker0",
                           "relax.ccl.scatter_from_worker0"})
      covered.insert(op);
    std::string missing;
    for (const relax::OpInfo* info : relax::AllOps()) {
      if (transform::HasLegalization(info->name) && !covered.count(info->name))
        missing += " " + info->name;
    }
    QVERIFY2(missing.empty(), ("ops with a lowering and no case:" + missing).c_str());
  }

  void ops_data() {
    QTest::addColumn<int>("index");
    std::vector<OpCase> cases = Cases();
    for (size_t i = 0; i < cases.size(); ++i)
      QTest::newRow(cases[i].name.c_str()) << static_cast<int>(i);
  }
  void ops() {
    QFETCH(int, index);
    const OpCase c = Cases()[static_cast<size_t>(index)];
    std::string relax = Program(c.params, c.lines);
    std::string rules = CheckAll(relax, c.fuse, "", c.symbolic, c.ints);
    std::string want;
    for (size_t t = 0; t < kTargets.size(); ++t) want += (t ? "," : "") + c.rules;
    QCOMPARE(QString::fromStdString(rules), QString::fromStdString(want));
  }

  // The kernels of the creation ops, which take no inputs.
  void creationOps() {
    for (const char* line : {"gv = R.full(R.shape([3, 17]), R.const(2.5, \"float32\"))",
                             "gv = R.zeros(R.shape([5, 9]), dtype=\"float32\")",
                             "gv = R.ones(R.shape([40]), dtype=\"int32\")"}) {
      // (R.arange of constants is folded into a constant by LegalizeOps, as in TVM: no kernel.)
      std::string relax = Program({{"x", {"1"}}}, {line});
      QCOMPARE(QString::fromStdString(CheckAll(relax, false)), QString("Injective,Injective,Injective"));
    }
  }

  // The bundled examples' kernels, as the build pipeline makes them (legalized, fused): each
  // scheduled and checked; a kernel that already carries a schedule is left as it is by the
  // build, and here too.
  void bundledExamples() {
    QDir dir(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/resources/examples");
    QStringList files = dir.entryList({"*.py"}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 5);
    int kernels = 0;
    for (const QString& file : files) {
      QFile f(dir.filePath(file));
      QVERIFY(f.open(QIODevice::ReadOnly));
      std::string text = f.readAll().toStdString();
      script::ParseResult parsed = script::Parse(text, file.toStdString());
      QVERIFY2(parsed.ok(), file.toLatin1().constData());
      DiagnosticList diags;
      auto pipeline =
          transform::BuildPipeline("LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR", diags);
      QVERIFY(pipeline.has_value());
      ir::IRModule lowered = (*pipeline)(parsed.module);
      for (size_t i = 0; i < lowered->size(); ++i) {
        auto func = lowered->functions[i].as_ref<tir::PrimFuncNode>();
        if (!func.defined() || dlight::IsScheduled(func)) continue;
        const std::string name = file.toStdString() + ":" + lowered->global_vars[i]->name_hint;
        for (const std::string& t : kTargets) {
          codegen::Target target = t == "host" ? codegen::Target::Host() : TargetOf(t);
          std::string rule = CheckKernel(name, func, target, t == "host", 5);
          QVERIFY2(!rule.empty(), (name + " on " + t).c_str());
          if (t == "host") qInfo("%s: %s", name.c_str(), rule.c_str());
        }
        ++kernels;
      }
    }
    QVERIFY(kernels >= 8);
  }
};

QTEST_APPLESS_MAIN(TestDlightOps)
#include "tst_dlight_ops.moc"
