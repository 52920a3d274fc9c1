// Structural equality of IR, as TVM's tvm.ir.structural_equal: two graphs are equal when they
// have the same shape and the same values, up to a consistent renaming of what they bind.
//
// It is what tests, the round-trip checks and `workbench --compare` ask when they mean "is this
// the same program": a pass that renames a loop variable or rebuilds an unchanged subtree must not
// count as a change. The comparison is generic over reflection (Object::VisitFields), so a new node
// kind is compared as soon as it declares its fields.
#pragma once

#include <optional>
#include <string>

#include "ir/object.h"

namespace wb::ir {

// Variables (tirx.Var, tirx.SizeVar), buffers and global functions are "bindable": they are not
// compared by identity but mapped one-to-one between the two sides, at their first occurrence.
bool IsBindableKind(TypeIndex index);

// Where two graphs first differ, in depth-first field order.
struct StructuralMismatch {
  // Access paths in TVM's ObjectPath style, e.g. `root.functions[0].body.seq[2].value.b`;
  // `.annotations["pragma"]` for dictionary entries. Both name the same position.
  std::string lhs_path;
  std::string rhs_path;
  // The nodes at the paths (either may be null: a missing item or a null field). When a path ends
  // at a value field (`.dtype`, `.value` of an IntImm), the nodes that own that field.
  ObjectRef lhs;
  ObjectRef rhs;
  // What differs, in a few words: "int32 vs int64", "tirx.Add vs tirx.Sub", "3 items vs 2".
  std::string reason;
  // The nearest nodes at or above lhs / rhs that have a span (a literal extent has none, its loop
  // does): where a message can point in the source. Null when nothing on the path has one.
  ObjectRef lhs_located;
  ObjectRef rhs_located;
};

// True when `a` and `b` are alpha-equivalent. Variables met in binding positions (FieldKind::kDef
// fields and everything below them) are mapped; with `map_free_vars`, so are variables met
// elsewhere for the first time; otherwise such free variables must be the same object. Names,
// spans and other FieldKind::kIgnore fields do not count; ops compare by name; floats compare
// exactly (bit for bit, any NaN equals any NaN). Null equals only null.
bool StructuralEqual(const ObjectRef& a, const ObjectRef& b, bool map_free_vars = true);

// Like StructuralEqual, but says where the graphs differ; nullopt when they are equal.
std::optional<StructuralMismatch> FindFirstMismatch(const ObjectRef& a, const ObjectRef& b,
                                                    bool map_free_vars = true);

}  // namespace wb::ir
