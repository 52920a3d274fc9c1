// Diagnostics of a document: the parser's, then the well-formedness verifiers' (TensorIR's and
// Relax's) on a module that parsed cleanly (on a partial module they would report the holes the
// parser already explained).
#include "lang/analysis.h"

namespace wb::lang {

namespace {

DocumentDiagnostic Convert(const Document& doc, const Diagnostic& d) {
  DocumentDiagnostic out;
  out.range = doc.RangeOf(d.span);
  out.severity = d.severity;
  out.message = d.message;
  for (const DiagnosticNote& note : d.notes) out.related.push_back({doc.RangeOf(note.span), note.message});
  return out;
}

}  // namespace

std::vector<DocumentDiagnostic> ComputeDiagnostics(const Document& doc) {
  const script::ParseResult& parsed = doc.Parsed();
  std::vector<DocumentDiagnostic> out;
  for (const Diagnostic& d : parsed.diagnostics) out.push_back(Convert(doc, d));
  if (parsed.ok()) {
    for (const Diagnostic& d : script::VerifyWellFormed(parsed)) out.push_back(Convert(doc, d));
  }
  return out;
}

}  // namespace wb::lang
