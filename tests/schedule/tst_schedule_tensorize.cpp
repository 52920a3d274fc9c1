// Tests of tensorize and the tensor-intrinsic registry: a block (or a loop's subtree, blockized)
// matched against an intrinsic's description and replaced by its implementation over
// match_buffer views. Compared structurally with the TVMScript we expect, run against the
// original through the interpreter (the intrinsics of plain TIR vector code) or compiled by LLVM
// (all of them; the VNNI ones run only where the CPU has the instruction), and replayed.

#include <QTest>
#include <array>
#include <random>
#include <string>

#include "codegen/build.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "schedule/primitive/tensorize.h"
#include "schedule/tensor_intrin.h"
#include "schedule_test_util.h"
#include "schedule/ir_path.h"
#include "tir/functor.h"
#include "tir/interpreter.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

const char* kMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 32), "float32"), C: T.Buffer((4, 32), "float32")):
        for i, j, k in T.grid(4, 32, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// The 1x16 tile of j with 4 steps of k inside, the reduction's init split off.
std::string Tile(int j_factor = 16, int k_factor = 4) {
  return "b0 = sch.get_sblock(name=\"C\", func_name=\"main\")\n"
         "l1, l2, l3 = sch.get_loops(block=b0)\n"
         "l4, l5 = sch.split(loop=l2, factors=[None, " + std::to_string(j_factor) + "], preserve_unit_iters=True, disable_predication=False)\n"
         "l6, l7 = sch.split(loop=l3, factors=[None, " + std::to_string(k_factor) + "], preserve_unit_iters=True, disable_predication=False)\n"
         "sch.reorder(l4, l6, l5, l7)\n"
         "b8 = sch.decompose_reduction(block=b0, loop=l6)\n";
}

const char* kMatmulTensorized = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 32), "float32"), C: T.Buffer((4, 32), "float32")):
        for i, j_0 in T.grid(4, 2):
            for j_1_init in range(16):
                with T.sblock("C_init"):
                    vi = T.axis.spatial(4, i)
                    vj = T.axis.spatial(32, j_0 * 16 + j_1_init)
                    T.reads()
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.float32(0.0)
            for k_0 in range(2):
                with T.sblock("C_update_o"):
                    vi_o, vj_o, vk_o = T.axis.remap("SSR", [i, j_0, k_0])
                    T.reads(C[vi_o, vj_o * 16:vj_o * 16 + 16], A[vi_o, vk_o * 4:vk_o * 4 + 4], B[vk_o * 4:vk_o * 4 + 4, vj_o * 16:vj_o * 16 + 16])
                    T.writes(C[vi_o, vj_o * 16:vj_o * 16 + 16])
                    A_1 = T.match_buffer(A[vi_o, vk_o * 4:vk_o * 4 + 4], (4,), offset_factor=1)
                    B_1 = T.match_buffer(B[vk_o * 4:vk_o * 4 + 4, vj_o * 16:vj_o * 16 + 16], (4, 16), offset_factor=1)
                    C_1 = T.match_buffer(C[vi_o, vj_o * 16:vj_o * 16 + 16], (16,), offset_factor=1)
                    for k in T.unroll(4):
                        C_1[0:16] = C_1[0:16] + T.Broadcast(A_1[k], 16) * B_1[k, 0:16]
)";

// A user's intrinsic: a 4-lane vector add.
const char* kAddDesc = R"(@T.prim_func
def add4_desc(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    C = T.match_buffer(c, (4,), offset_factor=1)
    with T.sblock("root"):
        T.reads(A[0:4], B[0:4])
        T.writes(C[0:4])
        for i in range(4):
            with T.sblock("add"):
                vi = T.axis.spatial(4, i)
                C[vi] = A[vi] + B[vi]
)";

