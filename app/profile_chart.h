// The chart of the build panel: a kernel's time and GFLOP/s across schedule steps, one point per
// profile in the history. Painted here with QPainter (Qt Charts is not part of the stack): time on
// the left axis, GFLOP/s on the right, the steps along the bottom.
#pragma once

#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

namespace wb::app {

struct ChartPoint {
  QString label;    // "2: split": the step and what it applied
  QString tooltip;  // the step's trace
  double time_ms = 0;
  std::optional<double> gflops;
};

class ProfileChart : public QWidget {
  Q_OBJECT

 public:
  explicit ProfileChart(QWidget* parent = nullptr);

  void SetPoints(QString title, std::vector<ChartPoint> points);
  const std::vector<ChartPoint>& points() const { return points_; }
  QString title() const { return title_; }
  QSize minimumSizeHint() const override { return {260, 160}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  // The plot area inside the axes, and the x of point i in it.
  QRectF PlotArea() const;
  double X(int i) const;

  QString title_;
  std::vector<ChartPoint> points_;
};

}  // namespace wb::app
