// Tests of annotate, unannotate, storage_align, set_scope and add_unit_loop: results compared
// structurally with the TVMScript we expect, run against the original through the interpreter,
// replayed from the trace; failures name the block/buffer and leave the schedule alone.

#include <QTest>
#include <string>

#include "schedule_test_util.h"

using namespace wb;
using namespace wb::schedule;
using namespace wb::schedule::testing;

namespace {

// kTwoStage with `b_attrs` after B's T.writes, and B allocated (and named) as given.
std::string TwoStage(const std::string& b_attrs,
                     const std::string& alloc = "B = T.sblock_alloc_buffer((16, 16))",
                     const std::string& b_name = "B") {
  std::string text = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        )" + alloc + R"(
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(BUF[vi, vj])
)" + b_attrs + R"(                BUF[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(BUF[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = BUF[vi, vj] + T.float32(1.0)
)";
  for (size_t pos; (pos = text.find("BUF")) != std::string::npos;) text.replace(pos, 3, b_name);
  return text;
}

}  // namespace

class TestScheduleAnnotate : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void annotateBlockAndLoop() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.Annotate(b, "pragma_x", ir::MakeInt(1));
    ExpectModule(before, sch.mod(), TwoStage("                T.sblock_attr({\"pragma_x\": 1})\n"));
    LoopRV j = sch.GetLoops(sch.GetSBlock("C"))[1];
    sch.Annotate(j, "note", ir::MakeString("v"));
    ExpectModule(before, sch.mod(), R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                T.sblock_attr({"pragma_x": 1})
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i in range(16):
            for j in T.serial(16, annotations={"note": "v"}):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    T.reads(B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, vj] + T.float32(1.0)
)");
    ExpectReplay(before, sch);
  }

  void annotateKeepsExistingValue() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.Annotate(b, "tiles", ir::MakeArray({ir::MakeInt(4), ir::MakeInt(8)}));
    ir::IRModule annotated = sch.mod();
    // TVM never overwrites: the second call changes nothing, but is recorded.
    sch.Annotate(b, "tiles", ir::MakeInt(3));
    QVERIFY(sch.mod().same_as(annotated));
    ExpectModule(before, sch.mod(), TwoStage("                T.sblock_attr({\"tiles\": [4, 8]})\n"));
    QCOMPARE(sch.trace().AsPython(),
             std::string("b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                         "sch.annotate(block_or_loop=b0, ann_key=\"tiles\", ann_val=[4, 8])\n"
                         "sch.annotate(block_or_loop=b0, ann_key=\"tiles\", ann_val=3)\n"));
    ExpectReplay(before, sch);
  }

  void unannotate() {
    ir::IRModule before = ParseModule(TwoStage("                T.sblock_attr({\"a\": 1, \"b\": \"x\"})\n"));
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.Unannotate(b, "a");
    ExpectModule(before, sch.mod(), TwoStage("                T.sblock_attr({\"b\": \"x\"})\n"));
    sch.Unannotate(b, "b");
    ExpectModule(before, sch.mod(), kTwoStage);
    ExpectReplay(before, sch);
    QCOMPARE(FailsCleanly(sch, [&] { sch.Unannotate(b, "a"); }),
             Rendered("unannotate", "Cannot find annotation key: a"));
    LoopRV i = sch.GetLoops(b)[0];
    QCOMPARE(FailsCleanly(sch, [&] { sch.Unannotate(i, "pragma"); }),
             Rendered("unannotate", "Cannot find annotation key: pragma"));
  }

