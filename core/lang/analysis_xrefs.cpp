// Go to definition, find references and document highlights: look-ups in the symbol index (of
// the last version that parsed, when the current text does not and knows nothing there).
#include "lang/analysis.h"
#include "lang/analysis_index.h"
#include "lang/analysis_stale.h"

namespace wb::lang {

namespace {

std::vector<Highlight> Occurrences(const Document& doc, TextPosition position) {
  const SymbolIndex& index = SymbolIndex::Of(doc);
  const Occurrence* o = index.At(doc.OffsetOf(position));
  if (!o) return {};
  std::vector<Highlight> out;
  const IndexedSymbol& s = index.symbols()[o->symbol];
  // The definition first, then the uses in text order.
  out.push_back({doc.RangeOf(s.def_begin, s.def_end), true});
  for (const Occurrence& r : index.OccurrencesOf(o->symbol)) {
    if (!r.is_definition) out.push_back({doc.RangeOf(r.begin, r.end), false});
  }
  return out;
}

std::vector<Highlight> OccurrencesWithFallback(const Document& doc, TextPosition position) {
  std::vector<Highlight> out = Occurrences(doc, position);
  if (!out.empty()) return out;
  auto stale = StaleView::For(doc);
  if (!stale) return out;
  auto old_position = stale->ToOld(position);
  if (!old_position) return out;
  for (const Highlight& h : Occurrences(stale->old_doc(), *old_position)) {
    // An occurrence inside the edited text has no place in the new text; the definition is
    // needed first, so without it there is no answer.
    auto range = stale->ToNew(h.range);
    if (range) {
      out.push_back({*range, h.is_definition});
    } else if (h.is_definition) {
      return {};
    }
  }
  return out;
}

}  // namespace

std::vector<TextRange> FindDefinition(const Document& doc, TextPosition position) {
  std::vector<Highlight> all = OccurrencesWithFallback(doc, position);
  if (all.empty()) return {};
  return {all.front().range};
}

std::vector<TextRange> FindReferences(const Document& doc, TextPosition position, bool include_declaration) {
  std::vector<TextRange> out;
  for (const Highlight& h : OccurrencesWithFallback(doc, position)) {
    if (include_declaration || !h.is_definition) out.push_back(h.range);
  }
  return out;
}

std::vector<Highlight> ComputeHighlights(const Document& doc, TextPosition position) {
  return OccurrencesWithFallback(doc, position);
}

}  // namespace wb::lang
