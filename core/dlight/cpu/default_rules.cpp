#include "dlight/cpu/rules.h"

namespace wb::dlight::cpu {

std::vector<ScheduleRule> DefaultRules() {
  return {GEMV(), Matmul(), Conv2d(), Reduction(), Pool(), Injective(), Fallback()};
}

}  // namespace wb::dlight::cpu
