#pragma once
// Builds the document's model for the current target setup, one build at a
// time, off the UI thread (BuildWorker), and puts the pass history into the
// document when a build succeeds.
//
// The options come from the TargetSetup: the composite target, AssignTargets
// disabled unless "automatic" is on, and the user's assignments, which the
// engine's build driver applies as its first recorded pass (AnnotateTarget).
// The history is the engine's own, so step k here is pass k of
// `lowerscope-cli build --dump-passes` with the same options. A rebuild
// asked for while a build runs cancels it and starts once it has ended; a
// build of a model that has since been replaced is dropped.
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

#include "engine/build.h"
#include "engine/ir/module.h"

namespace lowerscope {

class BuildWorker;
class Document;
class TargetSetup;
struct BuildOutcome;

class BuildController : public QObject {
  Q_OBJECT
public:
  BuildController(Document* document, const TargetSetup* targets, QObject* parent = nullptr);

  /// Codegen after the passes (default true); off: the passes only.
  void setCodegen(bool on) { codegen_ = on; }
  /// Builds with a tuning database (empty: none): the default pipeline with
  /// ApplyTuningDatabase before DefaultSchedule, reading `path` (the
  /// workbench's "Apply best"). Takes effect at the next build.
  void setTuningDatabase(const QString& path);
  QString tuningDatabase() const { return tuningDatabase_; }
  /// What a build of the document started now would be given.
  unity::BuildOptions options() const;

  /// Starts a build; false when there is no model, a build runs already or
  /// there are assignments without a composite target.
  bool start();
  void cancel();
  /// Builds now, or after the running build (which is cancelled).
  void rebuild();
  /// Cancels a running build and forgets the last one (a new model).
  void reset();
  bool isBuilding() const;
  /// Blocks (processing events) until no build runs; false on timeout.
  bool wait(int timeoutMs);
  /// The result of the last successful build (null before one).
  std::shared_ptr<const unity::BuildResult> lastBuild() const { return lastBuild_; }
  /// True when the last build that ended was cancelled.
  bool lastCancelled() const;
  BuildWorker* worker() const { return worker_; }

Q_SIGNALS:
  void started();
  void progress(int passCount, const QString& passName);
  void finished(bool ok, const QString& summary);
  void errorOccurred(const QString& message, const QString& file, int line, int column);
  void info(const QString& message);

private:
  void onFinished(const BuildOutcome& outcome);
  /// Logs which functions PartitionByTarget outlined for each sub-target.
  void reportPartition(const std::vector<unity::transform::PassRecord>& records);

  Document* document_;
  const TargetSetup* targets_;
  BuildWorker* worker_;
  bool codegen_ = true;
  QString tuningDatabase_;
  bool rebuildPending_ = false;
  unity::ir::IRModule built_; // what the running build started from
  std::shared_ptr<const unity::BuildResult> lastBuild_;
};

} // namespace lowerscope
