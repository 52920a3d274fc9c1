// ModularSet: facts of the form `expr == coeff * k + base` for some integer k (coeff >= 0,
// 0 <= base < coeff; coeff == 0 means the expression is the constant `base`; coeff == 1 means
// nothing is known). It lets the simplifiers see that `i * 8 + 4` is divisible by 4, so
// `(i * 8 + 4) % 4` is 0, whatever the range of i.
#pragma once

#include <functional>
#include <map>
#include <utility>

#include "tir/expr.h"

namespace wb::arith {

using tir::PrimExpr;
using tir::Var;

class Analyzer;

struct ModularSet {
  int64_t coeff = 1;
  int64_t base = 0;
  bool operator==(const ModularSet& o) const { return coeff == o.coeff && base == o.base; }
};

class ModularSetAnalyzer {
 public:
  explicit ModularSetAnalyzer(Analyzer* parent) : parent_(parent) {}

  ModularSet operator()(const PrimExpr& expr);
  void Update(const Var& var, const ModularSet& info, bool allow_override = false);
  // Learns `x % c == b` / `floormod(x, c) == b` facts about a variable.
  std::function<void()> EnterConstraint(const PrimExpr& constraint);

 private:
  friend class ModularSetVisitor;
  Analyzer* parent_;
  std::map<const tir::VarNode*, std::pair<Var, ModularSet>> var_map_;
};

}  // namespace wb::arith
