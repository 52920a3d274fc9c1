#include "ir/global_info.h"

namespace wb::ir {

void VDeviceNode::VisitFields(FieldVisitor* v) {
  Fields{v}("target", target)("vdevice_id", vdevice_id)("memory_scope", memory_scope);
}

WB_REGISTER_NODE(VDeviceNode);

VDevice MakeVDevice(std::string target, int64_t vdevice_id, std::string memory_scope, Span span) {
  NodeBuilder<VDeviceNode> n;
  n->target = std::move(target);
  n->vdevice_id = vdevice_id;
  n->memory_scope = std::move(memory_scope);
  n->span = std::move(span);
  return n.Finish();
}

std::string VDeviceKind(const VDeviceNode& vdevice) {
  return vdevice.target.substr(0, vdevice.target.find(' '));
}

std::string VDeviceReference(const VDeviceNode& vdevice, const AttrMap& global_infos) {
  auto it = global_infos.find(kVDeviceInfoKey);
  const auto* list = it == global_infos.end() ? nullptr : it->second.as<ArrayObj>();
  if (!list) return "";
  std::string kind = VDeviceKind(vdevice);
  // Identity first: two listed vdevices may have equal fields, and each has its own index.
  for (bool by_identity : {true, false}) {
    int64_t index = 0;
    for (const ObjectRef& item : list->items) {
      auto* d = item.as<VDeviceNode>();
      if (!d || VDeviceKind(*d) != kind) continue;
      bool match = by_identity ? d == &vdevice
                               : d->target == vdevice.target && d->vdevice_id == vdevice.vdevice_id &&
                                     d->memory_scope == vdevice.memory_scope;
      if (match) return kind + ":" + std::to_string(index);
      ++index;
    }
  }
  return "";
}

}  // namespace wb::ir
