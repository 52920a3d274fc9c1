#include "dlight/cpu/rules.h"

namespace wb::dlight::cpu {

std::vector<ScheduleRule> DefaultRules() {
  return {Matmul(), Conv2d(), Reduction(), Injective(), Fallback()};
}

}  // namespace wb::dlight::cpu
