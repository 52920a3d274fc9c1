// Tests of DetectIterMap: the bindings split and fuse produce are recognised as bijective affine
// maps with their split structure, and non-bijective or non-affine bindings fail with a reason.

#include <QTest>

#include <functional>
#include <random>
#include <set>

#include "arith/iter_affine_map.h"
#include "arith_test_util.h"
#include "ir/structural_equal.h"
#include "tir/functor.h"

using namespace arith_test;
using wb::arith::Analyzer;
using wb::arith::DetectIterMap;
using wb::arith::IterMapLevel;
using wb::arith::IterMapResult;

namespace {

using Iters = std::vector<std::pair<Var, Range>>;

IterMapResult Detect(std::vector<PrimExpr> indices, const Iters& iters,
                     IterMapLevel level = IterMapLevel::kBijective, PrimExpr pred = C(1)) {
  Analyzer ana;
  return DetectIterMap(indices, iters, pred, level, &ana);
}

bool ErrorMentions(const IterMapResult& r, const std::string& text) {
  for (const auto& e : r.errors) {
    if (e.find(text) != std::string::npos) return true;
  }
  return false;
}

QString Errors(const IterMapResult& r) {
  QString s;
  for (const auto& e : r.errors) s += QString::fromStdString(e) + "; ";
  return s;
}

// Replaces variables by expressions (a loop's binding after a split or fuse).
class Substituter : public ExprMutator {
 public:
  std::map<const VarNode*, PrimExpr> map;
  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = map.find(op);
    return it != map.end() ? it->second : GetRef(op);
  }
};

// A loop nest built by random splits and fuses of an original nest: the current loops and how
// each original loop variable is expressed in them.
struct Nest {
  std::vector<std::pair<Var, int64_t>> loops;
  std::vector<PrimExpr> bindings;
  std::vector<int64_t> original_extents;

  void Substitute(const std::map<const VarNode*, PrimExpr>& map) {
    Substituter sub;
    sub.map = map;
    for (PrimExpr& b : bindings) b = sub(b);
  }
};

Nest RandomNest(std::mt19937& rng, int steps) {
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  const int64_t kExtents[] = {2, 3, 4, 6, 8, 12};
  Nest nest;
  int n = 1 + pick(3);
  for (int i = 0; i < n; ++i) {
    int64_t e = kExtents[pick(6)];
    Var v = V("l" + std::to_string(i));
    nest.loops.push_back({v, e});
    nest.bindings.push_back(v);
    nest.original_extents.push_back(e);
  }
  int counter = 0;
  for (int s = 0; s < steps; ++s) {
    size_t k = pick(int(nest.loops.size()));
    auto [var, extent] = nest.loops[k];
    if (pick(2) == 0 || nest.loops.size() == 1) {
      // split(loop, factors=[extent / f, f]) for a factor f dividing the extent.
      std::vector<int64_t> factors;
      for (int64_t f = 2; f < extent; ++f) {
        if (extent % f == 0) factors.push_back(f);
      }
      if (factors.empty()) continue;
      int64_t f = factors[pick(int(factors.size()))];
      Var outer = V("o" + std::to_string(counter)), inner = V("i" + std::to_string(counter));
      ++counter;
      nest.Substitute({{var.get(), Plus(Times(outer, C(f)), inner)}});
      nest.loops[k] = {outer, extent / f};
      nest.loops.insert(nest.loops.begin() + k + 1, {inner, f});
    } else {
      // fuse(loop k, loop k + 1).
      if (k + 1 >= nest.loops.size()) k = nest.loops.size() - 2;
      auto [a, ea] = nest.loops[k];
      auto [b, eb] = nest.loops[k + 1];
      Var fused = V("f" + std::to_string(counter++));
      nest.Substitute({{a.get(), FDiv(fused, C(eb))}, {b.get(), FMod(fused, C(eb))}});
      nest.loops[k] = {fused, ea * eb};
      nest.loops.erase(nest.loops.begin() + k + 1);
    }
  }
  return nest;
}

// True when the bindings map the loop nest one-to-one onto the original iteration space.
bool IsBijective(const Nest& nest) {
  std::set<std::vector<int64_t>> seen;
  std::map<const VarNode*, int64_t> env;
  bool in_range = true;
  std::function<void(size_t)> rec = [&](size_t k) {
    if (k == nest.loops.size()) {
      std::vector<int64_t> point;
      for (size_t i = 0; i < nest.bindings.size(); ++i) {
        int64_t v = Eval(nest.bindings[i], env);
        if (v < 0 || v >= nest.original_extents[i]) in_range = false;
        point.push_back(v);
      }
      seen.insert(point);
      return;
    }
    for (int64_t v = 0; v < nest.loops[k].second; ++v) {
      env[nest.loops[k].first.get()] = v;
      rec(k + 1);
    }
  };
  rec(0);
  int64_t total = 1;
  for (int64_t e : nest.original_extents) total *= e;
  return in_range && int64_t(seen.size()) == total;
}

