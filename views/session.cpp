#include "views/session.h"

#include <QFileInfo>

#include "engine/frontend/load_model.h"
#include "engine/support/error.h"
#include "engine/viz/history.h"
#include "views/build_comparison.h"
#include "views/session_file.h"

namespace lowerscope {

Session::Session(QObject* parent)
    : QObject(parent), document_(new Document(this)), targets_(new TargetSetup(document_, this)),
      builds_(new BuildController(document_, targets_, this)),
      comparison_(new BuildComparison(this)) {
  connect(document_, &Document::moduleChanged, this, &Session::moduleChanged);
  connect(document_, &Document::historyChanged, this, &Session::historyChanged);
  connect(document_, &Document::currentStepChanged, this, &Session::currentStepChanged);
  connect(document_, &Document::currentFunctionChanged, this, &Session::currentFunctionChanged);

  connect(builds_, &BuildController::started, this, &Session::buildStarted);
  connect(builds_, &BuildController::progress, this, &Session::buildProgress);
  connect(builds_, &BuildController::finished, this, &Session::buildFinished);
  connect(builds_, &BuildController::errorOccurred, this, &Session::errorOccurred);
  connect(builds_, &BuildController::info, this, &Session::info);

  connect(targets_, &TargetSetup::targetChanged, this, &Session::targetChanged);
  connect(targets_, &TargetSetup::assignmentsChanged, this, &Session::assignmentsChanged);
  // An edit, an undo or a redo of the assignments: build what it describes.
  connect(targets_, &TargetSetup::edited, builds_, &BuildController::rebuild);
  connect(targets_, &TargetSetup::refused, this,
          [this](const QString& message) { Q_EMIT errorOccurred(message, path(), 0, 0); });
  connect(targets_, &TargetSetup::accepted, this, &Session::info);

  connect(comparison_, &BuildComparison::finished, this,
          [this](bool ok, double maxDiff, const QString& report) {
            if (ok)
              Q_EMIT info(report);
            else
              Q_EMIT errorOccurred(report, path(), 0, 0);
            Q_EMIT comparisonFinished(ok, maxDiff, report);
          });
}

Session::~Session() = default;

bool Session::open(const QString& path, QString* error) {
  try {
    // Open anything: ONNX nodes the importer cannot convert become marked
    // placeholders, so the graph can be looked at; Build is refused with
    // their list (unity::build).
    unity::frontend::ImportOptions io;
    io.keepUnsupported = true;
    unity::ir::IRModule m = unity::frontend::loadModel(path.toStdString(), io);
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
  builds_->reset();
  targets_->forgetAssignments();
  sessionPath_.clear();
  document_->setModule(std::move(module), path);
}

// ------------------------------------------------------------- comparison

bool Session::isComparing() const { return comparison_->isRunning(); }

bool Session::compareWithLlvm() {
  if (comparison_->isRunning())
    return false;
  auto build = builds_->lastBuild();
  if (!build || !build->executable) {
    Q_EMIT errorOccurred(tr("Run and compare: build first (a compile-only build cannot run)"),
                         path(), 0, 0);
    return false;
  }
  Q_EMIT info(tr("Running the build and an all-llvm build of the same input ..."));
  return comparison_->start(build);
}

// ------------------------------------------------------------ session files

bool Session::saveSession(const QString& path, QString* error) const {
  QString why;
  if (!hasModule() || this->path().isEmpty())
    why = tr("no model file is open");
  else if (writeSessionFile(
               path, {this->path(), {}, compositeTarget(), automaticAssignment(), assignments()},
               &why))
    return true;
  if (error)
    *error = tr("cannot save session %1: %2").arg(path, why);
  return false;
}

bool Session::openSession(const QString& path, QString* error) {
  auto fail = [&](const QString& why) {
    if (error)
      *error = tr("cannot open session %1: %2").arg(path, why);
    Q_EMIT errorOccurred(why, path, 0, 0);
    return false;
  };
  QString why;
  std::optional<SessionFile> s = readSessionFile(path, &why);
  if (!s)
    return fail(why);
  if (!QFileInfo::exists(s->model))
    return fail(
        tr("its model '%1' does not exist (looked for %2)").arg(s->modelAsWritten, s->model));
  QString targetError = TargetSetup::validateTarget(s->target);
  if (!targetError.isEmpty())
    return fail(tr("invalid target '%1': %2").arg(s->target, targetError));
  if (!open(s->model, &why))
    return fail(tr("its model cannot be loaded: %1").arg(why));
  targets_->setCompositeTarget(s->target);
  targets_->setAutomaticAssignment(s->automatic);
  try {
    targets_->annotatedInput(s->assignments);
  } catch (const std::exception& e) {
    return fail(tr("its assignments do not fit the model: %1").arg(QString::fromUtf8(e.what())));
  }
  targets_->setAssignments(s->assignments);
  sessionPath_ = QFileInfo(path).absoluteFilePath();
  Q_EMIT info(tr("Opened session %1: %2 assignment(s)").arg(path).arg(s->assignments.size()));
  return true;
}

} // namespace lowerscope
