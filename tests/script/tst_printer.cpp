// The TVMScript printer: exact canonical text for IR built with the core constructors, one
// construct family per test (shared/TVMSCRIPT.md is the reference for every expected form).

#include <QString>
#include <QTest>
#include <cmath>
#include <limits>

#include "script/tvmscript.h"
#include "tir/builtin.h"
#include "tir/op.h"
#include "tir/stmt.h"

using namespace wb;       // NOLINT(google-build-using-namespace)
using namespace wb::tir;  // NOLINT(google-build-using-namespace)

namespace {

const DataType kI32 = DataType::Int(32);
const DataType kI64 = DataType::Int(64);
const DataType kF32 = DataType::Float(32);

PrimExpr I(int64_t v) { return MakeIntImm(kI32, v); }
PrimExpr F(double v, DataType t = kF32) { return MakeFloatImm(t, v); }

// A buffer parameter: the handle param and its buffer, as the parser builds them.
struct Param {
  Var var;
  Buffer buffer;
};
Param BufParam(const std::string& name, std::vector<PrimExpr> shape, DataType dtype = kF32) {
  return {MakePointerVar(name, dtype, "global"), MakeBuffer(name, std::move(shape), dtype)};
}

BufferOptions Scoped(const std::string& scope) {
  BufferOptions options;
  options.scope = scope;
  return options;
}

ir::AttrMap Symbol(const std::string& name) { return {{"global_symbol", ir::MakeString(name)}}; }

PrimFunc Func(const std::vector<Param>& bufs, const std::vector<Var>& scalars, Stmt body,
              ir::AttrMap attrs) {
  std::vector<Var> params;
  std::vector<Buffer> buffers;
  for (const auto& p : bufs) params.push_back(p.var), buffers.push_back(p.buffer);
  for (const auto& s : scalars) params.push_back(s), buffers.push_back(Buffer());
  return MakePrimFunc(params, buffers, std::move(body), {}, std::move(attrs));
}

Stmt Serial(const Var& v, PrimExpr extent, Stmt body) {
  return MakeFor(v, I(0), std::move(extent), ForKind::kSerial, std::move(body));
}

BufferRegion Point(const Buffer& b, std::vector<PrimExpr> idx) {
  std::vector<Range> r;
  for (auto& i : idx) r.push_back(ir::MakeRange(i, MakeIntImm(i->dtype, 1)));
  return MakeBufferRegion(b, r);
}

Stmt Root(Stmt body, std::vector<Buffer> allocs = {}) {
  return MakeSBlockRealize({}, MakeIntImm(DataType::Bool(), 1),
                           MakeSBlock({}, {}, {}, "root", std::move(body), {}, std::move(allocs)));
}

Stmt Eval(PrimExpr e) { return MakeEvaluate(std::move(e)); }

// A sequence kept exactly as given (MakeSeq drops `T.evaluate(0)`-like statements).
Stmt RawSeq(std::vector<Stmt> seq) {
  ir::NodeBuilder<SeqStmtNode> n;
  n->seq = std::move(seq);
  return n.Finish();
}

QString Q(const std::string& s) { return QString::fromStdString(s); }

const char kTirHeader[] =
    "# from tvm.script import tirx as T\n"
    "# from tvm.tirx.layout import Axis\n\n";

}  // namespace

class TstPrinter : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void matmulWithRootBlock();
  void blockAxesWhereAllocAndAttr();
  void loopsAndGridMerge();
  void threadBindings();
  void symbolicInt32Shapes();
  void symbolicInt64Shapes();
  void literals();
  void precedenceAndFolding();
  void nameCollisions();
  void flatStatementsAndAttrs();
  void scalarBuffersAndReturn();
  void moduleOrderingAndCalls();
  void neverThrowsOnOddIR();
  void declBufferViewSugar();
};

