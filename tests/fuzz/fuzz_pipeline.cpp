// Pipeline text as a user types it in the Passes tab or passes to --pipeline: parsed, written
// back in canonical form and built into passes. Whatever the text, the answer is passes or
// diagnostics (never a crash, a hang, an exception or a sanitizer report), and the canonical text
// of what parsed reads back to the same canonical text (a string holding both quote characters
// cannot be written, so such inputs are only parsed).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "transform/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  wb::DiagnosticList diags;
  auto specs = wb::transform::ParsePipeline(text, diags);
  wb::DiagnosticList build_diags;
  (void)wb::transform::BuildPipeline(text, build_diags);
  if (!specs || (text.find('\'') != std::string::npos && text.find('"') != std::string::npos)) return 0;
  std::string canonical = wb::transform::PipelineText(*specs);
  wb::DiagnosticList again_diags;
  auto again = wb::transform::ParsePipeline(canonical, again_diags);
  if (!again || wb::transform::PipelineText(*again) != canonical) {
    std::fprintf(stderr, "canonical pipeline text does not read back:\n  %s\n%s\n", canonical.c_str(),
                 wb::RenderDiagnostics(again_diags).c_str());
    std::abort();
  }
  return 0;
}
