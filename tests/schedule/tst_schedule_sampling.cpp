// Tests of sample_perfect_tile, sample_categorical and sample_compute_location: seeded and deterministic, decisions
// recorded in the trace as TVM prints them and reproduced on replay, sampled values usable as
// split factors (the results compared structurally and through the interpreter), and invalid
// arguments refused with a message.

#include <QTest>
#include <set>
#include <string>

#include "schedule/primitive/primitives.h"
#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const char* kVector = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(64):
            with T.sblock("B"):
                vi = T.axis.spatial(64, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
)";

std::string VectorSplit(const std::string& loops, const std::string& binding) {
  return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for )" + loops + R"(:
            with T.sblock("B"):
                vi = T.axis.spatial(64, )" + binding + R"()
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)
)";
}

// A producer of the matmul's A operand: the matmul's reduction loop k is no location for it.
const char* kScaledMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        A2 = T.sblock_alloc_buffer((16, 16))
        for i, k in T.grid(16, 16):
            with T.sblock("A2"):
                vi, vk = T.axis.remap("SS", [i, k])
                A2[vi, vk] = A[vi, vk] * T.float32(2.0)
        for i, j, k in T.grid(16, 16, 16):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A2[vi, vk] * B[vk, vj]
)";

int64_t Product(const Schedule& sch, const std::vector<Schedule::ExprRV>& vs) {
  int64_t p = 1;
  for (const auto& v : vs) p *= sch.Get(v);
  return p;
}

}  // namespace

