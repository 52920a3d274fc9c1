#include "lang/document.h"

#include <algorithm>

namespace wb::lang {

namespace {

// Length in bytes of the UTF-8 sequence starting with `lead` (1 for invalid bytes, so that
// malformed input still advances).
uint32_t Utf8Length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

}  // namespace

Document::Document(std::string uri, std::string text, int64_t version)
    : uri_(std::move(uri)), text_(std::move(text)), version_(version) {
  IndexLines();
}

void Document::IndexLines() {
  line_starts_.assign(1, 0);
  for (uint32_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

void Document::ApplyChange(const std::optional<TextRange>& range, const std::string& new_text,
                           int64_t version) {
  if (parsed_ && parsed_->ok()) {
    auto snapshot = std::make_shared<Document>(*this);
    snapshot->last_good_.reset();
    last_good_ = std::move(snapshot);
  }
  if (!range) {
    text_ = new_text;
  } else {
    uint32_t begin = OffsetOf(range->start);
    uint32_t end = std::max(begin, OffsetOf(range->end));
    text_.replace(begin, end - begin, new_text);
  }
  version_ = version;
  IndexLines();
  parsed_.reset();
  analysis_cache_.reset();
}

uint32_t Document::OffsetOf(TextPosition position) const {
  if (position.line >= line_starts_.size()) return static_cast<uint32_t>(text_.size());
  uint32_t offset = line_starts_[position.line];
  uint32_t line_end = position.line + 1 < line_starts_.size()
                          ? line_starts_[position.line + 1] - 1
                          : static_cast<uint32_t>(text_.size());
  uint32_t units = 0;
  while (offset < line_end && units < position.character) {
    uint32_t len = Utf8Length(static_cast<unsigned char>(text_[offset]));
    uint32_t width = len == 4 ? 2 : 1;  // astral characters are a UTF-16 surrogate pair
    if (units + width > position.character) break;
    units += width;
    offset = std::min(offset + len, line_end);
  }
  return offset;
}

TextPosition Document::PositionOf(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts_.begin()) - 1;
  uint32_t units = 0;
  for (uint32_t i = line_starts_[line]; i < offset;) {
    uint32_t len = Utf8Length(static_cast<unsigned char>(text_[i]));
    units += len == 4 ? 2 : 1;
    i += len;
  }
  return {line, units};
}

TextRange Document::RangeOf(const Span& span) const {
  if (!span.defined()) return {};
  return RangeOf(span.begin, span.end);
}

const script::ParseResult& Document::Parsed() const {
  if (!parsed_) {
    parsed_ = std::make_shared<script::ParseResult>(script::Parse(text_, uri_));
    if (parsed_->ok()) last_good_.reset();
  }
  return *parsed_;
}

}  // namespace wb::lang
