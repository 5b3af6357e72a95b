#include "views/session.h"

#include <QFileInfo>

#include "engine/build.h"
#include "engine/support/error.h"
#include "engine/viz/graph_model.h"
#include "engine/viz/history.h"
#include "views/build_worker.h"

namespace lowerscope {

Session::Session(QObject* parent) : QObject(parent), worker_(new BuildWorker(this)) {
  connect(worker_, &BuildWorker::passStarted, this,
          [this](int n, const QString& name, int) { Q_EMIT buildProgress(n, name); });
  connect(worker_, &BuildWorker::finished, this, &Session::onBuildFinished);
}

Session::~Session() = default;

bool Session::open(const QString& path, QString* error) {
  try {
    unity::ir::IRModule m = unity::viz::loadModelFile(path.toStdString());
    setModule(m, path);
    Q_EMIT info(tr("Opened %1").arg(path));
    return true;
  } catch (const unity::Error& e) {
    QString file = QString::fromStdString(e.loc().file);
    QString message = QString::fromStdString(e.loc().known() ? e.message() : e.what());
    if (error)
      *error = QString::fromStdString(e.what());
    Q_EMIT errorOccurred(message, file.isEmpty() ? path : file, e.loc().line, e.loc().column);
    return false;
  } catch (const std::exception& e) {
    if (error)
      *error = QString::fromUtf8(e.what());
    Q_EMIT errorOccurred(QString::fromUtf8(e.what()), path, 0, 0);
    return false;
  }
}

void Session::setModule(unity::ir::IRModule module, const QString& path) {
  cancelBuild();
  input_ = std::move(module);
  path_ = path;
  records_.clear();
  step_ = 0;
  pickFunction();
  Q_EMIT moduleChanged();
  Q_EMIT historyChanged();
  Q_EMIT currentStepChanged(step_);
}

int Session::stepCount() const { return input_ ? static_cast<int>(records_.size()) + 1 : 0; }

unity::ir::IRModule Session::moduleAt(int step) const {
  if (!input_ || step < 0 || step >= stepCount())
    return nullptr;
  return unity::viz::moduleAtStep(input_, records_, step);
}

unity::ir::IRModule Session::moduleBefore(int step) const {
  if (!input_ || step < 0 || step >= stepCount())
    return nullptr;
  return unity::viz::moduleBeforeStep(input_, records_, step);
}

unity::ir::IRModule Session::currentModule() const { return moduleAt(step_); }

QString Session::stepName(int step) const {
  if (step == 0)
    return tr("Input");
  if (step < 0 || step > static_cast<int>(records_.size()))
    return {};
  return QString::fromStdString(records_[step - 1].name);
}

int Session::findStep(const QString& spec, QString* error) const {
  try {
    return unity::viz::selectStep(records_, spec.toStdString());
  } catch (const unity::Error& e) {
    if (error)
      *error = QString::fromStdString(e.what());
    return -1;
  }
}

void Session::setCurrentStep(int step) {
  if (step < 0 || step >= stepCount() || step == step_)
    return;
  step_ = step;
  pickFunction();
  Q_EMIT currentStepChanged(step_);
}

void Session::setCurrentFunction(const QString& name) {
  if (name == function_)
    return;
  function_ = name;
  Q_EMIT currentFunctionChanged(function_);
}

/// Keeps the shown function when the current module still has it, else the default.
void Session::pickFunction() {
  unity::ir::IRModule m = currentModule();
  QString before = function_;
  if (!m) {
    function_.clear();
  } else if (function_.isEmpty() || !m->contains(function_.toStdString())) {
    function_ = QString::fromStdString(unity::viz::defaultGraphFunction(m));
  }
  if (function_ != before)
    Q_EMIT currentFunctionChanged(function_);
}

bool Session::isBuilding() const { return worker_->isRunning(); }

bool Session::startBuild() {
  if (!input_ || worker_->isRunning())
    return false;
  unity::BuildOptions o;
  o.codegen = codegen_;
  if (!worker_->start(input_, o))
    return false;
  Q_EMIT buildStarted();
  Q_EMIT info(tr("Building %1 ...").arg(QFileInfo(path_).fileName()));
  return true;
}

void Session::cancelBuild() { worker_->cancel(); }

bool Session::waitForBuild(int timeoutMs) { return worker_->wait(timeoutMs); }

void Session::onBuildFinished(const BuildOutcome& out) {
  if (out.cancelled) {
    Q_EMIT buildFinished(false, tr("Build cancelled"));
    return;
  }
  if (!out.result) {
    Q_EMIT errorOccurred(out.error, out.file.isEmpty() ? path_ : out.file, out.line, out.column);
    Q_EMIT buildFinished(false, tr("Build failed: %1").arg(out.error));
    return;
  }
  if (!out.result->input.same(input_)) // the model changed while building
    return;
  records_ = out.result->records;
  int changed = 0;
  for (auto& r : records_)
    changed += r.changed ? 1 : 0;
  QString summary = tr("Built: %1 passes (%2 changed the module) in %3 ms, codegen %4 ms")
                        .arg(records_.size())
                        .arg(changed)
                        .arg(out.result->passesMs, 0, 'f', 1)
                        .arg(out.result->codegenMs, 0, 'f', 1);
  Q_EMIT historyChanged();
  step_ = 0;
  setCurrentStep(stepCount() - 1);
  Q_EMIT info(summary);
  Q_EMIT buildFinished(true, summary);
}

} // namespace lowerscope
