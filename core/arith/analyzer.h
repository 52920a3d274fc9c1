// The arith module: integer analysis of TensorIR index expressions, which the schedule
// primitives (split, fuse, compute_at, ...) and the lowering passes stand on. Modelled on TVM's
// tvm::arith.
//
// An Analyzer holds the sub-analyzers (constant bounds, modular sets, the rewrite and canonical
// simplifiers, integer sets) and what is known about variables: a loop variable bound to its
// range, a let-variable bound to its value, and the facts of the enclosing constraint scopes:
//
//   Analyzer ana;
//   ana.Bind(i, MakeRange(0, 16));
//   {
//     auto scope = ana.constraint(i < n);    // Python's `with analyzer.constraint(i < n):`
//     ana.CanProve(i < n);                   // true
//   }                                        // the fact is gone again
#pragma once

#include <functional>
#include <vector>

#include "arith/canonical_simplify.h"
#include "arith/const_int_bound.h"
#include "arith/int_set.h"
#include "arith/modular_set.h"
#include "arith/rewrite_simplify.h"

namespace wb::arith {

class Analyzer;

// While alive, the facts of a condition hold for every query to the analyzer. Scopes nest and
// must end in reverse order of creation (as C++ locals do).
class [[nodiscard]] ConstraintScope {
 public:
  ConstraintScope(Analyzer* analyzer, const PrimExpr& constraint);
  ConstraintScope(ConstraintScope&& other) noexcept : undo_(std::move(other.undo_)) {
    other.undo_.clear();
  }
  ConstraintScope(const ConstraintScope&) = delete;
  ConstraintScope& operator=(const ConstraintScope&) = delete;
  ConstraintScope& operator=(ConstraintScope&&) = delete;
  ~ConstraintScope();

 private:
  std::vector<std::function<void()>> undo_;
};

class Analyzer {
 public:
  Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  ConstIntBoundAnalyzer const_int_bound;
  ModularSetAnalyzer modular_set;
  RewriteSimplifier rewrite_simplify;
  CanonicalSimplifier canonical_simplify;
  IntSetAnalyzer int_set;

  // `var` ranges over [range.min, range.min + range.extent). Binding a variable twice to a
  // different range is a caller bug (it throws) unless allow_override.
  void Bind(const Var& var, const Range& range, bool allow_override = false);
  // `var` is `expr` (a let binding): it is substituted when simplifying.
  void Bind(const Var& var, const PrimExpr& expr, bool allow_override = false);

  // Rewrite, canonical form, rewrite again: the form the rest of the compiler prints.
  PrimExpr Simplify(const PrimExpr& expr);
  // True only when `cond` holds for every value the variables may take; false means "unknown".
  bool CanProve(const PrimExpr& cond);
  bool CanProveEqual(const PrimExpr& a, const PrimExpr& b);
  bool CanProveGreaterEqual(const PrimExpr& expr, int64_t lower_bound);
  bool CanProveLess(const PrimExpr& expr, int64_t upper_bound);

  ConstraintScope constraint(const PrimExpr& cond) { return ConstraintScope(this, cond); }
};

}  // namespace wb::arith
