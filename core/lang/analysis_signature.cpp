// Signature help: the call around the cursor, found by scanning the text backwards (so it works
// while the call is half typed), looked up in the T./R./I./sch. namespaces.
#include "lang/analysis.h"
#include "lang/analysis_namespace.h"

namespace wb::lang {

namespace {

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The parameters of a signature label: the top-level comma-separated pieces between its first
// '(' and the matching ')'.
std::vector<std::string> Parameters(const std::string& label) {
  std::vector<std::string> out;
  size_t open = label.find('(');
  if (open == std::string::npos) return out;
  int depth = 0;
  char quote = 0;
  std::string current;
  for (size_t i = open + 1; i < label.size(); ++i) {
    char c = label[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ')' || (c == ',' && depth == 0)) {
      size_t b = current.find_first_not_of(' ');
      if (b != std::string::npos) out.push_back(current.substr(b));
      current.clear();
      if (c == ')') break;
      continue;
    }
    current += c;
  }
  return out;
}

std::string ParamName(const std::string& param) {
  size_t b = param.find_first_not_of('*');
  size_t e = b;
  while (e < param.size() && IsIdentChar(param[e])) ++e;
  return b == std::string::npos ? "" : param.substr(b, e - b);
}

}  // namespace

std::optional<SignatureHelp> ComputeSignatureHelp(const Document& doc, TextPosition position) {
  const std::string& text = doc.text();
  uint32_t offset = doc.OffsetOf(position);
  // Back to the innermost '(' left open before the cursor, counting the commas at its level and
  // remembering the start of the current argument. Strings are skipped on the current line only
  // (a quote earlier in the call would otherwise flip the scan).
  int depth = 0;
  int commas = 0;
  size_t arg_start = offset;
  size_t open = std::string::npos;
  size_t limit = offset > 4000 ? offset - 4000 : 0;  // calls are short; bound the scan
  for (size_t i = offset; i-- > limit;) {
    char c = text[i];
    if (c == ')' || c == ']' || c == '}') {
      ++depth;
    } else if (c == '(' || c == '[' || c == '{') {
      if (depth == 0) {
        if (c != '(') {
          // Inside a list argument: its commas separate elements, not arguments.
          commas = 0;
          arg_start = offset;
          continue;
        }
        open = i;
        break;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      if (arg_start == offset) arg_start = i + 1;
      ++commas;
    } else if (c == ':' && depth == 0 && i + 1 < text.size() && text[i + 1] == '\n') {
      break;  // a statement header ends: no call is open
    }
  }
  if (open == std::string::npos) return std::nullopt;
  if (arg_start == offset) arg_start = open + 1;
  // The callee: a dotted name right before '('.
  size_t end = open;
  size_t begin = end;
  while (begin > 0 && (IsIdentChar(text[begin - 1]) || text[begin - 1] == '.')) --begin;
  std::string callee = text.substr(begin, end - begin);
  size_t dot = callee.find('.');
  if (dot == std::string::npos) return std::nullopt;
  const NamespaceMember* m = FindMember(callee.substr(0, dot), callee.substr(dot + 1));
  if (!m) return std::nullopt;
  SignatureHelp help;
  help.label = m->signature;
  help.documentation = m->doc;
  help.parameters = Parameters(m->signature);
  if (help.parameters.empty()) return help;
  // `name=` in the current argument picks that parameter; otherwise the position does, staying
  // on a `*args` parameter once reached.
  std::string arg = text.substr(arg_start, offset - arg_start);
  size_t eq = arg.find('=');
  int active = -1;
  if (eq != std::string::npos && (eq + 1 >= arg.size() || arg[eq + 1] != '=')) {
    size_t b = arg.find_first_not_of(" \t\n");
    std::string key = b < eq ? arg.substr(b, eq - b) : "";
    while (!key.empty() && key.back() == ' ') key.pop_back();
    for (size_t p = 0; p < help.parameters.size(); ++p) {
      if (ParamName(help.parameters[p]) == key) active = static_cast<int>(p);
    }
  }
  if (active < 0) {
    active = 0;
    for (int p = 0; p < commas && active + 1 < static_cast<int>(help.parameters.size()); ++p) {
      if (help.parameters[active].rfind("*", 0) == 0) break;
      ++active;
    }
  }
  help.active_parameter = active;
  return help;
}

}  // namespace wb::lang
