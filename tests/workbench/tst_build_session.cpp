// Build and profile without any UI: the target list and why CUDA is not offered, a build with its
// IR and assembly views, run + check + time on random and loaded inputs, the history across
// schedule steps, failures that say why, cancellation between stages and repeats, and kernels
// run in a child process: a crash is a result, a cancel stops even one long call.

#include <QTemporaryDir>
#include <QTest>

#include "runtime/ndarray.h"
#include "script/tvmscript.h"
#include "workbench/build_session.h"
#include "workbench/schedule_session.h"

using namespace wb;
using namespace wb::workbench;

namespace {

const char* kMatmul = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(32, 32, 32):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func(s_tir=True)
    def add(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(64):
            with T.sblock("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] + T.float32(1.0)
)";

// Rows of a symbolic count: random inputs cannot choose n, a loaded A binds it.
const char* kRowSum = R"(# from tvm.script import tirx as T

@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 8), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i, k in T.grid(n, 8):
        with T.sblock("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0.0)
            B[vi] = B[vi] + A[vi, vk] * T.float32(2.0)
)";

// GPU code cannot be built for the CPU.
const char* kThreadBound = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in T.thread_binding(64, thread="threadIdx.x"):
        A[i] = T.float32(1.0)
)";

// A kernel that writes far out of bounds, before a healthy one.
const char* kCrashThenAdd = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def crash(A: T.Buffer((64,), "float32")):
        for i in range(16):
            A[i * 100000000] = T.float32(1.0)

    @T.prim_func
    def add(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(64):
            B[i] = A[i] + T.float32(1.0)
)";

// One call that takes practically forever (float additions LLVM may not fold).
const char* kSpin = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((1,), "float32")):
    for i, j, k in T.grid(100000, 100000, 100000):
        A[0] = A[0] + T.float32(1.0)
)";

