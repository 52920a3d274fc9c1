// Structural equality, structural hashing and JSON serialization of IR: alpha-equivalence, the
// first-mismatch paths `workbench --compare` underlines, a JSON round trip of every node kind,
// and the messages LoadJSON gives for malformed input.

#include <QTest>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "ir/global_info.h"
#include "ir/json.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "ir/structural_mismatches.h"
#include "relax/expr.h"
#include "tir/builtin.h"
#include "tir/expr.h"
#include "tir/index_map.h"
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

BufferOptions InScope(std::string scope) {
  BufferOptions options;
  options.scope = std::move(scope);
  return options;
}

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

// One node of every kind in TypeIndex that has a node class, keyed by kind.
// One node of each Relax kind, all inside one function so that the symbolic dim `n` and the
// variables are bound where TVM binds them.
void PutRelaxExamples(const std::function<void(const ObjectRef&)>& put) {
  namespace rx = wb::relax;
  Var n = MakeVar("n", DataType::Int(64));
  // On a vdevice, so that the round trips cover TensorType::vdevice too.
  rx::TensorType x_type = rx::WithVDevice(rx::MakeTensorType({n, Int(4, DataType::Int(64))}, kF32),
                                          ir::MakeVDevice("cuda", 1, "global"));
  rx::Var x = rx::MakeVar("x", x_type);
  put(x_type);
  put(x);
  put(rx::MakeShapeType({n}));
  put(rx::MakeObjectType());
  put(rx::MakePackedFuncType(rx::MakeObjectType(), false));
  rx::Constant c = rx::MakeConstant(kF32, {2}, std::string("\x00\x00\x80\x3f\xff\x00\x00\x40", 8));
  put(c);
  rx::Tuple tuple = rx::MakeTuple({x, c});
  put(tuple);
  put(rx::MakeTupleGetItem(tuple, 1));
  put(rx::MakeShapeExpr({n, Int(4, DataType::Int(64))}));
  put(rx::MakePrimValue(n));
  put(rx::MakeStringImm("text"));
  put(rx::MakeDataTypeImm(DataType::Float(16)));
  ir::GlobalVar callee = ir::MakeGlobalVar("callee");
  rx::Call call = rx::MakeCall(callee, {x}, {{"axis", ir::MakeInt(1)}}, {x_type});
  put(call);
  rx::DataflowVar lv = rx::MakeDataflowVar("lv", x_type);
  rx::VarBinding bind = rx::MakeVarBinding(lv, call);
  put(lv);
  put(bind);
  Var m = MakeVar("m", DataType::Int(64));
  rx::TensorType m_type = rx::MakeTensorType({m}, kF32);
  rx::Var y = rx::MakeVar("y", m_type);
  rx::MatchCast cast = rx::MakeMatchCast(y, lv, m_type);
  put(cast);
  rx::DataflowBlock dataflow = rx::MakeDataflowBlock({bind, cast});
  put(dataflow);
  put(rx::MakeBindingBlock({rx::MakeVarBinding(rx::MakeVar("z", x_type), x)}));
  rx::SeqExpr seq = rx::MakeSeqExpr({dataflow}, y);
  put(seq);
  put(rx::MakeIf(rx::MakePrimValue(MakeIntImm(DataType::Bool(), 1)), seq, rx::MakeSeqExpr({}, y)));
  rx::Function f = rx::MakeFunction({x}, seq, {}, true, {{"global_symbol", ir::MakeString("main")}});
  put(f);
  put(f->struct_info);
  put(rx::MakeExternFunc("vm.builtin.print"));
}

