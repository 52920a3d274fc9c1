// The `workbench` executable. `--batch` runs the headless core and never touches Qt's GUI
// (so it needs no display); without it, the desktop application starts (issue 7).
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "workbench/batch.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--batch") {
    args.erase(args.begin());
    return wb::workbench::RunBatch(args, std::cout, std::cerr);
  }
  std::cerr << "workbench: the desktop application is not part of this build yet; use "
               "`workbench --batch ...` (see `workbench --batch --help`)\n";
  return 2;
}
