#include "roofline_chart.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <tuple>

namespace wb::app {

namespace {

const QColor kAllThreads(0xc0, 0x39, 0x2b);
const QColor kOneThread(0x7f, 0x8c, 0x8d);
const QColor kPointColor(0x2e, 0x86, 0xde);

double Decade(double v, bool up) {
  return std::pow(10.0, up ? std::ceil(std::log10(v)) : std::floor(std::log10(v)));
}

QString Tick(double value) { return QString::number(value, 'g', 6); }

}  // namespace

RooflineChart::RooflineChart(QWidget* parent) : QWidget(parent) {
  setObjectName("rooflineChart");
  setMouseTracking(true);
}

void RooflineChart::SetRoofs(std::optional<workbench::HostPeaks> peaks) {
  peaks_ = std::move(peaks);
  update();
}

void RooflineChart::SetPoints(QString title, std::vector<RooflinePoint> points) {
  title_ = std::move(title);
  points_ = std::move(points);
  update();
}

double RooflineChart::Roof(double intensity, bool parallel, bool in_cache) const {
  if (!peaks_) return 0;
  double bandwidth =
      in_cache ? peaks_->cache_gbytes_per_s(parallel) : peaks_->gbytes_per_s(parallel);
  return std::min(peaks_->gflops(parallel), intensity * bandwidth);
}

QRectF RooflineChart::PlotArea() const {
  QFontMetrics fm(font());
  double left = fm.horizontalAdvance("00000") + 14;
  double right = fm.horizontalAdvance("10000") / 2.0 + 4;
  double top = fm.height() * 2 + 6;
  double bottom = fm.height() * 2 + 8;
  return QRectF(left, top, std::max(10.0, width() - left - right),
                std::max(10.0, height() - top - bottom));
}

void RooflineChart::Ranges(double* x_lo, double* x_hi, double* y_lo, double* y_hi) const {
  std::vector<double> xs, ys;
  for (const auto& p : points_) {
    if (p.intensity > 0) xs.push_back(p.intensity);
    if (p.gflops > 0) ys.push_back(p.gflops);
  }
  if (peaks_) {
    for (bool parallel : {false, true}) {
      double ridge = peaks_->gflops(parallel) / peaks_->gbytes_per_s(parallel);
      xs.push_back(ridge / 10);
      xs.push_back(ridge * 10);
      xs.push_back(peaks_->gflops(parallel) / peaks_->cache_gbytes_per_s(parallel) / 10);
      ys.push_back(peaks_->gflops(parallel) * 1.5);
    }
  }
  if (xs.empty()) xs = {0.1, 100};
  if (ys.empty()) ys = {1, 1000};
  // Half a decade of room around the extremes, so no point sits on an edge.
  *x_lo = Decade(*std::min_element(xs.begin(), xs.end()) / 3, false);
  *x_hi = Decade(*std::max_element(xs.begin(), xs.end()) * 3, true);
  if (peaks_) ys.push_back(Roof(*x_lo, false));
  *y_lo = Decade(*std::min_element(ys.begin(), ys.end()) / 3, false);
  *y_hi = Decade(*std::max_element(ys.begin(), ys.end()), true);
  // At least two decades each way, so a lone point does not sit on an edge.
  if (*x_hi / *x_lo < 100) *x_hi = *x_lo * 100;
  if (*y_hi / *y_lo < 100) *y_lo = *y_hi / 100;
}

QPointF RooflineChart::Position(double intensity, double gflops) const {
  double x_lo, x_hi, y_lo, y_hi;
  Ranges(&x_lo, &x_hi, &y_lo, &y_hi);
  QRectF area = PlotArea();
  auto fraction = [](double v, double lo, double hi) {
    v = std::clamp(v, lo, hi);
    return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  };
  return {area.left() + area.width() * fraction(intensity, x_lo, x_hi),
          area.bottom() - area.height() * fraction(gflops, y_lo, y_hi)};
}

void RooflineChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().base());
  QColor text = palette().color(QPalette::Text);
  QColor grid = palette().color(QPalette::Mid);
  QFontMetrics fm(font());
  p.setPen(text);
  p.drawText(QRectF(0, 2, width(), fm.height()), Qt::AlignHCenter,
             title_.isEmpty() ? tr("Roofline") : tr("Roofline: %1").arg(title_));
  double ly = fm.height() + 4;
  double lx = 8;
  if (peaks_) {
    for (const auto& [color, style, name] :
         {std::tuple{kAllThreads, Qt::SolidLine, tr("%1 threads").arg(peaks_->threads)},
          std::tuple{kOneThread, Qt::SolidLine, tr("1 thread")},
          std::tuple{text, Qt::SolidLine, tr("mem")}, std::tuple{text, Qt::DotLine, tr("L2")}}) {
      p.setPen(QPen(color, 2, style));
      p.drawLine(QPointF(lx, ly + fm.height() / 2.0), QPointF(lx + 18, ly + fm.height() / 2.0));
      p.setPen(text);
      p.drawText(QPointF(lx + 22, ly + fm.ascent()), name);
      lx += 30 + fm.horizontalAdvance(name);
    }
  }
  QRectF area = PlotArea();
  p.setPen(grid);
  p.drawRect(area);
  double x_lo, x_hi, y_lo, y_hi;
  Ranges(&x_lo, &x_hi, &y_lo, &y_hi);
  // A grid line and a label at every decade.
  for (double x = x_lo; x <= x_hi * 1.001; x *= 10) {
    QPointF at = Position(x, y_lo);
    p.setPen(QPen(grid, 1, Qt::DotLine));
    p.drawLine(QPointF(at.x(), area.top()), QPointF(at.x(), area.bottom()));
    p.setPen(text);
    p.drawText(QRectF(at.x() - 30, area.bottom() + 2, 60, fm.height()), Qt::AlignHCenter, Tick(x));
  }
  for (double y = y_lo; y <= y_hi * 1.001; y *= 10) {
    QPointF at = Position(x_lo, y);
    p.setPen(QPen(grid, 1, Qt::DotLine));
    p.drawLine(QPointF(area.left(), at.y()), QPointF(area.right(), at.y()));
    p.setPen(text);
    p.drawText(QRectF(0, at.y() - fm.height() / 2.0, area.left() - 4, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, Tick(y));
  }
  p.drawText(QRectF(area.left(), area.bottom() + fm.height() + 4, area.width(), fm.height()),
             Qt::AlignHCenter, tr("FLOP/byte"));
  p.drawText(QPointF(area.left() + 4, area.top() + fm.ascent() + 2), tr("GFLOP/s"));
  if (!peaks_) {
    p.drawText(area, Qt::AlignCenter,
               tr("Profile (or measure the peaks) to draw this machine's roofs"));
  } else {
    p.setClipRect(area);
    for (bool parallel : {false, true}) {
      for (bool in_cache : {false, true}) {
        double bandwidth =
            in_cache ? peaks_->cache_gbytes_per_s(parallel) : peaks_->gbytes_per_s(parallel);
        double ridge = peaks_->gflops(parallel) / bandwidth;
        QPainterPath roof;
        roof.moveTo(Position(x_lo, Roof(x_lo, parallel, in_cache)));
        roof.lineTo(Position(ridge, peaks_->gflops(parallel)));
        roof.lineTo(Position(x_hi, peaks_->gflops(parallel)));
        p.setPen(
            QPen(parallel ? kAllThreads : kOneThread, 2, in_cache ? Qt::DotLine : Qt::SolidLine));
        p.setBrush(Qt::NoBrush);
        p.drawPath(roof);
      }
    }
    p.setClipping(false);
  }
  for (const auto& pt : points_) {
    QPointF at = Position(pt.intensity, pt.gflops);
    p.setPen(QPen(kPointColor, 2));
    p.setBrush(pt.latest ? QBrush(kPointColor) : Qt::NoBrush);
    p.drawEllipse(at, 4, 4);
    if (pt.latest) {
      p.setPen(text);
      p.drawText(at + QPointF(6, -4), pt.label.section(',', 0, 0));
    }
  }
}