void TstPrinter::matmulWithRootBlock() {
  Param a = BufParam("A", {I(16), I(16)}), b = BufParam("B", {I(16), I(16)}),
        c = BufParam("C", {I(16), I(16)});
  Var i = MakeVar("i", kI32), j = MakeVar("j", kI32), k = MakeVar("k", kI32);
  Var vi = MakeVar("vi", kI32), vj = MakeVar("vj", kI32), vk = MakeVar("vk", kI32);
  auto dom = [] { return ir::MakeRange(I(0), I(16)); };
  std::vector<IterVar> ivs{MakeIterVar(dom(), vi, IterVarType::kDataPar),
                           MakeIterVar(dom(), vj, IterVarType::kDataPar),
                           MakeIterVar(dom(), vk, IterVarType::kCommReduce)};
  PrimExpr cij = MakeBufferLoad(c.buffer, {vi, vj});
  PrimExpr prod = mul(MakeBufferLoad(a.buffer, {vi, vk}), MakeBufferLoad(b.buffer, {vj, vk}));
  SBlock block = MakeSBlock(
      ivs, {Point(c.buffer, {vi, vj}), Point(a.buffer, {vi, vk}), Point(b.buffer, {vj, vk})},
      {Point(c.buffer, {vi, vj})}, "C", MakeBufferStore(c.buffer, add(cij, prod), {vi, vj}),
      MakeBufferStore(c.buffer, F(0.0), {vi, vj}));
  Stmt nest = Serial(
      i, I(16),
      Serial(
          j, I(16),
          Serial(k, I(16), MakeSBlockRealize({i, j, k}, MakeIntImm(DataType::Bool(), 1), block))));
  ir::AttrMap attrs = Symbol("main");
  attrs["s_tir"] = ir::MakeBool(true);
  PrimFunc f = Func({a, b, c}, {}, Root(nest), attrs);
  QCOMPARE(Q(script::PrintPrimFunc(f)), Q(std::string(kTirHeader) + R"py(@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    # with T.sblock("root"):
    for i, j, k in T.grid(16, 16, 16):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(C[vi, vj], A[vi, vk], B[vj, vk])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk])py"));
}

