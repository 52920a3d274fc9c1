// Go to definition, find references and document highlights: look-ups in the symbol index.
#include "workbench/analysis.h"
#include "workbench/analysis_index.h"

namespace wb::workbench {

std::vector<TextRange> FindDefinition(const Document& doc, TextPosition position) {
  const SymbolIndex& index = SymbolIndex::Of(doc);
  const Occurrence* o = index.At(doc.OffsetOf(position));
  if (!o) return {};
  const IndexedSymbol& s = index.symbols()[o->symbol];
  return {doc.RangeOf(s.def_begin, s.def_end)};
}

std::vector<TextRange> FindReferences(const Document& doc, TextPosition position, bool include_declaration) {
  const SymbolIndex& index = SymbolIndex::Of(doc);
  const Occurrence* o = index.At(doc.OffsetOf(position));
  if (!o) return {};
  std::vector<TextRange> out;
  const IndexedSymbol& s = index.symbols()[o->symbol];
  if (include_declaration) out.push_back(doc.RangeOf(s.def_begin, s.def_end));
  for (const Occurrence& r : index.OccurrencesOf(o->symbol)) {
    if (!r.is_definition) out.push_back(doc.RangeOf(r.begin, r.end));
  }
  return out;
}

std::vector<Highlight> ComputeHighlights(const Document& doc, TextPosition position) {
  const SymbolIndex& index = SymbolIndex::Of(doc);
  const Occurrence* o = index.At(doc.OffsetOf(position));
  if (!o) return {};
  std::vector<Highlight> out;
  for (const Occurrence& r : index.OccurrencesOf(o->symbol)) {
    out.push_back({doc.RangeOf(r.begin, r.end), r.is_definition});
  }
  return out;
}

}  // namespace wb::workbench
