// core/meta_schedule for cuda targets, without a GPU: the sketches of matmuls, a padded conv2d,
// reductions (softmax, a row sum) and an elementwise kernel; every sampled candidate verified
// (VerifyGPUCode), every block bound, equal to the unscheduled kernel under the interpreter's GPU
// simulation both as scheduled and as lowered (the threads of a block as a team, barriers and
// shared-memory races checked), and compiled by NVRTC where this build has it; the CUDA
// postprocessors and the CUDA mutators before and after; the core fixes the CUDA space needs
// (compute_at widening a shared tile over the threads, vthread lowered to a loop, ThreadSync's
// pending set, the in-thread part of a cross-thread reduction); the search on CUDA candidates with
// a runner that checks them on the interpreter; and the batch face without a GPU.
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "codegen/build.h"
#include "codegen/cuda/codegen_cuda.h"
#include "dlight/schedule_rule.h"
#include "driver/driver.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "meta_schedule/mutator.h"
#include "meta_schedule/postproc.h"
#include "meta_schedule/schedule_rules.h"
#include "meta_schedule/search.h"
#include "meta_schedule/task.h"
#include "runtime/cuda/cuda_driver.h"
#include "schedule/recipe.h"
#include "script/tvmscript.h"
#include "tir/functor.h"
#include "tir/verifier.h"
#include "transform/registry.h"
#include "workbench/equivalence.h"

using namespace wb;
using namespace wb::meta_schedule;

namespace {

ir::IRModule ParseOrDie(const std::string& text) {
  script::ParseResult parsed = script::Parse(text, "case.py");
  if (!parsed.ok()) qFatal("does not parse: %s\n%s", RenderDiagnostics(parsed.diagnostics).c_str(), text.c_str());
  return parsed.module;
}

tir::PrimFunc MainOf(const ir::IRModule& m) { return m->Lookup("main").as_ref<tir::PrimFuncNode>(); }

codegen::Target Cuda() {
  std::string error;
  auto t = codegen::ParseTarget("cuda -arch=sm_90", &error);
  if (!t) qFatal("target: %s", error.c_str());
  return *t;
}

const char* kMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 48), "float32"), C: T.Buffer((64, 48), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(64, 48, 32):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// Little spatial work (64 = 2 warps): any thread count is allowed.
const char* kSmallMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 64), "float32"), B: T.Buffer((64, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, j, k in T.grid(8, 8, 64):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// A padded 3x3 convolution: the padding inlined into the convolution, whose shared input tile
// then has a halo clipped at the image's edge.
const char* kConv = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(data: T.Buffer((1, 2, 8, 8), "float32"), weight: T.Buffer((4, 2, 3, 3), "float32"), conv: T.Buffer((1, 4, 8, 8), "float32")):
        T.func_attr({"tirx.noalias": True})
        pad = T.sblock_alloc_buffer((1, 2, 10, 10))
        for n, c, h, w in T.grid(1, 2, 10, 10):
            with T.sblock("pad"):
                v_n, v_c, v_h, v_w = T.axis.remap("SSSS", [n, c, h, w])
                T.reads(data[v_n, v_c, v_h - 1, v_w - 1])
                T.writes(pad[v_n, v_c, v_h, v_w])
                pad[v_n, v_c, v_h, v_w] = T.if_then_else(1 <= v_h and v_h < 9 and 1 <= v_w and v_w < 9, data[v_n, v_c, v_h - 1, v_w - 1], T.float32(0.0))
        for n, f, y, x, rc, ry, rx in T.grid(1, 4, 8, 8, 2, 3, 3):
            with T.sblock("conv"):
                v_n, v_f, v_y, v_x, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [n, f, y, x, rc, ry, rx])
                T.reads(pad[v_n, v_rc, v_y + v_ry, v_x + v_rx], weight[v_f, v_rc, v_ry, v_rx])
                T.writes(conv[v_n, v_f, v_y, v_x])
                with T.init():
                    conv[v_n, v_f, v_y, v_x] = T.float32(0.0)
                conv[v_n, v_f, v_y, v_x] = conv[v_n, v_f, v_y, v_x] + pad[v_n, v_rc, v_y + v_ry, v_x + v_rx] * weight[v_f, v_rc, v_ry, v_rx]
)";

// A row sum with little spatial work: CrossThreadReduction's case.
const char* kRowSum = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 300), "float32"), B: T.Buffer((4,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i, k in T.grid(4, 300):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A[vi, vk]
)";

const char* kElementwise = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((10, 100), "float32"), B: T.Buffer((10, 100), "float32"), C: T.Buffer((10, 100), "float32")):
        T.func_attr({"tirx.noalias": True})
        D = T.sblock_alloc_buffer((10, 100))
        for i, j in T.grid(10, 100):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj], B[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = A[vi, vj] + B[vi, vj]
        for i, j in T.grid(10, 100):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(D[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(D[vi, vj], T.float32(0.0))
)";

// Softmax over rows, as LegalizeOps writes it (max, exp, sum, divide).
tir::PrimFunc Softmax() {
  const char* relax = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 96), dtype="float32")):
        with R.dataflow():
            gv = R.nn.softmax(x, axis=-1)
            R.output(gv)
        return gv
)";
  DiagnosticList diags;
  auto pipeline = transform::BuildPipeline("LegalizeOps", diags);
  if (!pipeline) qFatal("pipeline");
  ir::IRModule lowered = (*pipeline)(ParseOrDie(relax));
  for (const auto& f : lowered->functions) {
    if (auto p = f.as_ref<tir::PrimFuncNode>(); p.defined()) {
      p.CopyOnWrite()->attrs.erase("global_symbol");
      return p;
    }
  }
  qFatal("no softmax kernel");
}

