// Links between the levels of one build, without any UI: a Relax binding of the document, the
// PrimFunc it calls (written in the document, or made from the binding's op by LegalizeOps), that
// PrimFunc's statements in the printed module the build compiled, and the lines of the LLVM IR and
// assembly views that came from them (the build's debug lines, codegen/source_map.h). Both ways:
// from a document line to the view lines, and from a view line back to the printed statement and
// the bindings.
//
// The kernels' spans must name lines of one text the user can read: the module to build is
// printed (after LegalizeOps when it has Relax functions, so the PrimFuncs made from ops are in
// it) and parsed back from that text (PrintForLinking); the build of the parsed module with debug
// lines then maps each instruction to a line of it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/source_map.h"
#include "ir/expr.h"
#include "support/diagnostic.h"

namespace wb::workbench {

// `module` printed under `path` and parsed back; `module` null (with the reason) when the text does
// not parse back.
struct PrintedModule {
  std::string path;
  std::string text;
  ir::IRModule module;
  DiagnosticList diagnostics;
  // Per PrimFunc name: the first and last lines (1-based) of the document's Relax bindings that
  // call it. A binding keeps its span through LegalizeOps, which replaces the op call by call_tir
  // of the PrimFunc it made, and FuseOps' call of a fused function spans the bindings it fused
  // (FuseTIR keeps it), so these hold for kernels written in the document, for those made from
  // ops and for fused ones.
  std::map<std::string, std::vector<std::pair<int, int>>> callers;
  // Per PrimFunc name written in the document: its first and last line there.
  std::map<std::string, std::pair<int, int>> document_ranges;
};

// `document` is the module whose spans are the document's (the editor's parse, or the schedule's
// module built from it); `module` what is built (it may be `document` itself).
PrintedModule PrintForLinking(const ir::IRModule& module, const ir::IRModule& document,
                              const std::string& path);

// One build's links, from its printed module and its views' texts.
class SourceLinks {
 public:
  SourceLinks(PrintedModule printed, const std::string& llvm_ir, const std::string& assembly);

  const PrintedModule& printed() const { return printed_; }

  // The PrimFunc a document line belongs to: a binding that calls it (the narrowest, where a fused
  // call's span holds other bindings), or a line of its definition in the document. Empty when
  // none.
  std::string KernelAtDocumentLine(int line) const;
  // The kernel's first and last line in the printed module; {0, 0} when it is not there.
  std::pair<int, int> PrintedRange(const std::string& kernel) const;
  // The lines (0-based) of a view that came from the kernel's statements.
  std::vector<int> ViewLines(const std::string& kernel, codegen::SourceMapFormat view) const;

  // Where a view's line (0-based) came from.
  struct Origin {
    int printed_line = 0;       // 1-based line of the printed module
    std::string kernel;         // the PrimFunc holding that line
    std::vector<int> bindings;  // document lines of the bindings that call it, every line of each
    std::pair<int, int> document_range{
        0, 0};  // the kernel's definition in the document, if written there
  };
  // Empty when the line maps to no statement.
  std::optional<Origin> OriginOfViewLine(int line, codegen::SourceMapFormat view) const;

 private:
  const std::vector<codegen::SourceLine>& Map(codegen::SourceMapFormat view) const;

  PrintedModule printed_;
  std::map<std::string, std::pair<int, int>> printed_ranges_;
  std::vector<codegen::SourceLine> ir_;
  std::vector<codegen::SourceLine> assembly_;
};

}  // namespace wb::workbench
