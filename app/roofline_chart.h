// The build panel's roofline: log-log, arithmetic intensity (FLOP/byte) along the bottom and
// GFLOP/s up the side, under this machine's roofs (workbench/host_peaks.h): the memory bandwidth
// slope (solid) and the L2's (dotted) rising to the FMA peak, for every thread (red) and for one
// thread (grey). A point per
// profiled function and schedule step; the latest profile's points are filled, older steps'
// hollow. Painted with QPainter, as the profile chart is.
#pragma once

#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "workbench/host_peaks.h"

namespace wb::app {

struct RooflinePoint {
  QString label;          // "main, step 2: split"
  double intensity = 0;   // FLOP/byte
  double gflops = 0;      // achieved
  bool parallel = false;  // under the every-thread roof, else the one-thread roof
  bool in_cache = false;  // under the L2's bandwidth, else memory's
  bool latest = false;    // from the latest profile
};

class RooflineChart : public QWidget {
  Q_OBJECT

 public:
  explicit RooflineChart(QWidget* parent = nullptr);

  void SetRoofs(std::optional<workbench::HostPeaks> peaks);
  void SetPoints(QString title, std::vector<RooflinePoint> points);
  const std::optional<workbench::HostPeaks>& roofs() const { return peaks_; }
  const std::vector<RooflinePoint>& points() const { return points_; }
  QString title() const { return title_; }
  // The attainable GFLOP/s at `intensity`: min(peak, intensity x bandwidth); 0 without roofs.
  double Roof(double intensity, bool parallel, bool in_cache = false) const;
  // Where a point is drawn, in widget coordinates (for tooltips and tests).
  QPointF Position(double intensity, double gflops) const;
  QSize minimumSizeHint() const override { return {260, 160}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QRectF PlotArea() const;
  // The axes' ranges, as powers of ten: [x_lo, x_hi] x [y_lo, y_hi].
  void Ranges(double* x_lo, double* x_hi, double* y_lo, double* y_hi) const;

  QString title_;
  std::optional<workbench::HostPeaks> peaks_;
  std::vector<RooflinePoint> points_;
};

}  // namespace wb::app
