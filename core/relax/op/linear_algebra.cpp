// relax.matmul with numpy semantics: a 1-D operand is a row (first) or column (second) vector
// whose extra dim is dropped from the result; leading batch dims broadcast.
#include <map>
#include <stdexcept>

#include "relax/op/op_common.h"
#include "support/einsum_subscripts.h"

namespace wb::relax {
namespace {

using namespace op_common;

// The shape and dtype of `a @ b` (numpy's matmul: vectors are promoted, batches broadcast).
TensorType MatmulType(const Call& call, const TensorTypeNode* a, const TensorTypeNode* b) {
  DataType out_dtype = AttrDataType(call, "out_dtype");
  if (out_dtype.is_void()) {
    if (!a->IsUnknownDtype() && !b->IsUnknownDtype() && a->dtype != b->dtype) {
      throw TypeError("data types " + a->dtype.ToString() + " and " + b->dtype.ToString() +
                      " of the operands do not match (give out_dtype)");
    }
    out_dtype = a->IsUnknownDtype() ? b->dtype : a->dtype;
  }
  for (auto [t, which] : {std::pair{a, "first"}, std::pair{b, "second"}}) {
    if (t->ndim == 0) throw TypeError(std::string("the ") + which + " operand is a scalar");
  }
  if (a->IsUnknownNdim() || b->IsUnknownNdim()) return MakeTensorType(out_dtype, kUnknownNDim);
  bool a_vector = a->ndim == 1;
  bool b_vector = b->ndim == 1;
  int64_t batch_ndim = std::max(a_vector ? 0 : a->ndim - 2, b_vector ? 0 : b->ndim - 2);
  int64_t out_ndim = batch_ndim + (a_vector ? 0 : 1) + (b_vector ? 0 : 1);
  if (!a->shape || !b->shape) return MakeTensorType(out_dtype, out_ndim);
  std::vector<PrimExpr> sa = *a->shape;
  std::vector<PrimExpr> sb = *b->shape;
  if (a_vector) sa.insert(sa.begin(), Int64(1));
  if (b_vector) sb.push_back(Int64(1));
  const PrimExpr& ka = sa[sa.size() - 1];
  const PrimExpr& kb = sb[sb.size() - 2];
  if (ProveNotEqual(ka, kb)) {
    throw TypeError("dimension " + DimText(ka) + " of the first operand does not match " +
                    "dimension " + DimText(kb) + " of the second");
  }
  std::vector<PrimExpr> batch_a(sa.begin(), sa.end() - 2);
  std::vector<PrimExpr> batch_b(sb.begin(), sb.end() - 2);
  std::optional<std::vector<PrimExpr>> batch =
      BroadcastShapes(batch_a, batch_b, "first operand's batch", "second operand's batch");
  if (!batch) return MakeTensorType(out_dtype, out_ndim);
  std::vector<PrimExpr> dims = *batch;
  if (!a_vector) dims.push_back(sa[sa.size() - 2]);
  if (!b_vector) dims.push_back(sb[sb.size() - 1]);
  return MakeTensorType(dims, out_dtype);
}

OpInfo Matmul() {
  OpDef def;
  def.name = "relax.matmul";
  def.args = {"x1", "x2"};
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.attrs_type_key = "relax.attrs.MatmulAttrs";
  def.attrs = {DTypeField("out_dtype")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* a = TensorArg(types, 0);
    const TensorTypeNode* b = TensorArg(types, 1);
    ir::VDevice vdevice = OutVDevice({a, b});
    return WithVDevice(MatmulType(call, a, b), vdevice);
  };
  return Define(std::move(def));
}

// einsum: numpy's Einstein summation over a tuple of tensors (no ellipsis); each label's dim is
// the one its operands agree on.
OpInfo Einsum() {
  OpDef def;
  def.name = "relax.einsum";
  def.args = {"operands"};
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.attrs_type_key = "relax.attrs.EinsumAttrs";
  def.attrs = {StringAttr("subscripts", "")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    auto* tuple = types[0].as<TupleTypeNode>();
    if (!tuple) throw TypeError("the operands must be a tuple of tensors, got " + TypeToString(types[0]));
    if (tuple->fields.empty()) throw TypeError("the operands are empty");
    support::EinsumSubscripts sub;
    try {
      sub = support::ParseEinsumSubscripts(AttrString(call, "subscripts"), tuple->fields.size());
    } catch (const std::invalid_argument& e) {
      throw TypeError(std::string("subscripts '") + AttrString(call, "subscripts") + "': " + e.what());
    }
    DataType dtype = DataType::Void();
    std::map<char, PrimExpr> dims;
    bool known = true;
    for (size_t k = 0; k < tuple->fields.size(); ++k) {
      const auto* t = tuple->fields[k].as<TensorTypeNode>();
      if (!t) throw TypeError("the " + Ordinal(k) + " operand must be a tensor");
      if (!t->IsUnknownDtype()) {
        if (!dtype.is_void() && t->dtype != dtype) {
          throw TypeError("the operands' dtypes " + dtype.ToString() + " and " + t->dtype.ToString() + " differ");
        }
        dtype = t->dtype;
      }
      const std::string& labels = sub.inputs[k];
      if (!t->IsUnknownNdim() && t->ndim != static_cast<int64_t>(labels.size())) {
        throw TypeError("the " + Ordinal(k) + " operand has rank " + std::to_string(t->ndim) + " but subscripts '" +
                        labels + "'");
      }
      if (!t->shape) {
        known = false;
        continue;
      }
      for (size_t d = 0; d < labels.size(); ++d) {
        auto [it, fresh] = dims.emplace(labels[d], (*t->shape)[d]);
        if (!fresh && ProveNotEqual(it->second, (*t->shape)[d])) {
          throw TypeError(std::string("label '") + labels[d] + "' has dims " + DimText(it->second) + " and " +
                          DimText((*t->shape)[d]));
        }
      }
    }
    int64_t ndim = static_cast<int64_t>(sub.output.size());
    if (!known) return MakeTensorType(dtype, ndim);
    std::vector<PrimExpr> out;
    for (char c : sub.output) out.push_back(dims.at(c));
    return MakeTensorType(out, dtype);
  };
  return Define(std::move(def));
}

const OpRegistrar kMatmul(Matmul());
const OpRegistrar kEinsum(Einsum());

}  // namespace
}  // namespace wb::relax
