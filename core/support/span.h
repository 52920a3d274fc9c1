// Source files and spans: every IR node and every diagnostic points back at the text it came
// from through a Span, so errors, hover and "jump to source" work at every layer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

// An immutable source text with a precomputed line table.
class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }

  // 1-based line and column (column counted in bytes) of a byte offset.
  struct Position {
    uint32_t line = 0;
    uint32_t column = 0;
  };
  Position PositionOf(uint32_t offset) const;
  // Byte offset of a 1-based line/column; clamps to the text.
  uint32_t OffsetOf(uint32_t line, uint32_t column) const;
  std::string_view LineText(uint32_t line) const;
  uint32_t line_count() const { return static_cast<uint32_t>(line_starts_.size()); }

 private:
  std::string path_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
};

using SourceFilePtr = std::shared_ptr<const SourceFile>;

// A byte range [begin, end) of a source file. A default Span points nowhere.
struct Span {
  SourceFilePtr file;
  uint32_t begin = 0;
  uint32_t end = 0;

  Span() = default;
  Span(SourceFilePtr f, uint32_t b, uint32_t e) : file(std::move(f)), begin(b), end(e) {}

  bool defined() const { return file != nullptr; }
  SourceFile::Position start() const;
  SourceFile::Position stop() const;
  std::string_view text() const;
  // "path:line:col" or "<unknown>".
  std::string ToString() const;
  // The smallest span covering both; either may be undefined.
  static Span Merge(const Span& a, const Span& b);
};

}  // namespace wb
