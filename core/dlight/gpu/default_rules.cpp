#include "dlight/gpu/rules.h"

namespace wb::dlight::gpu {

std::vector<ScheduleRule> DefaultRules() { return {Matmul(), Elementwise()}; }

}  // namespace wb::dlight::gpu
