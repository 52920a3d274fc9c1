#include "dlight/cpu/rules.h"

namespace wb::dlight::cpu {

std::vector<ScheduleRule> DefaultRules() {
  return {Matmul(), Reduction(), Injective(), Fallback()};
}

}  // namespace wb::dlight::cpu