// Every block with iterators under a threadIdx-bound loop.
bool EveryBlockBound(const tir::PrimFunc& f) {
  struct Checker : tir::StmtVisitor {
    bool ok = true;
    int bound = 0;
    void VisitStmt_(const tir::ForNode* op) override {
      const bool t = op->kind == tir::ForKind::kThreadBinding && op->thread_binding.defined() &&
                     op->thread_binding->thread_tag.rfind("threadIdx", 0) == 0;
      bound += t;
      tir::StmtVisitor::VisitStmt_(op);
      bound -= t;
    }
    void VisitStmt_(const tir::SBlockNode* op) override {
      if (bound == 0 && op->name_hint != "root" && !op->iter_vars.empty()) ok = false;
      tir::StmtVisitor::VisitStmt_(op);
    }
  } checker;
  checker(f->body);
  return checker.ok;
}

ir::IRModule Lower(const ir::IRModule& m, std::string* error) {
  DiagnosticList diags;
  auto pipeline = transform::BuildPipeline("tir_lowering_cuda", diags);
  if (!pipeline) qFatal("pipeline");
  try {
    return (*pipeline)(m);
  } catch (const std::exception& e) {
    *error = e.what();
    return {};
  }
}

// "" when `after` computes what `before` does under the interpreter.
std::string SameMeaning(const ir::IRModule& before, const ir::IRModule& after, uint64_t seed) {
  workbench::EquivalenceOptions o;
  o.seed = seed;
  o.compiled_fallback = false;
  for (const auto& check : workbench::CheckEquivalence(before, after, o)) {
    if (check.name != "main") continue;
    if (check.outcome != workbench::FunctionCheck::Outcome::kEqual) {
      return std::string(workbench::OutcomeName(check.outcome)) + ": " + check.detail;
    }
    return "";
  }
  return "main was not checked";
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Two barriers with nothing between them.
bool DoubledBarrier(const std::string& text) {
  std::istringstream in(text);
  std::string line, prev;
  while (std::getline(in, line)) {
    std::string t = line.substr(line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' '));
    if (t.rfind("T.tvm_storage_sync", 0) == 0 && prev.rfind("T.tvm_storage_sync", 0) == 0) return true;
    prev = t;
  }
  return false;
}

struct SpaceStats {
  int valid = 0;
  std::vector<std::string> rejected;  // why
  std::vector<std::string> traces;
  std::vector<std::string> scheduled;  // printed
  std::vector<std::string> lowered;    // printed
};

// Samples `n` candidates of each sketch; every valid one must be bound, verified, equal to the
// original scheduled and lowered, and compile. Returns the stats per sketch.
std::vector<SpaceStats> CheckSpace(const tir::PrimFunc& func, int n) {
  const SpaceOptions options = DefaultSpaceOptions(Cuda());
  const int sketches = NumSketches(func, options);
  std::vector<SpaceStats> out(sketches);
  ir::IRModule before = dlight::SingleFunctionModule(func);
  for (int s = 0; s < sketches; ++s) {
    for (int seed = 1; seed <= n; ++seed) {
      Candidate c;
      c.sketch = s;
      SampledSchedule sampled = ApplyDesignSpace(func, options, c, seed * 7919);
      if (!sampled.schedule) {
        // A rejected candidate must say why, as a postprocessor or a rule.
        if (sampled.error.empty()) {
          QTest::qFail("a candidate was rejected without a reason", __FILE__, __LINE__);
          return out;
        }
        out[s].rejected.push_back(sampled.error);
        continue;
      }
      schedule::Schedule& sch = *sampled.schedule;
      const std::string trace = sch.trace().AsPython();
      // VerifyGPUCode passed it, and left the module it lowered for the build.
      if (!sampled.lowered.defined()) {
        QTest::qFail(("no lowered module\n" + trace).c_str(), __FILE__, __LINE__);
        return out;
      }
      if (!EveryBlockBound(sch.Func())) {
        QTest::qFail(("a block is unbound\n" + script::PrintModule(sch.mod())).c_str(), __FILE__, __LINE__);
        return out;
      }
      DiagnosticList ill = tir::VerifyWellFormed(sch.mod());
      if (!ill.empty()) {
        QTest::qFail(("ill-formed: " + RenderDiagnostics(ill)).c_str(), __FILE__, __LINE__);
        return out;
      }
      // The trace replays to the same function.
      schedule::Schedule replay(before);
      DiagnosticList diags = schedule::ApplyRecipe(replay, trace);
      if (!diags.empty() || !ir::StructuralEqual(replay.Func()->body, sch.Func()->body)) {
        QTest::qFail(("the trace does not replay: " + RenderDiagnostics(diags) + "\n" + trace).c_str(), __FILE__,
                     __LINE__);
        return out;
      }
      std::string same = SameMeaning(before, sch.mod(), seed);
      if (!same.empty()) {
        QTest::qFail(("scheduled: " + same + "\n" + script::PrintModule(sch.mod())).c_str(), __FILE__, __LINE__);
        return out;
      }
      const ir::IRModule& lowered = sampled.lowered;
      same = SameMeaning(before, lowered, seed + 100);
      if (!same.empty()) {
        QTest::qFail(("lowered: " + same + "\n" + script::PrintModule(lowered)).c_str(), __FILE__, __LINE__);
        return out;
      }
      const std::string printed = script::PrintModule(lowered);
      if (DoubledBarrier(printed)) {
        QTest::qFail(("a barrier twice\n" + printed).c_str(), __FILE__, __LINE__);
        return out;
      }
      if (codegen::NvrtcAvailable()) {
        codegen::BuildOptions bo;
        bo.default_schedule = false;
        // From the lowered module, which the build takes as it is.
        codegen::BuildResult built = codegen::Build(lowered, Cuda(), bo);
        if (!built.ok()) {
          QTest::qFail(("NVRTC: " + RenderDiagnostics(built.diagnostics) + "\n" + script::PrintModule(sch.mod()))
                           .c_str(),
                       __FILE__, __LINE__);
          return out;
        }
      }
      ++out[s].valid;
      out[s].traces.push_back(trace);
      out[s].lowered.push_back(printed);
      out[s].scheduled.push_back(script::PrintModule(sch.mod()));
    }
  }
  return out;
}

