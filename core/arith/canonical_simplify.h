// CanonicalSimplifier: rewrites integer arithmetic into a sum-of-terms normal form, TVM's
// SumExpr/SplitExpr idea. Each term is a split `((x // lower) % upper) * scale` of an atom x (a
// variable or any expression the form does not look into). In that form the identities that
// split and fuse create are a merge of adjacent splits:
//   (i // 4) * 4 + i % 4            -> i
//   (fused // 16) * 16 + fused % 16 -> fused
//   (i * 8 + j * 2 + k) // 2        -> i * 4 + j        when 0 <= k < 2
// Division and modulo by a constant pull out the terms the divisor divides and decide the rest
// from its bound, so they are exact for every value of the variables (floor semantics).
// Truncating division is treated as floor division where the dividend is provably non-negative.
// Products of two non-constant factors are atoms.
#pragma once

#include "tir/expr.h"

namespace wb::arith {

using tir::PrimExpr;

class Analyzer;

class CanonicalSimplifier {
 public:
  explicit CanonicalSimplifier(Analyzer* parent) : parent_(parent) {}
  PrimExpr operator()(const PrimExpr& expr);

 private:
  Analyzer* parent_;
};

}  // namespace wb::arith
