// An open TVMScript document as an editor sees it: text, version, edits addressed in LSP
// positions (0-based line, UTF-16 code unit column), and the parse of the current text.
//
// Editors count columns in UTF-16 code units while the parser's spans are byte offsets into
// UTF-8; this class is the one place that converts between the two, so every analysis works on
// byte offsets and the protocol layers (LSP, GUI) never see a byte.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "script/tvmscript.h"
#include "support/span.h"

namespace wb::lang {

// A position as LSP defines it: 0-based line and UTF-16 code unit offset in that line.
struct TextPosition {
  uint32_t line = 0;
  uint32_t character = 0;
  bool operator==(const TextPosition&) const = default;
};

struct TextRange {
  TextPosition start;
  TextPosition end;
  bool operator==(const TextRange&) const = default;
};

class Document {
 public:
  Document(std::string uri, std::string text, int64_t version);

  const std::string& uri() const { return uri_; }
  const std::string& text() const { return text_; }
  int64_t version() const { return version_; }

  // Replaces `range` (or the whole text when absent) by `new_text`. Positions past the end of a
  // line or of the text are clamped, as LSP asks servers to do.
  void ApplyChange(const std::optional<TextRange>& range, const std::string& new_text,
                   int64_t version);

  // Byte offset of an LSP position (clamped to the text; a position inside a surrogate pair or a
  // multi-byte character moves to the character's start).
  uint32_t OffsetOf(TextPosition position) const;
  TextPosition PositionOf(uint32_t offset) const;
  TextRange RangeOf(uint32_t begin, uint32_t end) const { return {PositionOf(begin), PositionOf(end)}; }
  TextRange RangeOf(const Span& span) const;

  // The parse of the current text, computed on first use after each change.
  const script::ParseResult& Parsed() const;
  // A slot for what the analyses derive from the current text (the symbol index), so that
  // requests between two edits share it; emptied on every change.
  std::shared_ptr<void>& analysis_cache() const { return analysis_cache_; }

  // The last version whose text parsed cleanly (and was parsed), kept while the current text
  // does not parse, so that navigation keeps working in the function being edited; null when
  // the current text parses or no version did.
  const Document* last_good() const { return last_good_.get(); }

 private:
  void IndexLines();

  std::string uri_;
  std::string text_;
  int64_t version_ = 0;
  std::vector<uint32_t> line_starts_;
  mutable std::shared_ptr<const script::ParseResult> parsed_;
  mutable std::shared_ptr<void> analysis_cache_;
  mutable std::shared_ptr<const Document> last_good_;
};

}  // namespace wb::lang
