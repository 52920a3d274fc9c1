// Semantic tokens: what the symbol index knows about each name (a buffer, a loop variable, a
// block...), which a grammar-based highlighter cannot tell apart, plus the script namespaces.
#include <algorithm>

#include "lang/analysis.h"
#include "lang/analysis_index.h"

namespace wb::lang {

namespace {

// Indices into the legend below.
enum TokenType { kNamespace, kFunction, kParameter, kVariable, kTypeParameter, kClass, kMethod };
enum TokenModifier { kDeclaration = 1, kReadonly = 2 };

int TypeOf(SymbolRole role) {
  switch (role) {
    case SymbolRole::kFunction:
      return kFunction;
    case SymbolRole::kParam:
      return kParameter;
    case SymbolRole::kShapeVar:
      return kTypeParameter;
    case SymbolRole::kBlock:
      return kClass;
    case SymbolRole::kBuffer:
    case SymbolRole::kLoopVar:
    case SymbolRole::kIterVar:
    case SymbolRole::kLocalVar:
      return kVariable;
  }
  return kVariable;
}

}  // namespace

const std::vector<std::string>& SemanticTokenTypes() {
  static const std::vector<std::string> types = {"namespace", "function",      "parameter", "variable",
                                                 "typeParameter", "class", "method"};
  return types;
}

const std::vector<std::string>& SemanticTokenModifiers() {
  static const std::vector<std::string> modifiers = {"declaration", "readonly"};
  return modifiers;
}

std::vector<SemanticToken> ComputeSemanticTokens(const Document& doc) {
  struct Raw {
    uint32_t begin, end;
    int type, modifiers;
  };
  std::vector<Raw> raw;
  const std::string& text = doc.text();
  // `T.x`, `R.nn.x`, `I.x`: the namespace and the member.
  std::vector<Token> tokens = Tokenize(text);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.quoted || t.after_dot) continue;
    std::string_view word(text.data() + t.begin, t.end - t.begin);
    if (word != "T" && word != "R" && word != "I") continue;
    if (t.end >= text.size() || text[t.end] != '.') continue;
    raw.push_back({t.begin, t.end, kNamespace, 0});
    // The chain's last name is the member; inner names (`nn`) are namespaces too.
    size_t j = i + 1;
    while (j < tokens.size() && tokens[j].after_dot && tokens[j].begin == tokens[j - 1].end + 1) {
      bool last = !(tokens[j].end < text.size() && text[tokens[j].end] == '.' && j + 1 < tokens.size() &&
                    tokens[j + 1].after_dot && tokens[j + 1].begin == tokens[j].end + 1);
      raw.push_back({tokens[j].begin, tokens[j].end, last ? kMethod : kNamespace, 0});
      ++j;
    }
    i = j - 1;
  }
  const SymbolIndex& index = SymbolIndex::Of(doc);
  for (const Occurrence& o : index.occurrences()) {
    if (o.symbol < 0) continue;
    const IndexedSymbol& s = index.symbols()[o.symbol];
    int modifiers = o.is_definition ? kDeclaration : 0;
    if (s.role == SymbolRole::kIterVar || s.role == SymbolRole::kLoopVar) modifiers |= kReadonly;
    raw.push_back({o.begin, o.end, TypeOf(s.role), modifiers});
  }
  std::sort(raw.begin(), raw.end(), [](const Raw& a, const Raw& b) { return a.begin < b.begin; });
  std::vector<SemanticToken> out;
  uint32_t last_end = 0;
  for (const Raw& r : raw) {
    if (r.end <= r.begin || (!out.empty() && r.begin < last_end)) continue;  // no overlaps
    TextRange range = doc.RangeOf(r.begin, r.end);
    if (range.start.line != range.end.line) continue;
    out.push_back({range, r.type, r.modifiers});
    last_end = r.end;
  }
  return out;
}

}  // namespace wb::lang
