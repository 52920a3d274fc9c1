// What this build calls itself: `workbench --version` and the "version" of every batch report.
#pragma once

#include <string>

namespace wb::driver {

// The release and the commit the build was configured at, e.g. "0.1.0+1a2b3c4d5e6f".
std::string WorkbenchVersion();

}  // namespace wb::driver
