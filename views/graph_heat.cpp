// The heat overlay's numbers, colours and legend (see graph_heat.h).
#include "views/graph_heat.h"

#include <QFileInfo>
#include <QLinearGradient>
#include <QPainter>
#include <QResizeEvent>

#include <algorithm>
#include <exception>

#include "tuner/database.h"
#include "tuner/task.h"
#include "views/theme.h"

namespace lowerscope {

int ModelHeat::tunedCount() const {
  return static_cast<int>(
      std::count_if(kernels.begin(), kernels.end(), [](const KernelHeat& k) { return k.bestS; }));
}

const KernelHeat* ModelHeat::kernelOf(const QString& name) const {
  for (const KernelHeat& k : kernels)
    if (k.functions.contains(name))
      return &k;
  return nullptr;
}

ModelHeat computeModelHeat(const unity::ir::IRModule& model, unity::BuildOptions options,
                           const QString& database) {
  ModelHeat heat;
  if (!QFileInfo(database).isFile()) {
    heat.error = QObject::tr("%1: no such tuning database").arg(database);
    return heat;
  }
  try {
    // The tasks as `tune` extracts them: the default pipeline up to
    // DefaultSchedule, whatever the current build applies.
    options.passes.clear();
    options.pipeline = "default";
    options.codegen = false;
    options.onPass = nullptr;
    const std::vector<unity::tuner::Task> tasks = unity::tuner::extractTasks(model, options);
    unity::tuner::Database db(database.toStdString(), 2000);
    for (const auto& t : tasks) {
      KernelHeat k;
      k.name = QString::fromStdString(t.name);
      for (const auto& f : t.functions)
        k.functions << QString::fromStdString(f);
      k.hash = QString::fromStdString(t.hash);
      k.target = QString::fromStdString(t.target);
      k.flops = t.flops;
      k.calls = t.weight;
      const auto best = db.bestByHash(t.hash, t.target, 1);
      if (!best.empty() && best.front().meanS) {
        k.bestS = best.front().meanS;
        k.recordId = best.front().id;
      }
      heat.totalS += k.totalS();
      heat.kernels.push_back(std::move(k));
    }
  } catch (const std::exception& e) {
    heat.kernels.clear();
    heat.totalS = 0;
    heat.error = QString::fromUtf8(e.what());
  }
  return heat;
}

QColor heatColor(double fraction) {
  // Pale yellow -> orange -> dark red: a sequential ramp that reads as
  // "hotter" without a legend and stays distinct from the op-pattern pastels.
  struct Stop {
    double at;
    QColor c;
  };
  static const Stop stops[] = {{0.0, QColor(0xff, 0xf3, 0xbf)},
                               {0.5, QColor(0xff, 0x92, 0x2b)},
                               {1.0, QColor(0xc9, 0x2a, 0x2a)}};
  const double f = std::clamp(fraction, 0.0, 1.0);
  for (size_t i = 1; i < std::size(stops); ++i) {
    if (f > stops[i].at)
      continue;
    const double t = (f - stops[i - 1].at) / (stops[i].at - stops[i - 1].at);
    const QColor &a = stops[i - 1].c, &b = stops[i].c;
    return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * t,
                            a.greenF() + (b.greenF() - a.greenF()) * t,
                            a.blueF() + (b.blueF() - a.blueF()) * t);
  }
  return stops[std::size(stops) - 1].c;
}

QColor heatUntunedColor() { return QColor(0xce, 0xd4, 0xda); }
QColor heatOtherColor() { return QColor(0xf1, 0xf3, 0xf5); }

QString formatLatency(double s) {
  if (s >= 1)
    return QStringLiteral("%1 s").arg(s, 0, 'f', 3);
  if (s >= 1e-3)
    return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 3);
  return QStringLiteral("%1 \u00b5s").arg(s * 1e6, 0, 'f', 2);
}

QHash<QString, NodeHeat> heatOverlay(const ModelHeat& heat) {
  QHash<QString, NodeHeat> out;
  double maxTotal = 0;
  for (const KernelHeat& k : heat.kernels)
    maxTotal = std::max(maxTotal, k.totalS());
  for (const KernelHeat& k : heat.kernels) {
    NodeHeat h;
    if (k.bestS) {
      h.fill = heatColor(maxTotal > 0 ? k.totalS() / maxTotal : 0);
      const double share = heat.totalS > 0 ? k.totalS() / heat.totalS : 0;
      h.tip = QObject::tr("tuned: %1 x %2 call(s) = %3, %4% of the model's tuned time "
                          "(record %5)")
                  .arg(formatLatency(*k.bestS))
                  .arg(k.calls)
                  .arg(formatLatency(k.totalS()))
                  .arg(share * 100, 0, 'f', 1)
                  .arg(k.recordId);
      if (k.flops > 0)
        h.tip += QObject::tr(", %1 GFLOP/s").arg(k.flops / *k.bestS / 1e9, 0, 'f', 2);
    } else {
      h.fill = heatUntunedColor();
      h.tip = QObject::tr("not tuned: no valid record for %1 on %2").arg(k.hash.left(8), k.target);
    }
    for (const QString& f : k.functions)
      out.insert(f, h);
  }
  return out;
}

HeatLegend::HeatLegend(QWidget* parent) : QWidget(parent) {
  setObjectName("heatLegend");
  setAttribute(Qt::WA_TransparentForMouseEvents);
  hide();
}

