// Shared by the manifest suites: run the real `workbench --batch` binary, write fixture files,
// read JSON reports.
#pragma once

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace manifest_test {

struct Run {
  int code = -1;
  QString out;
  QString err;
};

inline Run Workbench(const QStringList& args, int timeout_ms = 300000) {
  QProcess p;
  p.start(QStringLiteral(WB_WORKBENCH_BIN), QStringList{"--batch"} + args);
  p.waitForFinished(timeout_ms);
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

inline void Write(const QString& path, const QByteArray& text) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(text);
}

inline QByteArray ReadAll(const QString& path) {
  QFile f(path);
  f.open(QIODevice::ReadOnly);
  return f.readAll();
}

inline QJsonObject ReadJson(const QString& path) { return QJsonDocument::fromJson(ReadAll(path)).object(); }

inline QJsonObject CaseNamed(const QJsonObject& report, const QString& name) {
  for (const auto& c : report["cases"].toArray()) {
    if (c.toObject()["name"].toString() == name) return c.toObject();
  }
  return {};
}

// The first check of `kind` (and `name`, when given) in a case of a report.
inline QJsonObject CheckOf(const QJsonObject& c, const QString& kind, const QString& name = {}) {
  for (const auto& check : c["checks"].toArray()) {
    QJsonObject o = check.toObject();
    if (o["kind"].toString() == kind && (name.isEmpty() || o["name"].toString() == name)) return o;
  }
  return {};
}

// An 8-element kernel B = A + 1: small enough for every check kind to run in milliseconds.
inline const char* kAddOne = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        # with T.sblock("root"):
        for i in range(8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0))";

// A Relax function calling a kernel of its own module and an operator.
inline const char* kRelax = R"(
@I.ir_module
class Module:
    @T.prim_func
    def double(x: T.Buffer((4, 4), "float32"), y: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.sblock("double"):
                vi, vj = T.axis.remap("SS", [i, j])
                y[vi, vj] = x[vi, vj] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), w: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.double, (x,), out_ty=R.Tensor((4, 4), dtype="float32"))
            gv = R.matmul(lv, w)
            R.output(gv)
        return gv
)";

}  // namespace manifest_test
