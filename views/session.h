#pragma once
// The document of the workbench: the model (input module and its file),
// the pass history of its last build, the step the user looks at and the
// graph-level function shown. Views observe it through signals; nothing here
// draws. Builds run off the UI thread (BuildWorker); errors come back with
// their source location so the log can point at them.
//
// Steps follow engine/viz/history.h: 0 is the input module, k the module
// after pass record k-1.
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

#include "engine/ir/module.h"
#include "engine/transform/record.h"

namespace lowerscope {

class BuildWorker;
struct BuildOutcome;

class Session : public QObject {
  Q_OBJECT
public:
  explicit Session(QObject* parent = nullptr);
  ~Session() override;

  /// Loads a .uir or .onnx file. On failure emits errorOccurred (with the
  /// location when there is one), keeps the current model and returns false.
  bool open(const QString& path, QString* error = nullptr);
  /// Sets the model directly (tests, generated modules); clears the history.
  void setModule(unity::ir::IRModule module, const QString& path = {});
  bool hasModule() const { return bool(input_); }
  unity::ir::IRModule module() const { return input_; }
  QString path() const { return path_; }

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

  bool isBuilding() const;
  /// Codegen after the passes (default true); off: the passes only.
  void setCodegen(bool on) { codegen_ = on; }
  BuildWorker* worker() const { return worker_; }
  /// Blocks (processing events) until a running build ends; false on timeout.
  bool waitForBuild(int timeoutMs);

public Q_SLOTS:
  void setCurrentStep(int step);
  void setCurrentFunction(const QString& name);
  /// Starts a build of the input with the default pipeline; false when there
  /// is no module or a build runs already.
  bool startBuild();
  void cancelBuild();

Q_SIGNALS:
  void moduleChanged();
  void historyChanged();
  void currentStepChanged(int step);
  void currentFunctionChanged(const QString& name);
  void buildStarted();
  void buildProgress(int passCount, const QString& passName);
  void buildFinished(bool ok, const QString& summary);
  void errorOccurred(const QString& message, const QString& file, int line, int column);
  void info(const QString& message);

private:
  void onBuildFinished(const BuildOutcome& outcome);
  void pickFunction();

  unity::ir::IRModule input_;
  QString path_;
  std::vector<unity::transform::PassRecord> records_;
  int step_ = 0;
  QString function_;
  bool codegen_ = true;
  BuildWorker* worker_;
};

} // namespace lowerscope
