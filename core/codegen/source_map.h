// Source maps of a build's text views: which line of the source (the TVMScript the built module
// was parsed from) each line of the LLVM IR or assembly came from, read from the debug line
// information a build with BuildOptions::debug_lines puts in them (`!dbg` locations in the IR,
// `.file`/`.loc` directives in the assembly).
#pragma once

#include <string>
#include <vector>

namespace wb::codegen {

enum class SourceMapFormat { kLLVMIR, kAssembly };

struct SourceLine {
  std::string file;  // the path the source was named by
  int line = 0;      // 1-based; 0: the view's line maps to no source line
};

// One entry per line of `text` (lines split at '\n'). Instructions map to the line of their
// location; metadata, directives, labels and comments map to none.
std::vector<SourceLine> MapSourceLines(const std::string& text, SourceMapFormat format);

// `text` with each mapped line followed by a comment "file:line" (`; ` in the IR; in assembly the
// target's comment marker, `#` or `//`).
std::string AnnotateSourceLines(const std::string& text, SourceMapFormat format);

}  // namespace wb::codegen
