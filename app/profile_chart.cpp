#include "profile_chart.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace wb::app {

namespace {

// Axis maxima rounded up to 1, 2 or 5 times a power of ten, so tick labels read cleanly.
double NiceCeiling(double value) {
  if (value <= 0) return 1;
  double power = std::pow(10.0, std::floor(std::log10(value)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (value <= m * power) return m * power;
  }
  return 10 * power;
}

QString Tick(double value) { return QString::number(value, 'g', 3); }

const QColor kTimeColor(0x2e, 0x86, 0xde);
const QColor kGflopsColor(0xe6, 0x7e, 0x22);

}  // namespace

ProfileChart::ProfileChart(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_OpaquePaintEvent, false);
  setMouseTracking(true);
}

void ProfileChart::SetPoints(QString title, std::vector<ChartPoint> points) {
  title_ = std::move(title);
  points_ = std::move(points);
  update();
}

QRectF ProfileChart::PlotArea() const {
  QFontMetrics fm(font());
  double left = fm.horizontalAdvance("00000") + 14;
  double right = fm.horizontalAdvance("00000") + 14;
  double top = fm.height() * 2 + 6;
  double bottom = fm.height() + 10;
  return QRectF(left, top, std::max(10.0, width() - left - right),
                std::max(10.0, height() - top - bottom));
}

double ProfileChart::X(int i) const {
  QRectF area = PlotArea();
  if (points_.size() <= 1) return area.center().x();
  return area.left() + area.width() * (i + 0.5) / points_.size();
}

void ProfileChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().base());
  QColor text = palette().color(QPalette::Text);
  QColor grid = palette().color(QPalette::Mid);
  QFontMetrics fm(font());
  p.setPen(text);
  p.drawText(QRectF(0, 2, width(), fm.height()), Qt::AlignHCenter, title_);
  // Legend under the title.
  double ly = fm.height() + 4;
  double lx = width() / 2.0 - 110;
  for (const auto& [color, name] : {std::pair{kTimeColor, tr("time (ms)")},
                                    std::pair{kGflopsColor, tr("GFLOP/s")}}) {
    p.setPen(QPen(color, 2));
    p.drawLine(QPointF(lx, ly + fm.height() / 2.0), QPointF(lx + 18, ly + fm.height() / 2.0));
    p.setPen(text);
    p.drawText(QPointF(lx + 22, ly + fm.ascent()), name);
    lx += 120;
  }
  QRectF area = PlotArea();
  p.setPen(grid);
  p.drawRect(area);
  if (points_.empty()) {
    p.setPen(text);
    p.drawText(area, Qt::AlignCenter, tr("Profile to chart time and GFLOP/s per schedule step"));
    return;
  }
  double max_time = 0, max_gflops = 0;
  for (const auto& pt : points_) {
    max_time = std::max(max_time, pt.time_ms);
    if (pt.gflops) max_gflops = std::max(max_gflops, *pt.gflops);
  }
  max_time = NiceCeiling(max_time);
  max_gflops = NiceCeiling(max_gflops);
  // Grid lines and tick labels: time on the left, GFLOP/s on the right.
  for (int k = 0; k <= 4; ++k) {
    double y = area.bottom() - area.height() * k / 4;
    p.setPen(QPen(grid, 1, Qt::DotLine));
    p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
    p.setPen(kTimeColor);
    p.drawText(QRectF(0, y - fm.height() / 2.0, area.left() - 4, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, Tick(max_time * k / 4));
    p.setPen(kGflopsColor);
    p.drawText(QRectF(area.right() + 4, y - fm.height() / 2.0, width() - area.right() - 4, fm.height()),
               Qt::AlignLeft | Qt::AlignVCenter, Tick(max_gflops * k / 4));
  }
  p.setPen(text);
  // Labels that do not fit side by side shrink to the step number (the tooltip has the rest).
  double slot = area.width() / points_.size();
  bool full = true;
  for (const auto& pt : points_) full = full && fm.horizontalAdvance(pt.label) + 6 <= slot;
  for (size_t i = 0; i < points_.size(); ++i) {
    double x = X(static_cast<int>(i));
    QString label = full ? points_[i].label : points_[i].label.section(':', 0, 0);
    p.drawText(QRectF(x - slot / 2, area.bottom() + 3, slot, fm.height()), Qt::AlignHCenter, label);
  }
  auto series = [&](const QColor& color, auto value, double max) {
    QPainterPath path;
    bool started = false;
    std::vector<QPointF> dots;
    for (size_t i = 0; i < points_.size(); ++i) {
      std::optional<double> v = value(points_[i]);
      if (!v) continue;
      QPointF pt(X(static_cast<int>(i)), area.bottom() - area.height() * (*v / max));
      if (started) path.lineTo(pt); else path.moveTo(pt);
      started = true;
      dots.push_back(pt);
    }
    p.setPen(QPen(color, 2));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    p.setBrush(color);
    for (const QPointF& d : dots) p.drawEllipse(d, 3.5, 3.5);
  };
  series(kTimeColor, [](const ChartPoint& pt) { return std::optional<double>(pt.time_ms); }, max_time);
  series(kGflopsColor, [](const ChartPoint& pt) { return pt.gflops; }, max_gflops);
}

bool ProfileChart::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && !points_.empty()) {
    auto* help = static_cast<QHelpEvent*>(event);
    int best = 0;
    for (size_t i = 1; i < points_.size(); ++i) {
      if (std::abs(X(static_cast<int>(i)) - help->pos().x()) < std::abs(X(best) - help->pos().x())) {
        best = static_cast<int>(i);
      }
    }
    const ChartPoint& pt = points_[best];
    QString tip = QStringLiteral("%1: %2 ms").arg(pt.label).arg(pt.time_ms, 0, 'g', 4);
    if (pt.gflops) tip += QStringLiteral(", %1 GFLOP/s").arg(*pt.gflops, 0, 'g', 4);
    if (!pt.tooltip.isEmpty()) tip += "\n" + pt.tooltip;
    QToolTip::showText(help->globalPos(), tip, this);
    return true;
  }
  return QWidget::event(event);
}

}  // namespace wb::app
