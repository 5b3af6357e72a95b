#pragma once
// The workbench session: one object that puts the parts together, so the
// main window and the views have one thing to observe.
//
//   Document        the model, the pass history, the current step/function
//   TargetSetup     composite target and assignments, with undo
//   BuildController builds for the current setup, off the UI thread
//   BuildComparison Run and Compare against an all-llvm build
//   session_file.h  the .lsession format
//
// Session itself only wires them and carries the workflows that span parts:
// opening a model (a new model cancels the build and drops the assignments),
// rebuilding when the assignments are edited or undone, saving and opening
// .lsession files, and reporting what happens (info / errorOccurred, with a
// source location when there is one). Its query and slot members forward to
// the part that owns the state; new code may use the parts directly.
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

#include "engine/ir/module.h"
#include "engine/transform/record.h"
#include "views/build_controller.h"
#include "views/document.h"
#include "views/target_setup.h"

class QUndoStack;

namespace lowerscope {

class BuildComparison;

class Session : public QObject {
  Q_OBJECT
public:
  explicit Session(QObject* parent = nullptr);
  ~Session() override;

  Document* document() const { return document_; }
  TargetSetup* targets() const { return targets_; }
  BuildController* builds() const { return builds_; }

  // ---- the model
  /// Loads a .uir or .onnx file. On failure emits errorOccurred (with the
  /// location when there is one), keeps the current model and returns false.
  bool open(const QString& path, QString* error = nullptr);
  /// Sets the model directly (tests, generated modules): cancels a running
  /// build, clears the history and the assignments.
  void setModule(unity::ir::IRModule module, const QString& path = {});
  bool hasModule() const { return document_->hasModule(); }
  unity::ir::IRModule module() const { return document_->module(); }
  QString path() const { return document_->path(); }

  // ---- history and position (Document)
  const std::vector<unity::transform::PassRecord>& records() const { return document_->records(); }
  bool hasHistory() const { return document_->hasHistory(); }
  int stepCount() const { return document_->stepCount(); }
  int currentStep() const { return document_->currentStep(); }
  unity::ir::IRModule currentModule() const { return document_->currentModule(); }
  unity::ir::IRModule moduleAt(int step) const { return document_->moduleAt(step); }
  unity::ir::IRModule moduleBefore(int step) const { return document_->moduleBefore(step); }
  QString stepName(int step) const { return document_->stepName(step); }
  int findStep(const QString& spec, QString* error = nullptr) const {
    return document_->findStep(spec, error);
  }
  QString currentFunction() const { return document_->currentFunction(); }

  // ---- builds (BuildController)
  bool isBuilding() const { return builds_->isBuilding(); }
  void setCodegen(bool on) { builds_->setCodegen(on); }
  std::shared_ptr<const unity::BuildResult> lastBuild() const { return builds_->lastBuild(); }
  /// Rebuilds now, or after the running build (which is cancelled).
  void rebuild() { builds_->rebuild(); }
  /// Blocks (processing events) until no build runs; false on timeout.
  bool waitForBuild(int timeoutMs) { return builds_->wait(timeoutMs); }

  // ---- targets (TargetSetup)
  QString compositeTarget() const { return targets_->compositeTarget(); }
  static QString validateTarget(const QString& text) { return TargetSetup::validateTarget(text); }
  bool setCompositeTarget(const QString& text, QString* error = nullptr) {
    return targets_->setCompositeTarget(text, error);
  }
  QStringList subTargets() const { return targets_->subTargets(); }
  QString defaultSubTarget() const { return targets_->defaultSubTarget(); }
  QString subTargetString(const QString& name) const { return targets_->subTargetString(name); }
  const TargetAssignments& assignments() const { return targets_->assignments(); }
  void setAssignments(const TargetAssignments& a) { targets_->setAssignments(a); }
  bool automaticAssignment() const { return targets_->automaticAssignment(); }
  void setAutomaticAssignment(bool on) { targets_->setAutomaticAssignment(on); }
  unity::ir::IRModule annotatedInput(const TargetAssignments& a) const {
    return targets_->annotatedInput(a);
  }
  /// Undoable; the build follows (see TargetSetup).
  bool assign(const QStringList& names, const QString& subTarget, QString* error = nullptr) {
    return targets_->assign(names, subTarget, error);
  }
  bool setAssignmentsUndoable(const TargetAssignments& a, const QString& text,
                              QString* error = nullptr) {
    return targets_->setAssignmentsUndoable(a, text, error);
  }
  QUndoStack* undoStack() const { return targets_->undoStack(); }

  // ---- Run and Compare (BuildComparison)
  /// Compares the last build with an all-llvm build off the UI thread;
  /// comparisonFinished (and the log) reports. False when there is no
  /// runnable build or a comparison runs.
  bool compareWithLlvm();
  bool isComparing() const;

  // ---- session files (.lsession, session_file.h)
  /// Writes model path, target, automatic flag and assignments. False (and
  /// `error`) on I/O failure or when no model file is open.
  bool saveSession(const QString& path, QString* error = nullptr) const;
  /// Opens a session file: its model, target and assignments. A corrupt file,
  /// a missing model or an invalid target gives false and an error naming
  /// the file and the cause; the current state is then kept.
  bool openSession(const QString& path, QString* error = nullptr);
  QString sessionPath() const { return sessionPath_; }

public Q_SLOTS:
  void setCurrentStep(int step) { document_->setCurrentStep(step); }
  void setCurrentFunction(const QString& name) { document_->setCurrentFunction(name); }
  /// Starts a build of the input for the current target setup; false when
  /// there is no module or a build runs already.
  bool startBuild() { return builds_->start(); }
  void cancelBuild() { builds_->cancel(); }

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
  Document* document_;
  TargetSetup* targets_;
  BuildController* builds_;
  BuildComparison* comparison_;
  QString sessionPath_;
};

} // namespace lowerscope
