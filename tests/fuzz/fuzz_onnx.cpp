// The ONNX importer on mutated model bytes (seeded with the small models of tests/frontend/data):
// whatever the bytes, it answers with a module or diagnostics (never a crash, a hang, an escaping
// exception or a sanitizer report). A module it imports without an error must be what every
// other face then relies on: well-formed (the TensorIR and Relax verifiers find nothing), printed
// as TVMScript that parses back cleanly to an equal module and prints back byte for byte. A
// broken contract aborts with what went wrong, so libFuzzer keeps the input.
//
// The model path is in a folder that does not exist, so external tensor data is never read from
// the machine's files.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "frontend/onnx/onnx_frontend.h"
#include "ir/structural_equal.h"
#include "relax/well_formed.h"
#include "script/tvmscript.h"
#include "tir/verifier.h"

namespace {

[[noreturn]] void Broken(const char* what, const std::string& text, const wb::DiagnosticList& diags) {
  std::fprintf(stderr, "imported module broken: %s\n--- printed:\n%s\n--- diagnostics:\n%s\n", what, text.c_str(),
               wb::RenderDiagnostics(diags).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  wb::frontend::onnx::ImportResult r =
      wb::frontend::onnx::FromONNXBytes(bytes, "/nonexistent-wb-fuzz/model.onnx");
  if (!r.ok()) return 0;
  wb::DiagnosticList verify = wb::tir::VerifyWellFormed(r.module);
  verify.Append(wb::relax::VerifyWellFormed(r.module));
  if (verify.HasErrors()) Broken("not well-formed", wb::script::PrintModule(r.module), verify);
  std::string text = wb::script::PrintModule(r.module);
  wb::script::ParseResult again = wb::script::Parse(text, "<printed>");
  if (!again.ok()) Broken("the printed text does not parse back", text, again.diagnostics);
  if (!wb::ir::StructuralEqual(again.module, r.module)) Broken("the re-parsed module differs", text, {});
  if (wb::script::PrintModule(again.module) != text) Broken("the re-parsed module prints differently", text, {});
  return 0;
}
