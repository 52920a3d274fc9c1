// Syntax highlighting of TVMScript from grammar/queries/highlights.scm (our tree-sitter query),
// for the GUI's editor and the LSP server's semantic tokens: text in, capture ranges out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb::workbench {

struct HighlightRange {
  uint32_t begin = 0;  // byte offsets into the text
  uint32_t end = 0;
  std::string capture;  // "namespace", "type.dtype", "label", "keyword", ...
};

// Captures in query order: where ranges overlap, later ones win (Neovim's convention). Captures
// named with a leading '_' (predicate helpers) are left out. `#match?`/`#eq?` predicates (and
// their `not-` forms) are evaluated here, as tree-sitter's C API does not.
std::vector<HighlightRange> Highlight(std::string_view text);

// The query texts compiled into the program (grammar/queries/*.scm).
std::string_view HighlightsQuery();
std::string_view LocalsQuery();
std::string_view FoldsQuery();

}  // namespace wb::workbench
