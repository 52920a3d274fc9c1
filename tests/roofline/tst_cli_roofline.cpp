// The roofline through the real batch binary: `--measure-peaks` measures and caches this
// machine's peaks (under XDG_CACHE_HOME), `--run --profile` then reads them back (the figures in
// its report are the cached ones) and reports per function its bytes, arithmetic intensity, the
// roofs and the fraction of the roof, in the --json report and as a table; misuse is refused.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "roofline_test_util.h"

namespace {

struct Run {
  int code = -1;
  QString out;
  QString err;
};

QJsonObject ReadJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

}  // namespace

class TstCliRoofline : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  Run Workbench(const QStringList& args) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", dir_.filePath("cache"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(WB_WORKBENCH_BIN), QStringList{"--batch"} + args);
    p.waitForFinished(300000);
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
  }

 private Q_SLOTS:
  void measurePeaksCachesThemAndAProfileReportsTheRoofline() {
    QVERIFY(dir_.isValid());
    Run m = Workbench({"--measure-peaks", "--json", dir_.filePath("peaks.json")});
    QVERIFY2(m.code == 0, qPrintable(m.err));
    QVERIFY2(m.out.contains("GFLOP/s") && m.out.contains("GB/s"), qPrintable(m.out));
    const QString cache = dir_.filePath("cache/workbench/host_peaks.json");
    QVERIFY2(m.out.contains(cache), qPrintable(m.out));
    QVERIFY(QFile::exists(cache));
    QJsonObject peaks = ReadJson(dir_.filePath("peaks.json"))["peaks"].toObject();
    for (const char* field : {"gflops_1", "gflops_all", "gbytes_per_s_1", "gbytes_per_s_all",
                              "cache_gbytes_per_s_1", "cache_gbytes_per_s_all", "cache_bytes"}) {
      double v = peaks[field].toDouble(-1);
      QVERIFY2(std::isfinite(v) && v > 0, field);
    }
    // The cache holds exactly what was printed.
    QJsonObject hosts = ReadJson(cache)["hosts"].toObject();
    QCOMPARE(hosts.size(), 1);
    QCOMPARE(hosts.begin().value().toObject()["gflops_1"].toDouble(), peaks["gflops_1"].toDouble());

    QFile module(dir_.filePath("matmul.py"));
    QVERIFY(module.open(QIODevice::WriteOnly));
    module.write(wb::test::kMatmul64);
    module.close();
    Run r = Workbench({module.fileName(), "--run", "--profile", "--number", "2", "--repeat", "2",
                       "--json", dir_.filePath("report.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
    // The table's columns, and a row for main.
    for (const char* column : {"bytes", "FLOP/byte", "roof GFLOP/s", "roof GB/s", "of roof"}) {
      QVERIFY2(r.out.contains(column), qPrintable(r.out));
    }
    QVERIFY2(r.out.contains("cached, measured"), qPrintable(r.out));
    QVERIFY2(r.out.contains(
                 QRegularExpression("\\n  main +[0-9.]+ +49152 +10.7 +[0-9.]+ +[0-9.]+ (L2|mem) ")),
             qPrintable(r.out));
    QJsonObject report = ReadJson(dir_.filePath("report.json"));
    QJsonObject f = report["functions"].toArray()[0].toObject();
    QCOMPARE(f["bytes"].toDouble(), 3.0 * 64 * 64 * 4);
    QCOMPARE(f["flops"].toDouble(), 2.0 * 64 * 64 * 64);
    QCOMPARE(f["arithmetic_intensity"].toDouble(), f["flops"].toDouble() / f["bytes"].toDouble());
    // A serial kernel under the one-thread roofs, read from the cache: its 48 KiB under the L2's
    // bandwidth where they fit in one core's L2.
    QCOMPARE(f["peak_gflops"].toDouble(), peaks["gflops_1"].toDouble());
    const bool in_cache = 3 * 64 * 64 * 4 <= peaks["cache_bytes"].toDouble();
    QCOMPARE(f["bandwidth_roof"].toString(), QString(in_cache ? "cache" : "memory"));
    QCOMPARE(f["peak_gbytes_per_s"].toDouble(),
             peaks[in_cache ? "cache_gbytes_per_s_1" : "gbytes_per_s_1"].toDouble());
    double roof = std::min(f["peak_gflops"].toDouble(), f["arithmetic_intensity"].toDouble() *
                                                            f["peak_gbytes_per_s"].toDouble());
    QCOMPARE(f["roofline_fraction"].toDouble(), f["gflops_per_s"].toDouble() / roof);
    QCOMPARE(report["peaks"].toObject()["gflops_1"].toDouble(), peaks["gflops_1"].toDouble());

    // --measure-peaks with the profile: measured again before the run, and cached anew.
    Run again = Workbench({module.fileName(), "--run", "--profile", "--measure-peaks", "--number",
                           "2", "--repeat", "2", "--json", dir_.filePath("again.json")});
    QVERIFY2(again.code == 0, qPrintable(again.err + again.out));
    QVERIFY2(!again.out.contains("cached, measured"), qPrintable(again.out));
    QJsonObject fresh = ReadJson(dir_.filePath("again.json"))["peaks"].toObject();
    QCOMPARE(ReadJson(cache)["hosts"].toObject().begin().value().toObject()["gflops_1"].toDouble(),
             fresh["gflops_1"].toDouble());
  }

  void measurePeaksIsRefusedWhereItDoesNotFit() {
    Run file = Workbench({dir_.filePath("matmul.py"), "--measure-peaks"});
    QCOMPARE(file.code, 2);
    QVERIFY2(file.err.contains("--measure-peaks takes no FILE"), qPrintable(file.err));
    Run unprofiled = Workbench({dir_.filePath("matmul.py"), "--run", "--measure-peaks"});
    QCOMPARE(unprofiled.code, 2);
    QVERIFY2(unprofiled.err.contains("--measure-peaks goes alone or with --run --profile"),
             qPrintable(unprofiled.err));
  }
};

QTEST_GUILESS_MAIN(TstCliRoofline)
#include "tst_cli_roofline.moc"
