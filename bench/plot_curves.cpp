// plot_curves: draws tuning curves (bench_kernels --curves) as one PNG:
// best GFLOP/s against trials (left) and against seconds of tuning (right),
// one coloured line per kernel, and the peer's rate measured in the same
// run as a dashed line of the same colour.
//
//   plot_curves OUT.png CURVE.csv...      (CSV: trial,seconds,best_gflops,peer_gflops)
//
// Runs headless (QT_QPA_PLATFORM=offscreen is set when no platform is).
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QTextStream>
#include <QValueAxis>
#include <QWidget>

#include <cstdio>
#include <cstdlib>

namespace {

struct Curve {
  QString name;
  QList<QPointF> byTrial, bySecond;
  double peer = 0;
};

bool readCurve(const QString& path, Curve& c) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
    return false;
  QTextStream in(&f);
  in.readLine(); // header
  while (!in.atEnd()) {
    auto cols = in.readLine().split(',');
    if (cols.size() < 4)
      continue;
    double best = cols[2].toDouble();
    c.byTrial.append({cols[0].toDouble(), best});
    c.bySecond.append({cols[1].toDouble(), best});
    c.peer = cols[3].toDouble();
  }
  c.name = QFileInfo(path).completeBaseName();
  return !c.byTrial.isEmpty();
}

QChartView* chart(const QList<Curve>& curves, bool bySeconds) {
  auto* ch = new QChart;
  ch->setTitle(bySeconds ? "best GFLOP/s vs seconds of tuning (dashed: the peer, same run)"
                         : "best GFLOP/s vs trials (dashed: the peer, same run)");
  ch->legend()->setAlignment(Qt::AlignRight);
  auto* x = new QValueAxis;
  auto* y = new QValueAxis;
  x->setTitleText(bySeconds ? "seconds" : "trials");
  y->setTitleText("GFLOP/s");
  ch->addAxis(x, Qt::AlignBottom);
  ch->addAxis(y, Qt::AlignLeft);
  double maxX = 1, maxY = 1;
  const QList<QColor> colors{Qt::blue,       Qt::red,   Qt::darkGreen, Qt::magenta,  Qt::darkCyan,
                             Qt::darkYellow, Qt::black, Qt::darkRed,   Qt::darkBlue, Qt::gray};
  int k = 0;
  for (auto& c : curves) {
    QColor col = colors[k++ % colors.size()];
    auto* s = new QLineSeries;
    s->setName(c.name);
    const auto& pts = bySeconds ? c.bySecond : c.byTrial;
    s->append(pts);
    s->setPen(QPen(col, 2));
    for (auto& p : pts) {
      maxX = std::max(maxX, p.x());
      maxY = std::max(maxY, p.y());
    }
    ch->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
    if (c.peer > 0) {
      auto* peer = new QLineSeries;
      peer->setName(c.name + " peer");
      peer->append(0, c.peer);
      peer->append(pts.last().x(), c.peer);
      peer->setPen(QPen(col, 1, Qt::DashLine));
      maxY = std::max(maxY, c.peer);
      ch->addSeries(peer);
      peer->attachAxis(x);
      peer->attachAxis(y);
      for (auto* m : ch->legend()->markers(peer))
        m->setVisible(false); // dashed = the peer: said in the title, not per line
    }
  }
  x->setRange(0, maxX);
  y->setRange(0, maxY * 1.1);
  auto* v = new QChartView(ch);
  v->setRenderHint(QPainter::Antialiasing);
  return v;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT.png CURVE.csv...\n", argv[0]);
    return 2;
  }
  if (!std::getenv("QT_QPA_PLATFORM"))
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  QList<Curve> curves;
  for (int i = 2; i < argc; ++i) {
    Curve c;
    if (!readCurve(argv[i], c)) {
      std::fprintf(stderr, "plot_curves: %s: no curve (missing file or no rows)\n", argv[i]);
      return 1;
    }
    curves.append(c);
  }
  QWidget w;
  auto* layout = new QHBoxLayout(&w);
  layout->addWidget(chart(curves, false));
  layout->addWidget(chart(curves, true));
  w.resize(1800, 700);
  if (!w.grab().save(argv[1])) {
    std::fprintf(stderr, "plot_curves: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("wrote %s (%lld curves)\n", argv[1], static_cast<long long>(curves.size()));
  return 0;
}
