#include "protocol.h"

namespace wb::lsp {

using namespace lang;

TextPosition ToPosition(const json& position) {
  int64_t line = position.at("line").get<int64_t>();
  int64_t character = position.at("character").get<int64_t>();
  if (line < 0 || character < 0) throw json::other_error::create(501, "negative position", &position);
  return {static_cast<uint32_t>(line), static_cast<uint32_t>(character)};
}

TextRange ToRange(const json& range) { return {ToPosition(range.at("start")), ToPosition(range.at("end"))}; }

json ToJson(TextPosition position) { return {{"line", position.line}, {"character", position.character}}; }

json ToJson(const TextRange& range) { return {{"start", ToJson(range.start)}, {"end", ToJson(range.end)}}; }

json ToJson(const std::string& uri, const DocumentDiagnostic& d) {
  // LSP DiagnosticSeverity: Error 1, Warning 2, Information 3, Hint 4.
  int severity = d.severity == Severity::kError ? 1 : d.severity == Severity::kWarning ? 2 : 3;
  json out = {{"range", ToJson(d.range)}, {"severity", severity}, {"source", "workbench"}, {"message", d.message}};
  if (!d.related.empty()) {
    json related = json::array();
    for (const RelatedInformation& r : d.related) {
      related.push_back({{"location", {{"uri", uri}, {"range", ToJson(r.range)}}}, {"message", r.message}});
    }
    out["relatedInformation"] = std::move(related);
  }
  return out;
}

int LspSymbolKind(SymbolKind kind) {
  // LSP SymbolKind: Module 2, Struct 23, Function 12, Array 18, Variable 13.
  switch (kind) {
    case SymbolKind::kModule: return 2;
    case SymbolKind::kFunction: return 12;
    case SymbolKind::kBlock: return 23;
    case SymbolKind::kBuffer: return 18;
    case SymbolKind::kVariable: return 13;
  }
  return 13;
}

json ToJson(const DocumentSymbol& symbol) {
  int kind = LspSymbolKind(symbol.kind);
  json children = json::array();
  for (const DocumentSymbol& c : symbol.children) children.push_back(ToJson(c));
  return {{"name", symbol.name},
          {"detail", symbol.detail},
          {"kind", kind},
          {"range", ToJson(symbol.range)},
          {"selectionRange", ToJson(symbol.selection_range)},
          {"children", std::move(children)}};
}

json ToJson(const HoverInfo& hover) {
  return {{"contents", {{"kind", "markdown"}, {"value", hover.markdown}}}, {"range", ToJson(hover.range)}};
}

json ToJson(const CompletionItem& item) {
  // LSP CompletionItemKind: Function 3, Variable 6, Module 9, Keyword 14, Constant 21, Field 5.
  int kind = 6;
  switch (item.kind) {
    case CompletionKind::kFunction: kind = 3; break;
    case CompletionKind::kKeyword: kind = 14; break;
    case CompletionKind::kVariable: kind = 6; break;
    case CompletionKind::kBuffer: kind = 5; break;
    case CompletionKind::kConstant: kind = 21; break;
    case CompletionKind::kModule: kind = 9; break;
  }
  json out = {{"label", item.label}, {"kind", kind}};
  if (!item.detail.empty()) out["detail"] = item.detail;
  if (!item.documentation.empty()) out["documentation"] = {{"kind", "markdown"}, {"value", item.documentation}};
  return out;
}

json ToJson(const FoldingRange& range) {
  json out = {{"startLine", range.start_line}, {"endLine", range.end_line}};
  if (range.is_comment) out["kind"] = "comment";
  return out;
}

json ToJson(const Highlight& highlight) {
  // LSP DocumentHighlightKind: Text 1, Read 2, Write 3.
  return {{"range", ToJson(highlight.range)}, {"kind", highlight.is_definition ? 3 : 2}};
}

json Locations(const std::string& uri, const std::vector<TextRange>& ranges) {
  json out = json::array();
  for (const TextRange& r : ranges) out.push_back({{"uri", uri}, {"range", ToJson(r)}});
  return out;
}

json ToJson(const SignatureHelp& help) {
  json params = json::array();
  for (const std::string& p : help.parameters) params.push_back({{"label", p}});
  json signature = {{"label", help.label},
                    {"documentation", {{"kind", "markdown"}, {"value", help.documentation}}},
                    {"parameters", std::move(params)}};
  return {{"signatures", json::array({std::move(signature)})},
          {"activeSignature", 0},
          {"activeParameter", help.active_parameter}};
}

json SemanticTokensData(const std::vector<SemanticToken>& tokens) {
  // Five integers a token, each position relative to the previous token (LSP's encoding).
  json data = json::array();
  uint32_t line = 0, character = 0;
  for (const SemanticToken& t : tokens) {
    uint32_t dl = t.range.start.line - line;
    uint32_t dc = dl == 0 ? t.range.start.character - character : t.range.start.character;
    data.push_back(dl);
    data.push_back(dc);
    data.push_back(t.range.end.character - t.range.start.character);
    data.push_back(t.type);
    data.push_back(t.modifiers);
    line = t.range.start.line;
    character = t.range.start.character;
  }
  return data;
}

json ToJson(const std::string& uri, const WorkspaceSymbol& symbol) {
  json out = {{"name", symbol.name},
              {"kind", LspSymbolKind(symbol.kind)},
              {"location", {{"uri", uri}, {"range", ToJson(symbol.range)}}}};
  if (!symbol.container.empty()) out["containerName"] = symbol.container;
  return out;
}

}  // namespace wb::lsp
