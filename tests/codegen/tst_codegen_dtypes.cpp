// Every dtype the interpreter supports, scalar and in vectors of several widths, compiled and
// compared with the interpreter: wrapping integer arithmetic, truncating and flooring division,
// min/max/select, comparisons to bool, casts between all pairs, float16/bfloat16 rounding.

#include <QTest>

#include "codegen_test_util.h"

using namespace wb;
using namespace wb::testing;

namespace {

const char* kIntTypes[] = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"};
const char* kFloatTypes[] = {"float16", "bfloat16", "float32", "float64"};

// These kernels go through Build's default lowering, Simplify included: the simplifier once
// folded `max(a, b * 3) - min(a + 1, b)` to `a - b` for unsigned types, which these kernels
// (checked against the interpreter on the source) catch.
const char* kDefaultLowering = "";

std::string Arith(const std::string& t, bool is_float) {
  std::string s = R"(
@T.prim_func
def main(A: T.Buffer((96,), "T"), B: T.Buffer((96,), "T"), C: T.Buffer((96, 8), "T"), M: T.Buffer((96,), "bool")):
    for i in range(96):
        C[i, 0] = A[i] + B[i] * A[i]
        C[i, 1] = A[i] - B[i]
        C[i, 2] = T.max(A[i], B[i]) - T.min(A[i], B[i])
        C[i, 3] = T.Select(A[i] < B[i], A[i], B[i] + B[i])
)";
  if (is_float) {
    s += R"(        C[i, 4] = A[i] / (T.fabs(B[i]) + T.Cast("T", 1))
        C[i, 5] = T.floordiv(A[i], T.Cast("T", 0.75))
        C[i, 6] = T.floormod(A[i], T.Cast("T", 0.75))
        C[i, 7] = T.Cast("T", T.Cast("int32", A[i] * T.Cast("T", 4)))
)";
  } else {
    s += R"(        C[i, 4] = T.truncdiv(A[i], B[i] * B[i] + T.Cast("T", 1))
        C[i, 5] = T.floordiv(A[i], B[i] * B[i] + T.Cast("T", 1))
        C[i, 6] = T.floormod(A[i], B[i] * B[i] + T.Cast("T", 1)) + T.truncmod(A[i], T.Cast("T", 3))
        C[i, 7] = A[i] * A[i] * A[i] * A[i]
)";
  }
  s += R"(        M[i] = A[i] <= B[i] or A[i] == T.Cast("T", 0)
)";
  for (size_t at; (at = s.find("\"T\"")) != std::string::npos;) s.replace(at, 3, "\"" + t + "\"");
  return s;
}

}  // namespace

