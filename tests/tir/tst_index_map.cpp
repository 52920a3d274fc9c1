// Tests of tir::IndexMap: mapping indices and shapes, inverting affine bijections (checked
// point by point: the inverse composed with the map is the identity on every index), refusing to
// invert what is not a bijection, the lambda text of traces, and `T.index_map(...)` in TVMScript
// as R.layout_transform's attribute (parsed, printed back as TVM prints it, and used by type
// inference for the result shape).

#include <QTest>
#include <string>
#include <vector>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "relax/expr.h"
#include "script/tvmscript.h"
#include "tir/index_map.h"
#include "tir/op.h"

using namespace wb;
using namespace wb::tir;

namespace {

const DataType kI32 = DataType::Int(32);

PrimExpr I(int64_t v) { return make_const(kI32, v); }

IndexMap Parse(const std::string& text) {
  std::string error;
  size_t offset = 0;
  IndexMap m = ParseIndexMapLambda(text, kI32, &error, &offset);
  if (!m.defined()) qFatal("index map does not parse: %s at %zu", error.c_str(), offset);
  return m;
}

int64_t ConstOf(const PrimExpr& e) {
  arith::Analyzer analyzer;
  PrimExpr s = analyzer.Simplify(e);
  auto* imm = s.as<IntImmNode>();
  if (!imm) qFatal("not a constant after simplification");
  return imm->value;
}

std::vector<int64_t> Apply(const IndexMap& m, const std::vector<int64_t>& point) {
  std::vector<PrimExpr> in;
  for (int64_t v : point) in.push_back(I(v));
  std::vector<int64_t> out;
  for (const PrimExpr& e : MapIndices(m, in)) out.push_back(ConstOf(e));
  return out;
}

// Every point of `shape` maps into the new shape, and the inverse brings it back.
void CheckRoundTrip(const std::string& text, const std::vector<int64_t>& shape) {
  IndexMap m = Parse(text);
  std::vector<PrimExpr> shape_exprs;
  for (int64_t d : shape) shape_exprs.push_back(I(d));
  std::vector<PrimExpr> new_shape = MapShape(m, shape_exprs);
  InverseResult inv = Inverse(m, shape_exprs);
  QVERIFY2(inv.inverse.defined(), (text + ": " + inv.error).c_str());
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  int64_t mapped_total = 1;
  for (const PrimExpr& d : new_shape) mapped_total *= ConstOf(d);
  QCOMPARE(mapped_total, total);
  std::vector<int64_t> point(shape.size(), 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t rest = flat;
    for (size_t d = shape.size(); d-- > 0;) {
      point[d] = rest % shape[d];
      rest /= shape[d];
    }
    std::vector<int64_t> image = Apply(m, point);
    for (size_t d = 0; d < image.size(); ++d) {
      QVERIFY(image[d] >= 0 && image[d] < ConstOf(new_shape[d]));
    }
    QCOMPARE(Apply(inv.inverse, image), point);
  }
}

}  // namespace

