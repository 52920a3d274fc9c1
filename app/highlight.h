// Syntax highlighting of TVMScript for the editor, from grammar/queries/highlights.scm (our
// tree-sitter query over tree-sitter-python): text in, capture ranges out. Only the editor uses
// tree-sitter; the LSP server's semantic tokens come from the core's own parser (core/lang).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct TSParser;
struct TSTree;

namespace wb::app {

struct HighlightRange {
  uint32_t begin = 0;  // byte offsets into the text
  uint32_t end = 0;
  std::string capture;  // "namespace", "type.dtype", "label", "keyword", ...
};

// One document's parse, kept across edits: Update tells tree-sitter which bytes changed since
// the previous text (ts_tree_edit) and reparses with the old tree, so the subtrees the edit did
// not touch are reused instead of the whole document being parsed again on every keystroke.
class SyntaxTree {
 public:
  SyntaxTree();
  ~SyntaxTree();
  SyntaxTree(const SyntaxTree&) = delete;
  SyntaxTree& operator=(const SyntaxTree&) = delete;

  // Reparses for `text`, the document's whole new content. The edit is the span between the
  // longest common prefix and suffix of the old and new text: exact for one contiguous change
  // (typing, deleting, pasting) and still correct, only less reuse, for anything else.
  void Update(std::string text);
  const std::string& text() const { return text_; }

  // Captures in query order: where ranges overlap, later ones win (Neovim's convention).
  // Captures named with a leading '_' (predicate helpers) are left out. `#match?`/`#eq?`
  // predicates (and their `not-` forms) are evaluated here, as tree-sitter's C API does not.
  std::vector<HighlightRange> Highlight() const;

 private:
  std::unique_ptr<TSParser, void (*)(TSParser*)> parser_;
  std::unique_ptr<TSTree, void (*)(TSTree*)> tree_;
  std::string text_;
};

// The captures of `text` parsed from scratch.
std::vector<HighlightRange> Highlight(std::string_view text);

// The query texts compiled into the program (grammar/queries/*.scm, by app/CMakeLists.txt).
std::string_view HighlightsQuery();
std::string_view LocalsQuery();
std::string_view FoldsQuery();

}  // namespace wb::app
