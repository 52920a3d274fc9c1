// The Relax reference interpreter: every construct it evaluates (bindings, dataflow blocks,
// tuples, shapes and prim values with symbolic vars, match_cast, If, calls of Relax functions and
// closures, call_tir / call_tir_inplace / call_tir_with_grad / direct kernel calls with explicit allocation, op calls
// through legalization) computes what a plain C++ loop computes, and every program it cannot run
// is a diagnostic that names the reason.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>

#include "relax/block_builder.h"
#include "relax/interpreter.h"
#include "relax/op/registry.h"
#include "runtime/ndarray.h"
#include "script/tvmscript.h"
#include "tir/stmt.h"
#include "transform/relax/legalize_ops.h"
#include "transform/relax/semantic_check.h"

using namespace wb;
using relax::Value;

namespace {

ir::IRModule ParseOrFail(const std::string& text) {
  script::ParseResult parsed = script::Parse(text, "test.py");
  if (!parsed.ok()) {
    std::string all;
    for (const auto& d : parsed.diagnostics) all += d.message + "\n";
    qFatal("test module does not parse:\n%s", all.c_str());
  }
  return parsed.module;
}

runtime::NDArray Random(std::vector<int64_t> shape, uint64_t seed) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), runtime::Float(32));
  runtime::FillRandom(a, seed);
  return a;
}

std::string FirstError(const relax::RelaxInterpretResult& r) {
  return r.diagnostics.empty() ? std::string() : r.diagnostics[0].message;
}

const char* kMlp = R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def dense(x: T.Buffer((2, 3), "float32"), w: T.Buffer((3, 4), "float32"), out: T.Buffer((2, 4), "float32")):
        for i, j in T.grid(2, 4):
            out[i, j] = T.float32(0.0)
            for k in range(3):
                out[i, j] = out[i, j] + x[i, k] * w[k, j]

    @T.prim_func(private=True)
    def relu(x: T.Buffer((2, 4), "float32"), out: T.Buffer((2, 4), "float32")):
        for i, j in T.grid(2, 4):
            out[i, j] = T.max(x[i, j], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), w: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.dense, (x, w), out_ty=R.Tensor((2, 4), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((2, 4), dtype="float32"))
            R.output(gv)
        return gv
)";


// Every index of `shape`, row-major.
void ForEach(const std::vector<int64_t>& shape, const std::function<void(const std::vector<int64_t>&)>& f) {
  std::vector<int64_t> idx(shape.size(), 0);
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t rest = flat;
    for (size_t k = shape.size(); k-- > 0;) {
      idx[k] = rest % shape[k];
      rest /= shape[k];
    }
    f(idx);
  }
}

int64_t Offset(const std::vector<int64_t>& shape, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (size_t k = 0; k < shape.size(); ++k) off = off * shape[k] + idx[k];
  return off;
}

// A windowed op of any spatial rank by its definition, for the tensors of the window tests: the
// window's taps and where each reads the data (strides, dilation, pads before).
struct WindowSpec {
  std::vector<int64_t> taps, strides, dilation, pad_before;
};

// conv (NC... data, OI... weight) with groups.
double ConvAt(const runtime::NDArray& x, const runtime::NDArray& w, const WindowSpec& s, int64_t groups,
              const std::vector<int64_t>& o) {
  std::vector<int64_t> xs = x.shape(), ws = w.shape();
  int64_t per = ws[0] / groups, cg = ws[1];
  double sum = 0;
  std::vector<int64_t> rshape = s.taps;
  rshape.insert(rshape.begin(), cg);
  ForEach(rshape, [&](const std::vector<int64_t>& r) {
    std::vector<int64_t> at = {o[0], (o[1] / per) * cg + r[0]};
    for (size_t k = 0; k < s.taps.size(); ++k) {
      int64_t p = o[2 + k] * s.strides[k] + r[1 + k] * s.dilation[k] - s.pad_before[k];
      if (p < 0 || p >= xs[2 + k]) return;
      at.push_back(p);
    }
    std::vector<int64_t> widx = {o[1]};
    widx.insert(widx.end(), r.begin(), r.end());
    sum += x.GetDouble(Offset(xs, at)) * w.GetDouble(Offset(ws, widx));
  });
  return sum;
}

// max or average pooling; the average over the taps inside the data, or the whole window.
double PoolAt(const runtime::NDArray& x, const WindowSpec& s, bool max, bool include_pad,
              const std::vector<int64_t>& o) {
  std::vector<int64_t> xs = x.shape();
  double best = -INFINITY, sum = 0;
  int64_t count = 0, window = 1;
  for (int64_t t : s.taps) window *= t;
  ForEach(s.taps, [&](const std::vector<int64_t>& r) {
    std::vector<int64_t> at = {o[0], o[1]};
    for (size_t k = 0; k < s.taps.size(); ++k) {
      int64_t p = o[2 + k] * s.strides[k] + r[k] * s.dilation[k] - s.pad_before[k];
      if (p < 0 || p >= xs[2 + k]) return;
      at.push_back(p);
    }
    double v = x.GetDouble(Offset(xs, at));
    best = std::max(best, v);
    sum += v;
    ++count;
  });
  return max ? best : sum / double(include_pad ? window : count);
}

}  // namespace

