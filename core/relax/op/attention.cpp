// Fused multi-head attention (relax.nn.attention, relax.nn.attention_bias), TVM's ops: query
// (batch, seq_len, num_heads, head_dim), key (batch, seq_len_kv, num_kv_heads, head_dim), value
// (batch, seq_len_kv, num_kv_heads, head_dim_v), all BSNH, give (batch, seq_len, num_heads,
// head_dim_v). num_heads may be a multiple of num_kv_heads (grouped-query attention). The bias
// form is its own op, as in TVM: `R.nn.attention(q, k, v, bias)` normalizes to
// relax.nn.attention_bias, which prints as `R.nn.attention_bias(...)`.
#include "relax/op/op_common.h"
#include "tir/op.h"

namespace wb::relax {
namespace {

using namespace op_common;

void CheckSame(const PrimExpr& a, const PrimExpr& b, const char* ma, const char* mb, const char* dim) {
  if (ProveNotEqual(a, b)) {
    throw TypeError(std::string("the ") + ma + " " + dim + " (" + DimText(a) + ") and the " + mb + " " + dim +
                    " (" + DimText(b) + ") must be the same");
  }
}

Type InferAttention(const Call& call, const std::vector<Type>& types) {
  const TensorTypeNode* q = TensorArg(types, 0, "the query");
  const TensorTypeNode* k = TensorArg(types, 1, "the key");
  const TensorTypeNode* v = TensorArg(types, 2, "the value");
  const TensorTypeNode* bias = call->args.size() > 3 ? TensorArg(types, 3, "the bias") : nullptr;
  for (auto [t, role] : {std::pair{q, "query"}, std::pair{k, "key"}, std::pair{v, "value"}}) {
    if (!t->IsUnknownNdim() && t->ndim != 4) {
      throw TypeError(std::string("the ") + role +
                      " must be 4-D (batch size, sequence length, number of heads, dimension of heads), got rank " +
                      std::to_string(t->ndim));
    }
    if (!t->IsUnknownDtype() && !t->dtype.is_floating_point()) {
      throw TypeError(std::string("the ") + role + " must have a floating-point dtype, got " + t->dtype.ToString());
    }
  }
  if (bias && !bias->IsUnknownNdim() && bias->ndim != 4) {
    throw TypeError("the bias must be 4-D (broadcastable to batch, heads, seq_len, seq_len_kv), got rank " +
                    std::to_string(bias->ndim));
  }
  if (!AttrIsNone(call, "causal_mask")) {
    std::string mask = AttrString(call, "causal_mask");
    if (mask != "TopLeft" && mask != "BottomRight") {
      throw TypeError("causal_mask must be None, \"TopLeft\" or \"BottomRight\", got \"" + mask + "\"");
    }
  }
  if (!AttrIsNone(call, "window_size") && AttrInt(call, "window_size") <= 0) {
    throw TypeError("window_size must be positive");
  }
  if (!q->shape || !k->shape || !v->shape) return MakeTensorType(q->dtype, 4);
  const auto& qs = *q->shape;
  const auto& ks = *k->shape;
  const auto& vs = *v->shape;
  CheckSame(qs[0], ks[0], "query", "key", "batch size");
  CheckSame(qs[0], vs[0], "query", "value", "batch size");
  for (auto [kv, role] : {std::pair{&ks, "key"}, std::pair{&vs, "value"}}) {
    auto nq = AsConstInt(qs[2]), nk = AsConstInt((*kv)[2]);
    if (nq && nk && (*nk <= 0 || *nq % *nk != 0)) {
      throw TypeError(std::string("the query's number of heads (") + std::to_string(*nq) +
                      ") must be a multiple of the " + role + "'s (" + std::to_string(*nk) + ")");
    }
  }
  CheckSame(ks[2], vs[2], "key", "value", "number of heads");
  CheckSame(ks[1], vs[1], "key", "value", "sequence length");
  CheckSame(qs[3], ks[3], "query", "key", "dimension of heads");
  if (bias && bias->shape) {
    const auto& bs = *bias->shape;
    const char* names[] = {"batch size", "number of heads", "sequence length"};
    const PrimExpr want[] = {qs[0], qs[2], qs[1]};
    for (int i = 0; i < 3; ++i) {
      auto b = AsConstInt(bs[i]);
      if (!(b && *b == 1) && ProveNotEqual(bs[i], want[i])) {
        throw TypeError(std::string("the bias ") + names[i] + " (" + DimText(bs[i]) + ") must be 1 or the query's (" +
                        DimText(want[i]) + ")");
      }
    }
    CheckSame(ks[1], bs[3], "key", "bias", "sequence length");
  }
  return MakeTensorType({qs[0], qs[1], qs[2], vs[3]}, q->dtype);
}

// A scale written as a Python float becomes a FloatImm of the query's dtype, as TVM keeps it.
Call NormalizeAttention(const Call& call) {
  Call out = call;
  auto it = out->attrs.find("scale");
  if (it != out->attrs.end() && it->second.defined() && !it->second.as<tir::FloatImmNode>()) {
    double value = 0;
    if (auto* f = it->second.as<ir::FloatObj>()) value = f->value;
    if (auto* i = it->second.as<ir::IntObj>()) value = static_cast<double>(i->value);
    DataType dtype = DataType::Float(32);
    if (auto* t = out->struct_info.as<TensorTypeNode>(); t && !t->IsUnknownDtype()) dtype = t->dtype;
    out.CopyOnWrite()->attrs["scale"] = tir::MakeFloatImm(dtype, value);
  }
  if (out->args.size() == 4 && out->op.same_as(GetOp("relax.nn.attention"))) {
    out.CopyOnWrite()->op = GetOp("relax.nn.attention_bias");
  }
  return out;
}

OpInfo Attention(bool with_bias) {
  OpDef def;
  def.name = with_bias ? "relax.nn.attention_bias" : "relax.nn.attention";
  def.args = {"query", "key", "value", "bias"};
  if (!with_bias) def.optional_args = 1;
  def.pattern = OpPatternKind::kOpaque;
  def.attrs_type_key = "relax.attrs.AttentionAttrs";
  def.attrs = {{"scale", AttrKind::kObject, {}},
               {"causal_mask", AttrKind::kObject, {}},
               OptionalIntAttr("window_size")};
  def.infer = InferAttention;
  def.normalize = NormalizeAttention;
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(Attention(false)),
    OpRegistrar(Attention(true)),
};

}  // namespace
}  // namespace wb::relax