  void annotateErrors() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    // Values the trace cannot print are refused before anything changes.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             sch.Annotate(b, "k", before->functions[0]));
    QVERIFY(sch.mod().same_as(before));
    // A loop handle retired by split no longer names a loop.
    LoopRV i = sch.GetLoops(b)[0];
    sch.Split(i, {2, std::nullopt});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.Annotate(i, "k", ir::MakeInt(1)));
  }

  void storageAlign() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.StorageAlign(b, 0, 0, 16, 8);
    ExpectModule(before, sch.mod(),
                 TwoStage("                T.sblock_attr({\"buffer_dim_align\": [[0, 0, 16, 8]]})\n"));
    // A second axis is appended; the same (buffer, axis) is replaced; -1 means the last axis.
    sch.StorageAlign(b, 0, 1, 32, 1);
    sch.StorageAlign(b, 0, -2, 16, 4);
    ExpectModule(before, sch.mod(),
                 TwoStage("                T.sblock_attr({\"buffer_dim_align\": [[0, 0, 16, 4], [0, 1, 32, 1]]})\n"));
    QVERIFY(sch.trace().AsPython().find(
                "sch.storage_align(block=b0, buffer_index=0, axis=-2, factor=16, offset=4)") !=
            std::string::npos);
    ExpectReplay(before, sch);
  }

  void storageAlignErrors() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    SBlockRV c = sch.GetSBlock("C");
    QCOMPARE(FailsCleanly(sch, [&] { sch.StorageAlign(b, 0, 0, 0, 8); }),
             Rendered("storage-align",
                      "The input `factor` of storage_align is expected to be a positive number. "
                      "However, the input `factor` is 0, which is out of the expected range."));
    QCOMPARE(FailsCleanly(sch, [&] { sch.StorageAlign(b, 0, 2, 16, 8); }),
             Rendered("storage-align",
                      "The buffer to set storage alignment of, B, has 2 dimension(s), so `axis` is "
                      "required to be in [-2, 2) for storage_align. However, the input `axis` is "
                      "2, which is out of the expected range."));
    QCOMPARE(FailsCleanly(sch, [&] { sch.StorageAlign(c, 0, 0, 16, 8); }),
             Rendered("storage-align",
                      "The input buffer C is not allocated by a block. This means the buffer is "
                      "either a function parameter or defined in `match_buffer` of a block."));
    QCOMPARE(FailsCleanly(sch, [&] { sch.StorageAlign(b, 1, 0, 16, 8); }),
             Rendered("storage-align",
                      "The block `B` has 1 write regions, so `buffer_index` is required to be in "
                      "[0, 1). However, the input `buffer_index` is 1, which is out of the "
                      "expected range."));
  }

  void setScope() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    sch.SetScope(b, 0, "shared");
    ExpectModule(before, sch.mod(),
                 TwoStage("", "B_shared = T.sblock_alloc_buffer((16, 16), scope=\"shared\")",
                          "B_shared"));
    // The same scope again changes nothing and is still recorded, as in TVM.
    ir::IRModule shared = sch.mod();
    sch.SetScope(b, 0, "shared");
    QVERIFY(sch.mod().same_as(shared));
    QCOMPARE(sch.trace().instructions().size(), size_t(3));
    ExpectReplay(before, sch);
    // Then to local: the name grows again, as TVM's does.
    sch.SetScope(b, 0, "local");
    ExpectModule(before, sch.mod(),
                 TwoStage("", "B_shared_local = T.sblock_alloc_buffer((16, 16), scope=\"local\")",
                          "B_shared_local"));
  }

  // The buffer by name, as TVM's Python takes it: the buffer the block writes.
  void setScopeByName() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    DiagnosticList diags = ApplyRecipe(sch, "sch.set_scope(\"B\", \"B\", \"shared\")\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectModule(before, sch.mod(),
                 TwoStage("", "B_shared = T.sblock_alloc_buffer((16, 16), scope=\"shared\")",
                          "B_shared"));
    QVERIFY(sch.trace().AsPython().find("buffer_index=0") != std::string::npos);
    ExpectReplay(before, sch);
    // A buffer C only reads, and a name C does not access: errors at the argument, nothing done.
    Schedule fresh(before);
    diags = ApplyRecipe(fresh, "sch.set_scope(\"C\", \"B\", \"shared\")\n");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(diags[0].message, std::string("set_scope needs a buffer the block writes; it only reads B"));
    QCOMPARE(std::string(diags[0].span.text()), std::string("\"B\""));
    diags = ApplyRecipe(fresh, "sch.set_scope(\"B\", \"X\", \"shared\")\n");
    QCOMPARE(diags.size(), size_t(1));
    QCOMPARE(diags[0].message, std::string("the block does not access a buffer named X"));
    QVERIFY(fresh.mod().same_as(before));
  }

  // Buffers matched onto the rescoped one take its scope and its `_<scope>` suffix, as in TVM;
  // a 0-d match (`()`) stays 0-d.
  void setScopeOfMatchedBuffer() {
    auto module = [](const std::string& b, const std::string& scope_arg, const std::string& m0,
                     const std::string& m1) {
      return R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        )" + b + R"( = T.sblock_alloc_buffer((8, 8))" + scope_arg + R"()
        for i, j in T.grid(8, 8):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes()" + b + R"([vi, vj])
                )" + m0 + R"( = T.match_buffer()" + b + R"([vi, vj], ())" + scope_arg + R"(, offset_factor=1)
                )" + m0 + R"([()] = A[vi, vj] * T.float32(2.0)
        for i in range(8):
            with T.sblock("C"):
                vi = T.axis.spatial(8, i)
                T.reads()" + b + R"([vi, 0:8])
                T.writes(C[vi, 0:8])
                )" + m1 + R"( = T.match_buffer()" + b + R"([vi, 0:8], (8,))" + scope_arg + R"(, offset_factor=1)
                for j in range(8):
                    C[vi, j] = )" + m1 + R"([j] + T.float32(1.0)
)";
    };
    ir::IRModule before = ParseModule(module("B", "", "s", "r"));
    Schedule sch(before);
    sch.SetScope(sch.GetSBlock("B"), 0, "shared");
    ExpectModule(before, sch.mod(),
                 module("B_shared", ", scope=\"shared\"", "s_shared", "r_shared"));
    ExpectReplay(before, sch);
  }

  void setScopeErrors() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule fresh(before);
    SBlockRV b = fresh.GetSBlock("B");
    QCOMPARE(FailsCleanly(fresh, [&] { fresh.SetScope(b, 0, "register"); }),
             Rendered("set-scope", "The input storage scope \"register\" is invalid."));
    SBlockRV c = fresh.GetSBlock("C");
    QCOMPARE(FailsCleanly(fresh, [&] { fresh.SetScope(c, 0, "shared"); }),
             Rendered("set-scope",
                      "The input buffer C is not allocated by a block. This means the buffer is "
                      "either a function parameter or defined in `match_buffer` of a block."));
  }

  void addUnitLoop() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV b = sch.GetSBlock("B");
    LoopRV u = sch.AddUnitLoop(b);
    QCOMPARE(sch.Get(u)->loop_var->name_hint, std::string("u"));
    const std::string around_block = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j, u in T.grid(16, 16, 1):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for u, i, j in T.grid(1, 16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";
    LoopRV ci = sch.GetLoops(sch.GetSBlock("C"))[0];
    sch.AddUnitLoop(ci);
    ExpectModule(before, sch.mod(), around_block);
    QVERIFY(sch.trace().AsPython().find("l1 = sch.add_unit_loop(block_or_loop=b0)\n") !=
            std::string::npos);
    ExpectReplay(before, sch);
    // The unit loop is a loop like any other: it can be fused away again.
    sch.Fuse({sch.GetLoops(b)[1], u});
    ExpectSameMeaning(before, sch.mod());
  }

  void addUnitLoopErrors() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    SBlockRV root = sch.GetSBlock("root");
    try {
      sch.AddUnitLoop(root);
      QFAIL("add_unit_loop on the root block must fail");
    } catch (const std::invalid_argument& e) {
      QCOMPARE(std::string(e.what()), std::string("Cannot add loops on top of the root block"));
    }
    QVERIFY(sch.mod().same_as(before));
    LoopRV i = sch.GetLoops(sch.GetSBlock("B"))[0];
    sch.Fuse({i, sch.GetLoops(sch.GetSBlock("B"))[1]});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sch.AddUnitLoop(i));
  }

  void fromRecipe() {
    ir::IRModule before = ParseModule(kTwoStage);
    Schedule sch(before);
    DiagnosticList diags = ApplyRecipe(sch,
                                       "b = sch.get_sblock(\"B\")\n"
                                       "sch.annotate(b, \"pragma_x\", 1)\n"
                                       "sch.storage_align(b, 0, 0, 16, 8)\n"
                                       "sch.unannotate(b, ann_key=\"pragma_x\")\n"
                                       "sch.set_scope(b, 0, \"shared\")\n"
                                       "u = sch.add_unit_loop(b)\n");
    QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
    ExpectSameMeaning(before, sch.mod());
    // A dict value, keyed by strings as TVM's annotation maps are; its trace replays.
    Schedule dict(before);
    Apply(dict, "sch.annotate(\"B\", \"meta\", {\"arr\": [0, 0], \"key\": 3})\n");
    const ir::AttrMap& anns = dict.Get(dict.GetSBlock("B"))->annotations;
    QVERIFY(anns.count("meta"));
    const auto* m = anns.at("meta").as<ir::MapObj>();
    QVERIFY(m && m->items.size() == 2 && m->items.count("arr") && m->items.count("key"));
    ExpectReplay(before, dict);
    DiagnosticList non_string = ApplyRecipe(dict, "sch.annotate(\"B\", \"k2\", {1: 2})\n");
    QCOMPARE(non_string.size(), size_t(1));
    QVERIFY(non_string[0].message.find("a key of ann_val's dict") != std::string::npos);
    DiagnosticList bad = ApplyRecipe(sch, "sch.unannotate(\"B\", \"nope\")\n");
    QVERIFY(!bad.empty());
    QVERIFY(bad[0].message.find("Cannot find annotation key: nope") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestScheduleAnnotate)
#include "tst_schedule_annotate.moc"