class TestScheduleSampling : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void perfectTileIsSeededAndValid() {
    ir::IRModule before = ParseModule(kVector);
    for (int64_t seed : {1, 7, 12345, 2147483646}) {
      Schedule a(before), b(before);
      a.Seed(seed);
      b.Seed(seed);
      LoopRV la = a.GetLoops(a.GetSBlock("B"))[0];
      LoopRV lb = b.GetLoops(b.GetSBlock("B"))[0];
      for (int round = 0; round < 5; ++round) {
        std::vector<Schedule::ExprRV> va = a.SamplePerfectTile(la, 3, 4);
        std::vector<Schedule::ExprRV> vb = b.SamplePerfectTile(lb, 3, 4);
        QCOMPARE(Product(a, va), int64_t(64));
        QVERIFY(a.Get(va[2]) <= 4);
        for (size_t k = 0; k < va.size(); ++k) QCOMPARE(a.Get(va[k]), b.Get(vb[k]));
      }
      QCOMPARE(a.trace().AsPython(), b.trace().AsPython());
    }
    // Over many draws every split of 64 into two factors with the inner one <= 16 shows up.
    Schedule sch(before);
    LoopRV l = sch.GetLoops(sch.GetSBlock("B"))[0];
    std::set<int64_t> inner;
    for (int k = 0; k < 200; ++k) inner.insert(sch.Get(sch.SamplePerfectTile(l, 2, 16)[1]));
    QCOMPARE(inner, (std::set<int64_t>{1, 2, 4, 8, 16}));
  }

  void perfectTileDecisions() {
    ir::IRModule before = ParseModule(kVector);
    Schedule sch(before);
    LoopRV l = sch.GetLoops(sch.GetSBlock("B"))[0];
    std::vector<Schedule::ExprRV> v = sch.SamplePerfectTile(l, 2, 16, std::vector<int64_t>{4, 16});
    QCOMPARE(sch.Get(v[0]), int64_t(4));
    QCOMPARE(sch.Get(v[1]), int64_t(16));
    // A decision that no longer tiles the loop is repaired from the innermost factor out.
    std::vector<Schedule::ExprRV> r = sch.SamplePerfectTile(l, 3, 16, std::vector<int64_t>{1, 3, 8});
    QCOMPARE(sch.Get(r[0]), int64_t(1));
    QCOMPARE(sch.Get(r[1]), int64_t(8));
    QCOMPARE(sch.Get(r[2]), int64_t(8));
    QCOMPARE(sch.trace().AsPython(),
             std::string("b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                         "l1, = sch.get_loops(block=b0)\n"
                         "v2, v3 = sch.sample_perfect_tile(loop=l1, n=2, max_innermost_factor=16, "
                         "decision=[4, 16])\n"
                         "v4, v5, v6 = sch.sample_perfect_tile(loop=l1, n=3, "
                         "max_innermost_factor=16, decision=[1, 8, 8])\n"));
  }

  void splitBySampledFactors() {
    ir::IRModule before = ParseModule(kVector);
    {
      Schedule sch(before);
      LoopRV l = sch.GetLoops(sch.GetSBlock("B"))[0];
      std::vector<Schedule::ExprRV> v = sch.SamplePerfectTile(l, 2, 16, std::vector<int64_t>{8, 8});
      sch.SplitBy(l, {v[0], v[1]});
      ExpectModule(before, sch.mod(), VectorSplit("i_0, i_1 in T.grid(8, 8)", "i_0 * 8 + i_1"));
      QVERIFY(sch.trace().AsPython().find(
                  "l4, l5 = sch.split(loop=l1, factors=[v2, v3], preserve_unit_iters=True, "
                  "disable_predication=False)") != std::string::npos);
      ExpectReplay(before, sch);
    }
    {
      Schedule sch(before);
      LoopRV l = sch.GetLoops(sch.GetSBlock("B"))[0];
      std::vector<Schedule::ExprRV> v =
          sch.SamplePerfectTile(l, 3, 4, std::vector<int64_t>{2, 8, 4});
      sch.SplitBy(l, {std::monostate{}, v[1], v[2]});
      ExpectModule(before, sch.mod(),
                   VectorSplit("i_0, i_1, i_2 in T.grid(2, 8, 4)", "i_0 * 32 + i_1 * 4 + i_2"));
      ExpectReplay(before, sch);
    }
    {
      Schedule sch(before);
      LoopRV l = sch.GetLoops(sch.GetSBlock("B"))[0];
      Schedule::ExprRV c = sch.SampleCategorical({2, 4, 16}, {0.0, 0.0, 1.0});
      QCOMPARE(sch.Get(c), int64_t(16));
      sch.SplitBy(l, {std::monostate{}, c});
      ExpectModule(before, sch.mod(), VectorSplit("i_0, i_1 in T.grid(4, 16)", "i_0 * 16 + i_1"));
      ExpectReplay(before, sch);
    }
  }

  void categorical() {
    ir::IRModule before = ParseModule(kVector);
    Schedule a(before), b(before);
    a.Seed(99);
    b.Seed(99);
    std::set<int64_t> seen;
    for (int k = 0; k < 100; ++k) {
      int64_t x = a.Get(a.SampleCategorical({1, 2, 4, 8}, {0.5, 0.0, 0.25, 0.25}));
      QCOMPARE(b.Get(b.SampleCategorical({1, 2, 4, 8}, {0.5, 0.0, 0.25, 0.25})), x);
      seen.insert(x);
    }
    // A candidate of probability 0 is never drawn; the others all are.
    QCOMPARE(seen, (std::set<int64_t>{1, 4, 8}));
    Schedule sch(before);
    Schedule::ExprRV v = sch.SampleCategorical({3, 5}, {0.5, 0.5}, 1);
    QCOMPARE(sch.Get(v), int64_t(5));
    QCOMPARE(sch.trace().AsPython(),
             std::string("v0 = sch.sample_categorical(candidates=[3, 5], probs=[0.5, 0.5], "
                         "decision=1)\n"));
  }

  void samplingErrors() {
    ir::IRModule before = ParseModule(kVector);
    Schedule sch(before);
    LoopRV l = sch.GetLoops(sch.GetSBlock("B"))[0];
    auto message = [&](auto&& f) -> std::string {
      size_t steps = sch.trace().instructions().size();
      try {
        f();
      } catch (const std::invalid_argument& e) {
        if (sch.trace().instructions().size() != steps) return "(trace changed)";
        return e.what();
      }
      return "(no error)";
    };
    QCOMPARE(message([&] { sch.SampleCategorical({1, 2}, {1.0}); }),
             std::string("sample_categorical: 2 candidates but 1 probabilities"));
    QCOMPARE(message([&] { sch.SampleCategorical({1, 2}, {0.0, 0.0}); }),
             std::string("sample_categorical: the probabilities sum to 0"));
    QCOMPARE(message([&] { sch.SampleCategorical({1, 2}, {0.5, 0.5}, 2); }),
             std::string("sample_categorical: the decision 2 is not an index of the 2 candidates"));
    QCOMPARE(message([&] { sch.SamplePerfectTile(l, 0); }),
             std::string("sample_perfect_tile: n must be positive, got 0"));
    QCOMPARE(message([&] { sch.SamplePerfectTile(l, 2, 16, std::vector<int64_t>{64}); }),
             std::string("sample_perfect_tile: the decision has 1 factors, but n is 2"));
    QCOMPARE(message([&] { sch.Seed(0); }), std::string("seed must be in [1, 2147483646], got 0"));
  }

  // TVM's candidates: inline (the block can be inlined), root, then the consumer's loops i and j;
  // j, i under a unit loop: unit loops are skipped.
  void computeLocationCandidates() {
    Schedule sch(ParseModule(kTwoStage));
    QCOMPARE(ComputeLocationCandidates(sch, sch.GetSBlock("B")), (std::vector<int64_t>{-2, -1, 0, 1}));
    // The matmul's trailing reduction loop k is not a candidate.
    Schedule mm(ParseModule(kScaledMatmul));
    QCOMPARE(ComputeLocationCandidates(mm, mm.GetSBlock("A2")), (std::vector<int64_t>{-2, -1, 0, 1}));
    // The last block has no consumer: only root (and it cannot be inlined: it writes an output).
    QCOMPARE(ComputeLocationCandidates(sch, sch.GetSBlock("C")), (std::vector<int64_t>{-1}));
  }

  // Each decision does what compute_at / compute_inline at that location does, keeps the
  // program's meaning, and replays from the trace.
  void computeLocationDecisions() {
    ir::IRModule before = ParseModule(kScaledMatmul);
    for (int64_t decision : {-2, -1, 0, 1}) {
      Schedule sch(before);
      SBlockRV a2 = sch.GetSBlock("A2");
      LoopRV where = SampleComputeLocation(sch, a2, decision);
      sch.ComputeAt(a2, where, true);
      const std::string trace = sch.trace().AsPython();
      QVERIFY2(trace.find("sch.sample_compute_location(block=b0, decision=" + std::to_string(decision) + ")") !=
                   std::string::npos,
               trace.c_str());
      QVERIFY2(trace.find("sch.compute_at(block=b0, loop=l1, preserve_unit_loops=True, index=-1)") != std::string::npos,
               trace.c_str());
      const std::string text = script::PrintModule(sch.mod());
      if (decision == -2) {
        QVERIFY2(text.find("sblock(\"A2\")") == std::string::npos, text.c_str());
      } else if (decision == -1) {
        QVERIFY(ir::StructuralEqual(sch.mod(), before));
      } else {
        // Under the consumer's loop: A2 computed inside C's nest, a slice at a time.
        Schedule expected(before);
        SBlockRV b = expected.GetSBlock("A2");
        expected.ComputeAt(b, expected.GetLoops(expected.GetSBlock("C"))[decision], true);
        QVERIFY(ir::StructuralEqual(sch.mod(), expected.mod()));
      }
      ExpectSameMeaning(before, sch.mod());
      ExpectReplay(before, sch);
    }
  }

  // Sampled without a decision: seeded, every location valid; a replayed decision that is no
  // longer a candidate falls back to the one before it, as TVM's does.
  void computeLocationSampling() {
    ir::IRModule before = ParseModule(kTwoStage);
    std::set<std::string> traces;
    // Seeds far apart: a Park-Miller generator's first draw from small seeds is small.
    for (int64_t k = 0; k < 12; ++k) {
      Schedule sch(before);
      sch.Seed(1 + k * 178956970);
      SBlockRV b = sch.GetSBlock("B");
      sch.ComputeAt(b, SampleComputeLocation(sch, b), true);
      ExpectSameMeaning(before, sch.mod());
      traces.insert(sch.trace().AsPython());
    }
    QVERIFY(traces.size() > 1);
    Schedule repaired(before);
    SampleComputeLocation(repaired, repaired.GetSBlock("B"), 7);
    QVERIFY2(repaired.trace().AsPython().find("decision=1)") != std::string::npos,
             repaired.trace().AsPython().c_str());
    // A root or inline location is no loop for other primitives.
    Schedule other(before);
    LoopRV root = SampleComputeLocation(other, other.GetSBlock("B"), -1);
    try {
      other.Parallel(root);
      QFAIL("parallel took the root location");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find("root location of sample_compute_location") != std::string::npos, e.what());
    }
  }

  void samplingFromRecipe() {
    ir::IRModule before = ParseModule(kVector);
    Schedule sch(before);
    DiagnosticList diags = ApplyRecipe(sch,
                                       "l, = sch.get_loops(\"B\")\n"
                                       "v0, v1 = sch.sample_perfect_tile(l, n=2, "
                                       "max_innermost_factor=8, decision=[16, 4])\n"
                                       "c = sch.sample_categorical([1, 2], [0.5, 0.5], decision=0)\n"
                                       "a, b = sch.split(l, factors=[v0, v1])\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(before, sch.mod(), VectorSplit("i_0, i_1 in T.grid(16, 4)", "i_0 * 4 + i_1"));
    ExpectReplay(before, sch);
    // A loop of symbolic extent: the outer factor is unknown, None in the recipe as in TVM.
    ir::IRModule dynamic = ParseModule(R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(a: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n, 8))
        for i, j in T.grid(n, 8):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads()
                T.writes(A[vi, vj])
                A[vi, vj] = T.float32(1.0)
)");
    Schedule dyn(dynamic);
    Apply(dyn, "i, j = sch.get_loops(\"B\")\n"
               "f = sch.sample_perfect_tile(i, n=3)\n"
               "assert f[0] is None and sch.get(f[1]) * sch.get(f[2]) == 1\n"
               "g = sch.sample_perfect_tile(j, n=2)\n"
               "assert g[0] is not None and sch.get(g[0]) * sch.get(g[1]) == 8\n");
    QVERIFY(dyn.trace().AsPython().find("_, v") != std::string::npos);
    ExpectReplay(dynamic, dyn);
    Schedule bad(before);
    diags = ApplyRecipe(bad, "c = sch.sample_categorical([1, 2], [0.5], decision=0)\n");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(diags[0].message, std::string("sample_categorical: 2 candidates but 1 probabilities"));
  }
};

QTEST_APPLESS_MAIN(TestScheduleSampling)
#include "tst_schedule_sampling.moc"
