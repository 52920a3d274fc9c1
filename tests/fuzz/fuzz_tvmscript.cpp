// TVMScript through the whole text path: parse, verify, print, re-parse. Whatever the input, the
// parser and the verifier answer with IR or diagnostics (never a crash, a hang or a sanitizer
// report), and a module that parses and verifies cleanly keeps TVMScript's round-trip contract:
// its printed text parses back to an equal module and prints back byte for byte. A broken
// contract aborts with what differed, so libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "driver/roundtrip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  wb::driver::RoundTripResult r = wb::driver::RoundTrip("<fuzz>", text);
  using Status = wb::driver::RoundTripResult::Status;
  if (r.status == Status::kOk || r.status == Status::kDiagnostics) return 0;
  std::fprintf(stderr, "round trip broken: %s %s\n--- printed:\n%s\n--- diagnostics:\n%s\n",
               wb::driver::StatusName(r.status), r.detail.c_str(), r.printed.c_str(),
               wb::RenderDiagnostics(r.diagnostics).c_str());
  std::abort();
}
