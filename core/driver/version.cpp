#include "driver/version.h"

namespace wb::driver {

std::string WorkbenchVersion() { return WB_VERSION; }

}  // namespace wb::driver
