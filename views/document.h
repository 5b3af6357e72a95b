#pragma once
// What the workbench shows: the model (input module and its file), the pass
// history of its last build, the step the user looks at and the graph-level
// function shown. Views observe it through signals; it runs nothing and
// draws nothing — builds fill it through setHistory().
//
// Steps follow engine/viz/history.h: 0 is the input module, k the module
// after pass record k-1. Record k-1 is the pass `build --dump-passes`
// numbers k: the history is the engine's, unchanged.
#include <QObject>
#include <QString>

#include <vector>

#include "engine/ir/module.h"
#include "engine/transform/record.h"

namespace lowerscope {

class Document : public QObject {
  Q_OBJECT
public:
  explicit Document(QObject* parent = nullptr);

  /// Sets the model; clears the history and goes to step 0.
  void setModule(unity::ir::IRModule module, const QString& path = {});
  bool hasModule() const { return bool(input_); }
  unity::ir::IRModule module() const { return input_; }
  QString path() const { return path_; }

  /// Replaces the history (a build finished) and shows its last step.
  void setHistory(std::vector<unity::transform::PassRecord> records);
  const std::vector<unity::transform::PassRecord>& records() const { return records_; }
  bool hasHistory() const { return !records_.empty(); }
  /// Number of steps: records + 1 (the input), 0 without a module.
  int stepCount() const;
  int currentStep() const { return step_; }
  /// The module at the current step, and the one it was made from.
  unity::ir::IRModule currentModule() const;
  unity::ir::IRModule moduleAt(int step) const;
  unity::ir::IRModule moduleBefore(int step) const;
  /// "Input" for step 0, else the pass name.
  QString stepName(int step) const;
  /// The step a spec names ("7", "FuseOps"); -1 (and `error`) when none.
  int findStep(const QString& spec, QString* error = nullptr) const;

  QString currentFunction() const { return function_; }

public Q_SLOTS:
  void setCurrentStep(int step);
  void setCurrentFunction(const QString& name);

Q_SIGNALS:
  void moduleChanged();
  void historyChanged();
  void currentStepChanged(int step);
  void currentFunctionChanged(const QString& name);

private:
  /// Keeps the shown function when the current module still has it, else the default.
  void pickFunction();

  unity::ir::IRModule input_;
  QString path_;
  std::vector<unity::transform::PassRecord> records_;
  int step_ = 0;
  QString function_;
};

} // namespace lowerscope
