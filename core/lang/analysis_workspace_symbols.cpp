// Workspace symbols: the outline flattened, for "go to symbol in workspace" across open files.
#include <algorithm>
#include <cctype>

#include "lang/analysis.h"

namespace wb::lang {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void Flatten(const DocumentSymbol& s, const std::string& container, const std::string& query,
             std::vector<WorkspaceSymbol>* out) {
  if (s.kind != SymbolKind::kModule && (query.empty() || Lower(s.name).find(query) != std::string::npos)) {
    out->push_back({s.name, s.kind, container, s.selection_range});
  }
  for (const DocumentSymbol& c : s.children) Flatten(c, s.name, query, out);
}

}  // namespace

std::vector<WorkspaceSymbol> ComputeWorkspaceSymbols(const Document& doc, const std::string& query) {
  std::vector<WorkspaceSymbol> out;
  std::string q = Lower(query);
  for (const DocumentSymbol& s : ComputeDocumentSymbols(doc)) Flatten(s, "", q, &out);
  return out;
}

}  // namespace wb::lang