void TstPrinter::blockAxesWhereAllocAndAttr() {
  Param a = BufParam("A", {I(30)});
  Var i = MakeVar("i", kI32), j = MakeVar("j", kI32), v = MakeVar("v", kI32);
  Buffer tmp = MakeBuffer("tmp", {I(4)}, DataType::Int(8));
  PrimExpr binding = add(mul(i, I(4)), j);
  SBlock block = MakeSBlock({MakeIterVar(ir::MakeRange(I(0), I(30)), v, IterVarType::kDataPar)}, {},
                            {Point(a.buffer, {v})}, "B", MakeBufferStore(a.buffer, F(1.0), {v}), {},
                            {tmp}, {}, {{"meta", ir::MakeInt(1)}});
  Stmt body =
      Serial(i, I(8), Serial(j, I(4), MakeSBlockRealize({binding}, less(binding, I(30)), block)));
  Buffer root_buf = MakeBuffer("acc", {I(16)}, kI32);
  PrimFunc f = Func({a}, {}, Root(body, {root_buf}), Symbol("main"));
  QCOMPARE(Q(script::PrintPrimFunc(f, {false})), Q(R"py(@T.prim_func
def main(A: T.Buffer((30,), "float32")):
    # with T.sblock("root"):
    acc = T.sblock_alloc_buffer((16,), "int32")
    for i, j in T.grid(8, 4):
        with T.sblock("B"):
            v = T.axis.spatial(30, i * 4 + j)
            T.where(i * 4 + j < 30)
            T.reads()
            T.writes(A[v])
            T.sblock_attr({"meta": 1})
            tmp = T.sblock_alloc_buffer((4,), "int8")
            A[v] = T.float32(1.0))py"));
}

void TstPrinter::loopsAndGridMerge() {
  Param a = BufParam("A", {I(8), I(16)}), b = BufParam("B", {I(8), I(16)});
  Var i = MakeVar("i", kI32), j = MakeVar("j", kI32);
  Stmt grid = Serial(
      i, I(8),
      Serial(j, I(16),
             MakeBufferStore(b.buffer, mul(MakeBufferLoad(a.buffer, {i, j}), F(2.0)), {i, j})));
  Var i2 = MakeVar("i", kI32), j2 = MakeVar("j", kI32);
  // The inner extent depends on the outer variable: no grid.
  Stmt triangle = Serial(i2, I(8), Serial(j2, i2, MakeBufferStore(b.buffer, F(0.0), {i2, j2})));
  Var k = MakeVar("k", kI32), p = MakeVar("p", kI32), u = MakeVar("u", kI32),
      s = MakeVar("s", kI32), t = MakeVar("t", kI32);
  Stmt ranged = MakeFor(k, I(2), I(8), ForKind::kSerial, Eval(k));
  Stmt stepped = MakeFor(s, I(0), I(16), ForKind::kSerial, Eval(s), {}, {}, I(2));
  Stmt par = MakeFor(p, I(0), I(4), ForKind::kParallel, Eval(p));
  Stmt unrolled = MakeFor(u, I(0), I(4), ForKind::kSerial, Eval(u), {},
                          {{"pragma_unroll", ir::MakeBool(true)}});
  Stmt annotated = MakeFor(t, I(0), I(4), ForKind::kVectorized, Eval(t), {},
                           {{"b", ir::MakeInt(2)}, {"a", ir::MakeString("x")}});
  ir::AttrMap attrs = Symbol("main");
  attrs["tir.noalias"] = ir::MakeBool(true);
  PrimFunc f =
      Func({a, b}, {}, MakeSeq({grid, triangle, ranged, stepped, par, unrolled, annotated}), attrs);
  QCOMPARE(Q(script::PrintPrimFunc(f, {false})), Q(R"py(@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
    T.func_attr({"tir.noalias": True})
    for i, j in T.grid(8, 16):
        B[i, j] = A[i, j] * T.float32(2.0)
    for i in range(8):
        for j in range(i):
            B[i, j] = T.float32(0.0)
    for k in range(2, 10):
        T.evaluate(k)
    for s in range(0, 16, 2):
        T.evaluate(s)
    for p in T.parallel(4):
        T.evaluate(p)
    for u in T.serial(4, unroll=True):
        T.evaluate(u)
    for t in T.vectorized(4, annotations={"a": "x", "b": 2}):
        T.evaluate(t))py"));
}

void TstPrinter::threadBindings() {
  Param a = BufParam("A", {I(256)});
  Var bx = MakeVar("blockIdx.x", kI32), tx = MakeVar("threadIdx.x", kI32);
  Var ty = MakeVar("ty", kI32), w = MakeVar("w", kI32);
  PrimExpr idx = add(mul(bx, I(32)), tx);
  Stmt inner = MakeFor(
      tx, I(0), I(32), ForKind::kThreadBinding, MakeBufferStore(a.buffer, F(1.0), {idx}),
      MakeIterVar(ir::MakeRange(I(0), I(32)), tx, IterVarType::kThreadIndex, "threadIdx.x"));
  Stmt outer =
      MakeFor(bx, I(0), I(8), ForKind::kThreadBinding, inner,
              MakeIterVar(ir::MakeRange(I(0), I(8)), bx, IterVarType::kThreadIndex, "blockIdx.x"));
  // launch_thread: not last (a `with`), last (concise), and env_thread (a use outside).
  auto launch = [](const Var& v, const char* tag, int64_t n, Stmt body) {
    return MakeAttrStmt(MakeIterVar(ir::MakeRange(I(0), I(n)), v, IterVarType::kThreadIndex, tag),
                        "thread_extent", I(n), std::move(body));
  };
  Stmt with_form = launch(ty, "threadIdx.y", 4, Eval(ty));
  Stmt env = MakeSeq({launch(w, "vthread", 2, Eval(w)), Eval(w)});
  Var bx2 = MakeVar("bx", kI32);
  Stmt concise = launch(bx2, "blockIdx.x", 8, Eval(bx2));
  PrimFunc f = Func({a}, {}, MakeSeq({outer, with_form, env, concise}), Symbol("main"));
  QCOMPARE(Q(script::PrintPrimFunc(f, {false})), Q(R"py(@T.prim_func
def main(A: T.Buffer((256,), "float32")):
    for blockIdx_x in T.thread_binding(8, thread="blockIdx.x"):
        for threadIdx_x in T.thread_binding(32, thread="threadIdx.x"):
            A[blockIdx_x * 32 + threadIdx_x] = T.float32(1.0)
    with T.launch_thread("threadIdx.y", 4) as ty:
        T.evaluate(ty)
    w = T.env_thread("vthread")
    with T.launch_thread(w, 2):
        T.evaluate(w)
    T.evaluate(w)
    bx = T.launch_thread("blockIdx.x", 8)
    T.evaluate(bx))py"));
}

void TstPrinter::symbolicInt32Shapes() {
  Var n = MakeVar("n", kI32), m = MakeVar("m", kI32);
  Param a = BufParam("A", {n, add(n, I(1))});
  Param b = BufParam("B", {n, m});
  Var i = MakeVar("i", kI32);
  Var k = MakeVar("k", kI32);  // used only in the body
  Stmt loop = Serial(i, n, MakeBufferStore(b.buffer, MakeBufferLoad(a.buffer, {i, k}), {i, I(0)}));
  PrimFunc f =
      Func({a, b}, {}, MakeSeq({Eval(I(0)), Serial(i, I(2), Eval(i)), loop}), Symbol("main"));
  QCOMPARE(Q(script::PrintPrimFunc(f, {false})), Q(R"py(@T.prim_func
def main(A: T.Buffer(("n", n + 1), "float32"), B: T.Buffer((n, "m"), "float32")):
    n = T.int32()
    m = T.int32()
    for i in range(2):
        T.evaluate(i)
    for i in range(n):
        k = T.int32()
        B[i, 0] = A[i, k])py"));
}

void TstPrinter::symbolicInt64Shapes() {
  Var n = MakeVar("n", kI64);
  Param a = BufParam("A", {n, mul(n, MakeIntImm(kI64, 2))});
  Var i = MakeVar("i", kI64);
  Stmt loop = MakeFor(i, MakeIntImm(kI64, 0), n, ForKind::kSerial,
                      MakeBufferStore(a.buffer, F(0.0), {i, MakeIntImm(kI64, 0)}));
  PrimFunc f = Func({a}, {}, loop, Symbol("main"));
  QCOMPARE(Q(script::PrintPrimFunc(f)), Q(R"py(# from typing import TypeVar
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

n = TypeVar("n")
@T.prim_func
def main(A: T.Buffer((n, "n * T.int64(2)"), "float32")):
    for i in range(n):
        A[i, T.int64(0)] = T.float32(0.0))py"));
}

void TstPrinter::literals() {
  double inf = std::numeric_limits<double>::infinity();
  std::vector<Stmt> s{
      Eval(I(5)),
      Eval(I(-1)),
      Eval(MakeIntImm(kI64, 4)),
      Eval(MakeIntImm(DataType::UInt(8), 3)),
      Eval(MakeIntImm(DataType::Bool(), 1)),
      Eval(MakeIntImm(DataType::Bool(), 0)),
      Eval(F(1.0)),
      Eval(F(-0.0)),
      Eval(F(0.1)),
      Eval(F(0.5, DataType::Float(16))),
      Eval(F(1e-5, DataType::Float(64))),
      Eval(F(1e20)),
      Eval(F(inf)),
      Eval(F(-inf)),
      Eval(F(std::nan(""))),
      Eval(F(1.0, DataType::BFloat(16))),
      Eval(MakeStringImm("a\"b\\c\n\xc3\xa9")),
  };
  PrimFunc f = Func({}, {}, RawSeq(s), Symbol("main"));
  QCOMPARE(Q(script::PrintPrimFunc(f, {false})), Q(R"py(@T.prim_func
def main():
    T.evaluate(5)
    T.evaluate(-1)
    T.evaluate(T.int64(4))
    T.evaluate(T.uint8(3))
    T.evaluate(T.bool(True))
    T.evaluate(T.bool(False))
    T.evaluate(T.float32(1.0))
    T.evaluate(T.float32(-0.0))
    T.evaluate(T.float32(0.10000000000000001))
    T.evaluate(T.float16(0.5))
    T.evaluate(T.float64(1.0000000000000001e-05))
    T.evaluate(T.float32(100000000000000000000.0))
    T.evaluate(T.float32("inf"))
    T.evaluate(T.float32("-inf"))
    T.evaluate(T.float32("nan"))
    T.evaluate(T.bfloat16(1.0))
    T.evaluate("a\"b\\c\n\xc3\xa9"))py"));
}

void TstPrinter::precedenceAndFolding() {
  Var x = MakeVar("x", kI32), y = MakeVar("y", kI32), z = MakeVar("z", kI32);
  Var f = MakeVar("f", kF32);
  auto B = [](ir::TypeIndex k, PrimExpr a, PrimExpr b) { return MakeBinary(k, a, b); };
  using K = ir::TypeIndex;
  PrimExpr lt = less(x, y), lt2 = less(y, z), eq = equal(x, z);
  std::vector<PrimExpr> exprs{
      mul(add(x, y), z),
      sub(x, sub(y, z)),
      add(x, add(y, z)),
      add(add(x, y), z),
      add(mul(x, y), z),
      B(K::kAdd, x, I(0)),
      B(K::kAdd, I(3), I(4)),
      B(K::kMul, x, I(1)),
      floordiv(x, I(2)),
      floormod(x, I(2)),
      B(K::kDiv, x, y),
      B(K::kMod, x, y),
      min(x, y),
      max(x, y),
      logical_not(logical_and(lt, lt2)),
      logical_or(logical_and(lt, lt2), eq),
      logical_and(logical_or(lt, lt2), eq),
      MakeNot(MakeIntImm(DataType::Bool(), 1)),
      MakeCast(kF32, x),
      MakeSelect(lt, x, y),
      div(f, f),
      B(K::kAdd, x, MakeIntImm(kI64, 1)),
      floordiv(add(x, y), sub(x, y)),
      MakeRamp(x, I(1), 4),
      MakeBroadcast(f, 4),
  };
  std::vector<Stmt> s;
  for (auto& e : exprs) s.push_back(Eval(e));
  s.push_back(Eval(MakeCall(kF32, GetOp("tirx.exp"), {f})));
  s.push_back(Eval(MakeCall(kI32, GetOp("tirx.call_extern"), {MakeStringImm("foo"), x})));
  s.push_back(Eval(MakeCall(DataType::Handle(), GetOp("tirx.tvm_struct_get"), {x, I(0), I(1)})));
  s.push_back(Eval(MakeCall(kI32, GetOp("tirx.tvm_call_packed"), {MakeStringImm("f"), x})));
  PrimFunc fn = Func({}, {x, y, z, f}, MakeSeq(s), Symbol("main"));
  QCOMPARE(Q(script::PrintPrimFunc(fn, {false})), Q(R"py(@T.prim_func
def main(x: T.int32, y: T.int32, z: T.int32, f: T.float32):
    T.evaluate((x + y) * z)
    T.evaluate(x - (y - z))
    T.evaluate(x + (y + z))
    T.evaluate(x + y + z)
    T.evaluate(x * y + z)
    T.evaluate(T.Add(x, 0))
    T.evaluate(T.Add(3, 4))
    T.evaluate(T.Mul(x, 1))
    T.evaluate(x // 2)
    T.evaluate(x % 2)
    T.evaluate(T.Div(x, y))
    T.evaluate(T.truncmod(x, y))
    T.evaluate(T.min(x, y))
    T.evaluate(T.max(x, y))
    T.evaluate(not (x < y and y < z))
    T.evaluate(x < y and y < z or x == z)
    T.evaluate((x < y or y < z) and x == z)
    T.evaluate(T.Not(T.bool(True)))
    T.evaluate(T.Cast("float32", x))
    T.evaluate(T.Select(x < y, x, y))
    T.evaluate(f / f)
    T.evaluate(T.Add(x, T.int64(1)))
    T.evaluate((x + y) // (x - y))
    T.evaluate(T.Ramp(x, 1, 4))
    T.evaluate(T.Broadcast(f, 4))
    T.exp(f)
    T.call_extern("int32", "foo", x)
    T.tvm_struct_get(x, 0, 1, "handle")
    T.call_packed("f", x))py"));
}

void TstPrinter::nameCollisions() {
  Param a = BufParam("A", {I(4)});
  Buffer a2 = MakeBuffer("A", {I(4)}, kF32);
  Var t = MakeVar("T", kI32), dotted = MakeVar("a.b", kI32), empty = MakeVar("", kI32);
  Var i1 = MakeVar("i", kI32), i2 = MakeVar("i", kI32), i3 = MakeVar("i", kI32);
  Stmt nested = Serial(i2, I(4), Serial(i3, I(4), Eval(add(i2, i3))));
  Stmt sibling = Serial(i1, I(4), MakeBufferStore(a2, MakeBufferLoad(a.buffer, {i1}), {i1}));
  PrimFunc f = Func({a}, {t, dotted, empty}, MakeSeq({MakeAllocBuffer(a2), sibling, nested}),
                    Symbol("main"));
  QCOMPARE(Q(script::PrintPrimFunc(f, {false})), Q(R"py(@T.prim_func
def main(A: T.Buffer((4,), "float32"), T_1: T.int32, a_b: T.int32, v: T.int32):
    A_1 = T.alloc_buffer((4,))
    for i in range(4):
        A_1[i] = A[i]
    for i, i_1 in T.grid(4, 4):
        T.evaluate(i + i_1))py"));
}

void TstPrinter::flatStatementsAndAttrs() {
  Param a = BufParam("A", {I(16)});
  Var n = MakeVar("n", kI32), x = MakeVar("x", kI32);
  Buffer shared = MakeBuffer("S", {I(16)}, DataType::Float(16), Scoped("shared"));
  Buffer local = MakeBuffer("L", {I(2)}, kF32, Scoped("local"));
  Stmt body = MakeSeq({
      MakeBind(x, add(n, I(1))),
      MakeAssertStmt(greater(x, I(0)), "RuntimeError", {"x must be positive"}),
      MakeAllocBuffer(shared),
      MakeAllocBuffer(local),
      MakeAttrStmt(I(0), "k1", I(1), MakeAttrStmt(I(0), "k2", I(2), Eval(x))),
      MakeIfThenElse(less(x, I(4)), MakeBufferStore(a.buffer, F(1.0), {x}),
                     MakeIfThenElse(less(x, I(8)), Eval(I(1)), Eval(I(2)))),
      MakeWhile(less(x, I(3)), MakeBreak()),
      MakeBind(x, I(7)),
      MakeAttrStmt(a.buffer->data, "storage_alignment", I(16),
                   MakeBufferStore(a.buffer, MakeBufferLoad(shared, {I(0)}), {I(0)})),
  });
  PrimFunc f = Func({a}, {n}, body, {});
  QCOMPARE(Q(script::PrintPrimFunc(f, {false})), Q(R"py(@T.prim_func(private=True)
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    x: T.let[T.int32] = n + 1
    assert x > 0, ("RuntimeError", ["x must be positive"])
    S = T.alloc_shared((16,), "float16")
    L = T.alloc_local((2,))
    with T.attr({"k1": 1, "k2": 2}):
        T.evaluate(x)
    if x < 4:
        A[x] = T.float32(1.0)
    else:
        if x < 8:
            T.evaluate(1)
        else:
            T.evaluate(2)
    while x < 3:
        break
    x = 7
    T.attr(A.data, "storage_alignment", 16)
    A[0] = S[0])py"));
}

void TstPrinter::scalarBuffersAndReturn() {
  Param a = BufParam("A", {I(16)}, kI32);
  Buffer t = MakeBuffer("t", {I(1)}, kI32, Scoped("local"));
  Buffer u = MakeBuffer("u", {I(1)}, kI32, Scoped("local"));
  Buffer s = MakeBuffer("s", {I(1)}, kI32, Scoped("shared"));
  Stmt body = MakeSeq({
      MakeAllocBuffer(t),
      MakeBufferStore(t, I(-1), {I(0)}),
      MakeAllocBuffer(u),
      MakeBufferStore(u, add(MakeBufferLoad(u, {I(0)}), I(1)), {I(0)}),
      MakeAllocBuffer(s),
      MakeBufferStore(a.buffer, MakeBufferLoad(t, {I(0)}), {I(0)}),
      Eval(MakeCall(kI32, GetOp("tirx.address_of"), {MakeBufferLoad(s, {I(0)})})),
      Eval(MakeCall(kI32, GetOp("tirx.call_extern"), {MakeStringImm("f"), t->data})),
      Eval(MakeCall(kI32, GetOp("tirx.ret"), {MakeBufferLoad(u, {I(0)})})),
  });
  PrimFunc f = Func({a}, {}, body, {});
  QCOMPARE(Q(script::PrintPrimFunc(f, {false})), Q(R"py(@T.prim_func(private=True)
def main(A: T.Buffer((16,), "int32")):
    t: T.int32 = -1
    u: T.int32
    u = u + 1
    s = T.alloc_shared((1,), "int32")
    A[0] = t
    T.address_of(s[0])
    T.call_extern("int32", "f", t.buffer.data)
    return u)py"));
}

void TstPrinter::moduleOrderingAndCalls() {
  auto make = [](const std::string& name, bool is_private, Stmt body) {
    Param a = BufParam("A", {I(16)});
    return Func({a}, {}, std::move(body), is_private ? ir::AttrMap{} : Symbol(name));
  };
  PrimFunc helper = make("a_func", true, Eval(I(0)));
  PrimFunc other = make("b_func", false, Eval(I(0)));
  Param a = BufParam("A", {I(16)});
  ir::GlobalVar gv_a = ir::MakeGlobalVar("a_func"), gv_b = ir::MakeGlobalVar("b_func"),
                gv_main = ir::MakeGlobalVar("main");
  ir::AttrMap main_attrs = Symbol("main");
  main_attrs["tirx.persistent_kernel"] = ir::MakeBool(true);
  PrimFunc main = Func({a}, {}, Eval(MakeCall(kI32, gv_a, {a.buffer->data, I(16)})), main_attrs);
  ir::IRModule mod = ir::MakeIRModule({gv_main, gv_b, gv_a}, {main, other, helper},
                                      {{"device", ir::MakeString("cpu")}});
  QCOMPARE(Q(script::PrintModule(mod)), Q(R"py(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    I.module_attrs({"device": "cpu"})
    @T.prim_func(private=True)
    def a_func(A: T.Buffer((16,), "float32")):
        T.evaluate(0)

    @T.prim_func
    def b_func(A: T.Buffer((16,), "float32")):
        T.evaluate(0)

    @T.prim_func(persistent=True)
    def main(A: T.Buffer((16,), "float32")):
        Module.a_func(A.data, 16))py"));
}

void TstPrinter::neverThrowsOnOddIR() {
  // Null pieces everywhere: the printer gives a best-effort text instead of failing.
  Var v = MakeVar("v", kI32);
  Stmt odd = MakeSeq({MakeFor(v, I(0), I(4), ForKind::kThreadBinding, Eval(v)),
                      MakeAttrStmt(ObjectRef(), "k", PrimExpr(), Eval(I(0)))});
  PrimFunc f = MakePrimFunc({v}, {}, odd);
  std::string text = script::PrintPrimFunc(f, {false});
  QVERIFY(text.find("T.thread_binding(4, thread=\"\")") != std::string::npos);
  QVERIFY(text.find("T.attr(None, \"k\", None)") != std::string::npos);
  QCOMPARE(Q(script::PrintModule(ir::IRModule())), QString());
}

void TstPrinter::declBufferViewSugar() {
  // A DeclBuffer over P.data prints as P.view(...) exactly when the parser's view would build it
  // back (TVMSCRIPT.md); every other view stays T.decl_buffer(..., data=P.data).
  const char* source = R"py(@T.prim_func
def f(A: T.Buffer((256,), "float32"), B: T.Buffer((16, 16), "int8")):
    C = A.view("float16")
    D = A.view(16, 16)
    E = T.decl_buffer((256,), data=A.data)
    G = T.decl_buffer((100,), "float64", data=A.data)
    H = T.decl_buffer((16, 16), data=A.data, strides=(16, 1))
    K = B.view("int32")
    L = B.view(T.int64(256))
    T.evaluate(C[0] + T.float16(1.0))
    T.evaluate(D[0, 0] + E[0] + T.float32(G[0]) + H[0, 0] + T.float32(K[0, 0] + L[0]))
)py";
  auto parsed = script::Parse(source, "views.py");
  QVERIFY2(parsed.ok(), RenderDiagnostics(parsed.diagnostics).c_str());
  std::string text = script::Print(parsed);
  auto has = [&](const char* line) {
    return text.find(std::string("    ") + line + "\n") != std::string::npos;
  };
  QVERIFY2(has("C = A.view(\"float16\")"), text.c_str());
  QVERIFY2(has("D = A.view(16, 16)"), text.c_str());
  QVERIFY2(has("E = T.decl_buffer((256,), data=A.data)"), text.c_str());
  QVERIFY2(has("G = T.decl_buffer((100,), \"float64\", data=A.data)"), text.c_str());
  QVERIFY2(text.find("H = T.decl_buffer((16, 16), data=A.data, strides=(16, 1))") != std::string::npos,
           text.c_str());
  QVERIFY2(has("K = B.view(\"int32\")"), text.c_str());
  QVERIFY2(has("L = B.view(T.int64(256))"), text.c_str());
  auto again = script::Parse(text, "views.py");
  QVERIFY2(again.ok(), RenderDiagnostics(again.diagnostics).c_str());
  QCOMPARE(Q(script::Print(again)), Q(text));
}

QTEST_GUILESS_MAIN(TstPrinter)
#include "tst_printer.moc"
