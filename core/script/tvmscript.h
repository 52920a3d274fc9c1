// TVMScript, Apache TVM's Python-embedded text format for IR: the parser (our own CST ->
// IR, collecting every diagnostic with its span) and the canonical printer (IR -> text that TVM
// itself would print for the same IR). See ../../../shared/TVMSCRIPT.md for the dialect and
// core/script/CONVENTIONS.md for how its constructs map onto our IR.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/expr.h"
#include "support/diagnostic.h"
#include "tir/stmt.h"

namespace wb::script {

struct ParseResult {
  // The parsed module; functions that failed to parse are left out. Null only when nothing
  // parsed at all. A source holding a lone `@T.prim_func` gives a module with that function.
  ir::IRModule module;
  // True when the source was an `@I.ir_module` class, false for top-level functions.
  bool is_module = true;
  DiagnosticList diagnostics;
  // The functions (PrimFuncs and Relax functions) left out of `module` for an error inside
  // their body, as far as they were built: a statement that failed (or did not parse) is
  // missing, the rest is there (a Relax name the failed statement bound is an untyped Var). Not
  // valid IR: only for what reads names and spans (the editor's hover, navigation, outline),
  // which then still answer from what did parse; never verified, printed, lowered or run.
  struct Recovered {
    ir::GlobalVar gvar;
    ir::BaseFunc func;
  };
  std::vector<Recovered> recovered;
  // The functions of `module` whose decorator, or the module's, says check_well_formed=False:
  // TVM does not check them, and VerifyWellFormed(ParseResult) reports nothing inside them.
  std::vector<ir::GlobalVar> unchecked;

  bool ok() const { return module.defined() && !diagnostics.HasErrors(); }
};

// Parses TVMScript. Never throws on user input and always terminates.
ParseResult Parse(std::string_view text, std::string path = "<input>");

// The TensorIR and Relax well-formedness findings for a parsed module, leaving out those inside
// the functions that opted out (ParseResult::unchecked).
DiagnosticList VerifyWellFormed(const ParseResult& parsed);

struct PrintOptions {
  // Emit the commented import header (the default, as TVM's `script()` does).
  bool header = true;
};

// Canonical TVMScript for a module: `@I.ir_module` / `class Module:`.
std::string PrintModule(const ir::IRModule& module, const PrintOptions& options = {});
// Canonical TVMScript for one standalone PrimFunc.
std::string PrintPrimFunc(const tir::PrimFunc& func, const PrintOptions& options = {});
// Prints what Parse gave back in the same shape (module, or its functions standalone).
std::string Print(const ParseResult& parsed, const PrintOptions& options = {});

}  // namespace wb::script