ir::IRModule Parse(const char* text) {
  script::ParseResult r = script::Parse(text, "test.py");
  if (!r.ok()) qFatal("%s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

ScheduleSession Scheduled() {
  ScheduleSession s;
  DiagnosticList d = s.Reset(Parse(kMatmul), "main");
  if (d.HasErrors()) qFatal("%s", RenderDiagnostics(d).c_str());
  return s;
}

const TargetOption* FindTarget(const std::vector<TargetOption>& targets, const std::string& name) {
  for (const auto& t : targets) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string Diags(const BuildOutcome& b) { return RenderDiagnostics(b.diagnostics); }

}  // namespace

class TestBuildSession : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void targetsListTheHostFirstAndSayWhyCudaIsMissing() {
    auto targets = BuildTargets();
    QVERIFY(targets.size() >= 2);
    QCOMPARE(targets[0].name, std::string("llvm"));
    QVERIFY(targets[0].can_build && targets[0].can_run);
    QVERIFY(targets[0].description.rfind("llvm -mcpu=", 0) == 0);
    const TargetOption* host = FindTarget(targets, "host");
    QVERIFY(host && host->can_build && host->can_run);
    const TargetOption* cuda = FindTarget(targets, "cuda");
    QVERIFY(cuda);
    // Building needs NVRTC; running also needs a GPU and its driver. A GPU tag of the target
    // list has the same abilities as `cuda` itself.
    std::string build_why, run_why;
    const bool can_build = CudaCanBuild(&build_why);
    const bool usable = CudaTargetUsable(&run_why);
    QCOMPARE(cuda->can_build, can_build);
    QCOMPARE(cuda->can_run, usable);
    QVERIFY(!usable || can_build);
    if (!can_build) QCOMPARE(cuda->reason, build_why);
    else if (!usable) QCOMPARE(cuda->reason, run_why);
    if (!usable) QVERIFY(!cuda->reason.empty());
    const TargetOption* h200 = FindTarget(targets, "nvidia/h200");
    QVERIFY(h200);
    QCOMPARE(h200->can_build, cuda->can_build);
    QCOMPARE(h200->can_run, cuda->can_run);
  }

  void cudaBuildShowsTheKernelsCudaAndPtx() {
    std::string why;
    if (!CudaCanBuild(&why)) QSKIP(("no CUDA build here: " + why).c_str());
    BuildRequest request;
    request.module = Parse(kThreadBound);
    request.target = "cuda -arch=sm_90";
    BuildOutcome b = BuildModule(request);
    QVERIFY2(b.ok(), Diags(b).c_str());
    QVERIFY2(b.cuda_source.find("__global__") != std::string::npos, b.cuda_source.c_str());
    QVERIFY2(b.cuda_source.find("threadIdx.x") != std::string::npos, b.cuda_source.c_str());
    QVERIFY2(b.ptx.find(".entry") != std::string::npos, b.ptx.c_str());
    QVERIFY2(b.ptx.find("sm_90") != std::string::npos, b.ptx.c_str());
    // The host side (argument checks, the launch) is LLVM code.
    QVERIFY(!b.llvm_ir.empty());

    // Without a GPU the build stands and running it says why nothing ran.
    if (!CudaTargetUsable(&why)) {
      BuildSession session;
      QVERIFY(session.Build(request).ok());
      RunOutcome r = session.Run({});
      QVERIFY(r.state == OutcomeState::kFailed);
      QVERIFY(r.functions.empty());
      QCOMPARE(r.message, "cannot run on cuda: " + why +
                              " (the kernels were built: see the CUDA and PTX views)");
    }

    // Unbound blocks are an error naming the block, not a crash.
    BuildOutcome unbound = BuildModule(RequestFromSchedule(Scheduled(), "cuda"));
    QVERIFY(unbound.state == OutcomeState::kFailed);
    QVERIFY2(Diags(unbound).find("is not bound to GPU threads") != std::string::npos, Diags(unbound).c_str());
  }

  void buildShowsIrOptimizedIrAndAssembly() {
    ScheduleSession schedule = Scheduled();
    BuildSession session;
    std::vector<std::string> stages;
    BuildOutcome b = session.Build(RequestFromSchedule(schedule), {},
                                   [&](const std::string& stage, double) { stages.push_back(stage); });
    QVERIFY2(b.ok(), Diags(b).c_str());
    QVERIFY(b.target.rfind("llvm", 0) == 0);
    QVERIFY2(b.llvm_ir.find("define") != std::string::npos, b.llvm_ir.c_str());
    QVERIFY(!b.llvm_ir_opt.empty());
    QVERIFY(b.llvm_ir_opt != b.llvm_ir);
    QVERIFY(b.assembly.find("ret") != std::string::npos);
    QVERIFY(b.seconds > 0);
    QCOMPARE(stages.back(), std::string("built"));
    QVERIFY(session.IsCurrent(RequestFromSchedule(schedule)));
    QVERIFY(!session.IsCurrent(RequestFromSchedule(schedule, "avx2")));
  }

  void profileChecksAndTimesEveryFunction() {
    ScheduleSession schedule = Scheduled();
    BuildSession session;
    QVERIFY(session.Build(RequestFromSchedule(schedule)).ok());
    RunRequest run;
    run.profile = true;
    run.number = 2;
    run.repeat = 3;
    RunOutcome r = session.Run(run);
    QVERIFY2(r.state == OutcomeState::kOk, r.message.c_str());
    QCOMPARE(r.functions.size(), size_t(2));
    const FunctionResult* main = r.Find("main");
    QVERIFY(main);
    QVERIFY2(main->ok(), main->message.c_str());
    QVERIFY(main->checked());
    QVERIFY(main->max_abs_error < 1e-3);
    QCOMPARE(main->samples_s.size(), size_t(3));
    QVERIFY(main->min_s() > 0 && main->min_s() <= main->mean_s());
    QVERIFY(main->std_s() >= 0);
    QCOMPARE(main->flops.value_or(-1), 2.0 * 32 * 32 * 32);
    QVERIFY(main->gflops_per_s().value_or(0) > 0);
    QVERIFY(r.Find("add") && r.Find("add")->ok());
    QCOMPARE(session.history().size(), size_t(1));
    QCOMPARE(session.history()[0].step, 0);

    // A run without profiling checks but neither times nor adds to the history.
    run.profile = false;
    RunOutcome plain = session.Run(run);
    QVERIFY(plain.state == OutcomeState::kOk);
    QVERIFY(plain.Find("main")->samples_s.empty());
    QVERIFY(!plain.Find("main")->gflops_per_s());
    QCOMPARE(session.history().size(), size_t(1));
  }

  void historyIsKeyedByScheduleStep() {
    ScheduleSession schedule = Scheduled();
    BuildSession session;
    RunRequest run;
    run.profile = true;
    run.number = 1;
    run.repeat = 2;
    auto profile = [&] {
      BuildRequest request = RequestFromSchedule(schedule);
      if (!session.IsCurrent(request)) {
        BuildOutcome b = session.Build(request);
        if (!b.ok()) return Diags(b);
      }
      RunOutcome r = session.Run(run);
      return r.state == OutcomeState::kOk ? std::string() : r.message;
    };
    QCOMPARE(profile(), std::string());
    std::vector<ScheduleTreeNode> tree = schedule.Tree();
    std::string error;
    int loop = -1;
    for (size_t i = 0; i < tree.size(); ++i) {
      if (tree[i].name == "j") loop = static_cast<int>(i);
    }
    QVERIFY(loop >= 0);
    auto step = SplitStep(tree, loop, {std::nullopt, 8}, schedule.func_name(), &error);
    QVERIFY2(step.has_value(), error.c_str());
    QVERIFY(!schedule.Apply(*step).HasErrors());
    QVERIFY(!session.IsCurrent(RequestFromSchedule(schedule)));
    QCOMPARE(profile(), std::string());
    QCOMPARE(session.history().size(), size_t(2));
    const ProfilePoint& second = session.history()[1];
    QCOMPARE(second.step, 1);
    QVERIFY2(second.trace.find("sch.split") != std::string::npos, second.trace.c_str());
    QVERIFY(second.Find("main")->ok());
    QCOMPARE(second.Find("main")->samples_s.size(), size_t(2));
    // Profiling the same step again replaces its point.
    QCOMPARE(profile(), std::string());
    QCOMPARE(session.history().size(), size_t(2));
    // Undo then profile: back to step 0's point.
    QVERIFY(schedule.Undo());
    QCOMPARE(profile(), std::string());
    QCOMPARE(session.history().size(), size_t(2));
    session.ClearHistory();
    QVERIFY(session.history().empty());
  }

  void loadedInputsBindSymbolicShapes() {
    BuildSession session;
    BuildRequest request;
    request.module = Parse(kRowSum);
    QVERIFY2(session.Build(request).ok(), Diags(*session.build()).c_str());
    RunOutcome random = session.Run({});
    QCOMPARE(random.functions.size(), size_t(1));
    QVERIFY(random.functions[0].status == RunStatus::kFailed);
    QVERIFY2(random.functions[0].message.find("symbolic") != std::string::npos,
             random.functions[0].message.c_str());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    runtime::NDArray a = runtime::NDArray::Empty({5, 8}, runtime::Float(32));
    for (int64_t i = 0; i < a.NumElements(); ++i) a.SetDouble(i, 0.25 * i);
    std::string error;
    QVERIFY2(runtime::SaveNpy(dir.path().toStdString() + "/A.npy", a, &error), error.c_str());
    RunRequest missing;
    missing.inputs = dir.path().toStdString() + "/no-such-dir";
    RunOutcome none = session.Run(missing);
    QVERIFY(none.state == OutcomeState::kFailed && none.functions.empty());
    QCOMPARE(none.message, "the input directory " + missing.inputs + " does not exist");
    RunRequest loaded;
    loaded.inputs = dir.path().toStdString();
    loaded.profile = true;
    loaded.number = 1;
    loaded.repeat = 1;
    RunOutcome r = session.Run(loaded);
    QVERIFY2(r.functions[0].ok(), r.functions[0].message.c_str());
    QVERIFY(r.functions[0].checked());
    // Two FLOPs (a multiply and an add) per element of the loaded 5 x 8 array.
    QCOMPARE(r.functions[0].flops.value_or(-1), 2.0 * 5 * 8);
  }

  void failuresSayWhyAndRunNothing() {
    BuildSession session;
    ScheduleSession schedule = Scheduled();
    QVERIFY(session.Build(RequestFromSchedule(schedule)).ok());
    BuildRequest gpu;
    gpu.module = Parse(kThreadBound);
    BuildOutcome b = session.Build(gpu);
    QVERIFY(b.state == OutcomeState::kFailed);
    QVERIFY2(Diags(b).find("GPU") != std::string::npos, Diags(b).c_str());
    QVERIFY(!b.module.defined());
    // The failed build replaced the good one: running says so instead of running stale code.
    RunOutcome r = session.Run({});
    QVERIFY(r.state == OutcomeState::kFailed);
    QCOMPARE(r.message, std::string("nothing to run: the build failed"));
    QVERIFY(r.functions.empty());

    BuildRequest bad_target = RequestFromSchedule(schedule, "llvm -mcpu=no-such-cpu-at-all");
    BuildOutcome t = BuildModule(bad_target);
    QVERIFY(t.state == OutcomeState::kFailed);
    QVERIFY2(Diags(t).find("target: ") != std::string::npos, Diags(t).c_str());

    std::string why;
    if (!CudaCanBuild(&why)) {
      BuildOutcome c = BuildModule(RequestFromSchedule(schedule, "cuda"));
      QVERIFY(c.state == OutcomeState::kFailed);
      QVERIFY2(Diags(c).find("cannot build for cuda: " + why) != std::string::npos, Diags(c).c_str());
    }

    BuildSession fresh;
    QCOMPARE(fresh.Run({}).message, std::string("nothing built yet: build first"));
    QVERIFY(fresh.Build(RequestFromSchedule(schedule)).ok());
    RunRequest zero;
    zero.profile = true;
    zero.number = 0;
    QCOMPARE(fresh.Run(zero).message, std::string("number and repeat must be at least 1"));
  }

  void cancellationStopsBetweenStagesAndRepeats() {
    ScheduleSession schedule = Scheduled();
    BuildSession session;
    QVERIFY(session.Build(RequestFromSchedule(schedule)).ok());
    auto first = session.build()->module;

    CancellationToken early;
    early.Cancel();
    BuildOutcome cancelled = session.Build(RequestFromSchedule(schedule, "avx2"), early);
    QVERIFY(cancelled.state == OutcomeState::kCancelled);
    // A cancelled build keeps the previous one.
    QVERIFY(session.build()->module.node() == first.node());

    // Cancel from the progress callback (as the UI thread would) once the second repeat starts.
    // In this process (as CUDA runs are) the cancel lands between repeats.
    CancellationToken token;
    RunRequest run;
    run.isolate = false;
    run.profile = true;
    run.number = 1;
    run.repeat = 5;
    RunOutcome r = session.Run(run, token, [&](const std::string& stage, double) {
      if (stage == "time main (2/5)") token.Cancel();
    });
    QVERIFY(r.state == OutcomeState::kCancelled);
    // The functions before it are complete; nothing after it ran.
    QCOMPARE(r.functions.back().name, std::string("main"));
    QVERIFY(r.functions.back().status == RunStatus::kCancelled);
    QCOMPARE(r.functions.back().message, std::string("cancelled after 2 of 5 repeats"));
    QCOMPARE(r.functions.back().samples_s.size(), size_t(2));
    for (size_t i = 0; i + 1 < r.functions.size(); ++i) {
      QCOMPARE(r.functions[i].samples_s.size(), size_t(5));
    }
    QVERIFY(session.history().empty());

    // Cancelled while building: after code generation, before the source views.
    CancellationToken during;
    BuildOutcome mid = BuildModule(RequestFromSchedule(schedule), during,
                                   [&](const std::string& stage, double) {
                                     if (stage == "source view: ll") during.Cancel();
                                   });
    QVERIFY(mid.state == OutcomeState::kCancelled);
    QVERIFY(mid.assembly.empty() && !mid.module.defined());
  }

  void aCrashingKernelIsACrashedResultAndTheOthersStillRun() {
    BuildSession session;
    BuildRequest request;
    request.module = Parse(kCrashThenAdd);
    QVERIFY2(session.Build(request).ok(), Diags(*session.build()).c_str());
    RunRequest run;
    run.profile = true;
    run.number = 1;
    run.repeat = 2;
    RunOutcome r = session.Run(run);
    // This process is alive to see it; the run itself completed.
    QVERIFY(r.state == OutcomeState::kOk);
    QCOMPARE(r.functions.size(), size_t(2));
    const FunctionResult* crash = r.Find("crash");
    QVERIFY(crash);
    QVERIFY(crash->status == RunStatus::kCrashed);
    QCOMPARE(crash->signal, 11);
    QVERIFY2(crash->message.rfind("SIGSEGV (invalid memory access, e.g. an out-of-bounds index) "
                                  "during run and check crash", 0) == 0,
             crash->message.c_str());
    QVERIFY(crash->samples_s.empty());
    const FunctionResult* add = r.Find("add");
    QVERIFY(add);
    QVERIFY(add->ok());
    QVERIFY(add->checked());
    QCOMPARE(add->samples_s.size(), size_t(2));
    // A profile with a crash is still a history point: the healthy function's times count.
    QCOMPARE(session.history().size(), size_t(1));
  }

  void cancelStopsOneLongCallAtOnce() {
    BuildSession session;
    BuildRequest request;
    request.module = Parse(kSpin);
    QVERIFY2(session.Build(request).ok(), Diags(*session.build()).c_str());
    CancellationToken token;
    RunRequest run;
    run.reference = ReferenceKind::kNone;
    run.profile = true;
    run.number = 1;
    run.repeat = 1;
    // Cancelled as the one call starts: without the child to kill, this would not come back.
    RunOutcome r = session.Run(run, token, [&](const std::string& stage, double) {
      if (stage == "run main") token.Cancel();
    });
    QVERIFY(r.state == OutcomeState::kCancelled);
    QCOMPARE(r.functions.size(), size_t(1));
    QVERIFY(r.functions[0].status == RunStatus::kCancelled);
    QCOMPARE(r.functions[0].message, std::string("cancelled while it ran"));
  }

  void isolatedAndInProcessRunsAgree() {
    ScheduleSession schedule = Scheduled();
    BuildSession session;
    QVERIFY(session.Build(RequestFromSchedule(schedule)).ok());
    RunRequest run;
    run.profile = true;
    run.number = 2;
    run.repeat = 2;
    RunOutcome isolated = session.Run(run);
    run.isolate = false;
    RunOutcome here = session.Run(run);
    QVERIFY(isolated.state == OutcomeState::kOk && here.state == OutcomeState::kOk);
    QCOMPARE(isolated.functions.size(), here.functions.size());
    for (size_t i = 0; i < here.functions.size(); ++i) {
      const FunctionResult& a = isolated.functions[i];
      const FunctionResult& b = here.functions[i];
      QCOMPARE(a.name, b.name);
      QVERIFY(a.status == b.status);
      QCOMPARE(a.reference, b.reference);
      QCOMPARE(a.max_abs_error, b.max_abs_error);  // same seed, same inputs, same code
      QCOMPARE(a.samples_s.size(), size_t(2));
      QVERIFY(a.flops.has_value() == b.flops.has_value());
    }
  }
};

QTEST_APPLESS_MAIN(TestBuildSession)
#include "tst_build_session.moc"
