// Tests of DetectIterMap: the bindings split and fuse produce are recognised as bijective affine
// maps with their split structure, and non-bijective or non-affine bindings fail with a reason.

#include <QTest>

#include "arith/iter_affine_map.h"
#include "arith_test_util.h"
#include "ir/structural_equal.h"

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

  void identityAndConstantOffsets() {
    Var i = V("i"), j = V("j");
    auto r = Detect({j, i}, {{i, R(0, 4)}, {j, R(0, 8)}});
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    r = Detect({Plus(i, C(3)), j}, {{i, R(0, 4)}, {j, R(0, 8)}});
    QVERIFY2(r.ok(), qPrintable(Errors(r)));
    QCOMPARE(r.indices[0].base, 3);
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

  void nonAffineBindingsFail() {
    Var i = V("i"), j = V("j"), n = V("n");
    Iters iters{{i, R(0, 4)}, {j, R(0, 8)}};
    auto r = Detect({Times(i, j)}, iters);
    QVERIFY2(ErrorMentions(r, "not affine"), qPrintable(Errors(r)));
    r = Detect({Plus(i, n), j}, iters);
    QVERIFY2(ErrorMentions(r, "n is not one of the iterators"), qPrintable(Errors(r)));
    r = Detect({FDiv(j, C(3)), FMod(j, C(3))}, iters);
    QVERIFY2(ErrorMentions(r, "not divisible"), qPrintable(Errors(r)));
    r = Detect({MinOf(i, j)}, iters);
    QVERIFY2(ErrorMentions(r, "not an affine expression"), qPrintable(Errors(r)));
    r = Detect({i, j}, {{i, R(1, 4)}, {j, R(0, 8)}});
    QVERIFY2(ErrorMentions(r, "does not start at 0"), qPrintable(Errors(r)));
  }
};

QTEST_APPLESS_MAIN(TestIterMap)
#include "tst_iter_map.moc"
