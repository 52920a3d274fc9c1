// The TVMScript parser: IR shape of representative TensorIR programs, and the exact diagnostic
// (message, line, column) of malformed ones.
#include <QTest>

#include <chrono>
#include <limits>
#include <string>

#include "ir/structural_equal.h"
#include "relax/expr.h"
#include "script/tvmscript.h"
#include "tir/stmt.h"

using namespace wb;
using namespace wb::tir;

namespace {

std::string Diags(const script::ParseResult& r) { return RenderDiagnostics(r.diagnostics); }

PrimFunc FirstFunc(const script::ParseResult& r) {
  if (!r.module.defined() || r.module->functions.empty()) return PrimFunc();
  return Downcast<PrimFuncNode>(r.module->functions[0]);
}

// The statements of a body, looking through a root block and a top-level sequence.
std::vector<Stmt> Flatten(Stmt s) {
  if (auto* r = s.as<SBlockRealizeNode>(); r && r->block->name_hint == "root") s = r->block->body;
  if (auto* seq = s.as<SeqStmtNode>()) return seq->seq;
  return {s};
}

template <typename T>
const T* Find(const Stmt& s) {
  if (auto* t = s.as<T>()) return t;
  if (auto* seq = s.as<SeqStmtNode>()) {
    for (const auto& c : seq->seq)
      if (auto* t = Find<T>(c)) return t;
  }
  if (auto* f = s.as<ForNode>()) return Find<T>(f->body);
  if (auto* r = s.as<SBlockRealizeNode>()) {
    if (auto* t = Find<T>(r->block->body)) return t;
    if (r->block->init.defined()) return Find<T>(r->block->init);
  }
  if (auto* a = s.as<AttrStmtNode>()) return Find<T>(a->body);
  if (auto* i = s.as<IfThenElseNode>()) {
    if (auto* t = Find<T>(i->then_case)) return t;
    if (i->else_case.defined()) return Find<T>(i->else_case);
  }
  if (auto* w = s.as<WhileNode>()) return Find<T>(w->body);
  return nullptr;
}

const SBlockNode* FindBlock(const Stmt& s, const std::string& name) {
  if (auto* r = s.as<SBlockRealizeNode>()) {
    if (r->block->name_hint == name) return r->block.get();
    if (auto* b = FindBlock(r->block->body, name)) return b;
    return nullptr;
  }
  if (auto* seq = s.as<SeqStmtNode>()) {
    for (const auto& c : seq->seq)
      if (auto* b = FindBlock(c, name)) return b;
  }
  if (auto* f = s.as<ForNode>()) return FindBlock(f->body, name);
  if (auto* a = s.as<AttrStmtNode>()) return FindBlock(a->body, name);
  if (auto* i = s.as<IfThenElseNode>()) return FindBlock(i->then_case, name);
  return nullptr;
}

int64_t Const(const PrimExpr& e) {
  const int64_t* v = AsConstInt(e);
  return v ? *v : -999999;
}

}  // namespace

class TstParser : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void matmulModule();
  void standaloneFunctions();
  void symbolicShapes();
  void handleAndMatchBuffer();
  void matchBufferShapes();
  void loopKinds();
  void inferredRegions();
  void inferredRegionsUnionOffsets();
  void inferredRegionsSkipOwnAllocations();
  void statements();
  void expressions();
  void threads();
  void scalarLocals();
  void kitchenSink();
  void sliceRampsAndExtents();
  void typeVars();
  void bindScalarsDeviceEntry();
  void bufferViews();
  void moduleCallDtype();
  void singleAxisRemap();
  void accessPtrAndFragments();
  void malformed_data();
  void malformed();
  void neverCrashes();
  void parseSpeed();
  void pythonLexingAndPrecedence();
  void syntaxErrorsRecoverPerStatement();
  void functionWithAnErrorIsRecovered();
  void relaxFunctionWithAnErrorIsRecovered();
  void int64MinLiteral();
  void relaxConstOfAFloatOutOfIntRange();
  void splatArguments();
  void ceildivImmsAndMetaVar();
  void targetsAreTheirText();
};

void TstParser::matmulModule() {
  const char* src = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class MyMod:
    @T.prim_func(s_tir=True)
    def matmul(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vj, vk])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]

    @T.prim_func(private=True)
    def helper(x: T.handle, n: T.int32):
        T.evaluate(MyMod.matmul(x, n))
)";
  auto r = script::Parse(src, "mm.py");
  QVERIFY2(r.ok(), Diags(r).c_str());
  QVERIFY(r.is_module);
  QCOMPARE(r.module->functions.size(), size_t(2));
  // A module keeps its functions sorted by name.
  QCOMPARE(r.module->global_vars[0]->name_hint, std::string("helper"));
  PrimFunc f = Downcast<PrimFuncNode>(r.module->Lookup("matmul"));
  QCOMPARE(f->params.size(), size_t(3));
  QVERIFY(f->buffer_map[0].defined());
  QCOMPARE(f->buffer_map[0]->name, std::string("A"));
  QCOMPARE(f->buffer_map[0]->shape.size(), size_t(2));
  QVERIFY(f->params[0]->dtype.is_handle());
  QVERIFY(!f->params[0].same_as(f->buffer_map[0]->data));
  QVERIFY(f->GetAttr("global_symbol"));
  QVERIFY(f->GetAttr("s_tir"));
  QVERIFY(f->GetAttr("tir.noalias"));
  auto* root = f->body.as<SBlockRealizeNode>();
  QVERIFY(root);
  QCOMPARE(root->block->name_hint, std::string("root"));
  auto* loop = root->block->body.as<ForNode>();
  QVERIFY(loop);
  QCOMPARE(Const(loop->extent), int64_t(128));
  QVERIFY(loop->body.as<ForNode>()->body.as<ForNode>());
  const SBlockNode* c = FindBlock(f->body, "C");
  QVERIFY(c);
  QCOMPARE(c->iter_vars.size(), size_t(3));
  QCOMPARE(c->iter_vars[2]->iter_type, IterVarType::kCommReduce);
  QCOMPARE(c->reads.size(), size_t(2));
  QCOMPARE(c->writes.size(), size_t(1));
  QVERIFY(c->init.defined());
  auto* store = c->body.as<BufferStoreNode>();
  QVERIFY(store);
  QVERIFY(store->value.as<AddNode>());
  PrimFunc helper = Downcast<PrimFuncNode>(r.module->Lookup("helper"));
  QVERIFY(!helper->GetAttr("global_symbol"));
  auto* ev = helper->body.as<EvaluateNode>();
  QVERIFY(ev);
  auto* call = ev->value.as<CallNode>();
  QVERIFY(call && call->op.as<ir::GlobalVarNode>());
}

void TstParser::standaloneFunctions() {
  const char* src = R"(
@T.prim_func
def f(A: T.Buffer(16, "int8")):
    for i in range(16):
        A[i] = T.int8(1)

@T.prim_func
def g(A: T.Buffer[(16,), "int8"], B: T.Buffer(shape=[4, 4], dtype="float16", scope="shared", align=16, offset_factor=2)):
    T.evaluate(0)
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  QVERIFY(!r.is_module);
  QCOMPARE(r.module->functions.size(), size_t(2));
  PrimFunc g = Downcast<PrimFuncNode>(r.module->functions[1]);
  QCOMPARE(g->buffer_map[0]->dtype, DataType::Int(8));
  QCOMPARE(g->buffer_map[1]->scope(), std::string("shared"));
  QCOMPARE(g->buffer_map[1]->data_alignment, int64_t(16));
  QCOMPARE(g->buffer_map[1]->offset_factor, int64_t(2));
  QCOMPARE(g->buffer_map[1]->dtype, DataType::Float(16));
}

void TstParser::symbolicShapes() {
  const char* src = R"(
n = TypeVar("n")

@T.prim_func
def f(A: T.Buffer(("m", "m * 4"), "float32"), B: T.Buffer((n,), "float32"), k: T.int64, C: T.Buffer(("k",), "float32")):
    m = T.int32()
    for i in range(m):
        A[i, 0] = B[i]
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  PrimFunc f = FirstFunc(r);
  auto* m = f->buffer_map[0]->shape[0].as<VarNode>();
  QVERIFY(m);
  QCOMPARE(m->name_hint, std::string("m"));
  QVERIFY(f->buffer_map[0]->shape[1].as<MulNode>());
  QCOMPARE(f->buffer_map[1]->shape[0]->dtype, DataType::Int(64));
  // The quoted "k" takes the scalar parameter's dtype and is that parameter.
  QVERIFY(f->buffer_map[3]->shape[0].same_as(f->params[2]));
  QCOMPARE(f->params[2]->dtype, DataType::Int(64));
  auto* loop = f->body.as<ForNode>();
  QVERIFY(loop);
  QVERIFY(loop->extent.same_as(f->buffer_map[0]->shape[0]));
}