#define VERIFY_SAME(expr)                      \
  do {                                         \
    const std::string same_ = (expr);          \
    QVERIFY2(same_.empty(), same_.c_str());    \
  } while (0)

// The extents of the loops bound to threadIdx.x.
std::multiset<int64_t> ThreadXExtents(const tir::PrimFunc& f) {
  std::multiset<int64_t> out;
  tir::PostOrderVisit(f->body, [&](const ir::Object* node) {
    auto* loop = dynamic_cast<const tir::ForNode*>(node);
    if (!loop || loop->kind != tir::ForKind::kThreadBinding || !loop->thread_binding.defined() ||
        loop->thread_binding->thread_tag != "threadIdx.x") {
      return;
    }
    if (const int64_t* e = tir::AsConstInt(loop->extent)) out.insert(*e);
  });
  return out;
}

// The sites where `m` differs from `c`.
std::vector<size_t> Changed(const Candidate& c, const Candidate& m) {
  std::vector<size_t> out;
  for (size_t k = 0; k < m.decisions.size(); ++k) {
    if (k >= c.decisions.size() || m.decisions[k] != c.decisions[k]) out.push_back(k);
  }
  return out;
}

bool AnyContains(const std::vector<std::string>& texts, const std::string& what) {
  for (const auto& t : texts) {
    if (t.find(what) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

class TestMetaScheduleCuda : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void targetLimitsReachTheSpace() {
    std::string error;
    auto t = codegen::ParseTarget("cuda -arch=sm_80 -max_threads_per_block=512 -max_shared_memory_per_block=16384",
                                  &error);
    QVERIFY2(t, error.c_str());
    SpaceOptions o = DefaultSpaceOptions(*t);
    QVERIFY(o.cuda);
    QCOMPARE(o.max_threads_per_block, int64_t(512));
    QCOMPARE(o.max_shared_memory_per_block, int64_t(16384));
    QCOMPARE(o.unroll_max_steps, (std::vector<int64_t>{0, 16, 32, 64, 128, 256, 512, 1024}));
    QVERIFY(!DefaultSpaceOptions(codegen::Target::Host()).cuda);
  }

  // MultiLevelTiling's sketch: shared operand tiles fetched by the threads together, a local
  // accumulator, blockIdx / vthread / threadIdx; the lowered kernel keeps its barriers single.
  void matmulSketch() {
    tir::PrimFunc f = MainOf(ParseOrDie(kSmallMatmul));
    QCOMPARE(NumSketches(f, DefaultSpaceOptions(Cuda())), 1);
    std::vector<SpaceStats> stats = CheckSpace(f, 16);
    if (QTest::currentTestFailed()) return;
    QVERIFY2(stats[0].valid >= 8, std::to_string(stats[0].valid).c_str());
    const auto& traces = stats[0].traces;
    for (const char* part : {"storage_scope=\"shared\"", "storage_scope=\"local\"", "thread_axis=\"vthread.x\"",
                             "thread_axis=\"blockIdx.x\"", "thread_axis=\"threadIdx.x\"",
                             "sample_perfect_tile(loop=", "decompose_reduction(",
                             "ann_key=\"meta_schedule.cooperative_fetch\""}) {
      QVERIFY2(AnyContains(traces, part), (std::string(part) + "\n" + traces[0]).c_str());
    }
    // The annotations are consumed by the postprocessors; the shared tiles are synchronised in
    // the lowered kernel, where no virtual thread is left.
    QVERIFY(!AnyContains(stats[0].scheduled, "meta_schedule.cooperative_fetch"));
    QVERIFY(!AnyContains(stats[0].scheduled, "meta_schedule.unroll_explicit"));
    QVERIFY2(AnyContains(stats[0].lowered, "T.tvm_storage_sync(\"shared\")"), stats[0].lowered[0].c_str());
    QVERIFY2(!AnyContains(stats[0].lowered, "vthread"), stats[0].lowered[0].c_str());
  }

  // With 3072 outputs a block must run at least a warp of threads: most random tilings do not
  // (TVM's space, as sample_perfect_tile draws it), and VerifyGPUCode is what rejects them.
  void largerMatmulRejectsByThreadLimits() {
    tir::PrimFunc f = MainOf(ParseOrDie(kMatmul));
    std::vector<SpaceStats> stats = CheckSpace(f, 96);
    if (QTest::currentTestFailed()) return;
    QVERIFY(stats[0].valid >= 1);
    for (const std::string& why : stats[0].rejected) {
      const bool thread_limit = why.find("threads, outside [32, 1024]") != std::string::npos ||
                                why.find("virtual threads exceed max_vthread 8") != std::string::npos;
      QVERIFY2(thread_limit, why.c_str());
    }
  }

  void conv2dSketch() {
    tir::PrimFunc f = MainOf(ParseOrDie(kConv));
    std::vector<SpaceStats> stats = CheckSpace(f, 128);
    if (QTest::currentTestFailed()) return;
    QVERIFY2(stats[0].valid >= 2, std::to_string(stats[0].valid).c_str());
    QVERIFY(AnyContains(stats[0].traces, "compute_inline("));
    for (const std::string& why : stats[0].rejected) {
      const bool thread_limit = why.find("threads, outside [32, 1024]") != std::string::npos ||
                                why.find("virtual threads exceed max_vthread 8") != std::string::npos;
      QVERIFY2(thread_limit, why.c_str());
    }
  }

  // CrossThreadReduction's sketch (0) reduces over threadIdx.x with an in-thread part; sketch 1
  // leaves the reduction to AutoBind's threads, one row each.
  void rowSumSketches() {
    tir::PrimFunc f = MainOf(ParseOrDie(kRowSum));
    QCOMPARE(NumSketches(f, DefaultSpaceOptions(Cuda())), 2);
    std::vector<SpaceStats> stats = CheckSpace(f, 12);
    if (QTest::currentTestFailed()) return;
    QVERIFY(stats[0].valid >= 4);
    QVERIFY(stats[1].valid >= 1);
    QVERIFY2(AnyContains(stats[0].lowered, "cross_thread_B"), stats[0].lowered[0].c_str());
    QVERIFY2(AnyContains(stats[0].traces, "sample_categorical("), stats[0].traces[0].c_str());
    QVERIFY(!AnyContains(stats[1].lowered, "cross_thread_B"));
  }

  void softmaxSketches() {
    tir::PrimFunc f = Softmax();
    QCOMPARE(NumSketches(f, DefaultSpaceOptions(Cuda())), 2);
    std::vector<SpaceStats> stats = CheckSpace(f, 10);
    if (QTest::currentTestFailed()) return;
    QVERIFY(stats[0].valid >= 3);
    QVERIFY(stats[1].valid >= 1);
    // The sum is fused into the normalisation (computed at its row, in shared memory).
    QVERIFY2(AnyContains(stats[0].traces, "storage_scope=\"shared\""), stats[0].traces[0].c_str());
  }

  void elementwiseSketch() {
    tir::PrimFunc f = MainOf(ParseOrDie(kElementwise));
    QCOMPARE(NumSketches(f, DefaultSpaceOptions(Cuda())), 1);
    std::vector<SpaceStats> stats = CheckSpace(f, 8);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(stats[0].valid, 8);
    // One block left after inlining, bound by AutoBind with a sampled thread count.
    QVERIFY2(stats[0].traces[0].find("compute_inline(") != std::string::npos, stats[0].traces[0].c_str());
    QVERIFY(AnyContains(stats[0].traces, "thread_axis=\"threadIdx.x\""));
  }

  // --- Postprocessors, before and after ---

  void rewriteCooperativeFetch() {
    ir::IRModule before = ParseOrDie(kMatmul);
    schedule::Schedule sch(before);
    auto c = sch.GetSBlock("C");
    auto loops = sch.GetLoops(c);
    auto is = sch.Split(loops[0], {std::nullopt, 16});
    auto js = sch.Split(loops[1], {std::nullopt, 16});
    sch.Reorder({is[0], js[0], is[1], js[1], loops[2]});
    sch.Bind(sch.Fuse({is[0], js[0]}), "blockIdx.x");
    auto t = sch.Fuse({is[1], js[1]});
    sch.Bind(t, "threadIdx.x");
    auto ks = sch.Split(loops[2], {std::nullopt, 8});
    auto a = sch.CacheRead(c, 0, "shared", {c});
    sch.ComputeAt(a, ks[0], true);
    auto al = sch.GetLoops(a);
    sch.Fuse({al[al.size() - 2], al.back()});
    sch.Annotate(a, "meta_schedule.cooperative_fetch", ir::MakeInt(4));
    std::string error;
    QVERIFY2(RewriteCooperativeFetch(sch, &error), error.c_str());
    QVERIFY(!sch.Get(a)->annotations.count("meta_schedule.cooperative_fetch"));
    auto after = sch.GetLoops(a);
    // ..., the fetch split [outer, 256 threads, 4 lanes]: threads bound, lanes vectorized.
    QCOMPARE(sch.Get(after.back())->kind, tir::ForKind::kVectorized);
    QCOMPARE(*tir::AsConstInt(sch.Get(after.back())->extent), int64_t(4));
    tir::For threads = sch.Get(after[after.size() - 2]);
    QCOMPARE(threads->thread_binding->thread_tag, std::string("threadIdx.x"));
    QCOMPARE(*tir::AsConstInt(threads->extent), int64_t(256));
    VERIFY_SAME(SameMeaning(before, sch.mod(), 3));
    // A fetch outside any thread is refused, named.
    schedule::Schedule bare(before);
    bare.Annotate(bare.GetSBlock("C"), "meta_schedule.cooperative_fetch", ir::MakeInt(1));
    QVERIFY(!RewriteCooperativeFetch(bare, &error));
    QVERIFY2(error.find("block C") != std::string::npos, error.c_str());
  }

  void rewriteUnboundBlock() {
    ir::IRModule before = ParseOrDie(kElementwise);
    schedule::Schedule sch(before);
    std::string error;
    QVERIFY(RewriteUnboundBlock(sch, DefaultSpaceOptions(Cuda()), &error));
    QVERIFY(EveryBlockBound(sch.Func()));
    // 1000 elements: one block of min(1000, 1024) threads each.
    std::string text = script::PrintModule(sch.mod());
    QVERIFY2(Count(text, "thread=\"blockIdx.x\"") == 2 && Count(text, "T.thread_binding(1000, thread=\"threadIdx.x\")") == 2,
             text.c_str());
    VERIFY_SAME(SameMeaning(before, sch.mod(), 4));
    std::string lower_error;
    QVERIFY2(Lower(sch.mod(), &lower_error).defined(), lower_error.c_str());
    // A block already bound is left as it is.
    std::string once = text;
    QVERIFY(RewriteUnboundBlock(sch, DefaultSpaceOptions(Cuda()), &error));
    QCOMPARE(script::PrintModule(sch.mod()), once);
  }

  void rewriteReductionBlockLeavesCrossThreadReductions() {
    ir::IRModule before = ParseOrDie(kRowSum);
    schedule::Schedule sch(before);
    auto b = sch.GetSBlock("B");
    auto loops = sch.GetLoops(b);
    auto ks = sch.Split(loops[1], {std::nullopt, 32});
    sch.Bind(ks[1], "threadIdx.x");
    sch.Bind(loops[0], "blockIdx.x");
    std::string error;
    QVERIFY(RewriteReductionBlock(sch, &error));
    QVERIFY(sch.Get(sch.GetSBlock("B"))->init.defined());  // not decomposed
    // A serial reduction under threads is decomposed at its reduction loop.
    schedule::Schedule serial(before);
    auto b2 = serial.GetSBlock("B");
    auto l2 = serial.GetLoops(b2);
    serial.Bind(l2[0], "threadIdx.x");
    QVERIFY(RewriteReductionBlock(serial, &error));
    QVERIFY(!serial.Get(serial.GetSBlock("B_update"))->init.defined());
    VERIFY_SAME(SameMeaning(before, serial.mod(), 5));
    VERIFY_SAME(SameMeaning(before, sch.mod(), 5));
  }

  void disallowDynamicLoop() {
    ir::IRModule m = ParseOrDie(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(a: T.handle, n: T.int32):
        A = T.match_buffer(a, (n,), "float32")
        for i in range(n):
            with T.sblock("A"):
                vi = T.axis.spatial(n, i)
                T.reads()
                T.writes(A[vi])
                A[vi] = T.float32(1.0)
)");
    schedule::Schedule sch(m);
    std::string error;
    QVERIFY(!DisallowDynamicLoop(sch, &error));
    QVERIFY2(error.find("DisallowDynamicLoop: the loop i has a symbolic extent") != std::string::npos, error.c_str());
    schedule::Schedule fixed(ParseOrDie(kElementwise));
    QVERIFY(DisallowDynamicLoop(fixed, &error));
  }

  void verifyGpuCodeLimits() {
    ir::IRModule before = ParseOrDie(kElementwise);
    SpaceOptions o = DefaultSpaceOptions(Cuda());
    // 1000 threads in a block: too many for a 512-thread target.
    schedule::Schedule sch(before);
    std::string error;
    QVERIFY(RewriteUnboundBlock(sch, o, &error));
    QVERIFY2(VerifyGPUCode(sch, o, &error), error.c_str());
    SpaceOptions small = o;
    small.max_threads_per_block = 512;
    QVERIFY(!VerifyGPUCode(sch, small, &error));
    QVERIFY2(error.find("1000 threads per block exceed max_threads_per_block 512") != std::string::npos, error.c_str());
    // Shared memory beyond the target's.
    schedule::Schedule mm(ParseOrDie(kMatmul));
    auto c = mm.GetSBlock("C");
    auto loops = mm.GetLoops(c);
    mm.Bind(loops[0], "blockIdx.x");
    mm.Bind(loops[1], "threadIdx.x");
    auto a = mm.CacheRead(c, 0, "shared", {c});
    mm.ComputeAt(a, loops[1], true);
    auto al = mm.GetLoops(a);
    mm.Bind(al.back(), "threadIdx.x");
    QVERIFY2(VerifyGPUCode(mm, o, &error), error.c_str());
    SpaceOptions tiny = o;
    tiny.max_shared_memory_per_block = 64;
    QVERIFY(!VerifyGPUCode(mm, tiny, &error));
    QVERIFY2(error.find("bytes of shared memory exceed max_shared_memory_per_block 64") != std::string::npos,
             error.c_str());
    // A thread count outside the tiled block's annotated range.
    schedule::Schedule ann(before);
    QVERIFY(RewriteUnboundBlock(ann, o, &error));
    ann.Annotate(ann.GetSBlock("C"), "meta_schedule.thread_extent_low_inclusive", ir::MakeInt(1));
    ann.Annotate(ann.GetSBlock("C"), "meta_schedule.thread_extent_high_inclusive", ir::MakeInt(256));
    QVERIFY(!VerifyGPUCode(ann, o, &error));
    QVERIFY2(error.find("block C runs on 1000 threads, outside [1, 256]") != std::string::npos, error.c_str());
    // An unbound block does not lower for the GPU.
    schedule::Schedule unbound(before);
    QVERIFY(!VerifyGPUCode(unbound, o, &error));
    QVERIFY2(error.find("the lowering failed") != std::string::npos, error.c_str());
  }

  // --- Core fixes the CUDA space needs ---

  // compute_at of a shared cache under a threadIdx loop covers what every thread of the block
  // reads (the thread loop relaxed), not one thread's part; a local cache stays per thread.
  void computeAtWidensSharedOverThreads() {
    ir::IRModule before = ParseOrDie(kMatmul);
    schedule::Schedule sch(before);
    auto c = sch.GetSBlock("C");
    auto loops = sch.GetLoops(c);
    auto is = sch.Split(loops[0], {std::nullopt, 8});
    sch.Bind(is[0], "blockIdx.x");
    sch.Bind(is[1], "threadIdx.x");
    auto a = sch.CacheRead(c, 0, "shared", {c});
    sch.ComputeAt(a, loops[1], true);
    auto al = sch.GetLoops(a);
    // Under blockIdx, threadIdx and j: rows of all 8 threads, the whole k.
    QCOMPARE(al.size(), size_t(5));
    QCOMPARE(*tir::AsConstInt(sch.Get(al[3])->extent), int64_t(8));
    QCOMPARE(*tir::AsConstInt(sch.Get(al[4])->extent), int64_t(32));
    VERIFY_SAME(SameMeaning(before, sch.mod(), 6));
    schedule::Schedule local(before);
    auto c2 = local.GetSBlock("C");
    auto l2 = local.GetLoops(c2);
    auto is2 = local.Split(l2[0], {std::nullopt, 8});
    local.Bind(is2[0], "blockIdx.x");
    local.Bind(is2[1], "threadIdx.x");
    auto a2 = local.CacheRead(c2, 0, "local", {c2});
    local.ComputeAt(a2, l2[1], true);
    auto al2 = local.GetLoops(a2);
    QCOMPARE(*tir::AsConstInt(local.Get(al2[3])->extent), int64_t(1));
    VERIFY_SAME(SameMeaning(before, local.mod(), 6));
  }

  // vthread.x lowers to a loop inside each thread: no launch of its own, the same result.
  void vthreadLowersToSerialLoop() {
    ir::IRModule before = ParseOrDie(kElementwise);
    schedule::Schedule sch(before);
    auto c = sch.GetSBlock("C");
    sch.ComputeInline(sch.GetSBlock("D"));
    auto loops = sch.GetLoops(c);
    auto js = sch.Split(loops[1], {4, std::nullopt});
    sch.Bind(loops[0], "blockIdx.x");
    sch.Bind(js[0], "vthread.x");
    sch.Bind(js[1], "threadIdx.x");
    std::string error;
    ir::IRModule lowered = Lower(sch.mod(), &error);
    QVERIFY2(lowered.defined(), error.c_str());
    std::string text = script::PrintModule(lowered);
    QVERIFY2(text.find("vthread") == std::string::npos, text.c_str());
    QVERIFY2(text.find("for j_0 in range(4)") != std::string::npos, text.c_str());
    VERIFY_SAME(SameMeaning(before, lowered, 7));
  }

  // ThreadSync's pending accesses are a set: each loop of a kernel joins what was pending with
  // what an iteration leaves, and copies tripled them with every loop of a sequence (a tiled
  // candidate with its fetch loops ran out of memory). 24 loops in a row, each thread writing
  // and reading its own element: planned at once, no barrier; a read of another thread's
  // element after them gets exactly one.
  void threadSyncStaysSmallOverManyLoops() {
    std::string body;
    for (int l = 0; l < 24; ++l) {
      body += "        for k" + std::to_string(l) + " in range(2):\n";
      body += "            S[tx] = S[tx] + A[k" + std::to_string(l) + ", tx]\n";
    }
    const std::string program = std::string(R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((2, 64), "float32"), B: T.Buffer((64,), "float32")):
        tx = T.launch_thread("threadIdx.x", 64)
        S = T.alloc_buffer((64,), scope="shared")
        S[tx] = T.float32(0.0)
)") + body + "        B[tx] = S[63 - tx]\n";
    ir::IRModule m = ParseOrDie(program);
    DiagnosticList diags;
    auto sync = transform::BuildPipeline("ThreadSync", diags);
    QVERIFY(sync);
    ir::IRModule got = (*sync)(m);
    std::string text = script::PrintModule(got);
    QCOMPARE(Count(text, "T.tvm_storage_sync(\"shared\")"), 1);
    QVERIFY2(text.find("T.tvm_storage_sync(\"shared\")\n        B[tx] = S[63 - tx]") != std::string::npos, text.c_str());
  }

  // The row sum reduced by 32 threads over a serial outer part (LowerCrossThreadReduction's
  // in-thread reduction), with a predicate for the 300 = 10 x 32 - 20 tail.
  void crossThreadReductionWithInThreadPart() {
    ir::IRModule before = ParseOrDie(kRowSum);
    schedule::Schedule sch(before);
    auto b = sch.GetSBlock("B");
    auto loops = sch.GetLoops(b);
    auto ks = sch.Split(loops[1], {std::nullopt, 32});
    sch.Bind(loops[0], "blockIdx.x");
    sch.Bind(ks[1], "threadIdx.x");
    DiagnosticList diags;
    auto ctr = transform::BuildPipeline("LowerCrossThreadReduction", diags);
    QVERIFY(ctr);
    ir::IRModule got = (*ctr)(sch.mod());
    std::string text = script::PrintModule(got);
    for (const char* part : {"normal_reduce_temp_B", "with T.sblock(\"B_in_thread_init\"):", "with T.sblock(\"B_in_thread\"):",
                             "with T.sblock(\"B_cross_thread\"):", "with T.sblock(\"B_write_back\"):"}) {
      QVERIFY2(text.find(part) != std::string::npos, (std::string(part) + "\n" + text).c_str());
    }
    DiagnosticList ill = tir::VerifyWellFormed(got);
    QVERIFY2(ill.empty(), (RenderDiagnostics(ill) + "\n" + text).c_str());
    // (The interpreter runs T.tvm_thread_allreduce once LowerThreadAllreduce has lowered it.)
    std::string error;
    ir::IRModule lowered = Lower(sch.mod(), &error);
    QVERIFY2(lowered.defined(), error.c_str());
    VERIFY_SAME(SameMeaning(before, lowered, 8));
  }

  // --- Search and the batch face ---

  void verifyDesignSpaceSummary() {
    ExtractedTasks tasks;
    TuneTask mm;
    mm.name = "matmul";
    mm.func = MainOf(ParseOrDie(kSmallMatmul));
    TuneTask sum;
    sum.name = "row_sum";
    sum.func = MainOf(ParseOrDie(kRowSum));
    tasks.tasks = {mm, sum};
    std::vector<SpaceSummary> space = VerifyDesignSpace(tasks, Cuda(), 1, 6);
    QCOMPARE(space.size(), size_t(2));
    QCOMPARE(space[0].sketches.size(), size_t(1));
    QCOMPARE(space[1].sketches.size(), size_t(2));
    for (const SpaceSummary& s : space) {
      QVERIFY2(s.ok(), (s.task + ": " + (s.sketches.empty() ? s.message : s.sketches[0].first_error)).c_str());
      for (const SketchSummary& k : s.sketches) {
        // Drawn until 6 are valid (or 96 were drawn).
        QVERIFY(k.valid == 6 || k.sampled == 96);
        QVERIFY(k.valid <= k.sampled && k.distinct <= k.valid && k.distinct >= 1);
        QVERIFY(!k.trace.empty());
        if (s.built) QCOMPARE(k.compiled, k.valid);
      }
    }
  }

  // --- Mutators (TVM's CUDA list), before and after ---

  void cudaMutatorsAreTvms() {
    std::vector<Mutator> cuda = DefaultMutators(DefaultSpaceOptions(Cuda()));
    QCOMPARE(cuda.size(), size_t(3));
    QCOMPARE(cuda[0].name, std::string("MutateTileSize"));
    QCOMPARE(cuda[0].probability, 0.9);
    QCOMPARE(cuda[1].name, std::string("MutateUnroll"));
    QCOMPARE(cuda[1].probability, 0.08);
    QCOMPARE(cuda[2].name, std::string("MutateThreadBinding"));
    QCOMPARE(cuda[2].probability, 0.02);
    std::vector<Mutator> cpu = DefaultMutators(DefaultSpaceOptions(codegen::Target::Host()));
    QCOMPARE(cpu.size(), size_t(4));
    QCOMPARE(cpu[1].name, std::string("MutateComputeLocation"));
  }

  // MutateThreadBinding takes another thread count for a loop split and bound to threadIdx.x by
  // a sampled extent: CrossThreadReduction's (the row sum) and AutoBind's (the elementwise
  // kernel). One decision changes, to another choice; the space rebuilt from it binds that many
  // threads (or VerifyGPUCode refuses it, saying why), and still computes the same; the same
  // generator state gives the same mutation.
  void mutateThreadBinding() {
    const SpaceOptions o = DefaultSpaceOptions(Cuda());
    for (const char* text : {kRowSum, kElementwise}) {
      tir::PrimFunc f = MainOf(ParseOrDie(text));
      ir::IRModule before = dlight::SingleFunctionModule(f);
      int rebuilt = 0;
      for (int seed = 1; seed <= 24 && rebuilt < 3; ++seed) {
        SampledSchedule s = ApplyDesignSpace(f, o, Candidate{}, seed * 7919);
        if (!s.schedule) continue;
        std::mt19937_64 rng(seed), again(seed);
        std::optional<Candidate> m = MutateThreadBinding(s.candidate, s.sites, rng);
        QVERIFY(m.has_value());
        QCOMPARE(MutateThreadBinding(s.candidate, s.sites, again)->decisions, m->decisions);
        std::vector<size_t> changed = Changed(s.candidate, *m);
        QCOMPARE(changed.size(), size_t(1));
        const size_t k = changed[0];
        QVERIFY(s.sites[k].kind == SampleSite::Kind::kThreadExtent);
        const int64_t was = s.candidate.decisions[k][0], now = m->decisions[k][0];
        QVERIFY(now != was && now >= 0 && now < static_cast<int64_t>(s.sites[k].choices.size()));
        QVERIFY(ThreadXExtents(s.schedule->Func()).count(s.sites[k].choices[was]) > 0);
        SampledSchedule r = ApplyDesignSpace(f, o, *m, 1);
        if (!r.schedule) {
          QVERIFY2(r.error.find("VerifyGPUCode") != std::string::npos, r.error.c_str());
          continue;
        }
        QCOMPARE(r.candidate.decisions[k], m->decisions[k]);
        std::multiset<int64_t> threads = ThreadXExtents(r.schedule->Func());
        QVERIFY2(threads.count(s.sites[k].choices[now]) > 0,
                 script::PrintModule(r.schedule->mod()).c_str());
        VERIFY_SAME(SameMeaning(before, r.schedule->mod(), seed));
        ++rebuilt;
      }
      QVERIFY2(rebuilt >= 2, text);
    }
    // A CPU candidate has no thread binding to mutate.
    tir::PrimFunc mm = MainOf(ParseOrDie(kMatmul));
    SampledSchedule cpu =
        ApplyDesignSpace(mm, DefaultSpaceOptions(codegen::Target::Host()), Candidate{}, 3);
    QVERIFY(cpu.schedule.has_value());
    std::mt19937_64 rng(1);
    QVERIFY(!MutateThreadBinding(cpu.candidate, cpu.sites, rng).has_value());
  }

  // MutateTileSize on a CUDA matmul: a tile decision (its product kept) or, as TVM's does, a
  // cooperative fetch's vector length (another of its choices); both happen, and what VerifyGPUCode
  // passes computes the same. MutateUnroll takes another unroll step.
  void mutateTileSizeAndUnrollOnCuda() {
    const SpaceOptions o = DefaultSpaceOptions(Cuda());
    tir::PrimFunc f = MainOf(ParseOrDie(kSmallMatmul));
    ir::IRModule before = dlight::SingleFunctionModule(f);
    auto first_valid = [&] {
      for (int seed = 1; seed < 40; ++seed) {
        SampledSchedule t = ApplyDesignSpace(f, o, Candidate{}, seed * 7919);
        if (t.schedule) return t;
      }
      return SampledSchedule{};
    };
    const SampledSchedule s = first_valid();
    QVERIFY(s.schedule.has_value());
    std::mt19937_64 rng(11);
    int tiles = 0, vectors = 0, rebuilt = 0;
    for (int i = 0; i < 48; ++i) {
      std::optional<Candidate> m = MutateTileSize(s.candidate, s.sites, rng);
      QVERIFY(m.has_value());
      std::vector<size_t> changed = Changed(s.candidate, *m);
      QCOMPARE(changed.size(), size_t(1));
      const size_t k = changed[0];
      if (s.sites[k].kind == SampleSite::Kind::kTile) {
        ++tiles;
        int64_t a = 1, b = 1;
        for (int64_t x : s.candidate.decisions[k]) a *= x;
        for (int64_t x : m->decisions[k]) b *= x;
        QCOMPARE(b, a);
      } else {
        QVERIFY(s.sites[k].kind == SampleSite::Kind::kVectorLength);
        ++vectors;
        QVERIFY(m->decisions[k][0] != s.candidate.decisions[k][0]);
        QVERIFY(m->decisions[k][0] < static_cast<int64_t>(s.sites[k].choices.size()));
      }
      if (rebuilt >= 6) continue;
      SampledSchedule r = ApplyDesignSpace(f, o, *m, 1);
      if (!r.schedule) {
        QVERIFY(!r.error.empty());
        continue;
      }
      QCOMPARE(r.candidate.decisions[k], m->decisions[k]);
      VERIFY_SAME(SameMeaning(before, r.schedule->mod(), i));
      ++rebuilt;
    }
    QVERIFY(tiles > 0 && vectors > 0);
    QVERIFY(rebuilt > 0);
    std::optional<Candidate> u = MutateUnroll(s.candidate, s.sites, rng);
    QVERIFY(u.has_value());
    std::vector<size_t> changed = Changed(s.candidate, *u);
    QCOMPARE(changed.size(), size_t(1));
    QVERIFY(s.sites[changed[0]].kind == SampleSite::Kind::kUnroll);
    SampledSchedule r = ApplyDesignSpace(f, o, *u, 1);
    QVERIFY2(r.schedule.has_value(), r.error.c_str());
    const std::string step = std::to_string(o.unroll_max_steps[u->decisions[changed[0]][0]]);
    const std::string trace = r.schedule->trace().AsPython();
    QVERIFY2(trace.find("ann_key=\"meta_schedule.unroll_explicit\", ann_val=" + step) !=
                 std::string::npos,
             trace.c_str());
  }

  // With a runner (here one that checks on the interpreter and times by structure), the search
  // runs on CUDA candidates: the default schedule is dlight's GPU one, candidates come from the
  // CUDA space, and none that computes wrong numbers wins.
  void searchRunsOnCudaCandidates() {
    ExtractedTasks tasks;
    TuneTask mm;
    mm.name = "matmul";
    mm.func = MainOf(ParseOrDie(kMatmul));
    tasks.tasks = {mm};
    TuneOptions o;
    o.target = "cuda -arch=sm_90";
    o.max_trials = 6;
    o.num_trials_per_iter = 3;
    o.population_size = 8;
    o.verify_top_k = 0;
    int calls = 0;
    o.runner = [&](const BuiltCandidate& built, const tir::PrimFunc& original, const Outputs&,
                   const RunLimits&, const workbench::CancellationToken&) {
      const tir::PrimFunc& scheduled = built.func;
      ++calls;
      Measurement m;
      m.result.name = "main";
      std::string same = SameMeaning(dlight::SingleFunctionModule(original), dlight::SingleFunctionModule(scheduled), 9);
      if (!same.empty()) {
        m.result.status = workbench::RunStatus::kMismatch;
        m.result.message = same;
        return m;
      }
      m.result.samples_s = {1e-3 * (1.0 + static_cast<double>(ir::StructuralHash(scheduled) % 97) / 10.0)};
      m.result.number = 1;
      return m;
    };
    TuneResult r = Tune(tasks, o);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QVERIFY(!r.no_device);
    QCOMPARE(r.tasks.size(), size_t(1));
    QVERIFY2(r.tasks[0].trials >= 4, r.tasks[0].message.c_str());
    QCOMPARE(r.tasks[0].failed, 0);
    QVERIFY(r.tasks[0].best_s.has_value());
    QVERIFY(calls >= r.tasks[0].trials);
  }

  // `--tune --target cuda` where there is no GPU: the design space printed, a clear message and
  // exit code 3.
  void batchTuneCudaWithoutDevice() {
    std::string why;
    if (runtime::cuda::CudaAvailable(&why)) QSKIP("a CUDA device is present: the search would measure");
    QTemporaryDir dir;
    std::string file = dir.path().toStdString() + "/matmul.py";
    std::ofstream(file) << kMatmul;
    std::string work = dir.path().toStdString() + "/work";
    std::ostringstream out, err;
    int rc = driver::RunBatch({file, "--tune", "--target", "cuda", "--trials", "4", "--work-dir", work}, out, err);
    QCOMPARE(rc, 3);
    QVERIFY2(err.str().find("no CUDA device: ") != std::string::npos, err.str().c_str());
    QVERIFY2(err.str().find("candidates cannot be measured") != std::string::npos, err.str().c_str());
    QVERIFY2(out.str().find("design space") != std::string::npos, out.str().c_str());
    QVERIFY2(out.str().find("main") != std::string::npos, out.str().c_str());
  }
};

QTEST_GUILESS_MAIN(TestMetaScheduleCuda)
#include "tst_meta_schedule_cuda.moc"
