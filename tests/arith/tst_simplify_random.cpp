// Randomized soundness of the simplifiers: random small integer expressions over variables with
// small ranges are simplified, and the result must evaluate to the same value as the input for
// every assignment of the variables. Proofs (CanProve) are checked the same way: a comparison
// claimed true must hold at every point. Seeds are fixed, so failures reproduce. Every check
// also runs on uint32 expressions (evaluated with wraparound) over ranges that reach 2^32 - 1,
// and the generator builds max(p, q) - min(p', q') with shared operands, the shape whose
// difference is |p - q| and must not cancel.

#include <QTest>

#include <functional>
#include <map>
#include <random>

#include "arith_test_util.h"

using namespace arith_test;
using wb::arith::Analyzer;

namespace {

struct VarRange {
  Var var;
  int64_t min, extent;
};

class Generator {
 public:
  // vars[1] must range over non-negative values (below 2^32 - 1 for uint32): it forms the
  // symbolic divisor.
  Generator(uint32_t seed, std::vector<VarRange> vars)
      : rng_(seed), vars_(std::move(vars)), dtype_(vars_[0].var->dtype) {}

  PrimExpr Expr(int depth) {
    if (depth == 0 || Pick(5) == 0) return Leaf();
    switch (Pick(15)) {
      case 0: case 1: return Plus(Expr(depth - 1), Expr(depth - 1));
      case 2: return Minus(Expr(depth - 1), Expr(depth - 1));
      case 3: return Times(Expr(depth - 1), Const(-3, 8));
      case 4: return Times(Expr(depth - 1), Expr(depth - 1));
      case 5: return FDiv(Expr(depth - 1), Const(1, 9));
      case 6: return FMod(Expr(depth - 1), Const(1, 9));
      case 7: return Pick(2) ? TDiv(Expr(depth - 1), Const(1, 9)) : TMod(Expr(depth - 1), Const(1, 9));
      case 8: return MinOf(Expr(depth - 1), Expr(depth - 1));
      case 9: return MaxOf(Expr(depth - 1), Expr(depth - 1));
      case 10: return MakeSelect(Cond(depth - 1), Expr(depth - 1), Expr(depth - 1));
      case 11: {
        // A symbolic, positive divisor (y + 1, y >= 0) and a tile by it.
        PrimExpr d = Plus(vars_[1].var, Lit(1));
        PrimExpr a = Pick(2) ? Plus(Times(Expr(depth - 1), d), Expr(depth - 1)) : Expr(depth - 1);
        return Pick(2) ? FDiv(a, d) : FMod(a, d);
      }
      default: {
        // The shapes split and fuse create: (a * c + b) // c and % c, and their recombination.
        int64_t c = Pick(7) + 2;
        PrimExpr a = Expr(depth - 1), b = Expr(depth - 1);
        PrimExpr f = Plus(Times(a, Lit(c)), b);
        switch (Pick(3)) {
          case 0: return FDiv(f, Lit(c));
          case 1: return FMod(f, Lit(c));
          default: return Plus(Times(FDiv(b, Lit(c)), Lit(c)), FMod(b, Lit(c)));
        }
      }
      case 12:
      case 13: {
        // max(p, q) - min(p', q') where p', q' are p, q (either order) or p + 1, q * 3: a
        // difference of the two ends, which is |p - q| and only cancels to p - q when the order
        // of p and q is proven.
        PrimExpr p = Expr(depth - 1), q = Expr(depth - 1);
        PrimExpr p2 = Pick(3) == 0 ? Plus(p, Lit(1)) : p;
        PrimExpr q2 = Pick(3) == 0 ? Times(q, Lit(3)) : q;
        PrimExpr hi = MaxOf(p, q), lo = Pick(2) ? MinOf(p2, q2) : MinOf(q2, p2);
        switch (Pick(3)) {
          case 0: return Minus(hi, lo);
          case 1: return Minus(lo, hi);
          default: return Plus(hi, lo);
        }
      }
    }
  }