void TstParser::handleAndMatchBuffer() {
  const char* src = R"(
@T.prim_func
def f(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (8, 8), "float32")
    B = T.match_buffer(b, [64], dtype="int32", offset_factor=4)
    with T.sblock("root"):
        for i in range(8):
            with T.sblock("copy"):
                vi = T.axis.spatial(8, i)
                sub = T.match_buffer(A[vi, 0:8], (8,))
                for j in range(8):
                    B[vi * 8 + j] = T.Cast("int32", sub[j])
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  PrimFunc f = FirstFunc(r);
  QCOMPARE(f->params[0]->name_hint, std::string("a"));
  QCOMPARE(f->buffer_map[0]->name, std::string("A"));
  // The legacy handle takes the buffer's pointer type, as a T.Buffer parameter would.
  auto* ptr = f->params[1]->type_annotation.as<ir::PointerTypeNode>();
  QVERIFY(ptr);
  auto* elem = ptr->element_type.as<ir::PrimTypeNode>();
  QVERIFY(elem);
  QCOMPARE(elem->dtype, DataType::Int(32));
  QVERIFY(f->buffer_map[1]->elem_offset.as<VarNode>());
  auto* root = f->body.as<SBlockRealizeNode>();
  QVERIFY(root && root->block->name_hint == "root");
  const SBlockNode* copy = FindBlock(f->body, "copy");
  QVERIFY(copy);
  QCOMPARE(copy->match_buffers.size(), size_t(1));
  QCOMPARE(Const(copy->match_buffers[0]->source->region[1]->extent), int64_t(8));
  // Inferred: reads A through the match buffer's source region, writes B[vi*8 : vi*8+8].
  QCOMPARE(copy->reads.size(), size_t(1));
  QCOMPARE(copy->reads[0]->buffer->name, std::string("A"));
  QCOMPARE(copy->writes.size(), size_t(1));
  QCOMPARE(Const(copy->writes[0]->region[0]->extent), int64_t(8));
  QVERIFY(copy->writes[0]->region[0]->min.as<MulNode>());
}

// A region's match without a shape takes every extent of the region, unit ones included (TVM's
// builder); `()` or `[]` is a 0-d buffer indexed with `[()]`; and the printed text parses back to
// the same shapes.
void TstParser::matchBufferShapes() {
  const char* src = R"(
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        with T.sblock("scalar"):
            vi, vj = T.axis.remap("SS", [i, j])
            s = T.match_buffer(A[vi, vj], [], offset_factor=1)
            t = T.match_buffer(C[vi, vj], ())
            t[()] = s[()] * T.float32(2)
    for i in range(4):
        with T.sblock("row"):
            vi = T.axis.spatial(4, i)
            r = T.match_buffer(C[vi, 0:8])
            r[0, 0] = r[0, 0] + T.float32(1)
)";
  for (int round = 0; round < 2; ++round) {
    auto r = script::Parse(round == 0 ? std::string(src) : script::Print(script::Parse(src)));
    QVERIFY2(r.ok(), Diags(r).c_str());
    PrimFunc f = FirstFunc(r);
    const SBlockNode* scalar = FindBlock(f->body, "scalar");
    QVERIFY(scalar);
    QCOMPARE(scalar->match_buffers.size(), size_t(2));
    QCOMPARE(scalar->match_buffers[0]->buffer->shape.size(), size_t(0));
    QCOMPARE(scalar->match_buffers[1]->buffer->shape.size(), size_t(0));
    const SBlockNode* row = FindBlock(f->body, "row");
    QVERIFY(row);
    const auto& shape = row->match_buffers[0]->buffer->shape;
    QCOMPARE(shape.size(), size_t(2));
    QCOMPARE(Const(shape[0]), int64_t(1));
    QCOMPARE(Const(shape[1]), int64_t(8));
  }
  // Indexing the 0-d match with a subscript is the ordinary dimension error.
  auto bad = script::Parse(R"(
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i)
            s = T.match_buffer(A[vi], ())
            s[0] = T.float32(1)
)");
  QVERIFY(!bad.ok());
  QVERIFY2(Diags(bad).find("has 0 dimensions but is indexed with 1") != std::string::npos, Diags(bad).c_str());
}

void TstParser::loopKinds() {
  const char* src = R"(
@T.prim_func
def f(A: T.Buffer((64,), "float32")):
    for i in T.parallel(4):
        for j in T.vectorized(2, 6):
            for k in T.unroll(0, 4, step=2):
                for t in T.thread_binding(0, 2, thread="threadIdx.x"):
                    for u in T.serial(2, annotations={"pragma": 1}, unroll=True):
                        for w in T.serial(T.int64(2)):
                            A[i] = T.float32(0)
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  auto* l0 = FirstFunc(r)->body.as<ForNode>();
  QCOMPARE(l0->kind, ForKind::kParallel);
  auto* l1 = l0->body.as<ForNode>();
  QCOMPARE(l1->kind, ForKind::kVectorized);
  QCOMPARE(Const(l1->min), int64_t(2));
  QCOMPARE(Const(l1->extent), int64_t(4));
  auto* l2 = l1->body.as<ForNode>();
  QCOMPARE(l2->kind, ForKind::kUnrolled);
  QCOMPARE(Const(l2->step), int64_t(2));
  auto* l3 = l2->body.as<ForNode>();
  QCOMPARE(l3->kind, ForKind::kThreadBinding);
  QCOMPARE(l3->thread_binding->thread_tag, std::string("threadIdx.x"));
  auto* l4 = l3->body.as<ForNode>();
  QVERIFY(l4->annotations.count("pragma"));
  QVERIFY(l4->annotations.count("pragma_unroll"));
  auto* l5 = l4->body.as<ForNode>();
  QCOMPARE(l5->loop_var->dtype, DataType::Int(64));
}

void TstParser::inferredRegions() {
  const char* src = R"(
@T.prim_func
def f(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        with T.sblock("sum"):
            vi = T.axis.spatial(4, i)
            for k in range(16):
                B[vi * 4] = B[vi * 4] + A[vi * 4 + k // 4, k]
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  const SBlockNode* b = FindBlock(FirstFunc(r)->body, "sum");
  QVERIFY(b);
  QCOMPARE(b->reads.size(), size_t(2));
  QCOMPARE(b->reads[0]->buffer->name, std::string("B"));
  QCOMPARE(Const(b->reads[0]->region[0]->extent), int64_t(1));
  QCOMPARE(b->reads[1]->buffer->name, std::string("A"));
  QCOMPARE(Const(b->reads[1]->region[0]->extent), int64_t(4));
  QCOMPARE(Const(b->reads[1]->region[1]->min), int64_t(0));
  QCOMPARE(Const(b->reads[1]->region[1]->extent), int64_t(16));
  QCOMPARE(b->writes.size(), size_t(1));
}

// Accesses of one expression at constant offsets unite into one range from the smallest offset,
// as TVM's interval union gives; accesses of unrelated expressions still cover the dimension.
void TstParser::inferredRegionsUnionOffsets() {
  const char* src = R"(
@T.prim_func(s_tir=True)
def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16,), "float32")):
    for i in range(14):
        with T.sblock("c"):
            vi = T.axis.spatial(14, i)
            C[vi] = A[vi + 1] + A[vi] + A[vi + 2] + B[vi - 1, vi] + B[vi + 1, 3 * vi]
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  const SBlockNode* b = FindBlock(FirstFunc(r)->body, "c");
  QVERIFY(b);
  QCOMPARE(b->reads.size(), size_t(2));
  const BufferRegion& a = b->reads[0];
  QCOMPARE(a->buffer->name, std::string("A"));
  QVERIFY(a->region[0]->min.same_as(b->iter_vars[0]->var));
  QCOMPARE(Const(a->region[0]->extent), int64_t(3));
  const BufferRegion& bb = b->reads[1];
  auto* lo = bb->region[0]->min.as<SubNode>();
  QVERIFY(lo && lo->a.same_as(b->iter_vars[0]->var) && Const(lo->b) == 1);
  QCOMPARE(Const(bb->region[0]->extent), int64_t(3));
  QCOMPARE(Const(bb->region[1]->min), int64_t(0));  // vi and 3 * vi: the whole dimension
  QCOMPARE(Const(bb->region[1]->extent), int64_t(16));
}

