// Tests of the schedule state: handles that follow blocks by name across rebuilt modules, block
// scopes and their dependences, TVM's block checks, get_child_blocks / get_producers /
// get_consumers with their trace and recipe, and the compact-dataflow check of the loop kinds.

#include <QTest>
#include <string>

#include "schedule/block_scope.h"
#include "schedule/primitive/primitives.h"
#include "schedule_test_util.h"
#include "tir/functor.h"
#include "tir/stmt.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

// B = A * 2, then C = B + 1: one producer, one consumer, B allocated in the root block.
// A matmul whose output is then read back and overwritten: RAW, WAW and WAR edges.
const char* kDeps = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), D: T.Buffer((8,), "float32")):
        C = T.sblock_alloc_buffer((8, 8))
        for i, j, k in T.grid(8, 8, 8):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        for i in range(8):
            with T.sblock("D"):
                vi = T.axis.spatial(8, i)
                T.reads(C[vi, vi])
                T.writes(D[vi])
                D[vi] = C[vi, vi]
        for i, j in T.grid(8, 8):
            with T.sblock("E"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads()
                T.writes(C[vi, vj])
                C[vi, vj] = T.float32(1.0)
)";

// A reduction without an init statement: neither complete nor a reduction block.
const char* kNoInit = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
        for i, k in T.grid(16, 16):
            with T.sblock("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(B[vi], A[vi, vk])
                T.writes(B[vi])
                B[vi] = B[vi] + A[vi, vk]
)";

// A block with child blocks: the outer block is a scope of its own, with a WAR dependence.
const char* kNested = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i_0 in range(4):
            with T.sblock("outer"):
                vo = T.axis.spatial(4, i_0)
                T.reads(A[vo * 4:vo * 4 + 4])
                T.writes(A[vo * 4:vo * 4 + 4], B[vo * 4:vo * 4 + 4])
                for i_1 in range(4):
                    with T.sblock("inner0"):
                        vi = T.axis.spatial(16, vo * 4 + i_1)
                        T.reads(A[vi])
                        T.writes(B[vi])
                        B[vi] = A[vi]
                for i_1 in range(4):
                    with T.sblock("inner1"):
                        vi = T.axis.spatial(16, vo * 4 + i_1)
                        T.reads(B[vi])
                        T.writes(A[vi])
                        A[vi] = B[vi] + T.float32(1.0)
)";


// B is written only for [0, 8) but C reads all of [0, 16): C has no region cover.
const char* kPartialProducer = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for i in range(8):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi]
        for i in range(16):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i)
                T.reads(B[vi])
                T.writes(C[vi])
                C[vi] = B[vi] + T.float32(1.0)
)";

std::vector<std::string> Names(const Schedule& sch, const std::vector<SBlockRV>& blocks) {
  std::vector<std::string> out;
  for (const SBlockRV& b : blocks) out.push_back(sch.Get(b)->name_hint);
  return out;
}

using Names_t = std::vector<std::string>;

tir::SBlock RootOf(const tir::PrimFunc& f) {
  return f->body.as<tir::SBlockRealizeNode>()->block;
}

tir::PrimFunc MainOf(const ir::IRModule& mod) {
  return Downcast<tir::PrimFuncNode>(mod->Lookup("main"));
}

}  // namespace