  PrimExpr Cond(int depth) {
    PrimExpr a = Expr(depth), b = Expr(depth);
    switch (Pick(8)) {
      case 0: return Lt(a, b);
      case 1: return Le(a, b);
      case 2: return Gt(a, b);
      case 3: return Ge(a, b);
      case 4: return Eq(a, b);
      case 5: return Ne(a, b);
      case 6: return AndOf(Lt(a, b), Cond(0));
      default: return OrOf(Ge(a, b), MakeNot(Cond(0)));
    }
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  // A literal of the generator's type (a negative one wraps for uint32).
  PrimExpr Lit(int64_t v) { return make_const(dtype_, v); }
  PrimExpr Const(int64_t lo, int64_t hi) {
    return Lit(std::uniform_int_distribution<int64_t>(lo, hi)(rng_));
  }
  PrimExpr Leaf() {
    if (Pick(3) == 0) return Const(-5, 10);
    return vars_[Pick(int(vars_.size()))].var;
  }

  std::mt19937 rng_;
  std::vector<VarRange> vars_;
  DataType dtype_;
};

// The variables of a test: int32 ones around zero, or uint32 ones where x reaches 2^32 - 1
// (`high`), so that x + 1 and x * 3 wrap, or stays small, so that x and y come in either order.
std::vector<VarRange> MakeVars(bool is_unsigned, bool high, int64_t x_min, int64_t x_extent) {
  if (!is_unsigned) return {{V("x"), x_min, x_extent}, {V("y"), 0, 8}, {V("z"), 0, 3}};
  if (high) return {{U("x"), 4294967291, 5}, {U("y"), 0, 8}, {U("z"), 0, 3}};
  return {{U("x"), 0, 9}, {U("y"), 0, 8}, {U("z"), 0, 3}};
}

Range RangeOf(const VarRange& v) {
  DataType t = v.var->dtype;
  return ir::MakeRange(make_const(t, v.min), make_const(t, v.extent));
}

// Calls fn for every assignment of the variables within their ranges; fn returns an error
// message or "". Returns the first error.
std::string ForAll(const std::vector<VarRange>& vars,
                   const std::function<std::string(const std::map<const VarNode*, int64_t>&)>& fn) {
  std::map<const VarNode*, int64_t> env;
  std::function<std::string(size_t)> rec = [&](size_t k) -> std::string {
    if (k == vars.size()) return fn(env);
    for (int64_t v = vars[k].min; v < vars[k].min + vars[k].extent; ++v) {
      env[vars[k].var.get()] = v;
      if (std::string err = rec(k + 1); !err.empty()) return err;
    }
    return "";
  };
  return rec(0);
}

std::string Describe(const std::map<const VarNode*, int64_t>& env) {
  std::string s;
  for (const auto& [var, v] : env) s += var->name_hint + "=" + std::to_string(v) + " ";
  return s;
}

}  // namespace

class TestSimplifyRandom : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void simplifyKeepsValue_data() {
    QTest::addColumn<uint32_t>("seed");
    QTest::addColumn<bool>("bind_ranges");
    QTest::addColumn<bool>("is_unsigned");
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      QTest::addRow("seed%u-bound", seed) << seed << true << false;
      QTest::addRow("seed%u-free", seed) << seed << false << false;
      QTest::addRow("seed%u-bound-uint", seed) << seed << true << true;
      QTest::addRow("seed%u-free-uint", seed) << seed << false << true;
    }
  }

  void simplifyKeepsValue() {
    QFETCH(uint32_t, seed);
    QFETCH(bool, bind_ranges);
    QFETCH(bool, is_unsigned);
    // Bound unsigned runs alternate between x at the top of the type and x small; free ones
    // evaluate both.
    std::vector<VarRange> vars = MakeVars(is_unsigned, seed % 2 == 1, -4, 9);
    std::vector<std::vector<VarRange>> domains{vars};
    if (is_unsigned && !bind_ranges) {
      std::vector<VarRange> other = MakeVars(true, seed % 2 == 0, -4, 9);
      for (size_t k = 0; k < vars.size(); ++k) other[k].var = vars[k].var;
      domains.push_back(other);
    }
    Generator gen(seed, vars);
    int checked = 0, changed = 0;
    for (int n = 0; n < 400; ++n) {
      Analyzer ana;
      if (bind_ranges) {
        for (const auto& v : vars) ana.Bind(v.var, RangeOf(v));
      }
      PrimExpr e = gen.Expr(4);
      PrimExpr s = ana.Simplify(e);
      if (!s.same_as(e)) ++changed;
      for (const auto& domain : domains) {
        std::string err = ForAll(domain, [&](const auto& env) -> std::string {
          int64_t want = Eval(e, env), got = Eval(s, env);
          ++checked;
          if (want == got) return "";
          return "seed " + std::to_string(seed) + " expr " + std::to_string(n) +
                 ": simplified " + std::to_string(got) + ", original " + std::to_string(want) +
                 " at " + Describe(env);
        });
        if (!err.empty()) QFAIL(err.c_str());
      }
    }
    QVERIFY(checked > 0);
    QVERIFY(changed > 0);  // the simplifier did rewrite something
  }

  void proofsAreSound_data() {
    QTest::addColumn<uint32_t>("seed");
    QTest::addColumn<bool>("is_unsigned");
    for (uint32_t seed = 11; seed <= 16; ++seed) {
      QTest::addRow("seed%u", seed) << seed << false;
      QTest::addRow("seed%u-uint", seed) << seed << true;
    }
  }

  void proofsAreSound() {
    QFETCH(uint32_t, seed);
    QFETCH(bool, is_unsigned);
    std::vector<VarRange> vars = MakeVars(is_unsigned, seed % 2 == 1, -3, 7);
    vars.pop_back();  // x and y only: conditions are larger
    Generator gen(seed, vars);
    int proved = 0;
    for (int n = 0; n < 500; ++n) {
      Analyzer ana;
      for (const auto& v : vars) ana.Bind(v.var, RangeOf(v));
      PrimExpr cond = gen.Cond(3);
      if (!ana.CanProve(cond)) continue;
      ++proved;
      std::string err = ForAll(vars, [&](const auto& env) -> std::string {
        if (Eval(cond, env)) return "";
        return "seed " + std::to_string(seed) + " cond " + std::to_string(n) +
               " proved but false at " + Describe(env);
      });
      if (!err.empty()) QFAIL(err.c_str());
    }
    QVERIFY(proved > 0);
  }

  void constIntBoundIsSound_data() {
    QTest::addColumn<uint32_t>("seed");
    QTest::addColumn<bool>("is_unsigned");
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      QTest::addRow("seed%u", seed) << seed << false;
      QTest::addRow("seed%u-uint", seed) << seed << true;
    }
  }

  void constIntBoundIsSound() {
    QFETCH(uint32_t, seed);
    QFETCH(bool, is_unsigned);
    std::vector<VarRange> vars = MakeVars(is_unsigned, seed % 2 == 1, -4, 9);
    Generator gen(seed + 100, vars);
    for (int n = 0; n < 300; ++n) {
      Analyzer ana;
      for (const auto& v : vars) ana.Bind(v.var, RangeOf(v));
      PrimExpr e = gen.Expr(4);
      auto b = ana.const_int_bound(e);
      auto m = ana.modular_set(e);
      std::string err = ForAll(vars, [&](const auto& env) -> std::string {
        int64_t v = Eval(e, env);
        std::string where = "seed " + std::to_string(seed) + " expr " + std::to_string(n) +
                            ": value " + std::to_string(v) + " at " + Describe(env);
        if (v < b.min_value || v > b.max_value) {
          return where + " outside [" + std::to_string(b.min_value) + ", " +
                 std::to_string(b.max_value) + "]";
        }
        bool in_set = m.coeff == 0 ? v == m.base : (v - m.base) % m.coeff == 0;
        if (!in_set) {
          return where + " not " + std::to_string(m.coeff) + "*k + " + std::to_string(m.base);
        }
        return "";
      });
      if (!err.empty()) QFAIL(err.c_str());
    }
  }
};

QTEST_APPLESS_MAIN(TestSimplifyRandom)
#include "tst_simplify_random.moc"
