// LSP 3.17 JSON shapes of the core's language-feature results (and of positions coming in).
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "lang/analysis.h"

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
lang::TextPosition ToPosition(const json& position);
lang::TextRange ToRange(const json& range);

json ToJson(lang::TextPosition position);
json ToJson(const lang::TextRange& range);
json ToJson(const std::string& uri, const lang::DocumentDiagnostic& diagnostic);
json ToJson(const lang::DocumentSymbol& symbol);
json ToJson(const lang::HoverInfo& hover);
json ToJson(const lang::CompletionItem& item);
json ToJson(const lang::FoldingRange& range);
json ToJson(const lang::Highlight& highlight);
json ToJson(const lang::SignatureHelp& help);
json ToJson(const std::string& uri, const lang::WorkspaceSymbol& symbol);
// The `data` array of a SemanticTokens result (relative encoding).
json SemanticTokensData(const std::vector<lang::SemanticToken>& tokens);
int LspSymbolKind(lang::SymbolKind kind);
json Locations(const std::string& uri, const std::vector<lang::TextRange>& ranges);

}  // namespace wb::lsp