const char* kAddImpl = R"(@T.prim_func
def add4_impl(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    C = T.match_buffer(c, (4,), offset_factor=1)
    with T.sblock("root"):
        T.reads(A[0:4], B[0:4])
        T.writes(C[0:4])
        T.sblock_attr({"vector_add": 4})
        C[T.Ramp(0, 1, 4)] = A[T.Ramp(0, 1, 4)] + B[T.Ramp(0, 1, 4)]
)";

const char* kAdd = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
        for i, j in T.grid(8, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] + B[vi, vj]
)";

const char* kAddTensorized = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
        for i, j_0 in T.grid(8, 4):
            with T.sblock("C_o"):
                vi_o, vj_o = T.axis.remap("SS", [i, j_0])
                T.reads(A[vi_o, vj_o * 4:vj_o * 4 + 4], B[vi_o, vj_o * 4:vj_o * 4 + 4])
                T.writes(C[vi_o, vj_o * 4:vj_o * 4 + 4])
                A_1 = T.match_buffer(A[vi_o, vj_o * 4:vj_o * 4 + 4], (4,), offset_factor=1)
                B_1 = T.match_buffer(B[vi_o, vj_o * 4:vj_o * 4 + 4], (4,), offset_factor=1)
                C_1 = T.match_buffer(C[vi_o, vj_o * 4:vj_o * 4 + 4], (4,), offset_factor=1)
                T.sblock_attr({"vector_add": 4})
                C_1[0:4] = A_1[0:4] + B_1[0:4]
)";

