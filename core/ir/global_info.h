#pragma once
// Module-level global information (TVM's GlobalInfo): objects an IRModule holds by kind in its
// global_infos map, outside any function. VDevice is the one kind so far: a virtual device that
// Relax tensor types and R.to_vdevice refer to by "kind:index".

#include <cstdint>
#include <string>

#include "ir/object.h"

namespace wb::ir {

// TVM's VDevice: a target, an index among the devices of that target, and a memory scope.
// The target is kept as its text ("llvm", "cuda"), which is how TVMScript names it.
class VDeviceNode : public Object {
 public:
  WB_NODE_FINAL(VDeviceNode, kVDevice, Object)
  std::string target;
  int64_t vdevice_id = 0;
  std::string memory_scope = "global";

  void VisitFields(FieldVisitor* v) override;
};
using VDevice = Ref<VDeviceNode>;

VDevice MakeVDevice(std::string target, int64_t vdevice_id = 0,
                    std::string memory_scope = "global", Span span = {});

// The key of the VDevice list in IRModuleNode::global_infos, as TVM names it.
inline constexpr const char* kVDeviceInfoKey = "vdevice";

}  // namespace wb::ir
