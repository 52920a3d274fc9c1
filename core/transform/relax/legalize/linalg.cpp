// Legalization of relax.matmul and relax.einsum.
#include "topi/linalg.h"

#include "relax/op/registry.h"
#include "transform/relax/legalize/common.h"

namespace wb::transform::legalize {

void RegisterLinalg(LegalizeTable& table) {
  table["relax.matmul"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor a = te.Tensor(call, 0);
    te::Tensor b = te.Tensor(call, 1);
    return te.Emit(topi::matmul(a, b, relax::AttrDataType(call, "out_dtype")), "matmul");
  };
  table["relax.einsum"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    auto* tuple = call->args[0].as<relax::TupleNode>();
    if (!tuple) throw LegalizeError("the operands are not a tuple expression");
    TECall te(bb);
    std::vector<te::Tensor> xs;
    for (const Expr& f : tuple->fields) xs.push_back(te.Tensor(f));
    try {
      return te.Emit(topi::einsum(relax::AttrString(call, "subscripts"), xs), "einsum");
    } catch (const std::invalid_argument& e) {
      throw LegalizeError(e.what());
    }
  };
}

}  // namespace wb::transform::legalize
