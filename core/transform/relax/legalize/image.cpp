// Legalization of the relax.image family: resize2d through topi::resize2d.
#include "topi/image.h"

#include "relax/op/registry.h"
#include "transform/relax/legalize/common.h"

namespace wb::transform::legalize {

void RegisterImage(LegalizeTable& table) {
  table["relax.image.resize2d"] = [](BlockBuilder& bb, const Call& call) -> Expr {
    TECall te(bb);
    te::Tensor x = te.Tensor(call, 0);
    std::vector<ir::PrimExpr> size = te.Dims(ShapeValues(call->args[1]));
    topi::Resize2DParams p;
    p.layout = relax::AttrString(call, "layout");
    p.method = relax::AttrString(call, "method");
    p.coordinate_transformation_mode = relax::AttrString(call, "coordinate_transformation_mode");
    p.rounding_method = relax::AttrString(call, "rounding_method");
    p.out_dtype = relax::AttrDataType(call, "out_dtype");
    try {
      return te.Emit(topi::resize2d(x, size[0], size[1], p), "resize2d");
    } catch (const std::invalid_argument& e) {
      throw LegalizeError(e.what());
    }
  };
}

}  // namespace wb::transform::legalize
