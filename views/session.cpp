#include "views/session.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QUndoCommand>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/build.h"
#include "engine/frontend/load_model.h"
#include "engine/support/error.h"
#include "engine/target/target.h"
#include "engine/transform/partition.h"
#include "engine/viz/graph_model.h"
#include "engine/viz/history.h"
#include "views/build_worker.h"

namespace lowerscope {

namespace {

/// One change of the assignments: redo sets `after`, undo `before`; both rebuild.
class AssignmentCommand : public QUndoCommand {
public:
  AssignmentCommand(Session* s, TargetAssignments before, TargetAssignments after,
                    const QString& text)
      : QUndoCommand(text), session_(s), before_(std::move(before)), after_(std::move(after)) {}
  void redo() override { apply(after_); }
  void undo() override { apply(before_); }

private:
  void apply(const TargetAssignments& a) {
    session_->setAssignments(a);
    session_->rebuild();
  }
  Session* session_;
  TargetAssignments before_, after_;
};

QString errorText(const std::exception& e) { return QString::fromUtf8(e.what()); }

} // namespace

Session::Session(QObject* parent)
    : QObject(parent), worker_(new BuildWorker(this)), undo_(new QUndoStack(this)) {
  connect(worker_, &BuildWorker::passStarted, this,
          [this](int n, const QString& name, int) { Q_EMIT buildProgress(n, name); });
  connect(worker_, &BuildWorker::finished, this, &Session::onBuildFinished);
}

Session::~Session() = default;

bool Session::open(const QString& path, QString* error) {
  try {
    unity::ir::IRModule m = unity::frontend::loadModel(path.toStdString());
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
  lastBuild_.reset();
  rebuildPending_ = false;
  // Assignments name bindings of the old model: they go with it.
  undo_->clear();
  sessionPath_.clear();
  if (!assignments_.empty()) {
    assignments_.clear();
    Q_EMIT assignmentsChanged();
  }
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
  unity::ir::IRModule start = input_;
  preRecords_.clear();
  if (!target_.isEmpty()) {
    o.target = target_.toStdString();
    if (!automatic_)
      o.disabledPasses.push_back("AssignTargets");
    try {
      auto t0 = std::chrono::steady_clock::now();
      start = annotatedInput(assignments_);
      if (!assignments_.empty()) {
        // Recorded like any pass, so the timeline shows what the drop did.
        unity::transform::PassRecord r;
        r.name = "AnnotateTarget";
        r.before = input_;
        r.after = start;
        r.changed = true;
        r.finished = true;
        r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                   .count();
        preRecords_.push_back(r);
      }
    } catch (const std::exception& e) {
      Q_EMIT errorOccurred(tr("target assignment: %1").arg(errorText(e)), path_, 0, 0);
      Q_EMIT buildFinished(false, tr("Build failed: %1").arg(errorText(e)));
      return false;
    }
  } else if (!assignments_.empty()) {
    Q_EMIT errorOccurred(tr("target assignments need a composite target"), path_, 0, 0);
    return false;
  }
  built_ = start;
  if (!worker_->start(start, o))
    return false;
  Q_EMIT buildStarted();
  Q_EMIT info(tr("Building %1 ...").arg(QFileInfo(path_).fileName()));
  return true;
}

void Session::cancelBuild() { worker_->cancel(); }

bool Session::waitForBuild(int timeoutMs) { return worker_->wait(timeoutMs); }

void Session::onBuildFinished(const BuildOutcome& out) {
  if (rebuildPending_) { // superseded by a newer assignment
    rebuildPending_ = false;
    startBuild();
    return;
  }
  if (out.cancelled) {
    Q_EMIT buildFinished(false, tr("Build cancelled"));
    return;
  }
  if (!out.result) {
    Q_EMIT errorOccurred(out.error, out.file.isEmpty() ? path_ : out.file, out.line, out.column);
    Q_EMIT buildFinished(false, tr("Build failed: %1").arg(out.error));
    return;
  }
  if (!out.result->input.same(built_)) // the model changed while building
    return;
  lastBuild_ = out.result;
  // AnnotateTarget (run here, before the engine's build) comes first.
  records_ = preRecords_;
  int shift = static_cast<int>(preRecords_.size());
  for (auto r : out.result->records) {
    r.index += shift;
    if (r.parent >= 0)
      r.parent += shift;
    records_.push_back(std::move(r));
  }
  reportPartition();
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

// ------------------------------------------------------------------ targets

QString Session::validateTarget(const QString& text) {
  if (text.trimmed().isEmpty())
    return {};
  try {
    unity::target::CompositeTarget::parse(text.toStdString());
    return {};
  } catch (const std::exception& e) {
    QString m = errorText(e);
    return m.isEmpty() ? tr("invalid target") : m;
  }
}

bool Session::setCompositeTarget(const QString& text, QString* error) {
  QString message = validateTarget(text);
  if (!message.isEmpty()) {
    if (error)
      *error = message;
    return false;
  }
  QString canonical;
  if (!text.trimmed().isEmpty())
    canonical =
        QString::fromStdString(unity::target::CompositeTarget::parse(text.toStdString()).str());
  if (canonical != target_) {
    target_ = canonical;
    Q_EMIT targetChanged();
  }
  return true;
}

QStringList Session::subTargets() const {
  QStringList out;
  if (target_.isEmpty())
    return out;
  for (auto& n : unity::target::CompositeTarget::parse(target_.toStdString()).names())
    out << QString::fromStdString(n);
  return out;
}

QString Session::defaultSubTarget() const {
  if (target_.isEmpty())
    return {};
  return QString::fromStdString(
      unity::target::CompositeTarget::parse(target_.toStdString()).defaultName);
}

QString Session::subTargetString(const QString& name) const {
  if (target_.isEmpty())
    return {};
  auto ct = unity::target::CompositeTarget::parse(target_.toStdString());
  const unity::target::Target* t = ct.find(name.toStdString());
  return t ? QString::fromStdString(t->str()) : QString();
}

void Session::setAssignments(const TargetAssignments& a) {
  if (a == assignments_)
    return;
  assignments_ = a;
  Q_EMIT assignmentsChanged();
}

void Session::setAutomaticAssignment(bool on) {
  if (on == automatic_)
    return;
  automatic_ = on;
  Q_EMIT targetChanged();
}

unity::ir::IRModule Session::annotatedInput(const TargetAssignments& a) const {
  if (!input_)
    throw unity::Error("no model is open");
  if (target_.isEmpty()) {
    if (!a.empty())
      throw unity::Error("target assignments need a composite target");
    return input_;
  }
  unity::ir::IRModule m =
      unity::ir::withAttrs(input_, input_->attrs.with("target", target_.toStdString()));
  if (a.empty())
    return m;
  return unity::transform::annotateByName(m, a);
}

bool Session::assign(const QStringList& names, const QString& subTarget, QString* error) {
  TargetAssignments next = assignments_;
  for (const QString& n : names) {
    std::string name = n.toStdString();
    auto it = std::find_if(next.begin(), next.end(), [&](auto& p) { return p.first == name; });
    if (it != next.end())
      it->second = subTarget.toStdString();
    else
      next.emplace_back(name, subTarget.toStdString());
  }
  QString shown = names.size() <= 3 ? names.join(", ") : tr("%1 nodes").arg(names.size());
  return setAssignmentsUndoable(next, tr("Assign %1 to %2").arg(shown, subTarget), error);
}

bool Session::setAssignmentsUndoable(const TargetAssignments& a, const QString& text,
                                     QString* error) {
  QString reason;
  if (target_.isEmpty() && !a.empty())
    reason = tr("set a composite target first (Target Palette)");
  else if (!target_.isEmpty()) {
    QStringList subs = subTargets();
    for (auto& [name, sub] : a)
      if (!subs.contains(QString::fromStdString(sub)))
        reason = tr("unknown sub-target '%1' (known: %2)")
                     .arg(QString::fromStdString(sub), subs.join(", "));
    if (reason.isEmpty()) {
      try {
        annotatedInput(a);
      } catch (const std::exception& e) {
        reason = errorText(e);
      }
    }
  }
  if (!reason.isEmpty()) {
    if (error)
      *error = tr("%1 refused: %2").arg(text, reason);
    Q_EMIT errorOccurred(tr("%1 refused: %2").arg(text, reason), path_, 0, 0);
    return false;
  }
  if (a == assignments_)
    return true;
  undo_->push(new AssignmentCommand(this, assignments_, a, text));
  Q_EMIT info(text);
  return true;
}

void Session::rebuild() {
  if (!input_)
    return;
  if (worker_->isRunning()) {
    rebuildPending_ = true;
    worker_->cancel();
    return;
  }
  startBuild();
}

void Session::reportPartition() {
  for (auto& r : records_) {
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

// ------------------------------------------------------------- comparison

namespace {

struct Comparison {
  bool ok = false;
  double maxDiff = 0;
  QString report;
};

std::vector<unity::Tensor> deterministicInputs(const unity::ir::IRModule& m) {
  std::string entry = m->contains("main") ? "main" : unity::viz::defaultGraphFunction(m);
  auto* f = unity::ir::as<unity::ir::Function>(m->lookup(entry));
  if (!f)
    throw unity::Error("no graph function to run");
  std::vector<unity::Tensor> out;
  unsigned seed = 1;
  for (auto& p : f->params) {
    auto* t = unity::ir::as<unity::ir::TensorSInfo>(p->sinfo);
    if (!t || !t->shape)
      throw unity::Error("parameter " + p->name + " is not a tensor of known rank");
    std::vector<int64_t> shape;
    for (auto& d : *t->shape)
      shape.push_back(unity::ir::asConstInt(d).value_or(1));
    unity::Tensor x(t->dtype, shape);
    for (int64_t i = 0; i < x.numel(); ++i)
      x.setDouble(i, std::sin(double(i * 13 + seed)));
    out.push_back(std::move(x));
    ++seed;
  }
  return out;
}

Comparison compare(const std::shared_ptr<const unity::BuildResult>& got) {
  Comparison c;
  try {
    unity::BuildOptions o;
    o.record = false;
    unity::ir::IRModule plain = unity::ir::withAttrs(
        got->input,
        got->input->attrs.without("target").without(unity::transform::kTargetAnnotationsAttr));
    unity::BuildResult want = unity::build(plain, o);
    auto inputs = deterministicInputs(want.lowered);
    auto a = got->executable->runTensors(inputs);
    auto b = want.executable->runTensors(inputs);
    if (a.size() != b.size())
      throw unity::Error("the builds return different numbers of outputs");
    int64_t count = 0;
    bool close = true;
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k].shape() != b[k].shape())
        throw unity::Error("output " + std::to_string(k) + " has a different shape");
      for (int64_t i = 0; i < a[k].numel(); ++i, ++count) {
        double x = a[k].getDouble(i), y = b[k].getDouble(i);
        double d = std::fabs(x - y);
        c.maxDiff = std::max(c.maxDiff, d);
        close = close && d <= 1e-4 * (1 + std::fabs(y));
      }
    }
    c.ok = close;
    c.report = QObject::tr("Run: %1 output value(s); largest difference to the all-llvm build "
                           "%2 (%3)")
                   .arg(count)
                   .arg(c.maxDiff, 0, 'g', 3)
                   .arg(close ? QObject::tr("same outputs") : QObject::tr("OUTPUTS DIFFER"));
  } catch (const std::exception& e) {
    c.report = QObject::tr("Run and compare failed: %1").arg(errorText(e));
  }
  return c;
}

} // namespace

bool Session::isComparing() const { return comparing_ != nullptr; }

bool Session::compareWithLlvm() {
  if (comparing_)
    return false;
  if (!lastBuild_ || !lastBuild_->executable) {
    Q_EMIT errorOccurred(tr("Run and compare: build first (a compile-only build cannot run)"),
                         path_, 0, 0);
    return false;
  }
  auto* watcher = new QFutureWatcher<Comparison>(this);
  comparing_ = watcher;
  connect(watcher, &QFutureWatcher<Comparison>::finished, this, [this, watcher] {
    Comparison c = watcher->result();
    watcher->deleteLater();
    comparing_ = nullptr;
    if (c.ok)
      Q_EMIT info(c.report);
    else
      Q_EMIT errorOccurred(c.report, path_, 0, 0);
    Q_EMIT comparisonFinished(c.ok, c.maxDiff, c.report);
  });
  Q_EMIT info(tr("Running the build and an all-llvm build of the same input ..."));
  watcher->setFuture(QtConcurrent::run([b = lastBuild_] { return compare(b); }));
  return true;
}

// ------------------------------------------------------------ session files

bool Session::saveSession(const QString& path, QString* error) const {
  auto fail = [&](const QString& why) {
    if (error)
      *error = tr("cannot save session %1: %2").arg(path, why);
    return false;
  };
  if (!input_ || path_.isEmpty())
    return fail(tr("no model file is open"));
  QDir dir = QFileInfo(path).absoluteDir();
  nlohmann::json j;
  j["lowerscope_session"] = 1;
  j["model"] = dir.relativeFilePath(QFileInfo(path_).absoluteFilePath()).toStdString();
  j["target"] = target_.toStdString();
  j["automatic"] = automatic_;
  j["assignments"] = nlohmann::json::array();
  for (auto& [name, sub] : assignments_)
    j["assignments"].push_back({{"name", name}, {"target", sub}});
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
    return fail(f.errorString());
  QByteArray bytes = QByteArray::fromStdString(j.dump(2) + "\n");
  if (f.write(bytes) != bytes.size())
    return fail(f.errorString());
  return true;
}

bool Session::openSession(const QString& path, QString* error) {
  auto fail = [&](const QString& why) {
    QString m = tr("cannot open session %1: %2").arg(path, why);
    if (error)
      *error = m;
    Q_EMIT errorOccurred(why, path, 0, 0);
    return false;
  };
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly))
    return fail(f.errorString());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(f.readAll().toStdString());
  } catch (const std::exception& e) {
    return fail(tr("not a valid session file (JSON): %1").arg(errorText(e)));
  }
  if (!j.is_object() || !j.contains("lowerscope_session"))
    return fail(tr("not a Lowerscope session file (no \"lowerscope_session\" key)"));
  TargetAssignments assignments;
  QString model, target;
  bool automatic = false;
  try {
    model = QString::fromStdString(j.at("model").get<std::string>());
    target = QString::fromStdString(j.value("target", std::string()));
    automatic = j.value("automatic", false);
    for (auto& a : j.value("assignments", nlohmann::json::array()))
      assignments.emplace_back(a.at("name").get<std::string>(), a.at("target").get<std::string>());
  } catch (const std::exception& e) {
    return fail(tr("malformed session file: %1").arg(errorText(e)));
  }
  QString modelPath = QFileInfo(path).absoluteDir().absoluteFilePath(model);
  if (!QFileInfo::exists(modelPath))
    return fail(tr("its model '%1' does not exist (looked for %2)").arg(model, modelPath));
  QString targetError = validateTarget(target);
  if (!targetError.isEmpty())
    return fail(tr("invalid target '%1': %2").arg(target, targetError));
  QString why;
  if (!open(modelPath, &why))
    return fail(tr("its model cannot be loaded: %1").arg(why));
  setCompositeTarget(target);
  automatic_ = automatic;
  Q_EMIT targetChanged();
  try {
    annotatedInput(assignments);
  } catch (const std::exception& e) {
    return fail(tr("its assignments do not fit the model: %1").arg(errorText(e)));
  }
  setAssignments(assignments);
  sessionPath_ = QFileInfo(path).absoluteFilePath();
  Q_EMIT info(tr("Opened session %1: %2 assignment(s)").arg(path).arg(assignments.size()));
  return true;
}

} // namespace lowerscope
