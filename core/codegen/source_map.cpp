#include "codegen/source_map.h"

#include <cstdlib>
#include <string_view>
#include <unordered_map>

namespace wb::codegen {

namespace {

std::vector<std::string_view> SplitLines(const std::string& text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.emplace_back(text.data() + start, end - start);
    start = end + 1;
  }
  if (!text.empty() && text.back() == '\n') lines.pop_back();
  return lines;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The quoted strings of a line, unescaped only as far as paths need (\" and \\).
std::vector<std::string> QuotedStrings(std::string_view s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '"') continue;
    std::string value;
    for (++i; i < s.size() && s[i] != '"'; ++i) {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      value += s[i];
    }
    out.push_back(std::move(value));
  }
  return out;
}

// The integer after `key` in `s` ("line: 14" with key "line: ", "scope: !12" with "scope: !");
// -1 when absent.
long NumberAfter(std::string_view s, std::string_view key) {
  size_t at = s.find(key);
  if (at == std::string_view::npos) return -1;
  return std::strtol(std::string(s.substr(at + key.size(), 24)).c_str(), nullptr, 10);
}


std::vector<SourceLine> MapAssembly(const std::vector<std::string_view>& lines) {
  std::vector<SourceLine> out(lines.size());
  std::unordered_map<long, std::string> files;
  SourceLine current;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = Trim(lines[i]);
    if (line.rfind(".file", 0) == 0 && line.size() > 5 && (line[5] == ' ' || line[5] == '\t')) {
      // `.file N "dir" "name" [md5 ...]` or `.file N "name"`; the one-argument form names the
      // unit's main file and has no number.
      std::vector<std::string> strings = QuotedStrings(line);
      long number = std::strtol(std::string(Trim(line.substr(5))).c_str(), nullptr, 10);
      // The assembler splits a path into directory and name: join them back.
      if (strings.size() >= 2 && !strings[0].empty() && strings[0] != "." && !strings[1].empty() &&
          strings[1][0] != '/') {
        files[number] = strings[0] + (strings[0].back() == '/' ? "" : "/") + strings[1];
      } else if (!strings.empty()) {
        files[number] = strings.size() >= 2 ? strings[1] : strings[0];
      }
      continue;
    }
    if (line.rfind(".loc", 0) == 0 && line.size() > 4 && (line[4] == ' ' || line[4] == '\t')) {
      char* end = nullptr;
      std::string args(Trim(line.substr(4)));
      long file = std::strtol(args.c_str(), &end, 10);
      long number = std::strtol(end, nullptr, 10);
      auto it = files.find(file);
      current = number > 0 && it != files.end() ? SourceLine{it->second, static_cast<int>(number)} : SourceLine{};
      continue;
    }
    if (line == ".cfi_endproc") current = {};
    if (line.empty() || line[0] == '.' || line[0] == '#' || line.rfind("//", 0) == 0 || line.back() == ':') continue;
    // An instruction: indented in the assembly LLVM prints.
    if (lines[i].front() == ' ' || lines[i].front() == '\t') out[i] = current;
  }
  return out;
}

std::vector<SourceLine> MapLLVMIR(const std::vector<std::string_view>& lines) {
  struct Location {
    long line;
    long scope;
  };
  std::unordered_map<long, Location> locations;
  std::unordered_map<long, long> scope_file;  // subprogram or lexical block -> its DIFile
  std::unordered_map<long, std::string> files;
  for (std::string_view line : lines) {
    if (line.empty() || line[0] != '!') continue;
    long id = std::strtol(std::string(line.substr(1, 24)).c_str(), nullptr, 10);
    if (line.find("!DILocation(") != std::string_view::npos) {
      locations[id] = {NumberAfter(line, "line: "), NumberAfter(line, "scope: !")};
    } else if (line.find("!DIFile(") != std::string_view::npos) {
      std::vector<std::string> strings = QuotedStrings(line.substr(line.find("filename:")));
      if (!strings.empty()) files[id] = strings[0];
    } else if (line.find("!DISubprogram(") != std::string_view::npos ||
               line.find("!DILexicalBlockFile(") != std::string_view::npos) {
      scope_file[id] = NumberAfter(line, "file: !");
    }
  }
  std::vector<SourceLine> out(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty() || line[0] == '!' || line[0] == ';') continue;
    long id = NumberAfter(line, "!dbg !");
    auto loc = locations.find(id);
    if (id < 0 || loc == locations.end() || loc->second.line <= 0) continue;
    auto scope = scope_file.find(loc->second.scope);
    if (scope == scope_file.end()) continue;
    auto file = files.find(scope->second);
    if (file != files.end()) out[i] = {file->second, static_cast<int>(loc->second.line)};
  }
  return out;
}

}  // namespace

std::vector<SourceLine> MapSourceLines(const std::string& text, SourceMapFormat format) {
  std::vector<std::string_view> lines = SplitLines(text);
  return format == SourceMapFormat::kLLVMIR ? MapLLVMIR(lines) : MapAssembly(lines);
}

std::string AnnotateSourceLines(const std::string& text, SourceMapFormat format) {
  std::vector<std::string_view> lines = SplitLines(text);
  std::vector<SourceLine> map = format == SourceMapFormat::kLLVMIR ? MapLLVMIR(lines) : MapAssembly(lines);
  std::string comment = "; ";
  if (format == SourceMapFormat::kAssembly) {
    // AArch64's assembly comments with //, x86's with #.
    comment = text.find("\n\t//") != std::string::npos || text.rfind("//", 0) == 0 ? "// " : "# ";
  }
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    if (map[i].line > 0) out += "\t" + comment + map[i].file + ":" + std::to_string(map[i].line);
    out += '\n';
  }
  return out;
}

}  // namespace wb::codegen
