// Tests of VerifyWellFormed: well-formed functions (a matmul with init and reduction, symbolic
// shapes, thread launches, Bind/Let/DeclBuffer scoping) verify clean, and each ill-formed case
// gives exactly the expected diagnostics, with the span of the offending node.

#include <QStringList>
#include <QTest>
#include <memory>
#include <string>
#include <vector>

#include "tir/stmt.h"
#include "tir/verifier.h"

using namespace wb;
using namespace wb::tir;

namespace {

const DataType kInt32 = DataType::Int(32);
const DataType kInt64 = DataType::Int(64);
const DataType kFloat16 = DataType::Float(16);
const DataType kFloat32 = DataType::Float(32);

PrimExpr Int(int64_t v, DataType t = kInt32) { return MakeIntImm(t, v); }
PrimExpr Float(double v, DataType t = kFloat32) { return MakeFloatImm(t, v); }
PrimExpr True() { return MakeIntImm(DataType::Bool(), 1); }
PrimExpr Plus(PrimExpr a, PrimExpr b) { return MakeBinary(ir::TypeIndex::kAdd, a, b); }
PrimExpr Times(PrimExpr a, PrimExpr b) { return MakeBinary(ir::TypeIndex::kMul, a, b); }
PrimExpr Less(PrimExpr a, PrimExpr b) { return MakeBinary(ir::TypeIndex::kLT, a, b); }
PrimExpr Load(Buffer b, std::vector<PrimExpr> indices) { return MakeBufferLoad(b, indices); }
Stmt Store(Buffer b, PrimExpr value, std::vector<PrimExpr> indices, Span span = {}) {
  return MakeBufferStore(b, value, indices, {}, span);
}
Stmt Seq(std::vector<Stmt> stmts) { return MakeSeq(std::move(stmts)); }
Stmt Loop(Var v, int64_t extent, Stmt body, Span span = {}) {
  return MakeFor(v, Int(0), Int(extent), ForKind::kSerial, body, {}, {}, {}, span);
}
IterVar Axis(const std::string& name, int64_t extent, IterVarType type = IterVarType::kDataPar) {
  return MakeIterVar(ir::MakeRange(Int(0), Int(extent)), MakeVar(name, kInt32), type);
}
// The one-element region buffer[i, j, ...].
BufferRegion Point(Buffer b, std::vector<PrimExpr> indices) {
  std::vector<Range> region;
  for (auto& i : indices) region.push_back(ir::MakeRange(i, Int(1)));
  return MakeBufferRegion(b, region);
}
Stmt Realize(std::vector<PrimExpr> values, SBlock block, Span span = {}) {
  return MakeSBlockRealize(values, True(), block, span);
}
// `with T.sblock("root"):` around a function body.
Stmt Root(Stmt body, std::vector<Buffer> alloc_buffers = {}) {
  return Realize({}, MakeSBlock({}, {}, {}, "root", body, {}, alloc_buffers));
}

// A PrimFunc under construction: buffer parameters and scalar parameters, in order.
struct FuncBuilder {
  std::vector<Var> params;
  std::vector<Buffer> buffer_map;

  Buffer Param(const std::string& name, std::vector<PrimExpr> shape, DataType dtype = kFloat32,
               BufferOptions options = {}) {
    Buffer buffer = MakeBuffer(name, shape, dtype, options);
    params.push_back(MakeVar(name + "_handle", DataType::Handle()));
    buffer_map.push_back(buffer);
    return buffer;
  }
  Var Scalar(const std::string& name, DataType dtype = kInt32) {
    Var var = MakeVar(name, dtype);
    params.push_back(var);
    buffer_map.push_back(Buffer());
    return var;
  }
  PrimFunc Make(Stmt body) { return MakePrimFunc(params, buffer_map, body); }
};

QStringList Messages(const DiagnosticList& diagnostics) {
  QStringList out;
  for (const auto& d : diagnostics) {
    if (d.severity != Severity::kError) out << QStringLiteral("not an error: ");
    out << QString::fromStdString(d.message);
  }
  return out;
}

// C[i, j] += A[i, k] * B[j, k] over 16x16x16, as `T.axis.remap("SSR", [i, j, k])` writes it.
struct Matmul {
  FuncBuilder f;
  Buffer A = f.Param("A", {Int(16), Int(16)});
  Buffer B = f.Param("B", {Int(16), Int(16)});
  Buffer C = f.Param("C", {Int(16), Int(16)});
  Var i = MakeVar("i", kInt32), j = MakeVar("j", kInt32), k = MakeVar("k", kInt32);
  IterVar vi = Axis("vi", 16), vj = Axis("vj", 16), vk = Axis("vk", 16, IterVarType::kCommReduce);

