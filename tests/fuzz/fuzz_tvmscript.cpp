// TVMScript through the whole text path: parse, verify, print, re-parse. Whatever the input, the
// parser and the verifier answer with IR or diagnostics (never a crash, a hang or a sanitizer
// report), and a module that parses and verifies cleanly keeps TVMScript's round-trip contract:
// its printed text parses back to an equal module and prints back byte for byte. A broken
// contract aborts with what differed, so libFuzzer keeps the input. The editor's analyses then
// read the same text (the symbol index over what parsed, functions recovered from an error
// included): outline, semantic tokens, and hover and definition at a few places.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "driver/roundtrip.h"
#include "lang/analysis.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  wb::driver::RoundTripResult r = wb::driver::RoundTrip("<fuzz>", text);
  using Status = wb::driver::RoundTripResult::Status;
  if (r.status == Status::kOk || r.status == Status::kDiagnostics) {
    wb::lang::Document doc("file:///fuzz.py", text, 0);
    wb::lang::ComputeDocumentSymbols(doc);
    wb::lang::ComputeSemanticTokens(doc);
    for (size_t k = 1; k <= 4; ++k) {
      wb::lang::TextPosition at = doc.PositionOf(static_cast<uint32_t>(size * k / 5));
      wb::lang::ComputeHover(doc, at);
      wb::lang::FindDefinition(doc, at);
    }
    return 0;
  }
  std::fprintf(stderr, "round trip broken: %s %s\n--- printed:\n%s\n--- diagnostics:\n%s\n",
               wb::driver::StatusName(r.status), r.detail.c_str(), r.printed.c_str(),
               wb::RenderDiagnostics(r.diagnostics).c_str());
  std::abort();
}
