// Image ops (relax.image.*): resize2d, whose output size is a value argument (a 2-D shape), so
// the result's spatial dims are exactly its dims, symbolic ones included.
#include "relax/op/op_common.h"
#include "tir/op.h"

namespace wb::relax {
namespace {

using namespace op_common;

// Where the height and width axes sit in a 4-D image layout: NCHW -> (2, 3), NHWC -> (1, 2).
std::pair<size_t, size_t> SpatialAxes(const std::string& layout) {
  if (layout == "NCHW") return {2, 3};
  if (layout == "NHWC") return {1, 2};
  throw TypeError("layout " + layout + " is not supported (NCHW or NHWC)");
}

OpInfo Resize2D() {
  OpDef def;
  def.name = "relax.image.resize2d";
  def.args = {"data", "size"};
  def.pattern = OpPatternKind::kInjective;
  def.attrs_type_key = "relax.attrs.Resize2DAttrs";
  ir::ObjectRef zero_roi = ir::MakeArray(std::vector<ir::ObjectRef>(4, tir::MakeFloatImm(DataType::Float(32), 0.0)));
  def.attrs = {{"roi", AttrKind::kObject, zero_roi},
               StringAttr("layout", "NCHW"),
               StringAttr("method", "linear"),
               StringAttr("coordinate_transformation_mode", "half_pixel"),
               StringAttr("rounding_method", "round"),
               FloatAttr("cubic_alpha", -0.75),
               IntAttr("cubic_exclude", 0),
               FloatAttr("extrapolation_value", 0.0),
               DTypeField("out_dtype")};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* data = TensorArg(types, 0, "the data");
    auto [h, w] = SpatialAxes(AttrString(call, "layout"));
    std::string method = AttrString(call, "method");
    if (method != "nearest_neighbor" && method != "linear" && method != "cubic") {
      throw TypeError("method must be nearest_neighbor, linear or cubic, got " + method);
    }
    DataType out_dtype = AttrDataType(call, "out_dtype");
    if (out_dtype.is_void()) out_dtype = data->dtype;
    if (!data->IsUnknownNdim() && data->ndim != 4) {
      throw TypeError("the data must be 4-D, got rank " + std::to_string(data->ndim));
    }
    const auto* size_type = types[1].as<ShapeTypeNode>();
    if (!size_type) throw TypeError("the size must be a shape");
    if (size_type->ndim != kUnknownNDim && size_type->ndim != 2) {
      throw TypeError("the size must have 2 dims (height, width), got " + std::to_string(size_type->ndim));
    }
    std::optional<std::vector<PrimExpr>> size = ShapeArg(call, types, 1);
    if (!data->shape || !size) return WithVDevice(MakeTensorType(out_dtype, 4), data->vdevice);
    std::vector<PrimExpr> dims = *data->shape;
    dims[h] = (*size)[0];
    dims[w] = (*size)[1];
    return WithVDevice(MakeTensorType(dims, out_dtype), data->vdevice);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {OpRegistrar(Resize2D())};

}  // namespace
}  // namespace wb::relax
