// The one run-and-check mechanism (workbench/run_check.h) on PrimFuncs and on Relax functions
// through the VM: every status (ok, mismatch, failed, crashed with its signal, timed out,
// out of memory, cancelled), the reference choice (auto picks by executed operations; a wrong kernel is caught
// by the interpreter and by the compiled reference), the timing statistics, and the JSON codec
// that carries a result out of its child process.
#include <QTest>
#include <nlohmann/json.hpp>

#include "script/tvmscript.h"
#include "workbench/run_check.h"
#include "run_test_programs.h"

using namespace wb;
using namespace wb::workbench;

namespace {

using wb::test::kRelax;
using wb::test::kSpin;

// B = A + 1 as written; the "scheduled" copy below adds 2: a wrong kernel.
const char* kAddOne = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.sblock("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1.0)
)";

const char* kAddTwo = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.sblock("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(2.0)
)";

// 320 x 320 x 320 multiply-adds: more executed operations than auto gives the interpreter.
const char* kMatmul = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((320, 320), "float32"), B: T.Buffer((320, 320), "float32"), C: T.Buffer((320, 320), "float32")):
    for i, j, k in T.grid(320, 320, 320):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// The same matmul with one element of the result wrong.
const char* kMatmulWrong = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((320, 320), "float32"), B: T.Buffer((320, 320), "float32"), C: T.Buffer((320, 320), "float32")):
    for i, j, k in T.grid(320, 320, 320):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.if_then_else(vi * 320 + vj == 977, T.float32(1.0), T.float32(0.0))
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

const char* kScalar = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), n: T.int32):
    for i in range(8):
        A[i] = T.Cast("float32", n)
)";

const char* kCrash = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in range(16):
        A[i * 100000000] = T.float32(1.0)
)";

// Its input alone is 4 GiB.
const char* kHuge = R"(# from tvm.script import tirx as T
@T.prim_func
def main(A: T.Buffer((1073741824,), "float32")):
    A[0] = T.float32(1.0)
)";

// A wrong rewrite of it: lv - lv instead of lv + lv.
const char* kRelaxWrong = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 3), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        with R.dataflow():
            lv = R.matmul(x, w)
            gv = R.subtract(lv, lv)
            R.output(gv)
        return gv
)";

