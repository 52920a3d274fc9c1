// The headless face of the workbench: `workbench --batch ...` for CI and scripting. One file per
// command (roundtrip, emit, compare, pipeline, schedule, run, manifest, list-passes) behind one
// option parser (cli.cpp, CLI11, with generated help); each command turns its options into calls
// of the same core the GUI and the LSP server use, and reports the results.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace wb::driver {

// Runs `workbench --batch ARGS...` (args exclude "--batch"). Exit code: 0 success, 1 a check
// failed, 2 bad usage or unreadable input, 3 built for a GPU where there is none.
int RunBatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// "workbench 0.1.0": what `workbench --version` prints.
std::string VersionText();

}  // namespace wb::driver
