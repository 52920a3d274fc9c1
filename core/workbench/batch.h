// The headless face of the workbench: `workbench --batch ...` for CI and scripting. Everything
// here is shared with the GUI and the LSP server through the same core calls; this file only
// turns command-line requests into them and reports the results.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "support/diagnostic.h"

namespace wb::workbench {

// The outcome of parse -> verify -> print -> re-parse -> compare -> re-print for one file.
struct RoundTripResult {
  enum class Status {
    kOk,
    kReadError,       // the file could not be read
    kDiagnostics,     // parse or well-formedness errors in the input
    kReparseFailed,   // the printed text does not parse back
    kNotEqual,        // parse(print(m)) is not structurally equal to m
    kNotFixedPoint,   // print(parse(print(m))) differs from print(m)
  };
  std::string path;
  Status status = Status::kOk;
  DiagnosticList diagnostics;  // of the input, or of the printed text for kReparseFailed
  std::string detail;          // what differs, for kNotEqual / kNotFixedPoint
  std::string printed;         // print(m), when it got that far
};

const char* StatusName(RoundTripResult::Status status);
RoundTripResult RoundTrip(const std::string& path, const std::string& text);
RoundTripResult RoundTripFile(const std::string& path);

// Removes `global_symbol` from every function and, when the module holds a single function,
// renames it to "main": what TVM's assert_structural_equal_ignore_global_symbol compares.
ir::IRModule StripGlobalSymbols(const ir::IRModule& module);

// Runs `workbench --batch ARGS...` (args exclude "--batch"). Exit code: 0 success, 1 a check
// failed, 2 bad usage or unreadable input.
int RunBatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace wb::workbench
