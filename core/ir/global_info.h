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

// The target kind of a vdevice: its target text up to the first space ("cuda" for
// "cuda -arch=sm_80"), which is what TVMScript's "kind:index" names.
std::string VDeviceKind(const VDeviceNode& vdevice);
// TVMScript's "kind:index" for `vdevice` in `global_infos` (index: its position among the listed
// vdevices of the same kind, matched by identity, else by equal fields); "" when not listed.
std::string VDeviceReference(const VDeviceNode& vdevice, const AttrMap& global_infos);

// The key of the VDevice list in IRModuleNode::global_infos, as TVM names it.
inline constexpr const char* kVDeviceInfoKey = "vdevice";

}  // namespace wb::ir
