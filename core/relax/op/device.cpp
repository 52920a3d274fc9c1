// Device placement ops of heterogeneous Relax programs: relax.to_vdevice copies a tensor onto one
// of the module's virtual devices (its type then names that device), relax.hint_on_device says
// where a value is wanted without fixing it in the type (RealizeVDevice resolves the hints).
// Neither is LegalizeOps' business: TVM lowers to_vdevice to a device copy in the VM builtins
// and removes hint_on_device when it realizes vdevices.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

OpInfo ToVDevice() {
  OpDef def;
  def.name = "relax.to_vdevice";
  def.args = {"data"};
  def.attrs_type_key = "relax.attrs.ToVDeviceAttrs";
  def.attrs = {AttrField{"dst_vdevice", AttrKind::kObject, ObjectRef()}};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* data = TensorArg(types, 0, "the data");
    auto it = call->attrs.find("dst_vdevice");
    const ir::ObjectRef dst = it == call->attrs.end() ? ObjectRef() : it->second;
    auto* vdevice = dst.as<ir::VDeviceNode>();
    if (!vdevice) throw TypeError("dst_vdevice must be one of the module's vdevices");
    return WithVDevice(GetRef(data), ir::GetRef(vdevice));
  };
  return Define(std::move(def));
}

// TVM's HintOnDeviceAttrs: a DLPack device (type code and id), as `R.device(dev_type, dev_id)`.
OpInfo HintOnDevice() {
  OpDef def;
  def.name = "relax.hint_on_device";
  def.args = {"data"};
  def.attrs_type_key = "relax.attrs.HintOnDeviceAttrs";
  def.attrs = {IntAttr("dev_type", 1), IntAttr("dev_id", 0)};
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* data = TensorArg(types, 0, "the data");
    if (AttrInt(call, "dev_type") <= 0) {
      throw TypeError("dev_type must be a positive DLPack device type, got " +
                      std::to_string(AttrInt(call, "dev_type")));
    }
    if (AttrInt(call, "dev_id") < 0) {
      throw TypeError("dev_id must be non-negative, got " +
                      std::to_string(AttrInt(call, "dev_id")));
    }
    // Only a hint: the type stays the data's until RealizeVDevice decides.
    return GetRef(data);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(ToVDevice()),
    OpRegistrar(HintOnDevice()),
};

}  // namespace
}  // namespace wb::relax