// A buffer the block allocates is internal to it: neither its own accesses nor those of the
// blocks nested in it (with their T.reads / T.writes) appear among its regions.
void TstParser::inferredRegionsSkipOwnAllocations() {
  const char* src = R"(
@T.prim_func(s_tir=True)
def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for o in range(4):
        with T.sblock("outer"):
            vo = T.axis.spatial(4, o)
            L = T.sblock_alloc_buffer((4,), scope="local")
            for x in range(4):
                with T.sblock("load"):
                    vx = T.axis.spatial(4, x)
                    T.reads(A[vo * 4 + vx])
                    T.writes(L[vx])
                    L[vx] = A[vo * 4 + vx]
            for x in range(4):
                with T.sblock("store"):
                    vx = T.axis.spatial(4, x)
                    T.reads(L[vx])
                    T.writes(B[vo * 4 + vx])
                    B[vo * 4 + vx] = L[vx] + T.float32(1.0)
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  const SBlockNode* b = FindBlock(FirstFunc(r)->body, "outer");
  QVERIFY(b);
  QCOMPARE(b->reads.size(), size_t(1));
  QCOMPARE(b->reads[0]->buffer->name, std::string("A"));
  QCOMPARE(Const(b->reads[0]->region[0]->extent), int64_t(4));
  QCOMPARE(b->writes.size(), size_t(1));
  QCOMPARE(b->writes[0]->buffer->name, std::string("B"));
}

void TstParser::statements() {
  const char* src = R"(
@T.prim_func
def f(A: T.Buffer((16,), "int32"), n: T.int32):
    B = T.alloc_buffer((16,), "int32", scope="shared")
    C = T.decl_buffer((16,), "int32", data=B.data)
    D = T.decl_buffer((4,), "int32")
    x: T.let[T.int32] = n + 1
    assert n > 0, "n must be positive"
    assert n < 100, ("ValueError", ["too", "big"])
    if n > 4:
        A[0] = 1
    elif n > 2:
        A[0] = 2
    else:
        A[0] = 3
    while A[0] < 10:
        A[0] += 1
        if A[0] == 5:
            break
        continue
    for i in range(16):
        A[i] = T.if_then_else(i < x, A[i], 0)
    T.attr(0, "pragma_key", 1)
    T.evaluate(T.call_extern("int32", "puts", A.data))
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  auto stmts = Flatten(FirstFunc(r)->body);
  QVERIFY(stmts.size() >= 9);
  QVERIFY(stmts[0].as<AllocBufferNode>());
  QCOMPARE(stmts[0].as<AllocBufferNode>()->buffer->scope(), std::string("shared"));
  QVERIFY(stmts[1].as<DeclBufferNode>());
  QVERIFY(stmts[2].as<AllocBufferNode>());
  QVERIFY(stmts[3].as<BindNode>());
  auto* a1 = stmts[4].as<AssertStmtNode>();
  QVERIFY(a1);
  QCOMPARE(a1->error_kind->value, std::string("RuntimeError"));
  auto* a2 = stmts[5].as<AssertStmtNode>();
  QCOMPARE(a2->error_kind->value, std::string("ValueError"));
  QCOMPARE(a2->message_parts.size(), size_t(2));
  auto* ite = stmts[6].as<IfThenElseNode>();
  QVERIFY(ite && ite->else_case.as<IfThenElseNode>());
  QVERIFY(stmts[7].as<WhileNode>());
  QVERIFY(stmts[8].as<ForNode>());
  auto* attr = stmts[9].as<AttrStmtNode>();
  QVERIFY(attr);
  QCOMPARE(attr->attr_key, std::string("pragma_key"));
  QVERIFY(attr->body.as<EvaluateNode>());
}

void TstParser::expressions() {
  const char* src = R"(
@T.prim_func
def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "int32"), n: T.int32):
    A[0] = T.exp(A[1]) + T.max(A[2], 0) * 2
    A[1] = T.Select(n < 3, A[0], T.float32("inf"))
    B[0] = T.floordiv(n, 4) + n % 3 + T.truncmod(n, 2) - (n << 1) + (n & 3)
    B[1] = T.Cast("int32", A[0]) if 0 < n < 5 else T.int32(3 + 4)
    A[2] = T.f32(1) / A[3] + T.sqrt(A[4]) ** 2.0
    B[2] = T.Let(x + 1, where={x: n})
    A[0:4] = T.Broadcast(T.float32(0), 4)
    B[3] = T.min(n, 7) if not (n == 1 or n != 2) else -n
)";
  // `x` must be declared before T.Let.
  std::string fixed = std::string(src);
  fixed.replace(fixed.find("    B[2] = T.Let"), 0, "    x = T.int32()\n");
  auto r = script::Parse(fixed);
  QVERIFY2(r.ok(), Diags(r).c_str());
  auto stmts = Flatten(FirstFunc(r)->body);
  auto* s0 = stmts[0].as<BufferStoreNode>();
  QVERIFY(s0 && s0->value.as<AddNode>());
  auto* s3 = stmts[3].as<BufferStoreNode>();
  auto* call = s3->value.as<CallNode>();
  QVERIFY(call);  // if_then_else with a chained comparison
  QVERIFY(call->args[0].as<AndNode>());
  QCOMPARE(Const(call->args[2]), int64_t(7));
  auto* s5 = stmts[5].as<BufferStoreNode>();  // (x decl adds no statement)
  QVERIFY(s5 && s5->value.as<LetNode>());
  auto* s7 = stmts[6].as<BufferStoreNode>();
  QVERIFY(s7 && s7->indices[0].as<RampNode>());
  QCOMPARE(s7->value->dtype.lanes(), 4);
}

void TstParser::threads() {
  const char* src = R"(
@T.prim_func
def f(A: T.Buffer((256,), "float32")):
    tx = T.env_thread("threadIdx.x")
    bx = T.launch_thread("blockIdx.x", 8)
    with T.launch_thread(tx, 32):
        A[bx * 32 + tx] = T.float32(1)
    with T.launch_thread("vthread", 2) as vt:
        A[vt] = T.float32(2)
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  auto* outer = FirstFunc(r)->body.as<AttrStmtNode>();
  QVERIFY(outer);
  QCOMPARE(outer->attr_key, std::string("thread_extent"));
  auto* iv = outer->node.as<IterVarNode>();
  QVERIFY(iv);
  QCOMPARE(iv->thread_tag, std::string("blockIdx.x"));
  QCOMPARE(iv->var->name_hint, std::string("bx"));
  auto stmts = Flatten(outer->body);
  QCOMPARE(stmts.size(), size_t(2));
  QCOMPARE(stmts[0].as<AttrStmtNode>()->node.as<IterVarNode>()->var->name_hint, std::string("tx"));
  QCOMPARE(stmts[1].as<AttrStmtNode>()->attr_key, std::string("virtual_thread"));
}

void TstParser::scalarLocals() {
  const char* src = R"(
@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    acc: T.float32 = T.float32(0)
    for i in range(16):
        acc = acc + A[i]
    A[0] = acc
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  auto stmts = Flatten(FirstFunc(r)->body);
  auto* alloc = stmts[0].as<AllocBufferNode>();
  QVERIFY(alloc);
  QCOMPARE(alloc->buffer->shape.size(), size_t(1));
  QCOMPARE(alloc->buffer->scope(), std::string("local"));
  QVERIFY(stmts[1].as<BufferStoreNode>());
  auto* loop = stmts[2].as<ForNode>();
  auto* st = loop->body.as<BufferStoreNode>();
  QVERIFY(st && st->buffer.same_as(alloc->buffer));
}

