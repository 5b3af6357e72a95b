// Latency of two builds of one model, interleaved (see model_latency.h).
#include "views/model_latency.h"

#include <QObject>

#include <exception>
#include <vector>

#include "engine/support/error.h"
#include "engine/support/measure.h"
#include "views/build_comparison.h"
#include "views/graph_heat.h"

namespace lowerscope {

QString LatencyComparison::text() const {
  if (!error.isEmpty())
    return error;
  const double s = speedup();
  return QObject::tr("before %1, after %2 (%3; CPU %4 \u2192 %5)")
      .arg(formatLatency(beforeS), formatLatency(afterS),
           s >= 1 ? QObject::tr("%1x faster").arg(s, 0, 'f', 2)
                  : QObject::tr("%1x slower").arg(1 / s, 0, 'f', 2),
           formatLatency(cpuBeforeS), formatLatency(cpuAfterS));
}

LatencyComparison compareModelLatency(const unity::BuildResult& before,
                                      const unity::BuildResult& after, int rounds,
                                      const std::atomic<bool>* cancel) {
  LatencyComparison c;
  try {
    if (!before.executable || !after.executable)
      throw unity::Error("a compile-only build (cross target) cannot be run here");
    const auto inputs = deterministicInputs(before.lowered);
    unity::MeasureOptions mo;
    mo.warmup = 1;
    mo.repeats = 3;
    mo.minSeconds = 0.05;
    mo.maxRepeats = 200;
    mo.cpuClock = unity::CpuClock::Process; // the kernels run on a thread pool
    std::vector<double> b, a, cb, ca;
    for (int r = 0; r < rounds; ++r) {
      if (cancel && cancel->load() && r > 0)
        break;
      const unity::Measurement mb =
          unity::measure([&] { before.executable->runTensors(inputs); }, mo);
      const unity::Measurement ma =
          unity::measure([&] { after.executable->runTensors(inputs); }, mo);
      b.push_back(mb.wallStats().median);
      cb.push_back(mb.cpuStats().median);
      a.push_back(ma.wallStats().median);
      ca.push_back(ma.cpuStats().median);
    }
    c.rounds = static_cast<int>(b.size());
    c.beforeS = unity::summarize(b).median;
    c.afterS = unity::summarize(a).median;
    c.cpuBeforeS = unity::summarize(cb).median;
    c.cpuAfterS = unity::summarize(ca).median;
  } catch (const std::exception& e) {
    c = {};
    c.error = QObject::tr("could not time the model: %1").arg(QString::fromUtf8(e.what()));
  }
  return c;
}

} // namespace lowerscope
