// Type inference of every registered Relax op, through the BlockBuilder as a front end uses it:
// broadcasting with symbolic dims, reductions with keepdims, conv2d and pooling output sizes,
// reshape's -1, the declared outputs of call_tir, and the exact messages of the errors.

#include <QTest>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "relax/block_builder.h"
#include "relax/op/registry.h"
#include "tir/op.h"

using namespace wb;
using namespace wb::relax;
using ir::DataType;

namespace {

const DataType kF32 = DataType::Float(32);
const DataType kI64 = DataType::Int(64);

PrimExpr I(int64_t v) { return tir::MakeIntImm(kI64, v); }
TensorType T(std::vector<PrimExpr> dims, DataType dtype = kF32) {
  return MakeTensorType(std::move(dims), dtype);
}
Expr Prim(int64_t v) { return MakePrimValue(I(v)); }
Expr Ints(std::vector<int64_t> values) {
  std::vector<Expr> items;
  for (int64_t v : values) items.push_back(Prim(v));
  return MakeTuple(std::move(items));
}
ObjectRef Int(int64_t v) { return ir::MakeInt(v); }

std::set<std::string>& Covered() {
  static std::set<std::string> covered;
  return covered;
}

struct Inferred {
  std::string type;   // TypeToString of the result, "" on error
  std::string error;  // the first diagnostic's message
};

// Builds `def f(p0: param_types[0], ...)` whose single binding is `call(params)` and reports
// the binding's type or the error.
Inferred Infer(const std::vector<Type>& param_types,
               const std::function<Expr(const std::vector<Var>&)>& call) {
  std::vector<Var> params;
  for (size_t i = 0; i < param_types.size(); ++i) {
    params.push_back(MakeVar("p" + std::to_string(i), param_types[i]));
  }
  BlockBuilder bb;
  bb.BeginFunction("f", params);
  Expr value = call(params);
  if (auto* c = value.as<CallNode>()) {
    if (auto* op = c->op.as<ir::OpNode>()) Covered().insert(op->name);
  }
  Var out = bb.Emit(value, "out");
  bb.EndFunction(out);
  Inferred r;
  if (!bb.diagnostics().empty()) {
    r.error = bb.diagnostics()[0].message;
  } else {
    r.type = TypeToString(out->struct_info);
  }
  return r;
}

// A call of `op` on the params with attributes.
std::function<Expr(const std::vector<Var>&)> On(std::string op, AttrMap attrs = {}) {
  return [op, attrs](const std::vector<Var>& p) {
    return MakeOpCall(op, std::vector<Expr>(p.begin(), p.end()), attrs);
  };
}

#define CHECK_TYPE(result, expected)                              \
  do {                                                            \
    Inferred r_ = (result);                                       \
    QCOMPARE(QString::fromStdString(r_.error), QString());        \
    QCOMPARE(QString::fromStdString(r_.type), QString(expected)); \
  } while (0)
#define CHECK_ERROR(result, expected)                              \
  do {                                                             \
    Inferred r_ = (result);                                        \
    QCOMPARE(QString::fromStdString(r_.error), QString(expected)); \
  } while (0)

}  // namespace