void TstParser::kitchenSink() {
  const char* src = R"(@I.ir_module
class Mod:
    I.module_attrs({"device": "cuda"})

    @T.prim_func(private=True, s_tir=True, check_well_formed=False, persistent=True)
    def main(A: T.Buffer((32, 4), "float32"), B: T.Buffer((32,), "float32"), n: T.int32) -> None:
        acc = T.sblock_alloc_buffer((32,), "float32")
        for tx in T.thread_binding(32, "threadIdx.x"):
            for k in T.serial(0, 4, unroll=4):
                with T.sblock("r"):
                    vi = T.axis.S(32, tx)
                    vk = T.axis.reduce((0, 4), k)
                    T.where(tx < 30)
                    T.sblock_attr({"meta_schedule.tiling_structure": "SSR"})
                    with T.init():
                        acc[vi] = T.float32(0)
                    acc[vi] = acc[vi] + A[vi, vk]
        red = T.comm_reducer(lambda x, y: x + y, [T.float32(0)])
        B.vstore([0], T.float32(1))
        T.evaluate(T.address_of(A[0, 0]))
        T.evaluate(T.Shuffle([T.Broadcast(T.float32(1), 4)], [0, 1]))
        x: T.int32
        x = n * 2
        x += 1
        B[1] = T.float32(x) + T.reinterpret("float32", n) + T.call_pure_extern("float32", "g", T.f32(2))
        B[2] = T.float32(T.bool(True)) + T.abs(B[3]) + T.min_value("float32")
        with T.attr(A.data, "storage_alignment", 16):
            B[3] = T.float32(T.int64(4) + n)
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  QVERIFY(r.module->attrs.count("device"));
  PrimFunc f = FirstFunc(r);
  QVERIFY(!f->GetAttr("global_symbol"));
  QVERIFY(f->GetAttr("tirx.persistent_kernel"));
  QCOMPARE(f->params.size(), size_t(3));
  QVERIFY(!f->buffer_map[2].defined());
  auto* root = f->body.as<SBlockRealizeNode>();
  QVERIFY(root);
  QCOMPARE(root->block->alloc_buffers.size(), size_t(1));
  auto* tx = Flatten(f->body)[0].as<ForNode>();
  QVERIFY(tx);
  QCOMPARE(tx->kind, ForKind::kThreadBinding);
  QVERIFY(tx->body.as<ForNode>()->annotations.count("pragma_unroll"));
  const SBlockNode* b = FindBlock(f->body, "r");
  QVERIFY(b);
  QCOMPARE(Const(b->iter_vars[1]->dom->extent), int64_t(4));
  QVERIFY(b->annotations.count("meta_schedule.tiling_structure"));
  // Inferred: A alone; a block with an init does not list what it writes (acc) among its
  // reads, as TVM's access-region detection leaves it out.
  QCOMPARE(b->reads.size(), size_t(1));
  QCOMPARE(b->reads[0]->buffer->name, std::string("A"));
  QCOMPARE(b->writes.size(), size_t(1));
  QCOMPARE(b->writes[0]->buffer->name, std::string("acc"));
}

void TstParser::sliceRampsAndExtents() {
  const char* src = R"(
@T.prim_func
def f(A: T.Buffer((512,), "float32"), B: T.Buffer((256,), "float32"), n: T.int32):
    for i in range(64):
        B[i * 4:i * 4 + 4] = A[i * 8 + 1:i * 8 + 1 + 8:2]
    for j in range(n, n + (64 - n)):
        B[j] = T.float32(0)
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  auto body = Flatten(FirstFunc(r)->body);
  QCOMPARE(body.size(), size_t(2));
  auto* store = body[0].as<ForNode>()->body.as<BufferStoreNode>();
  QVERIFY(store);
  auto* ramp = store->indices[0].as<RampNode>();
  QVERIFY(ramp);
  QCOMPARE(ramp->lanes, 4);
  QCOMPARE(Const(ramp->stride), int64_t(1));
  auto* load = store->value.as<BufferLoadNode>();
  QVERIFY(load);
  auto* lramp = load->indices[0].as<RampNode>();
  QVERIFY(lramp);
  QCOMPARE(lramp->lanes, 4);
  QCOMPARE(Const(lramp->stride), int64_t(2));
  auto* loop = body[1].as<ForNode>();
  QVERIFY(loop);
  auto* ext = loop->extent.as<SubNode>();
  QVERIFY(ext);
  QCOMPARE(Const(ext->a), int64_t(64));
}

void TstParser::typeVars() {
  const char* src = R"(
@I.ir_module
class Module:
    n = TypeVar("n")
    @T.prim_func(private=True)
    def f(A: T.Buffer((n, 4), "float32")):
        A[0, 0] = T.float32(0)

    @T.prim_func(private=True)
    def g[m, k: int](B: T.Buffer((m, k), "float32")):
        B[0, 0] = T.float32(0)
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  QCOMPARE(r.module->functions.size(), size_t(2));
  for (const auto& fn : r.module->functions) {
    PrimFunc f = Downcast<PrimFuncNode>(fn);
    auto* v = f->buffer_map[0]->shape[0].as<VarNode>();
    QVERIFY(v);
    QCOMPARE(v->dtype, DataType::Int(64));
  }
  PrimFunc g = Downcast<PrimFuncNode>(r.module->functions[1]);
  QCOMPARE(g->buffer_map[0]->shape[1].as<VarNode>()->name_hint, std::string("k"));
}

void TstParser::bindScalarsDeviceEntry() {
  const char* src = R"(
@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    T.device_entry()
    w = T.bind(A[0] + A[1])
    u = T.float32()
    T.bind(w * w, var=u)
    d = T.local_scalar("float32")
    d = u
    win: T.float32[4]
    win[1] = d
    A[2] = win[1]
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  auto* attr = FirstFunc(r)->body.as<AttrStmtNode>();
  QVERIFY(attr);
  QCOMPARE(attr->attr_key, std::string("tirx.device_entry"));
  auto body = Flatten(attr->body);
  QCOMPARE(body.size(), size_t(7));
  auto* b0 = body[0].as<BindNode>();
  QVERIFY(b0);
  QCOMPARE(b0->var->name_hint, std::string("w"));
  auto* b1 = body[1].as<BindNode>();
  QVERIFY(b1);
  QCOMPARE(b1->var->name_hint, std::string("u"));
  auto* scalar = body[2].as<AllocBufferNode>();
  QVERIFY(scalar);
  QCOMPARE(scalar->buffer->name, std::string("d"));
  QCOMPARE(Const(scalar->buffer->shape[0]), int64_t(1));
  QVERIFY(body[3].as<BufferStoreNode>());
  auto* arr = body[4].as<AllocBufferNode>();
  QVERIFY(arr);
  QCOMPARE(arr->buffer->scope(), std::string("local"));
  QCOMPARE(Const(arr->buffer->shape[0]), int64_t(4));
}

void TstParser::bufferViews() {
  const char* src = R"(
@T.prim_func
def f(A: T.Buffer((64, 64), "float32"), H: T.Buffer((16,), "float16")):
    A_bits = A.view("uint32")
    A_flat = A.view(4096)
    H_wide = H.view("float32")
    A_flat[1] = T.float32(0)
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  PrimFunc f = FirstFunc(r);
  auto body = Flatten(f->body);
  QCOMPARE(body.size(), size_t(4));
  auto* bits = body[0].as<DeclBufferNode>();
  QVERIFY(bits);
  QCOMPARE(bits->buffer->dtype, DataType::UInt(32));
  QVERIFY(bits->buffer->data.same_as(f->buffer_map[0]->data));
  QCOMPARE(Const(bits->buffer->shape[1]), int64_t(64));
  auto* flat = body[1].as<DeclBufferNode>();
  QVERIFY(flat);
  QCOMPARE(flat->buffer->shape.size(), size_t(1));
  QCOMPARE(Const(flat->buffer->shape[0]), int64_t(4096));
  auto* wide = body[2].as<DeclBufferNode>();
  QVERIFY(wide);
  QCOMPARE(Const(wide->buffer->shape[0]), int64_t(8));
}

