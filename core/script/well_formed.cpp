// Well-formedness of a parsed module as TVM's decorators have it: TensorIR's and Relax's
// checks over every function, except that `check_well_formed=False` on a function (or on the
// module) skips the checks of what lies inside it, as TVM does for its tests' deliberately
// ill-formed inputs (a free variable, a loop variable used inside a block).
#include "relax/well_formed.h"
#include "script/tvmscript.h"
#include "tir/verifier.h"

namespace wb::script {

DiagnosticList VerifyWellFormed(const ParseResult& parsed) {
  DiagnosticList all = tir::VerifyWellFormed(parsed.module);
  all.Append(relax::VerifyWellFormed(parsed.module));
  if (parsed.unchecked.empty()) return all;
  std::vector<Span> skipped;
  for (const auto& gv : parsed.unchecked) {
    if (ir::BaseFunc f = parsed.module->Lookup(gv); f.defined() && f->span.defined()) skipped.push_back(f->span);
  }
  auto inside_skipped = [&](const Span& s) {
    for (const Span& f : skipped) {
      if (s.defined() && s.file == f.file && s.begin >= f.begin && s.end <= f.end) return true;
    }
    return false;
  };
  DiagnosticList kept;
  for (const Diagnostic& d : all) {
    if (!inside_skipped(d.span)) kept.Add(d);
  }
  return kept;
}

}  // namespace wb::script
