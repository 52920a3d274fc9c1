// Completion: what may be typed at the cursor, decided from the text just before it (so it
// works while the line being typed does not parse) and the names the last parse defines.
#include <algorithm>

#include "lang/analysis.h"
#include "lang/analysis_describe.h"
#include "lang/analysis_index.h"
#include "lang/analysis_namespace.h"
#include "relax/expr.h"

namespace wb::lang {

namespace {

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `offset` is inside a single-line string literal (quotes counted on its line,
// comments ignored).
bool InsideString(const std::string& text, uint32_t offset) {
  size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  char open = 0;
  for (size_t i = line_start; i < offset && i < text.size(); ++i) {
    char c = text[i];
    if (open) {
      if (c == '\\') ++i;
      else if (c == open) open = 0;
    } else if (c == '#') {
      return false;
    } else if (c == '"' || c == '\'') {
      open = c;
    }
  }
  return open != 0;
}

CompletionItem Member(const NamespaceMember& m) {
  CompletionKind kind = m.kind == MemberKind::kDType ? CompletionKind::kConstant
                        : m.kind == MemberKind::kOp ? CompletionKind::kFunction
                                                    : CompletionKind::kKeyword;
  return {m.name, kind, m.signature, m.doc};
}

}  // namespace

std::vector<CompletionItem> ComputeCompletion(const Document& doc, TextPosition position) {
  const std::string& text = doc.text();
  uint32_t offset = doc.OffsetOf(position);
  uint32_t word = offset;
  while (word > 0 && IsIdentChar(text[word - 1])) --word;
  std::string before = text.substr(0, word);

  std::vector<CompletionItem> out;
  if (InsideString(text, offset)) {
    for (const std::string& d : DTypeNames()) out.push_back({d, CompletionKind::kConstant, "dtype", ""});
    for (const std::string& s : ScopeNames()) out.push_back({s, CompletionKind::kConstant, "storage scope", ""});
    return out;
  }
  auto ends_with = [&](std::string_view suffix) {
    if (before.size() < suffix.size() || before.compare(before.size() - suffix.size(), suffix.size(), suffix) != 0) {
      return false;
    }
    size_t k = before.size() - suffix.size();
    return k == 0 || (!IsIdentChar(before[k - 1]) && before[k - 1] != '.');
  };
  if (ends_with("T.axis.")) {
    for (const NamespaceMember& m : AxisMembers()) out.push_back(Member(m));
    return out;
  }
  if (ends_with("T.")) {
    for (const NamespaceMember& m : TNamespaceMembers()) out.push_back(Member(m));
    return out;
  }
  if (ends_with("I.")) {
    for (const NamespaceMember& m : INamespaceMembers()) out.push_back(Member(m));
    return out;
  }
  if (ends_with("sch.")) {
    for (const NamespaceMember& m : ScheduleMembers()) out.push_back(Member(m));
    return out;
  }
  // `R.` and its sub-namespaces (`R.nn.`): the members under that prefix, prefix stripped.
  size_t chain = before.size();
  while (chain > 0 && (IsIdentChar(before[chain - 1]) || before[chain - 1] == '.')) --chain;
  if (!before.empty() && before.back() == '.' && before.compare(chain, 2, "R.") == 0) {
    std::string sub = before.substr(chain + 2);  // "" or "nn."
    std::vector<std::string> seen;
    for (const NamespaceMember& m : RNamespaceMembers()) {
      if (m.name.compare(0, sub.size(), sub) != 0) continue;
      std::string rest = m.name.substr(sub.size());
      size_t dot = rest.find('.');
      if (dot != std::string::npos) {  // a deeper namespace: offer its name once
        std::string ns = rest.substr(0, dot);
        if (std::find(seen.begin(), seen.end(), ns) == seen.end()) {
          seen.push_back(ns);
          out.push_back({ns, CompletionKind::kModule, "R." + sub + ns, "Relax op namespace"});
        }
        continue;
      }
      CompletionItem item = Member(m);
      item.label = rest;
      out.push_back(std::move(item));
    }
    return out;
  }
  if (!before.empty() && before.back() == '.') {
    // `Module.` / `cls.`: the module's functions.
    const SymbolIndex& index = SymbolIndex::Of(doc);
    for (const IndexedSymbol& s : index.symbols()) {
      if (s.role == SymbolRole::kFunction) {
        out.push_back({s.name, CompletionKind::kFunction, SignatureText(s.name, s.func),
                       FunctionKindText(s.func) + " of the module"});
      }
    }
    return out;
  }
  const SymbolIndex& index = SymbolIndex::Of(doc);
  for (int k : index.VisibleAt(word)) {
    const IndexedSymbol& s = index.symbols()[k];
    if (s.def_begin == word) continue;  // the word being typed is itself a definition
    switch (s.role) {
      case SymbolRole::kBuffer: {
        auto buffer = static_cast<const tir::BufferNode*>(s.node);
        out.push_back({s.name, CompletionKind::kBuffer, BufferText(tir::Buffer(buffer)), "buffer"});
        break;
      }
      case SymbolRole::kFunction:
        out.push_back({s.name, CompletionKind::kFunction, SignatureText(s.name, s.func), FunctionKindText(s.func)});
        break;
      default: {
        if (ir::IsInstance<relax::VarNode>(s.node)) {
          auto var = static_cast<const relax::VarNode*>(s.node);
          out.push_back({s.name, CompletionKind::kVariable, relax::TypeToString(var->struct_info), ""});
          break;
        }
        auto var = static_cast<const tir::VarNode*>(s.node);
        out.push_back({s.name, CompletionKind::kVariable, "T." + var->dtype.ToString(), ""});
        break;
      }
    }
  }
  out.push_back({"T", CompletionKind::kModule, "tvm.script.tirx", "TensorIR script namespace"});
  out.push_back({"R", CompletionKind::kModule, "tvm.script.relax", "Relax script namespace"});
  out.push_back({"I", CompletionKind::kModule, "tvm.script.ir", "IRModule script namespace"});
  for (const char* kw : {"for", "in", "range", "with", "if", "else", "while", "def", "return", "assert"}) {
    out.push_back({kw, CompletionKind::kKeyword, "", ""});
  }
  return out;
}

}  // namespace wb::lang