// `vi = T.axis.remap("S", [i])` binds the one axis to the name, as `vi, = ...` does.
void TstParser::singleAxisRemap() {
  const char* src = R"(
@T.prim_func(s_tir=True)
def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] * T.float32(2)
    for k in range(8):
        with T.sblock("C"):
            vk, = T.axis.remap("R", [k])
            A[0] = A[0] + B[vk]
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  PrimFunc f = FirstFunc(r);
  const SBlockNode* b = FindBlock(f->body, "B");
  QVERIFY(b);
  QCOMPARE(b->iter_vars.size(), size_t(1));
  QCOMPARE(b->iter_vars[0]->var->name_hint, std::string("vi"));
  QCOMPARE(b->iter_vars[0]->iter_type, IterVarType::kDataPar);
  auto* store = b->body.as<BufferStoreNode>();
  QVERIFY(store && store->indices[0].same_as(b->iter_vars[0]->var));
  const SBlockNode* c = FindBlock(f->body, "C");
  QVERIFY(c && c->iter_vars.size() == 1 && c->iter_vars[0]->iter_type == IterVarType::kCommReduce);
  // Two names for one axis is still an unpacking error.
  auto bad = script::Parse(R"(
@T.prim_func(s_tir=True)
def f(A: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("S", [i])
            A[vi] = T.float32(0)
)");
  QVERIFY(!bad.ok());
  QVERIFY2(Diags(bad).find("cannot unpack 1 values into 2 names") != std::string::npos, Diags(bad).c_str());
}

// TVM's Buffer.access_ptr and the wmma fragment intrinsics: the calls TVM builds, printed and
// read back unchanged.
void TstParser::accessPtrAndFragments() {
  const char* src = R"(
@T.prim_func(s_tir=True)
def f(A: T.Buffer((16, 16), "float16"), B: T.Buffer((16, 16), "float16")):
    for i in range(1):
        with T.sblock("load"):
            T.reads(A[0:16, 0:16])
            T.writes(B[0:16, 0:16])
            T.evaluate(A.access_ptr("r"))
            T.evaluate(B.access_ptr("rw", offset=16, extent=32))
            T.evaluate(T.tvm_fill_fragment(B.data, 16, 16, 16, 0, T.float32(0), dtype="handle"))
            T.evaluate(T.tvm_load_matrix_sync(B.data, 16, 16, 16, 0, A.access_ptr("r"), 16, "row_major", dtype="handle"))
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  PrimFunc f = FirstFunc(r);
  const SBlockNode* b = FindBlock(f->body, "load");
  QVERIFY(b);
  auto* seq = b->body.as<SeqStmtNode>();
  QVERIFY(seq && seq->seq.size() == 4);
  auto call_of = [&](size_t k) { return seq->seq[k].as<EvaluateNode>()->value.as<CallNode>(); };
  const CallNode* ptr = call_of(0);
  QVERIFY(ptr);
  QCOMPARE(std::string(ptr->op.as<ir::OpNode>()->name), std::string("tirx.tvm_access_ptr"));
  QVERIFY(ptr->dtype.is_handle());
  QCOMPARE(ptr->args.size(), size_t(5));
  auto* annotation = ptr->args[0].as<CallNode>();
  QVERIFY(annotation && annotation->dtype == DataType::Float(16) && annotation->args.empty());
  QVERIFY(ptr->args[1].same_as(f->buffer_map[0]->data));
  QCOMPARE(Const(ptr->args[2]), int64_t(0));
  QCOMPARE(Const(ptr->args[3]), int64_t(256));  // every element by default
  QCOMPARE(Const(ptr->args[4]), int64_t(1));    // "r"
  const CallNode* rw = call_of(1);
  QCOMPARE(Const(rw->args[2]), int64_t(16));
  QCOMPARE(Const(rw->args[3]), int64_t(32));
  QCOMPARE(Const(rw->args[4]), int64_t(3));
  QCOMPARE(std::string(call_of(2)->op.as<ir::OpNode>()->name), std::string("tirx.tvm_fill_fragment"));
  QCOMPARE(call_of(3)->args.size(), size_t(8));
  // The printed form parses back to the same function.
  std::string printed = script::PrintModule(r.module);
  QVERIFY2(printed.find("T.tvm_access_ptr(T.type_annotation(\"float16\"), A.data, 0, 256, 1)") !=
               std::string::npos,
           printed.c_str());
  auto again = script::Parse(printed);
  QVERIFY2(again.ok(), Diags(again).c_str());
  QCOMPARE(script::PrintModule(again.module), printed);
  // A wrong access mask is an error at the argument.
  auto bad = script::Parse(R"(
@T.prim_func(s_tir=True)
def f(A: T.Buffer((16,), "float32")):
    T.evaluate(A.access_ptr("x"))
)");
  QVERIFY(!bad.ok());
  QVERIFY2(Diags(bad).find("4:29: error: unknown access mask 'x'") != std::string::npos, Diags(bad).c_str());
}

void TstParser::moduleCallDtype() {
  const char* src = R"(
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        A[0] = Module.get(1)

    @T.prim_func(private=True)
    def get(i: T.int32) -> T.float32:
        return T.float32(1)
)";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  PrimFunc f = Downcast<PrimFuncNode>(r.module->Lookup("main"));
  auto* store = f->body.as<BufferStoreNode>();
  QVERIFY(store);
  auto* call = store->value.as<CallNode>();
  QVERIFY(call);  // no cast: the call already has the callee's return dtype
  QCOMPARE(call->dtype, DataType::Float(32));
}

