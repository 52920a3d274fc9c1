// The default CPU schedules (core/dlight) on the kernels the Relax op set legalizes to, for an
// AVX2 and an AVX-512 target description and the host: every kernel's schedule replays from its
// trace, keeps the kernel's meaning in the interpreter on random inputs, and, for the host, runs
// compiled to the interpreter's results; shapes include 1, primes, non-multiples of the vector
// width and symbolic dims. The pass ApplyDefaultSchedule is checked in the pipeline.
#include <QTest>
#include <cctype>
#include <functional>
#include <set>
#include <tuple>

#include "codegen/vm_codegen.h"
#include "dlight/analysis.h"
#include "dlight_test_util.h"
#include "tir/functor.h"
#include "transform/tir/apply_default_schedule.h"
#include "workbench/schedule_session.h"

using namespace wb;
using namespace wb::dlight::testing;

namespace {

// The rule a matmul with N output columns gets: Matmul when N is whole vectors, or is padded to
// whole vectors at a cost under 2x (the padded columns computed and dropped), else Fallback.
std::string MatmulRule(int n, int lanes) {
  return n % lanes == 0 || 2 * n > lanes ? "Matmul" : "Fallback";
}

}  // namespace

class TestDlight : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void targetDescribesTheHost() {
    codegen::Target host = codegen::Target::Host();
    QVERIFY(host.MaxVectorBits() >= 128);
    QVERIFY(host.NumVectorRegisters() == (host.HasFeature("avx512f") ? 32 : 16));
    QVERIFY(host.l1d_cache_bytes >= 16 << 10);
    QVERIFY(host.l2_cache_bytes >= host.l1d_cache_bytes);
    // The canonical text names the host's CPU, and reads back as the same machine.
    codegen::Target again = TargetOf(host.str());
    QCOMPARE(again.l2_cache_bytes, host.l2_cache_bytes);
    QCOMPARE(again.MaxVectorBits(), host.MaxVectorBits());
    QCOMPARE(TargetOf("avx512").NumVectorRegisters(), 32);
    QCOMPARE(TargetOf("avx2").NumVectorRegisters(), 16);
    QCOMPARE(TargetOf("avx2").MaxVectorBits(), 256);
  }

  void matmul_data() {
    QTest::addColumn<QString>("m");
    QTest::addColumn<QString>("k");
    QTest::addColumn<int>("n");
    for (auto [m, k, n] : std::vector<std::tuple<const char*, const char*, int>>{{"1", "1", 16},
                                                                                 {"1", "5", 32},
                                                                                 {"6", "4", 16},
                                                                                 {"7", "3", 32},
                                                                                 {"13", "7", 48},
                                                                                 {"2", "9", 64},
                                                                                 {"12", "2", 96},
                                                                                 {"5", "3", 10},
                                                                                 {"4", "4", 7},
                                                                                 {"3", "2", 1},
                                                                                 {"n", "5", 16},
                                                                                 {"n", "3", 64},
                                                                                 {"8", "n", 32},
                                                                                 // B packed, rows padded
                                                                                 {"29", "5", 32},
                                                                                 {"48", "3", 64},
                                                                                 {"61", "2", 16},
                                                                                 // columns padded
                                                                                 {"29", "6", 10},
                                                                                 {"n", "4", 10},
                                                                                 {"3", "5", 20}}) {
      QTest::addRow("%sx%sx%d", m, k, n) << QString(m) << QString(k) << n;
    }
  }
  void matmul() {
    QFETCH(QString, m);
    QFETCH(QString, k);
    QFETCH(int, n);
    std::string ns = std::to_string(n);
    std::string relax =
        Program({{"x", {m.toStdString(), k.toStdString()}}, {"w", {k.toStdString(), ns}}},
                {"gv = R.matmul(x, w)"});
    // One output column: a matrix-vector product over x's contiguous rows.
    QCOMPARE(CheckAll(relax, false), Expected([&](int lanes) {
               return n == 1 ? "GEMV" : MatmulRule(n, lanes);
             }));
  }

  // GEMV at batch 1 over the matrix's contiguous axis: a dense layer's weight W[j, k] and a
  // matmul (N, K) x (K,), with odd, prime, unit and vector-multiple K and N, symbolic rows, and
  // a fused epilogue; the lanes sum in a vector (rfactor) where K holds two whole vectors.
  void gemv_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    for (auto [n, k] : std::vector<std::pair<int, int>>{
             {1, 1}, {5, 3}, {7, 16}, {13, 64}, {64, 97}, {3, 128}, {1, 256}, {1000, 512},
             // 4 rows at a time: rows a multiple of 4, a row of whole vectors or not.
             {8, 32}, {12, 48}, {16, 128}, {8, 20}}) {
      QTest::addRow("%dx%d", n, k) << n << k;
    }
  }
  void gemv() {
    QFETCH(int, n);
    QFETCH(int, k);
    std::string ns = std::to_string(n), ks = std::to_string(k);
    script::ParseResult dense = script::Parse(
        "from tvm.script import tirx as T\n\n@T.prim_func\n"
        "def main(X: T.Buffer((1, " + ks + "), \"float32\"), W: T.Buffer((" + ns + ", " + ks +
            "), \"float32\"), Y: T.Buffer((1, " + ns + "), \"float32\")):\n"
        "    for i, j, k in T.grid(1, " + ns + ", " + ks + "):\n"
        "        with T.sblock(\"dense\"):\n"
        "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
        "            with T.init():\n"
        "                Y[vi, vj] = T.float32(0.0)\n"
        "            Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]\n",
        "dense.py");
    QVERIFY(dense.ok());
    auto func = ir::Downcast<tir::PrimFuncNode>(dense.module->Lookup("main"));
    for (const std::string& t : kTargets) {
      codegen::Target target = t == "host" ? codegen::Target::Host() : TargetOf(t);
      QCOMPARE(CheckKernel("dense", func, target, t == "host"), std::string("GEMV"));
      auto applied = dlight::ApplyRules(func, target, dlight::cpu::DefaultRules());
      QVERIFY(applied.has_value());
      std::string trace = applied->schedule.trace().AsPython();
      int lanes = Lanes(t);
      QCOMPARE(trace.find("rfactor") != std::string::npos, k % lanes == 0 && k >= 2 * lanes);
      QCOMPARE(trace.find("parallel") != std::string::npos, int64_t{n} * k >= (1 << 18));
      // Rows in tiles of 4 (split, unrolled) where the lanes are factored out and N allows.
      const bool factored = k % lanes == 0 && k >= 2 * lanes;
      QCOMPARE(trace.find("factors=[None, 4]") != std::string::npos && trace.find("unroll") != std::string::npos,
               factored && n % 4 == 0 && n >= 8);
    }
    // The matmul (N, K) x (K,), with bias and relu after it (FuseOps leaves them a kernel of
    // their own).
    std::string relax = Program({{"w", {ns, ks}}, {"x", {ks}}, {"b", {ns}}},
                                {"lv = R.matmul(w, x)", "lv1 = R.add(lv, b)", "gv = R.nn.relu(lv1)"});
    QCOMPARE(CheckAll(relax, true, "matmul"), Expected([](int) { return "GEMV"; }));
  }

  void gemvSymbolicRows() {
    std::string relax = Program({{"w", {"n", "64"}}, {"x", {"64"}}}, {"gv = R.matmul(w, x)"});
    QCOMPARE(CheckAll(relax, false, "", 5), Expected([](int) { return "GEMV"; }));
    relax = Program({{"w", {"n", "7"}}, {"x", {"7"}}}, {"gv = R.matmul(w, x)"});
    QCOMPARE(CheckAll(relax, false, "", 3), Expected([](int) { return "GEMV"; }));
  }

  // Symbolic rows are padded to whole register tiles (pad_einsum: A copied into ceil(n / MR) * MR
  // zero-padded rows, the padded accumulators a constant tile), so the k loop holds no row
  // predicate that would keep the accumulators in memory, and each row tile pads its own rows
  // (the copy computed in the row-tile loop); checked at row counts leaving every remainder of
  // the tile, 1 included, alone and with the MLP's epilogue fused.
  void symbolicRowsPadded() {
    for (bool fuse : {false, true}) {
      std::string relax = Program({{"x", {"n", "9"}}, {"w", {"9", "32"}}, {"b", {"32"}}},
                                  {"lv = R.matmul(x, w)", "lv1 = R.add(lv, b)", "gv = R.nn.relu(lv1)"});
      for (const std::string& t : kTargets) {
        codegen::Target target = t == "host" ? codegen::Target::Host() : TargetOf(t);
        for (const auto& [name, func] : Kernels(relax, fuse)) {
          std::optional<dlight::AppliedRule> applied =
              dlight::ApplyRules(func, target, dlight::cpu::DefaultRules());
          QVERIFY(applied);
          if (applied->rule != "Matmul") continue;
          QVERIFY(applied->schedule.trace().AsPython().find("pad_einsum") != std::string::npos);
          bool predicated_update = false;
          std::string update;
          tir::PostOrderVisit(applied->schedule.Func()->body, [&](const ir::Object* n) {
            if (n->type_index() != ir::TypeIndex::kSBlockRealize) return;
            const auto* realize = static_cast<const tir::SBlockRealizeNode*>(n);
            if (realize->block->name_hint.find("update") == std::string::npos) return;
            update = realize->block->name_hint;
            if (!tir::IsConstInt(realize->predicate, 1)) predicated_update = true;
          });
          QVERIFY2(!predicated_update, name.c_str());
          // The padded copy of x is made per row tile, inside the row-tile loop.
          schedule::Schedule copy = applied->schedule;
          std::vector<schedule::LoopRV> pad_loops = copy.GetLoops(copy.GetSBlock("x_pad"));
          std::vector<schedule::LoopRV> update_loops = copy.GetLoops(copy.GetSBlock(update));
          QVERIFY(!pad_loops.empty() && !update_loops.empty());
          QVERIFY2(copy.Get(pad_loops[0]).same_as(copy.Get(update_loops[0])), name.c_str());
          for (int64_t rows : {1, 2, 5, 6, 7, 13}) {
            QCOMPARE(CheckKernel(name, func, target, t == "host", rows), std::string("Matmul"));
          }
        }
      }
    }
  }

  void batchMatmul() {
    std::string relax =
        Program({{"x", {"2", "5", "3"}}, {"w", {"2", "3", "16"}}}, {"gv = R.matmul(x, w)"});
    QCOMPARE(CheckAll(relax, false), Expected([](int) { return "Matmul"; }));
    // The weight broadcast over the batch.
    relax = Program({{"x", {"3", "4", "5"}}, {"w", {"5", "32"}}}, {"gv = R.matmul(x, w)"});
    QCOMPARE(CheckAll(relax, false), Expected([](int) { return "Matmul"; }));
    relax = Program({{"x", {"n", "2", "5"}}, {"w", {"n", "5", "16"}}}, {"gv = R.matmul(x, w)"});
    QCOMPARE(CheckAll(relax, false, "", 3), Expected([](int) { return "Matmul"; }));
  }

  // Matmul with its epilogue fused (FuseOps, FuseTIR): the MLP's layers.
  void fusedEpilogue_data() {
    QTest::addColumn<QString>("m");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("n");
    QTest::addColumn<QString>("epilogue");
    for (auto [m, k, n] : std::vector<std::tuple<const char*, int, int>>{
             {"1", 3, 16}, {"7", 5, 32}, {"n", 4, 64}, {"5", 2, 10}, {"n", 3, 12}}) {
      for (const char* epi : {"relu", "gelu", "add"}) {
        QTest::addRow("%sx%dx%d_%s", m, k, n, epi) << QString(m) << k << n << QString(epi);
      }
    }
  }
  void fusedEpilogue() {
    QFETCH(QString, m);
    QFETCH(int, k);
    QFETCH(int, n);
    QFETCH(QString, epilogue);
    std::string ks = std::to_string(k), ns = std::to_string(n), ms = m.toStdString();
    std::vector<std::string> lines = {"lv = R.matmul(x, w)", "lv1 = R.add(lv, b)"};
    if (epilogue == "relu") lines.push_back("gv = R.nn.relu(lv1)");
    if (epilogue == "gelu") lines.push_back("gv = R.nn.gelu(lv1)");
    if (epilogue == "add") lines.push_back("gv = R.add(lv1, y)");
    std::string relax =
        Program({{"x", {ms, ks}}, {"w", {ks, ns}}, {"b", {ns}}, {"y", {ms, ns}}}, lines);
    if (epilogue != "add") {
      relax = Program({{"x", {ms, ks}}, {"w", {ks, ns}}, {"b", {ns}}}, lines);
    }
    std::string rules = CheckAll(relax, true);
    QCOMPARE(rules, Expected([&](int lanes) { return MatmulRule(n, lanes); }));
  }

  // A dense layer written as permute_dims + matmul: the transpose is its own kernel (Injective)
  // unfused; fused, it is inlined into the matmul.
  void transposedWeight() {
    std::string relax = Program({{"x", {"5", "6"}}, {"w", {"32", "6"}}},
                                {"wt = R.permute_dims(w, [1, 0])", "gv = R.matmul(x, wt)"});
    QCOMPARE(CheckAll(relax, false), Expected([](int) { return "Matmul+Injective"; }));
    QCOMPARE(CheckAll(relax, true), Expected([](int) { return "Matmul+Injective"; }));
    // A dense layer reading its weight as W[j, k]: packed into panels through the transpose.
    script::ParseResult dense = script::Parse(R"(from tvm.script import tirx as T

@T.prim_func
def main(X: T.Buffer((31, 3), "float32"), W: T.Buffer((64, 3), "float32"), Y: T.Buffer((31, 64), "float32")):
    for i, j, k in T.grid(31, 64, 3):
        with T.sblock("dense"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0.0)
            Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
)", "dense.py");
    QVERIFY(dense.ok());
    auto func = ir::Downcast<tir::PrimFuncNode>(dense.module->Lookup("main"));
    for (const std::string& t : kTargets) {
      codegen::Target target = t == "host" ? codegen::Target::Host() : TargetOf(t);
      QCOMPARE(CheckKernel("dense", func, target, t == "host"), std::string("Matmul"));
    }
  }

  void injective_data() {
    QTest::addColumn<QString>("relax");
    QTest::addColumn<bool>("fuse");
    auto add = [](const char* name, std::string relax, bool fuse) {
      QTest::newRow(name) << QString::fromStdString(relax) << fuse;
    };
    add("add_7", Program({{"x", {"7"}}, {"y", {"7"}}}, {"gv = R.add(x, y)"}), false);
    add("add_64", Program({{"x", {"64"}}, {"y", {"64"}}}, {"gv = R.add(x, y)"}), false);
    add("add_1", Program({{"x", {"1"}}, {"y", {"1"}}}, {"gv = R.add(x, y)"}), false);
    add("add_3x17", Program({{"x", {"3", "17"}}, {"y", {"3", "17"}}}, {"gv = R.add(x, y)"}), false);
    add("add_large", Program({{"x", {"130", "160"}}, {"y", {"130", "160"}}}, {"gv = R.add(x, y)"}),
        false);
    add("add_large_odd",
        Program({{"x", {"131", "157"}}, {"y", {"131", "157"}}}, {"gv = R.add(x, y)"}), false);
    add("add_1d_large", Program({{"x", {"40000"}}, {"y", {"40000"}}}, {"gv = R.add(x, y)"}), false);
    add("add_1d_large_prime", Program({{"x", {"40009"}}, {"y", {"40009"}}}, {"gv = R.add(x, y)"}),
        false);
    add("bias_2x3x16", Program({{"x", {"2", "3", "16"}}, {"y", {"16"}}}, {"gv = R.add(x, y)"}),
        false);
    add("symbolic", Program({{"x", {"n", "16"}}, {"y", {"16"}}}, {"gv = R.multiply(x, y)"}), false);
    add("symbolic_1d", Program({{"x", {"n"}}, {"y", {"n"}}}, {"gv = R.add(x, y)"}), false);
    add("transpose_5x16", Program({{"x", {"5", "16"}}}, {"gv = R.permute_dims(x, [1, 0])"}), false);
    add("transpose_3d", Program({{"x", {"2", "3", "8"}}}, {"gv = R.permute_dims(x, [2, 0, 1])"}),
        false);
    add("chain_fused",
        Program({{"x", {"9", "16"}}, {"y", {"16"}}},
                {"lv = R.add(x, y)", "lv1 = R.exp(lv)", "gv = R.nn.relu(lv1)"}),
        true);
    add("chain_fused_symbolic",
        Program({{"x", {"n", "5"}}}, {"lv = R.multiply(x, x)", "gv = R.nn.silu(lv)"}), true);
    add("broadcast_to", Program({{"x", {"1", "8"}}}, {"gv = R.broadcast_to(x, R.shape([5, 8]))"}),
        false);
  }
  void injective() {
    QFETCH(QString, relax);
    QFETCH(bool, fuse);
    QCOMPARE(CheckAll(relax.toStdString(), fuse), Expected([](int) { return "Injective"; }));
  }

  // Row reductions: Reduction (vector partial results where a row holds two vectors or more),
  // symbolic rows included (one row loop: nothing symbolic is fused).
  void reductions_data() {
    QTest::addColumn<QString>("relax");
    QTest::addColumn<bool>("fuse");
    QTest::addColumn<QString>("rule");
    auto add = [](const char* name, std::string relax, bool fuse, const char* rule) {
      QTest::newRow(name) << QString::fromStdString(relax) << fuse << QString(rule);
    };
    add("sum_5x9", Program({{"x", {"5", "9"}}}, {"gv = R.sum(x, axis=[1])"}), false, "Reduction");
    add("sum_3x64", Program({{"x", {"3", "64"}}}, {"gv = R.sum(x, axis=[1])"}), false, "Reduction");
    add("max_3x16", Program({{"x", {"3", "16"}}}, {"gv = R.max(x, axis=[1])"}), false, "Reduction");
    add("max_2x96", Program({{"x", {"2", "96"}}}, {"gv = R.max(x, axis=[1])"}), false, "Reduction");
    add("mean_n", Program({{"x", {"n", "8"}}}, {"gv = R.mean(x, axis=[1])"}), false, "Reduction");
    add("softmax_n", Program({{"x", {"n", "256"}}}, {"gv = R.nn.softmax(x, axis=-1)"}), false,
        "Reduction");
    add("layer_norm_4x64", Program({{"x", {"4", "64"}}, {"g", {"64"}}, {"b", {"64"}}},
                                   {"gv = R.nn.layer_norm(x, g, b, axes=[-1])"}),
        false, "Reduction");
    add("layer_norm_n_fused",
        Program({{"x", {"n", "64"}}, {"g", {"64"}}, {"b", {"64"}}},
                {"gv = R.nn.layer_norm(x, g, b, axes=[-1])"}),
        true, "Reduction");
    add("sum_n_by_48", Program({{"x", {"n", "48"}}}, {"gv = R.sum(x, axis=[1])"}), false,
        "Reduction");
    add("softmax_4x16", Program({{"x", {"4", "16"}}}, {"gv = R.nn.softmax(x, axis=-1)"}), false,
        "Reduction");
    add("softmax_3x64", Program({{"x", {"3", "64"}}}, {"gv = R.nn.softmax(x, axis=-1)"}), false,
        "Reduction");
    add("softmax_fused_3x7", Program({{"x", {"3", "7"}}}, {"gv = R.nn.softmax(x, axis=-1)"}), true,
        "Reduction");
    add("log_softmax_2x5", Program({{"x", {"2", "5"}}}, {"gv = R.nn.log_softmax(x, axis=-1)"}),
        true, "Reduction");
    add("log_softmax_2x32", Program({{"x", {"2", "32"}}}, {"gv = R.nn.log_softmax(x, axis=-1)"}),
        false, "Reduction");
    // Rows long enough for two vector accumulators.
    add("sum_3x512", Program({{"x", {"3", "512"}}}, {"gv = R.sum(x, axis=[1])"}), false, "Reduction");
    add("max_2x160", Program({{"x", {"2", "160"}}}, {"gv = R.max(x, axis=[1])"}), false, "Reduction");
    add("softmax_n_by_384", Program({{"x", {"n", "384"}}}, {"gv = R.nn.softmax(x, axis=-1)"}), true,
        "Reduction");
  }

  // A long row's reduction keeps two vectors of partial results (independent add chains) where
  // the row holds two of them at least 4 times, else one vector (on this AMD EPYC, 4 vectors'
  // longer combine per row cost more than their shorter chains saved: softmax 0.77x against
  // 0.84x of the hand-written loop in thread CPU time).
  void reductionVectorAccumulators() {
    for (const std::string& t : kTargets) {
      codegen::Target target = t == "host" ? codegen::Target::Host() : TargetOf(t);
      const int lanes = Lanes(t);
      for (auto [cols, width] : std::vector<std::pair<int, int>>{
               {16 * lanes, 2 * lanes}, {8 * lanes, 2 * lanes}, {6 * lanes, lanes}}) {
        std::string relax = Program({{"x", {"3", std::to_string(cols)}}}, {"gv = R.sum(x, axis=[1])"});
        auto kernels = Kernels(relax, false);
        std::optional<dlight::AppliedRule> applied =
            dlight::ApplyRules(kernels[0].second, target, dlight::cpu::DefaultRules());
        QVERIFY(applied);
        std::string trace = applied->schedule.trace().AsPython();
        std::string split = "factors=[None, " + std::to_string(width) + "]";
        QVERIFY2(trace.find(split) != std::string::npos, (t + ": " + split + "\n" + trace).c_str());
        QCOMPARE(CheckKernel("sum", kernels[0].second, target, t == "host"), std::string("Reduction"));
      }
    }
  }
  void reductions() {
    QFETCH(QString, relax);
    QFETCH(bool, fuse);
    QFETCH(QString, rule);
    std::string r = rule.toStdString();
    QCOMPARE(QString::fromStdString(CheckAll(relax.toStdString(), fuse, "", 3)),
             QString::fromStdString(Expected([&](int) { return r; })));
  }

  // Convolutions and pooling are windowed reductions, not rows: Reduction refuses them (computed
  // at each output point, the padding would be recomputed per window); Conv2d takes the
  // convolutions, Pool the pooling; a small one stays on the calling thread (the bundled
  // convnet's 3x3 convolutions were 3-8x slower parallel).
  void windowedReductions() {
    const std::string conv =
        "lv = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1])";
    std::string relax = Program({{"x", {"1", "3", "12", "12"}}, {"w", {"8", "3", "3", "3"}}},
                                {conv, "gv = R.nn.relu(lv)"});
    QCOMPARE(CheckAll(relax, true), Expected([](int) { return "Conv2d"; }));
    relax = Program({{"x", {"1", "5", "7", "9"}}, {"w", {"3", "5", "3", "3"}}},
                    {"gv = R.nn.conv2d(x, w, strides=[2, 2], padding=[0, 1, 0, 1])"});
    // 5 outputs wide: no vector of 4 lanes or more divides the row.
    QCOMPARE(CheckAll(relax, false), Expected([](int) { return "Fallback"; }));
    relax = Program({{"x", {"1", "2", "9", "9"}}},
                    {"gv = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2])"});
    QCOMPARE(CheckAll(relax, false), Expected([](int) { return "Pool"; }));
    // Few multiply-adds: no thread.
    relax = Program({{"x", {"1", "3", "12", "12"}}, {"w", {"8", "3", "3", "3"}}},
                    {conv, "gv = R.nn.relu(lv)"});
    for (const auto& [name, func] : Kernels(relax, true)) {
      auto applied = dlight::ApplyRules(func, TargetOf("avx2"), dlight::cpu::DefaultRules());
      QVERIFY(applied.has_value());
      QVERIFY2(script::PrintModule(applied->schedule.mod()).find("T.parallel") == std::string::npos,
               name.c_str());
    }
  }

  // Pooling over both layouts, max and average (its division a stage after the pool), strides,
  // padding, dilation, ceil mode, rows that are and are not whole vectors, a symbolic batch;
  // fused with a relu after it too. Every schedule checked in the interpreter and compiled.
  void pool_data() {
    QTest::addColumn<QString>("relax");
    QTest::addColumn<bool>("fuse");
    auto add = [](const char* name, std::string relax, bool fuse) {
      QTest::newRow(name) << QString::fromStdString(relax) << fuse;
    };
    auto pool = [](const char* op, std::vector<std::string> shape, const char* attrs) {
      return Program({{"x", shape}}, {std::string("gv = R.nn.") + op + "(x, " + attrs + ")"});
    };
    add("max_nchw_3x3s2p1", pool("max_pool2d", {"1", "4", "13", "13"},
                                 "pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]"), false);
    add("max_nchw_2x2s2_row16", pool("max_pool2d", {"2", "3", "32", "32"},
                                     "pool_size=[2, 2], strides=[2, 2]"), false);
    add("avg_nchw_3x3s1p1", pool("avg_pool2d", {"1", "5", "9", "7"},
                                 "pool_size=[3, 3], padding=[1, 1, 1, 1]"), false);
    add("avg_nchw_include_pad", pool("avg_pool2d", {"1", "2", "8", "8"},
                                     "pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], "
                                     "count_include_pad=True"), false);
    add("max_nhwc_3x3s2p1", pool("max_pool2d", {"1", "9", "9", "32"},
                                 "pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], "
                                 "layout=\"NHWC\""), false);
    add("avg_nhwc_odd_channels", pool("avg_pool2d", {"2", "6", "6", "7"},
                                      "pool_size=[2, 2], strides=[2, 2], layout=\"NHWC\""),
        false);
    add("max_dilated_ceil", pool("max_pool2d", {"1", "3", "11", "11"},
                                 "pool_size=[2, 2], strides=[2, 2], dilation=[2, 2], "
                                 "ceil_mode=True"), false);
    add("max_symbolic_batch", pool("max_pool2d", {"n", "2", "8", "16"},
                                   "pool_size=[2, 2], strides=[1, 1]"), false);
    add("max_fused_relu",
        Program({{"x", {"1", "4", "12", "12"}}},
                {"lv = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])",
                 "gv = R.nn.relu(lv)"}),
        true);
  }
  void pool() {
    QFETCH(QString, relax);
    QFETCH(bool, fuse);
    QCOMPARE(CheckAll(relax.toStdString(), fuse, "", 3), Expected([](int) { return "Pool"; }));
  }

  // Conv2d over many shapes and both layouts: the output's innermost extent decides (a vector
  // of at least 4 lanes must divide it); every schedule checked in the interpreter and compiled.
  void conv2d_data() {
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QList<int>>("shape");  // N, C, H, W, F, K, stride, pad, dilation, groups
    QTest::addColumn<bool>("relu");
    auto add = [](const char* layout, QList<int> shape, bool relu) {
      QString name = QString(layout);
      for (int d : shape) name += "_" + QString::number(d);
      if (relu) name += "_relu";
      QTest::newRow(name.toLatin1().constData()) << QString(layout) << shape << relu;
    };
    add("NCHW", {1, 3, 12, 12, 8, 3, 1, 1, 1, 1}, false);
    add("NCHW", {1, 4, 10, 16, 6, 3, 1, 1, 1, 1}, true);
    add("NCHW", {2, 5, 9, 8, 7, 3, 1, 1, 1, 1}, false);
    add("NCHW", {1, 3, 13, 13, 5, 3, 1, 0, 1, 1}, false);   // 11 wide: no vector
    add("NCHW", {1, 2, 17, 17, 4, 3, 2, 1, 1, 1}, false);   // stride 2: 9 wide
    add("NCHW", {1, 2, 19, 19, 4, 3, 2, 0, 1, 1}, false);   // stride 2: 9 wide
    add("NCHW", {1, 3, 11, 11, 5, 3, 1, 1, 2, 1}, false);   // dilation 2: 9 wide
    add("NCHW", {1, 3, 12, 20, 5, 3, 1, 2, 2, 1}, false);   // dilation 2, padding 2: 20 wide
    add("NCHW", {1, 1, 8, 8, 1, 1, 1, 0, 1, 1}, false);
    add("NCHW", {1, 4, 8, 8, 6, 3, 1, 1, 1, 2}, false);     // groups 2
    add("NCHW", {1, 6, 8, 16, 6, 3, 1, 1, 1, 6}, true);     // depthwise
    add("NCHW", {1, 7, 5, 32, 7, 5, 1, 2, 1, 1}, false);
    // No whole vectors along x: the vector along the channels, the rows along x.
    add("NCHW", {1, 16, 7, 7, 32, 3, 1, 1, 1, 1}, true);    // ResNet's 7x7 stage
    add("NCHW", {1, 8, 14, 14, 16, 3, 1, 1, 1, 1}, false);  // 14x14
    add("NCHW", {2, 8, 12, 12, 4, 3, 1, 0, 1, 1}, true);    // convnet's 10-wide conv
    add("NCHW", {1, 3, 11, 13, 24, 3, 2, 1, 1, 1}, false);  // stride 2: 7 wide
    add("NCHW", {1, 4, 9, 9, 8, 3, 1, 1, 2, 1}, false);     // dilation 2: 7 wide
    add("NCHW", {1, 4, 8, 8, 8, 3, 1, 1, 1, 2}, false);     // groups 2, 8 wide
    add("NCHW", {1, 4, 7, 7, 8, 3, 1, 1, 1, 2}, false);     // groups 2, 7 wide: 4 channels a group
    add("NCHW", {1, 4, 7, 7, 6, 3, 1, 1, 1, 2}, false);     // groups 2, 3 channels a group: no rule
    add("NHWC", {1, 3, 6, 6, 16, 3, 1, 1, 1, 1}, false);
    add("NHWC", {1, 5, 7, 5, 8, 3, 1, 1, 1, 1}, true);
    add("NHWC", {2, 3, 9, 9, 12, 3, 2, 1, 1, 1}, false);
    add("NHWC", {1, 2, 7, 7, 7, 3, 1, 0, 1, 1}, false);     // 7 channels: no vector
    add("NHWC", {1, 4, 9, 9, 32, 3, 1, 2, 2, 1}, false);
    add("NHWC", {1, 1, 4, 4, 4, 1, 1, 0, 1, 1}, false);
    // A stride along whole vectors of x: the vector along the channels all the same.
    add("NCHW", {1, 3, 32, 32, 16, 7, 2, 3, 1, 1}, true);  // ResNet's stem, 16x16 out
    add("NCHW", {1, 3, 33, 33, 8, 7, 2, 3, 1, 1}, false);  // 17 wide: odd rows
    // Depthwise, rows too narrow: the input packed by channel blocks too, a vector load per row.
    add("NCHW", {1, 8, 7, 7, 8, 3, 1, 1, 1, 8}, true);
    add("NCHW", {1, 16, 13, 13, 16, 3, 2, 1, 1, 16}, false);  // stride 2: 7 wide
    add("NCHW", {2, 12, 5, 5, 12, 3, 1, 0, 1, 12}, false);    // no padding: 3 wide
    add("NCHW", {1, 6, 7, 7, 6, 3, 1, 1, 1, 6}, false);       // 6 channels: no vector
    // Grouped, rows too narrow: the vector along a group's output channels, the group's input
    // broadcast.
    add("NCHW", {1, 8, 7, 7, 16, 3, 1, 1, 1, 2}, true);
    add("NCHW", {1, 16, 14, 14, 32, 3, 2, 1, 1, 4}, false);  // stride 2: 7 wide
  }
  void conv2d() {
    QFETCH(QString, layout);
    QFETCH(QList<int>, shape);
    QFETCH(bool, relu);
    const int n = shape[0], c = shape[1], h = shape[2], w = shape[3], f = shape[4], k = shape[5],
              s = shape[6], p = shape[7], d = shape[8], g = shape[9];
    const bool nchw = layout == "NCHW";
    auto str = [](int v) { return std::to_string(v); };
    std::vector<std::string> x = nchw ? std::vector<std::string>{str(n), str(c), str(h), str(w)}
                                      : std::vector<std::string>{str(n), str(h), str(w), str(c)};
    std::vector<std::string> wt =
        nchw ? std::vector<std::string>{str(f), str(c / g), str(k), str(k)}
             : std::vector<std::string>{str(k), str(k), str(c / g), str(f)};
    std::string call = "R.nn.conv2d(x, w, strides=[" + str(s) + ", " + str(s) + "], padding=[" +
                       str(p) + ", " + str(p) + ", " + str(p) + ", " + str(p) + "], dilation=[" +
                       str(d) + ", " + str(d) + "], groups=" + str(g) +
                       (nchw ? "" : ", data_layout=\"NHWC\", kernel_layout=\"HWIO\", out_layout=\"NHWC\"") + ")";
    std::vector<std::string> lines =
        relu ? std::vector<std::string>{"lv = " + call, "gv = R.nn.relu(lv)"}
             : std::vector<std::string>{"gv = " + call};
    std::string relax = Program({{"x", x}, {"w", wt}}, lines);
    const int ow = (w + 2 * p - d * (k - 1) - 1) / s + 1;
    const int inner = nchw ? ow : f;
    // Else along the output channels (the weight packed), where the input does not follow
    // them (not grouped), follows them one to one (depthwise: the input packed too) or by
    // groups of whole vectors (grouped: the tile's channels in one group).
    const bool channel_vectors =
        nchw && (g == 1 || (g == c && f == c) ? f % 4 == 0 : (f / g) % 4 == 0);
    std::string want = inner % 4 == 0 || channel_vectors ? "Conv2d" : "Fallback";
    std::string rules = CheckAll(relax, relu);
    // The kernel holding the convolution; the padding, where it is its own kernel, is Injective.
    QVERIFY2(rules.find("(failed") == std::string::npos, rules.c_str());
    QVERIFY2(rules.find(want) != std::string::npos, (rules + " wants " + want).c_str());
  }

  // A reduction over several trailing axes read whole (a mean over (h, w), with and without
  // keepdims; a sum over a (5, 16) block) has its loops fused into one axis of vector partial
  // results, and goes parallel over its rows by the elements it reads. One whose inputs are
  // contiguous along an output axis instead (a sum over (h, w) of NHWC, a softmax over a
  // leading axis) is not a row reduction: the Fallback's vector runs along that axis.
  void reductionFusesTrailingAxes() {
    struct Case {
      std::vector<TensorParam> params;
      std::string line;
      bool fused;
    };
    const std::vector<Case> cases = {
        {{{"x", {"2", "16", "12", "16"}}}, "gv = R.mean(x, axis=[2, 3], keepdims=True)", true},
        {{{"x", {"3", "5", "16"}}}, "gv = R.sum(x, axis=[1, 2])", true},
        {{{"x", {"3", "4", "8", "8"}}}, "gv = R.mean(x, axis=[2, 3])", true},
    };
    for (const Case& c : cases) {
      std::string relax = Program(c.params, {c.line});
      QVERIFY2(CheckAll(relax, false).find("(failed") == std::string::npos, c.line.c_str());
      for (const std::string& t : kTargets) {
        codegen::Target target = t == "host" ? codegen::Target::Host() : TargetOf(t);
        for (const auto& [name, func] : Kernels(relax, false)) {
          auto applied = dlight::ApplyRules(func, target, dlight::cpu::DefaultRules());
          QVERIFY(applied.has_value());
          QVERIFY2(applied->rule == "Reduction", (c.line + ": " + applied->rule).c_str());
          const std::string trace = applied->schedule.trace().AsPython();
          // Every case's reduced elements (192, 80, 64) hold two vectors of 16 lanes.
          QCOMPARE(trace.find("rfactor") != std::string::npos, c.fused);
        }
      }
    }
    for (const std::string& line : {std::string("gv = R.sum(x, axis=[1, 2])"),
                                    std::string("gv = R.nn.softmax(x, axis=1)")}) {
      std::string relax = Program({{"x", {"2", "8", "8", "16"}}}, {line});
      QCOMPARE(CheckAll(relax, false), Expected([](int) { return "Fallback"; }));
      for (const auto& [name, func] : Kernels(relax, false)) {
        auto applied = dlight::ApplyRules(func, TargetOf("avx2"), dlight::cpu::DefaultRules());
        QVERIFY(applied.has_value());
        schedule::Schedule sch = applied->schedule;
        for (const dlight::BlockInfo& b : dlight::GetBlockInfos(sch)) {
          if (b.IsSpatial()) continue;
          QVERIFY2(sch.Get(b.loops.back())->kind == tir::ForKind::kVectorized,
                   (line + ": " + b.name).c_str());
        }
      }
    }
    // A large input reduced to few rows: parallel over them.
    std::string relax = Program({{"x", {"1", "64", "64", "64"}}}, {"gv = R.mean(x, axis=[2, 3])"});
    for (const auto& [name, func] : Kernels(relax, false)) {
      auto applied = dlight::ApplyRules(func, TargetOf("avx2"), dlight::cpu::DefaultRules());
      QVERIFY(applied.has_value());
      QVERIFY(applied->schedule.trace().AsPython().find("parallel") != std::string::npos);
    }
  }

  // A stride along the output's x makes vectors along x strided loads: ResNet's stem (7x7,
  // stride 2, 3 input channels) runs its vectors along the output channels instead, the weight
  // packed with the tile's channels innermost, the input values broadcast.
  void convStrideChannelBlocked() {
    std::string relax = Program({{"x", {"1", "3", "32", "32"}}, {"w", {"16", "3", "7", "7"}}},
                                {"gv = R.nn.conv2d(x, w, strides=[2, 2], padding=[3, 3, 3, 3])"});
    for (const std::string& t : kTargets) {
      codegen::Target target = t == "host" ? codegen::Target::Host() : TargetOf(t);
      for (const auto& [name, func] : Kernels(relax, false)) {
        if (name != "conv2d") continue;
        auto applied = dlight::ApplyRules(func, target, dlight::cpu::DefaultRules());
        QVERIFY(applied.has_value());
        QCOMPARE(applied->rule, std::string("Conv2d"));
        schedule::Schedule sch = applied->schedule;
        QVERIFY2(sch.trace().AsPython().find("cache_read") != std::string::npos, t.c_str());
        std::vector<schedule::LoopRV> loops = sch.GetLoops(sch.GetSBlock("conv2d_nchw_update"));
        QVERIFY(!loops.empty());
        QCOMPARE(sch.Get(loops.back())->kind, tir::ForKind::kVectorized);
        // The vectorized loop drives the output channel, not x.
        const tir::SBlock update = sch.Get(sch.GetSBlock("conv2d_nchw_update"));
        const auto* store = update->body.as<tir::BufferStoreNode>();
        QVERIFY(store);
        auto uses = [&](size_t iter) {
          bool used = false;
          tir::PostOrderVisit(store->indices.back(), [&](const ir::Object* n) {
            used |= n == update->iter_vars[iter]->var.get();
          });
          return used;
        };
        QVERIFY2(uses(1) && !uses(3), t.c_str());
      }
    }
  }

  // The Fallback's reductions vectorize the output's contiguous axis with the reduction outside
  // it where every operand reads along it contiguously: attention's weighted sum over the keys
  // (v[b, j, h, d], d the vector), not its scores (k[b, j, h, d] read along j is strided), whose
  // contiguous reduction axis d goes into vector lanes instead.
  void fallbackVectorizesOutputAxis() {
    // (Grouped heads: attention with the query's heads legalizes to TVM's composed stages.)
    std::string relax = Program({{"q", {"1", "9", "4", "32"}}, {"k", {"1", "11", "2", "32"}},
                                 {"v", {"1", "11", "2", "32"}}},
                                {"gv = R.nn.attention(q, k, v)"});
    QCOMPARE(CheckAll(relax, false), Expected([](int) { return "Fallback"; }));
    for (const std::string& t : kTargets) {
      codegen::Target target = t == "host" ? codegen::Target::Host() : TargetOf(t);
      for (const auto& [name, func] : Kernels(relax, false)) {
        auto applied = dlight::ApplyRules(func, target, dlight::cpu::DefaultRules());
        QVERIFY(applied.has_value());
        schedule::Schedule sch = applied->schedule;
        auto vectorized = [&](const char* block) {
          std::vector<schedule::LoopRV> loops = sch.GetLoops(sch.GetSBlock(block));
          return !loops.empty() && sch.Get(loops.back())->kind == tir::ForKind::kVectorized;
        };
        QVERIFY2(vectorized("T_attention_weighted_update"), t.c_str());
        QVERIFY2(!vectorized("T_attention_score"), t.c_str());
        // The scores: the head dimension (32) in vector lanes (rfactor) where it holds two
        // vectors, at each score.
        const bool lanes_fit = 32 >= 2 * Lanes(t);
        QCOMPARE(sch.trace().AsPython().find("rfactor") != std::string::npos, lanes_fit);
        if (lanes_fit) QVERIFY2(vectorized("T_attention_score_rf_update"), t.c_str());
      }
    }
    // A sum over a leading axis of an odd width: no whole vectors, the reduction as it was.
    relax = Program({{"x", {"3", "5", "7"}}}, {"gv = R.sum(x, axis=[0])"});
    QVERIFY(CheckAll(relax, false).find("(failed") == std::string::npos);
  }

  // group_norm: the statistics of each group are computed once, at the row of the group (the
  // channel loop split by the group size; computed at the channel they would be recomputed for
  // each channel of the group), and the result checked.
  void groupNormRows() {
    std::string relax = Program({{"x", {"2", "12", "3", "8"}}, {"g", {"12"}}, {"b", {"12"}}},
                                {"gv = R.nn.group_norm(x, g, b, num_groups=3, channel_axis=1, "
                                 "axes=[2, 3])"});
    QCOMPARE(CheckAll(relax, false), Expected([](int) { return "Reduction"; }));
    for (const std::string& t : kTargets) {
      codegen::Target target = t == "host" ? codegen::Target::Host() : TargetOf(t);
      for (const auto& [name, func] : Kernels(relax, false)) {
        auto applied = dlight::ApplyRules(func, target, dlight::cpu::DefaultRules());
        QVERIFY(applied.has_value());
        schedule::Schedule sch = applied->schedule;
        std::vector<schedule::LoopRV> loops = sch.GetLoops(sch.GetSBlock("x_red_temp"));
        QVERIFY(!loops.empty());
        // One row per (batch, group): 2 x 3.
        QCOMPARE(tir::AsConstInt(sch.Get(loops[0])->extent) ? *tir::AsConstInt(sch.Get(loops[0])->extent) : -1,
                 int64_t{6});
      }
    }
  }

  // The pass: every unscheduled kernel gets its rule's schedule and the attribute; a kernel that
  // carries a schedule is left as it is; the VM build's switch turns it off.
  void pass() {
    std::string relax =
        Program({{"x", {"n", "12"}}, {"w", {"12", "32"}}, {"b", {"32"}}},
                {"lv = R.matmul(x, w)", "lv1 = R.add(lv, b)", "gv = R.nn.relu(lv1)"});
    script::ParseResult parsed = script::Parse(relax, "mlp.py");
    QVERIFY(parsed.ok());
    DiagnosticList diags;
    auto legalize = transform::BuildPipeline("LegalizeOps", diags);
    ir::IRModule legalized = (*legalize)(parsed.module);
    ir::IRModule scheduled = transform::ApplyDefaultSchedule("avx2")(legalized);
    int kernels = 0;
    for (size_t i = 0; i < scheduled->size(); ++i) {
      auto f = scheduled->functions[i].as_ref<tir::PrimFuncNode>();
      if (!f.defined()) continue;
      ++kernels;
      QVERIFY(dlight::IsScheduled(f));
      auto original =
          legalized->Lookup(scheduled->global_vars[i]->name_hint).as_ref<tir::PrimFuncNode>();
      auto applied = dlight::ApplyRules(original, TargetOf("avx2"), dlight::cpu::DefaultRules());
      QVERIFY(applied.has_value());
      QVERIFY(ir::StructuralEqual(applied->schedule.Func()->body, f->body));
    }
    QCOMPARE(kernels, 3);
    // Scheduled already: the second run changes nothing.
    ir::IRModule again = transform::ApplyDefaultSchedule("avx512")(scheduled);
    for (size_t i = 0; i < again->size(); ++i)
      QVERIFY(again->functions[i].same_as(scheduled->functions[i]));

    codegen::VMBuildOptions off;
    off.default_schedule = false;
    codegen::VMBuildResult plain = codegen::BuildVM(parsed.module, codegen::Target::Host(), off);
    codegen::VMBuildResult fast = codegen::BuildVM(parsed.module, codegen::Target::Host());
    QVERIFY(plain.ok() && fast.ok());
    int plain_scheduled = 0, fast_scheduled = 0;
    for (size_t i = 0; i < plain.lowered->size(); ++i) {
      if (auto f = plain.lowered->functions[i].as_ref<tir::PrimFuncNode>(); f.defined())
        plain_scheduled += dlight::IsScheduled(f);
    }
    for (size_t i = 0; i < fast.lowered->size(); ++i) {
      if (auto f = fast.lowered->functions[i].as_ref<tir::PrimFuncNode>(); f.defined())
        fast_scheduled += dlight::IsScheduled(f);
    }
    QCOMPARE(plain_scheduled, 0);
    QCOMPARE(fast_scheduled, 3);
  }

  // codegen::Build schedules a module of PrimFuncs as BuildVM does; the option and a pass
  // context disabling the pass build them as written; either way they compute the same.
  void buildSchedulesPrimFuncs() {
    std::string relax = Program({{"x", {"37", "19"}}, {"w", {"19", "64"}}}, {"gv = R.matmul(x, w)"});
    auto kernels = Kernels(relax, false);
    QCOMPARE(kernels.size(), size_t(1));
    ir::IRModule module =
        ir::MakeIRModule({ir::MakeGlobalVar(kernels[0].first)}, {kernels[0].second});
    auto scheduled = [](const codegen::BuildResult& built) {
      for (const auto& f : built.lowered->functions) {
        if (auto p = f.as_ref<tir::PrimFuncNode>(); p.defined() && p->GetAttr("tir.is_scheduled"))
          return true;
      }
      return false;
    };
    codegen::BuildResult fast = codegen::Build(module, codegen::Target::Host());
    QVERIFY2(fast.ok(), RenderDiagnostics(fast.diagnostics).c_str());
    QVERIFY(scheduled(fast));
    codegen::BuildOptions off;
    off.default_schedule = false;
    codegen::BuildResult plain = codegen::Build(module, codegen::Target::Host(), off);
    QVERIFY(plain.ok());
    QVERIFY(!scheduled(plain));
    {
      ir::PassContext context;
      context.disabled_passes.push_back("ApplyDefaultSchedule");
      ir::PassContext::Scope scope(context);
      codegen::BuildResult disabled = codegen::Build(module, codegen::Target::Host());
      QVERIFY(disabled.ok());
      QVERIFY(!scheduled(disabled));
    }
    // Same numbers from both builds.
    std::vector<runtime::NDArray> a, b;
    for (const auto& shape : std::vector<std::vector<int64_t>>{{37, 19}, {19, 64}, {37, 64}}) {
      a.push_back(runtime::NDArray::Empty(shape, runtime::Float(32)));
      runtime::FillRandom(a.back(), runtime::RandomFillOptions{a.size(), -1.0, 1.0});
      b.push_back(a.back().Copy());
    }
    fast.module.get_function(kernels[0].first).Call({a[0], a[1], a[2]});
    plain.module.get_function(kernels[0].first).Call({b[0], b[1], b[2]});
    QVERIFY(runtime::Compare(a[2], b[2], {1e-5, 1e-5}).ok);
  }

  // What counts as carrying a schedule (dlight::IsScheduled): the attribute decides where there
  // is one; otherwise any loop kind or annotation, or a block whose loops a split, reorder,
  // fuse or compute_at changed. Inlining leaves no sign.
  void isScheduledSigns() {
    std::string relax = Program({{"x", {"8", "16"}}, {"y", {"16"}}},
                                {"lv = R.add(x, y)", "gv = R.exp(lv)"});
    tir::PrimFunc func = Kernels(relax, true)[0].second;
    QVERIFY(!dlight::IsScheduled(func));
    auto after = [&](const std::string& recipe) {
      schedule::Schedule sch(dlight::SingleFunctionModule(func));
      DiagnosticList diags = schedule::ApplyRecipe(sch, recipe);
      if (diags.HasErrors()) qFatal("%s", diags[0].message.c_str());
      return sch.Func();
    };
    const std::string b = "b = sch.get_child_blocks(sch.get_sblock(\"root\"))[-1]\n";
    QVERIFY(dlight::IsScheduled(after(b + "i, j = sch.get_loops(b)\nsch.split(j, [None, 4])\n")));
    QVERIFY(dlight::IsScheduled(after(b + "i, j = sch.get_loops(b)\nsch.reorder(j, i)\n")));
    QVERIFY(dlight::IsScheduled(after(b + "i, j = sch.get_loops(b)\nsch.fuse(i, j)\n")));
    QVERIFY(dlight::IsScheduled(after(b + "i, j = sch.get_loops(b)\nsch.parallel(i)\n")));
    QVERIFY(dlight::IsScheduled(
        after(b + "i, j = sch.get_loops(b)\nsch.annotate(i, \"pragma_x\", 1)\n")));
    QVERIFY(!dlight::IsScheduled(
        after("sch.compute_inline(sch.get_child_blocks(sch.get_sblock(\"root\"))[0])\n")));
    // A block annotation is a sign, except those legalization writes: softmax's "axis" (TOPI's,
    // as TVM's) left every legalized softmax unscheduled by the pass.
    QVERIFY(dlight::IsScheduled(
        after(b + "sch.annotate(b, \"pragma_x\", 1)\n")));
    for (const char* op : {"R.nn.softmax(x, axis=-1)", "R.nn.log_softmax(x, axis=1)"}) {
      tir::PrimFunc softmax =
          Kernels(Program({{"x", {"n", "32"}}}, {std::string("gv = ") + op}), false)[0].second;
      QVERIFY2(!dlight::IsScheduled(softmax), op);
      ir::IRModule once = transform::ApplyDefaultSchedule("avx2")(dlight::SingleFunctionModule(softmax));
      auto f = once->functions[0].as_ref<tir::PrimFuncNode>();
      QVERIFY2(f.defined() && f->GetAttr("tir.is_scheduled") != nullptr, op);
    }
    tir::PrimFunc marked = after(b + "i, j = sch.get_loops(b)\nsch.parallel(i)\n");
    marked.CopyOnWrite()->attrs["tir.is_scheduled"] = ir::MakeBool(false);
    QVERIFY(!dlight::IsScheduled(marked));
    marked.CopyOnWrite()->attrs["tir.is_scheduled"] = ir::MakeBool(true);
    QVERIFY(dlight::IsScheduled(marked));
  }

  // The schedule pane's start: the default schedule becomes the session's steps, one per
  // statement, naming the function where it sits; its result is the pass's.
  void scheduleSessionStartsFromDefault() {
    std::string relax = Program({{"x", {"6", "8"}}, {"w", {"8", "32"}}}, {"gv = R.matmul(x, w)"});
    script::ParseResult parsed = script::Parse(relax, "mm.py");
    QVERIFY(parsed.ok());
    DiagnosticList diags;
    ir::IRModule legalized = (*transform::BuildPipeline("LegalizeOps", diags))(parsed.module);
    workbench::ScheduleSession session;
    QVERIFY(!session.Reset(legalized, "matmul").HasErrors());
    DiagnosticList loaded = session.LoadDefaultSchedule(codegen::Target::Host());
    QVERIFY2(!loaded.HasErrors(), loaded.empty() ? "" : loaded[0].message.c_str());
    QVERIFY(session.steps().size() > 5);
    QVERIFY(session.RecipeText().find("func_name=\"matmul\"") != std::string::npos);
    ir::IRModule scheduled =
        transform::ApplyDefaultSchedule(codegen::Target::Host().str())(legalized);
    auto want = ir::Downcast<tir::PrimFuncNode>(scheduled->Lookup("matmul"));
    auto got = ir::Downcast<tir::PrimFuncNode>(session.module()->Lookup("matmul"));
    QVERIFY(ir::StructuralEqual(want->body, got->body));
    // Once scheduled, it says so instead of stacking a second schedule.
    QVERIFY(!session.Reset(scheduled, "matmul").HasErrors());
    QVERIFY(session.LoadDefaultSchedule(codegen::Target::Host()).HasErrors());
  }
};

QTEST_APPLESS_MAIN(TestDlight)
#include "tst_dlight.moc"