ir::IRModule Parse(const char* text) {
  script::ParseResult r = script::Parse(text, "test.py");
  if (!r.ok()) qFatal("%s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

RunCheckRequest Request(const char* text) {
  RunCheckRequest request;
  request.module = Parse(text);
  return request;
}

// The one function of a run, failing the test when the run made none.
FunctionResult One(const RunCheckResult& result) {
  if (result.functions.size() != 1) {
    qWarning("message: %s; %zu functions", result.message.c_str(), result.functions.size());
    return {};
  }
  return result.functions[0];
}

}  // namespace

class TstRunCheck : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void aPrimFuncRunsChecksAndTimes() {
    RunCheckRequest request = Request(kAddOne);
    request.profile = true;
    request.timing = {.number = 2, .repeat = 3};
    FunctionResult r = One(RunAndCheck(request));
    QVERIFY2(r.ok(), r.message.c_str());
    QCOMPARE(r.name, std::string("main"));
    QVERIFY(!r.relax);
    // 64 x (load + add + store ...) is far below the limit: auto takes the interpreter.
    QCOMPARE(r.reference, std::string("interpreter"));
    QVERIFY(r.operations && *r.operations < kAutoInterpreterLimit);
    QCOMPARE(r.max_abs_error, 0.0);
    QCOMPARE(r.samples_s.size(), size_t(3));
    QCOMPARE(r.number, 2);
    QVERIFY(r.min_s() > 0 && r.min_s() <= r.median_s() && r.median_s() <= r.max_s());
    QVERIFY(r.std_s() >= 0);
    QCOMPARE(*r.flops, 64.0);
    QVERIFY(r.gflops_per_s() && *r.gflops_per_s() > 0);
  }

  void aWrongKernelIsCaughtByEachReference() {
    for (ReferenceKind kind : {ReferenceKind::kInterpreter, ReferenceKind::kCompiled, ReferenceKind::kAuto}) {
      RunCheckRequest request = Request(kAddTwo);
      request.reference_module = Parse(kAddOne);
      request.reference = kind;
      FunctionResult r = One(RunAndCheck(request));
      QVERIFY2(r.status == RunStatus::kMismatch, ReferenceName(kind));
      QCOMPARE(r.reference, std::string(kind == ReferenceKind::kCompiled ? "compiled" : "interpreter"));
      QVERIFY(qAbs(r.max_abs_error - 1.0) < 1e-6);
      QVERIFY2(r.message.find("64 of 64 elements of B differ") != std::string::npos, r.message.c_str());
      QVERIFY(r.worst.rfind("B[", 0) == 0);
    }
    // With no reference it only runs.
    RunCheckRequest request = Request(kAddTwo);
    request.reference_module = Parse(kAddOne);
    request.reference = ReferenceKind::kNone;
    FunctionResult r = One(RunAndCheck(request));
    QVERIFY(r.ok() && !r.checked());
  }

  void autoTakesTheCompiledReferenceForLargeWork() {
    RunCheckRequest request = Request(kMatmulWrong);
    request.reference_module = Parse(kMatmul);
    FunctionResult r = One(RunAndCheck(request));
    QVERIFY(r.operations && *r.operations > kAutoInterpreterLimit);
    QCOMPARE(r.reference, std::string("compiled"));
    QVERIFY2(r.status == RunStatus::kMismatch, r.message.c_str());
    QCOMPARE(r.worst, std::string("C[3, 17]"));
    QVERIFY2(r.message.find("1 of 102400 elements of C differ (worst C[3, 17]") != std::string::npos,
             r.message.c_str());
    // The right kernel matches the compiled reference.
    RunCheckRequest good = Request(kMatmul);
    FunctionResult ok = One(RunAndCheck(good));
    QVERIFY2(ok.ok(), ok.message.c_str());
    QCOMPARE(ok.reference, std::string("compiled"));
    // Asked for, the interpreter checks it too.
    request.reference = ReferenceKind::kInterpreter;
    FunctionResult interpreted = One(RunAndCheck(request));
    QVERIFY(interpreted.status == RunStatus::kMismatch);
    QCOMPARE(interpreted.reference, std::string("interpreter"));
    QCOMPARE(interpreted.worst, std::string("C[3, 17]"));
  }

  void whatCannotRunFails() {
    FunctionResult r = One(RunAndCheck(Request(kScalar)));
    QVERIFY(r.status == RunStatus::kFailed);
    QVERIFY2(r.message.find("scalar parameter 'n' needs a value") != std::string::npos, r.message.c_str());
    // A symbolic extent gives scalars a value too.
    RunCheckRequest sized = Request(kScalar);
    sized.symbolic_extent = 5;
    FunctionResult s = One(RunAndCheck(sized));
    QVERIFY2(s.ok(), s.message.c_str());
    // A bad target is no run at all.
    RunCheckRequest bad = Request(kAddOne);
    bad.target = "rocm";
    RunCheckResult none = RunAndCheck(bad);
    QVERIFY(none.functions.empty() && !none.ok());
    QVERIFY2(none.message.find("target: ") == 0, none.message.c_str());
  }

  void aCrashIsCrashedWithItsSignal() {
    FunctionResult r = One(RunAndCheck(Request(kCrash)));
    QVERIFY(r.status == RunStatus::kCrashed);
    QCOMPARE(r.signal, 11);
    QVERIFY2(r.message.rfind("SIGSEGV", 0) == 0, r.message.c_str());
  }

  void aHangTimesOut() {
    RunCheckRequest request = Request(kSpin);
    request.reference = ReferenceKind::kNone;
    request.timeout_s = 0.5;
    FunctionResult r = One(RunAndCheck(request));
    QVERIFY2(r.status == RunStatus::kTimedOut, RunStatusName(r.status));
  }

  void pastTheMemoryLimitIsOutOfMemory() {
    // A 4 GiB input under a 256 MiB limit: its allocation fails in the child.
    RunCheckRequest request = Request(kHuge);
    request.reference = ReferenceKind::kNone;
    request.memory_limit_bytes = size_t{256} << 20;
    FunctionResult r = One(RunAndCheck(request));
    QVERIFY2(r.status == RunStatus::kOutOfMemory, RunStatusName(r.status));
    QCOMPARE(std::string(RunStatusName(r.status)), std::string("out-of-memory"));
    QVERIFY2(r.message.rfind("out of memory: an allocation failed", 0) == 0, r.message.c_str());
    QVERIFY2(r.message.find("256 MiB") != std::string::npos, r.message.c_str());
    // The status crosses the process boundary and the reports by name.
    QVERIFY(ParseRunStatus("out-of-memory") == RunStatus::kOutOfMemory);
    FunctionResult back = FunctionResultFromJson(nlohmann::json::parse(ToJson(r).dump()));
    QVERIFY(back.status == RunStatus::kOutOfMemory);
  }

  void cancelledBeforeAndWhileItRuns() {
    CancellationToken early;
    early.Cancel();
    RunCheckResult before = RunAndCheck(Request(kAddOne), early);
    QVERIFY(before.cancelled);
    QVERIFY(!before.ok());

    CancellationToken token;
    RunCheckRequest request = Request(kSpin);
    request.reference = ReferenceKind::kNone;
    RunCheckResult during = RunAndCheck(request, token, [&](const std::string& stage, double) {
      if (stage == "run main") token.Cancel();
    });
    FunctionResult r = One(during);
    QVERIFY(r.status == RunStatus::kCancelled);
    QCOMPARE(r.message, std::string("cancelled while it ran"));
  }

  void aRelaxFunctionRunsThroughTheVM() {
    RunCheckRequest request = Request(kRelax);
    request.profile = true;
    request.timing = {.number = 1, .repeat = 2};
    FunctionResult r = One(RunAndCheck(request));
    QVERIFY2(r.ok(), r.message.c_str());
    QVERIFY(r.relax);
    QCOMPARE(r.reference, std::string("interpreter"));
    QCOMPARE(r.samples_s.size(), size_t(2));
    // The matmul (2 per multiply-add) and the add.
    QCOMPARE(*r.flops, 2.0 * 4 * 8 * 3 + 4 * 3);
    // Isolated or here, the same numbers.
    request.isolate = false;
    FunctionResult here = One(RunAndCheck(request));
    QVERIFY(here.ok());
    QCOMPARE(here.flops, r.flops);
  }

  void aWrongRelaxRewriteIsCaughtByEachReference() {
    for (ReferenceKind kind : {ReferenceKind::kInterpreter, ReferenceKind::kCompiled}) {
      RunCheckRequest request = Request(kRelaxWrong);
      request.reference_module = Parse(kRelax);
      request.reference = kind;
      FunctionResult r = One(RunAndCheck(request));
      QVERIFY2(r.status == RunStatus::kMismatch, r.message.c_str());
      QCOMPARE(r.reference, std::string(ReferenceName(kind)));
      QVERIFY(r.worst.rfind("output[", 0) == 0);
      QVERIFY(r.max_abs_error > 0);
    }
  }

  // Outputs given instead of a reference: compared in the isolated run's child (nothing comes
  // back but the verdict), a wrong kernel caught by them; a checked call slower than slow_call_s
  // is the run's one sample.
  void givenOutputsCheckInTheChildAndSlowCallsAreTimedOnce() {
    RunCheckRequest first = Request(kAddOne);
    first.keep_outputs = true;
    first.seed = 5;
    FunctionResult right = One(RunAndCheck(first));
    QVERIFY2(right.ok(), right.message.c_str());
    auto expected = std::make_shared<const std::vector<std::pair<std::string, runtime::NDArray>>>(right.outputs);
    for (const char* text : {kAddOne, kAddTwo}) {
      RunCheckRequest request = Request(text);
      request.seed = 5;
      request.expected_outputs = expected;
      request.reference = ReferenceKind::kInterpreter;  // not used: the given outputs check
      request.isolate = true;
      FunctionResult r = One(RunAndCheck(request));
      QCOMPARE(r.reference, std::string("expected"));
      QVERIFY(r.outputs.empty());
      if (text == kAddOne) {
        QVERIFY2(r.ok(), r.message.c_str());
      } else {
        QVERIFY(r.status == RunStatus::kMismatch);
        QVERIFY2(r.message.find("64 of 64 elements of B differ") != std::string::npos, r.message.c_str());
      }
    }
    RunCheckRequest slow = Request(kMatmul);
    slow.reference = ReferenceKind::kNone;
    slow.profile = true;
    slow.timing = {.number = 5, .repeat = 3};
    slow.slow_call_s = 1e-9;
    FunctionResult r = One(RunAndCheck(slow));
    QVERIFY2(r.ok(), r.message.c_str());
    QVERIFY(r.too_slow);
    QCOMPARE(r.samples_s.size(), size_t(1));
    QCOMPARE(r.number, 1);
    QVERIFY(FunctionResultFromJson(nlohmann::json::parse(ToJson(r).dump())).too_slow);
    slow.slow_call_s = 0;
    r = One(RunAndCheck(slow));
    QVERIFY(!r.too_slow);
    QCOMPARE(r.samples_s.size(), size_t(3));
  }

  void theCodecCarriesEveryField() {
    RunCheckRequest request = Request(kAddTwo);
    request.reference_module = Parse(kAddOne);
    request.keep_outputs = true;
    request.profile = true;
    request.timing = {.number = 1, .repeat = 2};
    request.isolate = false;
    FunctionResult r = One(RunAndCheck(request));
    QCOMPARE(r.outputs.size(), size_t(1));
    FunctionResult back = FunctionResultFromJson(nlohmann::json::parse(ToJson(r).dump()));
    QCOMPARE(back.name, r.name);
    QVERIFY(back.status == r.status);
    QCOMPARE(back.message, r.message);
    QCOMPARE(back.reference, r.reference);
    QCOMPARE(back.max_abs_error, r.max_abs_error);
    QCOMPARE(back.max_rel_error, r.max_rel_error);
    QCOMPARE(back.worst, r.worst);
    QCOMPARE(back.samples_s, r.samples_s);
    QCOMPARE(back.number, r.number);
    QCOMPARE(back.flops, r.flops);
    QCOMPARE(back.operations, r.operations);
    QCOMPARE(back.outputs.size(), size_t(1));
    QCOMPARE(back.outputs[0].first, std::string("B"));
    for (int64_t i = 0; i < 64; ++i) QCOMPARE(back.outputs[0].second.GetDouble(i), r.outputs[0].second.GetDouble(i));
    // The isolated run brings back what the in-process one computed.
    request.isolate = true;
    FunctionResult isolated = One(RunAndCheck(request));
    QCOMPARE(isolated.outputs.size(), size_t(1));
    for (int64_t i = 0; i < 64; ++i) {
      QCOMPARE(isolated.outputs[0].second.GetDouble(i), r.outputs[0].second.GetDouble(i));
    }
  }
};

QTEST_APPLESS_MAIN(TstRunCheck)
#include "tst_run_check.moc"