void TstParser::malformed_data() {
  QTest::addColumn<QString>("source");
  QTest::addColumn<QString>("message");
  QTest::addColumn<int>("line");
  QTest::addColumn<int>("column");
  auto add = [](const char* name, const char* body, const char* msg, int line, int col) {
    QTest::newRow(name) << QString::fromUtf8(body) << QString::fromUtf8(msg) << line << col;
  };
  const char* head = "@T.prim_func\ndef f(A: T.Buffer((16, 16), \"float32\"), n: T.int32):\n";
  auto prog = [&](const char* body) { return std::string(head) + body; };
  static std::vector<std::string> keep;
  auto addp = [&](const char* name, const char* body, const char* msg, int line, int col) {
    keep.push_back(prog(body));
    add(name, keep.back().c_str(), msg, line, col);
  };
  addp("undefined", "    A[0, 0] = vk\n", "undefined name 'vk'", 3, 15);
  // Literals and types a round trip could not keep (fuzz_tvmscript and an integer-mutation sweep).
  addp("literal out of range", "    x = T.int32(3000000000)\n",
       "the literal 3000000000 is out of range for int32", 3, 17);
  addp("float literal out of range", "    x = T.uint64(3.4e39)\n",
       "the literal 3.4e39 is out of range for uint64", 3, 18);
  addp("ramp stride type",
       "    B = T.alloc_buffer((64,), \"float32\")\n    B[T.Ramp(0, 3000000000, 4)] = T.Broadcast(T.float32(1), 4)\n",
       "T.Ramp: the stride is int64 but the base is int32", 4, 17);
  addp("float shape", "    B = T.alloc_buffer((1.5,), \"float32\")\n",
       "buffer shape must be integers, got float32", 3, 25);
  addp("float slice bound", "    A[0, 0:2.5] = T.Broadcast(T.float32(1), 2)\n",
       "slice bounds must be integers, got float32", 3, 12);
  addp("mixed slice bounds", "    A[0, n:T.int64(4)] = T.Broadcast(T.float32(1), 2)\n",
       "the slice starts with int32 but stops with int64; give both bounds one type", 3, 12);
  addp("slice bound range", "    A[0, 0:3000000000] = T.Broadcast(T.float32(1), 2)\n",
       "the slice bound 3000000000 is out of range for the int32 dimension", 3, 12);
  addp("compare lanes", "    T.evaluate(T.Ramp(0, 1, 4) < T.Broadcast(n, 2))\n",
       "comparison '<' cannot combine int32x4 and int32x2", 3, 16);
  addp("bind without name", "    T.bind(n + 1)\n", "T.bind without var= needs a name: x = T.bind(e)", 3, 5);
  addp("too many indices", "    A[0, 0, 1] = 1.0\n", "buffer 'A' has 2 dimensions but is indexed with 3", 3, 5);
  addp("too few indices", "    x: T.float32 = A[0]\n", "buffer 'A' has 2 dimensions but is indexed with 1", 3, 20);
  addp("remap mismatch",
       "    for i, j, k in T.grid(4, 4, 4):\n        with T.sblock(\"b\"):\n            vi, vj = T.axis.remap(\"SS\", [i, j, k])\n",
       "T.axis.remap kinds 'SS' do not match 3 loop variables", 5, 35);
  addp("bad dtype", "    B = T.alloc_buffer((4,), \"flaot32\")\n", "unknown dtype 'flaot32'", 3, 30);
  addp("int div", "    A[0, 0] = T.float32(n / 2)\n",
       "integer division with '/' is not allowed in TensorIR; use T.truncdiv or '//'", 3, 27);
  addp("unknown function", "    T.foo(1)\n", "unknown function 'T.foo'", 3, 5);
  addp("unknown dtype attr", "    x = T.flaot32(1)\n", "unknown function 'T.flaot32'", 3, 9);
  addp("where outside", "    T.where(n > 1)\n", "T.where must be inside a T.sblock", 3, 5);
  addp("reads outside", "    T.reads(A[0, 0])\n", "T.reads must be inside a T.sblock", 3, 5);
  addp("axis outside", "    v = T.axis.spatial(4, n)\n", "T.axis.spatial must be inside a T.sblock", 3, 9);
  addp("loop target count", "    for i, j in T.grid(4, 4, 4):\n        pass\n",
       "the loop has 3 ranges but 2 loop variables", 3, 9);
  addp("bad iterable", "    for i in [1, 2]:\n        pass\n",
       "a TensorIR loop iterates over range(...), T.grid(...), T.serial(...), T.parallel(...), "
       "T.vectorized(...), T.unroll(...) or T.thread_binding(...)", 3, 14);
  addp("store into scalar", "    n[0] = 1\n", "cannot store into an expression; expected a buffer", 3, 5);
  addp("no attr", "    A.foo = 1\n", "cannot assign to this expression", 3, 5);
  addp("buffer attr", "    T.evaluate(A.bar)\n", "buffer 'A' has no attribute 'bar'", 3, 18);
  addp("op arity", "    A[0, 0] = T.exp(1.0, 2.0)\n", "T.exp expects 1 argument, got 2", 3, 15);
  addp("remap kind", "    for i in range(4):\n        with T.sblock(\"b\"):\n            vi = T.axis.remap(\"X\", [i])\n",
       "T.axis.remap kind 'X' is not 'S' or 'R'", 5, 31);
  addp("remap not loop", "    with T.sblock(\"b\"):\n        vi = T.axis.remap(\"S\", [n])\n",
       "T.axis.remap binds loop variables; 'n' is not one", 4, 32);
  addp("frame without with", "    T.sblock(\"b\")\n", "this frame must be used in a with statement", 3, 5);
  addp("macro", "    @T.macro\n    def g():\n        pass\n", "nested functions (T.macro, T.inline) are not supported yet", 3, 5);
  addp("relax", "    x = R.add(1, 2)\n", "Relax is not supported by this parser yet", 3, 9);
  addp("bad annotation", "    x: int = 1\n",
       "expected a dtype annotation such as T.int32 or T.let[T.int32]", 3, 8);
  addp("unpack", "    a, b = 1, 2, 3\n", "cannot unpack 3 values into 2 names", 3, 5);
  addp("init outside", "    with T.init():\n        pass\n", "T.init must be inside a T.sblock", 3, 10);
  addp("division by zero", "    A[0, 0] = T.float32(4 // 0)\n", "division by zero", 3, 27);
  // The CST reads list comprehensions (the schedule recipe language takes them); TVMScript not.
  addp("comprehension", "    x = [i for i in range(4)]\n",
       "comprehensions are not supported in TVMScript", 3, 9);
  addp("generator", "    x = T.max(i for i in range(4))\n",
       "syntax error: generator expressions are not supported in TVMScript", 3, 15);
  addp("for else", "    for i in range(3):\n        pass\n    else:\n        pass\n", "for-else is not supported", 5, 5);
  addp("unknown keyword", "    B = T.alloc_buffer((4,), \"int8\", colour=1)\n",
       "T.alloc_buffer: unknown keyword 'colour'", 3, 45);
  add("param annotation", "@T.prim_func\ndef f(A: (16, 16)):\n    pass\n", "expected a T.Buffer annotation", 2, 10);
  add("param missing annotation", "@T.prim_func\ndef f(A):\n    pass\n",
      "parameter 'A' needs a type annotation, e.g. T.Buffer((16,), \"float32\")", 2, 7);
  add("no decorator", "def f(A: T.Buffer((4,), \"int8\")):\n    pass\n", "expected @T.prim_func before the function", 1, 5);
  add("wrong decorator", "@T.prim_fun\ndef f():\n    pass\n", "expected @T.prim_func, got @T.prim_fun", 1, 2);
  add("syntax missing paren", "@T.prim_func\ndef f(A: T.Buffer((4,), \"int8\")):\n    A[0] = T.int8(1\n",
      "syntax error: missing ')'", 3, 20);
  add("syntax unexpected", "@T.prim_func\ndef f():\n    x = = 1\n", "syntax error: unexpected '='", 3, 9);
  add("undefined in shape", "@T.prim_func\ndef f(A: T.Buffer((m,), \"int8\")):\n    pass\n",
      "undefined name 'm' (quote a new shape variable, e.g. \"m\")", 2, 20);
  add("module function missing", "@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n        T.evaluate(M.g())\n",
      "the module has no function 'g'", 5, 22);
  add("module twice", "@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n        pass\n\n    @T.prim_func\n    def f():\n        pass\n",
      "function 'f' is defined twice in the module", 8, 9);
  add("deep nesting", (std::string("@T.prim_func\ndef f():\n    T.evaluate(") + std::string(600, '(') + "1" +
                       std::string(600, ')') + ")\n").c_str(),
      "expression nested too deeply", 3, 0);
  {
    static std::string power = "@T.prim_func\ndef f():\n    T.evaluate(";
    for (int i = 0; i < 100000; ++i) power += "2 ** ";
    power += "1)\n";
    add("deep power chain", power.c_str(), "expression nested too deeply", 3, 0);
  }
  add("syntax missing colon", "@T.prim_func\ndef f():\n    for i in range(4)\n        pass\n",
      "syntax error: missing ':'", 3, 22);
  add("syntax unterminated string", "@T.prim_func\ndef f():\n    T.evaluate(\"abc)\n",
      "syntax error: unterminated string", 3, 16);
  add("syntax unexpected indent", "@T.prim_func\ndef f():\n    pass\n        pass\n",
      "syntax error: unexpected indent", 4, 9);
  add("syntax bad unindent", "@T.prim_func\ndef f():\n    if True:\n        pass\n  pass\n",
      "syntax error: unindent does not match any outer indentation level", 5, 3);
  add("syntax no block", "@T.prim_func\ndef f():\n    for i in range(4):\n    pass\n",
      "syntax error: expected an indented block", 4, 5);
  add("syntax missing bracket", "@T.prim_func\ndef f(A: T.Buffer((4,), \"int8\")):\n    A[0 = T.int8(1)\n",
      "syntax error: unexpected '='", 3, 9);
  add("syntax unexpected char", "@T.prim_func\ndef f():\n    T.evaluate(1 $ 2)\n",
      "syntax error: unexpected '$'", 3, 18);
}

void TstParser::malformed() {
  QFETCH(QString, source);
  QFETCH(QString, message);
  QFETCH(int, line);
  QFETCH(int, column);
  std::string src = source.toStdString();
  auto r = script::Parse(src, "bad.py");
  QVERIFY2(r.diagnostics.HasErrors(), "expected an error");
  bool found = false;
  for (const auto& d : r.diagnostics) {
    if (d.message == message.toStdString() && int(d.span.start().line) == line &&
        (column == 0 || int(d.span.start().column) == column)) {
      found = true;
    }
  }
  QVERIFY2(found, Diags(r).c_str());
}

void TstParser::neverCrashes() {
  const char* base = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
        for i, k in T.grid(128, 128):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A[vi, vk]
)";
  std::string text = base;
  // Every prefix (truncated files) and a few byte-level corruptions.
  for (size_t cut = 0; cut <= text.size(); cut += 7) {
    auto r = script::Parse(std::string_view(text).substr(0, cut));
    Q_UNUSED(r);
  }
  uint32_t seed = 12345;
  for (int iter = 0; iter < 300; ++iter) {
    std::string t = text;
    for (int k = 0; k < 4; ++k) {
      seed = seed * 1103515245u + 12345u;
      size_t pos = (seed >> 8) % t.size();
      seed = seed * 1103515245u + 12345u;
      t[pos] = static_cast<char>((seed >> 16) & 0xff);
    }
    auto r = script::Parse(t);
    Q_UNUSED(r);
  }
  std::string deep = "@T.prim_func\ndef f():\n";
  std::string indent = "    ";
  for (int i = 0; i < 700; ++i) {
    deep += indent + "if True:\n";
    indent += " ";
  }
  deep += indent + "pass\n";
  auto r = script::Parse(deep);
  QVERIFY(r.diagnostics.HasErrors());
}

