// Legalization of relax.matmul.
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
}

}  // namespace wb::transform::legalize
