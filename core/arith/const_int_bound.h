// ConstIntBound: the tightest [min, max] with int64 constants that an integer expression is known
// to stay within, given the ranges bound to its variables and the facts of the enclosing
// constraint scopes. kPosInf/kNegInf mean unbounded. Everything the simplifiers prove about
// comparisons, min/max and floordiv/floormod rests on this analysis.
#pragma once

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "arith/int_math.h"
#include "tir/expr.h"

namespace wb::arith {

using tir::PrimExpr;
using tir::Range;
using tir::Var;

class Analyzer;

struct ConstIntBound {
  int64_t min_value = kNegInf;
  int64_t max_value = kPosInf;
  static constexpr int64_t kPosInf = arith::kPosInf;
  static constexpr int64_t kNegInf = arith::kNegInf;
  bool is_const() const { return min_value == max_value; }
  bool operator==(const ConstIntBound& o) const {
    return min_value == o.min_value && max_value == o.max_value;
  }
};

class ConstIntBoundAnalyzer {
 public:
  explicit ConstIntBoundAnalyzer(Analyzer* parent) : parent_(parent) {}

  ConstIntBound operator()(const PrimExpr& expr);

  // Records the bound of a variable. Without allow_override, a second binding of the same
  // variable to a different bound is a caller bug and throws.
  void Bind(const Var& var, const Range& range, bool allow_override = false);
  void Update(const Var& var, const ConstIntBound& bound, bool allow_override = false);

  // Adds the facts `constraint` implies (conjunctions of comparisons) and returns how to undo them.
  std::function<void()> EnterConstraint(const PrimExpr& constraint);

 private:
  friend class ConstIntBoundVisitor;
  struct Fact {
    PrimExpr expr;  // canonical form of `lhs - rhs` of a comparison, or a variable
    ConstIntBound bound;
  };
  void CollectFacts(const PrimExpr& cond, std::vector<Fact>* out);

  Analyzer* parent_;
  std::map<const tir::VarNode*, std::pair<Var, ConstIntBound>> var_map_;
  std::vector<Fact> facts_;
};

}  // namespace wb::arith