// u8 x i8 -> i32 matmul with W packed [n // 16, k // 4, 16, 4] (the VNNI layout).
const char* kInt8Matmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((16, 32), "uint8"), W: T.Buffer((2, 8, 16, 4), "int8"), C: T.Buffer((16, 32), "int32")):
        for i, j, k in T.grid(16, 32, 32):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = 0
                C[vi, vj] = C[vi, vj] + T.Cast("int32", X[vi, vk]) * T.Cast("int32", W[vj // 16, vk // 4, vj % 16, vk % 4])
)";

std::string Int8Tile(int lanes) {
  return "b0 = sch.get_sblock(name=\"C\")\n"
         "i, j, k = sch.get_loops(b0)\n"
         "j0, j1 = sch.split(j, [None, " + std::to_string(lanes) + "])\n"
         "k0, k1 = sch.split(k, [None, 4])\n"
         "sch.reorder(j0, k0, j1, k1)\n"
         "sch.decompose_reduction(b0, k0)\n";
}

ir::IRModule Applied(const ir::IRModule& mod, const std::string& recipe, Schedule* out = nullptr) {
  Schedule sch(mod);
  DiagnosticList d = ApplyRecipe(sch, recipe);
  if (!d.empty()) qFatal("recipe failed: %s\n%s", d[0].message.c_str(), recipe.c_str());
  if (out) *out = sch;
  return sch.mod();
}

// Runs `built`'s main and the interpreter on `reference` with the same seeded inputs; "" when
// every tensor agrees.
std::string RunAgainst(const ir::IRModule& reference, const runtime::Module& built,
                       const std::vector<std::pair<std::vector<int64_t>, std::string>>& args,
                       const std::vector<std::pair<double, double>>& ranges) {
  std::vector<runtime::NDArray> compiled, interpreted;
  std::vector<runtime::PackedArg> packed;
  std::vector<tir::InterpArg> iargs;
  for (size_t i = 0; i < args.size(); ++i) {
    auto dtype = runtime::DTypeFromString(args[i].second);
    runtime::NDArray a = runtime::NDArray::Empty(args[i].first, *dtype);
    runtime::FillRandom(a, runtime::RandomFillOptions{17 + i, ranges[i].first, ranges[i].second});
    compiled.push_back(a);
    interpreted.push_back(a.Copy());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    packed.emplace_back(compiled[i]);
    iargs.emplace_back(interpreted[i]);
  }
  tir::InterpretResult ir = tir::InterpretModule(reference, "main", iargs);
  if (!ir.ok()) return "interpreter: " + RenderDiagnostics(ir.diagnostics);
  runtime::PackedFunc f = built.get_function("main");
  if (!f.defined()) return "no main in the built module";
  try {
    f.Call(packed);
  } catch (const runtime::Error& e) {
    return std::string("compiled call failed: ") + e.what();
  }
  for (size_t i = 0; i < compiled.size(); ++i) {
    runtime::CompareResult c =
        runtime::Compare(compiled[i], interpreted[i], runtime::DefaultTolerance(compiled[i].dtype()));
    if (!c.ok) return "tensor " + std::to_string(i) + ": " + c.message;
  }
  return "";
}

codegen::Target TargetOf(const std::string& text) {
  std::string error;
  std::optional<codegen::Target> t = codegen::ParseTarget(text, &error);
  if (!t) qFatal("target %s: %s", text.c_str(), error.c_str());
  return *t;
}

runtime::Module BuildFor(const ir::IRModule& mod, const codegen::Target& target) {
  codegen::BuildResult r = codegen::Build(mod, target);
  if (!r.ok()) qFatal("build for %s failed: %s", target.str().c_str(), RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

}  // namespace

class TestScheduleTensorize : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void builtinsAreRegistered() {
    std::vector<std::string> names = TensorIntrinNames();
    for (const char* n : {"fma_f32_1x16x4_avx512", "fma_f32_1x8x4_avx2", "dot_16x4_vnni", "dot_8x4_avx_vnni"}) {
      QVERIFY2(std::find(names.begin(), names.end(), n) != names.end(), n);
    }
    QVERIFY(!FindTensorIntrin("non_existent_intrin"));
    try {
      GetTensorIntrin("non_existent_intrin");
      QFAIL("no error");
    } catch (const std::invalid_argument& e) {
      std::string m = e.what();
      QVERIFY2(m.find("TensorIntrin 'non_existent_intrin' is not registered") == 0, m.c_str());
      QVERIFY2(m.find("dot_16x4_vnni") != std::string::npos, m.c_str());
    }
  }

  void tensorizeLoopFma() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    QVERIFY(ApplyRecipe(sch, Tile()).empty());
    std::vector<LoopRV> loops = sch.GetLoops(sch.GetSBlock("C_update"));
    Tensorize(sch, loops[3], "fma_f32_1x16x4_avx512");
    ExpectModule(before, sch.mod(), kMatmulTensorized);
    std::string trace = sch.trace().AsPython();
    QVERIFY2(trace.find("sch.tensorize(block_or_loop=l13, tensor_intrin=\"fma_f32_1x16x4_avx512\", "
                        "preserve_unit_iters=True)\n") != std::string::npos,
             trace.c_str());
    // The block that was tensorized is gone with its handles.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.Get(SBlockRV{0}));
    QCOMPARE(sch.Get(sch.GetSBlock("C_update_o"))->match_buffers.size(), size_t(3));
    ExpectReplay(before, sch);
  }

  void tensorizeBlockGivesTheSameModule() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    QVERIFY(ApplyRecipe(sch, Tile() + "b9 = sch.blockize(target=l5)\n"
                                      "sch.tensorize(block_or_loop=b9, tensor_intrin=\"fma_f32_1x16x4_avx512\")\n")
                .empty());
    ExpectModule(before, sch.mod(), kMatmulTensorized);
    // A block may be named by a string, as TVM's API allows.
    Schedule by_name(before);
    QVERIFY(ApplyRecipe(by_name, Tile() + "sch.blockize(target=l5)\n"
                                          "sch.tensorize(\"C_update_o\", \"fma_f32_1x16x4_avx512\")\n")
                .empty());
    QVERIFY(ir::StructuralEqual(by_name.mod(), sch.mod()));
    ExpectReplay(before, sch);
  }

  void userIntrinsicFromTVMScript() {
    RegisterTensorIntrin("test_add4", kAddDesc, kAddImpl, /*override=*/true);
    // The same pair again is no conflict (a replayed recipe registers its intrinsics again);
    // another pair under the name is.
    RegisterTensorIntrin("test_add4", kAddDesc, kAddImpl);
    try {
      RegisterTensorIntrin("test_add4", kAddDesc, kAddDesc);
      QFAIL("registered twice");
    } catch (const std::invalid_argument& e) {
      QCOMPARE(std::string(e.what()), std::string("TensorIntrin 'test_add4' has already been registered"));
    }
    ir::IRModule before = ParseModule(kAdd);
    Schedule sch(before);
    QVERIFY(ApplyRecipe(sch, "b0 = sch.get_sblock(name=\"C\")\n"
                             "i, j = sch.get_loops(b0)\n"
                             "j0, j1 = sch.split(j, [None, 4])\n"
                             "sch.tensorize(j1, \"test_add4\")\n")
                .empty());
    // The implementation's root-block annotations are added to the tensorized block.
    ExpectModule(before, sch.mod(), kAddTensorized);
    ExpectReplay(before, sch);
    // Compiled too: the vector code runs through LLVM.
    QCOMPARE(RunAgainst(before, BuildFor(sch.mod(), codegen::Target::Host()),
                        {{{8, 16}, "float32"}, {{8, 16}, "float32"}, {{8, 16}, "float32"}},
                        {{-1, 1}, {-1, 1}, {-1, 1}}),
             std::string());
  }

  void registrationChecksTheFunctions() {
    // Different numbers of parameters.
    const char* two = R"(@T.prim_func
def impl(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (4,), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    with T.sblock("root"):
        T.reads(A[0:4])
        T.writes(B[0:4])
        B[T.Ramp(0, 1, 4)] = A[T.Ramp(0, 1, 4)]
)";
    try {
      RegisterTensorIntrin("test_bad", kAddDesc, two);
      QFAIL("no error");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find("The number of parameters of the description and the "
                                          "implementation of the tensor intrinsic doesn't match.") !=
                   std::string::npos,
               e.what());
    }
    // A description that does not parse names its line.
    try {
      RegisterTensorIntrin("test_bad", "@T.prim_func\ndef f(a: T.handle):\n    x = (\n", kAddImpl);
      QFAIL("no error");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find("its description does not parse (line") != std::string::npos,
               e.what());
    }
    QVERIFY(!FindTensorIntrin("test_bad"));
  }

  void unknownIntrinsicLeavesTheScheduleAlone() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    QVERIFY(ApplyRecipe(sch, Tile()).empty());
    ir::IRModule mod = sch.mod();
    size_t steps = sch.trace().instructions().size();
    std::string recipe = "loops = sch.get_loops(\"C_update\")\nsch.tensorize(loops[2], \"no_such_intrin\")\n";
    DiagnosticList d = ApplyRecipe(sch, recipe);
    QCOMPARE(d.size(), size_t(1));
    QVERIFY2(d[0].message.find("TensorIntrin 'no_such_intrin' is not registered (registered: ") !=
                 std::string::npos,
             d[0].message.c_str());
    QCOMPARE(std::string(d[0].span.text()), std::string("sch.tensorize(loops[2], \"no_such_intrin\")"));
    QVERIFY(sch.mod().same_as(mod));
    QCOMPARE(sch.trace().instructions().size(), steps + 2);  // the lookups before it
  }

  void extentMismatch() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    QVERIFY(ApplyRecipe(sch, Tile(8)).empty());
    LoopRV j1 = sch.GetLoops(sch.GetSBlock("C_update"))[3];
    std::string message = FailsCleanly(sch, [&] { Tensorize(sch, j1, "fma_f32_1x16x4_avx512"); });
    // The outer block's regions are compared first, as TVM does.
    QCOMPARE(message, Rendered("tensorize", "The stmt `j_1` doesn't match the tensor intrin "
                                            "`fma_f32_1x16x4_avx512`: the block `C_update_o` writes "
                                            "[C[vi_o, (vj_o * 8):(vj_o * 8) + 8]], the description's "
                                            "`root` writes [C[0:16]]: the extents of `C` differ from "
                                            "the description's"));
    // Through a recipe: the error is at the recipe line, with a note at the source of the block
    // (split made the loop, so it has none of its own).
    DiagnosticList d = ApplyRecipe(sch, "sch.tensorize(sch.get_loops(\"C_update\")[3], \"fma_f32_1x16x4_avx512\")\n");
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(std::string(d[0].span.text()),
             std::string("sch.tensorize(sch.get_loops(\"C_update\")[3], \"fma_f32_1x16x4_avx512\")"));
    QVERIFY2(d[0].message.find("doesn't match the tensor intrin") != std::string::npos, d[0].message.c_str());
    QCOMPARE(d[0].notes.size(), size_t(1));
    QCOMPARE(std::string(d[0].notes[0].span.text()).substr(0, 18), std::string("with T.sblock(\"C\")"));
    // The 8-lane intrinsic fits that tile.
    Tensorize(sch, j1, "fma_f32_1x8x4_avx2");
    ExpectSameMeaning(before, sch.mod());
  }

  void computationMismatch() {
    std::string text = kMatmul;
    text.replace(text.find("A[vi, vk] * B[vk, vj]"), 21, "A[vi, vk] - B[vk, vj]");
    ir::IRModule before = ParseModule(text);
    Schedule sch(before);
    QVERIFY(ApplyRecipe(sch, Tile()).empty());
    LoopRV j1 = sch.GetLoops(sch.GetSBlock("C_update"))[3];
    std::string message = FailsCleanly(sch, [&] { Tensorize(sch, j1, "fma_f32_1x16x4_avx512"); });
    QCOMPARE(message, Rendered("tensorize", "The stmt `C_update` doesn't match the tensor intrin "
                                            "`fma_f32_1x16x4_avx512`: `((C[vi_o, ((vj_o * 16) + vj_i)] "
                                            "+ A[vi_o, ((vk_o * 4) + vk_i)]) - B[((vk_o * 4) + vk_i), "
                                            "((vj_o * 16) + vj_i)])` does not match the description's "
                                            "`(C[vj] + (A[vk] * B[vk, vj]))`"));
  }

  void loopKindAndIterKindMismatch() {
    ir::IRModule before = ParseModule(kMatmul);
    Schedule sch(before);
    QVERIFY(ApplyRecipe(sch, Tile() + "sch.unroll(l7)\n").empty());
    LoopRV j1 = sch.GetLoops(sch.GetSBlock("C_update"))[3];
    std::string message = FailsCleanly(sch, [&] { Tensorize(sch, j1, "fma_f32_1x16x4_avx512"); });
    QVERIFY2(message.find("The stmt `k_1` doesn't match the tensor intrin `fma_f32_1x16x4_avx512`: "
                          "the loop `k_1` is unrolled, the description's loop `k` is serial") !=
                 std::string::npos,
             message.c_str());
    // The reduction is over j here: the iterators' kinds differ from the description's.
    Schedule swapped(ParseModule(kMatmul));
    QVERIFY(ApplyRecipe(swapped, Tile() + "sch.reorder(l7, l5)\n").empty());
    LoopRV k1 = swapped.GetLoops(swapped.GetSBlock("C_update"))[3];
    message = FailsCleanly(swapped, [&] { Tensorize(swapped, k1, "fma_f32_1x16x4_avx512"); });
    QVERIFY2(message.find("doesn't match the tensor intrin") != std::string::npos, message.c_str());
  }

  void matchingIntrinsicsOfEachLoop() {
    ir::IRModule mod = Applied(ParseModule(kMatmul), Tile());
    tir::PrimFunc func = Downcast<tir::PrimFuncNode>(mod->Lookup("main"));
    std::map<std::string, std::vector<std::string>> found;
    tir::PostOrderVisit(func->body, [&](const ir::Object* n) {
      if (auto* f = wb::schedule::NodeAs<tir::ForNode>(n)) {
        found[f->loop_var->name_hint] = MatchingTensorIntrins(func, ir::GetRef(f));
      }
    });
    QCOMPARE(found["j_1"], std::vector<std::string>{"fma_f32_1x16x4_avx512"});
    for (const char* other : {"i", "j_0", "k_0", "k_1", "j_1_init"}) {
      QVERIFY2(found.count(other) && found[other].empty(), other);
    }
    ir::IRModule mod8 = Applied(ParseModule(kMatmul), Tile(8));
    tir::PrimFunc func8 = Downcast<tir::PrimFuncNode>(mod8->Lookup("main"));
    tir::PostOrderVisit(func8->body, [&](const ir::Object* n) {
      if (auto* f = wb::schedule::NodeAs<tir::ForNode>(n); f && f->loop_var->name_hint == "j_1") {
        QCOMPARE(MatchingTensorIntrins(func8, ir::GetRef(f)), std::vector<std::string>{"fma_f32_1x8x4_avx2"});
      }
    });
  }

  void randomTilesMatchExactlyWhereTheyFit() {
    // Random tile sizes and loop orders; every FMA intrinsic tried at every loop of the tile.
    // It must apply exactly at the inner j loop of a tile of its lanes by 4 steps of k in (j, k)
    // order, keep the meaning and replay there, and fail leaving the schedule alone elsewhere.
    ir::IRModule before = ParseModule(kMatmul);
    std::mt19937_64 rng(7);
    int applied = 0, refused = 0;
    for (int round = 0; round < 24; ++round) {
      int jf = std::array<int, 3>{4, 8, 16}[rng() % 3];
      int kf = std::array<int, 3>{2, 4, 8}[rng() % 3];
      bool swapped = rng() % 3 == 0;
      Schedule sch(before);
      QVERIFY(ApplyRecipe(sch, Tile(jf, kf) + (swapped ? "sch.reorder(l7, l5)\n" : "")).empty());
      std::vector<LoopRV> loops = sch.GetLoops(sch.GetSBlock("C_update"));
      for (size_t l = 0; l < loops.size(); ++l) {
        for (int lanes : {8, 16}) {
          std::string intrin = lanes == 8 ? "fma_f32_1x8x4_avx2" : "fma_f32_1x16x4_avx512";
          bool fits = jf == lanes && kf == 4 && !swapped && l == 3;
          Schedule trial = sch;
          if (fits) {
            std::string error = ErrorOf([&] { Tensorize(trial, loops[l], intrin); });
            QVERIFY2(error == "(no error)", error.c_str());
            ++applied;
            ExpectSameMeaning(before, trial.mod(), round);
            ExpectReplay(before, trial);
          } else {
            // Applying where it does not fit would show as "(schedule changed)".
            std::string message = FailsCleanly(trial, [&] { Tensorize(trial, loops[l], intrin); });
            ++refused;
            QVERIFY2(message.find("doesn't match the tensor intrin") != std::string::npos ||
                         message.find("can not be blockized") != std::string::npos ||
                         message.find("is required to have exactly one child block") !=
                             std::string::npos,
                     message.c_str());
          }
        }
      }
    }
    QVERIFY(applied > 0);
    QVERIFY(refused > 0);
  }

  void fmaMatmulBuildsAndRuns_data() {
    QTest::addColumn<int>("lanes");
    QTest::addColumn<QString>("intrin");
    QTest::newRow("avx512 16 lanes") << 16 << "fma_f32_1x16x4_avx512";
    QTest::newRow("avx2 8 lanes") << 8 << "fma_f32_1x8x4_avx2";
  }

  void fmaMatmulBuildsAndRuns() {
    QFETCH(int, lanes);
    QFETCH(QString, intrin);
    std::string text = kMatmul;
    for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"(4, 8)", "(64, 64)"}, {"(8, 32)", "(64, 64)"}, {"(4, 32)", "(64, 64)"}, {"T.grid(4, 32, 8)", "T.grid(64, 64, 64)"}}) {
      text.replace(text.find(from), from.size(), to);
    }
    ir::IRModule before = ParseModule(text);
    Schedule sch(before);
    QVERIFY(ApplyRecipe(sch, Tile(lanes) + "sch.tensorize(l5, \"" + intrin.toStdString() + "\")\n").empty());
    // The vector code is plain TIR: any x86-64 target builds it and the host runs it.
    QCOMPARE(RunAgainst(before, BuildFor(sch.mod(), codegen::Target::Host()),
                        {{{64, 64}, "float32"}, {{64, 64}, "float32"}, {{64, 64}, "float32"}},
                        {{-1, 1}, {-1, 1}, {-1, 1}}),
             std::string());
    for (const char* target : {"llvm -mcpu=haswell", "llvm -mcpu=skylake-avx512"}) {
      codegen::BuildResult r = codegen::Build(sch.mod(), TargetOf(target));
      QVERIFY2(r.ok(), RenderDiagnostics(r.diagnostics).c_str());
    }
  }

  void vnniMatmul_data() {
    QTest::addColumn<int>("lanes");
    QTest::addColumn<QString>("intrin");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("feature");
    QTest::newRow("avx512-vnni 16x4") << 16 << "dot_16x4_vnni" << "llvm -mcpu=cascadelake" << "avx512vnni";
    QTest::newRow("avx-vnni 8x4") << 8 << "dot_8x4_avx_vnni" << "llvm -mcpu=alderlake" << "avxvnni";
  }

  void vnniMatmul() {
    QFETCH(int, lanes);
    QFETCH(QString, intrin);
    QFETCH(QString, target);
    QFETCH(QString, feature);
    std::string text = kInt8Matmul;
    if (lanes == 8) text.replace(text.find("(2, 8, 16, 4)"), 13, "(4, 8, 8, 4)");
    if (lanes == 8) {
      std::string from = "W[vj // 16, vk // 4, vj % 16, vk % 4]";
      text.replace(text.find(from), from.size(), "W[vj // 8, vk // 4, vj % 8, vk % 4]");
    }
    ir::IRModule before = ParseModule(text);
    Schedule sch(before);
    QVERIFY(ApplyRecipe(sch, Int8Tile(lanes) + "sch.tensorize(j1, \"" + intrin.toStdString() + "\")\n").empty());
    ExpectReplay(before, sch);
    tir::SBlock tile = sch.Get(sch.GetSBlock("C_update_o"));
    QCOMPARE(tile->match_buffers.size(), size_t(3));
    QCOMPARE(tile->match_buffers[1]->source->buffer->name, std::string("W"));
    // Always compiled for a CPU with the instruction; run only on one.
    codegen::BuildResult r = codegen::Build(sch.mod(), TargetOf(target.toStdString()));
    QVERIFY2(r.ok(), RenderDiagnostics(r.diagnostics).c_str());
    QVERIFY(r.module->GetSource("asm").find("vpdpbusd") != std::string::npos);
    if (!codegen::Target::Host().HasFeature(feature.toStdString())) {
      QSKIP(qPrintable("this CPU has no " + feature + ": compiled for " + target + ", not run"));
    }
    QCOMPARE(RunAgainst(before, BuildFor(sch.mod(), codegen::Target::Host()),
                        {{{16, 32}, "uint8"}, {lanes == 16 ? std::vector<int64_t>{2, 8, 16, 4} : std::vector<int64_t>{4, 8, 8, 4}, "int8"}, {{16, 32}, "int32"}},
                        {{0, 255}, {-128, 127}, {0, 1}}),
             std::string());
  }
};

QTEST_APPLESS_MAIN(TestScheduleTensorize)
#include "tst_schedule_tensorize.moc"
