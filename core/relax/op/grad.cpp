// Gradient ops (relax.grad.*) that training graphs use: nll_loss_backward, the gradient of
// nll_loss with respect to its predictions (the predictions' type).
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

OpInfo NLLLossBackward() {
  OpDef def;
  def.name = "relax.grad.nll_loss_backward";
  def.args = {"output_grad", "predictions", "targets", "weights"};
  def.optional_args = 1;
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.NLLLossAttrs";
  def.attrs = {StringAttr("reduction", "mean"), IntAttr("ignore_index", -100)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    TensorArg(types, 0, "the output gradient");
    const TensorTypeNode* pred = TensorArg(types, 1, "the predictions");
    const TensorTypeNode* tgt = TensorArg(types, 2, "the targets");
    if (types.size() > 3) TensorArg(types, 3, "the weights");
    std::string reduction = AttrString(call, "reduction");
    if (reduction != "none" && reduction != "sum" && reduction != "mean") {
      throw TypeError("reduction must be none, sum or mean, got " + reduction);
    }
    if (!tgt->IsUnknownDtype() && !tgt->dtype.is_integer()) {
      throw TypeError("the targets must have an integer dtype, got " + tgt->dtype.ToString());
    }
    if (!pred->IsUnknownNdim() && !tgt->IsUnknownNdim() && tgt->ndim != pred->ndim - 1) {
      throw TypeError("the targets have rank " + std::to_string(tgt->ndim) + " where the predictions' rank " +
                      std::to_string(pred->ndim) + " needs " + std::to_string(pred->ndim - 1));
    }
    return GetRef(pred);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(NLLLossBackward()),
};

}  // namespace
}  // namespace wb::relax
