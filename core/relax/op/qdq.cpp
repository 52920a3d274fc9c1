// Quantization (relax.quantize, relax.dequantize): out = clip(round(x / scale) + zero_point) in
// an integer dtype, and (x - zero_point) * scale back; scale and zero_point are per tensor (a
// scalar or a tensor of ones) or per channel along `axis` (1-D, the data's extent there).
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

bool Singleton(const TensorTypeNode* t) {
  if (t->ndim == 0) return true;
  if (!t->shape) return false;
  for (const PrimExpr& d : *t->shape) {
    auto c = AsConstInt(d);
    if (!c || *c != 1) return false;
  }
  return true;
}

// The scale (i == 1) or zero point (i == 2): per tensor, or 1-D with the data's extent on axis.
void CheckQParam(const std::vector<Type>& types, size_t i, const TensorTypeNode* data, int64_t axis) {
  const char* role = i == 1 ? "the scale" : "the zero point";
  const TensorTypeNode* p = TensorArg(types, i, role);
  if (i == 1 && !p->IsUnknownDtype() && !p->dtype.is_float()) {
    throw TypeError(std::string(role) + " must be float16 or float32, got " + p->dtype.ToString());
  }
  if (i == 2 && !p->IsUnknownDtype() && !p->dtype.is_integer() && p->dtype != DataType::Float(16)) {
    throw TypeError(std::string(role) + " must have an integer dtype or float16, got " + p->dtype.ToString());
  }
  if (Singleton(p) || p->IsUnknownNdim() || data->IsUnknownNdim()) return;
  if (data->ndim == 0) throw TypeError(std::string(role) + " must be a scalar for a scalar input");
  if (p->ndim != 1) throw TypeError(std::string(role) + " must be a scalar or 1-D, got rank " + std::to_string(p->ndim));
  if (p->shape && data->shape && ProveNotEqual((*p->shape)[0], (*data->shape)[axis])) {
    throw TypeError(std::string(role) + " has " + DimText((*p->shape)[0]) + " values where the data has " +
                    DimText((*data->shape)[axis]) + " on axis " + std::to_string(axis));
  }
}

OpInfo QDQ(bool quantize) {
  OpDef def;
  def.name = quantize ? "relax.quantize" : "relax.dequantize";
  def.args = {"data", "scale", "zero_point"};
  def.pattern = OpPatternKind::kElemWise;
  def.attrs_type_key = "relax.attrs.QuantizeAttrs";
  def.attrs = {DTypeField("out_dtype", quantize ? DataType::Int(8) : DataType::Float(32)), IntAttr("axis", -1)};
  def.infer = [quantize](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the data");
    DataType out = AttrDataType(call, "out_dtype");
    if (quantize) {
      if (!out.is_integer() || out.bits() > 16) {
        throw TypeError("out_dtype must be int8, uint8, int16 or uint16, got " + out.ToString());
      }
      if (!x->IsUnknownDtype() && !x->dtype.is_float()) {
        throw TypeError("the data must be float16 or float32, got " + x->dtype.ToString());
      }
    } else {
      if (out != DataType::Float(32) && out != DataType::Float(16)) {
        throw TypeError("out_dtype must be float32 or float16, got " + out.ToString());
      }
      if (!x->IsUnknownDtype() && !x->dtype.is_integer()) {
        throw TypeError("the data must have an integer dtype, got " + x->dtype.ToString());
      }
    }
    int64_t axis = -1;
    if (!x->IsUnknownNdim() && x->ndim > 0) axis = NormalizeAxis(AttrInt(call, "axis"), x->ndim);
    CheckQParam(types, 1, x, axis);
    CheckQParam(types, 2, x, axis);
    return WithVDevice(TensorOf(x->shape, out, x->ndim), x->vdevice);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {OpRegistrar(QDQ(true)), OpRegistrar(QDQ(false))};

}  // namespace
}  // namespace wb::relax
