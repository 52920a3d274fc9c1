// Structural equality and structural hashing of IR: alpha-equivalence and the first-mismatch
// paths `workbench --compare` underlines.

#include <QTest>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "tir/builtin.h"
#include "tir/expr.h"
#include "tir/stmt.h"

using namespace wb;
using ir::DataType;
using ir::ObjectRef;
using ir::TypeIndex;
using namespace wb::tir;

namespace {

const DataType kF32 = DataType::Float(32);
const DataType kI32 = DataType::Int(32);

PrimExpr Int(int64_t v, DataType t = kI32) { return MakeIntImm(t, v); }
PrimExpr Plus(PrimExpr a, PrimExpr b) { return MakeBinary(TypeIndex::kAdd, a, b); }

// The knobs of BuildModule: each test varies one.
struct ModuleOptions {
  std::string loop_name = "i";
  std::string buffer_name = "A";
  DataType n_dtype = kI32;
  double addend = 1.0;
  ForKind kind = ForKind::kSerial;
  bool swap_operands = false;
  bool constant_shape = false;
  int64_t pragma = 1;
};

// def main(A_handle: T.handle, n: T.int32):
//   A = T.match_buffer(A_handle, (n,), "float32")
//   for i in T.serial(n, annotations={"pragma": 1}):
//     A[i] = A[i] * 2.0 + 1.0
// built from fresh variables on every call.
ir::IRModule BuildModule(const ModuleOptions& o = {}) {
  Var n = MakeVar("n", o.n_dtype);
  Var handle = MakeVar(o.buffer_name + "_handle", DataType::Handle());
  PrimExpr extent = o.constant_shape ? Int(16, o.n_dtype) : PrimExpr(n);
  Buffer a = MakeBuffer(o.buffer_name, {extent}, kF32);
  Var i = MakeVar(o.loop_name, o.n_dtype);
  PrimExpr load = MakeBufferLoad(a, {i});
  PrimExpr two = MakeFloatImm(kF32, 2.0);
  PrimExpr mul = o.swap_operands ? MakeBinary(TypeIndex::kMul, two, load)
                                 : MakeBinary(TypeIndex::kMul, load, two);
  PrimExpr value = Plus(mul, MakeFloatImm(kF32, o.addend));
  Stmt loop = MakeFor(i, Int(0, o.n_dtype), n, o.kind, MakeBufferStore(a, value, {i}), {},
                      {{"pragma", ir::MakeInt(o.pragma)}});
  PrimFunc func = MakePrimFunc({handle, n}, {a, Buffer()}, loop, {},
                               {{"global_symbol", ir::MakeString("main")}});
  return ir::MakeIRModule({ir::MakeGlobalVar("main")}, {func});
}

}  // namespace

