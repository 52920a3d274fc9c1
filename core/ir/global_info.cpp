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

}  // namespace wb::ir
