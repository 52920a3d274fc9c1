// The roofline in the Build & Profile panel, through the real widgets offscreen: profiling the
// elementwise example fills the table's Bytes, FLOP/byte and Of roof columns (hand-computed
// bytes; the fraction against the cached roofs), the roofline chart draws a point per function
// and per profiled schedule step under those roofs, and "Measure peaks" measures new roofs.
#include <QApplication>
#include <QComboBox>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "build_panel.h"
#include "main_window.h"
#include "roofline_chart.h"
#include "roofline_test_util.h"
#include "schedule_pane.h"
#include "workbench/host_peaks.h"

using wb::app::BuildPanel;
using wb::app::MainWindow;

namespace {

QString Header(QTableWidget* t, int column) { return t->horizontalHeaderItem(column)->text(); }

int Column(QTableWidget* t, const QString& name) {
  for (int c = 0; c < t->columnCount(); ++c) {
    if (Header(t, c) == name) return c;
  }
  return -1;
}

QByteArray Why(BuildPanel* b) { return b->statusLabel()->text().toUtf8(); }

}  // namespace

class TstGuiRoofline : public QObject {
  Q_OBJECT

  QTemporaryDir cache_;

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(cache_.isValid());
    qputenv("XDG_CACHE_HOME", cache_.path().toUtf8());
    // Roofs planted in the cache, so the fractions can be checked against known figures; 1 MiB
    // of L2 holds the example's 160 KiB.
    wb::test::PlantPeaks(wb::test::PlantedPeaks(1 << 20));
  }
  void cleanupTestCase() { QSettings().clear(); }

  void theTableAndTheChartShowTheRoofline() {
    MainWindow w;
    QVERIFY(w.OpenFile(":/examples/elementwise.py", true));
    w.resize(1400, 900);
    w.show();
    BuildPanel* b = w.build();
    QVERIFY(b->SelectTarget("llvm"));
    b->numberBox()->setValue(2);
    b->repeatBox()->setValue(2);
    QTest::mouseClick(b->profileButton(), Qt::LeftButton);
    QVERIFY2(b->WaitForJob(120000), Why(b).constData());
    QTableWidget* t = b->resultsTable();
    QVERIFY2(t->rowCount() == 1, Why(b).constData());
    const int bytes = Column(t, "Bytes"), intensity = Column(t, "FLOP/byte"),
              roof = Column(t, "Of roof");
    QVERIFY(bytes > 0 && intensity > 0 && roof > 0);
    // Two nests over 64 x 128 floats: A and B in, added out; added in, C out. An add and a max
    // per element.
    const double moved = 5 * 64 * 128 * 4.0, flops = 2 * 64 * 128.0;
    QCOMPARE(t->item(0, bytes)->data(Qt::UserRole).toDouble(), moved);
    QCOMPARE(t->item(0, bytes)->text(), QString("160.0 KiB"));
    QCOMPARE(t->item(0, intensity)->text(), QString::number(flops / moved, 'g', 3));
    const wb::workbench::FunctionResult& f = b->session().lastRun()->functions[0];
    QVERIFY(f.gflops_per_s().has_value());
    // Serial, and its 160 KiB fit in the planted 1 MiB of L2: under the one-thread L2 roof,
    // bandwidth-bound at this intensity.
    QVERIFY(f.in_cache);
    const double fraction = *f.gflops_per_s() / std::min(100.0, flops / moved * 50.0);
    QCOMPARE(t->item(0, roof)->text(), QString::number(fraction * 100, 'f', 1) + "%");

    wb::app::RooflineChart* chart = b->roofline();
    QVERIFY(chart->isVisible());
    QVERIFY(chart->roofs().has_value());
    QCOMPARE(chart->roofs()->gflops_1, 100.0);
    QCOMPARE(chart->points().size(), size_t(1));
    QCOMPARE(chart->points()[0].intensity, flops / moved);
    QVERIFY(chart->points()[0].latest);
    QCOMPARE(chart->Roof(1000, false), 100.0);
    QCOMPARE(chart->Roof(0.5, true), 10.0);
    QCOMPARE(chart->Roof(0.5, true, true), 50.0);
    QVERIFY(chart->points()[0].in_cache);

    // A schedule step, profiled: a point per step, the latest filled.
    wb::app::SchedulePane* s = w.schedule();
    QVERIFY(s->SelectNode("j"));
    s->primitiveBox()->setCurrentText("split");
    s->argumentsEdit()->setText("None, 16");
    QVERIFY2(s->ApplyPanel(), qPrintable(s->messageLabel()->text()));
    QTest::mouseClick(b->profileButton(), Qt::LeftButton);
    QVERIFY2(b->WaitForJob(120000), Why(b).constData());
    QCOMPARE(chart->points().size(), size_t(2));
    QVERIFY(!chart->points()[0].latest);
    QVERIFY(chart->points()[1].latest);
    QVERIFY2(chart->points()[1].label.contains("step 1: split"),
             qPrintable(chart->points()[1].label));
    // A split moves the same regions.
    QCOMPARE(chart->points()[1].intensity, flops / moved);

    // Painted offscreen: the latest point is a filled dot where the chart places it.
    QImage image = chart->grab().toImage();
    QVERIFY(!image.isNull());
    QPoint at = chart->Position(chart->points()[1].intensity, chart->points()[1].gflops).toPoint();
    QCOMPARE(image.pixelColor(at), QColor(0x2e, 0x86, 0xde));

    // New roofs measured on the worker, positive and finite, replace the planted ones.
    QVERIFY(b->measurePeaksButton()->isEnabled());
    QTest::mouseClick(b->measurePeaksButton(), Qt::LeftButton);
    QVERIFY2(b->WaitForJob(60000), Why(b).constData());
    QVERIFY2(b->statusLabel()->text().startsWith("Peaks of"), Why(b).constData());
    QVERIFY(b->session().peaks() && !b->session().peaks()->from_cache);
    for (double v :
         {chart->roofs()->gflops_1, chart->roofs()->gflops_all, chart->roofs()->gbytes_per_s_1,
          chart->roofs()->gbytes_per_s_all, chart->roofs()->cache_gbytes_per_s_1,
          chart->roofs()->cache_gbytes_per_s_all}) {
      QVERIFY(std::isfinite(v) && v > 0);
    }
    QVERIFY(wb::workbench::HostPeaksFor().from_cache);
    QCOMPARE(wb::workbench::HostPeaksFor().gflops_1, chart->roofs()->gflops_1);
  }
};

QTEST_MAIN(TstGuiRoofline)
#include "tst_gui_roofline.moc"
