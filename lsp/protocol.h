// LSP 3.17 JSON shapes of the core's language-feature results (and of positions coming in).
#pragma once

#include <nlohmann/json.hpp>

#include "workbench/analysis.h"

namespace wb::lsp {

using json = nlohmann::json;

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
json Locations(const std::string& uri, const std::vector<workbench::TextRange>& ranges);

}  // namespace wb::lsp