class TestRelaxOps : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void registryDescribesOps() {
    const OpInfo* conv = FindOp("relax.nn.conv2d");
    QVERIFY(conv);
    QCOMPARE(QString::fromStdString(conv->script_name()), QString("nn.conv2d"));
    QCOMPARE(FindOpByScriptName("nn.conv2d"), conv);
    QCOMPARE(conv->pattern, OpPatternKind::kOutEWiseFusable);
    std::vector<std::string> names;
    for (const auto& a : conv->attrs) names.push_back(a.name);
    QCOMPARE(names,
             (std::vector<std::string>{"strides", "padding", "dilation", "groups", "data_layout",
                                       "kernel_layout", "out_layout", "out_dtype"}));
    QCOMPARE(conv->attrs_type_key, std::string("relax.attrs.Conv2DAttrs"));
    QVERIFY(!conv->legalize);
    QCOMPARE(FindOp("relax.add")->pattern, OpPatternKind::kBroadcast);
    QCOMPARE(FindOp("relax.sum")->pattern, OpPatternKind::kCommReduce);
    QCOMPARE(FindOp("relax.exp")->pattern, OpPatternKind::kElemWise);
    QCOMPARE(FindOp("relax.reshape")->pattern, OpPatternKind::kInjective);
    QVERIFY(!FindOp("relax.memory.kill_tensor")->pure);
    QVERIFY(FindOp("relax.call_tir")->pure);
    // The same op node every time: calls compare ops by identity.
    QVERIFY(GetOp("relax.add").same_as(GetOp("relax.add")));
  }

  void makeOpCallFillsDefaultsAndRejectsMistakes() {
    Var x = MakeVar("x", T({I(1)}));
    Call c = MakeOpCall("nn.softmax", {x});
    QCOMPARE(AttrInt(c, "axis"), int64_t(-1));
    try {
      MakeOpCall("relax.add", {x});
      QFAIL("no error");
    } catch (const DiagnosticError& e) {
      QCOMPARE(QString(e.what()), QString("add takes 2 arguments, got 1"));
    }
    try {
      MakeOpCall("relax.sum", {x}, {{"axes", Int(0)}});
      QFAIL("no error");
    } catch (const DiagnosticError& e) {
      QCOMPARE(QString(e.what()), QString("sum has no attribute 'axes'"));
    }
    try {
      MakeOpCall("relax.no_such_op", {x});
      QFAIL("no error");
    } catch (const DiagnosticError& e) {
      QCOMPARE(QString(e.what()), QString("unknown Relax op 'relax.no_such_op'"));
    }
  }

  void binaryBroadcasting() {
    tir::Var n = tir::MakeVar("n", kI64);
    tir::Var m = tir::MakeVar("m", kI64);
    const char* ops[] = {"relax.add",          "relax.subtract", "relax.multiply", "relax.divide",
                         "relax.floor_divide", "relax.power",    "relax.maximum",  "relax.minimum",
                         "relax.floor_mod",    "relax.mod",      "relax.atan2"};
    for (const char* op : ops) {
      CHECK_TYPE(Infer({T({n, I(1), I(4)}), T({I(3), I(1)})}, On(op)),
                 "R.Tensor((n, 3, 4), \"float32\")");
    }
    const char* compares[] = {"relax.equal",      "relax.not_equal", "relax.less",
                              "relax.less_equal", "relax.greater",   "relax.greater_equal"};
    for (const char* op : compares) {
      CHECK_TYPE(Infer({T({n, I(4)}), T({n, I(4)})}, On(op)), "R.Tensor((n, 4), \"bool\")");
    }
    for (const char* op : {"relax.logical_and", "relax.logical_or", "relax.logical_xor"}) {
      CHECK_TYPE(Infer({T({n, I(4)}, DataType::Bool()), T({I(4)}, DataType::Bool())}, On(op)),
                 "R.Tensor((n, 4), \"bool\")");
    }
    // The same symbolic dim broadcasts; different ones leave only the rank known.
    CHECK_TYPE(Infer({T({n}), T({n})}, On("relax.add")), "R.Tensor((n,), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(2)}), T({m, I(2)})}, On("relax.add")),
               "R.Tensor(\"float32\", ndim=2)");
    CHECK_TYPE(Infer({T({I(1), m}), T({n, I(1)})}, On("relax.add")),
               "R.Tensor((n, m), \"float32\")");
    CHECK_TYPE(Infer({MakeTensorType(kF32, 3), T({I(4)})}, On("relax.add")),
               "R.Tensor(\"float32\", ndim=3)");
    CHECK_TYPE(Infer({ir::MakePrimType(kI64), ir::MakePrimType(kI64)}, On("relax.multiply")),
               "R.Prim(\"int64\")");
    CHECK_ERROR(Infer({T({I(2), I(3)}), T({I(4)})}, On("relax.add")),
                "add: dimension 3 of the first operand (axis 1) and dimension 4 of the second "
                "operand (axis 0) cannot be broadcast");
    CHECK_ERROR(Infer({T({I(2)}), T({I(2)}, kI64)}, On("relax.add")),
                "add: data types float32 and int64 of the operands do not match");
    CHECK_ERROR(Infer({MakeShapeType(2), T({I(2)})}, On("relax.add")),
                "add: the first operand must be a tensor, got R.Shape(ndim=2)");
  }

  void unary() {
    tir::Var n = tir::MakeVar("n", kI64);
    for (const char* op : {"relax.negative", "relax.exp",  "relax.log",   "relax.sqrt",  "relax.rsqrt",
                           "relax.tanh",     "relax.sigmoid", "relax.abs", "relax.erf",   "relax.floor",
                           "relax.ceil",     "relax.trunc", "relax.sin",   "relax.cos",   "relax.tan",
                           "relax.sinh",     "relax.cosh",  "relax.asin",  "relax.acos",  "relax.atan",
                           "relax.asinh",    "relax.acosh", "relax.atanh", "relax.square", "relax.sign",
                           "relax.round"}) {
      CHECK_TYPE(Infer({T({n, I(8)})}, On(op)), "R.Tensor((n, 8), \"float32\")");
    }
    // Rounding, sign and square take integers too; the trigonometry does not.
    for (const char* op : {"relax.floor", "relax.sign", "relax.square", "relax.round"}) {
      CHECK_TYPE(Infer({T({I(2)}, kI64)}, On(op)), "R.Tensor((2,), \"int64\")");
    }
    CHECK_ERROR(Infer({T({I(2)}, kI64)}, On("relax.sin")),
                "sin: the operand must have a floating-point dtype, got int64");
    CHECK_TYPE(Infer({T({n}, DataType::Bool())}, On("relax.logical_not")), "R.Tensor((n,), \"bool\")");
    // isnan / isinf / isfinite: bools of the operand's shape, on integers too.
    for (const char* op : {"relax.isnan", "relax.isinf", "relax.isfinite"}) {
      CHECK_TYPE(Infer({T({n, I(8)})}, On(op)), "R.Tensor((n, 8), \"bool\")");
      CHECK_TYPE(Infer({T({I(2)}, kI64)}, On(op)), "R.Tensor((2,), \"bool\")");
    }
    CHECK_ERROR(Infer({T({I(2)}, kI64)}, On("relax.exp")),
                "exp: the operand must have a floating-point dtype, got int64");
    CHECK_TYPE(Infer({T({I(2)}, kI64)}, On("relax.abs")), "R.Tensor((2,), \"int64\")");
    CHECK_TYPE(Infer({T({n})},
                     [](const std::vector<Var>& p) {
                       return MakeOpCall("relax.clip", {p[0], Prim(0), Prim(6)});
                     }),
               "R.Tensor((n,), \"float32\")");
    CHECK_TYPE(
        Infer({T({n, I(2)})}, On("relax.astype", {{"dtype", DTypeAttr(DataType::Float(16))}})),
        "R.Tensor((n, 2), \"float16\")");
  }

  void nn() {
    tir::Var n = tir::MakeVar("n", kI64);
    for (const char* op : {"relax.nn.relu", "relax.nn.gelu", "relax.nn.silu", "relax.nn.softmax",
                           "relax.nn.log_softmax"}) {
      CHECK_TYPE(Infer({T({n, I(10)})}, On(op)), "R.Tensor((n, 10), \"float32\")");
    }
    CHECK_ERROR(Infer({T({n, I(10)})}, On("relax.nn.softmax", {{"axis", Int(2)}})),
                "nn.softmax: axis 2 is out of range for a tensor of rank 2");
    CHECK_TYPE(Infer({T({n, I(10)})}, On("relax.nn.leakyrelu", {{"alpha", ir::MakeFloat(0.2)}})),
               "R.Tensor((n, 10), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(10)})}, On("relax.nn.softplus")), "R.Tensor((n, 10), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(10)})}, On("relax.nn.pad", {{"pad_width", IntArray({1, 2, 0, 3})}})),
               "R.Tensor((n + 3, 13), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(10)})}, On("relax.nn.pad", {{"pad_width", IntArray({1, 2})}})),
                "nn.pad: pad_width must have 2 values per axis (4), got 2");
    CHECK_ERROR(Infer({T({n})}, On("relax.nn.pad", {{"pad_width", IntArray({1, 1})}, {"pad_mode", ir::MakeString("wrap")}})),
                "nn.pad: pad_mode must be constant, edge or reflect, got wrap");
    // Found by fuzz_onnx: two widths whose sum overflows int64 are refused, not wrapped.
    CHECK_ERROR(Infer({T({n, I(10)})}, On("relax.nn.pad", {{"pad_width", IntArray({0, 0, 7810774473069559809, 7219670903518420839})}})),
                "nn.pad: the padding of axis 1 adds more than 2^63 - 1 elements");
    // prelu: alpha is 1-D with the data's extent on `axis`.
    CHECK_TYPE(Infer({T({n, I(3), I(4)}), T({I(3)})}, On("relax.nn.prelu")),
               "R.Tensor((n, 3, 4), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(3), I(4)}), T({I(4)})}, On("relax.nn.prelu", {{"axis", Int(-1)}})),
               "R.Tensor((n, 3, 4), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(3), I(4)}), T({I(4)})}, On("relax.nn.prelu")),
                "nn.prelu: alpha has 4 values where the data has 3 on axis 1");
    CHECK_ERROR(Infer({T({n, I(3)}), T({I(1), I(3)})}, On("relax.nn.prelu")),
                "nn.prelu: alpha must be 1-D, got rank 2");
    CHECK_TYPE(Infer({T({n, I(10)})}, On("relax.nn.dropout")),
               "R.Tuple(R.Tensor((n, 10), \"float32\"), R.Tensor((n, 10), \"float32\"))");
  }

  void conv2d() {
    tir::Var n = tir::MakeVar("n", kI64);
    // 32x32 input, 3x3 kernel: stride 1 no padding -> 30; stride 2 padding 1 -> 16;
    // dilation 2 -> effective kernel 5 -> 28.
    CHECK_TYPE(
        Infer({T({n, I(3), I(32), I(32)}), T({I(16), I(3), I(3), I(3)})}, On("relax.nn.conv2d")),
        "R.Tensor((n, 16, 30, 30), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(3), I(32), I(32)}), T({I(16), I(3), I(3), I(3)})},
                     On("relax.nn.conv2d",
                        {{"strides", IntArray({2, 2})}, {"padding", IntArray({1, 1, 1, 1})}})),
               "R.Tensor((1, 16, 16, 16), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(3), I(32), I(32)}), T({I(16), I(3), I(3), I(3)})},
                     On("relax.nn.conv2d", {{"dilation", IntArray({2, 2})}})),
               "R.Tensor((1, 16, 28, 28), \"float32\")");
    // Asymmetric padding (top, left, bottom, right) and a rectangular stride.
    CHECK_TYPE(Infer({T({I(1), I(3), I(10), I(10)}), T({I(4), I(3), I(3), I(3)})},
                     On("relax.nn.conv2d",
                        {{"strides", IntArray({1, 2})}, {"padding", IntArray({0, 1, 2, 1})}})),
               "R.Tensor((1, 4, 10, 5), \"float32\")");
    // NHWC data with an OHWI kernel, grouped.
    CHECK_TYPE(Infer({T({I(2), I(8), I(8), I(4)}), T({I(6), I(3), I(3), I(2)})},
                     On("relax.nn.conv2d", {{"groups", Int(2)},
                                            {"data_layout", ir::MakeString("NHWC")},
                                            {"kernel_layout", ir::MakeString("OHWI")},
                                            {"out_layout", ir::MakeString("NHWC")}})),
               "R.Tensor((2, 6, 6, 6), \"float32\")");
    // Without out_layout the output takes the data's layout (TVM's out_layout=None).
    CHECK_TYPE(Infer({T({I(2), I(8), I(8), I(4)}), T({I(6), I(3), I(3), I(4)})},
                     On("relax.nn.conv2d", {{"data_layout", ir::MakeString("NHWC")},
                                            {"kernel_layout", ir::MakeString("OHWI")}})),
               "R.Tensor((2, 6, 6, 6), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(9), I(9), I(32)})},
                     On("relax.nn.max_pool2d", {{"pool_size", IntArray({3, 3})},
                                                {"strides", IntArray({2, 2})},
                                                {"layout", ir::MakeString("NHWC")}})),
               "R.Tensor((1, 4, 4, 32), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(9), I(9), I(32)})},
                     On("relax.nn.avg_pool2d", {{"layout", ir::MakeString("NHWC")},
                                                {"out_layout", ir::MakeString("NCHW")}})),
               "R.Tensor((1, 32, 9, 9), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(6), I(6), I(8)})},
                     On("relax.nn.adaptive_avg_pool2d", {{"output_size", IntArray({1, 1})},
                                                         {"layout", ir::MakeString("NHWC")}})),
               "R.Tensor((1, 1, 1, 8), \"float32\")");
    // A symbolic spatial size gives a symbolic output size.
    CHECK_TYPE(Infer({T({I(1), I(3), n, n}), T({I(8), I(3), I(3), I(3)})},
                     On("relax.nn.conv2d", {{"padding", IntArray({1, 1, 1, 1})}})),
               "R.Tensor((1, 8, n, n), \"float32\")");
    CHECK_ERROR(
        Infer({T({I(1), I(3), I(8), I(8)}), T({I(8), I(4), I(3), I(3)})}, On("relax.nn.conv2d")),
        "nn.conv2d: the data has 3 input channels but the weight expects 4 (4 per "
        "group x 1 groups)");
    CHECK_ERROR(Infer({T({I(3), I(8), I(8)}), T({I(8), I(3), I(3), I(3)})}, On("relax.nn.conv2d")),
                "nn.conv2d: the data must be 4-D, got rank 3");
  }

  // conv2d_transpose: (in - 1) * stride - pads + dilation * (k - 1) + output_padding + 1, the
  // output channels the weight's O times the groups.
  void conv2dTranspose() {
    tir::Var n = tir::MakeVar("n", kI64);
    CHECK_TYPE(Infer({T({n, I(4), I(8), I(8)}), T({I(4), I(3), I(3), I(3)})},
                     On("relax.nn.conv2d_transpose")),
               "R.Tensor((n, 3, 10, 10), \"float32\")");
    // stride 2, padding (1, 0, 0, 1), output_padding (1, 0), dilation (1, 2), 2 groups:
    // h = 7 * 2 - 1 + 2 + 1 + 1 = 17, w = 7 * 1 - 1 + 4 + 0 + 1 = 11.
    CHECK_TYPE(Infer({T({I(1), I(4), I(8), I(8)}), T({I(4), I(3), I(3), I(3)})},
                     On("relax.nn.conv2d_transpose", {{"strides", IntArray({2, 1})},
                                                      {"padding", IntArray({1, 0, 0, 1})},
                                                      {"output_padding", IntArray({1, 0})},
                                                      {"dilation", IntArray({1, 2})},
                                                      {"groups", Int(2)}})),
               "R.Tensor((1, 6, 17, 11), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(2), n, I(5)}), T({I(2), I(1), I(2), I(2)})},
                     On("relax.nn.conv2d_transpose", {{"strides", IntArray({2, 2})}})),
               "R.Tensor((1, 1, n * 2, 10), \"float32\")");
    CHECK_ERROR(Infer({T({I(1), I(3), I(8), I(8)}), T({I(4), I(3), I(3), I(3)})},
                      On("relax.nn.conv2d_transpose")),
                "nn.conv2d_transpose: the data has 3 input channels but the weight expects 4");
    CHECK_ERROR(Infer({T({I(1), I(4), I(8), I(8)}), T({I(4), I(3), I(3), I(3)})},
                      On("relax.nn.conv2d_transpose", {{"output_padding", IntArray({1, 1})}})),
                "nn.conv2d_transpose: output_padding must be smaller than the stride or the dilation, got 1");
  }

  void pooling() {
    CHECK_TYPE(Infer({T({I(1), I(16), I(32), I(32)})},
                     On("relax.nn.max_pool2d",
                        {{"pool_size", IntArray({2, 2})}, {"strides", IntArray({2, 2})}})),
               "R.Tensor((1, 16, 16, 16), \"float32\")");
    // ceil_mode covers the last partial window: (7 - 2) / 2 rounded up + 1 = 4.
    CHECK_TYPE(Infer({T({I(1), I(1), I(7), I(7)})},
                     On("relax.nn.avg_pool2d", {{"pool_size", IntArray({2, 2})},
                                                {"strides", IntArray({2, 2})},
                                                {"ceil_mode", ir::MakeBool(true)}})),
               "R.Tensor((1, 1, 4, 4), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(1), I(7), I(7)})},
                     On("relax.nn.avg_pool2d",
                        {{"pool_size", IntArray({2, 2})}, {"strides", IntArray({2, 2})}})),
               "R.Tensor((1, 1, 3, 3), \"float32\")");
    CHECK_TYPE(Infer({T({I(2), I(16), I(9), I(9)})},
                     On("relax.nn.adaptive_avg_pool2d", {{"output_size", IntArray({1, 1})}})),
               "R.Tensor((2, 16, 1, 1), \"float32\")");
    CHECK_TYPE(Infer({T({I(2), I(16), I(9), I(9)})}, On("relax.nn.adaptive_avg_pool2d")),
               "R.Tensor((2, 16, 9, 9), \"float32\")");
  }

  void normalization() {
    tir::Var n = tir::MakeVar("n", kI64);
    CHECK_TYPE(Infer({T({n, I(8), I(4), I(4)}), T({I(8)}), T({I(8)}), T({I(8)}), T({I(8)})},
                     On("relax.nn.batch_norm")),
               "R.Tuple(R.Tensor((n, 8, 4, 4), \"float32\"), R.Tensor((8,), \"float32\"), "
               "R.Tensor((8,), \"float32\"))");
    CHECK_ERROR(Infer({T({n, I(8), I(4), I(4)}), T({I(7)}), T({I(8)}), T({I(8)}), T({I(8)})},
                      On("relax.nn.batch_norm")),
                "nn.batch_norm: the gamma has dimension 7 where the data has 8 (axis 1)");
    CHECK_TYPE(Infer({T({n, I(16)}), T({I(16)}), T({I(16)})},
                     On("relax.nn.layer_norm", {{"axes", IntArray({-1})}})),
               "R.Tensor((n, 16), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(16)}), T({I(16)})}, On("relax.nn.rms_norm")),
               "R.Tensor((n, 16), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(16)}), T({I(16), I(1)})}, On("relax.nn.rms_norm")),
                "nn.rms_norm: the weight must have rank 1, got 2");
    CHECK_TYPE(Infer({T({n, I(8), I(4), I(4)}), T({I(8)}), T({I(8)})},
                     On("relax.nn.group_norm", {{"num_groups", Int(4)}, {"channel_axis", Int(1)},
                                                {"axes", IntArray({2, 3})}})),
               "R.Tensor((n, 8, 4, 4), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(8), I(4)}), T({I(8)}), T({I(8)})},
                      On("relax.nn.group_norm", {{"num_groups", Int(3)}, {"axes", IntArray({2})}})),
                "nn.group_norm: the 8 channels are not divisible by 3 groups");
    CHECK_ERROR(Infer({T({n, I(8), I(4)}), T({I(8)}), T({I(8)})},
                      On("relax.nn.group_norm", {{"num_groups", Int(2)}, {"axes", IntArray({1, 2})}})),
                "nn.group_norm: channel_axis 1 must not be among the axes");
    CHECK_TYPE(Infer({T({n, I(4), I(5)}), T({I(4)}), T({I(4)})},
                     On("relax.nn.instance_norm", {{"axes", IntArray({-1})}})),
               "R.Tensor((n, 4, 5), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(4), I(5)}), T({I(5)}), T({I(4)})},
                      On("relax.nn.instance_norm", {{"axes", IntArray({2})}})),
                "nn.instance_norm: the gamma has dimension 5 where the data has 4 (axis 1)");
  }

  void scatter() {
    tir::Var n = tir::MakeVar("n", kI64);
    auto I64T = [](std::vector<PrimExpr> dims) { return T(std::move(dims), DataType::Int(64)); };
    CHECK_TYPE(Infer({T({n, I(5)}), I64T({n, I(2)}), T({n, I(2)})},
                     On("relax.scatter_elements", {{"axis", Int(1)}, {"reduction", ir::MakeString("add")}})),
               "R.Tensor((n, 5), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(5)}), I64T({n, I(2)}), T({n, I(3)})}, On("relax.scatter_elements")),
                "scatter_elements: the updates have shape (n, 3) where (n, 2) is expected");
    CHECK_ERROR(Infer({T({n, I(5)}), I64T({n, I(2)}), T({n, I(2)})},
                      On("relax.scatter_elements", {{"reduction", ir::MakeString("sub")}})),
                "scatter_elements: reduction must be update, add, mul, mean, max or min, got sub");
    CHECK_ERROR(Infer({T({n, I(5)}), T({n, I(2)}), T({n, I(2)})}, On("relax.scatter_elements")),
                "scatter_elements: the indices must have an integer dtype, got float32");
    CHECK_TYPE(Infer({T({n, I(4), I(3)}), I64T({I(2), I(1)}), T({I(2), I(4), I(3)})}, On("relax.scatter_nd")),
               "R.Tensor((n, 4, 3), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(4), I(3)}), I64T({I(2), I(2)}), T({I(2), I(4)})}, On("relax.scatter_nd")),
                "scatter_nd: the updates have shape (2, 4) where (2, 3) is expected");
    CHECK_ERROR(Infer({T({n, I(4)}), I64T({I(2), I(3)}), T({I(2)})}, On("relax.scatter_nd")),
                "scatter_nd: the indices' last dimension 3 must be in [1, 2]");
  }

  void quantization() {
    tir::Var n = tir::MakeVar("n", kI64);
    auto Of = [](std::vector<PrimExpr> dims, DataType t) { return T(std::move(dims), t); };
    CHECK_TYPE(Infer({T({n, I(4)}), T({I(4)}), Of({I(4)}, DataType::Int(8))},
                     On("relax.quantize", {{"axis", Int(1)}, {"out_dtype", DTypeAttr(DataType::Int(8))}})),
               "R.Tensor((n, 4), \"int8\")");
    CHECK_TYPE(Infer({Of({n, I(4)}, DataType::UInt(8)), T({}), Of({}, DataType::UInt(8))}, On("relax.dequantize")),
               "R.Tensor((n, 4), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(4)}), T({I(3)}), Of({I(4)}, DataType::Int(8))},
                      On("relax.quantize", {{"axis", Int(1)}})),
                "quantize: the scale has 3 values where the data has 4 on axis 1");
    CHECK_ERROR(Infer({T({n, I(4)}), T({}), Of({}, DataType::Int(8))},
                      On("relax.quantize", {{"out_dtype", DTypeAttr(DataType::Float(32))}})),
                "quantize: out_dtype must be int8, uint8, int16 or uint16, got float32");
    CHECK_ERROR(Infer({T({n, I(4)}), T({}), Of({}, DataType::Int(8))}, On("relax.dequantize")),
                "dequantize: the data must have an integer dtype, got float32");
  }

  void conv1d() {
    tir::Var n = tir::MakeVar("n", kI64), w = tir::MakeVar("w", kI64);
    CHECK_TYPE(Infer({T({n, I(4), I(10)}), T({I(6), I(2), I(3)})},
                     On("relax.nn.conv1d", {{"strides", IntArray({2})}, {"padding", IntArray({1, 2})}, {"groups", Int(2)}})),
               "R.Tensor((n, 6, 6), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(4), w}), T({I(6), I(4), I(3)})}, On("relax.nn.conv1d")),
               "R.Tensor((n, 6, w - 2), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(4), I(10)}), T({I(6), I(3), I(3)})}, On("relax.nn.conv1d")),
                "nn.conv1d: the data has 4 input channels but the weight expects 3 (3 per group x 1 groups)");
    CHECK_ERROR(Infer({T({n, I(4), I(10), I(1)}), T({I(6), I(4), I(3)})}, On("relax.nn.conv1d")),
                "nn.conv1d: the data must be 3-D, got rank 4");
  }

  // conv3d: one definition with conv1d and conv2d (per-axis strides, dilation, befores-then-afters
  // padding, groups, any permutation of the layout letters).
  void conv3d() {
    tir::Var n = tir::MakeVar("n", kI64), d = tir::MakeVar("d", kI64);
    // D: (8 + 2 - 3) + 1 = 8; H: (9 + 2 - 3) / 2 + 1 = 5; W: (10 + 3 - 5) / 3 + 1 = 3.
    CHECK_TYPE(Infer({T({n, I(4), I(8), I(9), I(10)}), T({I(6), I(2), I(3), I(3), I(3)})},
                     On("relax.nn.conv3d", {{"strides", IntArray({1, 2, 3})},
                                            {"padding", IntArray({1, 0, 0, 1, 2, 3})},
                                            {"dilation", IntArray({1, 1, 2})},
                                            {"groups", Int(2)}})),
               "R.Tensor((n, 6, 8, 5, 3), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(3), d, I(16), I(16)}), T({I(8), I(3), I(3), I(3), I(3)})},
                     On("relax.nn.conv3d", {{"padding", IntArray({1})}})),
               "R.Tensor((1, 8, d, 16, 16), \"float32\")");
    CHECK_TYPE(Infer({T({I(2), I(5), I(6), I(7), I(4)}), T({I(2), I(2), I(2), I(4), I(8)})},
                     On("relax.nn.conv3d", {{"data_layout", ir::MakeString("NDHWC")},
                                            {"kernel_layout", ir::MakeString("DHWIO")},
                                            {"out_layout", ir::MakeString("NCDHW")}})),
               "R.Tensor((2, 8, 4, 5, 6), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(2), I(4), I(4), I(4)}, DataType::Int(32)), T({I(3), I(2), I(2), I(2), I(2)}, DataType::Int(32))},
                     On("relax.nn.conv3d", {{"out_dtype", DTypeAttr(DataType::Int(32))}})),
               "R.Tensor((1, 3, 3, 3, 3), \"int32\")");
    CHECK_ERROR(Infer({T({I(1), I(3), I(8), I(8)}), T({I(8), I(3), I(3), I(3), I(3)})}, On("relax.nn.conv3d")),
                "nn.conv3d: the data must be 5-D, got rank 4");
    CHECK_ERROR(Infer({T({I(1), I(3), I(8), I(8), I(8)}), T({I(8), I(3), I(3), I(3), I(3)})},
                      On("relax.nn.conv3d", {{"padding", IntArray({1, 1})}})),
                "nn.conv3d: padding must have 1, 3 or 6 values, got 2");
    CHECK_ERROR(Infer({T({I(1), I(3), I(8), I(8), I(8)}), T({I(8), I(3), I(3), I(3), I(3)})},
                      On("relax.nn.conv3d", {{"strides", IntArray({1, 2})}})),
                "nn.conv3d: strides must have 1 or 3 values, got 2");
    CHECK_ERROR(Infer({T({I(1), I(3), I(8), I(8), I(8)}), T({I(8), I(3), I(3), I(3), I(3)})},
                      On("relax.nn.conv3d", {{"data_layout", ir::MakeString("NCDHX")}})),
                "nn.conv3d: data layout NCDHX is not supported (expected a permutation of NCDHW, with sub-axes such as NCDHW4c)");
    CHECK_ERROR(Infer({T({I(1), I(4), I(8), I(8), I(8)}), T({I(8), I(3), I(3), I(3), I(3)})}, On("relax.nn.conv3d")),
                "nn.conv3d: the data has 4 input channels but the weight expects 3 (3 per group x 1 groups)");
    // Padding given as one value, or one per axis, is completed to the befores and afters (TVM's
    // GetCompletePadding3D), for every op with a window.
    BlockBuilder bb;
    Var x = MakeVar("x", T({I(1), I(3), I(8), I(8), I(8)}));
    for (auto [name, padding, full] : {std::tuple{"relax.nn.max_pool3d", std::vector<int64_t>{1}, "[1, 1, 1, 1, 1, 1]"},
                                       std::tuple{"relax.nn.avg_pool3d", std::vector<int64_t>{1, 2, 0}, "[1, 2, 0, 1, 2, 0]"}}) {
      Expr normalized = bb.Normalize(MakeOpCall(name, {x}, {{"padding", IntArray(padding)}}));
      auto* call = normalized.as<CallNode>();
      QVERIFY(call);
      std::string text = "[";
      for (int64_t v : AttrInts(GetRef(call), "padding")) text += (text.size() > 1 ? ", " : "") + std::to_string(v);
      QCOMPARE(QString::fromStdString(text + "]"), QString(full));
    }
  }

  // conv1d_transpose: (in - 1) * stride - pads + dilation * (k - 1) + output_padding + 1.
  void conv1dTranspose() {
    tir::Var n = tir::MakeVar("n", kI64), w = tir::MakeVar("w", kI64);
    CHECK_TYPE(Infer({T({n, I(4), I(5)}), T({I(4), I(3), I(3)})}, On("relax.nn.conv1d_transpose")),
               "R.Tensor((n, 3, 7), \"float32\")");
    // 4 * 2 - 1 + 2 * 2 + 1 + 1 = 13, 3 * 2 output channels.
    CHECK_TYPE(Infer({T({I(1), I(4), I(5)}), T({I(4), I(3), I(3)})},
                     On("relax.nn.conv1d_transpose", {{"strides", IntArray({2})},
                                                      {"padding", IntArray({1, 0})},
                                                      {"output_padding", IntArray({1})},
                                                      {"dilation", IntArray({2})},
                                                      {"groups", Int(2)}})),
               "R.Tensor((1, 6, 13), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(2), w}), T({I(2), I(1), I(2)})},
                     On("relax.nn.conv1d_transpose", {{"strides", IntArray({2})}})),
               "R.Tensor((1, 1, w * 2), \"float32\")");
    CHECK_ERROR(Infer({T({I(1), I(4), I(5)}), T({I(4), I(3), I(3)})},
                      On("relax.nn.conv1d_transpose", {{"output_padding", IntArray({2})}})),
                "nn.conv1d_transpose: output_padding must be smaller than the stride or the dilation, got 2");
    CHECK_ERROR(Infer({T({I(1), I(4), I(5)}), T({I(4), I(3), I(3)})},
                      On("relax.nn.conv1d_transpose", {{"data_layout", ir::MakeString("NCH")}})),
                "nn.conv1d_transpose: data layout NCH is not supported (expected a permutation of NCW, with sub-axes such as NCW4c)");
    CHECK_ERROR(Infer({T({I(1), I(3), I(5)}), T({I(4), I(3), I(3)})}, On("relax.nn.conv1d_transpose")),
                "nn.conv1d_transpose: the data has 3 input channels but the weight expects 4");
    // conv3d_transpose, the same definition over three axes: (in - 1) * 2 + 2 each.
    CHECK_TYPE(Infer({T({I(1), I(4), I(3), I(4), I(5)}), T({I(4), I(3), I(2), I(2), I(2)})},
                     On("relax.nn.conv3d_transpose", {{"strides", IntArray({2})}})),
               "R.Tensor((1, 3, 6, 8, 10), \"float32\")");
    CHECK_ERROR(Infer({T({I(1), I(4), I(3), I(4)}), T({I(4), I(3), I(2), I(2), I(2)})}, On("relax.nn.conv3d_transpose")),
                "nn.conv3d_transpose: the data must be 5-D, got rank 4");
    // The data's vdevice carries over, as TVM's inference has it.
    ir::VDevice cuda = ir::MakeVDevice("cuda", 0);
    CHECK_TYPE(Infer({WithVDevice(T({I(2), I(3), I(28)}), cuda), T({I(3), I(4), I(3)})}, On("relax.nn.conv1d_transpose")),
               "R.Tensor((2, 4, 30), \"float32\", vdevice=I.vdevice(\"cuda\", 0, \"global\"))");
    CHECK_TYPE(Infer({WithVDevice(T({I(1), I(2), I(4), I(4), I(4)}), cuda)}, On("relax.nn.max_pool3d")),
               "R.Tensor((1, 2, 4, 4, 4), \"float32\", vdevice=I.vdevice(\"cuda\", 0, \"global\"))");
  }

  // Pooling over 1 and 3 spatial axes, with TVM's per-rank defaults.
  void pooling1d3d() {
    tir::Var n = tir::MakeVar("n", kI64);
    CHECK_TYPE(Infer({T({n, I(3), I(11)})}, On("relax.nn.max_pool1d", {{"pool_size", IntArray({3})},
                                                                       {"strides", IntArray({2})},
                                                                       {"padding", IntArray({1})}})),
               "R.Tensor((n, 3, 6), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(1), I(8)})}, On("relax.nn.max_pool1d", {{"pool_size", IntArray({3})},
                                                                         {"strides", IntArray({2})},
                                                                         {"ceil_mode", ir::MakeBool(true)}})),
               "R.Tensor((1, 1, 4), \"float32\")");
    CHECK_TYPE(Infer({T({I(2), I(9), I(4)})}, On("relax.nn.avg_pool1d", {{"pool_size", IntArray({2})},
                                                                         {"strides", IntArray({2})},
                                                                         {"layout", ir::MakeString("NWC")}})),
               "R.Tensor((2, 4, 4), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(2), I(8), I(8), I(8)})},
                     On("relax.nn.max_pool3d", {{"pool_size", IntArray({2})}, {"strides", IntArray({2})}})),
               "R.Tensor((1, 2, 4, 4, 4), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(2), I(8), I(8), I(8)})},
                     On("relax.nn.max_pool3d", {{"pool_size", IntArray({3, 3, 3})},
                                                {"strides", IntArray({2, 2, 2})},
                                                {"padding", IntArray({0, 1, 0, 1, 1, 0})}})),
               "R.Tensor((1, 2, 4, 4, 3), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(5), I(5), I(5), I(3)})},
                     On("relax.nn.avg_pool3d", {{"pool_size", IntArray({3})},
                                                {"padding", IntArray({1})},
                                                {"layout", ir::MakeString("NDHWC")}})),
               "R.Tensor((1, 5, 5, 5, 3), \"float32\")");
    CHECK_ERROR(Infer({T({I(1), I(2), I(8), I(8), I(8)})},
                      On("relax.nn.max_pool3d", {{"pool_size", IntArray({2, 2})}})),
                "nn.max_pool3d: pool_size must have 1 or 3 values, got 2");
    CHECK_ERROR(Infer({T({I(1), I(2), I(8), I(8)})}, On("relax.nn.avg_pool1d")),
                "nn.avg_pool1d: the data must be 3-D, got rank 4");
    // avg_pool1d and avg_pool3d count the padding unless told otherwise, avg_pool2d does not.
    for (const char* name : {"relax.nn.avg_pool1d", "relax.nn.avg_pool2d", "relax.nn.avg_pool3d"}) {
      Call call = MakeOpCall(name, {MakeVar("x", T({I(1), I(1), I(4), I(4), I(4)}))});
      bool include = call->attrs.at("count_include_pad").as<ir::BoolObj>()->value;
      QCOMPARE(include, std::string(name) != "relax.nn.avg_pool2d");
    }
  }

  // nonzero: rank 2, int64, its count known only when it runs.
  void nonzero() {
    tir::Var n = tir::MakeVar("n", kI64);
    CHECK_TYPE(Infer({T({n, I(4)})}, On("relax.nonzero")), "R.Tensor(\"int64\", ndim=2)");
    CHECK_TYPE(Infer({T({I(5)}, DataType::Bool())}, On("relax.nonzero")), "R.Tensor(\"int64\", ndim=2)");
    CHECK_ERROR(Infer({MakeShapeType({n})}, On("relax.nonzero")), "nonzero: the input must be a tensor, got R.Shape([n])");
    QCOMPARE(QString::fromStdString(FindOp("relax.nonzero")->call_packed), QString("relax.run.nonzero"));
  }

  // one_hot: the depth inserted at the (normalized) axis, the dtype the values'.
  void oneHot() {
    tir::Var n = tir::MakeVar("n", kI64);
    auto call = [](int64_t depth, int64_t axis, Expr on, Expr off) {
      return [=](const std::vector<Var>& p) {
        return MakeOpCall("relax.one_hot", {p[0], on, off}, {{"depth", Int(depth)}, {"axis", Int(axis)}});
      };
    };
    Expr on = MakePrimValue(tir::MakeFloatImm(kF32, 1.0)), off = MakePrimValue(tir::MakeFloatImm(kF32, 0.0));
    CHECK_TYPE(Infer({T({n, I(3)}, kI64)}, call(5, -1, on, off)), "R.Tensor((n, 3, 5), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(3)}, DataType::Int(32))}, call(4, 0, Prim(1), Prim(0))), "R.Tensor((4, n, 3), \"int64\")");
    CHECK_TYPE(Infer({T({n, I(3)}, kI64)}, call(2, -2, on, off)), "R.Tensor((n, 2, 3), \"float32\")");
    CHECK_ERROR(Infer({T({I(3)})}, call(2, -1, on, off)), "one_hot: the indices must have an integer dtype, got float32");
    CHECK_ERROR(Infer({T({I(3)}, kI64)}, call(2, -1, on, Prim(0))),
                "one_hot: on_value (float32) and off_value (int64) must have one dtype");
    CHECK_ERROR(Infer({T({I(3)}, kI64)}, call(0, -1, on, off)), "one_hot: depth must be positive, got 0");
    CHECK_ERROR(Infer({T({I(3)}, kI64)}, call(2, 2, on, off)), "one_hot: axis 2 is out of range for a tensor of rank 2");
  }

  // dynamic_strided_slice: the data's rank, no shape; begin / end / strides one int64 per axis.
  // tensor_to_shape: a shape of the tensor's length.
  void dynamicStridedSlice() {
    tir::Var n = tir::MakeVar("n", kI64);
    TensorType three = T({I(3)}, kI64);
    CHECK_TYPE(Infer({T({n, I(4), I(5)}), three, three, three}, On("relax.dynamic_strided_slice")),
               "R.Tensor(\"float32\", ndim=3)");
    CHECK_ERROR(Infer({T({n, I(4)}), three, three, three}, On("relax.dynamic_strided_slice")),
                "dynamic_strided_slice: begin has 3 values for data of rank 2");
    CHECK_ERROR(Infer({T({n, I(4), I(5)}), T({I(3)}, DataType::Int(32)), three, three}, On("relax.dynamic_strided_slice")),
                "dynamic_strided_slice: begin must be int64, got int32");
    CHECK_ERROR(Infer({T({n, I(4), I(5)}), three, T({n}, kI64), three}, On("relax.dynamic_strided_slice")),
                "dynamic_strided_slice: end must have a static length");
    CHECK_TYPE(Infer({three}, On("relax.tensor_to_shape")), "R.Shape(ndim=3)");
    CHECK_TYPE(Infer({T({n}, kI64)}, On("relax.tensor_to_shape")), "R.Shape()");
    CHECK_ERROR(Infer({T({I(2), I(2)}, kI64)}, On("relax.tensor_to_shape")),
                "tensor_to_shape: the argument must be 1-D, got rank 2");
  }

  void einsum() {
    tir::Var n = tir::MakeVar("n", kI64);
    auto tuple_of = [](std::string subscripts) {
      return [subscripts](const std::vector<Var>& p) {
        return MakeOpCall("relax.einsum", {MakeTuple(std::vector<Expr>(p.begin(), p.end()))},
                          {{"subscripts", ir::MakeString(subscripts)}});
      };
    };
    CHECK_TYPE(Infer({T({n, I(3), I(4)}), T({n, I(4), I(5)})}, tuple_of("bij,bjk->bik")),
               "R.Tensor((n, 3, 5), \"float32\")");
    CHECK_TYPE(Infer({T({I(3), I(4)}), T({I(4)})}, tuple_of("ij,j")), "R.Tensor((3,), \"float32\")");
    CHECK_TYPE(Infer({T({I(4), I(4)})}, tuple_of("ii")), "R.Tensor((), \"float32\")");
    CHECK_ERROR(Infer({T({I(3), I(4)}), T({I(5), I(2)})}, tuple_of("ij,jk->ik")),
                "einsum: label 'j' has dims 4 and 5");
    CHECK_ERROR(Infer({T({I(3), I(4)})}, tuple_of("...ij->ji")),
                "einsum: subscripts '...ij->ji': an ellipsis (...) is not supported");
    CHECK_ERROR(Infer({T({I(3), I(4)})}, tuple_of("ijk->k")), "einsum: the first operand has rank 2 but subscripts 'ijk'");
  }

  void arange() {
    tir::Var n = tir::MakeVar("n", kI64);
    auto range = [](PrimExpr a, PrimExpr b, PrimExpr c, AttrMap attrs) {
      return [=](const std::vector<Var>&) {
        return MakeOpCall("relax.arange", {MakePrimValue(a), MakePrimValue(b), MakePrimValue(c)}, attrs);
      };
    };
    CHECK_TYPE(Infer({}, range(I(0), n, I(1), {{"dtype", DTypeAttr(DataType::Int(64))}})), "R.Tensor((n,), \"int64\")");
    CHECK_TYPE(Infer({}, range(I(1), n, I(2), {})), "R.Tensor((n // 2,), \"int64\")");
    CHECK_TYPE(Infer({}, range(I(0), n, I(3), {})), "R.Tensor(((n + 2) // 3,), \"int64\")");
    CHECK_TYPE(Infer({}, range(I(2), I(11), I(3), {{"dtype", DTypeAttr(DataType::Float(32))}})),
               "R.Tensor((3,), \"float32\")");
    CHECK_TYPE(Infer({}, range(tir::MakeFloatImm(DataType::Float(32), 0.0), tir::MakeFloatImm(DataType::Float(32), 1.0),
                               tir::MakeFloatImm(DataType::Float(32), 0.25), {})),
               "R.Tensor((4,), \"float32\")");
    CHECK_ERROR(Infer({}, range(I(0), n, I(0), {})), "arange: the step must not be 0");
    // Constant bounds: the exact count, an empty range is 0 elements (not negative), counting down
    // works, and bounds at int64's ends neither overflow nor pass for a real size.
    CHECK_TYPE(Infer({}, range(I(5), I(0), I(1), {})), "R.Tensor((0,), \"int64\")");
    CHECK_TYPE(Infer({}, range(I(10), I(0), I(-3), {})), "R.Tensor((4,), \"int64\")");
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
    CHECK_TYPE(Infer({}, range(I(kMax - 1), I(kMax), I(1), {})), "R.Tensor((1,), \"int64\")");
    CHECK_ERROR(Infer({}, range(I(kMin), I(kMax), I(1), {})), "arange: the range has more than 2^63 - 1 elements");
    // A symbolic end after a start at int64's lower end: the count stays symbolic, without overflow.
    QCOMPARE(QString::fromStdString(Infer({}, range(I(kMin), n, I(1), {})).error), QString());
  }

  // tril / triu keep the input's type; k is an integer R.prim_value.
  void trilTriu() {
    tir::Var n = tir::MakeVar("n", kI64);
    for (const char* op : {"relax.tril", "relax.triu"}) {
      CHECK_TYPE(Infer({T({n, I(3), I(4)})}, [=](const std::vector<Var>& p) { return MakeOpCall(op, {p[0], Prim(1)}); }),
                 "R.Tensor((n, 3, 4), \"float32\")");
      CHECK_TYPE(Infer({T({I(3), n}, kI64)}, [=](const std::vector<Var>& p) { return MakeOpCall(op, {p[0], MakePrimValue(n)}); }),
                 "R.Tensor((3, n), \"int64\")");
    }
    CHECK_ERROR(Infer({T({I(4)})}, [](const std::vector<Var>& p) { return MakeOpCall("relax.tril", {p[0], Prim(0)}); }),
                "tril: the input must have at least two axes, got rank 1");
    CHECK_ERROR(Infer({T({I(4), I(4)})},
                      [](const std::vector<Var>& p) {
                        return MakeOpCall("relax.triu", {p[0], MakePrimValue(tir::MakeFloatImm(DataType::Float(32), 1.0))});
                      }),
                "triu: the diagonal offset k must be an integer R.prim_value");
  }

  void attention() {
    tir::Var n = tir::MakeVar("n", kI64), s = tir::MakeVar("s", kI64);
    auto attn = [](std::vector<size_t> args, AttrMap attrs = {}) {
      return [=](const std::vector<Var>& p) {
        std::vector<Expr> call_args;
        for (size_t a : args) call_args.push_back(p[a]);
        return MakeOpCall(args.size() == 4 ? "relax.nn.attention_bias" : "relax.nn.attention", call_args, attrs);
      };
    };
    // Grouped-query heads: 8 query heads over 2 key/value heads; a symbolic batch and length.
    CHECK_TYPE(Infer({T({n, s, I(8), I(64)}), T({n, I(32), I(2), I(64)}), T({n, I(32), I(2), I(16)})}, attn({0, 1, 2})),
               "R.Tensor((n, s, 8, 16), \"float32\")");
    CHECK_TYPE(Infer({T({I(2), I(4), I(8), I(64)}), T({I(2), I(6), I(8), I(64)}), T({I(2), I(6), I(8), I(64)}),
                      T({I(1), I(8), I(4), I(6)})},
                     attn({0, 1, 2, 3}, {{"causal_mask", ir::MakeString("BottomRight")}})),
               "R.Tensor((2, 4, 8, 64), \"float32\")");
    CHECK_ERROR(Infer({T({I(2), I(4), I(8), I(64)}), T({I(2), I(6), I(8), I(64)}), T({I(2), I(6), I(8), I(64)}),
                       T({I(1), I(8), I(4), I(5)})},
                      attn({0, 1, 2, 3})),
                "nn.attention_bias: the key sequence length (6) and the bias sequence length (5) must be the same");
    CHECK_ERROR(Infer({T({I(2), I(4), I(6), I(64)}), T({I(2), I(6), I(4), I(64)}), T({I(2), I(6), I(4), I(64)})}, attn({0, 1, 2})),
                "nn.attention: the query's number of heads (6) must be a multiple of the key's (4)");
    CHECK_ERROR(Infer({T({I(3), I(4), I(8), I(64)}), T({I(2), I(6), I(8), I(64)}), T({I(2), I(6), I(8), I(64)})}, attn({0, 1, 2})),
                "nn.attention: the query batch size (3) and the key batch size (2) must be the same");
  }

  void resize2d() {
    tir::Var n = tir::MakeVar("n", kI64), h = tir::MakeVar("h", kI64);
    auto resize_to = [](std::vector<PrimExpr> size, AttrMap attrs) {
      return [size, attrs](const std::vector<Var>& p) {
        return MakeOpCall("relax.image.resize2d", {p[0], MakeShapeExpr(size)}, attrs);
      };
    };
    CHECK_TYPE(Infer({T({n, I(3), I(8), I(8)})}, resize_to({h, I(16)}, {})),
               "R.Tensor((n, 3, h, 16), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(8), I(8), I(3)})}, resize_to({I(4), I(4)}, {{"layout", ir::MakeString("NHWC")}})),
               "R.Tensor((n, 4, 4, 3), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(3), I(8)})}, resize_to({I(4), I(4)}, {})),
                "image.resize2d: the data must be 4-D, got rank 3");
    CHECK_ERROR(Infer({T({n, I(3), I(8), I(8)})}, resize_to({I(4), I(4)}, {{"method", ir::MakeString("area")}})),
                "image.resize2d: method must be nearest_neighbor, linear or cubic, got area");
    CHECK_ERROR(Infer({T({n, I(3), I(8), I(8)})}, resize_to({I(4)}, {})),
                "image.resize2d: the size must have 2 dims (height, width), got 1");
  }

  void reshape() {
    tir::Var n = tir::MakeVar("n", kI64);
    auto reshape_to = [](std::vector<PrimExpr> dims) {
      return [dims](const std::vector<Var>& p) {
        return MakeOpCall("relax.reshape", {p[0], MakeShapeExpr(dims)});
      };
    };
    CHECK_TYPE(Infer({T({I(2), I(3), I(4)})}, reshape_to({I(6), I(-1)})),
               "R.Tensor((6, 4), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(4)})}, reshape_to({I(-1), I(2)})),
               "R.Tensor((n * 2, 2), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(4)})}, reshape_to({I(-1)})), "R.Tensor((n * 4,), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(4)})}, reshape_to({I(4), n})), "R.Tensor((4, n), \"float32\")");
    // As in TVM, the call keeps the solved shape, not the -1.
    {
      Var x = MakeVar("x", T({n, I(4)}));
      BlockBuilder bb;
      bb.BeginFunction("f", {x});
      Var y = bb.Emit(MakeOpCall("relax.reshape", {x, MakeShapeExpr({I(-1), I(2)})}));
      Function f = bb.EndFunction(y);
      auto* binding = f->body.as<SeqExprNode>()->blocks[0]->bindings[0].as<VarBindingNode>();
      auto* shape = binding->value.as<CallNode>()->args[1].as<ShapeExprNode>();
      QCOMPARE(QString::fromStdString(TypeToString(shape->struct_info)),
               QString("R.Shape([n * 2, 2])"));
    }
    CHECK_ERROR(Infer({T({I(3), I(4)})}, reshape_to({I(5), I(2)})),
                "reshape: the input (3, 4) has 12 elements but the new shape (5, 2) has 10");
    CHECK_ERROR(Infer({T({I(3), I(4)})}, reshape_to({I(5), I(-1)})),
                "reshape: cannot infer the -1 dimension: the input's 12 elements are not "
                "divisible by 5");
    CHECK_ERROR(Infer({T({I(3), I(4)})}, reshape_to({I(-1), I(-1)})),
                "reshape: the new shape has more than one -1");
  }

  void manipulation() {
    tir::Var n = tir::MakeVar("n", kI64);
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.flip", {{"axis", Int(-1)}})), "R.Tensor((n, 3), \"float32\")");
    // Sorting: sort keeps the type, argsort gives int32 positions unless told, topk k of them.
    CHECK_TYPE(Infer({T({n, I(5)})}, On("relax.sort", {{"axis", Int(0)}})), "R.Tensor((n, 5), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(5)})}, On("relax.argsort")), "R.Tensor((n, 5), \"int32\")");
    CHECK_TYPE(Infer({T({n, I(5)})}, On("relax.argsort", {{"dtype", DTypeAttr(kI64)}})),
               "R.Tensor((n, 5), \"int64\")");
    CHECK_TYPE(Infer({T({n, I(5)})}, On("relax.topk", {{"k", Int(2)}})),
               "R.Tuple(R.Tensor((n, 2), \"float32\"), R.Tensor((n, 2), \"int32\"))");
    CHECK_TYPE(Infer({T({n, I(5)})}, On("relax.topk", {{"k", Int(1)}, {"axis", Int(0)}, {"ret_type", ir::MakeString("values")}})),
               "R.Tensor((1, 5), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(5)})}, On("relax.topk", {{"k", Int(6)}})),
                "topk: k 6 is larger than the axis's extent 5");
    CHECK_ERROR(Infer({T({n, I(5)})}, On("relax.topk", {{"ret_type", ir::MakeString("all")}})),
                "topk: ret_type must be both, values or indices, got all");
    CHECK_ERROR(Infer({T({n, I(3)})}, On("relax.flip", {{"axis", Int(2)}})),
                "flip: axis 2 is out of range for a tensor of rank 2");
    CHECK_TYPE(Infer({T({I(4), n, I(3)}), T({n}, kI64)},
                     On("relax.reverse_sequence", {{"seq_axis", Int(0)}, {"batch_axis", Int(1)}})),
               "R.Tensor((4, n, 3), \"float32\")");
    CHECK_ERROR(Infer({T({I(4), I(2)}), T({I(3)}, kI64)}, On("relax.reverse_sequence")),
                "reverse_sequence: seq_lengths has 3 values where the data has 4 on the batch axis 0");
    CHECK_ERROR(Infer({T({I(4), I(2)}), T({I(4)})}, On("relax.reverse_sequence")),
                "reverse_sequence: seq_lengths must be int32 or int64, got float32");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.shape_of")), "R.Shape([n, 3])");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.repeat", {{"repeats", Int(2)}, {"axis", Int(-1)}})),
               "R.Tensor((n, 6), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.repeat", {{"repeats", Int(2)}})), "R.Tensor((n * 6,), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(3)})}, On("relax.repeat", {{"repeats", Int(0)}})),
                "repeat: repeats must be at least 1, got 0");
    CHECK_ERROR(Infer({T({n, I(3)})}, On("relax.repeat", {{"repeats", Int(2)}, {"axis", Int(2)}})),
                "repeat: axis 2 is out of range for a tensor of rank 2");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.tile", {{"repeats", IntArray({2, 1})}})),
               "R.Tensor((n * 2, 3), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.tile", {{"repeats", IntArray({4, 1, 2})}})),
               "R.Tensor((4, n, 6), \"float32\")");
    CHECK_ERROR(Infer({T({n})}, On("relax.tile", {{"repeats", IntArray({-1})}})),
                "tile: repeats must not be negative");
    CHECK_TYPE(Infer({T({n, I(3)}), T({I(2), I(3)}, kI64)}, On("relax.gather_elements", {{"axis", Int(-2)}})),
               "R.Tensor((2, 3), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(3)}), T({I(2)}, kI64)}, On("relax.gather_elements")),
                "gather_elements: the indices must have the data's rank 2, got 1");
    CHECK_TYPE(Infer({T({n, I(3), I(4)}), T({I(5), I(2)}, kI64)}, On("relax.gather_nd")),
               "R.Tensor((5, 4), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(3)}), T({I(5), I(3)}, kI64)}, On("relax.gather_nd")),
                "gather_nd: the indices' last dimension 3 must be in [1, 2]");
    CHECK_TYPE(Infer({T({n, I(2), I(3)})}, On("relax.permute_dims")),
               "R.Tensor((3, 2, n), \"float32\")");
    CHECK_TYPE(
        Infer({T({n, I(2), I(3)})}, On("relax.permute_dims", {{"axes", IntArray({0, 2, 1})}})),
        "R.Tensor((n, 3, 2), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.expand_dims", {{"axis", IntArray({0, -1})}})),
               "R.Tensor((1, n, 3, 1), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), n, I(1)})}, On("relax.squeeze", {{"axis", IntArray({0})}})),
               "R.Tensor((n, 1), \"float32\")");
    CHECK_TYPE(Infer({T({I(1), I(5), I(1)})}, On("relax.squeeze")), "R.Tensor((5,), \"float32\")");
    CHECK_ERROR(Infer({T({I(2), I(5)})}, On("relax.squeeze", {{"axis", IntArray({1})}})),
                "squeeze: dimension 5 at axis 1 is not 1");
    CHECK_TYPE(Infer({T({n, I(2), I(3)})}, On("relax.flatten")), "R.Tensor((n * 6,), \"float32\")");
    auto concat = [](AttrMap attrs) {
      return [attrs](const std::vector<Var>& p) {
        return MakeOpCall("relax.concat", {MakeTuple({p[0], p[1]})}, attrs);
      };
    };
    CHECK_TYPE(Infer({T({n, I(2)}), T({n, I(3)})}, concat({{"axis", Int(1)}})),
               "R.Tensor((n, 5), \"float32\")");
    CHECK_TYPE(Infer({T({I(2), I(2)}), T({n, I(2)})}, concat({})),
               "R.Tensor((n + 2, 2), \"float32\")");
    CHECK_ERROR(Infer({T({I(2), I(2)}), T({I(2), I(3)})}, concat({})),
                "concat: tensor 1 has dimension 3 at axis 1 where tensor 0 has 2");
    CHECK_TYPE(Infer({T({I(6), n})}, On("relax.split", {{"indices_or_sections", Int(3)}})),
               "R.Tuple(R.Tensor((2, n), \"float32\"), R.Tensor((2, n), \"float32\"), "
               "R.Tensor((2, n), \"float32\"))");
    CHECK_TYPE(Infer({T({I(10)})}, On("relax.split", {{"indices_or_sections", IntArray({2, 7})}})),
               "R.Tuple(R.Tensor((2,), \"float32\"), R.Tensor((5,), \"float32\"), "
               "R.Tensor((3,), \"float32\"))");
    // TVM's sections: ceil(10 / 3) = 4 each, the last one what is left.
    CHECK_TYPE(Infer({T({I(10)})}, On("relax.split", {{"indices_or_sections", Int(3)}})),
               "R.Tuple(R.Tensor((4,), \"float32\"), R.Tensor((4,), \"float32\"), "
               "R.Tensor((2,), \"float32\"))");
    CHECK_ERROR(Infer({T({I(1)})}, On("relax.split", {{"indices_or_sections", Int(3)}})),
                "split: dimension 1 at axis 0 cannot be split into 3 sections");
    CHECK_TYPE(Infer({T({I(10), n})},
                     [](const std::vector<Var>& p) {
                       return MakeOpCall("relax.strided_slice",
                                         {p[0], Ints({0}), Ints({1}), Ints({9}), Ints({2})});
                     }),
               "R.Tensor((4, n), \"float32\")");
    CHECK_TYPE(
        Infer({T({I(10), n})},
              [](const std::vector<Var>& p) {
                return MakeOpCall("relax.strided_slice", {p[0], Ints({1}), Ints({0}), Ints({3})});
              }),
        "R.Tensor((10, T.min(3, n)), \"float32\")");  // clamped: n may be under 3
    // Symbolic bounds or extents: TVM's topi GetLength, simplified; without assume_inbound the
    // bounds are clamped to the extent.
    tir::Var m = tir::MakeVar("m", kI64);
    auto slice = [](Expr begin, Expr end, bool inbound) {
      return [=](const std::vector<Var>& p) {
        return MakeOpCall("relax.strided_slice", {p[0], Ints({1}), begin, end},
                          {{"assume_inbound", ir::MakeBool(inbound)}});
      };
    };
    Expr quarter = MakeTuple({MakePrimValue(tir::floordiv(n, I(4)))});
    CHECK_TYPE(Infer({T({m, n})}, slice(Ints({0}), quarter, true)), "R.Tensor((m, n // 4), \"float32\")");
    CHECK_TYPE(Infer({T({m, n})}, slice(Ints({1}), Ints({3}), false)),
               "R.Tensor((m, T.min(3, n) - T.min(1, n)), \"float32\")");
    // Without the keyword the bounds are clamped, as TVM's Python API (TVMScript) defaults it.
    CHECK_TYPE(Infer({T({m, n})},
                     [](const std::vector<Var>& p) {
                       return MakeOpCall("relax.strided_slice", {p[0], Ints({1}), Ints({1}), Ints({3})});
                     }),
               "R.Tensor((m, T.min(3, n) - T.min(1, n)), \"float32\")");
    CHECK_TYPE(Infer({T({m, n}), ir::MakeTupleType({ir::MakePrimType(kI64)})},
                     [](const std::vector<Var>& p) {
                       return MakeOpCall("relax.strided_slice", {p[0], Ints({1}), Ints({0}), p[1]});
                     }),
               "R.Tensor(\"float32\", ndim=2)");
    CHECK_ERROR(Infer({T({m, n})}, slice(Ints({0}), MakeTuple({MakePrimValue(tir::MakeFloatImm(kF32, 1.0))}), true)),
                "strided_slice: end must be a tuple of integers, got R.Tuple(R.Prim(\"float32\"))");
    CHECK_TYPE(Infer({T({I(100), I(16)}), T({n}, kI64)}, On("relax.take", {{"axis", Int(0)}})),
               "R.Tensor((n, 16), \"float32\")");
    CHECK_ERROR(Infer({T({I(100), I(16)}), T({n})}, On("relax.take", {{"axis", Int(0)}})),
                "take: the indices must have an integer dtype, got float32");
    // shape_to_tensor: an int64 vector of the shape's rank.
    CHECK_TYPE(Infer({MakeShapeType({I(2), n})}, On("relax.shape_to_tensor")), "R.Tensor((2,), \"int64\")");
    CHECK_TYPE(Infer({MakeShapeType()}, On("relax.shape_to_tensor")), "R.Tensor(\"int64\", ndim=1)");
    CHECK_ERROR(Infer({T({I(2)})}, On("relax.shape_to_tensor")),
                "shape_to_tensor: the argument must be a shape, got R.Tensor((2,), \"float32\")");
    // A scalar index (R.Prim) drops the axis.
    CHECK_TYPE(Infer({T({I(100), I(16)}), ir::MakePrimType(kI64)}, On("relax.take", {{"axis", Int(1)}})),
               "R.Tensor((100,), \"float32\")");
    CHECK_ERROR(Infer({T({I(100), I(16)}), ir::MakePrimType(kF32)}, On("relax.take", {{"axis", Int(1)}})),
                "take: the indices must have an integer dtype, got float32");
    CHECK_TYPE(Infer({T({I(1), I(4)})},
                     [n](const std::vector<Var>& p) {
                       return MakeOpCall("relax.broadcast_to", {p[0], MakeShapeExpr({n, I(4)})});
                     }),
               "R.Tensor((n, 4), \"float32\")");
    CHECK_ERROR(
        Infer({T({I(3), I(4)})},
              [](const std::vector<Var>& p) {
                return MakeOpCall("relax.broadcast_to", {p[0], MakeShapeExpr({I(2), I(4)})});
              }),
        "broadcast_to: dimension 3 at axis 0 cannot be broadcast to 2");
    CHECK_TYPE(Infer({T({I(4), I(4)})},
                     On("relax.layout_transform", {{"index_map", ir::MakeString("lambda")}})),
               "R.Tensor(\"float32\")");
    CHECK_TYPE(
        Infer({T({n, I(1)}, DataType::Bool()), T({I(4)}), T({I(1), I(4)})}, On("relax.where")),
        "R.Tensor((n, 4), \"float32\")");
  }

  void reductions() {
    tir::Var n = tir::MakeVar("n", kI64);
    for (const char* op : {"relax.sum", "relax.mean", "relax.max", "relax.min", "relax.prod"}) {
      CHECK_TYPE(Infer({T({n, I(3), I(4)})}, On(op, {{"axis", IntArray({1})}})),
                 "R.Tensor((n, 4), \"float32\")");
      CHECK_TYPE(Infer({T({n, I(3), I(4)})},
                       On(op, {{"axis", IntArray({-1, 0})}, {"keepdims", ir::MakeBool(true)}})),
                 "R.Tensor((1, 3, 1), \"float32\")");
    }
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.sum")), "R.Tensor((), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.sum", {{"keepdims", ir::MakeBool(true)}})),
               "R.Tensor((1, 1), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.argmax", {{"axis", Int(1)}})),
               "R.Tensor((n,), \"int64\")");
    CHECK_TYPE(Infer({T({n, I(3)})},
                     On("relax.argmax", {{"axis", Int(0)}, {"keepdims", ir::MakeBool(true)}})),
               "R.Tensor((1, 3), \"int64\")");
    CHECK_TYPE(Infer({T({n, I(3)})},
                     On("relax.argmin", {{"axis", Int(-1)}, {"keepdims", ir::MakeBool(true)}})),
               "R.Tensor((n, 1), \"int64\")");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.argmin")), "R.Tensor((), \"int64\")");
    CHECK_TYPE(Infer({T({n, I(3), I(4)})}, On("relax.variance", {{"axis", IntArray({1})}})),
               "R.Tensor((n, 4), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(3)})}, On("relax.argmin", {{"axis", Int(2)}})),
                "argmin: axis 2 is out of range for a tensor of rank 2");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.cumsum", {{"axis", Int(1)}})), "R.Tensor((n, 3), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(3)}, kI64)}, On("relax.cumsum")), "R.Tensor((n * 3,), \"int64\")");
    CHECK_ERROR(Infer({T({n, I(3)})}, On("relax.mean", {{"axis", IntArray({0, -2})}})),
                "mean: axis -2 appears more than once");
  }

  // nll_loss, cross_entropy_with_logits, batch_flatten, gelu_tanh, collapse_sum_like/to, std.
  void lossesAndGradientHelpers() {
    tir::Var n = tir::MakeVar("n", kI64), c = tir::MakeVar("c", kI64);
    auto nll = [](const char* reduction) {
      return On("relax.nn.nll_loss", {{"reduction", ir::MakeString(reduction)}});
    };
    CHECK_TYPE(Infer({T({n, c, I(4)}), T({n, I(4)}, kI64), T({c})}, nll("mean")), "R.Tensor((), \"float32\")");
    CHECK_TYPE(Infer({T({n, c, I(4)}), T({n, I(4)}, kI64), T({c})}, nll("none")), "R.Tensor((n, 4), \"float32\")");
    CHECK_TYPE(Infer({T({n, c}), T({n}, kI64)}, nll("sum")), "R.Tensor((), \"float32\")");
    CHECK_TYPE(Infer({T({c}), T({}, kI64)}, nll("none")), "R.Tensor((), \"float32\")");
    CHECK_TYPE(Infer({MakeTensorType(kF32, 3), T({n, I(4)}, kI64)}, nll("none")), "R.Tensor(\"float32\", ndim=2)");
    CHECK_ERROR(Infer({T({n, c}), T({n}, kI64)}, nll("max")), "nn.nll_loss: reduction must be none, sum or mean, got max");
    CHECK_ERROR(Infer({T({n, c}), T({n, I(2)}, kI64)}, nll("mean")),
                "nn.nll_loss: the targets have rank 2 where the predictions' rank 2 needs 1");
    CHECK_ERROR(Infer({T({n, I(3)}), T({n}, kI64), T({I(4)})}, nll("mean")),
                "nn.nll_loss: the weights have 4 values for 3 classes");
    CHECK_ERROR(Infer({T({n, I(3)}), T({n}, kF32)}, nll("mean")),
                "nn.nll_loss: the targets must have an integer dtype, got float32");
    CHECK_ERROR(Infer({T({I(2), I(3), I(5)}), T({I(2), I(4)}, kI64)}, nll("none")),
                "nn.nll_loss: the targets' dimension 4 at axis 1 does not match the predictions' 5");

    CHECK_TYPE(Infer({T({}), T({n, c, I(4)}), T({n, I(4)}, kI64), T({c})},
                     On("relax.grad.nll_loss_backward", {{"reduction", ir::MakeString("sum")}})),
               "R.Tensor((n, c, 4), \"float32\")");
    CHECK_ERROR(Infer({T({}), T({n, c}), T({n, I(4)}, kI64)}, On("relax.grad.nll_loss_backward")),
                "grad.nll_loss_backward: the targets have rank 2 where the predictions' rank 2 needs 1");
    CHECK_TYPE(Infer({T({n, I(3)}), T({n, I(3)})}, On("relax.nn.cross_entropy_with_logits")),
               "R.Tensor((), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(3)}), T({n, I(4)})}, On("relax.nn.cross_entropy_with_logits")),
                "nn.cross_entropy_with_logits: the predictions' dimension 3 at axis 1 differs from the labels' 4");

    CHECK_TYPE(Infer({T({n, I(3), c, I(5)})}, On("relax.nn.batch_flatten")), "R.Tensor((n, c * 15), \"float32\")");
    CHECK_TYPE(Infer({MakeTensorType(kF32, kUnknownNDim)}, On("relax.nn.batch_flatten")),
               "R.Tensor(\"float32\", ndim=2)");
    CHECK_ERROR(Infer({T({n})}, On("relax.nn.batch_flatten")), "nn.batch_flatten: the data must have at least 2 axes, got 1");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.nn.gelu_tanh")), "R.Tensor((n, 3), \"float32\")");
    CHECK_ERROR(Infer({T({n}, kI64)}, On("relax.nn.gelu_tanh")),
                "nn.gelu_tanh: the input must have a floating-point dtype, got int64");

    CHECK_TYPE(Infer({T({I(2), n, I(3)}), T({n, I(1)})}, On("relax.collapse_sum_like")),
               "R.Tensor((n, 1), \"float32\")");
    CHECK_ERROR(Infer({T({I(2), I(3)}), T({I(2), I(2)})}, On("relax.collapse_sum_like")),
                "collapse_sum_like: the data (2, 3) cannot collapse to (2, 2): dimension 3 at axis 1 against 2");
    auto to = [](std::vector<PrimExpr> shape) {
      return [shape](const std::vector<Var>& p) {
        return MakeOpCall("relax.collapse_sum_to", {p[0], MakeShapeExpr(shape)});
      };
    };
    CHECK_TYPE(Infer({T({I(3), I(2), I(3)})}, to({I(2), I(1)})), "R.Tensor((2, 1), \"float32\")");
    CHECK_ERROR(Infer({T({I(3)})}, to({I(1), I(3)})),
                "collapse_sum_to: the target shape (1, 3) has more axes than the data (3,)");

    CHECK_TYPE(Infer({T({n, I(3), I(4)})}, On("relax.std", {{"axis", IntArray({1})}})), "R.Tensor((n, 4), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.std")), "R.Tensor((), \"float32\")");
  }

  // The collectives: allreduce and broadcast keep the type, allgather stacks the workers' parts
  // on axis 0, scatter_from_worker0 splits `axis` among them.
  void collectives() {
    tir::Var n = tir::MakeVar("n", kI64);
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.ccl.allreduce", {{"op_type", ir::MakeString("avg")}})),
               "R.Tensor((n, 3), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(3)})}, On("relax.ccl.allreduce", {{"op_type", ir::MakeString("mean")}})),
                "ccl.allreduce: op_type must be sum, prod, min, max or avg, got mean");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.ccl.allgather", {{"num_workers", Int(2)}})),
               "R.Tensor((n * 2, 3), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(3)})}, On("relax.ccl.broadcast_from_worker0")), "R.Tensor((n, 3), \"float32\")");
    CHECK_TYPE(Infer({T({I(10), I(10)})}, On("relax.ccl.scatter_from_worker0", {{"num_workers", Int(2)}, {"axis", Int(1)}})),
               "R.Tensor((10, 5), \"float32\")");
    CHECK_ERROR(Infer({T({I(10), I(9)})}, On("relax.ccl.scatter_from_worker0", {{"num_workers", Int(2)}, {"axis", Int(-1)}})),
                "ccl.scatter_from_worker0: dimension 9 at axis 1 cannot be split among 2 workers");
  }

  void creation() {
    tir::Var n = tir::MakeVar("n", kI64);
    CHECK_TYPE(Infer({T({}, DataType::Float(16))},
                     [n](const std::vector<Var>& p) {
                       return MakeOpCall("relax.full", {MakeShapeExpr({n, I(2)}), p[0]});
                     }),
               "R.Tensor((n, 2), \"float16\")");
    for (const char* op : {"relax.zeros", "relax.ones"}) {
      CHECK_TYPE(Infer({},
                       [n, op](const std::vector<Var>&) {
                         return MakeOpCall(op, {MakeShapeExpr({n})}, {{"dtype", DTypeAttr(kI64)}});
                       }),
                 "R.Tensor((n,), \"int64\")");
    }
    CHECK_ERROR(Infer({T({I(2)})},
                      [](const std::vector<Var>& p) {
                        return MakeOpCall("relax.full", {MakeShapeExpr({I(2)}), p[0]});
                      }),
                "full: the fill value must be a scalar tensor, got rank 1");
    // The _like forms take the input's shape, and its dtype unless one is given.
    CHECK_TYPE(Infer({T({n, I(2)})}, On("relax.zeros_like")), "R.Tensor((n, 2), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(2)})}, On("relax.ones_like", {{"dtype", DTypeAttr(kI64)}})),
               "R.Tensor((n, 2), \"int64\")");
    CHECK_TYPE(Infer({T({n, I(2)}), T({}, kI64)}, On("relax.full_like")), "R.Tensor((n, 2), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(2)}), T({I(2)})}, On("relax.full_like")),
                "full_like: the fill value must be a scalar tensor, got rank 1");
  }

  void matmul() {
    tir::Var n = tir::MakeVar("n", kI64);
    tir::Var b = tir::MakeVar("b", kI64);
    CHECK_TYPE(Infer({T({n, I(784)}), T({I(784), I(128)})}, On("relax.matmul")),
               "R.Tensor((n, 128), \"float32\")");
    CHECK_TYPE(Infer({T({b, I(1), n, I(64)}), T({I(8), I(64), I(32)})}, On("relax.matmul")),
               "R.Tensor((b, 8, n, 32), \"float32\")");
    CHECK_TYPE(Infer({T({I(64)}), T({I(64), I(32)})}, On("relax.matmul")),
               "R.Tensor((32,), \"float32\")");
    CHECK_TYPE(Infer({T({n, I(64)}), T({I(64)})}, On("relax.matmul")),
               "R.Tensor((n,), \"float32\")");
    CHECK_TYPE(Infer({T({I(2), I(3)}, DataType::Int(8)), T({I(3), I(4)}, DataType::Int(8))},
                     On("relax.matmul", {{"out_dtype", DTypeAttr(DataType::Int(32))}})),
               "R.Tensor((2, 4), \"int32\")");
    CHECK_ERROR(Infer({T({n, I(784)}), T({I(128), I(10)})}, On("relax.matmul")),
                "matmul: dimension 784 of the first operand does not match dimension 128 of "
                "the second");
  }

  // Markers for passes: the argument's type; the checkpoints take a variable only,
  // stop_lift_params a tensor.
  void markerOps() {
    tir::Var n = tir::MakeVar("n", kI64);
    for (const char* op : {"relax.grad.no_grad", "relax.grad.start_checkpoint", "relax.grad.end_checkpoint"}) {
      CHECK_TYPE(Infer({T({n, I(4)})}, On(op)), "R.Tensor((n, 4), \"float32\")");
    }
    CHECK_TYPE(Infer({}, [](const std::vector<Var>&) {
                 return MakeOpCall("relax.grad.no_grad", {MakeShapeExpr({I(2)})});
               }),
               "R.Shape([2])");
    CHECK_ERROR(Infer({}, [](const std::vector<Var>&) {
                  return MakeOpCall("relax.grad.start_checkpoint", {MakeShapeExpr({I(2)})});
                }),
                "grad.start_checkpoint: the argument must be a variable");
    CHECK_TYPE(Infer({T({n, I(4)})}, On("relax.builtin.stop_lift_params")), "R.Tensor((n, 4), \"float32\")");
    CHECK_ERROR(Infer({MakeShapeType({I(2)})}, On("relax.builtin.stop_lift_params")),
                "builtin.stop_lift_params: the argument must be a tensor, got R.Shape([2])");
  }

  void callTIR() {
    tir::Var n = tir::MakeVar("n", kI64);
    ir::GlobalVar kernel = ir::MakeGlobalVar("kernel");
    TensorType out = T({n, I(4)});
    CHECK_TYPE(Infer({T({n, I(4)})},
                     [&](const std::vector<Var>& p) {
                       return MakeOpCall("relax.call_tir", {kernel, MakeTuple({p[0]})}, {}, {out});
                     }),
               "R.Tensor((n, 4), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(4)})},
                      [&](const std::vector<Var>& p) {
                        return MakeOpCall("relax.call_tir", {kernel, MakeTuple({p[0]})});
                      }),
                "call_tir: exactly one out_sinfo is required, got 0");
    CHECK_TYPE(Infer({T({n, I(4)}), T({I(4)})},
                     [&](const std::vector<Var>& p) {
                       return MakeOpCall("relax.call_tir_inplace",
                                         {kernel, MakeTuple({p[0], p[1]})},
                                         {{"inplace_indices", IntArray({0})}}, {out});
                     }),
               "R.Tensor((n, 4), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(4)}), T({I(4)})},
                      [&](const std::vector<Var>& p) {
                        return MakeOpCall("relax.call_tir_inplace",
                                          {kernel, MakeTuple({p[0], p[1]})},
                                          {{"inplace_indices", IntArray({1})}}, {out});
                      }),
                "call_tir_inplace: output 0 R.Tensor((n, 4), \"float32\") does not match "
                "argument 1 R.Tensor((4,), \"float32\") that it is written into");
    // call_tir_with_grad: call_tir's declared output; the gradient's name is an attribute.
    CHECK_TYPE(Infer({T({n, I(4)})},
                     [&](const std::vector<Var>& p) {
                       return MakeOpCall("relax.call_tir_with_grad", {kernel, MakeTuple({p[0]})},
                                         {{"te_grad_name", ir::MakeString("kernel_grad")}}, {out});
                     }),
               "R.Tensor((n, 4), \"float32\")");
    CHECK_ERROR(Infer({T({n, I(4)})},
                      [&](const std::vector<Var>& p) {
                        return MakeOpCall("relax.call_tir_with_grad",
                                          {MakeExternFunc("kernel"), MakeTuple({p[0]})}, {}, {out});
                      }),
                "call_tir_with_grad: the callee must be a function of the module (a GlobalVar)");
    CHECK_TYPE(Infer({T({n})},
                     [&](const std::vector<Var>& p) {
                       return MakeOpCall("relax.call_dps_packed",
                                         {MakeExternFunc("my_kernel"), MakeTuple({p[0]})}, {},
                                         {ir::MakeTupleType({T({n}), T({n})})});
                     }),
               "R.Tuple(R.Tensor((n,), \"float32\"), R.Tensor((n,), \"float32\"))");
  }

  void memory() {
    tir::Var n = tir::MakeVar("n", kI64);
    BlockBuilder bb;
    Var x = MakeVar("x", T({n}));
    bb.BeginFunction("f", {x}, {}, /*is_pure=*/false);
    Var storage = bb.Emit(
        MakeOpCall("relax.memory.alloc_storage", {MakeShapeExpr({I(64)}), Prim(0),
                                                  MakeStringImm("global"), MakeDataTypeImm(kF32)}),
        "storage");
    Var t =
        bb.Emit(MakeOpCall("relax.memory.alloc_tensor",
                           {storage, Prim(0), MakeShapeExpr({I(4), I(4)}), MakeDataTypeImm(kF32)}),
                "t");
    Var k = bb.Emit(MakeOpCall("relax.memory.kill_tensor", {t}), "k");
    Var ks = bb.Emit(MakeOpCall("relax.memory.kill_storage", {storage}), "ks");
    bb.EndFunction(x);
    QVERIFY(bb.diagnostics().empty());
    QCOMPARE(QString::fromStdString(TypeToString(storage->struct_info)), QString("R.Object"));
    QCOMPARE(QString::fromStdString(TypeToString(t->struct_info)),
             QString("R.Tensor((4, 4), \"float32\")"));
    QCOMPARE(QString::fromStdString(TypeToString(k->struct_info)), QString("R.Tuple()"));
    QCOMPARE(QString::fromStdString(TypeToString(ks->struct_info)), QString("R.Tuple()"));
    for (const char* op : {"relax.memory.alloc_storage", "relax.memory.alloc_tensor",
                           "relax.memory.kill_tensor", "relax.memory.kill_storage"}) {
      Covered().insert(op);
    }
  }

  // The ops of TVM's lowered modules: views, VM allocation and kills, the dynamic kernel call,
  // builtins with the VM context and closures, typed as TVM types them.
  void viewAndVMOps() {
    auto view = [](Expr shape, Expr dtype, Expr offset) {
      return [=](const std::vector<Var>& p) {
        return MakeOpCall("relax.memory.view", {p[0], shape, dtype, offset});
      };
    };
    Expr none = MakeTuple({});
    Expr null = MakeOpCall("relax.null_value", {});
    CHECK_TYPE(Infer({T({I(64), I(8)})}, view(none, null, none)), "R.Tensor((64, 8), \"float32\")");
    CHECK_TYPE(Infer({T({I(64), I(8)})}, view(MakeShapeExpr({I(128), I(8)}), MakeDataTypeImm(DataType::Float(16)), Prim(0))),
               "R.Tensor((128, 8), \"float16\")");
    CHECK_ERROR(Infer({T({I(64), I(8)})}, view(MakeShapeExpr({I(64), I(8)}), null, Prim(4))),
                "memory.view: the view R.Tensor((64, 8), \"float32\") at byte offset 4 ends at byte 2052, "
                "past the 2048 bytes of the data R.Tensor((64, 8), \"float32\")");
    CHECK_ERROR(Infer({T({I(4)})}, view(none, null, Prim(4))),
                "memory.view: the view R.Tensor((4,), \"float32\") at byte offset 4 ends at byte 20, past "
                "the 16 bytes of the data R.Tensor((4,), \"float32\")");
    CHECK_TYPE(Infer({T({I(4)})}, On("relax.memory.ensure_zero_offset")), "R.Tensor((4,), \"float32\")");
    CHECK_TYPE(Infer({}, On("relax.null_value")), "R.Object");

    BlockBuilder bb;
    Var x = MakeVar("x", T({I(8)}));
    bb.BeginFunction("f", {x}, {}, /*is_pure=*/false);
    Var storage = bb.Emit(MakeOpCall("relax.vm.alloc_storage", {MakeShapeExpr({I(32)}), Prim(0),
                                                                MakeDataTypeImm(DataType::UInt(8)),
                                                                MakeStringImm("global")}),
                          "storage");
    Var t = bb.Emit(MakeOpCall("relax.vm.alloc_tensor", {storage, Prim(0), MakeShapeExpr({I(2), I(4)}),
                                                         MakeDataTypeImm(kF32), Prim(0)}),
                    "t");
    Var call = bb.Emit(MakeOpCall("relax.vm.call_tir_dyn", {MakeExternFunc("k"), MakeTuple({x, t})}), "call");
    Var ctx = bb.Emit(MakeOpCall("relax.call_builtin_with_ctx", {MakeExternFunc("vm.builtin.f"), MakeTuple({t})},
                                 {}, {T({I(2), I(4)})}),
                      "ctx");
    Var closure = bb.Emit(MakeOpCall("relax.make_closure", {MakeExternFunc("g"), MakeTuple({x})}), "closure");
    Var res = bb.Emit(MakeOpCall("relax.invoke_closure", {closure, MakeTuple({x})}, {},
                                 {T({I(8)}), MakeShapeType(2)}),
                      "res");
    Var pure_res = bb.Emit(MakeOpCall("relax.invoke_pure_closure", {closure, MakeTuple({x})}), "pure_res");
    Var kill = bb.Emit(MakeOpCall("relax.vm.kill_object", {storage}), "kill");
    bb.EndFunction(x);
    QVERIFY(bb.diagnostics().empty());
    auto text = [](const Var& v) { return QString::fromStdString(TypeToString(v->struct_info)); };
    QCOMPARE(text(storage), QString("R.Object"));
    QCOMPARE(text(t), QString("R.Tensor((2, 4), \"float32\")"));
    QCOMPARE(text(call), QString("R.Tuple()"));
    QCOMPARE(text(ctx), QString("R.Tensor((2, 4), \"float32\")"));
    QCOMPARE(text(closure), QString("R.Object"));
    QCOMPARE(text(res), QString("R.Tuple(R.Tensor((8,), \"float32\"), R.Shape(ndim=2))"));
    QCOMPARE(text(pure_res), QString("R.Object"));
    QCOMPARE(text(kill), QString("R.Tuple()"));
    QVERIFY(!FindOp("relax.vm.kill_object")->pure && !FindOp("relax.invoke_closure")->pure);
    QVERIFY(FindOp("relax.invoke_pure_closure")->pure && FindOp("relax.vm.alloc_storage")->pure);
    for (const char* op : {"relax.vm.alloc_storage", "relax.vm.alloc_tensor", "relax.vm.call_tir_dyn",
                           "relax.call_builtin_with_ctx", "relax.make_closure", "relax.invoke_closure",
                           "relax.invoke_pure_closure", "relax.vm.kill_object"}) {
      Covered().insert(op);
    }
  }

  // to_vdevice retypes onto its destination; hint_on_device keeps the operand's type.
  void deviceOps() {
    ir::VDevice cuda = ir::MakeVDevice("cuda", 1);
    CHECK_TYPE(Infer({T({I(2), I(3)})}, On("relax.to_vdevice", {{"dst_vdevice", cuda}})),
               "R.Tensor((2, 3), \"float32\", vdevice=I.vdevice(\"cuda\", 1, \"global\"))");
    CHECK_ERROR(Infer({T({I(2)})}, On("relax.to_vdevice")),
                "to_vdevice: dst_vdevice must be one of the module's vdevices");
    CHECK_ERROR(Infer({MakeShapeType({I(2)})}, On("relax.to_vdevice", {{"dst_vdevice", cuda}})),
                "to_vdevice: the data must be a tensor, got R.Shape([2])");
    TensorType on_cuda = WithVDevice(T({I(4)}), cuda);
    CHECK_TYPE(Infer({on_cuda}, On("relax.hint_on_device", {{"dev_type", Int(1)}})),
               "R.Tensor((4,), \"float32\", vdevice=I.vdevice(\"cuda\", 1, \"global\"))");
    CHECK_TYPE(Infer({T({I(4)})}, On("relax.hint_on_device", {{"dev_type", Int(2)}})),
               "R.Tensor((4,), \"float32\")");
    CHECK_ERROR(Infer({T({I(4)})}, On("relax.hint_on_device", {{"dev_id", Int(-1)}})),
                "hint_on_device: dev_id must be non-negative, got -1");
  }

  void builtinAllocTensor() {
    tir::Var n = tir::MakeVar("n", kI64);
    auto alloc = [&](Expr shape, Expr scope) {
      return Infer({T({n})}, [&](const std::vector<Var>&) {
        return MakeOpCall("relax.builtin.alloc_tensor",
                          {shape, MakeDataTypeImm(kF32), Prim(0), scope});
      });
    };
    Inferred ok = alloc(MakeShapeExpr({n, I(4)}), MakeStringImm("global"));
    QCOMPARE(QString::fromStdString(ok.type), QString("R.Tensor((n, 4), \"float32\")"));
    Inferred bad = alloc(MakeShapeExpr({n}), Prim(1));
    QVERIFY2(bad.error.find("must be a string") != std::string::npos, bad.error.c_str());
  }

  void printAssertAndPurePacked() {
    tir::Var n = tir::MakeVar("n", kI64);
    auto with_format = [](const char* op, size_t at) {
      return [op, at](const std::vector<Var>& p) {
        std::vector<Expr> args(p.begin(), p.end());
        args.insert(args.begin() + at, MakeStringImm("{}"));
        return MakeOpCall(op, args);
      };
    };
    CHECK_TYPE(Infer({T({n})}, with_format("relax.print", 0)), "R.Tuple()");
    CHECK_ERROR(Infer({T({n})}, On("relax.print")),
                "print: the first argument must be the format string (an R.str)");
    CHECK_TYPE(Infer({ir::MakePrimType(ir::DataType::Bool()), T({n})}, with_format("relax.assert_op", 1)),
               "R.Tuple()");
    CHECK_TYPE(Infer({MakeTensorType({}, ir::DataType::Bool())}, with_format("relax.assert_op", 1)), "R.Tuple()");
    CHECK_ERROR(Infer({T({n})}, with_format("relax.assert_op", 1)),
                "assert_op: the condition must be a boolean scalar, got R.Tensor((n,), \"float32\")");
    CHECK_TYPE(Infer({T({n})},
                     [&](const std::vector<Var>& p) {
                       return MakeOpCall("relax.call_pure_packed", {MakeExternFunc("my_shape_of"), p[0]}, {},
                                         {MakeShapeType({n})});
                     }),
               "R.Shape([n])");
    CHECK_ERROR(Infer({T({n})},
                      [&](const std::vector<Var>& p) {
                        return MakeOpCall("relax.call_pure_packed", {p[0]}, {}, {MakeShapeType({n})});
                      }),
                "call_pure_packed: the callee must be a packed function (a name or an R.ExternFunc), got "
                "R.Tensor((n,), \"float32\")");
  }

  // Runs last: every op in the registry was exercised above.
  void everyRegisteredOpIsTested() {
    for (const OpInfo* info : AllOps()) {
      QVERIFY2(Covered().count(info->name), ("no inference test for " + info->name).c_str());
    }
  }
};

QTEST_APPLESS_MAIN(TestRelaxOps)
#include "tst_relax_ops.moc"
