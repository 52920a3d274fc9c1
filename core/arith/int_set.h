// IntSet: the set of values an integer expression takes while its variables range over their
// domains, as a symbolic interval [min_value, max_value] (both ends included; a null end is
// unbounded). Region relaxation (compute_at, cache_read, blockize) asks EvalSet for the part of a
// buffer that a loop nest touches: EvalSet(i*4 + j, {i: [0, 8), j: [0, 4)}) is [0, 31].
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/object.h"
#include "tir/expr.h"

namespace wb::arith {

using tir::PrimExpr;
using tir::Range;
using tir::Var;

class Analyzer;

class IntSet {
 public:
  PrimExpr min_value;  // null: -inf
  PrimExpr max_value;  // null: +inf

  static IntSet Interval(PrimExpr min_value, PrimExpr max_value);
  static IntSet SinglePoint(PrimExpr value);
  // [range.min, range.min + range.extent - 1]
  static IntSet FromRange(const Range& range);
  static IntSet Everything();

  bool HasLowerBound() const { return min_value.defined(); }
  bool HasUpperBound() const { return max_value.defined(); }
  bool IsEverything() const { return !min_value.defined() && !max_value.defined(); }
  bool IsSinglePoint() const;
  // Known empty: both ends constant and min > max.
  bool IsEmpty() const;
  // The covering range [min, max + 1); `fallback` when an end is unbounded.
  Range CoverRange(const Range& fallback) const;
};

using DomMap = std::unordered_map<Var, IntSet, ir::ObjectPtrHash, ir::ObjectPtrEqual>;
using RangeMap = std::unordered_map<Var, Range, ir::ObjectPtrHash, ir::ObjectPtrEqual>;

// The interval `expr` covers when each variable of `dom` ranges over its set; other variables
// are fixed (they stay symbolic in the result). Ends are simplified with `analyzer`.
IntSet EvalSet(const PrimExpr& expr, const DomMap& dom, Analyzer* analyzer);
IntSet EvalSet(const PrimExpr& expr, const RangeMap& dom, Analyzer* analyzer);
// Smallest interval holding all of `sets`, and the interval of their common part.
IntSet Union(const std::vector<IntSet>& sets, Analyzer* analyzer);
IntSet Intersect(const std::vector<IntSet>& sets, Analyzer* analyzer);

// The analyzer's view: variables bound with Analyzer::Bind range over their bound range.
class IntSetAnalyzer {
 public:
  explicit IntSetAnalyzer(Analyzer* parent) : parent_(parent) {}
  IntSet operator()(const PrimExpr& expr);
  IntSet operator()(const PrimExpr& expr, const DomMap& dom);
  void Bind(const Var& var, const Range& range, bool allow_override = false);

 private:
  Analyzer* parent_;
  DomMap dom_;
};

}  // namespace wb::arith
