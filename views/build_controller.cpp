#include "views/build_controller.h"

#include <QFileInfo>
#include <QStringList>

#include <map>
#include <string>
#include <vector>

#include "tuner/apply_database.h"
#include "views/build_worker.h"
#include "views/document.h"
#include "views/target_setup.h"

namespace lowerscope {

BuildController::BuildController(Document* document, const TargetSetup* targets, QObject* parent)
    : QObject(parent), document_(document), targets_(targets), worker_(new BuildWorker(this)) {
  // Here, on the UI thread before any build starts: registering inserts into
  // the engine's pass registry, which builds on other threads read.
  unity::tuner::registerTunerPasses();
  connect(worker_, &BuildWorker::passStarted, this, &BuildController::progress);
  connect(worker_, &BuildWorker::finished, this, &BuildController::onFinished);
}

unity::BuildOptions BuildController::options() const {
  unity::BuildOptions o;
  o.codegen = codegen_;
  const QString target = targets_->compositeTarget();
  if (!target.isEmpty()) {
    o.target = target.toStdString();
    if (!targets_->automaticAssignment())
      o.disabledPasses.push_back("AssignTargets");
    o.assignments = targets_->assignments();
    o.assignmentsSource = "target assignments";
  }
  if (!tuningDatabase_.isEmpty()) {
    o.passes = unity::tuner::pipelineWithDatabase(o.pipeline);
    o.config.set(unity::tuner::kDatabaseConfigKey, tuningDatabase_.toStdString());
  }
  return o;
}

void BuildController::setTuningDatabase(const QString& path) { tuningDatabase_ = path; }

bool BuildController::start() {
  if (!document_->hasModule() || worker_->isRunning())
    return false;
  const QString path = document_->path();
  if (targets_->compositeTarget().isEmpty() && !targets_->assignments().empty()) {
    Q_EMIT errorOccurred(tr("target assignments need a composite target"), path, 0, 0);
    return false;
  }
  built_ = document_->module();
  if (!worker_->start(built_, options()))
    return false;
  Q_EMIT started();
  Q_EMIT info(tr("Building %1 ...").arg(QFileInfo(path).fileName()));
  return true;
}

void BuildController::cancel() { worker_->cancel(); }

void BuildController::rebuild() {
  if (!document_->hasModule())
    return;
  if (worker_->isRunning()) {
    rebuildPending_ = true;
    worker_->cancel();
    return;
  }
  start();
}

void BuildController::reset() {
  worker_->cancel();
  rebuildPending_ = false;
  lastBuild_.reset();
}

bool BuildController::isBuilding() const { return worker_->isRunning(); }

bool BuildController::wait(int timeoutMs) { return worker_->wait(timeoutMs); }

bool BuildController::lastCancelled() const { return worker_->lastOutcome().cancelled; }

void BuildController::onFinished(const BuildOutcome& out) {
  if (rebuildPending_) { // superseded by a newer setup
    rebuildPending_ = false;
    start();
    return;
  }
  if (out.cancelled) {
    Q_EMIT finished(false, tr("Build cancelled"));
    return;
  }
  if (!out.result) {
    Q_EMIT errorOccurred(out.error, out.file.isEmpty() ? document_->path() : out.file, out.line,
                         out.column);
    Q_EMIT finished(false, tr("Build failed: %1").arg(out.error));
    return;
  }
  if (!out.result->input.same(built_)) // the model changed while building
    return;
  lastBuild_ = out.result;
  std::vector<unity::transform::PassRecord> records = out.result->records;
  int changed = 0;
  for (auto& r : records)
    changed += r.changed ? 1 : 0;
  const QString summary = tr("Built: %1 passes (%2 changed the module) in %3 ms, codegen %4 ms")
                              .arg(records.size())
                              .arg(changed)
                              .arg(out.result->passesMs, 0, 'f', 1)
                              .arg(out.result->codegenMs, 0, 'f', 1);
  reportPartition(records);
  document_->setHistory(std::move(records));
  Q_EMIT info(summary);
  Q_EMIT finished(true, summary);
}

void BuildController::reportPartition(const std::vector<unity::transform::PassRecord>& records) {
  for (auto& r : records) {
    if (r.name != "PartitionByTarget" || !r.before || !r.after)
      continue;
    std::map<std::string, std::vector<std::string>> made;
    for (auto& [name, f] : r.after->functions)
      if (!r.before->contains(name) && f->attrs.has("target"))
        made[f->attrs.getString("target")].push_back(name);
    for (auto& [sub, fns] : made) {
      QStringList names;
      for (auto& n : fns)
        names << QString::fromStdString(n);
      Q_EMIT info(tr("PartitionByTarget: %1 got %2 function(s): %3")
                      .arg(QString::fromStdString(sub))
                      .arg(fns.size())
                      .arg(names.join(", ")));
    }
  }
}

} // namespace lowerscope
