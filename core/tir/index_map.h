// TVM's IndexMap: a function from initial indices to final indices, `lambda i, j: (j, i)` or
// `lambda i: (i // 4, i % 4)`. transform_layout uses it to re-layout a buffer (indices and shape)
// and `R.layout_transform(x, index_map=T.index_map(...))` carries one as its attribute.
//
// Inverse is defined for maps that are affine and bijective over the given ranges (what
// DetectIterMap proves); other maps have no inverse and Inverse reports why.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tir/expr.h"

namespace wb::tir {

class IndexMapNode : public Object {
 public:
  WB_NODE_FINAL(IndexMapNode, kIndexMap, Object)
  std::vector<Var> initial_indices;
  std::vector<PrimExpr> final_indices;
  // Null, or the IndexMap the user gave as `inverse_index_map=` (kept only to print it back).
  ObjectRef inverse_index_map;
  void VisitFields(FieldVisitor* v) override;
};
using IndexMap = Ref<IndexMapNode>;

IndexMap MakeIndexMap(std::vector<Var> initial_indices, std::vector<PrimExpr> final_indices,
                      ObjectRef inverse_index_map = {}, Span span = {});

// The final indices for `indices` (one per initial index), simplified.
std::vector<PrimExpr> MapIndices(const IndexMap& map, const std::vector<PrimExpr>& indices);
// The extents of the final indices when every initial index i ranges over [0, shape[i]).
std::vector<PrimExpr> MapShape(const IndexMap& map, const std::vector<PrimExpr>& shape);

struct InverseResult {
  IndexMap inverse;   // null when the map has no inverse over the ranges
  std::string error;  // why, for the user
};
// The inverse of `map` over initial indices ranging over [0, shape[i]): a map from the final
// indices back to the initial ones. Only affine bijective maps are inverted.
InverseResult Inverse(const IndexMap& map, const std::vector<PrimExpr>& shape);

// TVM's NonSurjectiveInverse, for maps whose image is larger than the buffer (`lambda i: (i // 4,
// i % 4)` over 14 elements lays out 16): each initial index is padded up to a multiple of the
// divisors applied to it (its padding factor), the map is inverted over the padded shape, and
// `padding` is the condition, in the inverse's initial indices, that a point of the new layout
// is one of the added ones (`axis0 == 3 and 2 <= axis1`); constant false when nothing is added.
// Only constant shapes and padding at the upper end are handled; `error` says why otherwise.
struct PaddedInverseResult {
  IndexMap inverse;
  PrimExpr padding;
  std::string error;
};
PaddedInverseResult NonSurjectiveInverse(const IndexMap& map, const std::vector<PrimExpr>& shape);

// `lambda i, j: (j, i)` as TVM's trace prints an index map (integers bare, Python precedence).
std::string IndexMapLambdaText(const IndexMap& map);

// Reads `lambda a, b: (e1, e2)` (the form IndexMapLambdaText prints; integers, names of the
// parameters, + - * // %, parentheses). The parameters get `index_dtype`. On failure returns null
// and sets `error` and the offending byte offset in `text`.
IndexMap ParseIndexMapLambda(std::string_view text, DataType index_dtype, std::string* error,
                             size_t* error_offset);

}  // namespace wb::tir
