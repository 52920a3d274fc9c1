// MakePackedAPI: the argument checks of a compiled function give clear errors (wrong number of
// arguments, not a tensor, ndim, dtype, shape, strides, device, scalar kinds), symbolic shapes
// bind from the first tensor that has them, and the pass is registered by name.

#include <QTest>

#include "codegen_test_util.h"
#include "script/tvmscript.h"
#include "transform/registry.h"
#include "transform/tir/make_packed_api.h"

using namespace wb;
using namespace wb::testing;
using runtime::NDArray;

namespace {

// The message of the runtime::Error a call throws, or "" when it succeeds.
std::string CallError(const runtime::PackedFunc& f, const std::vector<runtime::PackedArg>& args) {
  try {
    f.Call(args);
  } catch (const runtime::Error& e) {
    return e.what();
  }
  return "";
}

const char* kKernel = R"(
@T.prim_func
def scale(A: T.Buffer(("n", 4), "float32"), B: T.Buffer((n, 4), "float32"), k: T.int32, alpha: T.float32):
    n = T.int32()
    for i, j in T.grid(n, 4):
        B[i, j] = A[i, j] * alpha + T.Cast("float32", k)
)";

}  // namespace

class TstPackedApi : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void registeredAndPrintable() {
    QVERIFY(transform::PassRegistry::Global().Find("MakePackedAPI") != nullptr);
    ir::IRModule packed = transform::MakePackedAPI()(ParseOk(kKernel));
    std::string text = script::PrintModule(packed);
    QVERIFY2(text.find("compute_scope") != std::string::npos, text.c_str());
    QVERIFY2(text.find("scale: expected 4 arguments") != std::string::npos, text.c_str());
  }

  void goodCallRuns() {
    runtime::Module m = BuildOk(ParseOk(kKernel));
    runtime::PackedFunc f = m.get_function("scale");
    QVERIFY(f.defined());
    QVERIFY(!m.get_function("nope").defined());
    NDArray a = NDArray::Empty({3, 4}, runtime::Float(32));
    NDArray b = NDArray::Empty({3, 4}, runtime::Float(32));
    for (int i = 0; i < 12; ++i) a.SetDouble(i, i);
    QCOMPARE(CallError(f, {a, b, 2, 0.5}), std::string());
    for (int i = 0; i < 12; ++i) QCOMPARE(b.GetDouble(i), i * 0.5 + 2);
    // An integer for a float parameter converts, as in TVM.
    QCOMPARE(CallError(f, {a, b, 1, 3}), std::string());
    QCOMPARE(b.GetDouble(5), 16.0);
  }

  void argumentErrors() {
    runtime::Module m = BuildOk(ParseOk(kKernel));
    runtime::PackedFunc f = m.get_function("scale");
    NDArray a = NDArray::Empty({3, 4}, runtime::Float(32));
    NDArray b = NDArray::Empty({3, 4}, runtime::Float(32));
    QCOMPARE(CallError(f, {a, b, 2}), std::string("scale: expected 4 arguments but got a different number"));
    QCOMPARE(CallError(f, {1, b, 2, 0.5}), std::string("scale: argument 0 (A) must be a tensor"));
    QCOMPARE(CallError(f, {NDArray::Empty({12}, runtime::Float(32)), b, 2, 0.5}),
             std::string("scale: argument 0 (A) must have ndim 2"));
    QCOMPARE(CallError(f, {NDArray::Empty({3, 4}, runtime::Int(32)), b, 2, 0.5}),
             std::string("scale: argument 0 (A) must have dtype float32"));
    QCOMPARE(CallError(f, {NDArray::Empty({3, 5}, runtime::Float(32)), b, 2, 0.5}),
             std::string("scale: A.shape[1] must be 4"));
    // n is bound from A; B must agree with it.
    QCOMPARE(CallError(f, {a, NDArray::Empty({2, 4}, runtime::Float(32)), 2, 0.5}),
             std::string("scale: B.shape[0] must be n"));
    QCOMPARE(CallError(f, {a, b, 0.5, 0.5}), std::string("scale: argument 2 (k) must be an integer"));
    QCOMPARE(CallError(f, {a, b, 2, a}), std::string("scale: argument 3 (alpha) must be a number"));
    NDArray on_gpu = NDArray::Empty({3, 4}, runtime::Float(32));
    on_gpu.mutable_tensor()->device.device_type = runtime::kDLCUDA;
    QCOMPARE(CallError(f, {on_gpu, b, 2, 0.5}), std::string("scale: argument 0 (A) must be on the CPU"));
    // A transposed view (explicit, non-compact strides).
    NDArray base = NDArray::Empty({4, 3}, runtime::Float(32));
    NDArray transposed = NDArray::View(base, {3, 4}, {1, 3}, 0);
    QCOMPARE(CallError(f, {transposed, b, 2, 0.5}),
             std::string("scale: A must be compact (stride of axis 1 differs)"));
    NDArray offset = NDArray::View(NDArray::Empty({4, 4}, runtime::Float(32)), {3, 4}, {}, 16);
    QCOMPARE(CallError(f, {offset, b, 2, 0.5}), std::string("scale: argument 0 (A) must have byte_offset 0"));
    // After all those failures the function still works.
    QCOMPARE(CallError(f, {a, b, 2, 0.5}), std::string());
  }
};

QTEST_APPLESS_MAIN(TstPackedApi)
#include "tst_packed_api.moc"