void TstParser::pythonLexingAndPrecedence() {
  // Strings (prefixes, escapes, triple quotes, implicit concatenation), numbers, comments and
  // line breaks inside brackets, backslash continuation, `;`, and Python's operator precedence.
  const char* src = R"py(@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    T.func_attr({"s": "a\tb" 'c',  # a comment inside brackets
                 "h": 0x10, "u": 1_000, "r": r"x\y", "o": "\101", "t": """q"uote""", "f": 2.5e1})
    A[0] = 1 + \
        2
    A[1] = 3 if A[0] > 2 else 4; A[2] = -A[0] ** 2
    if not A[0] < A[1] <= 5 and A[2] != 0 or A[3] == 1:
        A[3] = A[0] // 2 % 3 << 1 | 1 & 3 ^ 2
    elif A[0] > 1:
        pass
    else:
        A[3] = 0
)py";
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).c_str());
  std::string printed = script::Print(r);
  const char* expected = R"py(@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    T.func_attr({"f": 25.0, "h": 16, "o": "A", "r": "x\\y", "s": "a\tbc", "t": "q\"uote", "u": 1000})
    A[0] = 3
    A[1] = T.if_then_else(A[0] > 2, 3, 4)
    A[2] = T.Cast("int32", T.pow(T.Cast("float32", A[0]), T.float32(2.0)) * T.float32(-1.0))
    if not (A[0] < A[1] and A[1] <= 5) and A[2] != 0 or A[3] == 1:
        A[3] = T.bitwise_or(T.shift_left(A[0] // 2 % 3, 1), 3)
    else:
        if A[0] > 1:
            T.evaluate(0)
        else:
            A[3] = 0)py";
  QVERIFY2(printed.find(expected) != std::string::npos, printed.c_str());
}

void TstParser::syntaxErrorsRecoverPerStatement() {
  // Each broken statement is reported once; parsing resumes at the next statement (also inside
  // the block under a broken header).
  const char* src = "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n"
                    "    A[0] = = 1\n"
                    "    for i in range(4) junk:\n"
                    "        A[i] = ) \n"
                    "    A[1] = 2\n"
                    "    A[2] = T.int32(3\n";
  auto r = script::Parse(src);
  std::vector<std::pair<std::string, int>> got;
  for (const auto& d : r.diagnostics) got.emplace_back(d.message, int(d.span.start().line));
  std::vector<std::pair<std::string, int>> want = {{"syntax error: unexpected '='", 3},
                                                   {"syntax error: unexpected 'junk'", 4},
                                                   {"syntax error: unexpected ')'", 5},
                                                   {"syntax error: missing ')'", 7}};
  QVERIFY2(got == want, Diags(r).c_str());
}

void TstParser::functionWithAnErrorIsRecovered() {
  // A semantic error in one statement keeps the function out of the module (and is its only
  // diagnostic), but what was built is in `recovered`, for the editor: the failing statement
  // is missing, the others and the signature are there, spans and all.
  const char* src = R"(@I.ir_module
class Module:
    @T.prim_func
    def good(X: T.Buffer((4,), "float32")):
        X[0] = T.float32(1.0)

    @T.prim_func
    def bad(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i, 0, 1]
            B[i] = B[i] + A[i, i]
)";
  auto r = script::Parse(src);
  QCOMPARE(int(r.diagnostics.ErrorCount()), 1);
  QVERIFY2(r.diagnostics.begin()->message == "buffer 'A' has 2 dimensions but is indexed with 3", Diags(r).c_str());
  QVERIFY(r.module.defined());
  QCOMPARE(r.module->functions.size(), size_t(1));  // only `good`
  QCOMPARE(r.recovered.size(), size_t(1));
  QCOMPARE(r.recovered[0].gvar->name_hint, std::string("bad"));
  const PrimFuncNode* bad = r.recovered[0].func.as<PrimFuncNode>();
  QVERIFY(bad);
  QCOMPARE(bad->params.size(), size_t(2));
  QVERIFY(bad->buffer_map[0].defined() && bad->buffer_map[0]->name == "A");
  QVERIFY(bad->buffer_map[0]->span.defined());
  auto* loop = Find<ForNode>(bad->body);
  QVERIFY(loop);
  // The loop body holds the second store only.
  auto* store = Find<BufferStoreNode>(loop->body);
  QVERIFY(store);
  QVERIFY(loop->body.as<BufferStoreNode>() || Flatten(loop->body).size() == 1);
  QVERIFY(store->value.as<AddNode>());
  // A function that parses is never in `recovered`.
  QVERIFY(script::Parse("@T.prim_func\ndef f():\n    pass\n").recovered.empty());
}

void TstParser::relaxFunctionWithAnErrorIsRecovered() {
  // As a PrimFunc: the failing binding is missing, the name it bound an untyped Var with the
  // name's span, the rest (parameters, the other bindings, the dataflow block) there.
  const char* src = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.add(a, y)
            c = R.multiply(b, a)
            R.output(c)
        return c
)";
  auto r = script::Parse(src);
  QCOMPARE(int(r.diagnostics.ErrorCount()), 1);
  QVERIFY(r.module.defined());
  QCOMPARE(r.module->functions.size(), size_t(0));
  QCOMPARE(r.recovered.size(), size_t(1));
  QCOMPARE(r.recovered[0].gvar->name_hint, std::string("main"));
  auto* main = r.recovered[0].func.as<relax::FunctionNode>();
  QVERIFY(main);
  QCOMPARE(main->params.size(), size_t(2));
  auto* seq = main->body.as<relax::SeqExprNode>();
  QVERIFY(seq);
  QCOMPARE(seq->blocks.size(), size_t(1));
  const auto& bindings = seq->blocks[0]->bindings;
  QCOMPARE(bindings.size(), size_t(2));  // a and c; b failed
  QCOMPARE(bindings[0]->var->name_hint, std::string("a"));
  QCOMPARE(bindings[1]->var->name_hint, std::string("c"));
  QVERIFY(seq->blocks[0]->span.defined());  // the `with R.dataflow():`
  auto* call = bindings[1].as<relax::VarBindingNode>()->value.as<relax::CallNode>();
  QVERIFY(call);
  auto* b = call->args[0].as<relax::VarNode>();
  QVERIFY(b && b->name_hint == "b" && !b->struct_info.defined());
  std::string text = src;
  QCOMPARE(b->span.begin, uint32_t(text.find("b = R.add")));
  // A late error (the return type) still leaves the function to the editor.
  std::string late_src = text;
  late_src.replace(late_src.find("b = R.add(a, y)"), 15, "b = R.add(a, x)");
  late_src.replace(late_src.find("-> R.Tensor((4,)"), 16, "-> R.Tensor((5,)");
  auto late = script::Parse(late_src);
  QCOMPARE(int(late.diagnostics.ErrorCount()), 1);
  QVERIFY2(late.diagnostics.begin()->message.find("does not fit its declared return type") != std::string::npos,
           late.diagnostics.begin()->message.c_str());
  QCOMPARE(late.recovered.size(), size_t(1));
}

void TstParser::int64MinLiteral() {
  // The printer writes INT64_MIN as -9223372036854775808; the literal alone is out of range.
  auto r = script::Parse(R"(@T.prim_func
def f(A: T.Buffer((1,), "int64")):
    A[0] = T.int64(-9223372036854775808)
)");
  QVERIFY2(r.ok(), Diags(r).c_str());
  auto* store = Find<BufferStoreNode>(r.module->functions[0].as<PrimFuncNode>()->body);
  QVERIFY(store);
  auto* imm = store->value.as<IntImmNode>();
  QVERIFY(imm && imm->value == std::numeric_limits<int64_t>::min());
  QCOMPARE(script::Print(r).find("T.int64(-9223372036854775808)") != std::string::npos, true);
  // Its negation would be 2^63: refused, as the literal 9223372036854775808 is.
  for (const char* bad : {"-(-9223372036854775808)", "9223372036854775808"}) {
    auto e = script::Parse(std::string("@T.prim_func\ndef f(A: T.Buffer((1,), \"int64\")):\n    A[0] = T.int64(") + bad + ")\n");
    QCOMPARE(int(e.diagnostics.ErrorCount()), 1);
    QVERIFY2(e.diagnostics.begin()->message == "integer literal out of range", Diags(e).c_str());
  }
}

