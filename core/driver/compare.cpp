// `workbench --batch FILE --compare OTHER [--ignore-global-symbol]`: structural equality of two
// modules: every function that differs (aligned by name) and every place it differs, each
// underlined in both sources.
#include <optional>
#include <ostream>

#include "driver/commands.h"
#include "driver/module_input.h"
#include "driver/roundtrip.h"
#include "ir/structural_equal.h"
#include "script/tvmscript.h"
#include "workbench/changed_functions.h"

namespace wb::driver {

namespace {

// Removes `global_symbol` from every function and, when the module holds a single function,
// renames it to "main": what TVM's assert_structural_equal_ignore_global_symbol compares.
ir::IRModule StripGlobalSymbols(const ir::IRModule& module) {
  std::vector<ir::GlobalVar> vars;
  std::vector<ir::BaseFunc> funcs;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    ir::BaseFunc func = module->functions[i];
    if (func->attrs.count("global_symbol")) {
      ir::Object* copy = func->Clone();
      static_cast<ir::BaseFuncNode*>(copy)->attrs.erase("global_symbol");
      func = ir::BaseFunc(static_cast<ir::BaseFuncNode*>(copy));
    }
    vars.push_back(module->functions.size() == 1 ? ir::MakeGlobalVar("main")
                                                 : module->global_vars[i]);
    funcs.push_back(func);
  }
  return ir::WithFunctions(module, std::move(vars), std::move(funcs));
}

// The source line of a node, with its span underlined; a node without one (a literal extent)
// points at the nearest node above it that has one, or says that nothing does.
std::string Underline(const ir::ObjectRef& node, const ir::ObjectRef& located, const std::string& path_in_ir,
                      bool color) {
  if (node.defined() && node->span.defined()) {
    return RenderDiagnostic(Diagnostic{Severity::kNote, path_in_ir, node->span, {}}, color);
  }
  if (located.defined() && located->span.defined()) {
    return RenderDiagnostic(
        Diagnostic{Severity::kNote, path_in_ir + " (within the " + located->type_key() + " here)", located->span, {}},
        color);
  }
  return "  (" + path_in_ir + ": no source location)\n";
}

}  // namespace

int RunCompareCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  script::ParseResult lhs, rhs;
  bool ok_l = ParseFileOrReport(opts.files[0], &lhs, opts.color, err);
  bool ok_r = ParseFileOrReport(opts.compare, &rhs, opts.color, err);
  if (!ok_l || !ok_r) return 2;
  ir::IRModule a = lhs.module, b = rhs.module;
  if (opts.ignore_global_symbol && a->size() == 1 && b->size() == 1) {
    a = StripGlobalSymbols(a);
    b = StripGlobalSymbols(b);
  }
  // Every function that differs, aligned by name, each with every place it differs; what
  // differs outside the functions (module attributes, their order) as the whole module's first
  // mismatch when the functions all agree.
  std::vector<workbench::FunctionDiff> diffs = workbench::DiffFunctions(a, b);
  std::optional<ir::StructuralMismatch> whole;
  if (diffs.empty()) {
    whole = ir::FindFirstMismatch(a, b);
    if (!whole) {
      out << "structurally equal\n";
      return 0;
    }
    out << "not structurally equal: " << MismatchDetail(*whole) << "\n";
    out << Underline(whole->lhs, whole->lhs_located, opts.files[0] + ": " + whole->lhs_path, opts.color);
    out << Underline(whole->rhs, whole->rhs_located, opts.compare + ": " + whole->rhs_path, opts.color);
  } else {
    out << "not structurally equal: " << diffs.size() << " function(s) differ\n";
    for (const workbench::FunctionDiff& d : diffs) {
      if (d.kind == workbench::FunctionDiff::Kind::kOnlyBefore) {
        out << "function " << d.name << ": only in " << opts.files[0] << "\n";
      } else if (d.kind == workbench::FunctionDiff::Kind::kOnlyAfter) {
        out << "function " << d.name << ": only in " << opts.compare << "\n";
      } else {
        size_t count = d.mismatches.size() + d.more_mismatches;
        out << "function " << d.name << ": " << count
            << (count == 1 ? " mismatch\n" : " mismatches\n");
        for (const ir::StructuralMismatch& m : d.mismatches) {
          out << "  " << workbench::MismatchText(m) << "\n";
          out << Underline(m.lhs, m.lhs_located, opts.files[0] + ": " + m.lhs_path, opts.color);
          out << Underline(m.rhs, m.rhs_located, opts.compare + ": " + m.rhs_path, opts.color);
        }
        if (d.more_mismatches) out << "  and " << d.more_mismatches << " more\n";
      }
    }
  }
  out << "--- " << opts.files[0] << "\n" << script::Print(lhs) << "\n";
  out << "--- " << opts.compare << "\n" << script::Print(rhs) << "\n";
  return 1;
}


}  // namespace wb::driver
