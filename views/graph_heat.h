#pragma once
// The heat overlay of the graph: where the model's time goes once it is
// tuned. Each kernel (a tuning task: one workload on one target) costs its
// best valid record's latency times its calls per model run; the graph node
// that calls it is filled on a yellow-to-red ramp by that cost relative to
// the most expensive kernel, and its tooltip gives the latency, the calls
// and the share of the model's tuned time. Kernels without a valid record
// for their target are grey ("not tuned"), so a half-tuned model shows what
// is missing.
//
// computeModelHeat() does the work (a build up to DefaultSchedule through
// tuner::extractTasks, then one best-record query per task): it is plain C++
// without widgets, safe on any thread, and the window runs it on a
// BackgroundJob. heatOverlay() turns its result into GraphView::setHeat's
// map; HeatLegend is the ramp and its labels, drawn over the graph canvas.
#include <QHash>
#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

#include "engine/build.h"
#include "engine/ir/module.h"
#include "views/graph_view.h"

namespace lowerscope {

/// One kernel of the model and its tuned cost.
struct KernelHeat {
  QString name;                // the task's first function in the lowered module
  QStringList functions;       // every function that is this workload
  QString hash, target;        // the database keys
  double flops = 0;            // of one call
  int calls = 0;               // per model run
  std::optional<double> bestS; // the best ok record's mean latency
  int64_t recordId = 0;        // that record (0: none)
  double totalS() const { return bestS ? *bestS * calls : 0; }
};

struct ModelHeat {
  std::vector<KernelHeat> kernels;
  double totalS = 0; // sum of totalS() over the tuned kernels
  QString error;     // why nothing could be computed (bad database, build error)
  int tunedCount() const;
  /// The kernel that function `name` belongs to; null when none.
  const KernelHeat* kernelOf(const QString& name) const;
};

/// The tuned cost of every kernel of `model` built with `options` (its
/// pipeline must be the default one; passes are ignored) from the database
/// file `database`. Never throws: failures are in `error`.
ModelHeat computeModelHeat(const unity::ir::IRModule& model, unity::BuildOptions options,
                           const QString& database);

/// The ramp colour for `fraction` in [0, 1] (0: cheapest, 1: most expensive).
QColor heatColor(double fraction);
/// The fill of kernels without a record, and of the other operators.
QColor heatUntunedColor();
QColor heatOtherColor();

/// GraphView::setHeat's map: every function of every kernel, by name.
QHash<QString, NodeHeat> heatOverlay(const ModelHeat& heat);

/// Seconds as "12.3 us", "4.56 ms", "1.234 s".
QString formatLatency(double seconds);

/// The legend: the ramp from the cheapest to the most expensive kernel's
/// share, the grey of untuned kernels, the kernels' tuned sum, in two lines.
/// Put on a canvas with attachTo: while shown it sits in a band the canvas
/// keeps below its viewport (GraphCanvas::setBottomBand), so it never
/// covers a node however the graph is zoomed or scrolled.
class HeatLegend : public QWidget {
  Q_OBJECT
public:
  explicit HeatLegend(QWidget* parent = nullptr);
  void setHeat(const ModelHeat& heat);
  /// Reparents to `canvas`, in its bottom band (left), and shows.
  void attachTo(GraphCanvas* canvas);
  QSize sizeHint() const override;

protected:
  void paintEvent(QPaintEvent* e) override;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void showEvent(QShowEvent* e) override;
  void hideEvent(QHideEvent* e) override;

private:
  QString title() const;
  QString untunedLine() const;
  void place();
  GraphCanvas* canvas_ = nullptr;
  /// canvas_->viewport() when attached: the event filter compares against
  /// it without calling into a canvas that may be in its destructor.
  QWidget* viewport_ = nullptr;
  bool compact_ = false; // three lines, for a canvas narrower than the two-line form
  double maxShare_ = 0, minShare_ = 0, totalS_ = 0;
  int tuned_ = 0, kernels_ = 0;
};

} // namespace lowerscope
