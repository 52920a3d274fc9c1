// `workbench --batch FILE... --roundtrip`: parse, verify, print, re-parse, compare, re-print,
// the check that the printer and the parser agree on every file.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "ir/structural_equal.h"
#include "support/diagnostic.h"

namespace wb::driver {

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

// "first mismatch at <path> (other side: <path>)": where two modules stop being equal.
std::string MismatchDetail(const ir::StructuralMismatch& mismatch);
RoundTripResult RoundTrip(const std::string& path, const std::string& text);
RoundTripResult RoundTripFile(const std::string& path);

}  // namespace wb::driver