Iters ItersOf(const Nest& nest) {
  Iters iters;
  for (const auto& [v, e] : nest.loops) iters.push_back({v, R(0, e)});
  return iters;
}

}  // namespace

class TestIterMap : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void splitBindingIsBijective() {
    Var i0 = V("i0"), i1 = V("i1");
    auto r = Detect({Plus(Times(i0, C(32)), i1)}, {{i0, R(0, 4)}, {i1, R(0, 32)}});
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    QCOMPARE(r.indices.size(), size_t(1));
    QCOMPARE(r.indices[0].args.size(), size_t(1));
    const auto& split = r.indices[0].args[0];
    QCOMPARE(split.source->extent, 128);
    QCOMPARE(split.source->sum.args.size(), size_t(2));
    QVERIFY(split.source->sum.args[0].source->var.same_as(i0));
    QCOMPARE(split.source->sum.args[0].scale, 32);
    QVERIFY(ir::StructuralEqual(wb::arith::NormalizeIterMapToExpr(r.indices[0], kI32),
                                Plus(Times(i0, C(32)), i1), false));
  }

  void fuseBindingIsBijective() {
    Var f = V("fused");
    auto r = Detect({FDiv(f, C(128)), FMod(f, C(128))}, {{f, R(0, 512)}});
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    const auto& hi = r.indices[0].args[0];
    const auto& lo = r.indices[1].args[0];
    QVERIFY(hi.source->var.same_as(f));
    QCOMPARE(hi.lower_factor, 128);
    QCOMPARE(hi.extent, 4);
    QCOMPARE(lo.lower_factor, 1);
    QCOMPARE(lo.extent, 128);
  }

  void normalFormOfMiddleSplit() {
    // TVM's normal forms, unsimplified: the top split `f // 16384`, a middle one the source
    // modulo the split's end divided by its lower factor, the bottom one `f % 128`.
    Var f = V("fused");
    auto r = Detect({FDiv(f, C(16384)), FMod(FDiv(f, C(128)), C(128)), FMod(f, C(128))},
                    {{f, R(0, 32768)}});
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    QVERIFY(ir::StructuralEqual(wb::arith::NormalizeIterMapToExpr(r.indices[0], kI32),
                                FDiv(f, C(16384)), false));
    QVERIFY(ir::StructuralEqual(wb::arith::NormalizeIterMapToExpr(r.indices[1], kI32),
                                FDiv(FMod(f, C(16384)), C(128)), false));
    QVERIFY(ir::StructuralEqual(wb::arith::NormalizeIterMapToExpr(r.indices[2], kI32),
                                FMod(f, C(128)), false));
  }

  void identityAndConstantOffsets() {
    Var i = V("i"), j = V("j");
    auto r = Detect({j, i}, {{i, R(0, 4)}, {j, R(0, 8)}});
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    r = Detect({Plus(i, C(3)), j}, {{i, R(0, 4)}, {j, R(0, 8)}});
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    QVERIFY(IsConstInt(r.indices[0].base, 3));
  }

  void outerVariablesAreConstants() {
    // After compute_at, an inner block's bindings use outer loop variables (k) as offsets.
    Var i = V("i"), j = V("j"), k = V("k");
    auto r = Detect({Plus(Times(k, C(16)), i), j}, {{i, R(0, 16)}, {j, R(0, 4)}});
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    QVERIFY(ir::StructuralEqual(r.indices[0].base, Times(k, C(16)), false));
    // The offset divides out: (k*16 + i*4 + j) // 4 == k*4 + i.
    PrimExpr fused = Plus(Plus(Times(k, C(16)), Times(i, C(4))), j);
    r = Detect({FDiv(fused, C(4)), FMod(fused, C(4))}, {{i, R(0, 4)}, {j, R(0, 4)}});
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    QVERIFY(ir::StructuralEqual(r.indices[0].base, Times(k, C(4)), false));
    QVERIFY(IsConstInt(r.indices[1].base, 0));
    // ... but not when it is not a multiple of the divisor.
    r = Detect({FDiv(Plus(k, i), C(4))}, {{i, R(0, 16)}});
    QVERIFY2(ErrorMentions(r, "not a multiple"), qPrintable(Errors(r)));
    // An iterator scaled by a variable is not affine with a constant scale.
    r = Detect({Times(i, k)}, {{i, R(0, 16)}});
    QVERIFY2(ErrorMentions(r, "non-constant factor"), qPrintable(Errors(r)));
  }

  void splitOfFusedSumSharesTheIterator() {
    // fuse(i, j) then split by 4: ((i*16 + j) // 4, (i*16 + j) % 4).
    Var i = V("i"), j = V("j");
    PrimExpr fused = Plus(Times(i, C(16)), j);
    auto r = Detect({FDiv(fused, C(4)), FMod(fused, C(4))}, {{i, R(0, 2)}, {j, R(0, 16)}});
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    QCOMPARE(r.indices[0].args[0].source.get(), r.indices[1].args[0].source.get());
    QCOMPARE(r.indices[0].args[0].extent, 8);
  }

  void predicateNarrowsFusedIterator() {
    // split(i, factors=[None, 32]) of an extent-100 loop: i0*32 + i1 < 100.
    Var i0 = V("i0"), i1 = V("i1");
    PrimExpr fused = Plus(Times(i0, C(32)), i1);
    auto r = Detect({fused}, {{i0, R(0, 4)}, {i1, R(0, 32)}}, IterMapLevel::kBijective,
                    Lt(fused, C(100)));
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    QCOMPARE(r.indices[0].args[0].source->extent, 100);
    r = Detect({fused}, {{i0, R(0, 4)}, {i1, R(0, 32)}}, IterMapLevel::kBijective,
               Lt(i0, i1));
    QVERIFY(!r.ok());
    QVERIFY2(ErrorMentions(r, "predicate"), qPrintable(Errors(r)));
  }

  void sumOfTwoLoopsIsNotBijective() {
    Var i = V("i"), j = V("j");
    auto r = Detect({Plus(i, j)}, {{i, R(0, 4)}, {j, R(0, 4)}});
    QVERIFY(!r.ok());
    QVERIFY(r.indices.empty());
    QVERIFY2(ErrorMentions(r, "cannot be fused"), qPrintable(Errors(r)));
    // The scale is wrong too: i*3 + j with j in [0, 4) overlaps.
    r = Detect({Plus(Times(i, C(3)), j)}, {{i, R(0, 4)}, {j, R(0, 4)}});
    QVERIFY2(ErrorMentions(r, "cannot be fused"), qPrintable(Errors(r)));
  }

  void overlappingSplitsFail() {
    Var i = V("i");
    auto r = Detect({FDiv(i, C(4)), FMod(i, C(8))}, {{i, R(0, 32)}});
    QVERIFY(!r.ok());
    QVERIFY2(ErrorMentions(r, "overlapping"), qPrintable(Errors(r)));
    r = Detect({i, i}, {{i, R(0, 32)}});
    QVERIFY2(ErrorMentions(r, "overlapping"), qPrintable(Errors(r)));
    // Overlap is an error even for surjective maps.
    r = Detect({FDiv(i, C(4)), FMod(i, C(8))}, {{i, R(0, 32)}}, IterMapLevel::kSurjective);
    QVERIFY(!r.ok());
  }

  void unusedPartsAreSurjectiveOnly() {
    Var i = V("i"), j = V("j");
    auto r = Detect({i}, {{i, R(0, 4)}, {j, R(0, 4)}});
    QVERIFY2(ErrorMentions(r, "j is not used"), qPrintable(Errors(r)));
    r = Detect({i}, {{i, R(0, 4)}, {j, R(0, 4)}}, IterMapLevel::kSurjective);
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    r = Detect({FDiv(i, C(2))}, {{i, R(0, 4)}});
    QVERIFY2(ErrorMentions(r, "not covered"), qPrintable(Errors(r)));
    r = Detect({FDiv(i, C(2))}, {{i, R(0, 4)}}, IterMapLevel::kSurjective);
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    // A unit loop needs no use.
    Var u = V("u");
    r = Detect({i}, {{i, R(0, 4)}, {u, R(0, 1)}});
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
  }

  // Unchecked maps (TVM's NoCheck, which reverse_compute_inline uses) divide a split that
  // reaches its iterator's end as if the iterator were padded: `i // 16, i % 16` over i < 127
  // is a map of two splits of i, 8 and 16 values, and its inverse gives i back. Checked levels
  // still refuse it.
  void uncheckedMapsPadNonDividingSplits() {
    Var i = V("i");
    Iters iters{{i, R(0, 127)}};
    auto r = Detect({FDiv(i, C(16)), FMod(i, C(16))}, iters, IterMapLevel::kNoCheck);
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    QCOMPARE(r.indices.size(), size_t(2));
    QCOMPARE(r.indices[0].args.size(), size_t(1));
    QCOMPARE(r.indices[0].args[0].lower_factor, int64_t(16));
    QCOMPARE(r.indices[0].args[0].extent, int64_t(8));
    QCOMPARE(r.indices[1].args[0].extent, int64_t(16));
    Var a = V("a"), b = V("b");
    auto inverse = InverseAffineIterMap(r.indices, {a, b});
    QCOMPARE(inverse.size(), size_t(1));
    Analyzer ana;
    QVERIFY(ana.CanProveEqual(inverse[0].second, Plus(Times(a, C(16)), b)));
    for (IterMapLevel level : {IterMapLevel::kBijective, IterMapLevel::kSurjective}) {
      r = Detect({FDiv(i, C(16)), FMod(i, C(16))}, iters, level);
      QVERIFY2(ErrorMentions(r, "not divisible"), qPrintable(Errors(r)));
    }
    // A split that does not reach the end (j % 6 over j < 14, divided by 4) is not padded.
    Var j = V("j");
    r = Detect({FDiv(FMod(j, C(6)), C(4))}, {{j, R(0, 14)}}, IterMapLevel::kNoCheck);
    QVERIFY(!r.ok());
  }

  void nonAffineBindingsFail() {
    Var i = V("i"), j = V("j");
    Iters iters{{i, R(0, 4)}, {j, R(0, 8)}};
    auto r = Detect({Times(i, j)}, iters);
    QVERIFY2(ErrorMentions(r, "not affine"), qPrintable(Errors(r)));
    r = Detect({FDiv(j, C(3)), FMod(j, C(3))}, iters);
    QVERIFY2(ErrorMentions(r, "not divisible"), qPrintable(Errors(r)));
    r = Detect({MinOf(i, j)}, iters);
    QVERIFY2(ErrorMentions(r, "not an affine expression"), qPrintable(Errors(r)));
    r = Detect({i, j}, {{i, R(1, 4)}, {j, R(0, 8)}});
    QVERIFY2(ErrorMentions(r, "does not start at 0"), qPrintable(Errors(r)));
  }

  void randomSplitFuseSequencesAreBijective() {
    // Every sequence of splits (by dividing factors) and fuses gives bindings DetectIterMap must
    // accept; enumeration confirms the map really is bijective, and the detected structure
    // gives back the bindings' values.
    std::mt19937 rng(7);
    for (int n = 0; n < 300; ++n) {
      Nest nest = RandomNest(rng, 1 + n % 5);
      QVERIFY(IsBijective(nest));
      auto r = Detect(nest.bindings, ItersOf(nest));
      QVERIFY2(r.ok(), qPrintable(QString("nest %1: ").arg(n) + Errors(r)));
      std::map<const VarNode*, int64_t> env;
      for (const auto& [v, e] : nest.loops) env[v.get()] = e - 1;
      for (size_t i = 0; i < nest.bindings.size(); ++i) {
        PrimExpr back = wb::arith::NormalizeIterMapToExpr(r.indices[i], kI32);
        QCOMPARE(Eval(back, env), Eval(nest.bindings[i], env));
      }
    }
  }

  void randomAffineBindingsAreJudgedSoundly() {
    // Random affine bindings: whenever DetectIterMap calls one bijective, it must be.
    std::mt19937 rng(11);
    auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    int accepted = 0, rejected = 0;
    for (int n = 0; n < 400; ++n) {
      Nest nest;
      int loops = 1 + pick(3);
      for (int i = 0; i < loops; ++i) nest.loops.push_back({V("v" + std::to_string(i)), 1 + pick(8)});
      int outputs = 1 + pick(2);
      for (int o = 0; o < outputs; ++o) {
        PrimExpr e = C(0);
        for (const auto& [v, ext] : nest.loops) {
          if (pick(2)) e = Plus(e, Times(v, C(pick(9))));
        }
        if (pick(3) == 0) e = pick(2) ? FDiv(e, C(1 + pick(6))) : FMod(e, C(1 + pick(6)));
        nest.bindings.push_back(e);
      }
      auto r = Detect(nest.bindings, ItersOf(nest));
      if (!r.ok()) {
        ++rejected;
        continue;
      }
      ++accepted;
      // The image is the original space: take each output's extent from its enumeration.
      std::map<const VarNode*, int64_t> env;
      std::set<std::vector<int64_t>> seen;
      int64_t points = 0;
      std::function<void(size_t)> rec = [&](size_t k) {
        if (k == nest.loops.size()) {
          std::vector<int64_t> p;
          for (const auto& b : nest.bindings) p.push_back(Eval(b, env));
          seen.insert(p);
          ++points;
          return;
        }
        for (int64_t v = 0; v < nest.loops[k].second; ++v) {
          env[nest.loops[k].first.get()] = v;
          rec(k + 1);
        }
      };
      rec(0);
      QVERIFY2(int64_t(seen.size()) == points, qPrintable(QString("binding set %1 is not injective").arg(n)));
    }
    QVERIFY(accepted > 10);
    QVERIFY(rejected > 10);
  }
};

QTEST_APPLESS_MAIN(TestIterMap)
#include "tst_iter_map.moc"
