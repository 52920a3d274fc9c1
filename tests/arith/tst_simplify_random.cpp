// Randomized soundness of the simplifiers: random small integer expressions over variables with
// small ranges are simplified, and the result must evaluate to the same value as the input for
// every assignment of the variables. Proofs (CanProve) are checked the same way: a comparison
// claimed true must hold at every point. Seeds are fixed, so failures reproduce.

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
  // vars[1] must range over non-negative values: it forms the symbolic divisor.
  Generator(uint32_t seed, std::vector<VarRange> vars) : rng_(seed), vars_(std::move(vars)) {}

  PrimExpr Expr(int depth) {
    if (depth == 0 || Pick(5) == 0) return Leaf();
    switch (Pick(13)) {
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
        PrimExpr d = Plus(vars_[1].var, C(1));
        PrimExpr a = Pick(2) ? Plus(Times(Expr(depth - 1), d), Expr(depth - 1)) : Expr(depth - 1);
        return Pick(2) ? FDiv(a, d) : FMod(a, d);
      }
      default: {
        // The shapes split and fuse create: (a * c + b) // c and % c, and their recombination.
        int64_t c = Pick(7) + 2;
        PrimExpr a = Expr(depth - 1), b = Expr(depth - 1);
        PrimExpr f = Plus(Times(a, C(c)), b);
        switch (Pick(3)) {
          case 0: return FDiv(f, C(c));
          case 1: return FMod(f, C(c));
          default: return Plus(Times(FDiv(b, C(c)), C(c)), FMod(b, C(c)));
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
  PrimExpr Const(int64_t lo, int64_t hi) {
    return C(std::uniform_int_distribution<int64_t>(lo, hi)(rng_));
  }
  PrimExpr Leaf() {
    if (Pick(3) == 0) return Const(-5, 10);
    return vars_[Pick(int(vars_.size()))].var;
  }

  std::mt19937 rng_;
  std::vector<VarRange> vars_;
};

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
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      QTest::addRow("seed%u-bound", seed) << seed << true;
      QTest::addRow("seed%u-free", seed) << seed << false;
    }
  }

  void simplifyKeepsValue() {
    QFETCH(uint32_t, seed);
    QFETCH(bool, bind_ranges);
    std::vector<VarRange> vars{{V("x"), -4, 9}, {V("y"), 0, 8}, {V("z"), 0, 3}};
    Generator gen(seed, vars);
    int checked = 0, changed = 0;
    for (int n = 0; n < 400; ++n) {
      Analyzer ana;
      if (bind_ranges) {
        for (const auto& v : vars) ana.Bind(v.var, R(v.min, v.extent));
      }
      PrimExpr e = gen.Expr(4);
      PrimExpr s = ana.Simplify(e);
      if (!s.same_as(e)) ++changed;
      std::string err = ForAll(vars, [&](const auto& env) -> std::string {
        int64_t want = Eval(e, env), got = Eval(s, env);
        ++checked;
        if (want == got) return "";
        return "seed " + std::to_string(seed) + " expr " + std::to_string(n) + ": simplified " +
               std::to_string(got) + ", original " + std::to_string(want) + " at " + Describe(env);
      });
      if (!err.empty()) QFAIL(err.c_str());
    }
    QVERIFY(checked > 0);
    QVERIFY(changed > 0);  // the simplifier did rewrite something
  }

  void proofsAreSound_data() {
    QTest::addColumn<uint32_t>("seed");
    for (uint32_t seed = 11; seed <= 16; ++seed) QTest::addRow("seed%u", seed) << seed;
  }

  void proofsAreSound() {
    QFETCH(uint32_t, seed);
    std::vector<VarRange> vars{{V("x"), -3, 7}, {V("y"), 0, 6}};
    Generator gen(seed, vars);
    int proved = 0;
    for (int n = 0; n < 500; ++n) {
      Analyzer ana;
      for (const auto& v : vars) ana.Bind(v.var, R(v.min, v.extent));
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
    for (uint32_t seed = 1; seed <= 6; ++seed) QTest::addRow("seed%u", seed) << seed;
  }

  void constIntBoundIsSound() {
    QFETCH(uint32_t, seed);
    std::vector<VarRange> vars{{V("x"), -4, 9}, {V("y"), 0, 8}, {V("z"), 0, 3}};
    Generator gen(seed + 100, vars);
    for (int n = 0; n < 300; ++n) {
      Analyzer ana;
      for (const auto& v : vars) ana.Bind(v.var, R(v.min, v.extent));
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
