// Tests of te::create_prim_func: the PrimFunc for elementwise, reduction, multi-stage,
// symbolic-shape, nested-domain, scalar-parameter and two-value-reduction computes is printed
// exactly as TVM prints te.create_prim_func's result, parses back to a structurally equal
// function, and (where the shape is unusual) computes the right values in the interpreter.

#include <QTest>

#include "ir/structural_equal.h"
#include "runtime/ndarray.h"
#include "script/tvmscript.h"
#include "te/create_prim_func.h"
#include "te/tensor.h"
#include "tir/interpreter.h"
#include "tir/op.h"

using namespace wb;
using ir::PrimExpr;

namespace {

const ir::DataType kF32 = ir::DataType::Float(32);
PrimExpr I64(int64_t v) { return tir::make_const(ir::DataType::Int(64), v); }

std::string Body(const tir::PrimFunc& f) {
  script::PrintOptions opt;
  opt.header = false;
  return script::PrintPrimFunc(f, opt);
}

// `f` prints as `expected` and `expected` parses to a function structurally equal to `f`.
void CheckScript(const tir::PrimFunc& f, const std::string& expected) {
  std::string printed = Body(f);
  if (printed != expected) qWarning("printed:\n%s", printed.c_str());
  QCOMPARE(printed, expected);
  script::ParseResult parsed = script::Parse(expected);
  QVERIFY2(parsed.ok(), RenderDiagnostics(parsed.diagnostics).c_str());
  ir::BaseFunc g = parsed.module->functions.at(0);
  auto mismatch = ir::FindFirstMismatch(f, g);
  QVERIFY2(!mismatch, mismatch ? mismatch->reason.c_str() : "");
}

}  // namespace

