// Answers from the last version that parsed, while the current text does not: the parser drops
// a function that fails, so without this, hover and navigation would go dark in exactly the
// function being edited. Positions map through the text both versions share (the common prefix
// and suffix); anything inside the edited region has no counterpart and is left out.
#pragma once

#include <optional>

#include "lang/document.h"

namespace wb::lang {

class StaleView {
 public:
  // A view when `doc` does not parse cleanly and an earlier version did.
  static std::optional<StaleView> For(const Document& doc);

  const Document& old_doc() const { return *old_; }
  std::optional<TextPosition> ToOld(TextPosition position) const;
  std::optional<TextRange> ToNew(const TextRange& range) const;

 private:
  StaleView(const Document& doc, const Document& old);
  std::optional<uint32_t> Map(uint32_t offset, uint32_t from_size, uint32_t to_size) const;

  const Document* doc_;
  const Document* old_;
  uint32_t prefix_ = 0;  // bytes equal at the start of both texts
  uint32_t suffix_ = 0;  // bytes equal at the end, not overlapping the prefix
};

}  // namespace wb::lang
