#pragma once
// The document of the workbench: the model (input module and its file),
// the pass history of its last build, the step the user looks at and the
// graph-level function shown. Views observe it through signals; nothing here
// draws. Builds run off the UI thread (BuildWorker); errors come back with
// their source location so the log can point at them.
//
// Steps follow engine/viz/history.h: 0 is the input module, k the module
// after pass record k-1.
//
// Targets (docs/gui.md, "Targets and drag-to-target"): the session holds a
// composite target string ("fast: llvm; compat: c") and a list of
// assignments (binding or source-model node name -> sub-target). A build
// applies them to the input module with unity::transform::annotateByName,
// recorded as the first pass "AnnotateTarget" of the history; the engine's
// composite build then runs PartitionByTarget (and AssignTargets when
// "automatic" is on) and generates code per sub-target. Assignment changes go
// through the undo stack (assign(), setAssignmentsUndoable()), so each one
// can be undone; a session (model path, target, assignments) saves to and
// opens from a .lsession JSON file.
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/ir/module.h"
#include "engine/transform/record.h"

class QUndoStack;

namespace unity {
struct BuildResult;
}

namespace lowerscope {

/// Binding or source-model node name -> sub-target name, in the order given.
using TargetAssignments = std::vector<std::pair<std::string, std::string>>;

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
  /// The result of the last successful build (null before one).
  std::shared_ptr<const unity::BuildResult> lastBuild() const { return lastBuild_; }

  // ---- targets (see the header comment)
  /// The composite target ("" : a plain llvm build without partitioning).
  QString compositeTarget() const { return target_; }
  /// Empty when `text` is a valid target string, else the engine's message.
  static QString validateTarget(const QString& text);
  /// Sets the composite target after validating it; false (and `error`, the
  /// engine's message) when invalid. Does not rebuild.
  bool setCompositeTarget(const QString& text, QString* error = nullptr);
  /// Sub-target names of the composite target, in order; the default one.
  QStringList subTargets() const;
  QString defaultSubTarget() const;
  /// The target string of sub-target `name` ("" when unknown).
  QString subTargetString(const QString& name) const;
  const TargetAssignments& assignments() const { return assignments_; }
  /// Sets the assignments without the undo stack (undo commands, loading).
  void setAssignments(const TargetAssignments& a);
  /// Library sub-targets claim their patterns (AssignTargets) when on.
  bool automaticAssignment() const { return automatic_; }
  void setAutomaticAssignment(bool on);
  /// The input module with the composite target and `a` applied (what a
  /// build starts from). Throws unity::Error (unknown name or sub-target).
  unity::ir::IRModule annotatedInput(const TargetAssignments& a) const;
  /// Assigns `names` to `subTarget` as one undoable step and rebuilds.
  /// Refused (false, `error`, logged) when a name resolves to nothing, the
  /// sub-target is unknown or there is no composite target.
  bool assign(const QStringList& names, const QString& subTarget, QString* error = nullptr);
  /// Replaces all assignments as one undoable step (e.g. "clear") and rebuilds.
  bool setAssignmentsUndoable(const TargetAssignments& a, const QString& text,
                              QString* error = nullptr);
  QUndoStack* undoStack() const { return undo_; }
  /// Runs the last build and a plain llvm build of the same input on the
  /// same deterministic inputs (sin-filled; symbolic dims 1), off the UI
  /// thread, and reports the largest difference by comparisonFinished (and
  /// the log). False when there is no runnable build or a comparison runs.
  bool compareWithLlvm();
  bool isComparing() const;
  /// Rebuilds now, or after the running build (which is cancelled).
  void rebuild();

  // ---- session files (.lsession, JSON)
  /// Writes model path (relative to the session file), target, automatic
  /// flag and assignments. False (and `error`) on I/O failure or no model.
  bool saveSession(const QString& path, QString* error = nullptr) const;
  /// Opens a session file: its model, target and assignments. A corrupt file,
  /// a missing model or an invalid target gives false and an error naming
  /// the file and the cause; the current state is then kept.
  bool openSession(const QString& path, QString* error = nullptr);
  QString sessionPath() const { return sessionPath_; }
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
  /// The composite target or the assignments changed.
  void targetChanged();
  void assignmentsChanged();
  /// `ok`: both ran and agree within 1e-4 (relative); `report` says so.
  void comparisonFinished(bool ok, double maxDiff, const QString& report);

private:
  void onBuildFinished(const BuildOutcome& outcome);
  /// Logs which functions PartitionByTarget outlined for each sub-target.
  void reportPartition();
  void pickFunction();

  unity::ir::IRModule input_;
  QString path_;
  std::vector<unity::transform::PassRecord> records_;
  int step_ = 0;
  QString function_;
  bool codegen_ = true;
  BuildWorker* worker_;
  std::shared_ptr<const unity::BuildResult> lastBuild_;
  unity::ir::IRModule built_;                            // what the running build started from
  std::vector<unity::transform::PassRecord> preRecords_; // AnnotateTarget
  bool rebuildPending_ = false;
  QString target_;
  TargetAssignments assignments_;
  bool automatic_ = false;
  QUndoStack* undo_;
  QString sessionPath_;
  QObject* comparing_ = nullptr; // the running comparison's watcher
};

} // namespace lowerscope
