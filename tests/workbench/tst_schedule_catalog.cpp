// The schedule catalog without any UI: every primitive it offers composes a step from the tree
// that applies to a sample PrimFunc and computes what the original did (the interpreter is the
// oracle); the choices for compute_at, cache_read and bind are the right ones; wrong values are
// errors naming the argument.
#include <QTest>
#include <algorithm>
#include <map>
#include <set>

#include "ir/structural_equal.h"
#include "schedule/recipe.h"
#include "script/tvmscript.h"
#include "workbench/equivalence.h"
#include "workbench/schedule_catalog.h"
#include "workbench/schedule_session.h"
#include "../schedule/schedule_test_util.h"

using namespace wb;
using namespace wb::workbench;

// The two-stage program and the parser of the schedule suites (tests/schedule).
using wb::schedule::testing::kTwoStage;
using wb::schedule::testing::ParseModule;

namespace {

// A matmul into an intermediate C, then a relu into D.
const char* kMatmulRelu = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
        C = T.sblock_alloc_buffer((16, 16))
        for i, j, k in T.grid(16, 16, 16):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(16, 16):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = T.max(C[vi, vj], T.float32(0.0))
)";

// A row sum (a reduction with one spatial axis).
const char* kRowSum = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8,), "float32")):
        for i, k in T.grid(8, 32):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A[vi, vk]
)";

// A matmul whose extents are no multiples of 8 (pad_einsum's input).
const char* kOddMatmul = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((7, 5), "float32"), B: T.Buffer((5, 7), "float32"), C: T.Buffer((7, 7), "float32")):
        for i, j, k in T.grid(7, 7, 5):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// A 1-D convolution-like stencil: out[n, x] = sum_r in[n, x + r] * w[r], through a padded copy.
const char* kConv = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((4, 18), "float32"), W: T.Buffer((3,), "float32"), Y: T.Buffer((4, 16), "float32")):
        P = T.sblock_alloc_buffer((4, 18))
        for n, x in T.grid(4, 18):
            with T.sblock("P"):
                vn, vx = T.axis.remap("SS", [n, x])
                T.reads(X[vn, vx])
                T.writes(P[vn, vx])
                P[vn, vx] = X[vn, vx]
        for n, x, r in T.grid(4, 16, 3):
            with T.sblock("Y"):
                vn, vx, vr = T.axis.remap("SSR", [n, x, r])
                T.reads(P[vn, vx + vr], W[vr])
                T.writes(Y[vn, vx])
                with T.init():
                    Y[vn, vx] = T.float32(0.0)
                Y[vn, vx] = Y[vn, vx] + P[vn, vx + vr] * W[vr]
)";

// The stencil of kConv over a zero-padded copy (decompose_padding's input).
const char* kPaddedConv = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((4, 16), "float32"), W: T.Buffer((3,), "float32"), Y: T.Buffer((4, 16), "float32")):
        P = T.sblock_alloc_buffer((4, 18))
        for n, x in T.grid(4, 18):
            with T.sblock("P"):
                vn, vx = T.axis.remap("SS", [n, x])
                T.reads(X[vn, vx - 1])
                T.writes(P[vn, vx])
                P[vn, vx] = T.if_then_else(1 <= vx and vx < 17, X[vn, vx - 1], T.float32(0.0))
        for n, x, r in T.grid(4, 16, 3):
            with T.sblock("Y"):
                vn, vx, vr = T.axis.remap("SSR", [n, x, r])
                T.reads(P[vn, vx + vr], W[vr])
                T.writes(Y[vn, vx])
                with T.init():
                    Y[vn, vx] = T.float32(0.0)
                Y[vn, vx] = Y[vn, vx] + P[vn, vx + vr] * W[vr]
)";

// Two independent stages of the same shape (merge's input).
const char* kTwoOutputs = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] + T.float32(1.0)
)";