std::map<TypeIndex, ObjectRef> ExampleOfEveryKind() {
  std::map<TypeIndex, ObjectRef> ex;
  auto put = [&](const ObjectRef& node) { ex[node->type_index()] = node; };

  put(ir::MakeString("text"));
  put(ir::MakeInt(-7));
  put(ir::MakeFloat(0.1));
  put(ir::MakeBool(true));
  put(ir::MakeArray({ir::MakeInt(1), ir::MakeString("two"), ObjectRef()}));
  put(ir::MakeMap({{"a", ir::MakeInt(1)}, {"b", ir::MakeArray({})}}));
  put(ir::MakePrimType(DataType::Float(16, 4)));
  put(ir::MakePointerType(ir::MakePrimType(kF32), "shared"));
  put(ir::MakeTupleType({ir::MakePrimType(kI32), ir::MakeTupleType({})}));
  put(ir::MakeRange(Int(0), Int(8)));
  ir::VDevice vdevice = ir::MakeVDevice("cuda", 1, "global");
  put(vdevice);
  put(GetOp("tirx.exp"));

  Var x = MakeVar("x", kI32);
  Var y = MakeVar("y", kI32);
  SizeVar n = MakeSizeVar("n", DataType::Int(64));
  Buffer a = MakeBuffer("A", {Int(16), Int(16)}, kF32);
  BufferOptions strided;
  strided.strides = {Int(1, DataType::Int(64))};
  Buffer b = MakeBuffer("B", {n}, DataType::BFloat(16), strided);

  put(Int(42, DataType::Int(8)));
  put(MakeFloatImm(DataType::Float(64), -2.5));
  put(MakeStringImm("message"));
  put(x);
  put(n);
  put(MakeCast(DataType::Int(64), x));
  for (auto k = TypeIndex::kAdd; k < TypeIndex::kNot; k = ir::NextIndex(k)) {
    put(MakeBinary(k, x, y));
  }
  put(MakeNot(MakeBinary(TypeIndex::kLT, x, y)));
  put(MakeSelect(MakeBinary(TypeIndex::kEQ, x, y), x, y));
  put(MakeBufferLoad(a, {x, y}));
  put(MakeRamp(x, Int(1), 4));
  put(MakeBroadcast(MakeFloatImm(kF32, 0.5), 8));
  put(MakeShuffle({MakeRamp(x, Int(1), 4)}, {Int(3), Int(2), Int(1), Int(0)}));
  put(MakeLet(y, Plus(x, Int(1)), Plus(y, y)));
  put(MakeCall(kF32, GetOp("tirx.exp"), {MakeFloatImm(kF32, 1.0)}));

  Var lhs = MakeVar("lhs", kF32);
  Var rhs = MakeVar("rhs", kF32);
  CommReducer sum = MakeCommReducer({lhs}, {rhs}, {Plus(lhs, rhs)}, {MakeFloatImm(kF32, 0.0)});
  put(sum);
  {
    // lambda i, j: (j, i // 4), with its inverse given as in `inverse_index_map=`.
    Var i = MakeVar("i", kI32), j = MakeVar("j", kI32), a = MakeVar("a", kI32);
    IndexMap inverse = MakeIndexMap({a}, {a});
    put(MakeIndexMap({i, j}, {j, MakeBinary(TypeIndex::kFloorDiv, i, Int(4))}, inverse));
  }
  Var k = MakeVar("k", kI32);
  IterVar k_axis = MakeIterVar(ir::MakeRange(Int(0), Int(16)), k, IterVarType::kCommReduce);
  put(k_axis);
  {
    NodeBuilder<ReduceNode> r;
    r->dtype = kF32;
    r->combiner = sum;
    r->source = {MakeBufferLoad(a, {x, k})};
    r->init = {};
    r->axis = {k_axis};
    r->condition = MakeBinary(TypeIndex::kLT, k, Int(16));
    put(r.Finish());
  }

  Stmt store = MakeBufferStore(a, MakeFloatImm(kF32, 1.0), {x, y});
  put(MakeBind(y, Plus(x, Int(2))));
  put(MakeAttrStmt(a, "pragma_import", Int(1), store));
  put(MakeAssertStmt(MakeBinary(TypeIndex::kGT, x, Int(0)), "ValueError", {"x must be ", "> 0"}));
  put(store);
  put(MakeAllocBuffer(MakeBuffer("tmp", {Int(4)}, kF32, InScope("local")),
                      {{"note", ir::MakeString("scratch")}}));
  put(MakeDeclBuffer(b));
  IterVar tx = MakeIterVar(ir::MakeRange(Int(0), Int(32)), MakeVar("threadIdx.x", kI32),
                           IterVarType::kThreadIndex, "threadIdx.x");
  put(MakeFor(x, Int(0), Int(16), ForKind::kThreadBinding, store, tx, {{"unroll", ir::MakeInt(4)}},
              Int(1)));
  put(MakeWhile(MakeBinary(TypeIndex::kLT, x, Int(10)), MakeBreak()));
  put(MakeIfThenElse(MakeBinary(TypeIndex::kLT, x, y), store, MakeContinue()));
  put(MakeSeq({store, MakeEvaluate(MakeCall(kI32, GetOp("tirx.exp"), {x}))}));
  put(MakeEvaluate(Int(1)));
  put(MakeBreak());
  put(MakeContinue());

  put(a);
  Var vi = MakeVar("vi", kI32);
  IterVar vi_axis = MakeIterVar(ir::MakeRange(Int(0), Int(16)), vi, IterVarType::kDataPar);
  BufferRegion region =
      MakeBufferRegion(a, {ir::MakeRange(vi, Int(1)), ir::MakeRange(Int(0), Int(16))});
  put(region);
  BufferOptions offset;
  offset.elem_offset = MakeVar("off", kI32);
  Buffer sub = MakeBuffer("A_sub", {Int(16)}, kF32, offset);
  MatchBufferRegion match = MakeMatchBufferRegion(sub, region);
  put(match);
  Buffer cache = MakeBuffer("cache", {Int(16)}, kF32, InScope("shared"));
  SBlock block = MakeSBlock({vi_axis}, {region}, {FullRegion(cache)}, "compute",
                            MakeBufferStore(cache, MakeBufferLoad(sub, {Int(0)}), {vi}),
                            MakeBufferStore(cache, MakeFloatImm(kF32, 0.0), {vi}), {cache}, {match},
                            {{"meta_schedule.tiling", ir::MakeString("SSR")}});
  put(block);
  put(MakeSBlockRealize({x}, MakeBinary(TypeIndex::kLT, x, Int(16)), block));

  ir::IRModule module = BuildModule();
  module.CopyOnWrite()->global_infos = {{ir::kVDeviceInfoKey, ir::MakeArray({vdevice})}};
  put(module);
  put(module->functions[0]);
  put(module->global_vars[0]);
  PutRelaxExamples(put);
  return ex;
}