class TestScheduleScope : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void handlesFollowBlocksByName() {
    ir::IRModule mod = ParseModule(kTwoStage);
    Schedule sch(mod);
    SBlockRV b = sch.GetSBlock("B");
    SBlockRV c = sch.GetSBlock("C");
    // Put a new block in front of B (as cache_read would): a pre-order index would now point at
    // the new block, the name still finds B.
    tir::SBlock root = RootOf(sch.Func());
    QCOMPARE(root->name_hint, std::string("root"));
    const auto* seq = root->body.as<tir::SeqStmtNode>();
    QVERIFY(seq);
    std::vector<tir::Stmt> stmts = seq->seq;
    tir::Stmt first = stmts[0];
    struct Renamer : tir::StmtMutator {
      using StmtMutator::VisitStmt_;
      tir::Stmt VisitStmt_(const tir::SBlockNode* op) override {
        tir::SBlock b = GetRef(op);
        b.CopyOnWrite()->name_hint = "B_copy";
        return b;
      }
    };
    stmts.insert(stmts.begin(), Renamer()(first));
    sch.Replace(seq, tir::MakeSeq(stmts));
    QCOMPARE(sch.Get(b)->name_hint, std::string("B"));
    QCOMPARE(Names(sch, sch.GetChildBlocks(sch.GetSBlock("root"))),
             (Names_t{"B_copy", "B", "C"}));
    // A rename re-points the handle; a removal expires it with a clear error.
    tir::SBlock cur_c = sch.Get(c);
    tir::SBlock renamed = cur_c;
    renamed.CopyOnWrite()->name_hint = "C_update";
    sch.Replace(cur_c.get(), renamed, {{{"C", "C_update"}}, {}});
    QCOMPARE(sch.Get(c)->name_hint, std::string("C_update"));
    tir::SBlock cur_b = sch.Get(b);
    tir::SBlock gone = cur_b;
    gone.CopyOnWrite()->name_hint = "elsewhere";
    sch.Replace(cur_b.get(), gone, {{}, {"B"}});
    try {
      sch.Get(b);
      QFAIL("an expired handle resolved");
    } catch (const std::invalid_argument& e) {
      QCOMPARE(std::string(e.what()), std::string("The block no longer exists in the IRModule"));
    }
    QCOMPARE(sch.Get(c)->name_hint, std::string("C_update"));
  }

  void dependences() {
    ir::IRModule mod = ParseModule(kDeps);
    tir::PrimFunc f = MainOf(mod);
    tir::SBlock root = RootOf(f);
    BlockScope scope(root);
    QCOMPARE(scope.children().size(), size_t(3));
    std::string edges;
    for (const Dependency& d : scope.dependencies()) {
      const char* kind = d.kind == DepKind::kRAW ? "RAW" : d.kind == DepKind::kWAW ? "WAW" : "WAR";
      edges += d.src->name_hint + "->" + d.dst->name_hint + ":" + kind + " ";
    }
    QCOMPARE(edges, std::string("C->D:RAW C->E:WAW D->E:WAR "));
    QVERIFY(scope.HasWAR());
    const tir::SBlockNode* c = scope.children()[0].get();
    const tir::SBlockNode* e = scope.children()[2].get();
    QCOMPARE(scope.Consumers(c).size(), size_t(2));
    QCOMPARE(scope.Producers(e).size(), size_t(1));
    QCOMPARE(scope.WritersOf(c->writes[0]->buffer.get()).size(), size_t(2));
    // C has a second writer (E): not dominant, so condition #4 of a reduction block fails.
    QCOMPARE(ReductionBlockViolation(f, scope, c), 4);
    QCOMPARE(CompleteBlockViolation(scope, c), 1);
    QCOMPARE(CompleteBlockViolation(scope, scope.children()[1].get()), 0);
    QCOMPARE(CompleteBlockViolation(scope, e), 2);
    QVERIFY(IsOutputBlock(root.get(), scope.children()[1].get()));
    QVERIFY(!IsOutputBlock(root.get(), c));
  }

  void blockChecks() {
    ir::IRModule mod = ParseModule(kNoInit);
    tir::PrimFunc f = MainOf(mod);
    tir::SBlock root = RootOf(f);
    BlockScope scope(root);
    const tir::SBlockNode* s = scope.children()[0].get();
    QCOMPARE(ErrorOf([&] { CheckCompleteBlock("compute-at", scope, s); }),
             Rendered("compute-at", "The block `S` is not a complete block - it violates "
                                    "condition #1"));
    QCOMPARE(ErrorOf([&] { CheckReductionBlock("rfactor", f, scope, s); }),
             Rendered("rfactor", "The block `S` is not a reduction block - it violates "
                                 "condition #1"));
    QCOMPARE(ErrorOf([&] { CheckCompleteOrReductionBlock("compute-at", f, scope, s); }),
             Rendered("compute-at",
                      "The block `S` is not a complete block - it violates condition #1.\nThe "
                      "block is not a reduction block either - it violates condition #1"));
    QVERIFY(IsAffineBinding(f, s));
    // The matmul block is a reduction block; with a non-affine binding it is not.
    ir::IRModule deps = ParseModule(kDeps);
    tir::PrimFunc df = MainOf(deps);
    tir::SBlock droot = RootOf(df);
    std::string text = kDeps;
    text.replace(text.find("vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])"), 43,
                 "vi = T.axis.spatial(8, i)\n                vj = T.axis.spatial(8, j)\n"
                 "                vk = T.axis.reduce(8, k * k % 8)");
    tir::PrimFunc bad = MainOf(ParseModule(text));
    tir::SBlock bad_c = ChildBlocks(RootOf(bad)).at(0);
    QVERIFY(!IsAffineBinding(bad, bad_c.get()));
    QCOMPARE(ErrorOf([&] { CheckAffineBinding("reorder", bad, bad_c.get()); }),
             Rendered("reorder", "The block `C` is required to have an affine binding"));
    // Single producer: D has one producer (C), but C is not complete.
    BlockScope dscope(droot);
    QCOMPARE(ErrorOf([&] { CheckSingleProducer("reverse-compute-inline", dscope,
                                               dscope.children()[1].get()); }),
             Rendered("reverse-compute-inline",
                      "The consumer block `D` to be inlined is required to have only a single "
                      "producer block, and the producer block should be a complete block who "
                      "has only a single consumer"));
    ir::IRModule two = ParseModule(kTwoStage);
    tir::PrimFunc tf = MainOf(two);
    BlockScope tscope(RootOf(tf));
    QCOMPARE(CheckSingleProducer("x", tscope, tscope.children()[1].get())->name_hint,
             std::string("B"));
  }

  void scopeRoots() {
    Schedule sch(ParseModule(kNested));
    SBlockRV root = sch.GetSBlock("root");
    QCOMPARE(FailsCleanly(sch, [&] { sch.GetProducers(root); }),
             Rendered("get-producers", "The primitive does not operate on the root block"));
    QCOMPARE(FailsCleanly(sch, [&] { sch.GetConsumers(root); }),
             Rendered("get-consumers", "The primitive does not operate on the root block"));
    SBlockRV inner1 = sch.GetSBlock("inner1");
    QCOMPARE(GetScopeRoot(sch, "x", sch.Get(inner1).get(), false)->name_hint,
             std::string("outer"));
    // inner1 overwrites A, which inner0 reads: a WAR edge inside `outer`.
    QCOMPARE(ErrorOf([&] { GetScopeRoot(sch, "compute-at", sch.Get(inner1).get(), true); }),
             Rendered("compute-at",
                      "The scope `outer` is not a stage pipeline: a block of it overwrites a "
                      "buffer that an earlier block reads (a write-after-read dependence)"));
    Schedule unchecked(ParseModule(kNested), /*enable_check=*/false);
    QCOMPARE(GetScopeRoot(unchecked, "x", unchecked.Get(unchecked.GetSBlock("inner1")).get(),
                          true)->name_hint,
             std::string("outer"));
  }


  void regionCover() {
    ir::IRModule mod = ParseModule(kPartialProducer);
    tir::PrimFunc f = MainOf(mod);
    BlockScope scope(RootOf(f));
    QVERIFY(HasRegionCover(f, scope, scope.children()[0].get()));
    QVERIFY(!HasRegionCover(f, scope, scope.children()[1].get()));
    Schedule sch(mod);
    SBlockRV b = sch.GetSBlock("B");
    SBlockRV c = sch.GetSBlock("C");
    auto c_loops = sch.GetLoops(c);
    QCOMPARE(FailsCleanly(sch, [&] { sch.ComputeAt(b, c_loops[0]); }),
             Rendered("compute-at", "The scope `root` is not a stage pipeline: the region cover "
                                    "property does not hold for its child block `C`"));
    QCOMPARE(FailsCleanly(sch, [&] { sch.CacheRead(c, 0, "shared"); }),
             Rendered("cache-read", "The scope `root` 's region cover is not complete.\nThe "
                                    "region cover property require to hold for every of its "
                                    "child blocks"));
    // Covered: the full two-stage pipeline, also after the producer moved under a loop.
    ir::IRModule two = ParseModule(kTwoStage);
    Schedule ok(two);
    SBlockRV ob = ok.GetSBlock("B");
    auto oc = ok.GetLoops(ok.GetSBlock("C"));
    ok.ComputeAt(ob, oc[0]);
    tir::PrimFunc of = ok.Func();
    BlockScope oscope(RootOf(of));
    for (const tir::SBlock& child : oscope.children()) {
      QVERIFY2(HasRegionCover(of, oscope, child.get()), child->name_hint.c_str());
    }
  }

  // The schedule state's three flags per block, as TVM caches them for a fresh state.
  void cachedFlags() {
    auto flags = [](const char* program, const char* block) {
      Schedule sch(ParseModule(program));
      CachedFlags f = GetCachedFlags(sch, sch.GetSBlock(block));
      return std::string(f.affine_binding ? "A" : "a") + (f.region_cover ? "R" : "r") +
             (f.stage_pipeline ? "S" : "s");
    };
    // A covered two-stage pipeline: every flag holds, the root's too.
    QCOMPARE(flags(kTwoStage, "B"), std::string("ARS"));
    QCOMPARE(flags(kTwoStage, "C"), std::string("ARS"));
    QCOMPARE(flags(kTwoStage, "root"), std::string("ARS"));
    // C reads more of B than B writes: C has no region cover and the root is no stage pipeline.
    QCOMPARE(flags(kPartialProducer, "B"), std::string("ARS"));
    QCOMPARE(flags(kPartialProducer, "C"), std::string("ArS"));
    QCOMPARE(flags(kPartialProducer, "root"), std::string("ARs"));
    // A write after read inside the block "outer": the outer scope is no stage pipeline.
    QCOMPARE(flags(kNested, "outer"), std::string("ARs"));
    QCOMPARE(flags(kNested, "inner1"), std::string("ARS"));
    // Two producers writing [0, 7) and [8, 16): the hull covers B's read, their union does not.
    const char* gap = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(B: T.Buffer((16,), "float32")):
        A = T.sblock_alloc_buffer((16,))
        for i in range(7):
            with T.sblock("A_0"):
                vi = T.axis.spatial(7, i)
                A[vi] = T.float32(1.0)
        for i in range(8):
            with T.sblock("A_1"):
                vi = T.axis.spatial(16, i + 8)
                A[vi] = T.float32(2.0)
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi]
)";
    QCOMPARE(flags(gap, "B"), std::string("ArS"));
    QCOMPARE(flags(gap, "root"), std::string("ARs"));
    // Touching intervals join: with A_0 over [0, 8) the read is covered.
    std::string touching = gap;
    touching.replace(touching.find("range(7)"), 8, "range(8)");
    touching.replace(touching.find("spatial(7, i)"), 13, "spatial(8, i)");
    QCOMPARE(flags(touching.c_str(), "B"), std::string("ARS"));
    // A shared buffer written per thread row and read per thread column: the threadIdx loop is
    // relaxed for shared memory, so the read is covered (TVM's storage-scope relaxation).
    const char* threads = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        B = T.sblock_alloc_buffer((8, 8), scope="shared")
        for i in T.thread_binding(8, thread="threadIdx.x"):
            for j in range(8):
                with T.sblock("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj]
            for j in range(8):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vj, vi] = B[vj, vi]
)";
    QCOMPARE(flags(threads, "C"), std::string("ARS"));
    QCOMPARE(flags(threads, "root"), std::string("ARS"));
    // Through the recipe, as a dict compared in an assertion; a false one stops the recipe.
    Schedule sch(ParseModule(kPartialProducer));
    Apply(sch,
          "assert sch._get_cached_flags(sch.get_sblock(\"C\")) == {\"affine_binding\": True, "
          "\"region_cover\": False, \"stage_pipeline\": True}\n");
    DiagnosticList diags = ApplyRecipe(
        sch, "assert sch._get_cached_flags(\"root\") == {\"affine_binding\": True, "
             "\"region_cover\": True, \"stage_pipeline\": True}\n");
    QCOMPARE(diags.size(), size_t(1));
    QVERIFY(diags[0].message.find("assertion failed") != std::string::npos);
    QVERIFY(sch.trace().AsPython().find("cached_flags") == std::string::npos);  // not recorded
  }

  // get_output_blocks: the blocks below a scope writing what their own scope does not allocate.
  void outputBlocks() {
    Schedule sch(ParseModule(kTwoStage));
    QCOMPARE(Names(sch, GetOutputBlocks(sch, sch.GetSBlock("root"))), (Names_t{"C"}));
    Schedule deps(ParseModule(kDeps));
    QCOMPARE(Names(deps, GetOutputBlocks(deps, deps.GetSBlock("root"))), (Names_t{"D"}));
    // Nested blocks count too, each against its own scope root.
    Schedule nested(ParseModule(kNested));
    QCOMPARE(Names(nested, GetOutputBlocks(nested, nested.GetSBlock("root"))),
             (Names_t{"outer", "inner0", "inner1"}));
    QCOMPARE(Names(nested, GetOutputBlocks(nested, nested.GetSBlock("outer"))),
             (Names_t{"inner0", "inner1"}));
    Apply(nested,
          "blocks = sch.get_output_blocks(\"outer\")\n"
          "assert len(blocks) == 2 and sch.get(blocks[1]).name_hint == \"inner1\"\n");
    QVERIFY(nested.trace().AsPython().find("sch.get_output_blocks(scope_block=") !=
            std::string::npos);
  }

  void childProducersConsumers() {
    ir::IRModule mod = ParseModule(kNested);
    Schedule sch(mod);
    SBlockRV outer = sch.GetSBlock("outer");
    QCOMPARE(Names(sch, sch.GetChildBlocks(outer)), (Names_t{"inner0", "inner1"}));
    auto loops = sch.GetLoops(outer);
    QCOMPARE(Names(sch, sch.GetChildBlocks(loops[0])), (Names_t{"outer"}));
    QCOMPARE(Names(sch, sch.GetChildBlocks(sch.GetSBlock("root"))), (Names_t{"outer"}));
    SBlockRV inner0 = sch.GetSBlock("inner0");
    SBlockRV inner1 = sch.GetSBlock("inner1");
    QCOMPARE(Names(sch, sch.GetConsumers(inner0)), (Names_t{"inner1"}));
    QCOMPARE(Names(sch, sch.GetProducers(inner1)), (Names_t{"inner0"}));
    QCOMPARE(Names(sch, sch.GetProducers(inner0)), Names_t{});
    QCOMPARE(Names(sch, sch.GetProducers(outer)), Names_t{});
    QCOMPARE(sch.trace().AsPython(),
             std::string("b0 = sch.get_sblock(name=\"outer\", func_name=\"main\")\n"
                         "b1, b2 = sch.get_child_blocks(b0)\n"
                         "l3, = sch.get_loops(block=b0)\n"
                         "b4, = sch.get_child_blocks(l3)\n"
                         "b5 = sch.get_sblock(name=\"root\", func_name=\"main\")\n"
                         "b6, = sch.get_child_blocks(b5)\n"
                         "b7 = sch.get_sblock(name=\"inner0\", func_name=\"main\")\n"
                         "b8 = sch.get_sblock(name=\"inner1\", func_name=\"main\")\n"
                         "b9, = sch.get_consumers(block=b7)\n"
                         "b10, = sch.get_producers(block=b8)\n"
                         "sch.get_producers(block=b7)\n"
                         "sch.get_producers(block=b0)\n"));
    ExpectReplay(mod, sch);
    // As users write it: names, positional arguments, a block by its name.
    Schedule user(mod);
    DiagnosticList diags = ApplyRecipe(user, R"(
b0, b1 = sch.get_child_blocks("outer")
c, = sch.get_consumers(b0)
p, = sch.get_producers(block=c)
i, = sch.get_loops(p)
o, = sch.get_child_blocks(block_or_loop=i)
)");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    QCOMPARE(user.trace().instructions().size(), size_t(6));
    // A returned list bound to one name is indexed, as in Python.
    DiagnosticList listed = ApplyRecipe(user, "ps = sch.get_producers(sch.get_child_blocks(\"outer\")[1])\n"
                                              "sch.get_loops(ps[0])\n");
    QVERIFY2(listed.empty(), listed.empty() ? "" : listed[0].message.c_str());
  }

  void compactDataflow() {
    const std::string head = "The queried subtree root `i` in SRef tree does not have compact "
                             "dataflow, because its child block `S` on SRef tree is neither a "
                             "local complete block nor a local reduction block.\nIt violates "
                             "condition #1 as a local complete block.\nIt violates condition #1 "
                             "as a local reduction block.";
    Schedule sch(ParseModule(kNoInit));
    auto loops = sch.GetLoops(sch.GetSBlock("S"));
    QCOMPARE(FailsCleanly(sch, [&] { sch.Parallel(loops[0]); }), Rendered("parallel", head));
    QCOMPARE(FailsCleanly(sch, [&] { sch.Bind(loops[0], "blockIdx.x"); }), Rendered("bind", head));
    // enable_check off: TVM skips the check, the iter-type check still runs.
    ir::IRModule mod = ParseModule(kNoInit);
    Schedule unchecked(mod, /*enable_check=*/false);
    auto uloops = unchecked.GetLoops(unchecked.GetSBlock("S"));
    unchecked.Parallel(uloops[0]);
    QCOMPARE(unchecked.Get(uloops[0])->kind, tir::ForKind::kParallel);
    ExpectSameMeaning(mod, unchecked.mod());
    // A reduction block with an init is a local reduction block: the check passes.
    Schedule deps(ParseModule(kDeps), true);
    auto dloops = deps.GetLoops(deps.GetSBlock("C"));
    deps.Parallel(dloops[0]);
    QCOMPARE(deps.Get(dloops[0])->kind, tir::ForKind::kParallel);
  }
};

QTEST_APPLESS_MAIN(TestScheduleScope)
#include "tst_schedule_scope.moc"