class TestRelaxInterp : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void callTirChainMatchesPlainLoops() {
    ir::IRModule m = ParseOrFail(kMlp);
    runtime::NDArray x = Random({2, 3}, 1), w = Random({3, 4}, 2);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x), Value::Tensor(w)});
    QVERIFY2(r.ok(), FirstError(r).c_str());
    QCOMPARE(r.value.kind, Value::Kind::kTensor);
    QCOMPARE(r.value.tensor.shape(), (std::vector<int64_t>{2, 4}));
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 4; ++j) {
        double acc = 0;
        for (int k = 0; k < 3; ++k) acc += x.GetDouble(i * 3 + k) * w.GetDouble(k * 4 + j);
        QVERIFY(std::fabs(r.value.tensor.GetDouble(i * 4 + j) - std::max(acc, 0.0)) < 1e-5);
      }
    }
  }

  void tuplesAndTwoOutputKernels() {
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def split_half(x: T.Buffer((8,), "float32"), lo: T.Buffer((4,), "float32"), hi: T.Buffer((4,), "float32")):
        for i in range(4):
            lo[i] = x[i]
            hi[i] = x[i + 4]

    @R.function
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")):
        cls = Module
        lv = R.call_tir(cls.split_half, (x,), out_ty=[R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32")])
        a: R.Tensor((4,), dtype="float32") = lv[0]
        b: R.Tensor((4,), dtype="float32") = lv[1]
        t = (b, a)
        return t
)");
    runtime::NDArray x = Random({8}, 3);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x)});
    QVERIFY2(r.ok(), FirstError(r).c_str());
    QCOMPARE(r.value.kind, Value::Kind::kTuple);
    QCOMPARE(r.value.fields.size(), size_t(2));
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(r.value.fields[0].tensor.GetDouble(i), x.GetDouble(i + 4));
      QCOMPARE(r.value.fields[1].tensor.GetDouble(i), x.GetDouble(i));
    }
  }

  void symbolicShapesBindFromArguments() {
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double(x: T.Buffer(("n", 4), "float32"), y: T.Buffer((n, 4), "float32")):
        for i, j in T.grid(n, 4):
            y[i, j] = x[i, j] * T.float32(2.0)

    n = TypeVar("n")
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.double, (x,), out_ty=R.Tensor((n, 4), dtype="float32"))
        return y
)");
    for (int64_t rows : {1, 5}) {
      runtime::NDArray x = Random({rows, 4}, 4);
      auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x)});
      QVERIFY2(r.ok(), FirstError(r).c_str());
      QCOMPARE(r.value.tensor.shape(), (std::vector<int64_t>{rows, 4}));
      for (int64_t i = 0; i < rows * 4; ++i) {
        QCOMPARE(float(r.value.tensor.GetDouble(i)), float(2 * x.GetDouble(i)));
      }
    }
  }

  void shapeAndPrimValues() {
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    n = TypeVar("n")
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32"), k: T.int64) -> R.Tuple(R.Shape(ndim=2), T.int64):
        s = R.shape([n * 2, 4])
        t = (s, k)
        return t
)");
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(Random({3, 4}, 5)),
                                               Value::Int(ir::DataType::Int(64), 7)});
    QVERIFY2(r.ok(), FirstError(r).c_str());
    QCOMPARE(r.value.fields[0].kind, Value::Kind::kShape);
    QCOMPARE(r.value.fields[0].shape, (std::vector<int64_t>{6, 4}));
    QCOMPARE(r.value.fields[1].int_value, int64_t(7));
  }

  void matchCastBindsAndChecks() {
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2)) -> R.Shape(ndim=2):
        m = T.int64()
        y: R.Tensor((m, 3), dtype="float32") = R.match_cast(x, R.Tensor((m, 3), dtype="float32"))
        s = R.shape([m + 1, 3])
        return s
)");
    auto ok = relax::InterpretRelax(m, "main", {Value::Tensor(Random({6, 3}, 6))});
    QVERIFY2(ok.ok(), FirstError(ok).c_str());
    QCOMPARE(ok.value.shape, (std::vector<int64_t>{7, 3}));
    auto bad = relax::InterpretRelax(m, "main", {Value::Tensor(Random({6, 2}, 6))});
    QVERIFY(!bad.ok());
    QVERIFY2(FirstError(bad).find("R.match_cast") != std::string::npos &&
                 FirstError(bad).find("dimension 1 is 2, expected 3") != std::string::npos,
             FirstError(bad).c_str());
    QVERIFY(bad.diagnostics[0].span.defined());
  }

  void argumentsAreCheckedAgainstTheSignature() {
    ir::IRModule m = ParseOrFail(kMlp);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(Random({2, 5}, 1)),
                                               Value::Tensor(Random({3, 4}, 2))});
    QVERIFY(!r.ok());
    QVERIFY2(FirstError(r).find("argument 0 ('x')") != std::string::npos &&
                 FirstError(r).find("dimension 1 is 5, expected 3") != std::string::npos,
             FirstError(r).c_str());
    auto count = relax::InterpretRelax(m, "main", {Value::Tensor(Random({2, 3}, 1))});
    QVERIFY2(FirstError(count).find("takes 2 arguments, got 1") != std::string::npos,
             FirstError(count).c_str());
    auto missing = relax::InterpretRelax(m, "nope", {});
    QVERIFY2(FirstError(missing).find("no Relax function named 'nope'") != std::string::npos,
             FirstError(missing).c_str());
  }

  void ifTakesTheBranchOfTheCondition() {
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] + y[i]

    @T.prim_func(private=True)
    def mul(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] * y[i]

    @R.function
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        if cond:
            y = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        else:
            y = R.call_tir(cls.mul, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)");
    runtime::NDArray x = Random({4}, 8);
    for (int c = 0; c < 2; ++c) {
      runtime::NDArray cond = runtime::NDArray::Empty({}, runtime::Bool());
      cond.SetInt(0, c);
      auto r = relax::InterpretRelax(m, "main", {Value::Tensor(cond), Value::Tensor(x)});
      QVERIFY2(r.ok(), FirstError(r).c_str());
      for (int i = 0; i < 4; ++i) {
        double v = x.GetDouble(i);
        QCOMPARE(float(r.value.tensor.GetDouble(i)), float(c ? v + v : v * v));
      }
    }
  }

  void callsOfRelaxFunctionsAndClosures() {
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] + y[i]

    @R.function(private=True)
    def twice(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), dtype="float32"))
        return y

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        @R.function
        def plus_x(y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            z = R.call_tir(cls.add, (y, x), out_ty=R.Tensor((4,), dtype="float32"))
            return z

        a: R.Tensor((4,), dtype="float32") = cls.twice(x)
        b: R.Tensor((4,), dtype="float32") = plus_x(a)
        return b
)");
    runtime::NDArray x = Random({4}, 9);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x)});
    QVERIFY2(r.ok(), FirstError(r).c_str());
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(float(r.value.tensor.GetDouble(i)), float(3 * x.GetDouble(i)));
    }
  }

  void inplaceKernelsWriteTheirInput() {
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_inplace(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            a[i] = a[i] + b[i]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        z = R.call_tir_inplace(cls.add_inplace, (x, y), out_ty=R.Tensor((4,), dtype="float32"), inplace_indices=[0])
        return z
)");
    runtime::NDArray x = Random({4}, 10), y = Random({4}, 11);
    runtime::NDArray x0 = x.Copy();
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x), Value::Tensor(y)});
    QVERIFY2(r.ok(), FirstError(r).c_str());
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(float(r.value.tensor.GetDouble(i)), float(x0.GetDouble(i) + y.GetDouble(i)));
    }
    QCOMPARE(r.value.tensor.ElementData(), x.ElementData());  // the same memory
  }

  // call_tir_with_grad runs its kernel as call_tir does; the gradient markers pass their value.
  void gradientCallsAndMarkersRunTheirKernels() {
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mul(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] * y[i]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        xs = R.grad.start_checkpoint(x)
        z = R.call_tir_with_grad(cls.mul, (xs, y), out_ty=R.Tensor((4,), dtype="float32"), te_grad_name="mul_grad")
        ze = R.grad.end_checkpoint(z)
        w = R.grad.no_grad(ze)
        return w
)");
    runtime::NDArray x = Random({4}, 12), y = Random({4}, 13);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x), Value::Tensor(y)});
    QVERIFY2(r.ok(), FirstError(r).c_str());
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(float(r.value.tensor.GetDouble(i)), float(x.GetDouble(i)) * float(y.GetDouble(i)));
    }
  }

  void explicitAllocationAndDirectKernelCalls() {
    // The form CallTIRRewrite produces.
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] + y[i]

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        alloc: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _: R.Any = cls.add(x, x, alloc)
        return alloc
)");
    runtime::NDArray x = Random({4}, 12);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x)});
    QVERIFY2(r.ok(), FirstError(r).c_str());
    for (int i = 0; i < 4; ++i) QCOMPARE(float(r.value.tensor.GetDouble(i)), float(2 * x.GetDouble(i)));
  }

  void memoryPlanBuiltins() {
    // The form memory planning produces: tensors placed in storages, killed after their use.
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            out[i] = x[i] + y[i]

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        storage: R.Any = R.memory.alloc_storage(R.shape([16]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        a: R.Tensor((4,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        _: R.Any = cls.add(x, x, a)
        b: R.Tensor((4,), dtype="float32") = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _1: R.Any = cls.add(a, x, b)
        k: R.Tuple = R.memory.kill_tensor(a)
        ks: R.Tuple = R.memory.kill_storage(storage)
        return b
)");
    runtime::NDArray x = Random({4}, 14);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x)});
    QVERIFY2(r.ok(), FirstError(r).c_str());
    for (int i = 0; i < 4; ++i) QCOMPARE(float(r.value.tensor.GetDouble(i)), float(3 * x.GetDouble(i)));
  }

  void opCallsRunThroughTheirLegalization() {
    // A legalization given by the caller: R.nn.relu as a hand-written kernel.
    ir::IRModule kernels = ParseOrFail(R"(
@T.prim_func(private=True)
def relu(x: T.Buffer((3,), "float32"), out: T.Buffer((3,), "float32")):
    for i in range(3):
        out[i] = T.max(x[i], T.float32(0.0))
)");
    relax::RelaxInterpretOptions options;
    int legalized = 0;
    options.legalize = [&](relax::BlockBuilder& bb, const relax::Call& call) -> std::optional<relax::Expr> {
      if (call->op.as<ir::OpNode>()->name != "relax.nn.relu") return std::nullopt;
      ++legalized;
      ir::GlobalVar gv = bb.AddFunction(kernels->functions[0], "relu");
      return relax::MakeOpCall("relax.call_tir", {gv, relax::MakeTuple({call->args[0]})}, {},
                               {relax::GetType(call)});
    };
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        y: R.Tensor((3,), dtype="float32") = R.nn.relu(x)
        z: R.Tensor((3,), dtype="float32") = R.nn.relu(y)
        return z
)");
    runtime::NDArray x = Random({3}, 13);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x)}, options);
    QVERIFY2(r.ok(), FirstError(r).c_str());
    QCOMPARE(legalized, 1);  // the second relu, on the same types, reuses the first's kernel
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(float(r.value.tensor.GetDouble(i)), float(std::max(x.GetDouble(i), 0.0)));
    }
    // Without a legalization the op is named in the error, at the call.
    options.legalize = [](relax::BlockBuilder&, const relax::Call&) { return std::nullopt; };
    auto none = relax::InterpretRelax(m, "main", {Value::Tensor(x)}, options);
    QVERIFY(!none.ok());
    QVERIFY2(FirstError(none).find("cannot evaluate R.nn.relu") != std::string::npos,
             FirstError(none).c_str());
    QVERIFY(none.diagnostics[0].span.defined());
  }

  void opCallsThroughLegalizeOps() {
    // What the batch runner and the pass tests run with: ops legalized as LegalizeOps does.
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    n = TypeVar("n")
    @R.function
    def main(x: R.Tensor((n, 3), dtype="float32"), w: R.Tensor((3, 4), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        with R.dataflow():
            lv = R.matmul(x, w)
            lv1 = R.add(lv, b)
            gv = R.nn.relu(lv1)
            R.output(gv)
        return gv
)");
    runtime::NDArray x = Random({5, 3}, 21), w = Random({3, 4}, 22), b = Random({4}, 23);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x), Value::Tensor(w), Value::Tensor(b)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    QCOMPARE(r.value.tensor.shape(), (std::vector<int64_t>{5, 4}));
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 4; ++j) {
        double acc = b.GetDouble(j);
        for (int k = 0; k < 3; ++k) acc += x.GetDouble(i * 3 + k) * w.GetDouble(k * 4 + j);
        QVERIFY(std::fabs(r.value.tensor.GetDouble(i * 4 + j) - std::max(acc, 0.0)) < 1e-5);
      }
    }
  }

  // The ops that the ONNX models do not reach, parsed from TVMScript (and printed back the same),
  // legalized and run, against their definitions computed here.
  void newOpsComputeTheirDefinitions() {
    const char* text = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32"), a: R.Tensor((3,), dtype="float32"), idx: R.Tensor((3,), dtype="int64")) -> R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="int32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 3), dtype="float32"), R.Tensor((2, 3, 3), dtype="float32"), R.Tensor((2, 3), dtype="int64")):
        with R.dataflow():
            p: R.Tensor((2, 3, 4), dtype="float32") = R.nn.prelu(x, a, axis=1)
            v: R.Tensor((2, 4), dtype="float32") = R.variance(x, axis=[1], keepdims=False)
            f: R.Tensor((2, 3, 4), dtype="float32") = R.flip(x, axis=-1)
            o: R.Tensor((2, 3, 4), dtype="int32") = R.ones_like(x, dtype="int32")
            fl: R.Tensor((2, 3, 4), dtype="float32") = R.full_like(x, R.const(2.5, "float32"), dtype="void")
            tw: R.Tensor((2, 3, 3), dtype="float32") = R.take(x, idx, axis=2, mode="wrap")
            tc: R.Tensor((2, 3, 3), dtype="float32") = R.take(x, idx, axis=2, mode="clip")
            am: R.Tensor((2, 3), dtype="int64") = R.argmin(x, axis=2, keepdims=False)
            gv: R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="int32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 3), dtype="float32"), R.Tensor((2, 3, 3), dtype="float32"), R.Tensor((2, 3), dtype="int64")) = p, v, f, o, fl, tw, tc, am
            R.output(gv)
        return gv
)";
    ir::IRModule m = ParseOrFail(text);
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    runtime::NDArray x = Random({2, 3, 4}, 41), a = Random({3}, 42);
    runtime::NDArray idx = runtime::NDArray::Empty({3}, runtime::Int(64));
    const int64_t idx_values[3] = {-1, 5, 1};
    for (int i = 0; i < 3; ++i) idx.SetDouble(i, double(idx_values[i]));
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x), Value::Tensor(a), Value::Tensor(idx)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    QCOMPARE(r.value.fields.size(), size_t(8));
    auto out = [&](size_t k, size_t i) { return r.value.fields[k].tensor.GetDouble(i); };
    auto X = [&](int b, int c, int w) { return x.GetDouble((b * 3 + c) * 4 + w); };
    auto near = [](double got, double want) { return std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want)); };
    for (int b = 0; b < 2; ++b) {
      for (int w = 0; w < 4; ++w) {
        double mean = 0, var = 0;
        for (int c = 0; c < 3; ++c) mean += X(b, c, w) / 3;
        for (int c = 0; c < 3; ++c) var += (X(b, c, w) - mean) * (X(b, c, w) - mean) / 3;
        QVERIFY2(near(out(1, b * 4 + w), var), "variance");
      }
      for (int c = 0; c < 3; ++c) {
        int best = 0;
        for (int w = 0; w < 4; ++w) {
          size_t i = (b * 3 + c) * 4 + w;
          double xv = X(b, c, w);
          QVERIFY2(near(out(0, i), xv >= 0 ? xv : xv * a.GetDouble(c)), "prelu");
          QCOMPARE(out(2, i), X(b, c, 3 - w));
          QCOMPARE(out(3, i), 1.0);
          QCOMPARE(out(4, i), 2.5);
          if (xv < X(b, c, best)) best = w;
        }
        QCOMPARE(out(7, b * 3 + c), double(best));
        for (int k = 0; k < 3; ++k) {
          int64_t wrapped = ((idx_values[k] % 4) + 4) % 4;
          int64_t clipped = std::min<int64_t>(std::max<int64_t>(idx_values[k], 0), 3);
          QCOMPARE(out(5, (b * 3 + c) * 3 + k), X(b, c, int(wrapped)));
          QCOMPARE(out(6, (b * 3 + c) * 3 + k), X(b, c, int(clipped)));
        }
      }
    }
  }

  // The loss ops and the gradient helpers against their formulas on random inputs: nll_loss
  // (weighted mean with an ignored target, unweighted sum, no batch) and its gradient,
  // cross_entropy_with_logits,
  // gelu_tanh, batch_flatten, collapse_sum_like / collapse_sum_to, std, and astype of a scalar
  // constant (folded by LegalizeOps into a constant).
  void lossesAndHelpersComputeTheirDefinitions() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((2, 3, 4), dtype="float32"), t: R.Tensor((2, 4), dtype="int64"), w: R.Tensor((3,), dtype="float32"), x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32"), t0: R.Tensor((), dtype="int64")) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 12), dtype="float32"), R.Tensor((1, 3), dtype="float32"), R.Tensor((3, 1), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((), dtype="int32"), R.Tensor((2, 3, 4), dtype="float32")):
        with R.dataflow():
            l0: R.Tensor((), dtype="float32") = R.nn.nll_loss(p, t, w, reduction="mean", ignore_index=1)
            l1: R.Tensor((), dtype="float32") = R.nn.nll_loss(p, t, reduction="sum", ignore_index=-100)
            l2: R.Tensor((2, 4), dtype="float32") = R.nn.nll_loss(p, t, w, reduction="none", ignore_index=1)
            l3: R.Tensor((), dtype="float32") = R.nn.nll_loss(w, t0, w, reduction="mean", ignore_index=-100)
            ce: R.Tensor((), dtype="float32") = R.nn.cross_entropy_with_logits(x, y)
            g: R.Tensor((2, 3), dtype="float32") = R.nn.gelu_tanh(x)
            bf: R.Tensor((2, 12), dtype="float32") = R.nn.batch_flatten(p)
            cl: R.Tensor((1, 3), dtype="float32") = R.collapse_sum_like(x, R.zeros(R.shape([1, 3]), dtype="float32"))
            ct: R.Tensor((3, 1), dtype="float32") = R.collapse_sum_to(p, R.shape([3, 1]))
            sd: R.Tensor((2,), dtype="float32") = R.std(x, axis=[1], keepdims=False)
            c: R.Tensor((), dtype="int32") = R.astype(R.const(-2.75, "float32"), dtype="int32")
            bk: R.Tensor((2, 3, 4), dtype="float32") = R.grad.nll_loss_backward(R.const(1.5, "float32"), p, t, w, reduction="mean", ignore_index=1)
            gv: R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 12), dtype="float32"), R.Tensor((1, 3), dtype="float32"), R.Tensor((3, 1), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((), dtype="int32"), R.Tensor((2, 3, 4), dtype="float32")) = l0, l1, l2, l3, ce, g, bf, cl, ct, sd, c, bk
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    runtime::NDArray p = Random({2, 3, 4}, 51), w = Random({3}, 52), x = Random({2, 3}, 53), y = Random({2, 3}, 54);
    runtime::NDArray t = runtime::NDArray::Empty({2, 4}, runtime::Int(64));
    const int64_t targets[8] = {0, 1, 2, 2, 1, 0, 0, 2};
    for (int i = 0; i < 8; ++i) t.SetDouble(i, double(targets[i]));
    runtime::NDArray t0 = runtime::NDArray::Empty({}, runtime::Int(64));
    t0.SetDouble(0, 2);
    // Through LegalizeOps (the astype folded) and through the interpreter's own legalization.
    for (bool legalize_first : {false, true}) {
      ir::IRModule run = legalize_first ? transform::LegalizeModule(m) : m;
      auto r = relax::InterpretRelax(run, "main",
                                     {Value::Tensor(p), Value::Tensor(t), Value::Tensor(w), Value::Tensor(x),
                                      Value::Tensor(y), Value::Tensor(t0)},
                                     transform::InterpreterOptions());
      QVERIFY2(r.ok(), FirstError(r).c_str());
      auto out = [&](size_t k, size_t i) { return r.value.fields[k].tensor.GetDouble(i); };
      auto near = [](double got, double want) { return std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want)); };
      auto P = [&](int n, int c, int d) { return p.GetDouble((n * 3 + c) * 4 + d); };
      double wsum = 0, wloss = 0, sum = 0;
      for (int n = 0; n < 2; ++n) {
        for (int d = 0; d < 4; ++d) {
          int64_t c = targets[n * 4 + d];
          sum += -P(n, int(c), d);
          double term = c == 1 ? 0.0 : -P(n, int(c), d) * w.GetDouble(c);
          QVERIFY2(near(out(2, n * 4 + d), term), "nll_loss none");
          if (c != 1) {
            wloss += term;
            wsum += w.GetDouble(c);
          }
        }
      }
      QVERIFY2(near(out(0, 0), wloss / wsum), "nll_loss mean");
      // The gradient of the weighted mean: -w[t] * 1.5 / wsum at each target's class.
      for (int n = 0; n < 2; ++n) {
        for (int c = 0; c < 3; ++c) {
          for (int d = 0; d < 4; ++d) {
            int64_t tc = targets[n * 4 + d];
            double want = (c == tc && tc != 1) ? -w.GetDouble(tc) * 1.5 / wsum : 0.0;
            QVERIFY2(near(out(11, (n * 3 + c) * 4 + d), want), "nll_loss_backward");
          }
        }
      }
      QVERIFY2(near(out(1, 0), sum), "nll_loss sum");
      QVERIFY2(near(out(3, 0), -w.GetDouble(2) * w.GetDouble(2) / w.GetDouble(2)), "nll_loss without a batch");
      double ce = 0;
      for (int i = 0; i < 6; ++i) ce -= x.GetDouble(i) * y.GetDouble(i);
      QVERIFY2(near(out(4, 0), ce / 2), "cross_entropy_with_logits");
      for (int i = 0; i < 6; ++i) {
        double v = x.GetDouble(i);
        double want = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
        QVERIFY2(near(out(5, i), want), "gelu_tanh");
      }
      for (int i = 0; i < 24; ++i) QCOMPARE(out(6, i), p.GetDouble(i));
      for (int j = 0; j < 3; ++j) QVERIFY2(near(out(7, j), x.GetDouble(j) + x.GetDouble(3 + j)), "collapse_sum_like");
      for (int c = 0; c < 3; ++c) {
        double want = 0;
        for (int n = 0; n < 2; ++n)
          for (int d = 0; d < 4; ++d) want += P(n, c, d);
        QVERIFY2(near(out(8, c), want), "collapse_sum_to");
      }
      for (int n = 0; n < 2; ++n) {
        double mean = 0, var = 0;
        for (int j = 0; j < 3; ++j) mean += x.GetDouble(n * 3 + j) / 3;
        for (int j = 0; j < 3; ++j) var += std::pow(x.GetDouble(n * 3 + j) - mean, 2) / 3;
        QVERIFY2(near(out(9, n), std::sqrt(var)), "std");
      }
      QCOMPARE(out(10, 0), -2.0);
    }
  }

  // LegalizeOps on a concat of a tuple-typed value (its fields taken out first) and a take at a
  // symbolic index (R.prim_value(n - 1)), then a 4-way group_norm in TVM's split form, run
  // against their definitions.
  void legalizedTupleConcatSymbolicTakeAndGroupNorm() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 2), dtype="float32")), x: R.Tensor((2, "n", 4), dtype="float32"), g: R.Tensor((1, 8, 3), dtype="float32"), gamma: R.Tensor((8,), dtype="float32"), beta: R.Tensor((8,), dtype="float32")) -> R.Tuple(R.Tensor((2, 5), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((1, 8, 3), dtype="float32")):
        n = T.int64()
        c: R.Tensor((2, 5), dtype="float32") = R.concat(t, axis=1)
        k: R.Tensor((2, 4), dtype="float32") = R.take(x, R.prim_value(n - 1), axis=1)
        gn: R.Tensor((1, 8, 3), dtype="float32") = R.nn.group_norm(g, gamma, beta, num_groups=4, channel_axis=1, axes=[2])
        gv: R.Tuple(R.Tensor((2, 5), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((1, 8, 3), dtype="float32")) = c, k, gn
        return gv
)");
    DiagnosticList warnings;
    ir::IRModule legal = transform::LegalizeModule(m, &warnings);
    QVERIFY2(warnings.empty(), warnings.empty() ? "" : warnings[0].message.c_str());
    runtime::NDArray a = Random({2, 3}, 71), b = Random({2, 2}, 72), x = Random({2, 5, 4}, 73);
    runtime::NDArray g = Random({1, 8, 3}, 74), gamma = Random({8}, 75), beta = Random({8}, 76);
    auto r = relax::InterpretRelax(legal, "main",
                                   {Value::TupleOf({Value::Tensor(a), Value::Tensor(b)}), Value::Tensor(x),
                                    Value::Tensor(g), Value::Tensor(gamma), Value::Tensor(beta)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    auto out = [&](size_t k, size_t i) { return r.value.fields[k].tensor.GetDouble(i); };
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 5; ++j) QCOMPARE(out(0, i * 5 + j), j < 3 ? a.GetDouble(i * 3 + j) : b.GetDouble(i * 2 + j - 3));
      for (int j = 0; j < 4; ++j) QCOMPARE(out(1, i * 4 + j), x.GetDouble((i * 5 + 4) * 4 + j));
    }
    for (int grp = 0; grp < 4; ++grp) {
      double mean = 0, var = 0;
      for (int e = 0; e < 6; ++e) mean += g.GetDouble(grp * 6 + e) / 6;
      for (int e = 0; e < 6; ++e) var += std::pow(g.GetDouble(grp * 6 + e) - mean, 2) / 6;
      for (int e = 0; e < 6; ++e) {
        int ch = grp * 2 + e / 3;
        double want = (g.GetDouble(grp * 6 + e) - mean) / std::sqrt(var + 1e-5) * gamma.GetDouble(ch) + beta.GetDouble(ch);
        QVERIFY2(std::fabs(out(2, grp * 6 + e) - want) <= 1e-4 * (1 + std::fabs(want)), "group_norm");
      }
    }
  }

  // conv2d_transpose, grouped, strided, padded, dilated and with output padding (TVM's dilate,
  // pad, kernel-transform and convolution stages), against the scatter definition: every input
  // element adds data * weight at output position q * stride - pad_before + r * dilation.
  void conv2dTransposeMatchesTheScatter() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 3, 4), dtype="float32"), w: R.Tensor((4, 3, 2, 3), dtype="float32")) -> R.Tensor((1, 6, 7, 6), dtype="float32"):
        gv: R.Tensor((1, 6, 7, 6), dtype="float32") = R.nn.conv2d_transpose(x, w, strides=[2, 2], padding=[1, 2, 0, 1], output_padding=[1, 0], dilation=[2, 1], groups=2)
        return gv
)");
    runtime::NDArray x = Random({1, 4, 3, 4}, 61), w = Random({4, 3, 2, 3}, 62);
    auto r = relax::InterpretRelax(transform::LegalizeModule(m), "main", {Value::Tensor(x), Value::Tensor(w)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    std::vector<double> want(6 * 7 * 6, 0.0);
    const int stride[2] = {2, 2}, pad[2] = {1, 2}, dil[2] = {2, 1};
    for (int c = 0; c < 4; ++c) {
      int g = c / 2;
      for (int qh = 0; qh < 3; ++qh)
        for (int qw = 0; qw < 4; ++qw)
          for (int f = 0; f < 3; ++f)
            for (int rh = 0; rh < 2; ++rh)
              for (int rw = 0; rw < 3; ++rw) {
                int oh = qh * stride[0] - pad[0] + rh * dil[0], ow = qw * stride[1] - pad[1] + rw * dil[1];
                if (oh < 0 || oh >= 7 || ow < 0 || ow >= 6) continue;
                want[((g * 3 + f) * 7 + oh) * 6 + ow] +=
                    x.GetDouble((c * 3 + qh) * 4 + qw) * w.GetDouble(((c * 3 + f) * 2 + rh) * 3 + rw);
              }
    }
    for (size_t i = 0; i < want.size(); ++i) {
      QVERIFY2(std::fabs(r.value.tensor.GetDouble(int64_t(i)) - want[i]) <= 1e-4 * (1 + std::fabs(want[i])),
               ("conv2d_transpose at " + std::to_string(i)).c_str());
    }
  }

  // group_norm (a symbolic batch, 3 groups of 2 channels) and instance_norm, each against the
  // formula: per (sample, group) mean and variance over the group's channels and the axes.
  void groupAndInstanceNorm() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 6, 5), dtype="float32"), g: R.Tensor((6,), dtype="float32"), b: R.Tensor((6,), dtype="float32")) -> R.Tuple(R.Tensor(("n", 6, 5), dtype="float32"), R.Tensor(("n", 6, 5), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            gn: R.Tensor((n, 6, 5), dtype="float32") = R.nn.group_norm(x, g, b, num_groups=3, channel_axis=1, axes=[2], epsilon=1.0000000000000001e-05, center=True, scale=True)
            inorm: R.Tensor((n, 6, 5), dtype="float32") = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2], epsilon=0.001, center=True, scale=False)
            gv: R.Tuple(R.Tensor((n, 6, 5), dtype="float32"), R.Tensor((n, 6, 5), dtype="float32")) = gn, inorm
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    runtime::NDArray x = Random({2, 6, 5}, 44), g = Random({6}, 45), b = Random({6}, 46);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x), Value::Tensor(g), Value::Tensor(b)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    auto X = [&](int s, int c, int w) { return x.GetDouble((s * 6 + c) * 5 + w); };
    auto near = [](double got, double want) { return std::fabs(got - want) <= 1e-4 * (1 + std::fabs(want)); };
    for (int s = 0; s < 2; ++s) {
      for (int c = 0; c < 6; ++c) {
        // The statistics of c's group (channels 2 * (c / 2) and the next) and of c alone.
        double gm = 0, gvar = 0, cm = 0, cvar = 0;
        for (int k = 0; k < 2; ++k) {
          for (int w = 0; w < 5; ++w) gm += X(s, 2 * (c / 2) + k, w) / 10;
        }
        for (int k = 0; k < 2; ++k) {
          for (int w = 0; w < 5; ++w) gvar += std::pow(X(s, 2 * (c / 2) + k, w) - gm, 2) / 10;
        }
        for (int w = 0; w < 5; ++w) cm += X(s, c, w) / 5;
        for (int w = 0; w < 5; ++w) cvar += std::pow(X(s, c, w) - cm, 2) / 5;
        for (int w = 0; w < 5; ++w) {
          size_t i = (s * 6 + c) * 5 + w;
          double want_g = (X(s, c, w) - gm) / std::sqrt(gvar + 1e-5) * g.GetDouble(c) + b.GetDouble(c);
          double want_i = (X(s, c, w) - cm) / std::sqrt(cvar + 1e-3) + b.GetDouble(c);
          QVERIFY2(near(r.value.fields[0].tensor.GetDouble(i), want_g), "group_norm");
          QVERIFY2(near(r.value.fields[1].tensor.GetDouble(i), want_i), "instance_norm");
        }
      }
    }
  }

  // attention against its definition: softmax(q k^T * scale + bias) v per (batch, head) over the
  // keys the causal mask allows, with grouped-query heads (4 query heads over 2 key/value heads,
  // our one kernel) and with the query's 4 heads (TVM's composed stages), the default scale 1/sqrt(head_dim), a bias broadcast over the batch, and both masks.
  void attentionMatchesItsDefinition_data() {
    QTest::addColumn<int>("kv_heads");
    QTest::newRow("grouped heads (one kernel)") << 2;
    QTest::newRow("the query's heads (TVM's composition)") << 4;
  }
  void attentionMatchesItsDefinition() {
    QFETCH(int, kv_heads);
    std::string text = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((2, 3, 4, 5), dtype="float32"), k: R.Tensor((2, 6, 2, 5), dtype="float32"), v: R.Tensor((2, 6, 2, 7), dtype="float32"), bias: R.Tensor((1, 4, 3, 6), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 4, 7), dtype="float32"), R.Tensor((2, 3, 4, 7), dtype="float32"), R.Tensor((2, 3, 4, 7), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((2, 3, 4, 7), dtype="float32") = R.nn.attention(q, k, v, scale=None, causal_mask=None, window_size=None)
            b: R.Tensor((2, 3, 4, 7), dtype="float32") = R.nn.attention(q, k, v, bias, scale=0.25, causal_mask="TopLeft")
            c: R.Tensor((2, 3, 4, 7), dtype="float32") = R.nn.attention_bias(q, k, v, bias, scale=T.float32(0.5), causal_mask="BottomRight", window_size=None)
            gv: R.Tuple(R.Tensor((2, 3, 4, 7), dtype="float32"), R.Tensor((2, 3, 4, 7), dtype="float32"), R.Tensor((2, 3, 4, 7), dtype="float32")) = a, b, c
            R.output(gv)
        return gv
)";
    for (const char* from : {"(2, 6, 2, 5)", "(2, 6, 2, 7)"}) {
      std::string to = from;
      to[7] = char('0' + kv_heads);
      text.replace(text.find(from), std::string(from).size(), to);
    }
    ir::IRModule m = ParseOrFail(text);
    std::string printed = script::PrintModule(m);
    // The bias form prints as TVM's attention_bias, the scale as a float32 literal.
    QVERIFY2(printed.find("R.nn.attention_bias(q, k, v, bias, scale=T.float32(0.25), causal_mask=\"TopLeft\", window_size=None)") != std::string::npos, printed.c_str());
    QVERIFY2(printed.find("R.nn.attention(q, k, v, scale=None, causal_mask=None, window_size=None)") != std::string::npos, printed.c_str());
    QCOMPARE(script::PrintModule(ParseOrFail(printed)), printed);
    runtime::NDArray q = Random({2, 3, 4, 5}, 61), k = Random({2, 6, kv_heads, 5}, 62), v = Random({2, 6, kv_heads, 7}, 63),
                     bias = Random({1, 4, 3, 6}, 64);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(q), Value::Tensor(k), Value::Tensor(v), Value::Tensor(bias)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    auto near = [](double got, double want) { return std::fabs(got - want) <= 1e-4 * (1 + std::fabs(want)); };
    // mask: 0 none, 1 TopLeft (j <= i), 2 BottomRight (j <= i + |3 - 6|).
    auto check = [&](const runtime::NDArray& out, double scale, bool with_bias, int mask) {
      for (int b = 0; b < 2; ++b) {
        for (int h = 0; h < 4; ++h) {
          int kh = h / (4 / kv_heads);
          for (int i = 0; i < 3; ++i) {
            std::vector<double> w(6, 0.0);
            double top = -1e30, total = 0;
            for (int j = 0; j < 6; ++j) {
              double dot = 0;
              for (int d = 0; d < 5; ++d) {
                dot += q.GetDouble(((b * 3 + i) * 4 + h) * 5 + d) * k.GetDouble(((b * 6 + j) * kv_heads + kh) * 5 + d);
              }
              w[j] = dot * scale + (with_bias ? bias.GetDouble((h * 3 + i) * 6 + j) : 0.0);
              bool visible = mask == 0 || (mask == 1 ? j <= i : j <= i + 3);
              if (!visible) w[j] = -1e30;
              top = std::max(top, w[j]);
            }
            for (double& x : w) total += (x = x <= -1e29 ? 0.0 : std::exp(x - top));
            for (int e = 0; e < 7; ++e) {
              double want = 0;
              for (int j = 0; j < 6; ++j) want += w[j] / total * v.GetDouble(((b * 6 + j) * kv_heads + kh) * 7 + e);
              double got = out.GetDouble(((b * 3 + i) * 4 + h) * 7 + e);
              if (!near(got, want)) return false;
            }
          }
        }
      }
      return true;
    };
    QVERIFY2(check(r.value.fields[0].tensor, 1 / std::sqrt(5.0), false, 0), "attention");
    QVERIFY2(check(r.value.fields[1].tensor, 0.25, true, 1), "attention, bias, TopLeft");
    QVERIFY2(check(r.value.fields[2].tensor, 0.5, true, 2), "attention_bias, BottomRight");
  }

  // arange's short forms, as TVM's Python API takes them: arange(end) and arange(start, end),
  // printed with all three bounds.
  void arangeShortForms() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import relax as R

