// Iter-map detection: is a list of index expressions (a block's iter_var bindings) an affine map
// of the loop variables, and is that map bijective (every loop point gives a distinct index
// tuple and every tuple is reached) or surjective? This is what TVM's DetectIterMap decides for
// the bindings that split and fuse produce, e.g. `i0 * 32 + i1`, `fused // 128`, `fused % 128`.
//
// The answer is a structure: each index is an IterSumExpr, a sum of IterSplitExprs
// `((source // lower_factor) % extent) * scale` plus a constant, where a source (IterMark) is a
// loop variable or a fused sum of splits (`i0 * 32 + i1` with i1 in [0, 32) is one iterator of
// extent 32 * extent(i0)). Extents must be constants.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tir/expr.h"

namespace wb::arith {

using tir::PrimExpr;
using tir::Range;
using tir::Var;

class Analyzer;
struct IterMark;

struct IterSplitExpr {
  std::shared_ptr<const IterMark> source;
  int64_t lower_factor = 1;
  int64_t extent = 1;
  int64_t scale = 1;
};

struct IterSumExpr {
  std::vector<IterSplitExpr> args;
  // The part without iterators: a constant, or symbolic in variables that are not iterators
  // (an outer loop's variable: `k * 16 + i` over the inner loop i has base `k * 16`).
  PrimExpr base;
};

// An iterator: a loop variable, or a fused sum of splits of other iterators.
struct IterMark {
  Var var;          // defined for a loop variable
  IterSumExpr sum;  // for a fused iterator (var undefined)
  int64_t extent = 1;
};

enum class IterMapLevel {
  kBijective,   // every input point maps to a distinct output and every iterator is used fully
  kSurjective,  // splits of one iterator must not overlap, but may leave parts of it unused
  kNoCheck,     // only affinity is checked; a split that does not divide the end of its
                // iterator is taken as of the iterator padded to a multiple
};

struct IterMapResult {
  std::vector<IterSumExpr> indices;  // one per input index; empty when detection failed
  std::vector<std::string> errors;   // why detection failed, for the user
  bool ok() const { return errors.empty(); }
};

// `input_iters` are the loop variables with their ranges (min 0, constant extent), in loop order;
// other variables in the indices are treated as constants.
// `predicate` may restrict fused iterators, as split with a non-dividing factor does:
// `i0 * 32 + i1 < 100`; pass `true` (IntImm 1) for none.
// `simplify_trivial_iterators` off keeps iterators of extent 1 as iterators (TVM's flag of the same
// name): an inverse map then gives their values too, instead of treating them as the constant 0.
IterMapResult DetectIterMap(const std::vector<PrimExpr>& indices,
                            const std::vector<std::pair<Var, Range>>& input_iters,
                            const PrimExpr& predicate, IterMapLevel level, Analyzer* analyzer,
                            bool simplify_trivial_iterators = true);

// The index expression an IterSumExpr stands for, simplified.
PrimExpr NormalizeIterMapToExpr(const IterSumExpr& sum, tir::DataType dtype);

// TVM's InverseAffineIterMap: given DetectIterMap's `indices` of a bijective map and a value for
// each index (`outputs`), the value of every input iterator the map uses, by propagating the
// outputs back through the splits and fused iterators in TVM's order. The expressions are built
// with the folding constructors only (`x + 0` is x, `x // 1` is x), not simplified: a fused
// iterator split as `(f // 16, f % 16)` comes back as `f // 16`, `f % 16` of the propagated sum,
// the shape TVM's reverse_compute_inline writes. Inputs the map does not use are absent.
std::vector<std::pair<Var, PrimExpr>> InverseAffineIterMap(const std::vector<IterSumExpr>& indices,
                                                           const std::vector<PrimExpr>& outputs);

}  // namespace wb::arith