void HeatLegend::setHeat(const ModelHeat& heat) {
  maxShare_ = minShare_ = 0;
  totalS_ = heat.totalS;
  tuned_ = heat.tunedCount();
  kernels_ = static_cast<int>(heat.kernels.size());
  bool first = true;
  for (const KernelHeat& k : heat.kernels) {
    if (!k.bestS || heat.totalS <= 0)
      continue;
    const double share = k.totalS() / heat.totalS;
    maxShare_ = first ? share : std::max(maxShare_, share);
    minShare_ = first ? share : std::min(minShare_, share);
    first = false;
  }
  resize(sizeHint());
  update();
}

void HeatLegend::attachTo(GraphCanvas* canvas) {
  if (canvas_ && canvas_ != canvas) {
    canvas_->removeEventFilter(this);
    canvas_->viewport()->removeEventFilter(this);
    canvas_->setBottomBand(0);
  }
  canvas_ = canvas;
  viewport_ = canvas->viewport();
  setParent(canvas);
  resize(sizeHint());
  // The canvas for its size, the viewport for its width (a scroll bar
  // appearing narrows it).
  canvas->installEventFilter(this);
  canvas->viewport()->installEventFilter(this);
  show();
  raise();
  place();
}

void HeatLegend::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (canvas_ && parentWidget() == canvas_) {
    canvas_->setBottomBand(height() + 6);
    place();
  }
}

void HeatLegend::hideEvent(QHideEvent* e) {
  QWidget::hideEvent(e);
  // Hidden on its own (overlay off), not with the window: the graph gets
  // its band back.
  if (canvas_ && parentWidget() == canvas_ && !isHidden())
    return;
  if (canvas_ && parentWidget() == canvas_)
    canvas_->setBottomBand(0);
}

void HeatLegend::place() {
  if (!canvas_ || parentWidget() != canvas_)
    return;
  // Two lines where the canvas is wide enough, else three (title; ramp;
  // the untuned count), elided to the canvas's width.
  const int room = std::max(60, canvas_->viewport()->width() - 8);
  const QSize wide = sizeHint();
  const bool compact = wide.width() > room;
  const QFontMetrics fm(font());
  const QSize size = compact ? QSize(room, fm.height() * 3 + 18) : wide;
  if (compact != compact_ || size != this->size()) {
    compact_ = compact;
    resize(size);
    update();
  }
  if (isVisible() && canvas_->bottomBand().height() != height() + 6)
    canvas_->setBottomBand(height() + 6);
  const QRect band = canvas_->bottomBand();
  move(band.left() + 4, band.top() + std::max(0, (band.height() - height()) / 2));
}

bool HeatLegend::eventFilter(QObject* watched, QEvent* event) {
  // Only the two watched objects' size events; the pointers are compared,
  // never dereferenced (the canvas's destructor sends its children's events
  // here when it is no longer a scroll area).
  if ((event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest) && canvas_ &&
      (watched == canvas_ || watched == viewport_))
    place();
  return QWidget::eventFilter(watched, event);
}

QString HeatLegend::title() const { return tr("Share of the tuned time per kernel"); }

QString HeatLegend::untunedLine() const {
  return tr("not tuned  ·  %1 of %2 kernels tuned, sum %3")
      .arg(tuned_)
      .arg(kernels_)
      .arg(formatLatency(totalS_));
}

namespace {
constexpr int kRampWidth = 140;
QString percent(double share) { return QStringLiteral("%1%").arg(share * 100, 0, 'f', 1); }
} // namespace

QSize HeatLegend::sizeHint() const {
  const QFontMetrics fm(font());
  // Line 1: title, low share, ramp, high share. Line 2: swatch, untuned line.
  // (4 px of slack: elidedText must never cut the last figure.)
  const int first = fm.horizontalAdvance(title()) + 10 + fm.horizontalAdvance(percent(minShare_)) +
                    6 + kRampWidth + 6 + fm.horizontalAdvance(percent(maxShare_));
  const int second = fm.height() + 6 + fm.horizontalAdvance(untunedLine());
  return {std::max(first, second) + 20, fm.height() * 2 + 14};
}

void HeatLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const ThemeColors& colors = Theme::instance()->colors();
  p.setPen(QPen(colors.nodeBorder, 1));
  p.setBrush(colors.canvas);
  p.drawRoundedRect(rect().adjusted(0, 0, -1, -1), 4, 4);
  const QFontMetrics fm(font());
  const int room = width() - 16;
  auto text = [&](int x, int top, const QString& s) {
    p.setPen(colors.nodeText);
    p.drawText(x, top + fm.ascent(), fm.elidedText(s, Qt::ElideRight, room - (x - 8)));
  };
  const QString lo = percent(minShare_), hi = percent(maxShare_);
  // Line 1: title, then (wide) the ramp; compact: the ramp on line 2.
  int top = 5;
  int x = 8;
  text(x, top, title());
  if (compact_) {
    top += fm.height() + 4;
  } else {
    x += fm.horizontalAdvance(title()) + 10;
  }
  const int ramp =
      compact_ ? std::max(20, room - fm.horizontalAdvance(lo) - fm.horizontalAdvance(hi) - 16)
               : kRampWidth;
  text(x, top, lo);
  x += fm.horizontalAdvance(lo) + 6;
  QLinearGradient g(x, 0, x + ramp, 0);
  for (double f : {0.0, 0.25, 0.5, 0.75, 1.0})
    g.setColorAt(f, heatColor(f));
  p.setPen(QPen(colors.nodeBorder, 1));
  p.setBrush(g);
  p.drawRect(x, top + 1, ramp, fm.height() - 2);
  x += ramp + 6;
  text(x, top, hi);
  top += fm.height() + 4;
  p.setPen(QPen(colors.nodeBorder, 1));
  p.setBrush(heatUntunedColor());
  p.drawRect(8, top + 1, fm.height() - 2, fm.height() - 2);
  text(8 + fm.height() + 4, top, untunedLine());
}

} // namespace lowerscope