class TestStructural : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void alphaEquivalentModulesAreEqual() {
    ir::IRModule a = BuildModule({.loop_name = "i", .buffer_name = "A"});
    ir::IRModule b = BuildModule({.loop_name = "k", .buffer_name = "B"});
    QVERIFY(ir::StructuralEqual(a, b));
    QVERIFY(!ir::FindFirstMismatch(a, b).has_value());
    QCOMPARE(ir::StructuralHash(a), ir::StructuralHash(b));
    // Everything free in a module is bound by its parameters, so this holds without mapping.
    QVERIFY(ir::StructuralEqual(a, b, /*map_free_vars=*/false));
    QCOMPARE(ir::StructuralHash(a, false), ir::StructuralHash(b, false));
    QVERIFY(ir::StructuralEqual(a, a));
  }

  void spansAndNamesDoNotCount() {
    auto file = std::make_shared<SourceFile>("x.py", "x + 1");
    Var x1 = MakeVar("x", kI32, Span(file, 0, 1));
    Var x2 = MakeVar("renamed", kI32);
    QVERIFY(ir::StructuralEqual(Plus(x1, Int(1)), Plus(x2, Int(1))));
    QCOMPARE(ir::StructuralHash(Plus(x1, Int(1))), ir::StructuralHash(Plus(x2, Int(1))));
  }

  void mismatchPaths_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("reason");
    QTest::newRow("constant") << 0 << "root.functions[0].body.body.value.b.value"
                              << "1 vs 3";
    QTest::newRow("dtype") << 1 << "root.functions[0].params[1].dtype"
                           << "int32 vs int64";
    QTest::newRow("loop kind") << 2 << "root.functions[0].body.kind"
                               << "0 vs 1";
    QTest::newRow("swapped operands") << 3 << "root.functions[0].body.body.value.a.a"
                                      << "tirx.BufferLoad vs ir.FloatImm";
    QTest::newRow("buffer shape") << 4 << "root.functions[0].buffer_map[0].shape[0]"
                                  << "tirx.Var vs ir.IntImm";
    QTest::newRow("annotation value") << 5 << "root.functions[0].body.annotations[\"pragma\"].value"
                                      << "1 vs 2";
  }
  void mismatchPaths() {
    QFETCH(int, which);
    QFETCH(QString, path);
    QFETCH(QString, reason);
    ModuleOptions changed;
    switch (which) {
      case 0:
        changed.addend = 3.0;
        break;
      case 1:
        changed.n_dtype = DataType::Int(64);
        break;
      case 2:
        changed.kind = ForKind::kParallel;
        break;
      case 3:
        changed.swap_operands = true;
        break;
      case 4:
        changed.constant_shape = true;
        break;
      case 5:
        changed.pragma = 2;
        break;
    }
    ir::IRModule a = BuildModule();
    ir::IRModule b = BuildModule(changed);
    QVERIFY(!ir::StructuralEqual(a, b));
    QVERIFY(ir::StructuralHash(a) != ir::StructuralHash(b));
    std::optional<ir::StructuralMismatch> m = ir::FindFirstMismatch(a, b);
    QVERIFY(m.has_value());
    QCOMPARE(QString::fromStdString(m->lhs_path), path);
    QCOMPARE(QString::fromStdString(m->rhs_path), path);
    QCOMPARE(QString::fromStdString(m->reason), reason);
    QVERIFY(m->lhs.defined() && m->rhs.defined());
  }

  void mismatchObjectsAreTheNodesAtThePath() {
    ir::IRModule a = BuildModule();
    ir::IRModule b = BuildModule({.swap_operands = true});
    auto m = ir::FindFirstMismatch(a, b);
    QVERIFY(m.has_value());
    QCOMPARE(m->lhs->type_index(), TypeIndex::kBufferLoad);
    QCOMPARE(m->rhs->type_index(), TypeIndex::kFloatImm);
    // A value field: the nodes that own it.
    m = ir::FindFirstMismatch(a, BuildModule({.addend = 3.0}));
    QVERIFY(m.has_value());
    QCOMPARE(m->lhs->type_index(), TypeIndex::kFloatImm);
    QCOMPARE(m->lhs.as<FloatImmNode>()->value, 1.0);
    QCOMPARE(m->rhs.as<FloatImmNode>()->value, 3.0);
  }

  void variablesMapOneToOne() {
    Var x = MakeVar("x", kI32);
    Var y = MakeVar("y", kI32);
    Var u = MakeVar("u", kI32);
    Var v = MakeVar("v", kI32);
    // x + x against u + v: x is already u's partner when v comes.
    QVERIFY(!ir::StructuralEqual(Plus(x, x), Plus(u, v)));
    QVERIFY(!ir::StructuralEqual(Plus(u, v), Plus(x, x)));
    auto m = ir::FindFirstMismatch(Plus(x, x), Plus(u, v));
    QVERIFY(m.has_value());
    QCOMPARE(QString::fromStdString(m->lhs_path), QString("root.b"));
    QVERIFY(m->lhs.same_as(x) && m->rhs.same_as(v));
    QVERIFY(ir::StructuralHash(Plus(x, x)) != ir::StructuralHash(Plus(u, v)));
    QVERIFY(ir::StructuralEqual(Plus(x, y), Plus(u, v)));
    QCOMPARE(ir::StructuralHash(Plus(x, y)), ir::StructuralHash(Plus(u, v)));

    // TVM's counterexample to a same_as shortcut: the same variables, bound in swapped order.
    PrimFunc f = MakePrimFunc({x, y}, {}, MakeEvaluate(MakeBinary(TypeIndex::kSub, x, y)));
    PrimFunc g = MakePrimFunc({y, x}, {}, MakeEvaluate(MakeBinary(TypeIndex::kSub, x, y)));
    QVERIFY(!ir::StructuralEqual(f, g));
    QVERIFY(!ir::StructuralEqual(f, g, /*map_free_vars=*/false));
  }

  void freeVariables() {
    Var x = MakeVar("x", kI32);
    Var y = MakeVar("y", kI32);
    QVERIFY(ir::StructuralEqual(Plus(x, Int(1)), Plus(y, Int(1))));
    QVERIFY(!ir::StructuralEqual(Plus(x, Int(1)), Plus(y, Int(1)), /*map_free_vars=*/false));
    QVERIFY(ir::StructuralEqual(Plus(x, Int(1)), Plus(x, Int(1)), /*map_free_vars=*/false));
    QCOMPARE(ir::StructuralHash(Plus(x, Int(1)), false),
             ir::StructuralHash(Plus(x, Int(1)), false));
    auto m = ir::FindFirstMismatch(Plus(x, Int(1)), Plus(y, Int(1)), false);
    QVERIFY(m.has_value());
    QCOMPARE(QString::fromStdString(m->lhs_path), QString("root.a"));
    // A variable's own fields count when it is mapped.
    QVERIFY(!ir::StructuralEqual(x, MakeVar("x", DataType::Int(64))));
    QVERIFY(!ir::StructuralEqual(x, MakeSizeVar("x", kI32)));
    // Let binds its variable, so no free-variable mapping is needed.
    Var z = MakeVar("z", kI32);
    QVERIFY(ir::StructuralEqual(MakeLet(y, Int(1), y), MakeLet(z, Int(1), z), false));
  }

  void sequencesAndMaps() {
    Stmt s1 = MakeEvaluate(Int(1));
    Stmt s2 = MakeEvaluate(Int(2));
    auto m = ir::FindFirstMismatch(MakeSeq({s1, s2, s1}), MakeSeq({s1, s2}));
    QVERIFY(m.has_value());
    QCOMPARE(QString::fromStdString(m->lhs_path), QString("root.seq[2]"));
    QVERIFY(m->lhs.defined() && !m->rhs.defined());
    QCOMPARE(QString::fromStdString(m->reason), QString("3 items vs 2"));

    ObjectRef left = ir::MakeMap({{"a", ir::MakeInt(1)}, {"b", ir::MakeInt(2)}});
    ObjectRef right = ir::MakeMap({{"a", ir::MakeInt(1)}, {"c", ir::MakeInt(2)}});
    m = ir::FindFirstMismatch(left, right);
    QVERIFY(m.has_value());
    QCOMPARE(QString::fromStdString(m->lhs_path), QString("root.items[\"b\"]"));
    QCOMPARE(QString::fromStdString(m->reason), QString("key only on the left"));
    QVERIFY(ir::StructuralHash(left) != ir::StructuralHash(right));

    QVERIFY(ir::StructuralEqual(ObjectRef(), ObjectRef()));
    QVERIFY(!ir::StructuralEqual(ObjectRef(), Int(1)));
    QVERIFY(!ir::StructuralEqual(ir::MakeInt(1), ir::MakeFloat(1.0)));
    QVERIFY(ir::StructuralEqual(GetOp("tirx.exp"), GetOp("tirx.exp")));
    QVERIFY(!ir::StructuralEqual(GetOp("tirx.exp"), GetOp("tirx.log")));
  }

  void floatsCompareExactly() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QVERIFY(ir::StructuralEqual(MakeFloatImm(kF32, nan), MakeFloatImm(kF32, -nan)));
    QCOMPARE(ir::StructuralHash(MakeFloatImm(kF32, nan)),
             ir::StructuralHash(MakeFloatImm(kF32, -nan)));
    QVERIFY(!ir::StructuralEqual(MakeFloatImm(kF32, 0.0), MakeFloatImm(kF32, -0.0)));
    QVERIFY(!ir::StructuralEqual(MakeFloatImm(kF32, 0.1),
                                 MakeFloatImm(kF32, std::nextafter(0.1, 1.0))));
  }

  void deepNesting() {
    PrimExpr e = Int(0);
    for (int i = 0; i < 10000; ++i) e = Plus(e, Int(i));
    PrimExpr f = Int(0);
    for (int i = 0; i < 10000; ++i) f = Plus(f, Int(i));
    QVERIFY(ir::StructuralEqual(e, f));
    QCOMPARE(ir::StructuralHash(e), ir::StructuralHash(f));
  }

};

QTEST_APPLESS_MAIN(TestStructural)
#include "tst_structural.moc"
