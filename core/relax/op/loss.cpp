// Loss ops of relax.nn: nll_loss (predictions (N, C, d1, ..., dk) or (C,), integer targets
// (N, d1, ..., dk) or (), optional per-class weights (C,)) and cross_entropy_with_logits
// (predictions and labels of one shape, a scalar result).
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

OpInfo NLLLoss() {
  OpDef def;
  def.name = "relax.nn.nll_loss";
  def.args = {"predictions", "targets", "weights"};
  def.optional_args = 1;
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.NLLLossAttrs";
  def.attrs = {StringAttr("reduction", "mean"), IntAttr("ignore_index", -100)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* pred = TensorArg(types, 0, "the predictions");
    const TensorTypeNode* tgt = TensorArg(types, 1, "the targets");
    const TensorTypeNode* wgt = types.size() > 2 ? TensorArg(types, 2, "the weights") : nullptr;
    std::string reduction = AttrString(call, "reduction");
    if (reduction != "none" && reduction != "sum" && reduction != "mean") {
      throw TypeError("reduction must be none, sum or mean, got " + reduction);
    }
    if (!pred->IsUnknownDtype() && !pred->dtype.is_floating_point()) {
      throw TypeError("the predictions must have a floating-point dtype, got " + pred->dtype.ToString());
    }
    if (!tgt->IsUnknownDtype() && !tgt->dtype.is_integer() && !tgt->dtype.is_uint()) {
      throw TypeError("the targets must have an integer dtype, got " + tgt->dtype.ToString());
    }
    if (wgt && !wgt->IsUnknownDtype() && !pred->IsUnknownDtype() && wgt->dtype != pred->dtype) {
      throw TypeError("the weights' dtype " + wgt->dtype.ToString() + " differs from the predictions' " +
                      pred->dtype.ToString());
    }
    if (!pred->IsUnknownNdim() && pred->ndim < 1) throw TypeError("the predictions must have at least one axis");
    if (!pred->IsUnknownNdim() && !tgt->IsUnknownNdim() && tgt->ndim != pred->ndim - 1) {
      throw TypeError("the targets have rank " + std::to_string(tgt->ndim) + " where the predictions' rank " +
                      std::to_string(pred->ndim) + " needs " + std::to_string(pred->ndim - 1));
    }
    if (wgt && !wgt->IsUnknownNdim() && wgt->ndim != 1) {
      throw TypeError("the weights must be 1-D, got rank " + std::to_string(wgt->ndim));
    }
    // The classes C: the predictions' axis 1 (axis 0 without a batch).
    std::optional<PrimExpr> classes;
    if (pred->shape) classes = (*pred->shape)[pred->shape->size() == 1 ? 0 : 1];
    if (wgt && wgt->shape && classes && ProveNotEqual(*classes, (*wgt->shape)[0])) {
      throw TypeError("the weights have " + DimText((*wgt->shape)[0]) + " values for " + DimText(*classes) +
                      " classes");
    }
    std::optional<std::vector<PrimExpr>> out;
    if (pred->shape) {
      std::vector<PrimExpr> dims;
      if (pred->shape->size() > 1) dims.push_back((*pred->shape)[0]);
      dims.insert(dims.end(), pred->shape->begin() + std::min<size_t>(2, pred->shape->size()), pred->shape->end());
      out = dims;
      if (tgt->shape) {
        for (size_t i = 0; i < dims.size() && i < tgt->shape->size(); ++i) {
          if (ProveNotEqual(dims[i], (*tgt->shape)[i])) {
            throw TypeError("the targets' dimension " + DimText((*tgt->shape)[i]) + " at axis " + std::to_string(i) +
                            " does not match the predictions' " + DimText(dims[i]));
          }
        }
      }
    }
    std::vector<const TensorTypeNode*> operands = {pred, tgt};
    if (wgt) operands.push_back(wgt);
    ir::VDevice vdevice = OutVDevice(operands);
    if (reduction != "none") return WithVDevice(MakeTensorType(std::vector<PrimExpr>{}, pred->dtype), vdevice);
    int64_t ndim = pred->IsUnknownNdim() ? kUnknownNDim : pred->ndim - 1;
    return WithVDevice(TensorOf(out, pred->dtype, ndim), vdevice);
  };
  return Define(std::move(def));
}

OpInfo CrossEntropyWithLogits() {
  OpDef def;
  def.name = "relax.nn.cross_entropy_with_logits";
  def.args = {"predictions", "labels"};
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* pred = TensorArg(types, 0, "the predictions");
    const TensorTypeNode* label = TensorArg(types, 1, "the labels");
    if (!pred->IsUnknownDtype() && !label->IsUnknownDtype() && pred->dtype != label->dtype) {
      throw TypeError("the predictions' dtype " + pred->dtype.ToString() + " differs from the labels' " +
                      label->dtype.ToString());
    }
    if (!pred->IsUnknownNdim() && !label->IsUnknownNdim() && pred->ndim != label->ndim) {
      throw TypeError("the predictions have rank " + std::to_string(pred->ndim) + " and the labels " +
                      std::to_string(label->ndim));
    }
    if (pred->shape && label->shape) {
      for (size_t i = 0; i < pred->shape->size(); ++i) {
        if (ProveNotEqual((*pred->shape)[i], (*label->shape)[i])) {
          throw TypeError("the predictions' dimension " + DimText((*pred->shape)[i]) + " at axis " + std::to_string(i) +
                          " differs from the labels' " + DimText((*label->shape)[i]));
        }
      }
    }
    DataType dtype = pred->IsUnknownDtype() ? label->dtype : pred->dtype;
    return WithVDevice(MakeTensorType(std::vector<PrimExpr>{}, dtype), OutVDevice({pred, label}));
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(NLLLoss()),
    OpRegistrar(CrossEntropyWithLogits()),
};

}  // namespace
}  // namespace wb::relax
