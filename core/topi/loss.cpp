#include "topi/loss.h"

#include <stdexcept>
#include <vector>

#include "tir/op.h"
#include "topi/broadcast.h"
#include "topi/reduction.h"
#include "topi/util.h"

namespace wb::topi {

Tensor nll_loss(const Tensor& predictions, const Tensor& targets, const Tensor& weights,
                const std::string& reduction, int64_t ignore_index) {
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    throw std::invalid_argument("topi.nll_loss: reduction must be none, sum or mean, got " + reduction);
  }
  DataType t = predictions.dtype();
  PrimExpr zero = tir::make_const(t, 0.0);
  auto kept = [&](const PrimExpr& c) {
    return tir::not_equal(c, tir::make_const(c->dtype, ignore_index));
  };
  // One loss term per target element, and the weight it is counted with.
  auto per_target = [&](bool weight_only) {
    return te::compute(
        targets.shape(),
        [&](const std::vector<tir::Var>& i) {
          std::vector<PrimExpr> ti(i.begin(), i.end());
          PrimExpr c = targets(ti);
          PrimExpr w = weights(std::vector<PrimExpr>{c});
          if (weight_only) return tir::MakeSelect(kept(c), w, zero);
          std::vector<PrimExpr> pi;
          if (predictions.ndim() == 1) {
            pi = {c};
          } else {
            pi = {ti[0], c};
            pi.insert(pi.end(), ti.begin() + 1, ti.end());
          }
          // TVM's negation, 0 - x.
          return tir::MakeSelect(kept(c), tir::mul(tir::sub(zero, predictions(pi)), w), zero);
        },
        "nll_loss", kTagBroadcast);
  };
  Tensor loss = per_target(false);
  if (predictions.ndim() == 1) {
    if (reduction != "mean") return loss;
    return divide(loss, per_target(true));
  }
  if (reduction == "none") return loss;
  if (reduction == "sum") return sum(loss, std::nullopt, false);
  Tensor weight = per_target(true);
  return divide(sum(loss, std::nullopt, false), sum(weight, std::nullopt, false));
}

Tensor nll_loss_backward(const Tensor& output_grad, const Tensor& predictions, const Tensor& targets, Tensor weights,
                         const std::string& reduction, int64_t ignore_index) {
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    throw std::invalid_argument("topi.nll_loss_backward: reduction must be none, sum or mean, got " + reduction);
  }
  DataType t = predictions.dtype();
  if (ignore_index >= 0) {
    Tensor w = weights;
    weights = te::compute(
        w.shape(),
        [&](const std::vector<tir::Var>& i) {
          return tir::MakeSelect(tir::equal(i[0], tir::make_const(i[0]->dtype, ignore_index)),
                                 tir::make_const(w.dtype(), 0.0), w(std::vector<PrimExpr>{i[0]}));
        },
        "weights_new");
  }
  Tensor all_weights = te::compute(
      targets.shape(),
      [&](const std::vector<tir::Var>& i) {
        return weights(std::vector<PrimExpr>{targets(std::vector<PrimExpr>(i.begin(), i.end()))});
      },
      "all_weights");
  Tensor grad = output_grad;
  if (reduction == "sum") {
    grad = broadcast_to(output_grad, targets.shape());
  } else if (reduction == "mean") {
    Tensor weight_sum = targets.ndim() == 0 ? all_weights : sum(all_weights, std::nullopt, false);
    grad = divide(broadcast_to(output_grad, targets.shape()), weight_sum);
  }
  return te::compute(
      predictions.shape(),
      [&](const std::vector<tir::Var>& i) {
        // The target's position: the predictions' index without the class axis.
        std::vector<PrimExpr> ti;
        if (predictions.ndim() > 1) {
          ti.push_back(i[0]);
          ti.insert(ti.end(), i.begin() + 2, i.end());
        }
        PrimExpr klass = predictions.ndim() > 1 ? PrimExpr(i[1]) : PrimExpr(i[0]);
        // Read in TVM's order: the target, the weight, the gradient.
        PrimExpr hit = tir::equal(klass, targets(ti));
        PrimExpr w = tir::neg(all_weights(ti));
        PrimExpr value = tir::mul(w, grad(ti));
        return tir::MakeSelect(hit, value, tir::make_const(t, 0.0));
      },
      "pred_grad");
}

}  // namespace wb::topi
