// The language features of a TVMScript document, shared by the LSP server and the GUI:
// diagnostics, outline, hover, navigation, completion, formatting and folding. Each works on a
// Document and answers in TextRanges (LSP positions), knowing nothing of JSON-RPC or widgets.
//
// Everything degrades on text with errors (a syntax error, a semantic error in a PrimFunc or a
// Relax function): the parser's diagnostics say what is wrong, and the other features answer
// from whatever parsed (or with nothing) instead of failing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lang/document.h"
#include "support/diagnostic.h"

namespace wb::lang {

// --- Diagnostics -------------------------------------------------------------------------------

struct RelatedInformation {
  TextRange range;
  std::string message;
};

struct DocumentDiagnostic {
  TextRange range;
  Severity severity = Severity::kError;
  std::string message;
  std::vector<RelatedInformation> related;  // from the Diagnostic's notes
};

// Parser diagnostics, then (when the text parses cleanly) the well-formedness verifier's.
std::vector<DocumentDiagnostic> ComputeDiagnostics(const Document& doc);

// --- Outline -----------------------------------------------------------------------------------

enum class SymbolKind { kModule, kFunction, kBlock, kBuffer, kVariable };

struct DocumentSymbol {
  std::string name;
  std::string detail;
  SymbolKind kind = SymbolKind::kVariable;
  TextRange range;            // the whole construct
  TextRange selection_range;  // its name
  std::vector<DocumentSymbol> children;
};

// module > functions > (nested) blocks > buffers; parameters' buffers under their function, a
// Relax function's parameters under it.
std::vector<DocumentSymbol> ComputeDocumentSymbols(const Document& doc);

// --- Hover -------------------------------------------------------------------------------------

struct HoverInfo {
  std::string markdown;
  TextRange range;
};

std::optional<HoverInfo> ComputeHover(const Document& doc, TextPosition position);

// --- Navigation --------------------------------------------------------------------------------

// Where the name at `position` is defined (empty when it names nothing of the document).
std::vector<TextRange> FindDefinition(const Document& doc, TextPosition position);
// Every occurrence of the symbol at `position`, its definition first when requested.
std::vector<TextRange> FindReferences(const Document& doc, TextPosition position,
                                      bool include_declaration);

struct Highlight {
  TextRange range;
  bool is_definition = false;
};
std::vector<Highlight> ComputeHighlights(const Document& doc, TextPosition position);

// --- Completion --------------------------------------------------------------------------------

enum class CompletionKind { kFunction, kKeyword, kVariable, kBuffer, kConstant, kModule };

struct CompletionItem {
  std::string label;
  CompletionKind kind = CompletionKind::kVariable;
  std::string detail;         // a signature or a type
  std::string documentation;  // markdown
};

// `T.`, `R.` (and `R.nn.` ...), `I.` and `sch.` members after those prefixes, axis kinds after
// `T.axis.`, dtype and scope strings inside a string
// literal, otherwise the names in scope at `position` and the `T` namespace.
std::vector<CompletionItem> ComputeCompletion(const Document& doc, TextPosition position);

// --- Signature help ----------------------------------------------------------------------------

struct SignatureHelp {
  std::string label;  // "T.grid(*extents)"
  std::string documentation;
  std::vector<std::string> parameters;  // substrings of label, in order
  int active_parameter = 0;
};

// The signature of the `T.`, `R.`, `I.` or `sch.` call whose argument list holds the cursor, and
// which parameter the cursor is on (by position, or by `name=`). Works on text that does not parse.
std::optional<SignatureHelp> ComputeSignatureHelp(const Document& doc, TextPosition position);

// --- Semantic tokens -----------------------------------------------------------------------------

struct SemanticToken {
  TextRange range;  // within one line
  int type = 0;     // index into SemanticTokenTypes()
  int modifiers = 0;  // bits over SemanticTokenModifiers()
};
const std::vector<std::string>& SemanticTokenTypes();
const std::vector<std::string>& SemanticTokenModifiers();
// Namespaces (T, R, I), their members, and every name the symbol index resolves (functions,
// parameters, buffers, shape vars, loop and iteration vars, blocks), in text order.
std::vector<SemanticToken> ComputeSemanticTokens(const Document& doc);

// --- Workspace symbols ---------------------------------------------------------------------------

struct WorkspaceSymbol {
  std::string name;
  SymbolKind kind = SymbolKind::kVariable;
  std::string container;  // the enclosing symbol's name
  TextRange range;
};
// The document's symbols whose name contains `query` (case-insensitive; every symbol when empty).
std::vector<WorkspaceSymbol> ComputeWorkspaceSymbols(const Document& doc, const std::string& query);

// --- Formatting and folding --------------------------------------------------------------------

struct FormatResult {
  std::optional<std::string> text;  // the canonical text; absent when it cannot be formatted
  std::string error;                // why not
};

// The canonical printer's text for the document; refuses (with the first error) when the text
// does not parse, since printing a partial module would drop the user's code.
FormatResult FormatDocument(const Document& doc);

struct FoldingRange {
  uint32_t start_line = 0;
  uint32_t end_line = 0;
  bool is_comment = false;
};

// Indentation-based (so it works on text that does not parse): every compound statement and
// every run of two or more comment lines.
std::vector<FoldingRange> ComputeFoldingRanges(const Document& doc);

}  // namespace wb::lang