@R.function
def main() -> R.Tuple(R.Tensor((5,), dtype="int64"), R.Tensor((4,), dtype="int64")):
    a = R.arange(5)
    b = R.arange(2, 6)
    return (a, b)
)");
    std::string printed = script::PrintModule(m);
    QVERIFY2(printed.find("R.arange(0, 5, 1, dtype=\"int64\")") != std::string::npos, printed.c_str());
    QVERIFY2(printed.find("R.arange(2, 6, 1, dtype=\"int64\")") != std::string::npos, printed.c_str());
    QCOMPARE(script::PrintModule(ParseOrFail(printed)), printed);
    auto r = relax::InterpretRelax(m, "main", {}, transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    for (int i = 0; i < 5; ++i) QCOMPARE(r.value.fields[0].tensor.GetDouble(i), double(i));
    for (int i = 0; i < 4; ++i) QCOMPARE(r.value.fields[1].tensor.GetDouble(i), double(2 + i));
  }

  // tril / triu against their definition (col - row <= k, >= k), k a literal, left out (printed
  // as 0) and a symbolic dim; isnan / isinf / isfinite on the special values.
  void trilTriuAndPredicates() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3, 4), dtype="float32"), s: R.Tensor((4,), dtype="float32"), c: R.Shape(["n"])) -> R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((4,), dtype="bool"), R.Tensor((4,), dtype="bool"), R.Tensor((4,), dtype="bool")):
    a = R.tril(x, -1)
    b = R.triu(x)
    d = R.tril(x, R.prim_value(n))
    e = R.isnan(s)
    f = R.isinf(s)
    g = R.isfinite(s)
    return (a, b, d, e, f, g)
)");
    std::string printed = script::PrintModule(m);
    QVERIFY2(printed.find("R.triu(x, 0)") != std::string::npos, printed.c_str());
    QCOMPARE(script::PrintModule(ParseOrFail(printed)), printed);
    runtime::NDArray x = Random({2, 3, 4}, 51);
    runtime::NDArray sp = runtime::NDArray::Empty({4}, runtime::Float(32));
    const double specials[4] = {1.0, std::nan(""), HUGE_VAL, -HUGE_VAL};
    for (int i = 0; i < 4; ++i) sp.SetDouble(i, specials[i]);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x), Value::Tensor(sp), Value::ShapeOf({2})},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    for (int b = 0; b < 2; ++b) {
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 4; ++j) {
          size_t at = (b * 3 + i) * 4 + j;
          double v = x.GetDouble(at);
          QCOMPARE(r.value.fields[0].tensor.GetDouble(at), j - i <= -1 ? v : 0.0);
          QCOMPARE(r.value.fields[1].tensor.GetDouble(at), j - i >= 0 ? v : 0.0);
          QCOMPARE(r.value.fields[2].tensor.GetDouble(at), j - i <= 2 ? v : 0.0);
        }
      }
    }
    const double nan[4] = {0, 1, 0, 0}, inf[4] = {0, 0, 1, 1}, finite[4] = {1, 0, 0, 0};
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(r.value.fields[3].tensor.GetDouble(i), nan[i]);
      QCOMPARE(r.value.fields[4].tensor.GetDouble(i), inf[i]);
      QCOMPARE(r.value.fields[5].tensor.GetDouble(i), finite[i]);
    }
  }

  // attention's struct info errors name the operand and the dim.
  void attentionErrors() {
    auto error = [](const std::string& call, const std::string& q, const std::string& k) {
      std::string text = "# from tvm.script import relax as R\n\n@R.function\ndef main(q: R.Tensor(" + q +
                         ", dtype=\"float32\"), k: R.Tensor(" + k + ", dtype=\"float32\")):\n    x = " + call + "\n    return x\n";
      script::ParseResult p = script::Parse(text, "attention.py");
      return p.ok() ? std::string() : RenderDiagnostics(p.diagnostics);
    };
    std::string heads = error("R.nn.attention(q, k, k)", "(1, 2, 3, 4)", "(1, 2, 2, 4)");
    QVERIFY2(heads.find("number of heads (3) must be a multiple") != std::string::npos, heads.c_str());
    std::string dim = error("R.nn.attention(q, k, k)", "(1, 2, 2, 4)", "(1, 2, 2, 8)");
    QVERIFY2(dim.find("dimension of heads") != std::string::npos, dim.c_str());
    std::string rank = error("R.nn.attention(q, k, k)", "(2, 4)", "(1, 2, 2, 4)");
    QVERIFY2(rank.find("query must be 4-D") != std::string::npos, rank.c_str());
    std::string mask = error("R.nn.attention(q, k, k, causal_mask=\"Diagonal\")", "(1, 2, 2, 4)", "(1, 2, 2, 4)");
    QVERIFY2(mask.find("causal_mask must be None") != std::string::npos, mask.c_str());
  }

  // resize2d's methods and coordinate transformations against their definitions: the source
  // coordinate of each output pixel, neighbors clamped to the image.
  void resize2dMatchesItsDefinition() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((1, 2, 5, 7), dtype="float32"), R.Tensor((1, 2, 5, 7), dtype="float32"), R.Tensor((1, 2, 5, 7), dtype="float32"), R.Tensor((1, 2, 6, 8), dtype="float32"), R.Tensor((1, 2, 1, 3), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((1, 2, 5, 7), dtype="float32") = R.image.resize2d(x, R.shape([5, 7]), roi=[T.float32(0.0), T.float32(0.0), T.float32(0.0), T.float32(0.0)], layout="NCHW", method="linear", coordinate_transformation_mode="half_pixel", rounding_method="round", cubic_alpha=-0.75, cubic_exclude=0, extrapolation_value=0.0)
            b: R.Tensor((1, 2, 5, 7), dtype="float32") = R.image.resize2d(x, R.shape([5, 7]), method="linear", coordinate_transformation_mode="align_corners")
            c: R.Tensor((1, 2, 5, 7), dtype="float32") = R.image.resize2d(x, R.shape([5, 7]), method="nearest_neighbor", coordinate_transformation_mode="half_pixel", rounding_method="round_prefer_floor")
            d: R.Tensor((1, 2, 6, 8), dtype="float32") = R.image.resize2d(x, R.shape([6, 8]), method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor")
            e: R.Tensor((1, 2, 1, 3), dtype="float32") = R.image.resize2d(x, R.shape([1, 3]), method="linear", coordinate_transformation_mode="pytorch_half_pixel")
            gv: R.Tuple(R.Tensor((1, 2, 5, 7), dtype="float32"), R.Tensor((1, 2, 5, 7), dtype="float32"), R.Tensor((1, 2, 5, 7), dtype="float32"), R.Tensor((1, 2, 6, 8), dtype="float32"), R.Tensor((1, 2, 1, 3), dtype="float32")) = a, b, c, d, e
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    runtime::NDArray x = Random({1, 2, 3, 4}, 47);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x)}, transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    auto X = [&](int c, int64_t y, int64_t w) {
      y = std::clamp<int64_t>(y, 0, 2);
      w = std::clamp<int64_t>(w, 0, 3);
      return x.GetDouble((c * 3 + y) * 4 + w);
    };
    // mode: 0 half_pixel, 1 align_corners, 2 asymmetric, 3 pytorch_half_pixel.
    auto source = [](int mode, int o, int in, int out) {
      if (mode == 1) return out > 1 ? o * double(in - 1) / (out - 1) : 0.0;
      if (mode == 2) return o * double(in) / out;
      if (mode == 3 && out == 1) return 0.0;
      return (o + 0.5) * in / out - 0.5;
    };
    auto bilinear = [&](int c, double sy, double sx) {
      double fy = std::floor(sy), fx = std::floor(sx), ty = sy - fy, tx = sx - fx;
      auto y0 = int64_t(fy), x0 = int64_t(fx);
      double top = X(c, y0, x0) * (1 - tx) + X(c, y0, x0 + 1) * tx;
      double bottom = X(c, y0 + 1, x0) * (1 - tx) + X(c, y0 + 1, x0 + 1) * tx;
      return top * (1 - ty) + bottom * ty;
    };
    auto near = [](double got, double want) { return std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want)); };
    struct Case { size_t field; int mode; bool linear; int oh, ow; };
    for (Case k : {Case{0, 0, true, 5, 7}, Case{1, 1, true, 5, 7}, Case{2, 0, false, 5, 7}, Case{3, 2, false, 6, 8},
                   Case{4, 3, true, 1, 3}}) {
      for (int c = 0; c < 2; ++c) {
        for (int i = 0; i < k.oh; ++i) {
          for (int j = 0; j < k.ow; ++j) {
            double sy = source(k.mode, i, 3, k.oh), sx = source(k.mode, j, 4, k.ow);
            double want = k.linear ? bilinear(c, sy, sx)
                          : k.mode == 2 ? X(c, int64_t(std::floor(sy)), int64_t(std::floor(sx)))
                                        : X(c, int64_t(std::ceil(sy - 0.5)), int64_t(std::ceil(sx - 0.5)));
            double got = r.value.fields[k.field].tensor.GetDouble((c * k.oh + i) * k.ow + j);
            QVERIFY2(near(got, want), ("resize case " + std::to_string(k.field)).c_str());
          }
        }
      }
    }
  }

  // scatter_elements and scatter_nd against sequential scatters: repeated and negative indices,
  // the last update winning for "update", the others combined.
  void scatterMatchesSequentialScatter() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5), dtype="float32"), i: R.Tensor((2, 3), dtype="int64"), u: R.Tensor((2, 3), dtype="float32"), ni: R.Tensor((4, 1), dtype="int64"), nu: R.Tensor((4, 5), dtype="float32"), pi: R.Tensor((3, 2), dtype="int64"), pu: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 5), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((3, 5), dtype="float32") = R.scatter_elements(x, i, u, axis=1, reduction="update")
            b: R.Tensor((3, 5), dtype="float32") = R.scatter_elements(x, i, u, axis=1, reduction="add")
            c: R.Tensor((3, 5), dtype="float32") = R.scatter_nd(x, ni, nu, reduction="update")
            d: R.Tensor((3, 5), dtype="float32") = R.scatter_nd(x, ni, nu, reduction="mul")
            e: R.Tensor((3, 5), dtype="float32") = R.scatter_nd(x, pi, pu, reduction="max")
            gv: R.Tuple(R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 5), dtype="float32"), R.Tensor((3, 5), dtype="float32")) = a, b, c, d, e
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    runtime::NDArray x = Random({3, 5}, 48), u = Random({2, 3}, 49), nu = Random({4, 5}, 50), pu = Random({3}, 51);
    auto ints = [](std::vector<int64_t> shape, const std::vector<int64_t>& v) {
      runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), runtime::Int(64));
      for (size_t k = 0; k < v.size(); ++k) a.SetDouble(k, double(v[k]));
      return a;
    };
    // Row 0 hits column 1 twice; -1 is the last column.
    std::vector<int64_t> iv = {1, 1, -1, 0, 4, 2}, niv = {2, 0, -1, 2}, piv = {0, 0, 1, 4, 0, 0};
    runtime::NDArray i = ints({2, 3}, iv), ni = ints({4, 1}, niv), pi = ints({3, 2}, piv);
    auto r = relax::InterpretRelax(
        m, "main",
        {Value::Tensor(x), Value::Tensor(i), Value::Tensor(u), Value::Tensor(ni), Value::Tensor(nu), Value::Tensor(pi),
         Value::Tensor(pu)},
        transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    std::vector<std::vector<double>> want(5, std::vector<double>(15));
    for (auto& w : want) {
      for (int k = 0; k < 15; ++k) w[k] = x.GetDouble(k);
    }
    auto wrap = [](int64_t v, int64_t n) { return v < 0 ? v + n : v; };
    for (int p = 0; p < 2; ++p) {
      for (int q = 0; q < 3; ++q) {
        int64_t at = p * 5 + wrap(iv[p * 3 + q], 5);
        want[0][at] = u.GetDouble(p * 3 + q);
        want[1][at] += u.GetDouble(p * 3 + q);
      }
    }
    for (int p = 0; p < 4; ++p) {
      int64_t row = wrap(niv[p], 3);
      for (int c = 0; c < 5; ++c) {
        want[2][row * 5 + c] = nu.GetDouble(p * 5 + c);
        want[3][row * 5 + c] *= nu.GetDouble(p * 5 + c);
      }
    }
    for (int p = 0; p < 3; ++p) {
      int64_t at = piv[p * 2] * 5 + piv[p * 2 + 1];
      want[4][at] = std::max(want[4][at], pu.GetDouble(p));
    }
    for (size_t f = 0; f < 5; ++f) {
      for (int k = 0; k < 15; ++k) {
        double got = r.value.fields[f].tensor.GetDouble(k);
        QVERIFY2(std::fabs(got - want[f][k]) <= 1e-5 * (1 + std::fabs(want[f][k])),
                 ("scatter case " + std::to_string(f) + " element " + std::to_string(k)).c_str());
      }
    }
  }

  // quantize per channel (saturating, ties to even) and dequantize per tensor, against the
  // formulas.
  void quantizeAndDequantize() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), s: R.Tensor((3,), dtype="float32"), z: R.Tensor((3,), dtype="int8"), q: R.Tensor((2, 3), dtype="uint8"), ds: R.Tensor((), dtype="float32"), dz: R.Tensor((), dtype="uint8")) -> R.Tuple(R.Tensor((2, 3), dtype="int8"), R.Tensor((2, 3), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((2, 3), dtype="int8") = R.quantize(x, s, z, out_dtype="int8", axis=1)
            b: R.Tensor((2, 3), dtype="float32") = R.dequantize(q, ds, dz, out_dtype="float32", axis=-1)
            gv: R.Tuple(R.Tensor((2, 3), dtype="int8"), R.Tensor((2, 3), dtype="float32")) = a, b
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    auto of = [](std::vector<int64_t> shape, runtime::DLDataType t, const std::vector<double>& v) {
      runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), t);
      for (size_t k = 0; k < v.size(); ++k) a.SetDouble(k, v[k]);
      return a;
    };
    // 2.5 / 1 and -0.5 / 1 are ties (to 2 and -0); 300 saturates.
    std::vector<double> xv = {2.5, -0.5, 300.0, -1.3, 0.26, -40.0};
    runtime::NDArray x = of({2, 3}, runtime::Float(32), xv);
    runtime::NDArray s = of({3}, runtime::Float(32), {1.0, 0.5, 0.25});
    runtime::NDArray z = of({3}, runtime::Int(8), {0, 3, -10});
    std::vector<double> qv = {0, 17, 128, 200, 255, 3};
    runtime::NDArray qu = of({2, 3}, runtime::UInt(8), qv);
    runtime::NDArray ds = of({}, runtime::Float(32), {0.125}), dz = of({}, runtime::UInt(8), {128});
    auto r = relax::InterpretRelax(
        m, "main",
        {Value::Tensor(x), Value::Tensor(s), Value::Tensor(z), Value::Tensor(qu), Value::Tensor(ds), Value::Tensor(dz)},
        transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    const double sv[3] = {1.0, 0.5, 0.25}, zv[3] = {0, 3, -10};
    for (int k = 0; k < 6; ++k) {
      double want = std::clamp(std::nearbyint(float(xv[k]) / sv[k % 3]) + zv[k % 3], -128.0, 127.0);
      QCOMPARE(r.value.fields[0].tensor.GetDouble(k), want);
      QCOMPARE(r.value.fields[1].tensor.GetDouble(k), (qv[k] - 128) * 0.125);
    }
  }

  // The kernels LegalizeOps writes as TVM does: dequantize with scalar constant parameters
  // folded into the kernel (the difference in int32), quantize likewise, atan2 broadcasting,
  // gelu as x * (0.5 + erf(x / sqrt 2) * 0.5), take of a scalar index (a variable and a
  // constant), shape_to_tensor; each against its formula on random inputs.
  void tvmFormKernelsComputeTheirFormulas() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((2, 3), dtype="int8"), x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32"), k: R.Prim("int64")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="uint8"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((3,), dtype="float32"), R.Tensor((2,), dtype="int64")):
        with R.dataflow():
            d: R.Tensor((2, 3), dtype="float32") = R.dequantize(q, R.const(0.25, "float32"), R.const(-3, "int8"), out_dtype="float32", axis=0)
            u: R.Tensor((2, 3), dtype="uint8") = R.quantize(x, R.const(0.125, "float32"), R.const(100, "uint8"), out_dtype="uint8", axis=0)
            t: R.Tensor((2, 3), dtype="float32") = R.atan2(x, y)
            g: R.Tensor((2, 3), dtype="float32") = R.nn.gelu(x)
            tk: R.Tensor((2,), dtype="float32") = R.take(x, k, axis=1)
            tc: R.Tensor((3,), dtype="float32") = R.take(x, R.prim_value(1), axis=0)
            st: R.Tensor((2,), dtype="int64") = R.shape_to_tensor(R.shape_of(x))
            gv: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="uint8"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((3,), dtype="float32"), R.Tensor((2,), dtype="int64")) = d, u, t, g, tk, tc, st
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    // The scalar constants are folded: each quantization kernel takes the data alone.
    ir::IRModule legal = transform::LegalizeModule(m);
    for (const char* name : {"dequantize", "quantize"}) {
      auto f = legal->Lookup(name).as_ref<tir::PrimFuncNode>();
      QVERIFY2(f.defined(), name);
      QCOMPARE(f->params.size(), size_t(2));
    }
    runtime::NDArray q = runtime::NDArray::Empty({2, 3}, runtime::Int(8));
    const double qv[6] = {-128, -3, 0, 5, 77, 127};
    for (int k = 0; k < 6; ++k) q.SetDouble(k, qv[k]);
    runtime::NDArray x = Random({2, 3}, 61), y = Random({3}, 62);
    auto r = relax::InterpretRelax(m, "main",
                                   {Value::Tensor(q), Value::Tensor(x), Value::Tensor(y),
                                    Value::Int(ir::DataType::Int(64), 2)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    for (int b = 0; b < 2; ++b) QCOMPARE(r.value.fields[4].tensor.GetDouble(b), x.GetDouble(b * 3 + 2));
    for (int c = 0; c < 3; ++c) QCOMPARE(r.value.fields[5].tensor.GetDouble(c), x.GetDouble(3 + c));
    QCOMPARE(r.value.fields[6].tensor.GetDouble(0), 2.0);
    QCOMPARE(r.value.fields[6].tensor.GetDouble(1), 3.0);
    auto near = [](double got, double want) { return std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want)); };
    for (int k = 0; k < 6; ++k) {
      double xv = x.GetDouble(k), yv = y.GetDouble(k % 3);
      QCOMPARE(r.value.fields[0].tensor.GetDouble(k), (qv[k] + 3) * 0.25);
      QCOMPARE(r.value.fields[1].tensor.GetDouble(k), std::clamp(std::nearbyint(float(xv) / 0.125f) + 100.0, 0.0, 255.0));
      QVERIFY2(near(r.value.fields[2].tensor.GetDouble(k), std::atan2(xv, yv)), "atan2");
      QVERIFY2(near(r.value.fields[3].tensor.GetDouble(k), xv * (0.5 + std::erf(xv / std::sqrt(2.0)) * 0.5)), "gelu");
    }
  }

  // conv1d with padding, stride, dilation and groups against the direct sum.
  void conv1dMatchesTheDirectSum() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4, 9), dtype="float32"), w: R.Tensor((6, 2, 3), dtype="float32")) -> R.Tensor((2, 6, 4), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((2, 6, 4), dtype="float32") = R.nn.conv1d(x, w, strides=[2], padding=[2, 1], dilation=[2], groups=2, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype="void")
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    runtime::NDArray x = Random({2, 4, 9}, 53), w = Random({6, 2, 3}, 54);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x), Value::Tensor(w)}, transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    for (int b = 0; b < 2; ++b) {
      for (int f = 0; f < 6; ++f) {
        for (int o = 0; o < 4; ++o) {
          double want = 0;
          for (int c = 0; c < 2; ++c) {
            for (int k = 0; k < 3; ++k) {
              int at = o * 2 + k * 2 - 2;
              if (at < 0 || at >= 9) continue;
              want += x.GetDouble((b * 4 + (f / 3) * 2 + c) * 9 + at) * w.GetDouble((f * 2 + c) * 3 + k);
            }
          }
          double got = r.value.tensor.GetDouble((b * 6 + f) * 4 + o);
          QVERIFY2(std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want)), "conv1d");
        }
      }
    }
  }

  // conv3d, max_pool3d / avg_pool3d, max_pool1d / avg_pool1d and conv1d_transpose (strides,
  // dilation, asymmetric padding, groups, the padding counted or not) against their definitions,
  // after a print/parse round trip of the module.
  void windowsOfEveryRankMatchTheirDefinitions() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 5, 4, 6), dtype="float32"), w: R.Tensor((6, 2, 3, 2, 3), dtype="float32"), y: R.Tensor((2, 3, 9), dtype="float32"), wt: R.Tensor((3, 2, 3), dtype="float32")) -> R.Tuple(R.Tensor((1, 6, 5, 2, 4), dtype="float32"), R.Tensor((1, 4, 3, 4, 3), dtype="float32"), R.Tensor((1, 4, 3, 4, 3), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32"), R.Tensor((2, 2, 19), dtype="float32")):
        with R.dataflow():
            c: R.Tensor((1, 6, 5, 2, 4), dtype="float32") = R.nn.conv3d(x, w, strides=[1, 2, 1], padding=[1, 0, 2, 1, 1, 0], dilation=[1, 1, 2], groups=2, data_layout="NCDHW", kernel_layout="OIDHW", out_layout="NCDHW", out_dtype="void")
            mx: R.Tensor((1, 4, 3, 4, 3), dtype="float32") = R.nn.max_pool3d(x, pool_size=[2, 2, 3], strides=[2, 1, 2], dilation=[1, 1, 1], padding=[0, 1, 1, 1, 0, 1], ceil_mode=False, count_include_pad=False, layout="NCDHW", out_layout="NCDHW")
            av: R.Tensor((1, 4, 3, 4, 3), dtype="float32") = R.nn.avg_pool3d(x, pool_size=[2, 2, 3], strides=[2, 1, 2], dilation=[1, 1, 1], padding=[0, 1, 1, 1, 0, 1], ceil_mode=False, count_include_pad=False, layout="NCDHW", out_layout="NCDHW")
            m1: R.Tensor((2, 3, 4), dtype="float32") = R.nn.max_pool1d(y, pool_size=[3], strides=[2], dilation=[2], padding=[1, 2], ceil_mode=False, count_include_pad=False, layout="NCW", out_layout="NCW")
            a1: R.Tensor((2, 3, 5), dtype="float32") = R.nn.avg_pool1d(y, pool_size=[4], strides=[2], dilation=[1], padding=[2, 1], ceil_mode=False, count_include_pad=True, layout="NCW", out_layout="NCW")
            t1: R.Tensor((2, 2, 19), dtype="float32") = R.nn.conv1d_transpose(y, wt, strides=[2], padding=[1, 0], output_padding=[1], dilation=[1], groups=1, data_layout="NCW", kernel_layout="IOW", out_layout="NCW", out_dtype="void")
            gv: R.Tuple(R.Tensor((1, 6, 5, 2, 4), dtype="float32"), R.Tensor((1, 4, 3, 4, 3), dtype="float32"), R.Tensor((1, 4, 3, 4, 3), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 5), dtype="float32"), R.Tensor((2, 2, 19), dtype="float32")) = c, mx, av, m1, a1, t1
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    runtime::NDArray x = Random({1, 4, 5, 4, 6}, 61), w = Random({6, 2, 3, 2, 3}, 62);
    runtime::NDArray y = Random({2, 3, 9}, 63), wt = Random({3, 2, 3}, 64);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x), Value::Tensor(w), Value::Tensor(y), Value::Tensor(wt)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    auto check = [&](size_t field, const std::function<double(const std::vector<int64_t>&)>& want) {
      const runtime::NDArray& got = r.value.fields[field].tensor;
      bool ok = true;
      ForEach(got.shape(), [&](const std::vector<int64_t>& o) {
        double v = got.GetDouble(Offset(got.shape(), o)), e = want(o);
        ok = ok && std::fabs(v - e) <= 1e-5 * (1 + std::fabs(e));
      });
      return ok;
    };
    WindowSpec conv{{3, 2, 3}, {1, 2, 1}, {1, 1, 2}, {1, 0, 2}};
    QVERIFY2(check(0, [&](const std::vector<int64_t>& o) { return ConvAt(x, w, conv, 2, o); }), "conv3d");
    WindowSpec pool{{2, 2, 3}, {2, 1, 2}, {1, 1, 1}, {0, 1, 1}};
    QVERIFY2(check(1, [&](const std::vector<int64_t>& o) { return PoolAt(x, pool, true, false, o); }), "max_pool3d");
    QVERIFY2(check(2, [&](const std::vector<int64_t>& o) { return PoolAt(x, pool, false, false, o); }), "avg_pool3d");
    WindowSpec m1{{3}, {2}, {2}, {1}};
    QVERIFY2(check(3, [&](const std::vector<int64_t>& o) { return PoolAt(y, m1, true, false, o); }), "max_pool1d");
    WindowSpec a1{{4}, {2}, {1}, {2}};
    QVERIFY2(check(4, [&](const std::vector<int64_t>& o) { return PoolAt(y, a1, false, true, o); }), "avg_pool1d");
    // conv1d_transpose: out[n, f, p] sums y[n, c, q] * wt[c, f, r] where p + 1 - r = 2 q.
    QVERIFY2(check(5,
                   [&](const std::vector<int64_t>& o) {
                     double sum = 0;
                     for (int64_t c = 0; c < 3; ++c) {
                       for (int64_t k = 0; k < 3; ++k) {
                         int64_t t = o[2] + 1 - k;
                         if (t < 0 || t % 2 != 0 || t / 2 >= 9) continue;
                         sum += y.GetDouble((o[0] * 3 + c) * 9 + t / 2) * wt.GetDouble((c * 2 + o[1]) * 3 + k);
                       }
                     }
                     return sum;
                   }),
             "conv1d_transpose");
  }

  // one_hot along a middle axis and nonzero (a runtime function, its count matched to a symbolic
  // dim) against their definitions, after a print/parse round trip.
  void oneHotAndNonZero() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(i: R.Tensor((2, 3), dtype="int32"), x: R.Tensor((3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 4, 3), dtype="float32"), R.Tensor(dtype="int64", ndim=2)):
        k = T.int64()
        with R.dataflow():
            oh: R.Tensor((2, 4, 3), dtype="float32") = R.one_hot(i, R.prim_value(T.float32(2.5)), R.prim_value(T.float32(-1.0)), depth=4, axis=1)
            nz: R.Tensor(dtype="int64", ndim=2) = R.nonzero(x)
            nzk: R.Tensor((2, k), dtype="int64") = R.match_cast(nz, R.Tensor((2, k), dtype="int64"))
            gv: R.Tuple(R.Tensor((2, 4, 3), dtype="float32"), R.Tensor(dtype="int64", ndim=2)) = oh, nzk
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    runtime::NDArray idx = runtime::NDArray::Empty({2, 3}, runtime::Int(32));
    const int64_t iv[6] = {0, 3, 1, 5, -1, 2};  // 5 and -1 are outside [0, 4): all off
    for (int k = 0; k < 6; ++k) idx.SetInt(k, iv[k]);
    runtime::NDArray x = Random({3, 4}, 71);
    for (int64_t k : {1, 2, 5, 8, 11}) x.SetDouble(k, 0.0);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(idx), Value::Tensor(x)}, transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    const runtime::NDArray& oh = r.value.fields[0].tensor;
    for (int64_t a = 0; a < 2; ++a) {
      for (int64_t d = 0; d < 4; ++d) {
        for (int64_t b = 0; b < 3; ++b) QCOMPARE(oh.GetDouble((a * 4 + d) * 3 + b), iv[a * 3 + b] == d ? 2.5 : -1.0);
      }
    }
    const runtime::NDArray& nz = r.value.fields[1].tensor;
    QCOMPARE(nz.shape(), (std::vector<int64_t>{2, 7}));
    int64_t j = 0;
    for (int64_t k = 0; k < 12; ++k) {
      if (x.GetDouble(k) == 0) continue;
      QCOMPARE(nz.GetInt(j), k / 4);
      QCOMPARE(nz.GetInt(7 + j), k % 4);
      ++j;
    }
  }

  // dynamic_strided_slice (its shape computed by a kernel, then a match_cast to fresh dims) with
  // negative bounds and a negative stride, in the interpreter and through LegalizeOps.
  void dynamicStridedSlice() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 6), dtype="float32"), b: R.Tensor((2,), dtype="int64"), e: R.Tensor((2,), dtype="int64"), s: R.Tensor((2,), dtype="int64")) -> R.Tensor(dtype="float32", ndim=2):
        with R.dataflow():
            gv: R.Tensor(dtype="float32", ndim=2) = R.dynamic_strided_slice(x, b, e, s)
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    auto ints = [](std::vector<int64_t> v) {
      runtime::NDArray a = runtime::NDArray::Empty({int64_t(v.size())}, runtime::Int(64));
      for (size_t k = 0; k < v.size(); ++k) a.SetInt(int64_t(k), v[k]);
      return a;
    };
    runtime::NDArray x = Random({4, 6}, 81);
    // Rows 3, 2, 1 (from -1 down to, not including, 0); columns 1, 3, 5 (1 to past the end by 2).
    std::vector<Value> args = {Value::Tensor(x), Value::Tensor(ints({-1, 1})), Value::Tensor(ints({0, 100})),
                               Value::Tensor(ints({-1, 2}))};
    for (bool legalized : {false, true}) {
      ir::IRModule run = legalized ? transform::LegalizeModule(m, nullptr) : m;
      auto r = relax::InterpretRelax(run, "main", args, transform::InterpreterOptions());
      QVERIFY2(r.ok(), FirstError(r).c_str());
      QCOMPARE(r.value.tensor.shape(), (std::vector<int64_t>{3, 3}));
      for (int64_t i = 0; i < 3; ++i) {
        for (int64_t j = 0; j < 3; ++j) QCOMPARE(r.value.tensor.GetDouble(i * 3 + j), x.GetDouble((3 - i) * 6 + 1 + 2 * j));
      }
    }
  }

  // reverse_sequence: per batch column b, the first len[b] rows reversed (all of them when
  // len[b] is past the axis, none when it is 0 or 1).
  void reverseSequenceMatchesItsDefinition() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 5, 3), dtype="float32"), lengths: R.Tensor((5,), dtype="int64")):
        gv = R.reverse_sequence(x, lengths, seq_axis=0, batch_axis=1)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    runtime::NDArray x = Random({4, 5, 3}, 93);
    runtime::NDArray lengths = runtime::NDArray::Empty({5}, runtime::Int(64));
    const int64_t len[5] = {0, 1, 2, 4, 7};
    for (int64_t b = 0; b < 5; ++b) lengths.SetInt(b, len[b]);
    auto r = relax::InterpretRelax(transform::LegalizeModule(m, nullptr), "main",
                                   {Value::Tensor(x), Value::Tensor(lengths)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    ForEach({4, 5, 3}, [&](const std::vector<int64_t>& o) {
      int64_t l = std::min<int64_t>(len[o[1]], 4);
      int64_t row = o[0] < l ? l - 1 - o[0] : o[0];
      QCOMPARE(r.value.tensor.GetDouble(Offset({4, 5, 3}, o)),
               x.GetDouble(Offset({4, 5, 3}, {row, o[1], o[2]})));
    });
  }

  // layout_transform through its legalization (a copy whose output transform_layout rewrites):
  // (a, b, c) -> (a, c, b // 3, b % 3), exact (b = 6) and padded with 2 (b = 5).
  void layoutTransformMatchesItsMap() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 6, 3), dtype="float32"), y: R.Tensor((2, 5, 3), dtype="float32")):
        with R.dataflow():
            p = R.layout_transform(x, index_map=T.index_map(lambda a, b, c: (a, c, b // 3, b % 3)))
            q = R.layout_transform(y, index_map=T.index_map(lambda a, b, c: (a, c, b // 3, b % 3)), pad_value=2)
            gv = (p, q)
            R.output(gv)
        return gv
)");
    ir::IRModule legalized = transform::LegalizeModule(m, nullptr);
    std::string printed = script::PrintModule(legalized);
    QVERIFY2(printed.find("R.layout_transform") == std::string::npos, printed.c_str());
    QVERIFY2(printed.find("te_layout_transform_with_pad") != std::string::npos, printed.c_str());
    runtime::NDArray x = Random({2, 6, 3}, 91), y = Random({2, 5, 3}, 92);
    auto r = relax::InterpretRelax(legalized, "main", {Value::Tensor(x), Value::Tensor(y)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    for (int k = 0; k < 2; ++k) {
      const runtime::NDArray& in = k == 0 ? x : y;
      int64_t b = k == 0 ? 6 : 5;
      const runtime::NDArray& out = r.value.fields[k].tensor;
      QCOMPARE(out.shape(), (std::vector<int64_t>{2, 3, 2, 3}));
      ForEach({2, 3, 2, 3}, [&](const std::vector<int64_t>& o) {
        int64_t row = o[2] * 3 + o[3];
        double want = row < b ? in.GetDouble(Offset({2, b, 3}, {o[0], row, o[1]})) : 2.0;
        QCOMPARE(out.GetDouble(Offset({2, 3, 2, 3}, o)), want);
      });
    }
  }

  // einsum: a batched matrix product, a trace-like diagonal sum with an implicit output and an
  // outer product, against their loops.
  void einsumMatchesItsLoops() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3, 4), dtype="float32"), b: R.Tensor((2, 4, 5), dtype="float32"), c: R.Tensor((3, 3), dtype="float32"), v: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 5), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((3, 3), dtype="float32")):
        with R.dataflow():
            bmm: R.Tensor((2, 3, 5), dtype="float32") = R.einsum((a, b), subscripts="bij,bjk->bik")
            tr: R.Tensor((), dtype="float32") = R.einsum((c,), subscripts="ii")
            outer: R.Tensor((3, 3), dtype="float32") = R.einsum((v, v), subscripts="i,j->ji")
            gv: R.Tuple(R.Tensor((2, 3, 5), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((3, 3), dtype="float32")) = bmm, tr, outer
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    runtime::NDArray a = Random({2, 3, 4}, 55), b = Random({2, 4, 5}, 56), c = Random({3, 3}, 57), v = Random({3}, 58);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(a), Value::Tensor(b), Value::Tensor(c), Value::Tensor(v)},
                                   transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    auto near = [](double got, double want) { return std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want)); };
    for (int p = 0; p < 2; ++p) {
      for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 5; ++k) {
          double want = 0;
          for (int j = 0; j < 4; ++j) want += a.GetDouble((p * 3 + i) * 4 + j) * b.GetDouble((p * 4 + j) * 5 + k);
          QVERIFY2(near(r.value.fields[0].tensor.GetDouble((p * 3 + i) * 5 + k), want), "bmm");
        }
      }
    }
    QVERIFY2(near(r.value.fields[1].tensor.GetDouble(0), c.GetDouble(0) + c.GetDouble(4) + c.GetDouble(8)), "trace");
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) QVERIFY2(near(r.value.fields[2].tensor.GetDouble(j * 3 + i), v.GetDouble(i) * v.GetDouble(j)), "outer");
    }
  }

  // arange with a symbolic end (the length n - 2 from a shape var) and with floats.
  void arangeWithASymbolicEnd() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tuple(R.Tensor(("n - 2",), dtype="int64"), R.Tensor((4,), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            a: R.Tensor((n - 2,), dtype="int64") = R.arange(R.prim_value(2), R.prim_value(n), R.prim_value(1), dtype="int64")
            b: R.Tensor((4,), dtype="float32") = R.arange(R.prim_value(T.float32(0.5)), R.prim_value(T.float32(2.0)), R.prim_value(T.float32(0.40000000000000002)), dtype="float32")
            gv: R.Tuple(R.Tensor((n - 2,), dtype="int64"), R.Tensor((4,), dtype="float32")) = a, b
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(Random({7}, 59))}, transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    const runtime::NDArray& a = r.value.fields[0].tensor;
    QCOMPARE(a.shape(), std::vector<int64_t>({5}));
    for (int k = 0; k < 5; ++k) QCOMPARE(a.GetDouble(k), double(2 + k));
    for (int k = 0; k < 4; ++k) {
      QVERIFY(std::fabs(r.value.fields[1].tensor.GetDouble(k) - (0.5 + 0.4 * k)) < 1e-6);
    }
  }

  // repeat along an axis and of the flattened data (numpy's repeat), through LegalizeOps.
  void repeatAlongAnAxisAndFlattened() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 9), dtype="float32"), R.Tensor((12,), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((2, 9), dtype="float32") = R.repeat(x, 3, axis=1)
            b: R.Tensor((12,), dtype="float32") = R.repeat(x, 2)
            gv: R.Tuple(R.Tensor((2, 9), dtype="float32"), R.Tensor((12,), dtype="float32")) = a, b
            R.output(gv)
        return gv
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    runtime::NDArray x = Random({2, 3}, 43);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x)}, transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 9; ++j) QCOMPARE(r.value.fields[0].tensor.GetDouble(i * 9 + j), x.GetDouble(i * 3 + j / 3));
    }
    for (int k = 0; k < 12; ++k) QCOMPARE(r.value.fields[1].tensor.GetDouble(k), x.GetDouble(k / 2));
  }

  // shape_of gives the tensor's shape, symbolic dims bound by the argument.
  void shapeOfASymbolicTensor() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 3), dtype="float32")) -> R.Shape(ndim=2):
        n = T.int64()
        s: R.Shape([n, 3]) = R.shape_of(x)
        return s
)");
    QCOMPARE(script::PrintModule(ParseOrFail(script::PrintModule(m))), script::PrintModule(m));
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(Random({5, 3}, 44))}, transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    QVERIFY(r.value.kind == Value::Kind::kShape);
    QCOMPARE(r.value.shape, (std::vector<int64_t>{5, 3}));
  }

  // sort / argsort / topk are stable: equal elements keep their order, in both directions.
  void sortingIsStable() {
    ir::IRModule m = ParseOrFail(R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), dtype="float32")) -> R.Tuple(R.Tensor((6,), dtype="float32"), R.Tensor((6,), dtype="int32"), R.Tensor((6,), dtype="int64"), R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="int32")):
        s: R.Tensor((6,), dtype="float32") = R.sort(x, axis=0, descending=False)
        a: R.Tensor((6,), dtype="int32") = R.argsort(x, axis=-1, descending=False, dtype="int32")
        d: R.Tensor((6,), dtype="int64") = R.argsort(x, axis=0, descending=True, dtype="int64")
        t: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="int32")) = R.topk(x, k=3, axis=-1, ret_type="both", largest=False, dtype="int32")
        return (s, a, d, t[0], t[1])
)");
    const double values[6] = {3, -1, 2, -1, 3, 0};
    runtime::NDArray x = runtime::NDArray::Empty({6}, runtime::Float(32));
    for (int i = 0; i < 6; ++i) x.SetDouble(i, values[i]);
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(x)}, transform::InterpreterOptions());
    QVERIFY2(r.ok(), FirstError(r).c_str());
    auto field = [&](size_t k) {
      std::vector<double> v;
      const runtime::NDArray& t = r.value.fields[k].tensor;
      for (int64_t i = 0; i < t.shape()[0]; ++i) v.push_back(t.GetDouble(i));
      return v;
    };
    QCOMPARE(field(0), (std::vector<double>{-1, -1, 0, 2, 3, 3}));
    QCOMPARE(field(1), (std::vector<double>{1, 3, 5, 2, 0, 4}));
    QCOMPARE(field(2), (std::vector<double>{0, 4, 2, 5, 1, 3}));
    QCOMPARE(field(3), (std::vector<double>{-1, -1, 0}));
    QCOMPARE(field(4), (std::vector<double>{1, 3, 5}));
  }

  void whatCannotRunIsNamed() {
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.call_dps_packed("my_kernel", (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)");
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(Random({4}, 1))});
    QVERIFY(!r.ok());
    QVERIFY2(FirstError(r).find("my_kernel") != std::string::npos, FirstError(r).c_str());
  }

  void kernelFailuresNameTheKernel() {
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def bad(x: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(5):
            out[i] = x[i]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.bad, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
)");
    auto r = relax::InterpretRelax(m, "main", {Value::Tensor(Random({4}, 1))});
    QVERIFY(!r.ok());
    QVERIFY2(FirstError(r).find("PrimFunc bad failed") != std::string::npos, FirstError(r).c_str());
  }

  void randomArgumentsFollowTheSignature() {
    ir::IRModule m = ParseOrFail(R"(
@I.ir_module
class Module:
    n = TypeVar("n")
    @R.function
    def main(x: R.Tensor((n, "n * 2"), dtype="float32"), s: R.Shape([n]), k: T.int64) -> R.Tensor((n, "n * 2"), dtype="float32"):
        return x
)");
    auto* f = m->Lookup("main").as<relax::FunctionNode>();
    std::string why;
    auto args = relax::RandomArguments(ir::GetRef(f), 1, 3, &why);
    QVERIFY2(args.has_value(), why.c_str());
    QCOMPARE((*args)[0].tensor.shape(), (std::vector<int64_t>{3, 6}));
    QCOMPARE((*args)[1].shape, (std::vector<int64_t>{3}));
    auto again = relax::RandomArguments(ir::GetRef(f), 1, 3, &why);
    QCOMPARE((*again)[0].tensor.GetDouble(5), (*args)[0].tensor.GetDouble(5));  // seeded
    auto r = relax::InterpretRelax(m, "main", *args);
    QVERIFY2(r.ok(), FirstError(r).c_str());
    QVERIFY(relax::CompareValues(r.value, (*args)[0]).ok);
    runtime::NDArray other = (*args)[0].tensor.Copy();
    other.SetDouble(2, other.GetDouble(2) + 1);
    auto cmp = relax::CompareValues(Value::Tensor(other), (*args)[0]);
    QVERIFY(!cmp.ok);
    QVERIFY(std::fabs(cmp.max_abs_error - 1) < 1e-6);
  }
};

QTEST_APPLESS_MAIN(TestRelaxInterp)
#include "tst_relax_interp.moc"
