// Loss functions (TVM's topi/nn/loss.h): the negative log-likelihood loss.
#pragma once

#include <string>

#include "te/tensor.h"

namespace wb::topi {

using te::Tensor;

// nll_loss over predictions (N, C, d1, ..., dk) or (C,) with int targets (N, d1, ..., dk) or ()
// and per-class weights (C,): each element -predictions[n, t, d...] * weights[t] where t is its
// target (0 where t is ignore_index), stage "nll_loss". reduction "none" gives those; "sum" their
// sum ("nll_loss_red"); "mean" the sum divided by the sum of the weights taken ("T_divide"),
// the no-batch form dividing the one element by its weight.
Tensor nll_loss(const Tensor& predictions, const Tensor& targets, const Tensor& weights,
                const std::string& reduction, int64_t ignore_index);

// The gradient of nll_loss with respect to the predictions (TVM's Relax legalization of
// relax.grad.nll_loss_backward): pred_grad[n, c, d...] = -w[t] * g[n, d...] where c is the
// target t of (n, d...), 0 elsewhere; w is the weights with the ignored class zeroed
// ("weights_new", when ignore_index >= 0) taken per target ("all_weights"); g is output_grad
// broadcast to the targets' shape ("sum"), also divided by the sum of all_weights ("mean"), or
// output_grad itself ("none").
Tensor nll_loss_backward(const Tensor& output_grad, const Tensor& predictions, const Tensor& targets, Tensor weights,
                         const std::string& reduction, int64_t ignore_index);

}  // namespace wb::topi
