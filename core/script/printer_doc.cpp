#include "script/printer_doc.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace wb::script::printer {

namespace {

using Path = std::vector<size_t>;

void CollectUses(const std::vector<Line>& lines, Path* path,
                 std::unordered_map<const ir::Object*, std::vector<Path>>* uses) {
  for (size_t i = 0; i < lines.size(); ++i) {
    path->push_back(i);
    for (const ir::Object* obj : lines[i].uses) (*uses)[obj].push_back(*path);
    CollectUses(lines[i].body, path, uses);
    path->pop_back();
  }
}

// Where a declaration goes: the block (path of the compound line owning it; empty for the top
// level) and the index before which it is inserted.
struct Spot {
  Path block;
  size_t index = 0;
};

Spot SpotFor(const std::vector<Path>& paths) {
  Path common = paths[0];
  size_t shortest = paths[0].size();
  for (const Path& p : paths) {
    size_t n = 0;
    while (n < common.size() && n < p.size() && common[n] == p[n]) ++n;
    common.resize(n);
    shortest = std::min(shortest, p.size());
  }
  Spot spot;
  size_t depth = common.size();
  if (depth == shortest) {
    // One use sits on the line at `common` itself: declare right before that line.
    spot.block.assign(common.begin(), common.end() - 1);
    spot.index = common.back();
  } else {
    spot.block = common;
    spot.index = paths[0][depth];
    for (const Path& p : paths) spot.index = std::min(spot.index, p[depth]);
  }
  return spot;
}

std::vector<Line>* BlockAt(std::vector<Line>* lines, const Path& block) {
  for (size_t i : block) lines = &(*lines)[i].body;
  return lines;
}

}  // namespace

void PlaceDeclarations(std::vector<Line>* lines, const std::vector<FreeDecl>& decls) {
  if (decls.empty()) return;
  std::unordered_map<const ir::Object*, std::vector<Path>> uses;
  Path path;
  CollectUses(*lines, &path, &uses);
  // Insertions are grouped per (block, index) and applied from the deepest and last spot, so
  // that the paths of the remaining spots stay valid.
  std::map<std::pair<Path, size_t>, std::vector<std::string>, std::greater<>> groups;
  std::vector<std::string> unused;
  for (const FreeDecl& decl : decls) {
    auto it = uses.find(decl.object);
    if (it == uses.end()) {
      unused.push_back(decl.text);
      continue;
    }
    Spot spot = SpotFor(it->second);
    groups[{spot.block, spot.index}].push_back(decl.text);
  }
  for (auto& [key, texts] : groups) {
    std::vector<Line>* block = BlockAt(lines, key.first);
    std::vector<Line> inserted;
    for (auto& t : texts) inserted.push_back(PlainLine(std::move(t)));
    block->insert(block->begin() + static_cast<std::ptrdiff_t>(key.second), inserted.begin(),
                  inserted.end());
  }
  if (!unused.empty()) {
    std::vector<Line> inserted;
    for (auto& t : unused) inserted.push_back(PlainLine(std::move(t)));
    lines->insert(lines->begin(), inserted.begin(), inserted.end());
  }
}

void Render(const std::vector<Line>& lines, int indent, std::string* out) {
  std::string pad(static_cast<size_t>(indent) * 4, ' ');
  for (const Line& line : lines) {
    *out += pad;
    *out += line.text;
    *out += '\n';
    if (line.compound) {
      if (line.body.empty()) {
        *out += pad + "    pass\n";
      } else {
        Render(line.body, indent + 1, out);
      }
    }
    if (line.blank_after) *out += '\n';
  }
}

void TrimEnd(std::string* text) {
  while (!text->empty() && (text->back() == ' ' || text->back() == '\n' || text->back() == '\t')) {
    text->pop_back();
  }
}

std::string QuoteString(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string FormatFloat(double value) {
  if (std::isnan(value)) return "\"nan\"";
  if (std::isinf(value)) return value > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[512];
  if (std::nearbyint(value) == value) {
    std::snprintf(buf, sizeof(buf), "%.1f", value);
  } else {
    std::snprintf(buf, sizeof(buf), "%.17g", value);
  }
  return buf;
}

std::string FormatPythonFloat(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // The shortest representation that reads back to the same double, as Python's repr.
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

NameTable::NameTable() {
  for (const char* reserved : {"T", "I", "R", "cls", "Module"}) used_.insert(reserved);
  scopes_.emplace_back();
}

std::string NameTable::DefineOutermost(std::string_view hint, std::string_view empty_hint) {
  std::string name = Define(hint, empty_hint);
  scopes_.back().pop_back();
  scopes_.front().push_back(name);
  return name;
}

std::string NameTable::Define(std::string_view hint, std::string_view empty_hint) {
  std::string base;
  for (char c : hint) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    base += ok ? c : '_';
  }
  if (base.empty()) base = std::string(empty_hint);
  std::string name = base;
  for (int i = 1; used_.count(name); ++i) name = base + "_" + std::to_string(i);
  used_.insert(name);
  scopes_.back().push_back(name);
  return name;
}

void NameTable::PushScope() { scopes_.emplace_back(); }

void NameTable::PopScope() {
  if (scopes_.size() <= 1) return;
  for (const auto& name : scopes_.back()) used_.erase(name);
  scopes_.pop_back();
}

std::string TargetCallText(const std::string& target_text) {
  size_t host = target_text.find(" -host=");
  if (host == std::string::npos) return "T.target(" + QuoteString(target_text) + ")";
  return "T.target(" + QuoteString(target_text.substr(0, host)) + ", host=" +
         QuoteString(target_text.substr(host + 7)) + ")";
}

}  // namespace wb::script::printer
