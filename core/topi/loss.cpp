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

}  // namespace wb::topi