class TestTE : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void elementwise() {
    te::Tensor A = te::placeholder({I64(2), I64(3)}, kF32, "A");
    te::Tensor B = te::placeholder({I64(3)}, kF32, "B");
    te::Tensor C = te::compute(
        {I64(2), I64(3)}, [&](const std::vector<tir::Var>& i) { return tir::add(A(i), B(i[1])); },
        "T_add");
    CheckScript(te::create_prim_func({A, B, C}), R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(3),), "float32"), T_add: T.Buffer((T.int64(2), T.int64(3)), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
        with T.sblock("T_add"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v_ax0, v_ax1], B[v_ax1])
            T.writes(T_add[v_ax0, v_ax1])
            T_add[v_ax0, v_ax1] = A[v_ax0, v_ax1] + B[v_ax1])");
  }

  void reductionAndStages() {
    // A matmul then a relu: the intermediate becomes a root-block buffer, the reduction gets
    // T.init and its own output is not among its reads.
    te::Tensor A = te::placeholder({I64(4), I64(8)}, kF32, "A");
    te::Tensor B = te::placeholder({I64(8), I64(3)}, kF32, "B");
    te::Tensor C = te::compute({I64(4), I64(3)},
                               [&](const std::vector<tir::Var>& i) {
                                 te::IterVar k = te::reduce_axis(I64(8), "k");
                                 return te::sum(tir::mul(A(i[0], k->var), B(k->var, i[1])), {k});
                               },
                               "C", "", {}, {"i", "j"});
    te::Tensor D = te::compute(
        {I64(4), I64(3)},
        [&](const std::vector<tir::Var>& i) { return tir::max(C(i), tir::make_const(kF32, 0.0)); },
        "D");
    CheckScript(te::create_prim_func({A, B, D}), R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((T.int64(4), T.int64(8)), "float32"), B: T.Buffer((T.int64(8), T.int64(3)), "float32"), D: T.Buffer((T.int64(4), T.int64(3)), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    C = T.sblock_alloc_buffer((T.int64(4), T.int64(3)))
    for i, j, k in T.grid(T.int64(4), T.int64(3), T.int64(8)):
        with T.sblock("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0.0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
    for ax0, ax1 in T.grid(T.int64(4), T.int64(3)):
        with T.sblock("D"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(C[v_ax0, v_ax1])
            T.writes(D[v_ax0, v_ax1])
            D[v_ax0, v_ax1] = T.max(C[v_ax0, v_ax1], T.float32(0.0)))");
    // The same stage name twice gets TVM's unique suffix.
    te::Tensor E = te::compute(
        {I64(4), I64(3)}, [&](const std::vector<tir::Var>& i) { return tir::neg(D(i)); }, "D");
    std::string printed = Body(te::create_prim_func({A, B, E}));
    QVERIFY(printed.find(R"(with T.sblock("D_1"):)") != std::string::npos);
  }

  void symbolicNested() {
    // A reduction whose extent depends on the spatial index: TVM's nested blocks, the outer
    // "B_l1" and the leaf "B"; n is a signature type variable.
    te::Var n = te::var("n");
    te::Tensor A = te::placeholder({n, I64(8)}, kF32, "A");
    te::Tensor B = te::compute({n},
                               [&](const std::vector<tir::Var>& i) {
                                 te::IterVar k = te::reduce_axis(tir::add(i[0], I64(1)), "k");
                                 return te::sum(A(i[0], tir::floormod(k->var, I64(8))), {k});
                               },
                               "B", "", {}, {"i"});
    tir::PrimFunc f = te::create_prim_func({A, B});
    CheckScript(f, R"(n = TypeVar("n")
@T.prim_func(s_tir=True)
def main(A: T.Buffer((n, T.int64(8)), "float32"), B: T.Buffer((n,), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i in range(n):
        with T.sblock("B_l1"):
            v_i = T.axis.spatial(n, i)
            T.reads(A[v_i, T.int64(0):T.int64(8)])
            T.writes(B[v_i])
            for k in range(v_i + T.int64(1)):
                with T.sblock("B"):
                    v_i_1 = T.axis.spatial((v_i, v_i + T.int64(1)), v_i)
                    v_k = T.axis.reduce(v_i + T.int64(1), k)
                    T.reads(A[v_i_1, v_k % T.int64(8)])
                    T.writes(B[v_i_1])
                    with T.init():
                        B[v_i_1] = T.float32(0.0)
                    B[v_i_1] = B[v_i_1] + A[v_i_1, v_k % T.int64(8)])");
    // B[i] = sum of A[i, k % 8] for k <= i.
    runtime::NDArray a = runtime::NDArray::Empty({11, 8}, runtime::Float(32));
    runtime::FillRandom(a, 7);
    runtime::NDArray b = runtime::NDArray::Empty({11}, runtime::Float(32));
    tir::InterpretResult r = tir::Interpret(f, {a, b});
    QVERIFY2(r.ok(), RenderDiagnostics(r.diagnostics).c_str());
    for (int64_t i = 0; i < 11; ++i) {
      double s = 0;
      for (int64_t k = 0; k <= i; ++k) s += a.GetDouble(i * 8 + k % 8);
      QVERIFY(std::abs(b.GetDouble(i) - s) < 1e-4);
    }
  }

  void scalarParameter() {
    te::Tensor A = te::placeholder({I64(4)}, kF32, "A");
    te::Var m = te::var("m", ir::DataType::Int(32));
    te::Tensor C = te::compute(
        {I64(4)},
        [&](const std::vector<tir::Var>& i) { return tir::mul(A(i), tir::cast(kF32, m)); }, "C");
    CheckScript(te::create_prim_func({A, m, C}), R"(@T.prim_func(s_tir=True)
def main(A: T.Buffer((T.int64(4),), "float32"), m: T.int32, C: T.Buffer((T.int64(4),), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0 in range(T.int64(4)):
        with T.sblock("C"):
            v_ax0 = T.axis.spatial(T.int64(4), ax0)
            T.reads(A[v_ax0])
            T.writes(C[v_ax0])
            C[v_ax0] = A[v_ax0] * T.Cast("float32", m))");
  }

  void twoValueReduction() {
    // argmax's shape: one block writes both values, combined through T.let bindings.
    te::Tensor X = te::placeholder({I64(3), I64(5)}, kF32, "X");
    te::CommReducerSpec red = te::MakeReducer(
        [](const std::vector<tir::Var>& x, const std::vector<tir::Var>& y) {
          PrimExpr keep = tir::greater_equal(x[1], y[1]);
          return std::vector<PrimExpr>{tir::MakeSelect(keep, x[0], y[0]),
                                       tir::MakeSelect(keep, x[1], y[1])};
        },
        {I64(-1), te::min_value(kF32)});
    auto outs = te::compute_batch(
        {I64(3)},
        [&](const std::vector<tir::Var>& i) {
          te::IterVar k = te::reduce_axis(I64(5), "k");
          return red.Apply({k->var, X(i[0], k->var)}, {k});
        },
        "X_red_temp");
    tir::PrimFunc f = te::create_prim_func({X, outs[0], outs[1]});
    CheckScript(f, R"(@T.prim_func(s_tir=True)
def main(X: T.Buffer((T.int64(3), T.int64(5)), "float32"), X_red_temp_v0: T.Buffer((T.int64(3),), "int64"), X_red_temp_v1: T.Buffer((T.int64(3),), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0, k in T.grid(T.int64(3), T.int64(5)):
        with T.sblock("X_red_temp"):
            v_ax0, v_k = T.axis.remap("SR", [ax0, k])
            T.reads(X[v_ax0, v_k])
            T.writes(X_red_temp_v0[v_ax0], X_red_temp_v1[v_ax0])
            with T.init():
                X_red_temp_v0[v_ax0] = T.int64(-1)
                X_red_temp_v1[v_ax0] = T.float32(-340282346638528859811704183484516925440.0)
            v_X_red_temp_v0: T.let[T.int64] = T.Select(X_red_temp_v1[v_ax0] >= X[v_ax0, v_k], X_red_temp_v0[v_ax0], v_k)
            v_X_red_temp_v1: T.let[T.float32] = T.Select(X_red_temp_v1[v_ax0] >= X[v_ax0, v_k], X_red_temp_v1[v_ax0], X[v_ax0, v_k])
            X_red_temp_v0[v_ax0] = v_X_red_temp_v0
            X_red_temp_v1[v_ax0] = v_X_red_temp_v1)");
    runtime::NDArray x = runtime::NDArray::Empty({3, 5}, runtime::Float(32));
    runtime::FillRandom(x, 3);
    runtime::NDArray idx = runtime::NDArray::Empty({3}, runtime::Int(64));
    runtime::NDArray val = runtime::NDArray::Empty({3}, runtime::Float(32));
    tir::InterpretResult r = tir::Interpret(f, {x, idx, val});
    QVERIFY2(r.ok(), RenderDiagnostics(r.diagnostics).c_str());
    for (int64_t i = 0; i < 3; ++i) {
      int64_t best = 0;
      for (int64_t k = 1; k < 5; ++k) {
        if (x.GetDouble(i * 5 + k) > x.GetDouble(i * 5 + best)) best = k;
      }
      QCOMPARE(idx.GetInt(i), best);
      QCOMPARE(val.GetDouble(i), x.GetDouble(i * 5 + best));
    }
  }

  void readOutsideComputeFunction() {
    // A read built before compute() is not recorded as a dependency: reported, not miscompiled.
    te::Tensor A = te::placeholder({I64(4)}, kF32, "A");
    te::Tensor B = te::compute(
        {I64(4)}, [&](const std::vector<tir::Var>& i) { return tir::neg(A(i)); }, "B");
    PrimExpr b0 = B(I64(0));
    te::Tensor C = te::compute(
        {I64(4)}, [&](const std::vector<tir::Var>& i) { return tir::add(A(i), b0); }, "C");
    try {
      te::create_prim_func({A, C});
      QFAIL("expected an error");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find("stage C reads B") != std::string::npos, e.what());
    }
  }

  void placeholderNotAnArgument() {
    te::Tensor A = te::placeholder({I64(4)}, kF32, "A");
    te::Tensor B = te::placeholder({I64(4)}, kF32, "B");
    te::Tensor C = te::compute(
        {I64(4)}, [&](const std::vector<tir::Var>& i) { return tir::add(A(i), B(i)); }, "C");
    try {
      te::create_prim_func({A, C});
      QFAIL("expected an error");
    } catch (const std::invalid_argument& e) {
      QCOMPARE(
          std::string(e.what()),
          std::string(
              "te.create_prim_func: placeholder B is read but is not an argument of the function"));
    }
  }
};

QTEST_APPLESS_MAIN(TestTE)
#include "tst_te.moc"
