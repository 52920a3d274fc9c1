// Tests of the arith analyzers: constant bounds (with symbolic and unbounded variables), modular
// sets, the rewrite and canonical simplifiers on the floordiv/floormod identities that split and
// fuse create, proofs under constraint scopes, and integer-set evaluation for region relaxation.

#include <QTest>

#include "arith_test_util.h"
#include "ir/structural_equal.h"

using namespace arith_test;
using wb::arith::Analyzer;
using wb::arith::ConstIntBound;
using wb::arith::IntSet;

namespace {

// Structural equality with free variables compared by identity, printed on failure.
bool Equal(const PrimExpr& a, const PrimExpr& b) {
  return ir::StructuralEqual(a, b, /*map_free_vars=*/false);
}

int64_t ConstOf(const PrimExpr& e) {
  const int64_t* v = AsConstInt(e);
  if (!v) throw std::runtime_error(std::string("not a constant: ") + e->type_key());
  return *v;
}

}  // namespace

class TestArith : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void constIntBoundArithmetic() {
    Analyzer ana;
    Var i = V("i"), j = V("j");
    ana.Bind(i, R(0, 16));
    ana.Bind(j, R(-4, 8));  // [-4, 3]
    auto b = ana.const_int_bound(Plus(Times(i, C(4)), j));
    QCOMPARE(b.min_value, -4);
    QCOMPARE(b.max_value, 63);
    b = ana.const_int_bound(Minus(i, j));
    QCOMPARE(b.min_value, -3);
    QCOMPARE(b.max_value, 19);
    b = ana.const_int_bound(Times(j, C(-3)));
    QCOMPARE(b.min_value, -9);
    QCOMPARE(b.max_value, 12);
    b = ana.const_int_bound(FDiv(j, C(2)));  // floor(-4/2) .. floor(3/2)
    QCOMPARE(b.min_value, -2);
    QCOMPARE(b.max_value, 1);
    b = ana.const_int_bound(TDiv(j, C(3)));  // trunc: -1 .. 1
    QCOMPARE(b.min_value, -1);
    QCOMPARE(b.max_value, 1);
    b = ana.const_int_bound(FMod(j, C(8)));
    QCOMPARE(b.min_value, 0);
    QCOMPARE(b.max_value, 7);
    b = ana.const_int_bound(FMod(i, C(32)));  // i < 32 already: the bound of i itself
    QCOMPARE(b.min_value, 0);
    QCOMPARE(b.max_value, 15);
    b = ana.const_int_bound(MinOf(i, j));
    QCOMPARE(b.min_value, -4);
    QCOMPARE(b.max_value, 3);
    b = ana.const_int_bound(MaxOf(i, j));
    QCOMPARE(b.min_value, 0);
    QCOMPARE(b.max_value, 15);
    b = ana.const_int_bound(MakeSelect(Lt(i, C(3)), C(100), j));
    QCOMPARE(b.min_value, -4);
    QCOMPARE(b.max_value, 100);
    b = ana.const_int_bound(MakeCast(DataType::Int(64), Plus(i, C(1))));
    QCOMPARE(b.min_value, 1);
    QCOMPARE(b.max_value, 16);
    // A narrowing cast that cannot hold the value gives the target type's range.
    b = ana.const_int_bound(MakeCast(DataType::Int(8), Times(i, C(100))));
    QCOMPARE(b.min_value, -128);
    QCOMPARE(b.max_value, 127);
  }

  void constIntBoundSymbolicAndInfinity() {
    Analyzer ana;
    Var n = MakeVar("n", DataType::Int(64));
    Var i = MakeVar("i", DataType::Int(64));
    ana.Bind(i, ir::MakeRange(MakeIntImm(DataType::Int(64), 0), n));
    auto b = ana.const_int_bound(i);
    QCOMPARE(b.min_value, 0);
    QCOMPARE(b.max_value, ConstIntBound::kPosInf);
    // Unbounded int64 values saturate instead of overflowing.
    b = ana.const_int_bound(Times(n, n));
    QCOMPARE(b.min_value, ConstIntBound::kNegInf);
    QCOMPARE(b.max_value, ConstIntBound::kPosInf);
    b = ana.const_int_bound(Plus(i, MakeIntImm(DataType::Int(64), 5)));
    QCOMPARE(b.min_value, 5);
    QCOMPARE(b.max_value, ConstIntBound::kPosInf);
    b = ana.const_int_bound(Minus(MakeIntImm(DataType::Int(64), 0), i));
    QCOMPARE(b.min_value, ConstIntBound::kNegInf);
    QCOMPARE(b.max_value, 0);
    // A size variable is non-negative; int32 values stay within int32.
    Var s = MakeSizeVar("s", kI32);
    QCOMPARE(ana.const_int_bound(s).min_value, 0);
    QCOMPARE(ana.const_int_bound(s).max_value, 2147483647);
    // Floor modulo by a symbolic positive divisor.
    ana.Bind(s, R(1, 10));
    b = ana.const_int_bound(FMod(V("x"), s));
    QCOMPARE(b.min_value, 0);
    QCOMPARE(b.max_value, 9);
  }

  void modularSet() {
    Analyzer ana;
    Var i = V("i"), j = V("j");
    auto m = ana.modular_set(Plus(Times(i, C(8)), C(4)));
    QCOMPARE(m.coeff, 8);
    QCOMPARE(m.base, 4);
    m = ana.modular_set(Plus(Times(i, C(6)), Times(j, C(4))));
    QCOMPARE(m.coeff, 2);
    QCOMPARE(m.base, 0);
    m = ana.modular_set(FDiv(Plus(Times(i, C(8)), C(4)), C(2)));
    QCOMPARE(m.coeff, 4);
    QCOMPARE(m.base, 2);
    m = ana.modular_set(FMod(Plus(Times(i, C(8)), C(3)), C(4)));
    QCOMPARE(m.coeff, 0);
    QCOMPARE(m.base, 3);
    m = ana.modular_set(Minus(Times(i, C(4)), C(1)));
    QCOMPARE(m.coeff, 4);
    QCOMPARE(m.base, 3);
    m = ana.modular_set(Times(Plus(Times(i, C(2)), C(1)), C(3)));  // 6i + 3
    QCOMPARE(m.coeff, 6);
    QCOMPARE(m.base, 3);
    {
      auto scope = ana.constraint(Eq(FMod(j, C(4)), C(1)));
      m = ana.modular_set(Plus(j, C(3)));
      QCOMPARE(m.coeff, 4);
      QCOMPARE(m.base, 0);
    }
    QCOMPARE(ana.modular_set(j).coeff, 1);
  }

  void rewriteRules() {
    Analyzer ana;
    Var x = V("x"), y = V("y"), i = V("i"), j = V("j");
    ana.Bind(i, R(0, 8));
    ana.Bind(j, R(0, 4));
    QVERIFY(Equal(ana.rewrite_simplify(Minus(x, x)), C(0)));
    QVERIFY(Equal(ana.rewrite_simplify(MinOf(x, Plus(x, C(1)))), x));
    QVERIFY(Equal(ana.rewrite_simplify(MaxOf(x, Plus(x, C(1)))), Plus(x, C(1))));
    QVERIFY(Equal(ana.rewrite_simplify(Minus(Plus(x, y), x)), y));
    QVERIFY(Equal(ana.rewrite_simplify(Plus(Plus(x, C(2)), C(3))), Plus(x, C(5))));
    QVERIFY(Equal(ana.rewrite_simplify(Times(Times(x, C(2)), C(3))), Times(x, C(6))));
    QVERIFY(Equal(ana.rewrite_simplify(Lt(C(3), C(4))), MakeIntImm(DataType::Bool(), 1)));
    QVERIFY(Equal(ana.rewrite_simplify(Ge(C(3), C(4))), MakeIntImm(DataType::Bool(), 0)));
    QVERIFY(Equal(ana.rewrite_simplify(FDiv(Plus(Times(i, C(4)), j), C(4))), i));
    QVERIFY(Equal(ana.rewrite_simplify(FMod(Plus(Times(i, C(4)), j), C(4))), j));
    QVERIFY(Equal(ana.rewrite_simplify(FMod(Plus(Times(x, C(8)), C(4)), C(4))), C(0)));
    QVERIFY(Equal(ana.rewrite_simplify(FDiv(j, C(4))), C(0)));
    QVERIFY(Equal(ana.rewrite_simplify(Lt(i, C(8))), MakeIntImm(DataType::Bool(), 1)));
    QVERIFY(Equal(ana.rewrite_simplify(Lt(i, C(7))), Lt(i, C(7))));
    QVERIFY(Equal(ana.rewrite_simplify(Eq(Times(x, C(2)), C(1))), MakeIntImm(DataType::Bool(), 0)));
    QVERIFY(Equal(ana.rewrite_simplify(MakeSelect(Lt(i, C(9)), x, y)), x));
    QVERIFY(Equal(ana.rewrite_simplify(MakeNot(Lt(x, y))), Le(y, x)));
    // Simplified comparisons use < and <= only, as TVM's: the greater-than forms are mirrored,
    // and a constant on the left still meets the rules that move constants across.
    QVERIFY(Equal(ana.rewrite_simplify(Gt(x, y)), Lt(y, x)));
    QVERIFY(Equal(ana.rewrite_simplify(Ge(x, C(2))), Le(C(2), x)));
    QVERIFY(Equal(ana.rewrite_simplify(Lt(C(2), Plus(x, C(1)))), Lt(C(1), x)));
    QVERIFY(Equal(ana.rewrite_simplify(Le(C(3), Times(x, C(2)))), Le(C(2), x)));
    QVERIFY(Equal(ana.rewrite_simplify(AndOf(Lt(x, y), Ge(x, y))), MakeIntImm(DataType::Bool(), 0)));
    QVERIFY(Equal(ana.rewrite_simplify(OrOf(Lt(x, y), MakeNot(Lt(x, y)))),
                  MakeIntImm(DataType::Bool(), 1)));
    QVERIFY(Equal(ana.rewrite_simplify(MinOf(x, MaxOf(x, y))), x));
    QVERIFY(Equal(ana.rewrite_simplify(MaxOf(MinOf(y, x), x)), x));
    QVERIFY(Equal(ana.rewrite_simplify(MinOf(MinOf(x, y), x)), MinOf(x, y)));
    QVERIFY(Equal(ana.rewrite_simplify(MinOf(MinOf(x, C(5)), C(3))), MinOf(x, C(3))));
    QVERIFY(Equal(ana.rewrite_simplify(Lt(Times(x, C(4)), C(10))), Lt(x, C(3))));
    QVERIFY(Equal(ana.rewrite_simplify(Le(Times(x, C(4)), C(10))), Le(x, C(2))));
    // TVM's canonical comparisons: a > b is b < a and a >= b is b <= a, the constant moved
    // across as on the right; a != b where a >= b is proven is b < a.
    QVERIFY(Equal(ana.rewrite_simplify(Ge(Times(x, C(4)), C(-10))), Le(C(-2), x)));
    QVERIFY(Equal(ana.rewrite_simplify(Gt(Times(x, C(4)), C(10))), Lt(C(2), x)));
    QVERIFY(Equal(ana.rewrite_simplify(Gt(x, y)), Lt(y, x)));
    QVERIFY(Equal(ana.rewrite_simplify(Ge(Plus(x, C(1)), C(5))), Le(C(4), x)));
    QVERIFY(Equal(ana.rewrite_simplify(Ne(i, C(0))), Lt(C(0), i)));
    QVERIFY(Equal(ana.rewrite_simplify(Ne(x, C(0))), Ne(x, C(0))));
    QVERIFY(Equal(ana.rewrite_simplify(Eq(Times(x, C(4)), C(10))), MakeIntImm(DataType::Bool(), 0)));
    QVERIFY(Equal(ana.rewrite_simplify(Lt(Plus(x, C(3)), C(10))), Lt(x, C(7))));
    // Truncating division of a provably non-negative value is floor division.
    QVERIFY(Equal(ana.rewrite_simplify(TDiv(Plus(Times(i, C(4)), j), C(4))), i));
    QVERIFY(Equal(ana.rewrite_simplify(TMod(Plus(Times(i, C(4)), j), C(4))), j));
    // ... but not of a value that may be negative.
    QVERIFY(Equal(ana.rewrite_simplify(TDiv(x, C(4))), TDiv(x, C(4))));
  }

  // TVM's rules for a floor quotient compared with a constant, and for a bound beside a residue
  // condition: x // c1 < c2 is x < c1 * c2, and x < c1 && x % c2 < c3 bounds x by the last value
  // below c1 whose residue passes. Each form is checked by evaluation too.
  void floorDivComparisonsAndResidueBounds() {
    Analyzer ana;
    Var x = V("x");
    QVERIFY(Equal(ana.rewrite_simplify(Lt(FDiv(x, C(128)), C(127))), Lt(x, C(16256))));
    QVERIFY(Equal(ana.rewrite_simplify(Le(FDiv(x, C(4)), C(2))), Le(x, C(11))));
    QVERIFY(Equal(ana.rewrite_simplify(Ge(FDiv(x, C(4)), C(2))), Le(C(8), x)));
    QVERIFY(Equal(ana.rewrite_simplify(Gt(FDiv(x, C(4)), C(2))), Lt(C(11), x)));
    QVERIFY(
        Equal(ana.rewrite_simplify(AndOf(Lt(FDiv(x, C(128)), C(127)), Lt(FMod(x, C(128)), C(127)))),
              AndOf(Lt(x, C(16255)), Lt(FMod(x, C(128)), C(127)))));
    // A residue bound that always holds goes, and leaves the bound alone.
    QVERIFY(
        Equal(ana.rewrite_simplify(AndOf(Lt(x, C(16)), Lt(FMod(x, C(4)), C(4)))), Lt(x, C(16))));
    for (int64_t c1 : {-7, 0, 5, 8, 12, 13}) {
      for (int64_t c2 : {1, 3, 4}) {
        for (int64_t c3 : {-1, 0, 1, 2, 3, 5}) {
          std::vector<PrimExpr> exprs{Lt(FDiv(x, C(c2)), C(c1)), Le(FDiv(x, C(c2)), C(c1)),
                                      Gt(FDiv(x, C(c2)), C(c1)), Ge(FDiv(x, C(c2)), C(c1)),
                                      AndOf(Lt(x, C(c1)), Lt(FMod(x, C(c2)), C(c3)))};
          for (const PrimExpr& e : exprs) {
            PrimExpr s = ana.Simplify(e);
            for (int64_t v = -20; v <= 20; ++v) {
              std::map<const VarNode*, int64_t> env{{x.get(), v}};
              QCOMPARE(Eval(s, env), Eval(e, env));
            }
          }
        }
      }
    }
  }

  // max(a, b) - min(a, b) is |a - b|, not a - b: no rule may cancel a min against a max unless
  // the order of the operands is proven. Each case is checked by evaluation at points where
  // a < b, a == b and a > b.
  void minMaxDifferenceIsNotCancelled() {
    Var a = V("a"), b = V("b");
    std::vector<PrimExpr> exprs{
        Minus(MaxOf(a, b), MinOf(a, b)),
        Minus(MaxOf(a, Times(b, C(3))), MinOf(Plus(a, C(1)), b)),
        Minus(MinOf(a, b), MaxOf(a, b)),
        Minus(MaxOf(b, a), MinOf(a, b)),
        Plus(MaxOf(a, b), Times(MinOf(a, b), C(-1))),
        Minus(Plus(MaxOf(a, b), C(2)), MinOf(a, b)),
        Minus(MaxOf(a, b), a),
        Minus(MinOf(a, b), b),
    };
    for (bool bound : {false, true}) {
      Analyzer ana;
      if (bound) {
        ana.Bind(a, R(0, 10));
        ana.Bind(b, R(0, 10));
      }
      for (const PrimExpr& e : exprs) {
        for (PrimExpr s : {ana.Simplify(e), ana.rewrite_simplify(e), ana.canonical_simplify(e)}) {
          for (int64_t va : {0, 3, 7}) {
            for (int64_t vb : {0, 3, 7}) {
              std::map<const VarNode*, int64_t> env{{a.get(), va}, {b.get(), vb}};
              QCOMPARE(Eval(s, env), Eval(e, env));
            }
          }
        }
      }
    }
    // The sound neighbours still apply: max(a, b) + min(a, b) == a + b, and a proven order
    // decides the difference.
    Analyzer ana;
    QVERIFY(ana.CanProveEqual(Plus(MaxOf(a, b), MinOf(a, b)), Plus(a, b)));
    ana.Bind(a, R(0, 4));
    Var c = V("c");
    ana.Bind(c, R(4, 4));
    QVERIFY(Equal(ana.Simplify(Minus(MaxOf(a, c), MinOf(a, c))), Minus(c, a)));
  }

  // Unsigned arithmetic wraps: every uint a - b is >= 0, so it cannot decide how a and b are
  // ordered, and rules that move a term across a comparison or out of a division do not hold.
  // Each expression is checked by (wrapping) evaluation, at small values and near 2^32.
  void unsignedRulesRespectWraparound() {
    Var a = U("a"), b = U("b");
    std::vector<PrimExpr> exprs{
        Minus(MaxOf(a, b), MinOf(a, b)),
        Minus(MaxOf(a, Times(b, CU(3))), MinOf(Plus(a, CU(1)), b)),
        MaxOf(a, b),
        MinOf(a, b),
        MinOf(a, Plus(a, CU(1))),
        Minus(MaxOf(a, b), b),
        Lt(a, b),
        Ge(a, b),
        Lt(Plus(a, CU(1)), CU(5)),
        Gt(Minus(a, CU(2)), CU(3)),
        Lt(Times(a, CU(4)), CU(10)),
        Eq(Times(a, CU(2)), CU(1)),
        FDiv(Plus(Times(a, CU(4)), b), CU(4)),
        FMod(Plus(Times(a, CU(3)), b), CU(3)),
        FDiv(Times(a, CU(6)), CU(3)),
        FMod(Times(a, CU(3)), CU(3)),
        FDiv(Plus(Times(a, Plus(b, CU(1))), CU(1)), Plus(b, CU(1))),
        FMod(Times(a, Plus(b, CU(1))), Plus(b, CU(1))),
        Plus(FMod(a, CU(4)), Times(FDiv(a, CU(4)), CU(4))),
    };
    const int64_t top = 4294967295;
    const std::vector<int64_t> points{0, 1, 2, 3, 7, top - 2, top - 1, top};
    for (bool bound : {false, true}) {
      Analyzer ana;
      if (bound) {
        // Ranges that reach the top of the type, where a + 1 wraps to 0.
        ana.Bind(a, ir::MakeRange(CU(top - 3), CU(4)));
        ana.Bind(b, ir::MakeRange(CU(0), CU(8)));
      }
      for (const PrimExpr& e : exprs) {
        for (PrimExpr s : {ana.Simplify(e), ana.rewrite_simplify(e), ana.canonical_simplify(e)}) {
          for (int64_t va : points) {
            if (bound && va < top - 3) continue;
            for (int64_t vb : points) {
              if (bound && vb > 7) continue;
              std::map<const VarNode*, int64_t> env{{a.get(), va}, {b.get(), vb}};
              int64_t want = 0;
              try {
                want = Eval(e, env);
              } catch (const std::runtime_error&) {
                continue;  // b = 2^32 - 1: the divisor b + 1 wraps to 0
              }
              if (Eval(s, env) != want) {
                QFAIL(("a=" + std::to_string(va) + " b=" + std::to_string(vb) + ": " +
                       std::to_string(Eval(s, env)) + " != " + std::to_string(want))
                          .c_str());
              }
            }
          }
        }
      }
      // Nothing about an unsigned a - b proves an order; the bound ranges do.
      QCOMPARE(ana.CanProve(Ge(a, b)), bound);
    }
    // A fact on an unsigned a + 1 says nothing about a (a = 2^32 - 1 makes a + 1 == 0), but a
    // fact on a itself bounds it.
    {
      Analyzer scoped;
      {
        auto scope = scoped.constraint(Lt(Plus(a, CU(1)), CU(5)));
        QCOMPARE(scoped.const_int_bound(a).max_value, top);
        QVERIFY(!scoped.CanProve(Lt(a, CU(4))));
      }
      auto scope = scoped.constraint(Lt(a, CU(5)));
      QCOMPARE(scoped.const_int_bound(a).max_value, 4);
      QVERIFY(scoped.CanProve(Lt(a, CU(6))));
    }
    // The sound rules still apply to unsigned types.
    Analyzer ana;
    QVERIFY(Equal(ana.Simplify(Minus(Plus(a, b), a)), b));
    QVERIFY(ana.CanProveEqual(Plus(MaxOf(a, b), MinOf(a, b)), Plus(a, b)));
    QVERIFY(Equal(ana.Simplify(MinOf(a, a)), a));
    ana.Bind(a, ir::MakeRange(CU(0), CU(4)));
    ana.Bind(b, ir::MakeRange(CU(4), CU(4)));
    QVERIFY(Equal(ana.Simplify(MaxOf(a, b)), b));
    QVERIFY(ana.CanProve(Lt(a, b)));
    QCOMPARE(ana.const_int_bound(Minus(b, a)).min_value, 1);
    // a - b wraps: its bound is the whole type, not [-7, -1].
    QCOMPARE(ana.const_int_bound(Minus(a, b)).max_value, top);
  }

  void canonicalSplitFuseIdentities() {
    Analyzer ana;
    Var i = V("i"), j = V("j"), k = V("k"), fused = V("fused"), x = V("x");
    // Without any range: floor semantics make these exact for all integers.
    QVERIFY(Equal(ana.Simplify(Plus(Times(FDiv(x, C(4)), C(4)), FMod(x, C(4)))), x));
    QVERIFY(Equal(ana.Simplify(Plus(FMod(fused, C(16)), Times(FDiv(fused, C(16)), C(16)))), fused));
    // Three-level split: ((x // 4) % 8) * 4 + x % 4 + (x // 32) * 32 == x.
    PrimExpr three = Plus(Plus(Times(FMod(FDiv(x, C(4)), C(8)), C(4)), FMod(x, C(4))),
                         Times(FDiv(x, C(32)), C(32)));
    QVERIFY(Equal(ana.Simplify(three), x));
    // Partial merge: ((x // 4) % 8) * 4 + x % 4 == x % 32.
    QVERIFY(Equal(ana.Simplify(Plus(Times(FMod(FDiv(x, C(4)), C(8)), C(4)), FMod(x, C(4)))),
                  FMod(x, C(32))));
    QVERIFY(Equal(ana.Simplify(FMod(FMod(x, C(32)), C(8))), FMod(x, C(8))));
    // A split is written as TVM's SplitExpr normalizes it: the modulus on the index first, so
    // (x // 8) % 4 and (x % 32) // 8 are both (x % 32) // 8.
    QVERIFY(Equal(ana.Simplify(FDiv(FMod(x, C(32)), C(8))), FDiv(FMod(x, C(32)), C(8))));
    QVERIFY(Equal(ana.Simplify(FMod(FDiv(x, C(8)), C(4))), FDiv(FMod(x, C(32)), C(8))));
    // TVM's order of a sum: by descending scale, a positive constant before the subtracted terms.
    QVERIFY(Equal(ana.Simplify(Minus(C(8), Times(x, C(3)))), Minus(C(8), Times(x, C(3)))));
    QVERIFY(Equal(ana.Simplify(Plus(FDiv(i, C(60)), x)), Plus(FDiv(i, C(60)), x)));
    QVERIFY(Equal(ana.Simplify(Plus(x, FDiv(i, C(60)))), Plus(FDiv(i, C(60)), x)));
    // Products keep their factors in order with the constants gathered last: x * (j * 2) is
    // x * j * 2; x * j and j * x are still one term.
    QVERIFY(Equal(ana.Simplify(Times(x, Times(j, C(2)))), Times(Times(x, j), C(2))));
    QVERIFY(Equal(ana.Simplify(Minus(Times(x, j), Times(j, x))), C(0)));
    QVERIFY(Equal(ana.Simplify(FDiv(FDiv(x, C(4)), C(8))), FDiv(x, C(32))));
    ana.Bind(i, R(0, 16));
    ana.Bind(j, R(0, 4));
    ana.Bind(k, R(0, 2));
    // (i*8 + j*2 + k) // 2 -> i*4 + j, and % 2 -> k.
    PrimExpr e = Plus(Plus(Times(i, C(8)), Times(j, C(2))), k);
    QVERIFY(Equal(ana.Simplify(FDiv(e, C(2))), Plus(Times(i, C(4)), j)));
    QVERIFY(Equal(ana.Simplify(FMod(e, C(2))), k));
    QVERIFY(Equal(ana.Simplify(FMod(e, C(8))), Plus(Times(j, C(2)), k)));
    // Fusing then splitting back: ((i*4 + j) // 4, (i*4 + j) % 4) are (i, j).
    PrimExpr f = Plus(Times(i, C(4)), j);
    QVERIFY(Equal(ana.Simplify(FDiv(f, C(4))), i));
    QVERIFY(Equal(ana.Simplify(FMod(f, C(4))), j));
    // Splitting then fusing back: (f // 4) * 4 + f % 4 for the fused expression itself.
    QVERIFY(Equal(ana.Simplify(Plus(Times(FDiv(f, C(4)), C(4)), FMod(f, C(4)))), f));
    // Terms combine regardless of order and cancel.
    QVERIFY(Equal(ana.Simplify(Minus(Plus(i, Times(j, C(3))), Plus(Times(j, C(3)), i))), C(0)));
    QVERIFY(Equal(ana.Simplify(Plus(Times(Plus(x, C(1)), C(2)), C(-2))), Times(x, C(2))));
    // Products of non-constants are atoms, the same whatever the order of the factors.
    QVERIFY(ana.CanProveEqual(Plus(Times(x, i), C(1)), Plus(C(1), Times(i, x))));
    QVERIFY(Equal(ana.Simplify(Minus(Times(x, i), Times(i, x))), C(0)));
  }

  void proveUnderConstraints() {
    Analyzer ana;
    Var i = V("i"), n = V("n"), m = V("m");
    QVERIFY(!ana.CanProve(Lt(i, n)));
    {
      auto scope = ana.constraint(Lt(i, n));
      QVERIFY(ana.CanProve(Lt(i, n)));
      QVERIFY(ana.CanProve(Gt(n, i)));
      QVERIFY(ana.CanProve(Le(Plus(i, C(1)), n)));
      QVERIFY(ana.CanProve(Ne(i, n)));
      QVERIFY(!ana.CanProve(Lt(i, Minus(n, C(1)))));
      {
        auto inner = ana.constraint(AndOf(Ge(m, C(0)), Lt(m, C(4))));
        QVERIFY(ana.CanProve(Lt(i, n)));
        QVERIFY(ana.CanProve(Lt(m, C(4))));
        QVERIFY(ana.CanProveEqual(FDiv(m, C(4)), C(0)));
        QVERIFY(ana.CanProveEqual(FMod(m, C(4)), m));
      }
      QVERIFY(!ana.CanProve(Lt(m, C(4))));
    }
    QVERIFY(!ana.CanProve(Lt(i, n)));
    // A bound on a variable through its canonical form: i - 4 < 0 means i <= 3.
    {
      auto scope = ana.constraint(AndOf(Le(C(0), i), Lt(Minus(i, C(4)), C(0))));
      QCOMPARE(ana.const_int_bound(i).min_value, 0);
      QCOMPARE(ana.const_int_bound(i).max_value, 3);
    }
    QCOMPARE(ana.const_int_bound(i).max_value, 2147483647);
    // Min/max and loop-nest bounds decided by facts.
    {
      auto scope = ana.constraint(Lt(i, n));
      QVERIFY(Equal(ana.Simplify(MinOf(i, n)), i));
      QVERIFY(Equal(ana.Simplify(MaxOf(n, Plus(i, C(1)))), n));
    }
    {
      Analyzer loops;
      Var a = V("a"), b = V("b");
      loops.Bind(a, R(0, 8));
      loops.Bind(b, R(0, 4));
      QVERIFY(loops.CanProve(Lt(Plus(Times(a, C(4)), b), C(32))));
      QVERIFY(!loops.CanProve(Lt(Plus(Times(a, C(4)), b), C(31))));
      QVERIFY(loops.CanProve(Ge(Plus(Times(a, C(4)), b), C(0))));
    }
    QVERIFY(ana.CanProveGreaterEqual(Times(FMod(i, C(5)), C(2)), 0));
    QVERIFY(!ana.CanProveGreaterEqual(i, 0));
  }

  void canonicalOrderAsTvm() {
    Analyzer ana;
    Var i = V("i"), j = V("j"), k = V("k");
    // Terms by descending scale, whatever order they come in.
    QVERIFY(Equal(ana.Simplify(Plus(j, Times(i, C(8)))), Plus(Times(i, C(8)), j)));
    // A positive constant before the subtracted terms; alone it is the minuend.
    QVERIFY(Equal(ana.Simplify(Plus(Minus(C(9), i), C(0))), Minus(C(9), i)));
    QVERIFY(Equal(ana.Simplify(Plus(Minus(j, k), C(1))), Minus(Plus(j, C(1)), k)));
    // A negative constant last.
    QVERIFY(Equal(ana.Simplify(Minus(Minus(j, C(2)), k)), Minus(Minus(j, k), C(2))));
  }

  void floorDivOfScaledSum() {
    Analyzer ana;
    Var x = V("x"), y = V("y");
    ana.Bind(x, R(0, 8));
    ana.Bind(y, R(0, 4));
    // (x*8 + 7) // 16: 8 divides 16 and 7 < 8, so the quotient is x // 2.
    QVERIFY(Equal(ana.Simplify(FDiv(Plus(Times(x, C(8)), C(7)), C(16))), FDiv(x, C(2))));
    QVERIFY(Equal(ana.Simplify(FDiv(Times(x, C(8)), C(16))), FDiv(x, C(2))));
    // (x*6 + y) // 4 with the residue x*2 + y in [0, 17]: not one constant, and 6 does not
    // divide 4: no rewrite.
    PrimExpr kept = FDiv(Plus(Times(x, C(6)), y), C(4));
    QVERIFY(Equal(ana.Simplify(kept), kept));
    // (x*5 + y) // 4 with x in [0, 1): the residue x + y is in [0, 3], so the quotient is x.
    Analyzer one;
    one.Bind(x, R(0, 1));
    one.Bind(y, R(0, 4));
    QVERIFY(Equal(one.Simplify(FDiv(Plus(Times(x, C(5)), y), C(4))), C(0)));
    // 9 does not stay below 8: (x*8 + 9) // 16 is not x // 2.
    QVERIFY(!Equal(ana.Simplify(FDiv(Plus(Times(x, C(8)), C(9)), C(16))), FDiv(x, C(2))));
  }

  void symbolicSplit() {
    // split by a symbolic factor n: (i*n + j) // n == i and % n == j once 0 <= j < n is known.
    Analyzer ana;
    Var i = V("i"), j = V("j"), n = V("n");
    PrimExpr e = Plus(Times(i, n), j);
    QVERIFY(!Equal(ana.Simplify(FDiv(e, n)), i));
    auto scope = ana.constraint(AndOf(AndOf(Le(C(0), j), Lt(j, n)), Gt(n, C(0))));
    QVERIFY(Equal(ana.Simplify(FDiv(e, n)), i));
    QVERIFY(Equal(ana.Simplify(FMod(e, n)), j));
    QVERIFY(Equal(ana.Simplify(FMod(Times(i, n), n)), C(0)));
  }

  void bindExpressionAndErrors() {
    Analyzer ana;
    Var x = V("x"), y = V("y");
    ana.Bind(y, R(0, 4));
    ana.Bind(x, Plus(Times(y, C(2)), C(1)));
    QVERIFY(Equal(ana.Simplify(Minus(x, Times(y, C(2)))), C(1)));
    QCOMPARE(ana.const_int_bound(x).max_value, 7);
    QCOMPARE(ana.modular_set(x).coeff, 2);
    QVERIFY(ana.CanProve(Eq(FMod(x, C(2)), C(1))));
    // Rebinding to something else is a caller bug, reported, unless overriding.
    QVERIFY_THROWS_EXCEPTION(std::logic_error, ana.Bind(y, R(0, 8)));
    ana.Bind(y, R(0, 8), /*allow_override=*/true);
    QCOMPARE(ana.const_int_bound(y).max_value, 7);
  }

  void intSetEvaluation() {
    Analyzer ana;
    Var i = V("i"), j = V("j"), n = V("n");
    wb::arith::RangeMap dom{{i, R(0, 8)}, {j, R(0, 4)}};
    IntSet s = wb::arith::EvalSet(Plus(Times(i, C(4)), j), dom, &ana);
    QCOMPARE(ConstOf(s.min_value), 0);
    QCOMPARE(ConstOf(s.max_value), 31);
    s = wb::arith::EvalSet(FDiv(Plus(Times(i, C(4)), j), C(4)), dom, &ana);
    QCOMPARE(ConstOf(s.min_value), 0);
    QCOMPARE(ConstOf(s.max_value), 7);
    s = wb::arith::EvalSet(Minus(C(10), Times(i, C(2))), dom, &ana);
    QCOMPARE(ConstOf(s.min_value), -4);
    QCOMPARE(ConstOf(s.max_value), 10);
    s = wb::arith::EvalSet(FMod(Plus(i, C(3)), C(4)), dom, &ana);
    QCOMPARE(ConstOf(s.min_value), 0);
    QCOMPARE(ConstOf(s.max_value), 3);
    s = wb::arith::EvalSet(FMod(j, C(8)), dom, &ana);  // one period: an exact shift
    QCOMPARE(ConstOf(s.min_value), 0);
    QCOMPARE(ConstOf(s.max_value), 3);
    // Symbolic: a tile of n + i, with n left free.
    s = wb::arith::EvalSet(Plus(Times(n, C(8)), i), dom, &ana);
    QVERIFY(Equal(s.min_value, Times(n, C(8))));
    QVERIFY(Equal(s.max_value, Plus(Times(n, C(8)), C(7))));
    Range cover = s.CoverRange(R(0, 1));
    QVERIFY(Equal(cover->min, Times(n, C(8))));
    QCOMPARE(ConstOf(cover->extent), 8);
    s = wb::arith::EvalSet(MinOf(i, j), dom, &ana);
    QCOMPARE(ConstOf(s.min_value), 0);
    QCOMPARE(ConstOf(s.max_value), 3);
    s = wb::arith::EvalSet(Times(i, j), dom, &ana);  // not interval arithmetic: the const bound
    QCOMPARE(ConstOf(s.min_value), 0);
    QCOMPARE(ConstOf(s.max_value), 21);
    QVERIFY(wb::arith::EvalSet(Plus(n, C(1)), dom, &ana).IsSinglePoint());

    IntSet u = wb::arith::Union({IntSet::Interval(C(0), C(3)), IntSet::Interval(C(8), C(9))}, &ana);
    QCOMPARE(ConstOf(u.min_value), 0);
    QCOMPARE(ConstOf(u.max_value), 9);
    IntSet x = wb::arith::Intersect({IntSet::Interval(C(0), C(5)), IntSet::Interval(C(3), C(9))}, &ana);
    QCOMPARE(ConstOf(x.min_value), 3);
    QCOMPARE(ConstOf(x.max_value), 5);
    QVERIFY(wb::arith::Intersect({IntSet::Interval(C(0), C(2)), IntSet::Interval(C(5), C(9))}, &ana)
                .IsEmpty());
    IntSet half = wb::arith::Union({IntSet::Interval(C(0), PrimExpr()), IntSet::SinglePoint(C(4))}, &ana);
    QVERIFY(!half.HasUpperBound());
    QCOMPARE(ConstOf(half.min_value), 0);

    // The analyzer's own bindings act as the domain.
    ana.Bind(i, R(2, 4));
    s = ana.int_set(Times(i, C(3)));
    QCOMPARE(ConstOf(s.min_value), 6);
    QCOMPARE(ConstOf(s.max_value), 15);
  }
};

QTEST_APPLESS_MAIN(TestArith)
#include "tst_arith.moc"