class TestIndexMap : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void mapIndicesAndShape() {
    IndexMap tile = Parse("lambda i, j: (i // 16, j // 16, i % 16, j % 16)");
    QCOMPARE(Apply(tile, {37, 5}), (std::vector<int64_t>{2, 0, 5, 5}));
    std::vector<PrimExpr> shape = MapShape(tile, {I(64), I(32)});
    QCOMPARE(shape.size(), size_t(4));
    QCOMPARE(ConstOf(shape[0]), int64_t(4));
    QCOMPARE(ConstOf(shape[1]), int64_t(2));
    QCOMPARE(ConstOf(shape[2]), int64_t(16));
    QCOMPARE(ConstOf(shape[3]), int64_t(16));
    IndexMap transpose = Parse("lambda i, j: (j, i)");
    QCOMPARE(Apply(transpose, {3, 9}), (std::vector<int64_t>{9, 3}));
    // Symbolic indices stay expressions: the map is substituted, not evaluated.
    Var x = MakeVar("x", kI32);
    std::vector<PrimExpr> out = MapIndices(Parse("lambda i: (i // 4, i % 4)"), {x});
    QCOMPARE(out.size(), size_t(2));
    QVERIFY(out[0].as<FloorDivNode>() != nullptr);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, MapIndices(transpose, {x}));
  }

  void inverseOfBijections() {
    CheckRoundTrip("lambda i, j: (j, i)", {3, 5});
    CheckRoundTrip("lambda i: (i // 4, i % 4)", {16});
    CheckRoundTrip("lambda i, j: (i * 6 + j,)", {4, 6});
    CheckRoundTrip("lambda i, j: (i // 4, j // 2, i % 4, j % 2)", {8, 6});
    CheckRoundTrip("lambda i, j, k: (k, i, j)", {2, 3, 4});
    // An index of extent 1: passed through it is its output, folded into a sum it is 0.
    CheckRoundTrip("lambda i, j: (j, i)", {1, 5});
    CheckRoundTrip("lambda n, h, w: (n * 12 + h * 4 + w,)", {1, 3, 4});
    InverseResult unit = Inverse(Parse("lambda i, j: (j, i)"), {I(1), I(5)});
    QVERIFY(unit.inverse.defined());
    QVERIFY(unit.inverse->final_indices[0].get() == unit.inverse->initial_indices[1].get());
  }

  void inverseRefusesNonBijections() {
    // Drops half the points.
    InverseResult halve = Inverse(Parse("lambda i: (i // 2,)"), {I(8)});
    QVERIFY(!halve.inverse.defined());
    QVERIFY2(halve.error.find("not an affine bijection") != std::string::npos, halve.error.c_str());
    // An index the map never uses cannot be recovered.
    InverseResult drop = Inverse(Parse("lambda i, j: (i,)"), {I(4), I(4)});
    QVERIFY(!drop.inverse.defined());
    // Not affine.
    InverseResult square = Inverse(Parse("lambda i: (i * i,)"), {I(4)});
    QVERIFY(!square.inverse.defined());
    // A shape of the wrong rank.
    InverseResult rank = Inverse(Parse("lambda i, j: (j, i)"), {I(4)});
    QVERIFY(!rank.inverse.defined());
    QVERIFY(rank.error.find("dimensions") != std::string::npos);
  }

  void lambdaText() {
    for (const char* text : {"lambda i, j: (j, i)", "lambda i: (i // 4, i % 4)",
                             "lambda i, j: (i * 6 + j,)", "lambda i, j: ((i + j) * 2, i - j)"}) {
      IndexMap m = Parse(text);
      QCOMPARE(IndexMapLambdaText(m), std::string(text));
      QVERIFY(ir::StructuralEqual(Parse(IndexMapLambdaText(m)), m));
    }
    // A single index without a tuple, and a list, read as TVM's Python accepts them.
    QCOMPARE(IndexMapLambdaText(Parse("lambda i: i + 1")), std::string("lambda i: (i + 1,)"));
    QCOMPARE(IndexMapLambdaText(Parse("lambda i, j: [j, i]")), std::string("lambda i, j: (j, i)"));
    QCOMPARE(IndexMapLambdaText(Parse("lambda i: (i + 1) * 2")),
             std::string("lambda i: ((i + 1) * 2,)"));
    // Constants built as TVM's Python builds them, of the lambda's dtype or a given one.
    IndexMap c = Parse("lambda i: [tirx.const(0, i.ty.dtype), i // 8, T.int64(3), "
                       "tvm.tirx.const(2, \"int8\"), T.const(-1, i.dtype)]");
    QCOMPARE(c->final_indices.size(), size_t(5));
    QCOMPARE(c->final_indices[0]->dtype, kI32);
    QCOMPARE(c->final_indices[2]->dtype, DataType::Int(64));
    QCOMPARE(c->final_indices[3]->dtype, DataType::Int(8));
    QCOMPARE(ConstOf(c->final_indices[4]), int64_t(-1));
  }

  void lambdaErrors() {
    struct Case {
      const char* text;
      const char* message;
    };
    for (const Case& c : {Case{"i: (i,)", "expected `lambda`"},
                          Case{"lambda i: (k,)", "`k` is not a parameter of the lambda"},
                          Case{"lambda i, i: (i,)", "duplicate parameter `i`"},
                          Case{"lambda i: (i,", "expected"},
                          Case{"lambda i: (i,) x", "unexpected text after the lambda"},
                          Case{"lambda i: (np.zeros(1),)", "not a constant constructor"},
                          Case{"lambda i: (tirx.const(0, k.dtype),)", "a parameter's `.dtype`"},
                          Case{"lambda i: (tirx.max,)", "is not a parameter of the lambda"}}) {
      std::string error;
      size_t offset = 0;
      IndexMap m = ParseIndexMapLambda(c.text, kI32, &error, &offset);
      QVERIFY2(!m.defined(), c.text);
      QVERIFY2(error.find(c.message) != std::string::npos, (std::string(c.text) + ": " + error).c_str());
    }
  }

  void scriptRoundTrip() {
    const std::string text = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8, 6), dtype="float32")) -> R.Tensor((4, 3, 2, 2), dtype="float32"):
        with R.dataflow():
            gv: R.Tensor((4, 3, 2, 2), dtype="float32") = R.layout_transform(x, index_map=T.index_map(lambda i, j: (i // 2, j // 2, i % 2, j % 2)), pad_value=None, axis_separators=[], input_axis_separators=[])
            R.output(gv)
        return gv)";
    script::ParseResult parsed = script::Parse(text);
    QVERIFY(parsed.ok());
    std::string printed = script::PrintModule(parsed.module);
    QCOMPARE(printed, text);
    script::ParseResult again = script::Parse(printed);
    QVERIFY(again.ok());
    QVERIFY(ir::StructuralEqual(again.module, parsed.module));
  }

  void scriptInverseAndErrors() {
    // `inverse_index_map=` prints back; the attribute's parameters are local to each lambda.
    const std::string text = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 6), dtype="float32")) -> R.Tensor((6, 4), dtype="float32"):
        gv: R.Tensor((6, 4), dtype="float32") = R.layout_transform(x, index_map=T.index_map(lambda i, j: (j, i), inverse_index_map=lambda i, j: (j, i)), pad_value=None, axis_separators=[], input_axis_separators=[])
        return gv)";
    script::ParseResult parsed = script::Parse(text);
    QVERIFY(parsed.ok());
    QCOMPARE(script::PrintModule(parsed.module), text);
    const std::string attr =
        "T.index_map(lambda i, j: (j, i), inverse_index_map=lambda i, j: (j, i))";
    auto with_attr = [&](const std::string& replacement) {
      std::string out = text;
      out.replace(out.find(attr), attr.size(), replacement);
      return script::Parse(out);
    };
    auto has_message = [](const script::ParseResult& r, const std::string& message) {
      for (const auto& d : r.diagnostics.items()) {
        if (d.message.find(message) != std::string::npos) return true;
      }
      return false;
    };
    // A map of the wrong rank is a type error of the call, with the reason.
    script::ParseResult wrong = with_attr("T.index_map(lambda i: (i, 0))");
    QVERIFY(!wrong.ok());
    QVERIFY(has_message(wrong, "the index map takes 1 indices, but the input has 2 dimensions"));
    script::ParseResult not_lambda = with_attr("T.index_map(3)");
    QVERIFY(!not_lambda.ok());
    QVERIFY(has_message(not_lambda, "T.index_map expects a lambda"));
    bool found = has_message(with_attr("T.index_map(lambda i, j: (j, i), index_dtype=\"float32\")"),
                             "index_dtype must be an integer type");
    QVERIFY(found);
  }
};

QTEST_APPLESS_MAIN(TestIndexMap)
#include "tst_index_map.moc"