ObjectRef RoundTrip(const ObjectRef& node) {
  std::string error;
  ObjectRef loaded = ir::LoadJSON(ir::SaveJSON(node), &error);
  if (!error.empty()) qWarning("LoadJSON: %s", error.c_str());
  return loaded;
}

// Asserts that LoadJSON rejects `text` with a message containing `expected`.
void ExpectLoadError(const std::string& text, const std::string& expected) {
  std::string error;
  ObjectRef loaded = ir::LoadJSON(text, &error);
  QVERIFY2(!loaded.defined(), text.c_str());
  QVERIFY2(error.find(expected) != std::string::npos,
           ("expected '" + expected + "' in: " + error).c_str());
}

// A document with the given nodes and root.
std::string Document(const std::string& nodes, const std::string& root) {
  return R"({"root": )" + root + R"(, "nodes": [)" + nodes + R"(], "version": "workbench-0.1"})";
}

const char kIntImmNode[] = R"({"type": "ir.IntImm", "fields": {"dtype": "int32", "value": 0}})";

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

  // Every difference, in walk order, each the one FindFirstMismatch would name had it been alone;
  // a renaming is none, and the limit counts what it leaves out.
  void findMismatchesListsEveryDifference() {
    ir::IRModule a = BuildModule();
    QVERIFY(ir::FindMismatches(a, BuildModule({.loop_name = "k", .buffer_name = "B"})).empty());
    ModuleOptions three{.addend = 3.0, .kind = ForKind::kParallel, .pragma = 2};
    ir::IRModule b = BuildModule(three);
    std::vector<ir::StructuralMismatch> all = ir::FindMismatches(a, b);
    QCOMPARE(all.size(), size_t(3));
    QCOMPARE(all[0].lhs_path, ir::FindFirstMismatch(a, b)->lhs_path);
    QStringList expected;
    for (ModuleOptions alone : {ModuleOptions{.kind = ForKind::kParallel},
                                ModuleOptions{.addend = 3.0}, ModuleOptions{.pragma = 2}}) {
      expected << QString::fromStdString(ir::FindFirstMismatch(a, BuildModule(alone))->lhs_path);
    }
    QStringList found;
    for (const auto& m : all) found << QString::fromStdString(m.lhs_path);
    expected.sort();
    found.sort();
    QCOMPARE(found, expected);
    size_t more = 0;
    QCOMPARE(ir::FindMismatches(a, b, 2, &more).size(), size_t(2));
    QCOMPARE(more, size_t(1));
    QCOMPARE(ir::FindMismatches(a, b, 1, &more).size(), size_t(1));
    QCOMPARE(more, size_t(2));
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

  // A constant's data takes part as bytes: equal data is equal, a changed byte is a difference
  // named by its offset (not the whole tensor in hex), and JSON keeps it as hex text.
  void constantDataComparesAsBytes() {
    namespace rx = wb::relax;
    std::string data(4096, '\x11');
    rx::Constant a = rx::MakeConstant(kF32, {1024}, data);
    rx::Constant same = rx::MakeConstant(kF32, {1024}, data);
    data[1000] = '\x12';
    rx::Constant changed = rx::MakeConstant(kF32, {1024}, data);
    QVERIFY(ir::StructuralEqual(a, same));
    QCOMPARE(ir::StructuralHash(a), ir::StructuralHash(same));
    QVERIFY(!ir::StructuralEqual(a, changed));
    QVERIFY(ir::StructuralHash(a) != ir::StructuralHash(changed));
    std::optional<ir::StructuralMismatch> m = ir::FindFirstMismatch(a, changed);
    QVERIFY(m.has_value());
    QCOMPARE(QString::fromStdString(m->reason),
             QString("the bytes differ first at byte 1000 of 4096"));
    std::string json = ir::SaveJSON(changed);
    QVERIFY(json.find(std::string(8, '1') + "12") != std::string::npos);
    std::string error;
    ObjectRef back = ir::LoadJSON(json, &error);
    QVERIFY2(back.defined(), error.c_str());
    QVERIFY(ir::StructuralEqual(back, changed));
    QCOMPARE(back.as<rx::ConstantNode>()->data, data);
    // Hex a writer cannot decode is refused with the field's name.
    std::string odd = json;
    odd.replace(odd.find(std::string(8, '1') + "12"), 1, "");
    QVERIFY(!ir::LoadJSON(odd, &error).defined());
    QVERIFY2(error.find("field 'data'") != std::string::npos, error.c_str());
  }

  void jsonRoundTripOfEveryKind() {
    std::map<TypeIndex, ObjectRef> examples = ExampleOfEveryKind();
    for (auto t = ir::NextIndex(TypeIndex::kObject); t < TypeIndex::kCount; t = ir::NextIndex(t)) {
      // Kinds declared in TypeIndex whose node class does not exist yet register no factory;
      // every kind that has one needs an example here.
      if (ir::Object* probe = ir::CreateEmptyNode(t)) {
        delete probe;
      } else {
        qInfo("skipped %s: no node class yet", ir::TypeKeyOf(t));
        continue;
      }
      auto it = examples.find(t);
      QVERIFY2(it != examples.end(), (std::string("no example of ") + ir::TypeKeyOf(t)).c_str());
      const ObjectRef& original = it->second;
      ObjectRef loaded = RoundTrip(original);
      QVERIFY2(loaded.defined(), ir::TypeKeyOf(t));
      QCOMPARE(loaded->type_index(), t);
      QVERIFY2(!loaded.same_as(original), ir::TypeKeyOf(t));
      auto m = ir::FindFirstMismatch(original, loaded);
      QVERIFY2(!m.has_value(),
               (std::string(ir::TypeKeyOf(t)) + ": " + (m ? m->lhs_path + " " + m->reason : ""))
                   .c_str());
      QCOMPARE(ir::StructuralHash(loaded), ir::StructuralHash(original));
      // Names and other ignored fields survive too: saving again gives the same text.
      QCOMPARE(ir::SaveJSON(loaded), ir::SaveJSON(original));
    }
  }

  void jsonKeepsSharing() {
    Var x = MakeVar("x", kI32);
    ObjectRef loaded = RoundTrip(Plus(x, x));
    const auto* add = loaded.as<AddNode>();
    QVERIFY(add);
    QVERIFY(add->a.same_as(add->b));
    QCOMPARE(add->a.as<VarNode>()->name_hint, std::string("x"));

    ObjectRef module = RoundTrip(BuildModule());
    const auto* mod = module.as<ir::IRModuleNode>();
    QVERIFY(mod);
    const auto* func = mod->functions[0].as<PrimFuncNode>();
    QVERIFY(func);
    const auto* loop = func->body.as<ForNode>();
    QVERIFY(loop);
    QVERIFY(loop->extent.same_as(func->params[1]));
    const auto* store = loop->body.as<BufferStoreNode>();
    QVERIFY(store);
    QVERIFY(store->buffer.same_as(func->buffer_map[0]));
    QVERIFY(store->indices[0].same_as(loop->loop_var));
    QCOMPARE(func->global_symbol(), std::string("main"));
    QCOMPARE(mod->global_vars[0]->name_hint, std::string("main"));
  }

  void jsonValuesAreLossless() {
    const double values[] = {0.1,
                             -0.0,
                             1e-310,
                             std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN()};
    for (double v : values) {
      ObjectRef loaded = RoundTrip(MakeFloatImm(DataType::Float(64), v));
      QVERIFY(loaded.defined());
      double w = loaded.as<FloatImmNode>()->value;
      QVERIFY2((std::isnan(v) && std::isnan(w)) ||
                   std::bit_cast<uint64_t>(v) == std::bit_cast<uint64_t>(w),
               std::to_string(v).c_str());
    }
    const DataType types[] = {DataType::Float(32, 4),
                              DataType::BFloat(16),
                              DataType(DataType::kFloat8_e4m3fn, 8, 2),
                              DataType(DataType::kInt, 64, 4, /*scalable=*/true),
                              DataType::Bool(8),
                              DataType::Void(),
                              DataType(DataType::kHandle, 32)};  // no text form: packed bits
    for (DataType t : types) {
      ObjectRef loaded = RoundTrip(MakeVar("v", t));
      QVERIFY(loaded.defined());
      QVERIFY2(loaded.as<VarNode>()->dtype == t, t.ToString().c_str());
    }
    ObjectRef s = RoundTrip(MakeStringImm("quote \" backslash \\ newline \n unicode \xc3\xa9"));
    QCOMPARE(s.as<StringImmNode>()->value,
             std::string("quote \" backslash \\ newline \n unicode \xc3\xa9"));
    // JSON text cannot carry bytes that are not UTF-8: they are replaced, not a failure.
    ObjectRef bad = RoundTrip(MakeStringImm("bad \xff byte"));
    QCOMPARE(bad.as<StringImmNode>()->value, std::string("bad \xef\xbf\xbd byte"));
    QVERIFY(!RoundTrip(ObjectRef()).defined());
    std::string error = "stale";
    QVERIFY(!ir::LoadJSON(ir::SaveJSON(ObjectRef()), &error).defined());
    QVERIFY(error.empty());
  }

  void deepNesting() {
    PrimExpr e = Int(0);
    for (int i = 0; i < 10000; ++i) e = Plus(e, Int(i));
    PrimExpr f = Int(0);
    for (int i = 0; i < 10000; ++i) f = Plus(f, Int(i));
    QVERIFY(ir::StructuralEqual(e, f));
    QCOMPARE(ir::StructuralHash(e), ir::StructuralHash(f));
    QVERIFY(ir::StructuralEqual(e, RoundTrip(e)));
  }

  // Fields added after the format's first documents (IRModule::global_infos,
  // TensorType::vdevice) may be absent and then keep their defaults; present, they are checked.
  void jsonLateFieldsMayBeAbsent() {
    std::string error;
    ObjectRef module = ir::LoadJSON(
        Document(R"({"type": "ir.IRModule", "fields": {"global_vars": [], "functions": [],
                     "attrs": {}}})",
                 "0"),
        &error);
    QVERIFY2(module.defined(), error.c_str());
    QVERIFY(module.as<ir::IRModuleNode>()->global_infos.empty());
    ObjectRef tensor = ir::LoadJSON(
        Document(R"({"type": "relax.TensorType", "fields": {"has_shape": false, "shape": [],
                     "dtype": "float32", "ndim": 2}})",
                 "0"),
        &error);
    QVERIFY2(tensor.defined(), error.c_str());
    QVERIFY(!tensor.as<wb::relax::TensorTypeNode>()->vdevice.defined());
    QCOMPARE(tensor.as<wb::relax::TensorTypeNode>()->ndim, int64_t(2));
    ExpectLoadError(
        Document(std::string(kIntImmNode) + R"(, {"type": "relax.TensorType", "fields": {
                     "has_shape": false, "shape": [], "dtype": "float32", "ndim": 2,
                     "vdevice": 0}})",
                 "1"),
        "node 1 (relax.TensorType): field 'vdevice' cannot hold a ir.IntImm");
    ExpectLoadError(Document(R"({"type": "ir.IRModule", "fields": {"global_vars": [],
                                 "functions": [], "attrs": {}, "global_infos": [1]}})",
                             "0"),
                    "field 'global_infos' expects an object of node indices");
    // Other fields stay required.
    ExpectLoadError(Document(R"({"type": "ir.IRModule", "fields": {"global_vars": [],
                                 "functions": []}})",
                             "0"),
                    "field 'attrs' is missing");
  }

  // Global infos and vdevices are part of a module's and a type's structure.
  void vdevicesCount() {
    namespace rx = wb::relax;
    auto on = [](const char* target, int64_t id) {
      return rx::WithVDevice(rx::MakeTensorType({Int(4, DataType::Int(64))}, kF32),
                             ir::MakeVDevice(target, id));
    };
    QVERIFY(ir::StructuralEqual(on("cuda", 0), on("cuda", 0)));
    QCOMPARE(ir::StructuralHash(on("cuda", 0)), ir::StructuralHash(on("cuda", 0)));
    QVERIFY(!ir::StructuralEqual(on("cuda", 0), on("cuda", 1)));
    QVERIFY(!ir::StructuralEqual(on("cuda", 0), on("llvm", 0)));
    QVERIFY(!ir::StructuralEqual(on("cuda", 0), rx::MakeTensorType({Int(4, DataType::Int(64))}, kF32)));
    QVERIFY(ir::StructuralHash(on("cuda", 0)) != ir::StructuralHash(on("cuda", 1)));

    ir::IRModule plain = BuildModule();
    ir::IRModule with_infos = BuildModule();
    with_infos.CopyOnWrite()->global_infos = {
        {ir::kVDeviceInfoKey, ir::MakeArray({ir::MakeVDevice("llvm")})}};
    QVERIFY(ir::StructuralEqual(plain, BuildModule()));
    QVERIFY(!ir::StructuralEqual(plain, with_infos));
    QVERIFY(ir::StructuralHash(plain) != ir::StructuralHash(with_infos));
    auto m = ir::FindFirstMismatch(plain, with_infos);
    QVERIFY(m.has_value());
    QVERIFY2(m->lhs_path.find("global_infos") != std::string::npos, m->lhs_path.c_str());

    // A pass that rebuilds the module keeps them.
    ir::IRModule rebuilt =
        ir::WithFunctions(with_infos, with_infos->global_vars, with_infos->functions);
    QVERIFY(ir::StructuralEqual(rebuilt, with_infos));
    QVERIFY(rebuilt->global_infos.at(ir::kVDeviceInfoKey).same_as(
        with_infos->global_infos.at(ir::kVDeviceInfoKey)));
  }

  void jsonErrors() {
    ExpectLoadError("garbage", "not valid JSON");
    ExpectLoadError("", "not valid JSON");
    ExpectLoadError("[1, 2]", "expected a JSON object");
    ExpectLoadError(R"({"root": null, "nodes": []})", "missing \"version\"");
    ExpectLoadError(R"({"root": null, "nodes": [], "version": "tvm-0.8"})", "unsupported version");
    ExpectLoadError(Document(R"({"type": "tirx.Bogus", "fields": {}})", "0"),
                    "node 0 (tirx.Bogus): unknown node type");
    ExpectLoadError(Document(R"({"type": "Object", "fields": {}})", "0"), "no factory");
    // A For whose loop variable is an IntImm.
    ExpectLoadError(
        Document(std::string(kIntImmNode) + R"(, {"type": "tirx.Evaluate", "fields": {"value": 0}},
                  {"type": "tirx.For", "fields": {"loop_var": 0, "min": 0, "extent": 0,
                   "kind": 0, "thread_binding": null, "annotations": {}, "step": null,
                   "body": 1}})",
                 "2"),
        "node 2 (tirx.For): field 'loop_var' cannot hold a ir.IntImm");
    ExpectLoadError(
        Document(std::string(kIntImmNode) + R"(, {"type": "tirx.SeqStmt", "fields": {"seq": [0]}})",
                 "1"),
        "node 1 (tirx.SeqStmt): field 'seq' has an item of the wrong kind");
    ExpectLoadError(
        Document(R"({"type": "ir.IntImm", "fields": {"dtype": "int32", "value": "zero"}})", "0"),
        "field 'value' expects a 64-bit integer, got string \"zero\"");
    ExpectLoadError(
        Document(R"({"type": "ir.IntImm", "fields": {"dtype": "flaot32", "value": 1}})", "0"),
        "field 'dtype' expects a data type");
    ExpectLoadError(
        Document(R"({"type": "ir.FloatImm", "fields": {"dtype": "float32", "value": "1.5x"}})",
                 "0"),
        "field 'value' expects a number or a decimal string");
    ExpectLoadError(Document(R"({"type": "ir.IntImm", "fields": {"dtype": "int32"}})", "0"),
                    "field 'value' is missing");
    ExpectLoadError(
        Document(R"({"type": "ir.IntImm", "fields": {"dtype": "int32", "value": 1, "c": 2}})", "0"),
        "no field 'c' in ir.IntImm");
    // References must point to nodes listed before: no dangling indices, no cycles.
    ExpectLoadError(Document(R"({"type": "tirx.Evaluate", "fields": {"value": 5}})", "0"),
                    "field 'value' refers to number 5");
    ExpectLoadError(Document(R"({"type": "tirx.Evaluate", "fields": {"value": 0}})", "0"),
                    "field 'value' refers to number 0");
    ExpectLoadError(Document(R"({"type": "tirx.Evaluate", "fields": {"value": -1}})", "0"),
                    "field 'value' refers to number -1");
    ExpectLoadError(Document(kIntImmNode, "3"), "\"root\" number 3 is not the index");
    // Deeply nested input is rejected, not a stack overflow.
    std::string deep = std::string(100000, '[') + std::string(100000, ']');
    ExpectLoadError(deep, "expected a JSON object");
    ExpectLoadError(Document(deep, "0"), "node 0 (?): expected an object, got array");
    ExpectLoadError(Document(R"({"type": "ir.IRModule", "fields": {"global_vars": [],
                                 "functions": [null], "attrs": {}}})",
                             "0"),
                    "0 global_vars but 1 functions");
  }
};

QTEST_APPLESS_MAIN(TestStructural)
#include "tst_structural.moc"
