#include "support/span.h"

#include <algorithm>

namespace wb {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

SourceFile::Position SourceFile::PositionOf(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts_.begin());
  return {line, offset - line_starts_[line - 1] + 1};
}

uint32_t SourceFile::OffsetOf(uint32_t line, uint32_t column) const {
  if (line == 0) return 0;
  if (line > line_starts_.size()) return static_cast<uint32_t>(text_.size());
  uint32_t start = line_starts_[line - 1];
  uint32_t line_end = line < line_starts_.size() ? line_starts_[line] : text_.size();
  return std::min(start + (column == 0 ? 0 : column - 1), line_end);
}

std::string_view SourceFile::LineText(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  uint32_t start = line_starts_[line - 1];
  uint32_t end = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
  std::string_view view(text_);
  view = view.substr(start, end - start);
  if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
  return view;
}

SourceFile::Position Span::start() const { return file ? file->PositionOf(begin) : SourceFile::Position{}; }
SourceFile::Position Span::stop() const { return file ? file->PositionOf(end) : SourceFile::Position{}; }

std::string_view Span::text() const {
  if (!file) return {};
  return std::string_view(file->text()).substr(begin, end - begin);
}

std::string Span::ToString() const {
  if (!file) return "<unknown>";
  auto pos = start();
  return file->path() + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

Span Span::Merge(const Span& a, const Span& b) {
  if (!a.defined()) return b;
  if (!b.defined() || a.file != b.file) return a;
  return Span(a.file, std::min(a.begin, b.begin), std::max(a.end, b.end));
}

}  // namespace wb
