#include "topi/linalg.h"

#include <map>
#include <stdexcept>

#include "support/einsum_subscripts.h"
#include "tir/op.h"
#include "topi/broadcast.h"
#include "topi/util.h"

namespace wb::topi {

Tensor matmul(const Tensor& a, const Tensor& b, ir::DataType out_dtype) {
  if (a.ndim() == 0 || b.ndim() == 0)
    throw std::invalid_argument("topi.matmul: operands must have at least one dim");
  std::vector<PrimExpr> a_shape = a.shape(), b_shape = b.shape();
  bool a_prepended = a_shape.size() == 1, b_appended = b_shape.size() == 1;
  if (a_prepended) a_shape.insert(a_shape.begin(), Index(1));
  if (b_appended) b_shape.push_back(Index(1));
  const PrimExpr& ka = a_shape[a_shape.size() - 1];
  const PrimExpr& kb = b_shape[b_shape.size() - 2];
  if (!SameDim(ka, kb)) {
    throw std::invalid_argument("topi.matmul: reduction dims " + DimString(ka) + " and " +
                                DimString(kb) + " differ");
  }
  std::vector<PrimExpr> a_batch(a_shape.begin(), a_shape.end() - 2);
  std::vector<PrimExpr> b_batch(b_shape.begin(), b_shape.end() - 2);
  std::vector<PrimExpr> batch = BroadcastShape(a_batch, b_batch);
  std::vector<PrimExpr> out = batch;
  if (!a_prepended) out.push_back(a_shape[a_shape.size() - 2]);
  if (!b_appended) out.push_back(b_shape.back());
  size_t nbatch = batch.size();
  bool a_larger = a_batch.size() > b_batch.size();
  size_t offset = a_larger ? a_batch.size() - b_batch.size() : b_batch.size() - a_batch.size();
  PrimExpr zero = Index(0);
  return te::compute(
      out,
      [&](const std::vector<tir::Var>& idx) {
        te::IterVar k = te::reduce_axis(ka, "k");
        std::vector<PrimExpr> ai, bi;
        for (size_t i = 0; i < offset; ++i) (a_larger ? ai : bi).push_back(idx[i]);
        for (size_t i = offset; i < nbatch; ++i) {
          const PrimExpr& ad = a_batch[a_larger ? i : i - offset];
          const PrimExpr& bd = b_batch[a_larger ? i - offset : i];
          bool a_one = tir::IsConstInt(ad, 1) && !tir::IsConstInt(bd, 1);
          bool b_one = tir::IsConstInt(bd, 1) && !tir::IsConstInt(ad, 1);
          ai.push_back(a_one ? zero : PrimExpr(idx[i]));
          bi.push_back(b_one ? zero : PrimExpr(idx[i]));
        }
        if (!a_prepended) ai.push_back(idx[nbatch]);
        ai.push_back(k->var);
        bi.push_back(k->var);
        if (!b_appended) bi.push_back(idx.back());
        PrimExpr x = a(ai), y = b(bi);
        if (!out_dtype.is_void()) {
          x = tir::cast(out_dtype, x);
          y = tir::cast(out_dtype, y);
        }
        return te::sum(tir::mul(x, y), {k});
      },
      "matmul", "", {}, te::AxisNames("i", out.size()));
}

Tensor einsum(const std::string& subscripts, const std::vector<Tensor>& operands) {
  support::EinsumSubscripts sub;
  try {
    sub = support::ParseEinsumSubscripts(subscripts, operands.size());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("topi.einsum: ") + e.what());
  }
  std::map<char, PrimExpr> extent;
  for (size_t k = 0; k < operands.size(); ++k) {
    if (sub.inputs[k].size() != operands[k].ndim()) throw std::invalid_argument("topi.einsum: an operand's rank differs from its subscripts");
    for (size_t d = 0; d < sub.inputs[k].size(); ++d) extent.emplace(sub.inputs[k][d], operands[k].shape()[d]);
  }
  std::vector<PrimExpr> shape;
  for (char c : sub.output) shape.push_back(extent.at(c));
  std::string summed;
  for (const auto& [c, e] : extent) {
    if (sub.output.find(c) == std::string::npos) summed.push_back(c);
  }
  DataType t = operands[0].dtype();
  return te::compute(
      shape,
      [&](const std::vector<tir::Var>& i) {
        std::map<char, PrimExpr> at;
        for (size_t d = 0; d < sub.output.size(); ++d) at[sub.output[d]] = i[d];
        std::vector<te::IterVar> rv;
        for (char c : summed) {
          rv.push_back(te::reduce_axis(extent.at(c), std::string("k_") + c));
          at[c] = rv.back()->var;
        }
        PrimExpr product;
        for (size_t k = 0; k < operands.size(); ++k) {
          std::vector<PrimExpr> idx;
          for (char c : sub.inputs[k]) idx.push_back(at.at(c));
          PrimExpr v = tir::cast(t, operands[k](idx));
          product = product.defined() ? tir::mul(product, v) : v;
        }
        return rv.empty() ? product : te::sum(product, rv);
      },
      "T_einsum", summed.empty() ? kTagInjective : kTagCommReduce);
}

}  // namespace wb::topi
