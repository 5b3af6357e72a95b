#pragma once
// Build ▸ Run and Compare: runs a build and a plain llvm build of the same
// input on the same deterministic inputs, off the UI thread, and says how far
// their outputs are apart.
//
// The inputs are sin-filled (symbolic dimensions taken as 1) so every run of
// the comparison sees the same numbers. The element-wise rule is the
// engine's (unity::runtime::compareTensorLists, engine/runtime/compare.h)
// with rtol = atol = 1e-4. Only one comparison runs at a time.
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

#include "engine/ir/module.h"
#include "engine/support/tensor.h"

namespace unity {
struct BuildResult;
}

namespace lowerscope {

class BackgroundJob;

/// The inputs a comparison runs a model on (and model_latency.h times it
/// on): one tensor per parameter of its graph function ("main", else the
/// default one), element i of the k-th parameter (from 1) sin(13 i + k), a
/// symbolic dimension taken as 1. Throws unity::Error when there is no graph
/// function or a parameter is not a tensor of known rank.
std::vector<unity::Tensor> deterministicInputs(const unity::ir::IRModule& m);

class BuildComparison : public QObject {
  Q_OBJECT
public:
  explicit BuildComparison(QObject* parent = nullptr);

  /// Starts comparing `build` (which must be runnable) with an all-llvm
  /// build of its input; false while a comparison runs.
  bool start(std::shared_ptr<const unity::BuildResult> build);
  bool isRunning() const;

Q_SIGNALS:
  /// `ok`: both ran and agree within the tolerance; `maxDiff`: the largest
  /// absolute difference; `report`: one line that says so.
  void finished(bool ok, double maxDiff, const QString& report);

private:
  BackgroundJob* job_;
};

} // namespace lowerscope