bool RooflineChart::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && !points_.empty()) {
    auto* help = static_cast<QHelpEvent*>(event);
    const RooflinePoint* best = nullptr;
    double best_distance = 0;
    for (const auto& pt : points_) {
      QPointF d = Position(pt.intensity, pt.gflops) - help->pos();
      double distance = d.x() * d.x() + d.y() * d.y();
      if (!best || distance < best_distance) {
        best = &pt;
        best_distance = distance;
      }
    }
    QString tip = QStringLiteral("%1: %2 FLOP/byte, %3 GFLOP/s")
                      .arg(best->label)
                      .arg(best->intensity, 0, 'g', 3)
                      .arg(best->gflops, 0, 'g', 4);
    if (double roof = Roof(best->intensity, best->parallel, best->in_cache); roof > 0) {
      tip += tr(", %1% of the %2 %3 roof (%4 GFLOP/s)")
                 .arg(100 * best->gflops / roof, 0, 'f', 1)
                 .arg(best->parallel ? tr("every-thread") : tr("one-thread"))
                 .arg(best->in_cache ? tr("L2") : tr("memory"))
                 .arg(roof, 0, 'g', 4);
    }
    QToolTip::showText(help->globalPos(), tip, this);
    return true;
  }
  return QWidget::event(event);
}

}  // namespace wb::app