// The node named `name`; "D.j" is loop j of block D's nest.
int Node(const std::vector<ScheduleTreeNode>& tree, const std::string& name) {
  size_t dot = name.find('.');
  if (dot != std::string::npos) {
    std::string block = name.substr(0, dot), loop = name.substr(dot + 1);
    for (const ScheduleTreeNode& n : tree) {
      if (n.kind != ScheduleTreeNode::Kind::kBlock || n.name != block) continue;
      for (int l : n.loops) {
        if (tree[l].name == loop) return l;
      }
    }
    return -1;
  }
  for (size_t i = 0; i < tree.size(); ++i) {
    if (tree[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> Labels(const std::vector<ScheduleChoice>& choices) {
  std::vector<std::string> out;
  for (const ScheduleChoice& c : choices) out.push_back(c.label);
  return out;
}

const ScheduleParam* Param(const SchedulePrimitive& p, const std::string& name) {
  for (const ScheduleParam& param : p.params) {
    if (param.name == name) return &param;
  }
  return nullptr;
}

// One primitive applied through the catalog: on `program`, with `node` selected; loop-valued
// A matmul and a bias add (fuse_reduction_epilogue), an in-place update (cache_inplace), and a
// stencil cascade (rolling_buffer).
const char* kMatmulBias = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
        C = T.sblock_alloc_buffer((16, 16))
        for i, j, k in T.grid(16, 16, 16):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(16, 16):
            with T.sblock("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(C[vi, vj], B[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = C[vi, vj] + B[vi, vj]
)";
const char* kInplace = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(X: T.Buffer((8, 8), "float32"), A: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(8, 8):
            with T.sblock("X"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(X[vi, vj], A[vi, vj])
                T.writes(X[vi, vj])
                X[vi, vj] = X[vi, vj] + A[vi, vj]
)";
const char* kStencil = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((14,), "float32"), C: T.Buffer((10,), "float32")):
        B = T.sblock_alloc_buffer((12,))
        for i, k in T.grid(12, 3):
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi + vk])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A[vi + vk]
        for i, k in T.grid(10, 3):
            with T.sblock("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(B[vi + vk])
                T.writes(C[vi])
                with T.init():
                    C[vi] = T.float32(0.0)
                C[vi] = C[vi] + B[vi + vk]
)";

// arguments written "D.j" are turned into tree indices. `setup` is a step applied first.
struct Case {
  std::string primitive;
  const char* program;
  std::string node;
  std::map<std::string, std::string> values;
  std::string expect;  // in the trace
  std::string setup = {};
};

std::vector<Case> Cases() {
  return {
      {"split", kMatmulRelu, "C.j", {{"factors", "None, 4"}}, "factors=[None, 4]"},
      {"fuse", kMatmulRelu, "D.i", {{"loops", "i, j"}}, "sch.fuse(l"},
      {"reorder", kMatmulRelu, "C.i", {{"loops", "k, i"}}, "sch.reorder(l"},
      {"merge", kTwoOutputs, "B.j", {{"loops", "j, C.j"}}, "sch.merge(l"},
      {"add_unit_loop", kMatmulRelu, "D", {}, "sch.add_unit_loop(block_or_loop=b"},
      {"blockize", kMatmulRelu, "D.j", {}, "sch.blockize(target=l"},
      // The 1x8 tile of j with 4 steps of k, its init split off: the 8-lane FMA intrinsic fits.
      {"tensorize", kMatmulRelu, "C_update.j_1", {{"tensor_intrin", "fma_f32_1x8x4_avx2"}},
       "sch.tensorize(block_or_loop=l",
       "b0 = sch.get_sblock(name=\"C\")\ni, j, k = sch.get_loops(b0)\n"
       "j0, j1 = sch.split(j, [None, 8])\nk0, k1 = sch.split(k, [None, 4])\n"
       "sch.reorder(j0, k0, j1, k1)\nsch.decompose_reduction(b0, k0)\n"},
      {"parallel", kMatmulRelu, "C.i", {}, "sch.parallel(loop=l"},
      {"vectorize", kMatmulRelu, "D.j", {}, "sch.vectorize(loop=l"},
      {"unroll", kMatmulRelu, "C.k", {}, "sch.unroll(loop=l"},
      {"bind", kMatmulRelu, "D.j", {{"thread_axis", "threadIdx.x"}}, "thread_axis=\"threadIdx.x\""},
      {"compute_at", kMatmulRelu, "C", {{"loop", "D.j"}}, "sch.compute_at(block=b"},
      {"reverse_compute_at", kMatmulRelu, "D", {{"loop", "C.j"}}, "sch.reverse_compute_at("},
      {"compute_inline", kTwoStage, "B", {}, "sch.compute_inline(block=b"},
      {"reverse_compute_inline", kTwoStage, "C", {}, "sch.reverse_compute_inline(block=b"},
      {"cache_read", kMatmulRelu, "C", {{"read_buffer_index", "1"}, {"storage_scope", "shared"}},
       "read_buffer_index=1, storage_scope=\"shared\""},
      {"cache_write", kMatmulRelu, "D", {{"write_buffer_index", "0"}, {"storage_scope", "local"}},
       "write_buffer_index=0, storage_scope=\"local\""},
      {"reindex_cache_read", kMatmulRelu, "C",
       {{"read_buffer_index", "0"}, {"storage_scope", "shared"}, {"index_map", "lambda i, j, k: (k, i)"}},
       "sch.reindex_cache_read(block=b"},
      {"reindex_cache_write", kMatmulRelu, "C",
       {{"write_buffer_index", "0"}, {"storage_scope", "local"}, {"index_map", "lambda i, j, k: (j, i)"}},
       "sch.reindex_cache_write(block=b"},
      {"set_scope", kTwoStage, "B", {{"buffer_index", "0"}, {"storage_scope", "shared"}},
       "storage_scope=\"shared\""},
      {"unsafe_set_dtype", kTwoStage, "B", {{"buffer_index", "0"}, {"dtype", "float64"}},
       "dtype=\"float64\""},
      {"reorder_block_iter_var", kTwoStage, "B", {{"new_order", "[1, 0]"}},
       "new_order=[1, 0]"},
      {"decompose_reduction", kMatmulRelu, "C", {{"loop", "C.k"}}, "sch.decompose_reduction("},
      {"rfactor", kRowSum, "B.k", {{"factor_axis", "0"}}, "sch.rfactor(loop=l"},
      {"storage_align", kTwoStage, "B",
       {{"buffer_index", "0"}, {"axis", "0"}, {"factor", "16"}, {"offset", "1"}},
       "factor=16, offset=1"},
      {"transform_layout", kTwoStage, "B",
       {{"buffer", "(\"write\", 0)"}, {"index_map", "lambda i, j: (j, i)"}},
       "index_map=lambda i, j: (j, i)"},
      {"reindex", kMatmulRelu, "C", {{"buffer", "(\"read\", 0)"}}, "sch.reindex("},
      {"pad_einsum", kOddMatmul, "C", {{"padding", "8, 8, 8"}}, "padding=[8, 8, 8]"},
      {"decompose_padding", kPaddedConv, "P", {{"loop", "P.x"}}, "sch.decompose_padding(block=b"},
      {"transform_block_layout", kTwoStage, "B", {{"index_map", "lambda i, j: (i * 16 + j,)"}},
       "index_map=lambda i, j: (i * 16 + j,)"},
      {"annotate", kConv, "Y.x", {{"ann_key", "pragma_auto_unroll_max_step"}, {"ann_val", "16"}},
       "ann_key=\"pragma_auto_unroll_max_step\", ann_val=16"},
      {"loop_partition", kMatmulRelu, "D.j", {{"factors", "4, None"}},
       "sch.loop_partition(loop=l"},
      {"cache_inplace", kInplace, "X", {{"read_buffer_index", "0"}, {"storage_scope", "local"}},
       "sch.cache_inplace(block=b"},
      {"read_at", kMatmulRelu, "C.i",
       {{"block", "C"}, {"read_buffer_index", "0"}, {"storage_scope", "shared"}},
       "sch.read_at(loop=l"},
      {"write_at", kMatmulRelu, "C.i",
       {{"block", "C"}, {"write_buffer_index", "0"}, {"storage_scope", "local"}},
       "sch.write_at(loop=l"},
      {"rolling_buffer", kStencil, "B", {{"write_buffer_index", "0"}}, "sch.rolling_buffer(block=b",
       "l0, l1 = sch.get_loops(sch.get_sblock(\"C\"))\nl2, l3 = sch.split(l0, [2, 5])\n"
       "sch.compute_at(sch.get_sblock(\"B\"), l2)\n"},
      {"fuse_reduction_epilogue", kMatmulBias, "C", {{"epilogue_block", "D"}},
       "sch.fuse_reduction_epilogue(reduction_block=b"},
      {"annotate_buffer_access", kMatmulRelu, "D",
       {{"buffer_index", "0"}, {"buf_type", "read"},
        {"gen_new_ranges", "lambda vi, vj: ((vi, vi + 1), (0, 16))"}},
       "sch.annotate_buffer_access(block=b"},
      {"unannotate", kConv, "Y", {{"ann_key", "note"}}, "sch.unannotate(",
       "b0 = sch.get_sblock(name=\"Y\")\nsch.annotate(block_or_loop=b0, ann_key=\"note\", "
       "ann_val=\"kept\")\n"},
  };
}

}  // namespace

class TestScheduleCatalog : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void everyDescribedMethodIsInTheCatalogOrALookup() {
    // The catalog is read off the recipe methods' descriptions: every method has one, and
    // every method that is no lookup or sampling is offered.
    std::set<std::string> offered;
    for (const SchedulePrimitive& p : ScheduleCatalog()) offered.insert(p.name);
    for (const std::string& name : schedule::RecipeMethodNames()) {
      const schedule::RecipeDoc* doc = schedule::FindRecipeDoc(name);
      QVERIFY2(doc && !doc->summary.empty(), name.c_str());
      bool skipped = doc->group == "lookup" || doc->group == "sampling";
      QVERIFY2(skipped != (offered.count(name) == 1), name.c_str());
    }
    for (const char* name : {"split", "compute_at", "cache_read", "rfactor", "blockize",
                             "storage_align", "set_scope", "annotate", "transform_layout", "bind",
                             "decompose_reduction", "pad_einsum", "reindex"}) {
      QVERIFY2(offered.count(name), name);
    }
    // Grouped in the menu's order.
    std::vector<std::string> groups;
    for (const SchedulePrimitive& p : ScheduleCatalog()) {
      if (groups.empty() || groups.back() != p.group) groups.push_back(p.group);
    }
    QCOMPARE(groups, (std::vector<std::string>{"loop transformations", "loop kinds",
                                               "compute location", "caching", "reduction",
                                               "layout", "tensorization", "annotations",
                                               "GPU"}));
    const SchedulePrimitive* ca = FindSchedulePrimitive("compute_at");
    QCOMPARE(static_cast<int>(ca->target), static_cast<int>(ScheduleTarget::kBlockAndLoop));
    QCOMPARE(ca->target_param, std::string("block"));
    QCOMPARE(ca->params.size(), size_t(3));
    QCOMPARE(Param(*ca, "index")->dflt, std::string("-1"));
    QVERIFY(!Param(*ca, "loop")->doc.empty());
    QCOMPARE(static_cast<int>(FindSchedulePrimitive("fuse")->target),
             static_cast<int>(ScheduleTarget::kLoops));
    QCOMPARE(static_cast<int>(FindSchedulePrimitive("annotate")->target),
             static_cast<int>(ScheduleTarget::kBlockOrLoop));
    QCOMPARE(static_cast<int>(FindSchedulePrimitive("cache_read")->target),
             static_cast<int>(ScheduleTarget::kBlock));
  }

  void everyPrimitiveAppliesAndKeepsTheMeaning_data() {
    QTest::addColumn<int>("index");
    std::vector<Case> cases = Cases();
    for (size_t i = 0; i < cases.size(); ++i) {
      QTest::newRow(cases[i].primitive.c_str()) << static_cast<int>(i);
    }
  }

  void everyPrimitiveAppliesAndKeepsTheMeaning() {
    QFETCH(int, index);
    Case c = Cases()[index];
    const SchedulePrimitive* prim = FindSchedulePrimitive(c.primitive);
    QVERIFY(prim);
    ir::IRModule original = ParseModule(c.program);
    ScheduleSession s;
    QVERIFY(!s.Reset(original).HasErrors());
    if (!c.setup.empty()) {
      DiagnosticList d = s.Apply(c.setup);
      QVERIFY2(!d.HasErrors(), d.HasErrors() ? d[0].message.c_str() : "");
    }
    std::vector<ScheduleTreeNode> tree = s.Tree();
    int node = Node(tree, c.node);
    QVERIFY2(node >= 0, c.node.c_str());
    // The primitive is offered on that node.
    std::vector<const SchedulePrimitive*> offered = PrimitivesFor(tree, node);
    QVERIFY2(std::find(offered.begin(), offered.end(), prim) != offered.end(), c.node.c_str());
    std::map<std::string, std::string> values = c.values;
    for (auto& [name, value] : values) {
      const ScheduleParam* p = Param(*prim, name);
      QVERIFY2(p, name.c_str());
      bool loop = p->kind == schedule::RecipeParamKind::kLoop ||
                  p->kind == schedule::RecipeParamKind::kConsumerLoop ||
                  p->kind == schedule::RecipeParamKind::kProducerLoop;
      if (loop) value = std::to_string(Node(tree, value));
    }
    std::string error;
    std::optional<std::string> step = ComposeStep(*prim, tree, node, values, "main", &error);
    QVERIFY2(step, error.c_str());
    DiagnosticList diags = s.Apply(*step);
    QVERIFY2(!diags.HasErrors(),
             (step->c_str() + std::string("\n") + (diags.HasErrors() ? diags[0].message : ""))
                 .c_str());
    QVERIFY2(s.TraceText().find(c.expect) != std::string::npos, s.TraceText().c_str());
    // The step rewrote the function (a replayed module is always a new object, so compare structure).
    QVERIFY2(!ir::StructuralEqual(s.steps().back().before, s.steps().back().after), step->c_str());
    std::vector<FunctionCheck> checks = CheckEquivalence(original, s.module());
    QCOMPARE(checks.size(), size_t(1));
    QVERIFY2(checks[0].outcome == FunctionCheck::Outcome::kEqual,
             (checks[0].detail + "\n" + s.FuncText()).c_str());
  }

  void everyCatalogPrimitiveHasACase() {
    std::set<std::string> covered;
    for (const Case& c : Cases()) covered.insert(c.primitive);
    for (const SchedulePrimitive& p : ScheduleCatalog()) QVERIFY2(covered.count(p.name), p.name.c_str());
  }

  void tensorizeOffersTheIntrinsicsThatMatch() {
    ScheduleSession s;
    QVERIFY(!s.Reset(ParseModule(kMatmulRelu)).HasErrors());
    QVERIFY(!s.Apply("b0 = sch.get_sblock(name=\"C\")\ni, j, k = sch.get_loops(b0)\n"
                     "j0, j1 = sch.split(j, [None, 8])\nk0, k1 = sch.split(k, [None, 4])\n"
                     "sch.reorder(j0, k0, j1, k1)\nsch.decompose_reduction(b0, k0)\n")
                 .HasErrors());
    auto tree = s.Tree();
    const SchedulePrimitive* t = FindSchedulePrimitive("tensorize");
    QVERIFY(t);
    QCOMPARE(static_cast<int>(t->target), static_cast<int>(ScheduleTarget::kBlockOrLoop));
    const ScheduleParam* intrin = Param(*t, "tensor_intrin");
    QVERIFY(intrin && intrin->kind == schedule::RecipeParamKind::kTensorIntrin);
    QCOMPARE(Labels(ParamChoices(*t, *intrin, tree, Node(tree, "C_update.j_1"))),
             std::vector<std::string>{"fma_f32_1x8x4_avx2"});
    // Where nothing matches, tensorize is not offered.
    for (const char* other : {"C_update.k_1", "C_update.k_0", "D.j", "C_update"}) {
      auto offered = PrimitivesFor(tree, Node(tree, other));
      QVERIFY2(std::find(offered.begin(), offered.end(), t) == offered.end(), other);
    }
    // A name that is no registered intrinsic is refused by the composer.
    std::string error;
    QVERIFY(!ComposeStep(*t, tree, Node(tree, "C_update.j_1"), {{"tensor_intrin", "nope"}}, "main",
                         &error));
    QVERIFY2(error.find("'nope' is not a registered tensor intrinsic") != std::string::npos,
             error.c_str());
  }

  void computeAtChoicesAreTheConsumersLoops() {
    ScheduleSession s;
    QVERIFY(!s.Reset(ParseModule(kMatmulRelu)).HasErrors());
    auto tree = s.Tree();
    const SchedulePrimitive* ca = FindSchedulePrimitive("compute_at");
    const SchedulePrimitive* rca = FindSchedulePrimitive("reverse_compute_at");
    int c = Node(tree, "C"), d = Node(tree, "D");
    std::vector<ScheduleChoice> choices = ParamChoices(*ca, *Param(*ca, "loop"), tree, c);
    QCOMPARE(Labels(choices), (std::vector<std::string>{"i (16) of D", "j (16) of D"}));
    QCOMPARE(choices[1].value, std::to_string(Node(tree, "D.j")));
    // D has no consumer: compute_at is not offered on it; reverse_compute_at offers C's loops.
    QVERIFY(ParamChoices(*ca, *Param(*ca, "loop"), tree, d).empty());
    auto on_d = PrimitivesFor(tree, d);
    QVERIFY(std::find(on_d.begin(), on_d.end(), ca) == on_d.end());
    QVERIFY(std::find(on_d.begin(), on_d.end(), rca) != on_d.end());
    QCOMPARE(Labels(ParamChoices(*rca, *Param(*rca, "loop"), tree, d)),
             (std::vector<std::string>{"i (16) of C", "j (16) of C", "k (16) of C"}));
    // After C moved under D's j, the loops around C are no new place for it.
    std::string error;
    auto step = ComposeStep(*ca, tree, c, {{"loop", std::to_string(Node(tree, "D.j"))}}, "main",
                            &error);
    QVERIFY2(step, error.c_str());
    QVERIFY(step->find("b1 = sch.get_sblock(name=\"D\", func_name=\"main\")\n"
                       "b1_l0, b1_l1 = sch.get_loops(block=b1)\n"
                       "sch.compute_at(block=block, loop=b1_l1)\n") != std::string::npos);
    QVERIFY(!s.Apply(*step).HasErrors());
    tree = s.Tree();
    QVERIFY(ParamChoices(*ca, *Param(*ca, "loop"), tree, Node(tree, "C")).empty());
  }

  void cacheReadChoicesAreTheBlocksReads() {
    ScheduleSession s;
    QVERIFY(!s.Reset(ParseModule(kMatmulRelu)).HasErrors());
    auto tree = s.Tree();
    const SchedulePrimitive* cr = FindSchedulePrimitive("cache_read");
    const SchedulePrimitive* cw = FindSchedulePrimitive("cache_write");
    int c = Node(tree, "C");
    auto reads = ParamChoices(*cr, *Param(*cr, "read_buffer_index"), tree, c);
    QCOMPARE(Labels(reads), (std::vector<std::string>{"A (read 0)", "B (read 1)"}));
    QCOMPARE(reads[1].value, std::string("1"));
    QCOMPARE(Labels(ParamChoices(*cw, *Param(*cw, "write_buffer_index"), tree, c)),
             (std::vector<std::string>{"C (write 0)"}));
    QCOMPARE(InitialValue(*Param(*cr, "read_buffer_index"), reads), std::string("0"));
    // A buffer may be given by name too.
    std::string error;
    auto step = ComposeStep(*cr, tree, c, {{"read_buffer_index", "B"}, {"storage_scope", "shared"}},
                            "", &error);
    QVERIFY2(step, error.c_str());
    QVERIFY(step->find("sch.cache_read(block=block, read_buffer_index=1, "
                       "storage_scope=\"shared\")") != std::string::npos);
  }

  void bindChoicesAreThreadAxes() {
    ScheduleSession s;
    QVERIFY(!s.Reset(ParseModule(kMatmulRelu)).HasErrors());
    auto tree = s.Tree();
    const SchedulePrimitive* bind = FindSchedulePrimitive("bind");
    auto axes = Labels(ParamChoices(*bind, *Param(*bind, "thread_axis"), tree, Node(tree, "D.i")));
    QCOMPARE(axes.size(), size_t(9));
    for (const char* axis : {"threadIdx.x", "threadIdx.z", "blockIdx.x", "blockIdx.y", "vthread.x"}) {
      QVERIFY2(std::find(axes.begin(), axes.end(), axis) != axes.end(), axis);
    }
  }

  void whatAppliesWhere() {
    ScheduleSession s;
    QVERIFY(!s.Reset(ParseModule(kMatmulRelu)).HasErrors());
    auto tree = s.Tree();
    auto names = [&](int node) {
      std::set<std::string> out;
      for (const SchedulePrimitive* p : PrimitivesFor(tree, node)) out.insert(p->name);
      return out;
    };
    std::set<std::string> on_loop = names(Node(tree, "C.k"));
    for (const char* p : {"split", "fuse", "reorder", "parallel", "bind", "rfactor", "annotate"}) {
      QVERIFY2(on_loop.count(p), p);
    }
    QVERIFY(!on_loop.count("compute_at") && !on_loop.count("cache_read"));
    std::set<std::string> on_c = names(Node(tree, "C"));
    for (const char* p : {"compute_at", "cache_read", "cache_write", "decompose_reduction",
                          "compute_inline", "annotate", "transform_layout"}) {
      QVERIFY2(on_c.count(p), p);
    }
    QVERIFY(!on_c.count("split"));
    // D reduces nothing: no reduction primitives on it or its loops.
    QVERIFY(!names(Node(tree, "D")).count("decompose_reduction"));
    QVERIFY(!names(Node(tree, "D.j")).count("rfactor"));
  }

  void badValuesNameTheArgument() {
    ScheduleSession s;
    QVERIFY(!s.Reset(ParseModule(kMatmulRelu)).HasErrors());
    auto tree = s.Tree();
    int c = Node(tree, "C"), cj = Node(tree, "C.j");
    auto fails = [&](const char* prim, int node, std::map<std::string, std::string> values,
                     const std::string& want) {
      std::string error;
      auto step = ComposeStep(*FindSchedulePrimitive(prim), tree, node, values, "main", &error);
      if (step) {
        qWarning("composed: %s", step->c_str());
        return false;
      }
      if (error.find(want) == std::string::npos) {
        qWarning("error: %s", error.c_str());
        return false;
      }
      return true;
    };
    QVERIFY(fails("split", cj, {{"factors", "None, x"}}, "split: argument 'factors': "));
    QVERIFY(fails("split", cj, {}, "split: argument 'factors': a value is required"));
    QVERIFY(fails("fuse", cj, {{"loops", "i, nope"}}, "argument 'loops': 'nope' is not a loop"));
    // C's own j is no consumer loop.
    QVERIFY(fails("compute_at", c, {{"loop", std::to_string(cj)}},
                  "compute_at: argument 'loop': 'j' is not a loop of a consumer of block 'C'"));
    QVERIFY(fails("compute_at", c, {{"loop", "9999"}}, "argument 'loop': '9999'"));
    QVERIFY(fails("cache_read", c, {{"read_buffer_index", "5"}, {"storage_scope", "shared"}},
                  "argument 'read_buffer_index': block 'C' reads no buffer '5'"));
    QVERIFY(fails("cache_read", c, {{"read_buffer_index", "0"}, {"storage_scope", "sh ared"}},
                  "argument 'storage_scope'"));
    QVERIFY(fails("cache_read", c,
                  {{"read_buffer_index", "0"}, {"storage_scope", "shared"},
                   {"consumer_blocks", "Nope"}},
                  "argument 'consumer_blocks': there is no block named 'Nope'"));
    QVERIFY(fails("bind", cj, {{"thread_axis", "threadIdx.w"}}, "argument 'thread_axis'"));
    QVERIFY(fails("rfactor", Node(tree, "C.k"), {{"factor_axis", "one"}},
                  "argument 'factor_axis': 'one' is not an integer"));
    QVERIFY(fails("transform_layout", c, {{"buffer", "(\"write\", 3)"}, {"index_map", "lambda i, j: (j, i)"}},
                  "argument 'buffer'"));
    QVERIFY(fails("transform_layout", c, {{"buffer", "C"}, {"index_map", "(j, i)"}},
                  "argument 'index_map'"));
    QVERIFY(fails("compute_at", c, {{"loop", std::to_string(Node(tree, "D.i"))},
                                    {"preserve_unit_loops", "maybe"}},
                  "argument 'preserve_unit_loops'"));
    // The selection must fit the primitive.
    QVERIFY(fails("split", c, {{"factors", "None, 4"}}, "split applies to a loop"));
    QVERIFY(fails("cache_read", cj, {{"read_buffer_index", "0"}}, "cache_read applies to a block"));
  }

  void aStepThatDoesNotApplyChangesNothing() {
    // Composed fine, refused by the schedule: the session keeps no step and shows the error.
    ScheduleSession s;
    QVERIFY(!s.Reset(ParseModule(kMatmulRelu)).HasErrors());
    auto tree = s.Tree();
    std::string error;
    auto step = ComposeStep(*FindSchedulePrimitive("parallel"), tree, Node(tree, "C.k"), {}, "main",
                            &error);
    QVERIFY2(step, error.c_str());
    DiagnosticList diags = s.Apply(*step);
    QVERIFY(diags.HasErrors());
    QVERIFY2(diags[0].message.find("ScheduleError") != std::string::npos, diags[0].message.c_str());
    QVERIFY(s.steps().empty());
    QVERIFY(s.TraceText().empty());
  }

  void theOracleSeesADifferentMeaning() {
    // The meaning check above is not vacuous: another constant in the second stage differs.
    std::string changed = kTwoStage;
    size_t at = changed.find("T.float32(1.0)");
    QVERIFY(at != std::string::npos);
    changed.replace(at, 14, "T.float32(1.5)");
    std::vector<FunctionCheck> checks = CheckEquivalence(ParseModule(kTwoStage), ParseModule(changed.c_str()));
    QCOMPARE(checks.size(), size_t(1));
    QCOMPARE(static_cast<int>(checks[0].outcome),
             static_cast<int>(FunctionCheck::Outcome::kDifferent));
  }

  void cacheReadForSomeConsumersOnly() {
    // consumer_blocks: block names from the form become a list of names in the call.
    ScheduleSession s;
    ir::IRModule original = ParseModule(kTwoStage);
    QVERIFY(!s.Reset(original).HasErrors());
    auto tree = s.Tree();
    const SchedulePrimitive* cr = FindSchedulePrimitive("cache_read");
    std::string error;
    auto step = ComposeStep(*cr, tree, Node(tree, "C"),
                            {{"read_buffer_index", "0"}, {"storage_scope", "local"},
                             {"consumer_blocks", "C"}},
                            "main", &error);
    QVERIFY2(step, error.c_str());
    QVERIFY2(step->find("consumer_blocks=[\"C\"])") != std::string::npos, step->c_str());
    DiagnosticList diags = s.Apply(*step);
    QVERIFY2(!diags.HasErrors(), diags.HasErrors() ? diags[0].message.c_str() : "");
    QVERIFY(s.FuncText().find("B_local") != std::string::npos);
    auto checks = CheckEquivalence(original, s.module());
    QVERIFY(checks.size() == 1 && checks[0].outcome == FunctionCheck::Outcome::kEqual);
  }

  void defaultsAreLeftOut() {
    ScheduleSession s;
    QVERIFY(!s.Reset(ParseModule(kMatmulRelu)).HasErrors());
    auto tree = s.Tree();
    const SchedulePrimitive* split = FindSchedulePrimitive("split");
    std::string error;
    auto step = ComposeStep(*split, tree, Node(tree, "C.k"),
                            {{"factors", "[2, None]"}, {"preserve_unit_iters", "True"},
                             {"disable_predication", "True"}},
                            "main", &error);
    QVERIFY2(step, error.c_str());
    QVERIFY2(step->find("sch.split(loop=loop, factors=[2, None], disable_predication=True)\n") !=
                 std::string::npos,
             step->c_str());
    QCOMPARE(InitialValue(*Param(*split, "preserve_unit_iters"), {}), std::string("True"));
    QCOMPARE(ExampleValue(*Param(*split, "factors")), std::string("None, 32"));
  }
};

QTEST_APPLESS_MAIN(TestScheduleCatalog)
#include "tst_schedule_catalog.moc"