void TstParser::relaxConstOfAFloatOutOfIntRange() {
  // A float constant given an integer dtype truncates when it fits and is refused when not (the
  // conversion is undefined there).
  auto src = [](const char* value) {
    return std::string("@R.function\ndef f() -> R.Tensor((), \"int64\"):\n    c = R.const(") + value +
           ", \"int64\")\n    return c\n";
  };
  QVERIFY(script::Parse(src("2.75")).ok());
  auto r = script::Parse(src("1e30"));
  QCOMPARE(int(r.diagnostics.ErrorCount()), 1);
  QVERIFY2(r.diagnostics.begin()->message == "R.const: 1e30 is out of range for int64", Diags(r).c_str());
  // float16 scalars: rounded to binary16 (0.1 to 0.0999755859375), printed inline and parsed
  // back to the same bits.
  auto half = script::Parse("@R.function\ndef f() -> R.Tensor((), \"float16\"):\n    c = R.const(0.1, \"float16\")\n    return c\n");
  QVERIFY2(half.ok(), Diags(half).c_str());
  std::string printed = script::Print(half);
  QVERIFY2(printed.find("R.const(0.0999755859375, \"float16\")") != std::string::npos, printed.c_str());
  auto again = script::Parse(printed);
  QVERIFY2(again.ok(), Diags(again).c_str());
  QVERIFY(ir::StructuralEqual(again.module, half.module));
}

void TstParser::parseSpeed() {
  std::string src = "@I.ir_module\nclass Module:\n";
  int funcs = 0;
  int lines = 2;
  for (; lines < 20000; lines += 16) {
    src += "    @T.prim_func\n    def f" + std::to_string(funcs++) +
           "(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"), C: T.Buffer((128, 128), \"float32\")):\n"
           "        for i, j, k in T.grid(128, 128, 128):\n"
           "            with T.sblock(\"C\"):\n"
           "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
           "                with T.init():\n"
           "                    C[vi, vj] = T.float32(0.0)\n"
           "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]\n"
           "        for i in range(128):\n"
           "            with T.sblock(\"D\"):\n"
           "                vi = T.axis.spatial(128, i)\n"
           "                T.reads(A[vi, 0:128])\n"
           "                T.writes(B[vi, 0])\n"
           "                B[vi, 0] = T.max(A[vi, 0], T.float32(0)) + T.exp(A[vi, 1]) * 2\n\n";
  }
  // Speed is measured by bench/bench_tvmscript, not asserted here.
  auto r = script::Parse(src);
  QVERIFY2(r.ok(), Diags(r).substr(0, 2000).c_str());
  QCOMPARE(r.module->functions.size(), size_t(funcs));
}

QTEST_GUILESS_MAIN(TstParser)
// `*seq` spreads a tuple or list into positional arguments, as Python does: TVM's tests write
// `T.grid(*A.shape)`. The module is the one with the extents written out; a splat of a value
// that is no sequence, and `**`, are errors at the argument.
void TstParser::splatArguments() {
  auto splat = script::Parse(R"(
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(*A.shape):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
)");
  QVERIFY2(splat.ok(), Diags(splat).c_str());
  auto plain = script::Parse(R"(
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i, j in T.grid(4, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
)");
  QVERIFY2(plain.ok(), Diags(plain).c_str());
  QVERIFY(ir::StructuralEqual(splat.module, plain.module));
  auto bad = script::Parse(R"(
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in T.grid(*A):
        A[i] = T.float32(1)
)");
  QVERIFY(!bad.ok());
  QVERIFY2(Diags(bad).find("a '*' argument must be a tuple or list") != std::string::npos, Diags(bad).c_str());
}

// T.ceildiv(a, b) is (a + b - 1) // b; T.IntImm / T.FloatImm(dtype, value) are typed constants
// (the dtype must fit the kind); I.meta_var(v) is v, as TVM's Python splices it.
void TstParser::ceildivImmsAndMetaVar() {
  auto r = script::Parse(R"(
@T.prim_func
def f(A: T.Buffer((16,), "float32"), n: T.int32):
    for i in range(T.ceildiv(n, 4)):
        A[i] = T.FloatImm("float32", 0.5) + T.Cast("float32", T.IntImm("int32", 3))
)");
  QVERIFY2(r.ok(), Diags(r).c_str());
  auto want = script::Parse(R"(
@T.prim_func
def f(A: T.Buffer((16,), "float32"), n: T.int32):
    for i in range((n + 4 - 1) // 4):
        A[i] = T.float32(0.5) + T.Cast("float32", 3)
)");
  QVERIFY2(want.ok(), Diags(want).c_str());
  QVERIFY(ir::StructuralEqual(r.module, want.module));
  auto bad = script::Parse(R"(
@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    A[0] = T.FloatImm("int32", 0.5)
)");
  QVERIFY(!bad.ok());
  QVERIFY2(Diags(bad).find("T.FloatImm cannot make a constant of dtype int32") != std::string::npos, Diags(bad).c_str());
  auto meta = script::Parse(R"(
@R.function
def g(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    s = I.meta_var(R.const(2.0, "float32"))
    y = R.multiply(x, s)
    return y
)");
  QVERIFY2(meta.ok(), Diags(meta).c_str());
  auto plain = script::Parse(R"(
@R.function
def g(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    y = R.multiply(x, R.const(2.0, "float32"))
    return y
)");
  QVERIFY(ir::StructuralEqual(meta.module, plain.module));
}

// T.target(...) is kept as the target's text, the form codegen::ParseTarget reads; a config dict
// becomes the kind and its options, a host the last -host= option, and the printer writes the
// text back as T.target(...) wherever TVM's "target" key holds one.
void TstParser::targetsAreTheirText() {
  auto r = script::Parse(R"(
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    T.func_attr({"target": T.target({"kind": "cuda", "arch": "sm_80", "keys": ["cuda", "gpu"], "max_num_threads": 1024, "tag": ""}, host="llvm")})
    with T.attr(T.target("llvm -mcpu=skylake"), "target", 0):
        A[0] = T.float32(1.0)
)");
  QVERIFY2(r.ok(), Diags(r).c_str());
  auto f = r.module->functions[0].as_ref<tir::PrimFuncNode>();
  auto* target = f->attrs.at("target").as<ir::StringObj>();
  QVERIFY(target);
  QCOMPARE(target->value, std::string("cuda -arch=sm_80 -max_num_threads=1024 -host=llvm"));
  std::string printed = script::Print(r);
  QVERIFY2(printed.find(R"(T.func_attr({"target": T.target("cuda -arch=sm_80 -max_num_threads=1024", host="llvm")}))") != std::string::npos, printed.c_str());
  QVERIFY2(printed.find(R"(T.attr(T.target("llvm -mcpu=skylake"), "target", 0))") != std::string::npos, printed.c_str());
  auto again = script::Parse(printed);
  QVERIFY2(again.ok(), Diags(again).c_str());
  QVERIFY(ir::StructuralEqual(r.module, again.module));

  auto bad = script::Parse(R"(
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    T.func_attr({"target": T.target({"arch": "sm_80"})})
    A[0] = T.float32(1.0)
)");
  QVERIFY(!bad.ok());
  QCOMPARE(bad.diagnostics[0].message, std::string("a target config dict needs a \"kind\", e.g. {\"kind\": \"llvm\"}"));
  QCOMPARE(bad.diagnostics[0].span.start().line, 4u);
  auto twice = script::Parse(R"(
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    T.func_attr({"target": T.target({"kind": "cuda", "host": "llvm"}, host="llvm")})
    A[0] = T.float32(1.0)
)");
  QVERIFY(!twice.ok());
  QCOMPARE(twice.diagnostics[0].message, std::string("the target already has a host: give the host once"));
}

#include "tst_parser.moc"
