// The symbol index of a document: every name the parse defines (functions, buffers, variables,
// blocks; in PrimFuncs and Relax functions alike) with its definition's text range and the region
// of text where it is visible, and every occurrence of those names in the text resolved to one of
// them. Hover, go to definition, find references, highlights and completion are all look-ups in
// this index. Functions left out of the module for an error (ParseResult::recovered) are indexed
// as far as they were built, so the features answer in them too.
//
// Why not the IR alone: a Var node is shared by all its uses, so only its definition carries a
// span. Uses are found in the text instead (identifier tokens, and identifiers quoted as strings
// such as a shape var "n" or a block name) and resolved by name to the innermost definition whose
// scope holds them, as Python's own lexical scoping (plus TVMScript's block scopes) would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/document.h"
#include "tir/stmt.h"

namespace wb::lang {

enum class SymbolRole { kFunction, kParam, kBuffer, kShapeVar, kLoopVar, kIterVar, kLocalVar, kBlock };

// A Relax parameter or binding is a kParam or kLocalVar whose node is a relax::VarNode (a
// relax::DataflowVarNode inside `R.dataflow()`); a TensorIR one's is a tir::VarNode.
struct IndexedSymbol {
  SymbolRole role = SymbolRole::kLocalVar;
  std::string name;
  uint32_t def_begin = 0, def_end = 0;      // the defining name in the text
  uint32_t scope_begin = 0, scope_end = 0;  // where the name resolves to this symbol
  const ir::Object* node = nullptr;  // the function, Buffer, Var (tir or relax) or SBlock
  const ir::Object* owner = nullptr;  // the For of a loop var, the IterVar of an iter var
  const ir::BaseFuncNode* func = nullptr;  // the PrimFunc or relax::Function it belongs to
};

struct Occurrence {
  uint32_t begin = 0, end = 0;
  int symbol = -1;
  bool is_definition = false;
};

class SymbolIndex {
 public:
  explicit SymbolIndex(const Document& doc);
  // The index of the document's current text, built once per version.
  static const SymbolIndex& Of(const Document& doc);

  const std::vector<IndexedSymbol>& symbols() const { return symbols_; }
  // Sorted by position.
  const std::vector<Occurrence>& occurrences() const { return occurrences_; }
  // The occurrence touching `offset` (its end included, as a cursor right after a name still
  // points at it); null when none.
  const Occurrence* At(uint32_t offset) const;
  std::vector<Occurrence> OccurrencesOf(int symbol) const;
  // Symbols whose scope holds `offset` and whose name is defined before it, innermost first
  // for each name (one entry per name).
  std::vector<int> VisibleAt(uint32_t offset) const;

 private:
  // Where a name occurs: plain code, a string literal, or after `Module.`.
  enum class Context { kCode, kQuoted, kMember };
  int Resolve(std::string_view name, uint32_t offset, Context context) const;

  std::vector<IndexedSymbol> symbols_;
  std::vector<Occurrence> occurrences_;
  std::unordered_map<std::string, std::vector<int>> by_name_;
};

// An identifier of the text as core/script's lexer finds it (keywords included, comments and
// numbers not; `quoted` for the contents of a string literal that is itself an identifier,
// e.g. "n").
struct Token {
  uint32_t begin = 0, end = 0;
  bool quoted = false;
  bool after_dot = false;  // `T.exp`: exp; `Module.f`: f
};
std::vector<Token> Tokenize(std::string_view text);

}  // namespace wb::lang
