// Formatting through the canonical printer, and indentation-based folding ranges.
#include "lang/analysis.h"

namespace wb::lang {

FormatResult FormatDocument(const Document& doc) {
  const script::ParseResult& parsed = doc.Parsed();
  if (!parsed.ok()) {
    std::string why = "cannot format: the file does not parse";
    for (const Diagnostic& d : parsed.diagnostics) {
      if (d.severity != Severity::kError) continue;
      TextPosition p = doc.PositionOf(d.span.begin);
      why += " (line " + std::to_string(p.line + 1) + ":" + std::to_string(p.character + 1) + ": " + d.message + ")";
      break;
    }
    return {std::nullopt, why};
  }
  try {
    return {script::Print(parsed), ""};
  } catch (const DiagnosticError& e) {
    return {std::nullopt, "cannot format: " + e.diagnostic().message};
  }
}

std::vector<FoldingRange> ComputeFoldingRanges(const Document& doc) {
  // Per line: indentation, or -1 for a blank line; whether it is a comment.
  struct Line {
    int indent;
    bool comment;
    bool opens;  // ends with ':' (a compound statement header)
  };
  std::vector<Line> lines;
  const std::string& text = doc.text();
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) {
      lines.push_back({-1, false, false});
    } else {
      size_t last = line.find_last_not_of(" \t\r");
      bool comment = line[first] == '#';
      lines.push_back({static_cast<int>(first), comment, !comment && line[last] == ':'});
    }
    start = end + 1;
  }
  std::vector<FoldingRange> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].opens) {
      size_t last = i;
      for (size_t j = i + 1; j < lines.size(); ++j) {
        if (lines[j].indent < 0) continue;
        if (lines[j].indent <= lines[i].indent) break;
        last = j;
      }
      if (last > i) out.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(last), false});
    } else if (lines[i].comment && (i == 0 || !lines[i - 1].comment)) {
      size_t last = i;
      while (last + 1 < lines.size() && lines[last + 1].comment) ++last;
      if (last > i) out.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(last), true});
    }
  }
  return out;
}

}  // namespace wb::lang
