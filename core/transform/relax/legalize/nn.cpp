// Legalization of the relax.nn family: activations, softmax, convolution and pooling of any
// spatial rank, normalization and dropout.
#include "topi/nn.h"

#include "ir/structural_equal.h"
#include "relax/op/registry.h"
#include "tir/op.h"
#include "topi/elemwise.h"
#include "topi/loss.h"
#include "topi/reduction.h"
#include "topi/transform.h"
#include "transform/relax/legalize/common.h"

namespace wb::transform::legalize {

namespace {

using relax::AttrBool;
using relax::AttrDataType;
using relax::AttrFloat;
using relax::AttrInt;
using relax::AttrInts;
using relax::AttrString;

LegalizeFunc Activation(te::Tensor (*f)(const te::Tensor&), const char* name) {
  return [f, name](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    return te.Emit(f(te.Tensor(call, 0)), name);
  };
}

// The op's output layout must be its input layout: the kernels here write in the input's.
void SameOutLayout(const Call& call, const char* in_attr) {
  std::string out = AttrString(call, "out_layout");
  if (!out.empty() && out != AttrString(call, in_attr)) {
    throw LegalizeError("out_layout " + out + " differs from " + AttrString(call, in_attr));
  }
}

topi::PoolParams PoolParams(const Call& call) {
  SameOutLayout(call, "layout");
  topi::PoolParams p;
  p.pool_size = AttrInts(call, "pool_size");
  p.strides = AttrInts(call, "strides");
  p.dilation = AttrInts(call, "dilation");
  p.padding = AttrInts(call, "padding");
  p.ceil_mode = AttrBool(call, "ceil_mode");
  p.count_include_pad = AttrBool(call, "count_include_pad");
  p.layout = AttrString(call, "layout");
  return p;
}

// conv1d / conv2d / conv3d through topi.conv, the layouts as the call gives them.
Expr LegalizeConv(BlockBuilder& bb, const Call& call, const std::string& name) {
  SameOutLayout(call, "data_layout");
  TECall te(bb);
  te::Tensor data = te.Tensor(call, 0);
  te::Tensor weight = te.Tensor(call, 1);
  topi::ConvParams p;
  p.strides = AttrInts(call, "strides");
  p.padding = AttrInts(call, "padding");
  p.dilation = AttrInts(call, "dilation");
  p.groups = AttrInt(call, "groups");
  p.data_layout = AttrString(call, "data_layout");
  p.kernel_layout = AttrString(call, "kernel_layout");
  p.out_dtype = AttrDataType(call, "out_dtype");
  try {
    return te.Emit(topi::conv(data, weight, p), name);
  } catch (const std::invalid_argument& e) {
    throw LegalizeError(e.what());
  }
}

// conv1d/2d/3d_transpose: channels-first layouts only (NCW / IOW, NCHW / IOHW, NCDHW / IODHW).
Expr LegalizeConvTranspose(BlockBuilder& bb, const Call& call, const std::string& name, const std::string& data_layout,
                           const std::string& kernel_layout) {
  SameOutLayout(call, "data_layout");
  if (AttrString(call, "data_layout") != data_layout || AttrString(call, "kernel_layout") != kernel_layout) {
    throw LegalizeError(name + " layouts " + AttrString(call, "data_layout") + "/" + AttrString(call, "kernel_layout") +
                        " are not supported (" + data_layout + "/" + kernel_layout + " is)");
  }
  TECall te(bb);
  te::Tensor data = te.Tensor(call, 0);
  te::Tensor weight = te.Tensor(call, 1);
  topi::ConvTransposeParams p;
  p.strides = AttrInts(call, "strides");
  p.padding = AttrInts(call, "padding");
  p.output_padding = AttrInts(call, "output_padding");
  p.dilation = AttrInts(call, "dilation");
  p.groups = AttrInt(call, "groups");
  p.out_dtype = AttrDataType(call, "out_dtype");
  try {
    return te.Emit(topi::conv_transpose(data, weight, p), name);
  } catch (const std::invalid_argument& e) {
    throw LegalizeError(e.what());
  }
}

}  // namespace

void RegisterNN(LegalizeTable& table) {
  table["relax.nn.relu"] = Activation(&topi::relu, "relu");
  table["relax.nn.gelu"] = Activation(&topi::gelu, "gelu");
  table["relax.nn.silu"] = Activation(&topi::silu, "silu");
  table["relax.nn.gelu_tanh"] = Activation(&topi::gelu_tanh, "gelu_tanh");
  // batch_flatten is a reshape to the inferred (N, rest) shape; unknown shapes stay as they are.
  table["relax.nn.batch_flatten"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    const relax::TensorTypeNode* out = OutputTensorType(call);
    if (!out->shape) throw LegalizeError("the output shape is not known");
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    return te.Emit(topi::reshape(x, te.Dims(*out->shape)), "reshape");
  };
  // -sum(x * y), divided by the batch (the first dim) when there is one.
  table["relax.nn.cross_entropy_with_logits"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0), y = te.Tensor(call, 1);
    te::Tensor loss = topi::multiply(topi::sum(topi::multiply(x, y), std::nullopt, false),
                                     tir::make_const(x.dtype(), -1.0));
    if (x.ndim() > 1) loss = topi::divide(loss, tir::cast(x.dtype(), x.shape()[0]));
    return te.Emit(loss, "cross_entropy_with_logits");
  };
  // Named as TVM names it: "nll_loss_backward", "te_nll_loss_backward_no_weight" (every class
  // weighs 1, a T_full stage).
  table["relax.grad.nll_loss_backward"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor grad = te.Tensor(call, 0), pred = te.Tensor(call, 1), targets = te.Tensor(call, 2);
    bool weighted = call->args.size() > 3;
    te::Tensor weights =
        weighted ? te.Tensor(call, 3)
                 : topi::full({pred.shape()[pred.ndim() > 1 ? 1 : 0]}, pred.dtype(), tir::make_const(pred.dtype(), 1.0));
    try {
      return te.Emit(topi::nll_loss_backward(grad, pred, targets, weights, AttrString(call, "reduction"),
                                             AttrInt(call, "ignore_index")),
                     weighted ? "nll_loss_backward" : "te_nll_loss_backward_no_weight");
    } catch (const std::invalid_argument& e) {
      throw LegalizeError(e.what());
    }
  };
  // Without weights every class weighs 1 (a T_full stage), as TVM's legalization builds it.
  table["relax.nn.nll_loss"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor pred = te.Tensor(call, 0), targets = te.Tensor(call, 1);
    bool weighted = call->args.size() > 2;
    te::Tensor weights =
        weighted ? te.Tensor(call, 2)
                 : topi::full({pred.shape()[pred.ndim() > 1 ? 1 : 0]}, pred.dtype(), tir::make_const(pred.dtype(), 1.0));
    try {
      return te.Emit(topi::nll_loss(pred, targets, weights, AttrString(call, "reduction"), AttrInt(call, "ignore_index")),
                     weighted ? "nll_loss" : "nll_loss_without_weight");
    } catch (const std::invalid_argument& e) {
      throw LegalizeError(e.what());
    }
  };
  table["relax.nn.leakyrelu"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    return te.Emit(topi::leaky_relu(te.Tensor(call, 0), AttrFloat(call, "alpha")), "leaky_relu");
  };
  table["relax.nn.softplus"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    return te.Emit(topi::softplus(te.Tensor(call, 0), AttrFloat(call, "beta"), AttrFloat(call, "threshold")),
                   "softplus");
  };
  table["relax.nn.pad"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    if (AttrString(call, "pad_mode") != "constant") {
      throw LegalizeError("pad_mode " + AttrString(call, "pad_mode") + " is not supported (only constant)");
    }
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    std::vector<int64_t> width = AttrInts(call, "pad_width"), before, after;
    for (size_t i = 0; i + 1 < width.size(); i += 2) {
      before.push_back(width[i]);
      after.push_back(width[i + 1]);
    }
    return te.Emit(topi::pad(x, before, after, tir::make_const(x.dtype(), AttrFloat(call, "pad_value")), "PadInput"),
                   "pad");
  };
  table["relax.nn.softmax"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    return te.Emit(topi::softmax(te.Tensor(call, 0), AttrInt(call, "axis")), "softmax");
  };
  table["relax.nn.log_softmax"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    return te.Emit(topi::log_softmax(te.Tensor(call, 0), AttrInt(call, "axis")), "log_softmax");
  };
  for (const char* name : {"relax.nn.attention", "relax.nn.attention_bias"}) {
    table[name] = [](BlockBuilder& bb, const Call& call) -> Expr {
      if (!AttrIsNone(call, "window_size")) {
        throw LegalizeError("sliding-window attention (window_size) has no TensorIR lowering");
      }
      TECall te(bb);
      te::Tensor q = te.Tensor(call, 0), k = te.Tensor(call, 1), v = te.Tensor(call, 2);
      std::optional<te::Tensor> bias;
      if (call->args.size() > 3) bias = te.Tensor(call, 3);
      topi::AttentionParams p;
      if (auto it = call->attrs.find("scale"); it != call->attrs.end() && it->second.defined()) {
        if (auto* f = it->second.as<tir::FloatImmNode>()) p.scale = f->value;
        if (auto* f = it->second.as<ir::FloatObj>()) p.scale = f->value;
      }
      p.causal_mask = AttrString(call, "causal_mask");
      try {
        // TVM's composition where key and value have the query's heads; grouped heads (fewer
        // key/value heads) in one kernel of our own.
        bool same_heads = ir::StructuralEqual(q.shape()[2], k.shape()[2]) &&
                          ir::StructuralEqual(q.shape()[2], v.shape()[2]);
        std::string name = bias ? "attention_bias" : "attention";
        if (same_heads) return te.Emit(topi::attention_composed(q, k, v, bias ? &*bias : nullptr, p), name);
        return te.Emit(topi::attention(q, k, v, bias ? &*bias : nullptr, p), name);
      } catch (const std::invalid_argument& e) {
        throw LegalizeError(e.what());
      }
    };
  }
  for (const char* name : {"conv1d", "conv2d", "conv3d"}) {
    table[std::string("relax.nn.") + name] = [name](BlockBuilder& bb, const Call& call) {
      return LegalizeConv(bb, call, name);
    };
  }
  table["relax.nn.conv1d_transpose"] = [](BlockBuilder& bb, const Call& call) {
    return LegalizeConvTranspose(bb, call, "conv1d_transpose", "NCW", "IOW");
  };
  table["relax.nn.conv2d_transpose"] = [](BlockBuilder& bb, const Call& call) {
    return LegalizeConvTranspose(bb, call, "conv2d_transpose", "NCHW", "IOHW");
  };
  table["relax.nn.conv3d_transpose"] = [](BlockBuilder& bb, const Call& call) {
    return LegalizeConvTranspose(bb, call, "conv3d_transpose", "NCDHW", "IODHW");
  };
  table["relax.nn.prelu"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    te::Tensor alpha = te.Tensor(call, 1);
    return te.Emit(topi::prelu(x, alpha, AttrInt(call, "axis")), "prelu");
  };
  for (const char* rank : {"1d", "2d", "3d"}) {
    std::string max = std::string("max_pool") + rank, avg = std::string("avg_pool") + rank;
    table["relax.nn." + max] = [max](BlockBuilder& bb, const Call& call) -> Expr {
      topi::PoolParams p = PoolParams(call);
      TECall te(bb);
      try {
        return te.Emit(topi::max_pool(te.Tensor(call, 0), p), max);
      } catch (const std::invalid_argument& e) {
        throw LegalizeError(e.what());
      }
    };
    table["relax.nn." + avg] = [avg](BlockBuilder& bb, const Call& call) -> Expr {
      topi::PoolParams p = PoolParams(call);
      TECall te(bb);
      try {
        return te.Emit(topi::avg_pool(te.Tensor(call, 0), p), avg);
      } catch (const std::invalid_argument& e) {
        throw LegalizeError(e.what());
      }
    };
  }
  table["relax.nn.adaptive_avg_pool2d"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    SameOutLayout(call, "layout");
    std::vector<int64_t> size;
    if (!relax::AttrIsNone(call, "output_size")) size = AttrInts(call, "output_size");
    TECall te(bb);
    return te.Emit(topi::adaptive_avg_pool2d(te.Tensor(call, 0), size, AttrString(call, "layout")),
                   "adaptive_avg_pool2d");
  };
  table["relax.nn.layer_norm"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    te::Tensor gamma = te.Tensor(call, 1);
    te::Tensor beta = te.Tensor(call, 2);
    if (!AttrBool(call, "scale")) gamma = te::Tensor();
    if (!AttrBool(call, "center")) beta = te::Tensor();
    return te.Emit(
        topi::layer_norm(x, gamma, beta, AttrInts(call, "axes"), AttrFloat(call, "epsilon")),
        "layer_norm");
  };
  for (const char* name : {"relax.nn.group_norm", "relax.nn.instance_norm"}) {
    bool grouped = std::string_view(name) == "relax.nn.group_norm";
    table[name] = [grouped](BlockBuilder& bb, const Call& call) -> Expr {
      TECall te(bb);
      te::Tensor x = te.Tensor(call, 0);
      te::Tensor gamma = te.Tensor(call, 1);
      te::Tensor beta = te.Tensor(call, 2);
      if (!AttrBool(call, "scale")) gamma = te::Tensor();
      if (!AttrBool(call, "center")) beta = te::Tensor();
      try {
        return te.Emit(topi::group_norm(x, gamma, beta, grouped ? AttrInt(call, "num_groups") : 0,
                                        AttrInt(call, "channel_axis"), AttrInts(call, "axes"),
                                        AttrFloat(call, "epsilon")),
                       grouped ? "group_norm" : "instance_norm");
      } catch (const std::invalid_argument& e) {
        throw LegalizeError(e.what());
      }
    };
  }
  table["relax.nn.rms_norm"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    te::Tensor w = te.Tensor(call, 1);
    return te.Emit(topi::rms_norm(x, w, AttrInts(call, "axes"), AttrFloat(call, "epsilon")),
                   "rms_norm");
  };
  table["relax.nn.batch_norm"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    std::vector<te::Tensor> in;
    for (size_t i = 0; i < 5; ++i) in.push_back(te.Tensor(call, i));
    return te.Emit(topi::batch_norm(in[0], in[1], in[2], in[3], in[4], AttrInt(call, "axis"),
                                    AttrFloat(call, "epsilon"), AttrBool(call, "center"),
                                    AttrBool(call, "scale"), AttrBool(call, "training"),
                                    AttrFloat(call, "momentum")),
                   "batch_norm");
  };
  table["relax.nn.dropout"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    // Inference: the output is the input and the mask is all ones.
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    te::Tensor out = te::compute(
        x.shape(), [&](const std::vector<tir::Var>& i) { return x(i); }, "T_dropout");
    te::Tensor mask = topi::full(x.shape(), x.dtype(), tir::make_const(x.dtype(), 1.0));
    return te.Emit(std::vector<te::Tensor>{out, mask}, "dropout");
  };
}

}  // namespace wb::transform::legalize