class TstCodegenDtypes : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void integerArithmetic_data() {
    QTest::addColumn<QString>("dtype");
    for (const char* t : kIntTypes) QTest::newRow(t) << QString(t);
  }
  void integerArithmetic() {
    QFETCH(QString, dtype);
    std::string t = dtype.toStdString();
    auto mod = ParseOk(Arith(t, false));
    runtime::Module built = BuildOk(mod, kDefaultLowering);
    bool is_unsigned = t[0] == 'u';
    // Wide ranges so that the products wrap.
    double lo = is_unsigned ? 0 : -120, hi = 120;
    for (uint64_t seed : {1, 2}) {
      std::string diff = CompareWithInterpreter(mod, built, "main",
                                                {TensorSpec{{96}, t, lo, hi}, TensorSpec{{96}, t, lo, hi},
                                                 TensorSpec{{96, 8}, t}, TensorSpec{{96}, "bool"}}, seed);
      QVERIFY2(diff.empty(), diff.c_str());
    }
  }

  void floatArithmetic_data() {
    QTest::addColumn<QString>("dtype");
    for (const char* t : kFloatTypes) QTest::newRow(t) << QString(t);
  }
  void floatArithmetic() {
    QFETCH(QString, dtype);
    std::string t = dtype.toStdString();
    auto mod = ParseOk(Arith(t, true));
    runtime::Module built = BuildOk(mod, kDefaultLowering);
    for (uint64_t seed : {1, 2}) {
      std::string diff = CompareWithInterpreter(mod, built, "main",
                                                {TensorSpec{{96}, t, -4.0, 4.0}, TensorSpec{{96}, t, -4.0, 4.0},
                                                 TensorSpec{{96, 8}, t}, TensorSpec{{96}, "bool"}}, seed);
      QVERIFY2(diff.empty(), diff.c_str());
    }
  }

  void castsBetweenAllTypes() {
    std::vector<std::string> types(std::begin(kIntTypes), std::end(kIntTypes));
    types.insert(types.end(), std::begin(kFloatTypes), std::end(kFloatTypes));
    types.push_back("bool");
    std::string params = "S: T.Buffer((32,), \"float32\")";
    std::string body;
    for (size_t k = 0; k < types.size(); ++k) {
      params += ", O" + std::to_string(k) + ": T.Buffer((32, " + std::to_string(types.size()) + "), \"" + types[k] + "\")";
    }
    for (size_t k = 0; k < types.size(); ++k) {
      for (size_t j = 0; j < types.size(); ++j) {
        // float32 -> types[j] -> types[k]; values in [0, 100) are representable by all.
        body += "        O" + std::to_string(k) + "[i, " + std::to_string(j) + "] = T.Cast(\"" + types[k] +
                "\", T.Cast(\"" + types[j] + "\", S[i]))\n";
      }
    }
    auto mod = ParseOk("@T.prim_func\ndef main(" + params + "):\n    for i in range(32):\n" + body);
    runtime::Module built = BuildOk(mod, kDefaultLowering);
    std::vector<ArgSpec> specs{TensorSpec{{32}, "float32", 0.0, 100.0}};
    for (const auto& t : types) specs.push_back(TensorSpec{{32, static_cast<int64_t>(types.size())}, t});
    std::string diff = CompareWithInterpreter(mod, built, "main", specs);
    QVERIFY2(diff.empty(), diff.c_str());
  }

  void vectorWidths_data() {
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<int>("lanes");
    for (const char* t : {"float32", "float16", "bfloat16", "int8", "int32", "float64", "uint16"}) {
      for (int lanes : {2, 4, 8, 16, 32}) {
        QTest::newRow((std::string(t) + "x" + std::to_string(lanes)).c_str()) << QString(t) << lanes;
      }
    }
  }
  void vectorWidths() {
    QFETCH(QString, dtype);
    QFETCH(int, lanes);
    std::string t = dtype.toStdString();
    std::string l = std::to_string(lanes);
    std::string n = std::to_string(lanes * 4);
    std::string text = R"(
@T.prim_func
def main(A: T.Buffer((N,), "T"), B: T.Buffer((N,), "T"), C: T.Buffer((N,), "T")):
    for i in range(4):
        C[i * L:i * L + L] = T.max(A[i * L:i * L + L], B[i * L:i * L + L]) * A[i * L:i * L + L] + T.Broadcast(T.Cast("T", 1), L)
)";
    auto subst = [&](const std::string& from, const std::string& to) {
      for (size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, from.size(), to);
    };
    subst("\"T\"", "\"" + t + "\"");
    subst("(N,)", "(" + n + ",)");
    subst(" L", " " + l);
    subst("L)", l + ")");
    auto mod = ParseOk(text);
    runtime::Module built = BuildOk(mod, kDefaultLowering);
    std::string diff = CompareWithInterpreter(mod, built, "main",
                                              {TensorSpec{{lanes * 4}, t}, TensorSpec{{lanes * 4}, t},
                                               TensorSpec{{lanes * 4}, t}});
    QVERIFY2(diff.empty(), diff.c_str());
  }
};

QTEST_APPLESS_MAIN(TstCodegenDtypes)
#include "tst_codegen_dtypes.moc"
