#include "lang/analysis_stale.h"

#include <algorithm>

namespace wb::lang {

std::optional<StaleView> StaleView::For(const Document& doc) {
  if (doc.Parsed().ok() || !doc.last_good()) return std::nullopt;
  return StaleView(doc, *doc.last_good());
}

StaleView::StaleView(const Document& doc, const Document& old) : doc_(&doc), old_(&old) {
  const std::string& a = old.text();
  const std::string& b = doc.text();
  size_t n = std::min(a.size(), b.size());
  while (prefix_ < n && a[prefix_] == b[prefix_]) ++prefix_;
  while (suffix_ < n - prefix_ && a[a.size() - 1 - suffix_] == b[b.size() - 1 - suffix_]) ++suffix_;
}

std::optional<uint32_t> StaleView::Map(uint32_t offset, uint32_t from_size, uint32_t to_size) const {
  if (offset < prefix_) return offset;
  if (offset >= from_size - suffix_) return offset - from_size + to_size;
  return std::nullopt;
}

std::optional<TextPosition> StaleView::ToOld(TextPosition position) const {
  auto offset = Map(doc_->OffsetOf(position), static_cast<uint32_t>(doc_->text().size()),
                    static_cast<uint32_t>(old_->text().size()));
  if (!offset) return std::nullopt;
  return old_->PositionOf(*offset);
}

std::optional<TextRange> StaleView::ToNew(const TextRange& range) const {
  uint32_t old_size = static_cast<uint32_t>(old_->text().size());
  uint32_t new_size = static_cast<uint32_t>(doc_->text().size());
  auto begin = Map(old_->OffsetOf(range.start), old_size, new_size);
  // The end is exclusive: map its last character.
  uint32_t end_offset = old_->OffsetOf(range.end);
  auto end = end_offset > 0 ? Map(end_offset - 1, old_size, new_size) : begin;
  if (!begin || !end) return std::nullopt;
  return doc_->RangeOf(*begin, *end + (end_offset > 0 ? 1 : 0));
}

}  // namespace wb::lang
