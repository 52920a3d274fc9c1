// LSP 3.17 JSON shapes of the core's language-feature results (and of positions coming in).
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "workbench/analysis.h"

namespace wb::lsp {

using json = nlohmann::json;

// A protocol-level failure with its JSON-RPC error code; handlers throw it and the server
// answers the request with it.
struct RpcError : std::runtime_error {
  RpcError(int code, const std::string& message) : std::runtime_error(message), code(code) {}
  int code;
};

inline std::string UriOf(const json& params) { return params.at("textDocument").at("uri").get<std::string>(); }

// Reads `{line, character}`; throws nlohmann::json exceptions on a wrong shape (the server
// answers those with InvalidParams).
workbench::TextPosition ToPosition(const json& position);
workbench::TextRange ToRange(const json& range);

json ToJson(workbench::TextPosition position);
json ToJson(const workbench::TextRange& range);
json ToJson(const std::string& uri, const workbench::DocumentDiagnostic& diagnostic);
json ToJson(const workbench::DocumentSymbol& symbol);
json ToJson(const workbench::HoverInfo& hover);
json ToJson(const workbench::CompletionItem& item);
json ToJson(const workbench::FoldingRange& range);
json ToJson(const workbench::Highlight& highlight);
json ToJson(const workbench::SignatureHelp& help);
json ToJson(const std::string& uri, const workbench::WorkspaceSymbol& symbol);
// The `data` array of a SemanticTokens result (relative encoding).
json SemanticTokensData(const std::vector<workbench::SemanticToken>& tokens);
int LspSymbolKind(workbench::SymbolKind kind);
json Locations(const std::string& uri, const std::vector<workbench::TextRange>& ranges);

}  // namespace wb::lsp