  Stmt Init() { return Store(C, Float(0), {vi->var, vj->var}); }
  Stmt Update() {
    return Store(C,
                 Plus(Load(C, {vi->var, vj->var}),
                      Times(Load(A, {vi->var, vk->var}), Load(B, {vj->var, vk->var}))),
                 {vi->var, vj->var});
  }
  SBlock Block(Stmt body, Stmt init, std::vector<IterVar> iters = {}) {
    if (iters.empty()) iters = {vi, vj, vk};
    return MakeSBlock(iters, {Point(A, {vi->var, vk->var}), Point(B, {vj->var, vk->var})},
                      {Point(C, {vi->var, vj->var})}, "C", body, init);
  }
  PrimFunc Func(Stmt realize) {
    return f.Make(Root(Loop(i, 16, Loop(j, 16, Loop(k, 16, realize)))));
  }
  PrimFunc Func() { return Func(Realize({i, j, k}, Block(Update(), Init()))); }
};

}  // namespace

class TestVerifier : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // --- Well-formed functions -------------------------------------------------------------------

  void matmulIsWellFormed() {
    Matmul m;
    QCOMPARE(Messages(VerifyWellFormed(m.Func())), QStringList());
  }

  void moduleWithCallIsWellFormed() {
    Matmul m;
    ir::GlobalVar main_var = ir::MakeGlobalVar("main");
    ir::GlobalVar helper_var = ir::MakeGlobalVar("helper");
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4)});
    PrimFunc caller = f.Make(Store(A, MakeCall(kFloat32, helper_var, {Float(1)}), {Int(0)}));
    ir::IRModule module = ir::MakeIRModule({main_var, helper_var}, {caller, m.Func()});
    QCOMPARE(Messages(VerifyWellFormed(module)), QStringList());
  }

  void symbolicShapesAreDefinedByTheBufferMap() {
    // def f(a: T.handle, b: T.handle): A = T.match_buffer(a, (n,)); B = T.match_buffer(b, (n * 2,),
    // strides=(s,))
    FuncBuilder f;
    Var n = MakeSizeVar("n", kInt32);
    Var s = MakeVar("s", kInt32);
    BufferOptions strided;
    strided.strides = {s};
    Buffer B = f.Param("B", {Times(n, Int(2))}, kFloat32, strided);
    Buffer A = f.Param("A", {n});
    Var i = MakeVar("i", kInt32);
    Stmt body =
        MakeFor(i, Int(0), n, ForKind::kSerial, Store(B, Load(A, {i}), {Plus(i, Times(i, s))}));
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))), QStringList());
  }

  void scopedDefinitionsAreWellFormed() {
    // Bind, Let, launch_thread, AllocBuffer and DeclBuffer over a parameter's data.
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(16), Int(16)});
    Var len = f.Scalar("len");
    Var x = MakeVar("x", kInt32);
    Var y = MakeVar("y", kFloat32);
    Var tx = MakeVar("threadIdx.x", kInt32);
    IterVar thread =
        MakeIterVar(ir::MakeRange(Int(0), Int(32)), tx, IterVarType::kThreadIndex, "threadIdx.x");
    BufferOptions alias;
    alias.data = A->data;
    Buffer flat = MakeBuffer("A_flat", {Int(256)}, kFloat32, alias);
    Buffer tmp = MakeBuffer("tmp", {len}, kFloat32);
    Stmt body = Seq({
        MakeBind(x, Plus(len, Int(1))),
        MakeDeclBuffer(flat),
        MakeAllocBuffer(tmp),
        MakeAttrStmt(thread, "thread_extent", Int(32),
                     Seq({Store(tmp, Float(0), {tx}),
                          Store(flat, MakeLet(y, Load(tmp, {x}), Plus(y, y)), {Plus(tx, x)})})),
        Store(A, Float(1), {x, Int(0)}),
    });
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))), QStringList());
  }

  void opaqueBlocksMayUseOuterLoopVars() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(8)});
    Var i = MakeVar("i", kInt32);
    SBlock opaque =
        MakeSBlock({}, {Point(A, {i})}, {Point(A, {i})}, "opaque", Store(A, Float(0), {i}));
    QCOMPARE(Messages(VerifyWellFormed(f.Make(Root(Loop(i, 8, Realize({}, opaque)))))),
             QStringList());
  }

  void blockBuffersAreInScopeInTheBlock() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(16)});
    BufferOptions in_local;
    in_local.scope = "local";
    Buffer local = MakeBuffer("A_local", {Int(16)}, kFloat32, in_local);
    Var i = MakeVar("i", kInt32);
    IterVar vi = Axis("vi", 16);
    SBlock block = MakeSBlock({vi}, {Point(A, {vi->var})}, {Point(local, {vi->var})}, "A_local",
                              Store(local, Load(A, {vi->var}), {vi->var}));
    Stmt body = Root(Loop(i, 16, Realize({i}, block)), {local});
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))), QStringList());
  }

  // --- Undefined variables ---------------------------------------------------------------------

  void undefinedVariable() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(16)});
    Var n = MakeVar("n", kInt32);
    Var i = MakeVar("i", kInt32);
    // Reported once, at its first use.
    Stmt body = MakeFor(i, Int(0), n, ForKind::kSerial, Store(A, Float(0), {Plus(i, n)}));
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))),
             QStringList{"variable 'n' is used but not defined"});
  }

  void shapeExpressionDoesNotDefineItsVariables() {
    FuncBuilder f;
    Var m = MakeVar("m", kInt32);
    Buffer A = f.Param("A", {Times(m, Int(2))});
    QCOMPARE(Messages(VerifyWellFormed(f.Make(Store(A, Float(0), {Int(0)})))),
             QStringList{"variable 'm' is used but not defined"});
  }

  void bindIsVisibleOnlyInItsSequence() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(16)});
    Var i = MakeVar("i", kInt32);
    Var x = MakeVar("x", kInt32);
    Stmt body = Seq({
        Loop(i, 4, Seq({MakeBind(x, Times(i, Int(2))), Store(A, Float(0), {x})})),
        Store(A, Float(1), {x}),
    });
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))),
             QStringList{"variable 'x' is used but not defined"});
  }

  void bindIsNotVisibleBeforeIt() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(16)});
    Var x = MakeVar("x", kInt32);
    Stmt body = Seq({Store(A, Float(1), {x}), MakeBind(x, Int(3)), Store(A, Float(2), {x})});
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))),
             QStringList{"variable 'x' is used but not defined"});
  }

  void letAndThreadVarsAreScoped() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(32)});
    Var y = MakeVar("y", kInt32);
    Var tx = MakeVar("threadIdx.x", kInt32);
    IterVar thread =
        MakeIterVar(ir::MakeRange(Int(0), Int(32)), tx, IterVarType::kThreadIndex, "threadIdx.x");
    Stmt body = Seq({
        MakeAttrStmt(thread, "thread_extent", Int(32), Store(A, Float(0), {tx})),
        Store(A, Float(1), {tx}),
        Store(A, Float(2), {MakeLet(y, Int(1), Plus(y, y))}),
        Store(A, Float(3), {y}),
    });
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))),
             (QStringList{"variable 'threadIdx.x' is used but not defined",
                          "variable 'y' is used but not defined"}));
  }

  void declBufferNeedsDefinedData() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(16)});
    Buffer view = MakeBuffer("A_view", {Int(16)}, kFloat32);  // a fresh, unallocated pointer
    Stmt body = Seq({MakeDeclBuffer(view), Store(view, Load(A, {Int(0)}), {Int(0)})});
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))),
             QStringList{"variable 'A_view' is used but not defined"});
  }

  // --- Loop variables inside blocks ------------------------------------------------------------

  void loopVarUsedInsideBlock() {
    Matmul m;
    // C[vi, vj] = C[vi, vj] + A[vi, k] * B[vj, vk]: `k` bypasses the iter var `vk`.
    Stmt update = Store(m.C,
                        Plus(Load(m.C, {m.vi->var, m.vj->var}),
                             Times(Load(m.A, {m.vi->var, m.k}), Load(m.B, {m.vj->var, m.vk->var}))),
                        {m.vi->var, m.vj->var});
    PrimFunc func = m.Func(Realize({m.i, m.j, m.k}, m.Block(update, m.Init())));
    QCOMPARE(Messages(VerifyWellFormed(func)),
             QStringList{"loop variable 'k' is used inside block 'C' without an iter var binding"});
  }

  void loopVarOfOuterBlockInNestedBlock() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4), Int(4)});
    Var i = MakeVar("i", kInt32), j = MakeVar("j", kInt32);
    IterVar vi = Axis("vi", 4), vj = Axis("vj", 4);
    SBlock inner =
        MakeSBlock({vj}, {}, {Point(A, {i, vj->var})}, "inner", Store(A, Float(0), {i, vj->var}));
    SBlock outer = MakeSBlock({vi}, {}, {}, "outer", Loop(j, 4, Realize({j}, inner)));
    PrimFunc func = f.Make(Root(Loop(i, 4, Realize({i}, outer))));
    // `i` is outside both blocks; the innermost block is named.
    QCOMPARE(Messages(VerifyWellFormed(func)),
             QStringList{"loop variable 'i' is used inside block 'inner' without an iter var "
                         "binding"});
  }

  // --- Multiple definitions --------------------------------------------------------------------

  void loopVarDefinedTwice() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4)});
    Var i = MakeVar("i", kInt32);
    Stmt body = Seq({Loop(i, 4, Store(A, Float(0), {i})), Loop(i, 4, Store(A, Float(1), {i}))});
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))),
             QStringList{"variable 'i' is defined more than once"});
  }

  void bindOfBoundVar() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4)});
    Var x = MakeVar("x", kInt32);
    Stmt body = Seq({MakeBind(x, Int(1)), MakeBind(x, Int(2)), Store(A, Float(0), {x})});
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))),
             QStringList{"variable 'x' is defined more than once"});
  }

  void iterVarReused() {
    Matmul m;
    // A second block "C" reusing the same iter vars.
    Var i2 = MakeVar("i2", kInt32), j2 = MakeVar("j2", kInt32), k2 = MakeVar("k2", kInt32);
    Stmt second = Loop(
        i2, 16, Loop(j2, 16, Loop(k2, 16, Realize({i2, j2, k2}, m.Block(m.Update(), m.Init())))));
    Stmt first =
        Loop(m.i, 16,
             Loop(m.j, 16, Loop(m.k, 16, Realize({m.i, m.j, m.k}, m.Block(m.Update(), m.Init())))));
    PrimFunc func = m.f.Make(Root(Seq({first, second})));
    QCOMPARE(Messages(VerifyWellFormed(func)),
             (QStringList{"variable 'vi' is defined more than once",
                          "variable 'vj' is defined more than once",
                          "variable 'vk' is defined more than once"}));
  }

  void redefinitionNotesTheFirstDefinition() {
    auto file =
        std::make_shared<SourceFile>("t.py", "for i in range(4): pass\nfor i in range(4): pass\n");
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4)});
    Var i = MakeVar("i", kInt32);
    Span first(file, 0, 23), second(file, 24, 47);
    Stmt body = Seq(
        {Loop(i, 4, Store(A, Float(0), {i}), first), Loop(i, 4, Store(A, Float(1), {i}), second)});
    DiagnosticList d = VerifyWellFormed(f.Make(body));
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(d[0].span.begin, second.begin);
    QCOMPARE(d[0].notes.size(), size_t(1));
    QCOMPARE(QString::fromStdString(d[0].notes[0].message),
             QStringLiteral("first definition is here"));
    QCOMPARE(d[0].notes[0].span.begin, first.begin);
  }

  // --- Buffer rank -----------------------------------------------------------------------------

  void rankMismatchOnLoadStoreAndRegion() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4), Int(4)});
    Buffer B = f.Param("B", {Int(16)});
    Var i = MakeVar("i", kInt32);
    IterVar vi = Axis("vi", 16);
    SBlock block =
        MakeSBlock({vi}, {Point(A, {vi->var, Int(0), Int(0)})}, {Point(B, {vi->var})}, "copy",
                   Store(B, Load(A, {vi->var, Int(0), Int(0)}), {vi->var, Int(0)}));
    PrimFunc func = f.Make(Root(Loop(i, 16, Realize({i}, block))));
    QCOMPARE(Messages(VerifyWellFormed(func)),
             (QStringList{"buffer 'A' has 2 dimensions but is indexed with 3",
                          "buffer 'B' has 1 dimension but is indexed with 2",
                          "buffer 'A' has 2 dimensions but is indexed with 3"}));
  }

  void flatIndexIntoMultiDimensionalBuffer() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4), Int(4)});
    QCOMPARE(Messages(VerifyWellFormed(f.Make(Store(A, Float(0), {Int(5)})))),
             QStringList{"buffer 'A' has 2 dimensions but is indexed with 1"});
  }

  // --- Undeclared buffers ----------------------------------------------------------------------

  void undeclaredBuffer() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4)});
    Buffer B = MakeBuffer("B", {Int(4)}, kFloat32);
    Stmt body = Seq({Store(B, Load(A, {Int(0)}), {Int(0)}), Store(A, Load(B, {Int(1)}), {Int(1)})});
    // Reported once, at its first use.
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))),
             QStringList{"buffer 'B' is used but not declared"});
  }

  void allocBufferIsScopedToItsSequence() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4)});
    Var n = f.Scalar("n");
    Buffer tmp = MakeBuffer("tmp", {Int(4)}, kFloat32);
    Stmt body = Seq({
        MakeIfThenElse(Less(n, Int(4)),
                       Seq({MakeAllocBuffer(tmp), Store(tmp, Float(0), {Int(0)})})),
        Store(A, Load(tmp, {Int(0)}), {Int(0)}),
    });
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))),
             QStringList{"buffer 'tmp' is used but not declared"});
  }

  void undeclaredBufferInBlockRegion() {
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(16)});
    Buffer B = MakeBuffer("B", {Int(16)}, kFloat32);
    Var i = MakeVar("i", kInt32);
    IterVar vi = Axis("vi", 16);
    SBlock block = MakeSBlock({vi}, {Point(B, {vi->var})}, {Point(A, {vi->var})}, "copy",
                              Store(A, Float(0), {vi->var}));
    QCOMPARE(Messages(VerifyWellFormed(f.Make(Root(Loop(i, 16, Realize({i}, block)))))),
             QStringList{"buffer 'B' is used but not declared"});
  }

  // --- Block iter bindings ---------------------------------------------------------------------

  void bindingCountMismatch() {
    Matmul m;
    PrimFunc func = m.Func(Realize({m.i, m.j}, m.Block(m.Update(), m.Init())));
    QCOMPARE(Messages(VerifyWellFormed(func)),
             QStringList{"block 'C' has 3 iter vars but 2 bindings"});
  }

  void nonIntegerBinding() {
    Matmul m;
    PrimFunc func = m.Func(Realize({m.i, m.j, Float(0.5)}, m.Block(m.Update(), m.Init())));
    QCOMPARE(Messages(VerifyWellFormed(func)),
             QStringList{"iter var 'vk' of block 'C' is bound to a float32 expression, but "
                         "bindings must be integers"});
  }

  void bindingDtypeMismatch() {
    Matmul m;
    Var i64 = MakeVar("i", kInt64);
    Stmt realize = Realize({i64, m.j, m.k}, m.Block(m.Update(), m.Init()));
    PrimFunc func = m.f.Make(Root(MakeFor(i64, Int(0, kInt64), Int(16, kInt64), ForKind::kSerial,
                                          Loop(m.j, 16, Loop(m.k, 16, realize)))));
    QCOMPARE(Messages(VerifyWellFormed(func)),
             QStringList{"iter var 'vi' of block 'C' has dtype int32 but is bound to an "
                         "expression of int64"});
  }

  // --- Store dtype -----------------------------------------------------------------------------

  void storeDtypeMismatch() {
    FuncBuilder f;
    Buffer C = f.Param("C", {Int(4)});
    Stmt body = Seq({Store(C, Float(1, kFloat16), {Int(0)}),
                     // A vector store of the element type is fine: lanes are not compared.
                     Store(C, MakeBroadcast(Float(1), 4), {MakeRamp(Int(0), Int(1), 4)})});
    QCOMPARE(Messages(VerifyWellFormed(f.Make(body))),
             QStringList{"cannot store a float16 value into buffer 'C' of float32"});
  }

  // --- Init without reduction ------------------------------------------------------------------

  // TVM's verifier accepts an init in a block without reduction iter vars (LowerInitBlock then
  // runs it unguarded, before every update).
  void initWithoutReductionIterVar() {
    Matmul m;
    IterVar vk = Axis("vk", 16);  // spatial
    m.vk = vk;
    PrimFunc func = m.Func(Realize({m.i, m.j, m.k}, m.Block(m.Update(), m.Init())));
    QCOMPARE(Messages(VerifyWellFormed(func)), QStringList{});
  }

  // --- Modules ---------------------------------------------------------------------------------

  void callToMissingFunction() {
    ir::GlobalVar main_var = ir::MakeGlobalVar("main");
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4)});
    PrimFunc caller =
        f.Make(Store(A, MakeCall(kFloat32, ir::MakeGlobalVar("helper"), {Float(1)}), {Int(0)}));
    ir::IRModule module = ir::MakeIRModule({main_var}, {caller});
    QCOMPARE(Messages(VerifyWellFormed(module)),
             QStringList{"function 'helper' is called but not defined in the module"});
    // On its own, a PrimFunc cannot know the module's functions.
    QCOMPARE(Messages(VerifyWellFormed(caller)), QStringList());
  }

  void callThroughForeignGlobalVar() {
    Matmul m;
    ir::GlobalVar main_var = ir::MakeGlobalVar("main");
    ir::GlobalVar helper_var = ir::MakeGlobalVar("helper");
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4)});
    PrimFunc caller =
        f.Make(Store(A, MakeCall(kFloat32, ir::MakeGlobalVar("helper"), {Float(1)}), {Int(0)}));
    ir::IRModule module = ir::MakeIRModule({main_var, helper_var}, {caller, m.Func()});
    QCOMPARE(Messages(VerifyWellFormed(module)),
             QStringList{"call to 'helper' uses a GlobalVar that is not the module's GlobalVar of "
                         "that name"});
  }

  void moduleChecksEveryFunction() {
    FuncBuilder f, g;
    Buffer A = f.Param("A", {Int(4)});
    Buffer B = g.Param("B", {Int(4)});
    Var n = MakeVar("n", kInt32);
    PrimFunc first = f.Make(Store(A, Float(0), {n}));
    PrimFunc second = g.Make(Store(B, Float(0), {Int(0), Int(0)}));
    ir::IRModule module = ir::MakeIRModule(
        {ir::MakeGlobalVar("first"), ir::MakeGlobalVar("second")}, {first, second});
    QCOMPARE(Messages(VerifyWellFormed(module)),
             (QStringList{"variable 'n' is used but not defined",
                          "buffer 'B' has 1 dimension but is indexed with 2"}));
  }

  // --- Spans and ordering ----------------------------------------------------------------------

  void spansFallBackToTheEnclosingNode() {
    //            0         1         2         3
    //            0123456789012345678901234567890123456
    auto file = std::make_shared<SourceFile>("t.py", "for i in range(4):\n    A[n] = B[0]\n");
    FuncBuilder f;
    Buffer A = f.Param("A", {Int(4)});
    Buffer B = MakeBuffer("B", {Int(4)}, kFloat32);
    Var i = MakeVar("i", kInt32);
    Var n = MakeVar("n", kInt32);
    Span loop_span(file, 0, 34), store_span(file, 23, 34), load_span(file, 30, 34);
    Stmt store = Store(A, MakeBufferLoad(B, {Int(0)}, {}, load_span), {n});
    Stmt stored_with_span = Store(A, Float(0), {n, Int(1)}, store_span);
    Stmt body = Loop(i, 4, Seq({store, stored_with_span}), loop_span);
    DiagnosticList d = VerifyWellFormed(f.Make(body));
    QCOMPARE(Messages(d), (QStringList{"variable 'n' is used but not defined",
                                       "buffer 'B' is used but not declared",
                                       "buffer 'A' has 1 dimension but is indexed with 2"}));
    // `n` in a store without a span: the loop's span.
    QCOMPARE(d[0].span.begin, loop_span.begin);
    QCOMPARE(d[0].span.end, loop_span.end);
    // The load has its own span.
    QCOMPARE(d[1].span.begin, load_span.begin);
    QCOMPARE(d[2].span.begin, store_span.begin);
    QVERIFY(d[2].span.file == file);
  }

  void collectsAllFindingsInSourceOrder() {
    Matmul m;
    Buffer D = MakeBuffer("D", {Int(16)}, kFloat32);
    Var n = MakeVar("n", kInt32);
    // Block "C" with 2 bindings for 3 iter vars, an undeclared buffer, a wrong rank and a
    // float16 store, in that order.
    Stmt update = Seq({
        Store(D, Float(0), {m.vi->var}),
        Store(m.C, Load(m.A, {m.vi->var}), {m.vi->var, m.vj->var}),
        Store(m.C, Float(0, kFloat16), {m.vi->var, n}),
    });
    PrimFunc func = m.Func(Realize({m.i, m.j}, m.Block(update, m.Init())));
    QCOMPARE(Messages(VerifyWellFormed(func)),
             (QStringList{"block 'C' has 3 iter vars but 2 bindings",
                          "buffer 'D' is used but not declared",
                          "buffer 'A' has 2 dimensions but is indexed with 1",
                          "cannot store a float16 value into buffer 'C' of float32",
                          "variable 'n' is used but not defined"}));
  }
};

QTEST_APPLESS_MAIN(TestVerifier)
#include "tst_verifier.moc"
