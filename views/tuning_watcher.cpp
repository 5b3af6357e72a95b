// Reading a tuning database into TuningSnapshots, and the poller thread that
// does it when the file changes (see tuning_watcher.h for why).
#include "views/tuning_watcher.h"

#include "views/tuning_models.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <map>

namespace lowerscope {

using unity::tuner::Database;
using unity::tuner::Record;
using unity::tuner::RecordStatus;
using unity::tuner::RunStatus;

namespace {

QDateTime parseTime(const std::string& text) {
  QDateTime t = QDateTime::fromString(QString::fromStdString(text), Qt::ISODateWithMs);
  if (!t.isValid())
    t = QDateTime::fromString(QString::fromStdString(text), Qt::ISODate);
  return t;
}

double secondsBetween(const QDateTime& from, const QDateTime& to) {
  if (!from.isValid() || !to.isValid())
    return 0;
  return std::max<double>(0, double(from.msecsTo(to)) / 1000.0);
}

QString configSummary(const nlohmann::json& c) {
  if (!c.is_object())
    return {};
  QStringList parts;
  auto add = [&](const char* key, const QString& label) {
    if (!c.contains(key) || c[key].is_null())
      return;
    const nlohmann::json& v = c[key];
    QString text;
    if (v.is_string())
      text = QString::fromStdString(v.get<std::string>());
    else if (v.is_array()) {
      if (v.empty())
        return;
      QStringList items;
      for (auto& x : v)
        items << QString::fromStdString(x.is_string() ? x.get<std::string>() : x.dump());
      text = items.join(QStringLiteral(","));
    } else
      text = QString::fromStdString(v.dump());
    parts << QStringLiteral("%1: %2").arg(label, text);
  };
  if (c.contains("model") && c["model"].is_string())
    parts << QStringLiteral("model: %1")
                 .arg(QFileInfo(QString::fromStdString(c["model"].get<std::string>())).fileName());
  add("target", QStringLiteral("target"));
  add("trials", QStringLiteral("trials"));
  if (c.value("time_budget_s", 0.0) > 0)
    add("time_budget_s", QStringLiteral("time budget (s)"));
  add("timeout_s", QStringLiteral("timeout (s)"));
  add("tasks", QStringLiteral("tasks"));
  if (c.contains("runner") && !c["runner"].is_null())
    parts << QStringLiteral("runner: %1").arg(formatRunner(c["runner"]));
  return parts.join(QStringLiteral("; "));
}

/// At most `limit` points of a best-so-far curve, for the charts: the curve
/// is cut into `limit` equal ranges of trials and the last point of each is
/// kept (with the first point), so the steps stay where they were. A run
/// where almost every trial improves would otherwise send tens of thousands
/// of points to the UI thread.
void decimate(std::vector<TuningCurvePoint>& curve, size_t limit) {
  if (curve.size() <= limit || limit < 3)
    return;
  const double first = curve.front().trial;
  const double span = std::max(1, curve.back().trial - curve.front().trial);
  auto bucket = [&](size_t i) { return int((curve[i].trial - first) / span * double(limit - 2)); };
  std::vector<TuningCurvePoint> kept{curve.front()};
  for (size_t i = 1; i < curve.size(); ++i)
    if (i + 1 == curve.size() || bucket(i + 1) != bucket(i))
      kept.push_back(curve[i]);
  curve = std::move(kept);
}

} // namespace

unity::tuner::ProcessLiveness runLiveness(const unity::tuner::Run& run) {
  if (run.status != RunStatus::Running || !run.process)
    return unity::tuner::ProcessLiveness::Unknown;
  return unity::tuner::liveness(*run.process);
}

QString runStateText(const unity::tuner::Run& run, unity::tuner::ProcessLiveness liveness) {
  if (run.status == RunStatus::Running) {
    if (liveness == unity::tuner::ProcessLiveness::Gone)
      return QObject::tr("interrupted");
    if (run.control == unity::tuner::RunControl::Paused)
      return QObject::tr("paused");
    if (run.control == unity::tuner::RunControl::Cancelling)
      return QObject::tr("cancelling");
  }
  return QString::fromLatin1(unity::tuner::toString(run.status));
}

TuningSnapshotPtr readTuningSnapshot(Database& db, int64_t runId) {
  auto s = std::make_shared<TuningSnapshot>();
  s->databasePath = QString::fromStdString(db.path());
  try {
    s->runs = db.runs();
    if (runId == 0 && !s->runs.empty())
      runId = s->runs.back().id; // ORDER BY id: the newest
    for (auto& r : s->runs) {
      s->runLiveness.push_back(runLiveness(r));
      if (r.id == runId) {
        s->run = r;
        s->liveness = s->runLiveness.back();
      }
    }
    if (!s->run)
      return s;
    s->runId = runId;
    const unity::tuner::Run& run = *s->run;
    s->configSummary = configSummary(run.config);

    std::map<std::string, int64_t> workloadOfHash;
    std::map<int64_t, double> flopsOf;
    for (auto& w : db.workloads()) {
      workloadOfHash[w.hash] = w.id;
      flopsOf[w.id] = w.flops;
    }
    std::map<std::string, int64_t> targetOfText;
    std::map<int64_t, std::string> textOfTarget;
    for (auto& t : db.targets()) {
      targetOfText[t.text] = t.id;
      textOfTarget[t.id] = t.text;
    }
    std::map<std::pair<int64_t, int64_t>, size_t> rowOf;
    // task_info is written by `tune` with a new run (names, weights); a run
    // of another tool falls back to the pairs its records name.
    if (run.config.is_object() && run.config.contains("task_info") &&
        run.config["task_info"].is_array()) {
      for (auto& t : run.config["task_info"]) {
        TuningTaskRow row;
        row.name = QString::fromStdString(t.value("name", std::string()));
        row.target = QString::fromStdString(t.value("target", std::string()));
        row.subTarget = QString::fromStdString(t.value("sub_target", std::string()));
        row.flops = t.value("flops", 0.0);
        row.weight = t.value("weight", -1);
        row.tunable = t.value("tunable", true);
        row.whyNotTunable = QString::fromStdString(t.value("why_not_tunable", std::string()));
        auto w = workloadOfHash.find(t.value("hash", std::string()));
        auto g = targetOfText.find(row.target.toStdString());
        if (w != workloadOfHash.end() && g != targetOfText.end()) {
          row.workloadId = w->second;
          row.targetId = g->second;
          rowOf[{row.workloadId, row.targetId}] = s->tasks.size();
        }
        s->tasks.push_back(row);
      }
    }
    const std::vector<Record> records = db.recordsOfRun(runId);
    for (const Record& r : records) {
      auto key = std::make_pair(r.workloadId, r.targetId);
      if (rowOf.count(key))
        continue;
      TuningTaskRow row;
      row.name = QStringLiteral("workload %1").arg(r.workloadId);
      row.target = QString::fromStdString(textOfTarget[r.targetId]);
      row.flops = flopsOf[r.workloadId];
      row.workloadId = r.workloadId;
      row.targetId = r.targetId;
      rowOf[key] = s->tasks.size();
      s->tasks.push_back(row);
    }
    s->taskCurves.resize(s->tasks.size());

    const QDateTime started = parseTime(run.startedAt);
    std::vector<double> recordTimes;
    recordTimes.reserve(records.size());
    int trial = 0;
    double lastModel = 0;
    for (const Record& r : records) {
      ++trial;
      const double at = secondsBetween(started, parseTime(r.createdAt));
      recordTimes.push_back(at);
      TuningTaskRow& row = s->tasks[rowOf[{r.workloadId, r.targetId}]];
      auto& curve = s->taskCurves[rowOf[{r.workloadId, r.targetId}]];
      ++row.trials;
      if (r.status != RecordStatus::Ok || !r.meanS || *r.meanS <= 0) {
        ++row.errors;
        continue;
      }
      ++s->okRecords;
      const double sec = *r.meanS;
      if (row.firstSeconds == 0)
        row.firstSeconds = sec;
      if (row.bestSeconds == 0 || sec < row.bestSeconds) {
        row.bestSeconds = sec;
        curve.push_back({trial, at, row.gflops()});
      }
      // The model's latency once every tunable task has a valid one.
      double model = 0;
      bool complete = true;
      for (auto& t : s->tasks) {
        if (!t.tunable)
          continue;
        if (t.bestSeconds <= 0) {
          complete = false;
          break;
        }
        model += std::max(t.weight < 0 ? 1 : t.weight, 0) * t.bestSeconds;
      }
      if (complete && model > 0 && model != lastModel) {
        s->modelCurve.push_back({trial, at, model});
        lastModel = model;
      }
    }
    s->records = int(records.size());
    // Extend every curve to the last record, so a flat line says "no better
    // candidate since".
    if (!records.empty()) {
      for (auto& c : s->taskCurves)
        if (!c.empty() && c.back().trial != trial)
          c.push_back({trial, recordTimes.back(), c.back().value});
      if (!s->modelCurve.empty() && s->modelCurve.back().trial != trial)
        s->modelCurve.push_back({trial, recordTimes.back(), s->modelCurve.back().value});
    }

    for (auto& c : s->taskCurves)
      decimate(c, kMaxCurvePoints);
    decimate(s->modelCurve, kMaxCurvePoints);

    const bool running = run.status == RunStatus::Running;
    if (!running && !run.endedAt.empty())
      s->elapsedSeconds = secondsBetween(started, parseTime(run.endedAt));
    else
      s->elapsedSeconds = recordTimes.empty()
                              ? secondsBetween(started, QDateTime::currentDateTimeUtc())
                              : recordTimes.back();
    // Rate from the last records only: a resumed run's gap and the slow
    // first batch (reference kernels) do not count.
    const size_t n = std::min<size_t>(recordTimes.size(), 32);
    if (n >= 2) {
      s->secondsPerTrial =
          (recordTimes.back() - recordTimes[recordTimes.size() - n]) / double(n - 1);
    }
    if (running && s->secondsPerTrial > 0) {
      s->etaSeconds =
          s->secondsPerTrial * double(std::max<int64_t>(0, run.trialsPlanned - run.trialsDone));
      const double budget = run.config.is_object() ? run.config.value("time_budget_s", 0.0) : 0.0;
      if (budget > 0)
        s->etaSeconds = std::min(s->etaSeconds, std::max(0.0, budget - s->elapsedSeconds));
    } else if (!running) {
      s->etaSeconds = 0;
    }
  } catch (const std::exception& e) {
    s->error = QString::fromUtf8(e.what());
  }
  return s;
}

// ---- the poller, in the watcher's thread

class TuningPoller : public QObject {
public:
  explicit TuningPoller(TuningWatcher* watcher) : watcher_(watcher) { clock_.start(); }

  void start(int intervalMs) {
    timer_ = new QTimer(this);
    timer_->setInterval(intervalMs);
    QObject::connect(timer_, &QTimer::timeout, this, [this] { poll(); });
    timer_->start();
  }
  void setInterval(int ms) {
    if (timer_)
      timer_->setInterval(ms);
  }
  void watch(const QString& path, int64_t runId, unsigned generation) {
    db_.reset();
    last_.reset();
    path_ = path;
    runId_ = runId;
    generation_ = generation;
    stamp_.clear();
    force_ = true;
    poll();
  }
  void refresh() {
    force_ = true;
    poll();
  }

private:
  /// Size and modification time of the file and its WAL: any commit
  /// changes one of them.
  QString stamp() const {
    QString s;
    for (const QString& p : {path_, path_ + QStringLiteral("-wal")}) {
      QFileInfo fi(p);
      if (fi.exists())
        s += QStringLiteral("%1:%2;").arg(fi.size()).arg(fi.lastModified().toMSecsSinceEpoch());
      else
        s += QStringLiteral("-;");
    }
    return s;
  }

  /// A process of a running run ended (or its liveness could be checked
  /// where it could not): the file may not change when a tuner is killed,
  /// so this is checked at every poll (a read of /proc per running run).
  bool livenessChanged() const {
    if (!last_)
      return false;
    for (size_t i = 0; i < last_->runs.size() && i < last_->runLiveness.size(); ++i)
      if (last_->runs[i].status == RunStatus::Running &&
          runLiveness(last_->runs[i]) != last_->runLiveness[i])
        return true;
    return false;
  }

  void poll() {
    if (path_.isEmpty())
      return;
    // A big run takes a while to read; the next read waits four times as
    // long, so the watcher never takes more than a fifth of a core from the
    // measurements running on the same machine.
    if (!force_ && clock_.elapsed() < restUntilMs_)
      return;
    const QString now = stamp();
    if (!force_ && now == stamp_ && !livenessChanged())
      return;
    force_ = false;
    stamp_ = now;
    const qint64 readStart = clock_.elapsed();
    TuningSnapshotPtr snap;
    try {
      if (!QFileInfo::exists(path_)) {
        auto s = std::make_shared<TuningSnapshot>();
        s->databasePath = path_;
        s->error = QStringLiteral("%1: no such tuning database").arg(path_);
        snap = s;
        db_.reset();
      } else {
        if (!db_)
          db_ = std::make_unique<Database>(path_.toStdString(), 2000);
        snap = readTuningSnapshot(*db_, runId_);
        if (!snap->error.isEmpty())
          db_.reset(); // reopen next time: the file may have been replaced
      }
    } catch (const std::exception& e) {
      auto s = std::make_shared<TuningSnapshot>();
      s->databasePath = path_;
      s->error = QString::fromUtf8(e.what());
      snap = s;
      db_.reset();
    }
    restUntilMs_ = clock_.elapsed() + 4 * (clock_.elapsed() - readStart);
    last_ = snap;
    const unsigned generation = generation_;
    TuningWatcher* w = watcher_;
    QMetaObject::invokeMethod(
        w, [w, snap, generation] { w->onSnapshot(snap, generation); }, Qt::QueuedConnection);
  }

  TuningWatcher* watcher_;
  QTimer* timer_ = nullptr;
  QString path_;
  int64_t runId_ = 0;
  unsigned generation_ = 0;
  QString stamp_;
  bool force_ = false;
  QElapsedTimer clock_;
  qint64 restUntilMs_ = 0;
  std::unique_ptr<Database> db_;
  TuningSnapshotPtr last_; // the last snapshot read (livenessChanged)
};

TuningWatcher::TuningWatcher(QObject* parent) : QObject(parent) {
  qRegisterMetaType<TuningSnapshotPtr>();
  poller_ = new TuningPoller(this);
  poller_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, poller_, &QObject::deleteLater);
  connect(this, &TuningWatcher::watchRequested, poller_,
          [p = poller_](const QString& path, qint64 runId, unsigned generation) {
            p->watch(path, runId, generation);
          });
  connect(this, &TuningWatcher::refreshRequested, poller_, [p = poller_] { p->refresh(); });
  connect(this, &TuningWatcher::intervalRequested, poller_,
          [p = poller_](int ms) { p->setInterval(ms); });
  thread_.setObjectName(QStringLiteral("tuning watcher"));
  thread_.start();
  QMetaObject::invokeMethod(
      poller_, [p = poller_] { p->start(300); }, Qt::QueuedConnection);
}

TuningWatcher::~TuningWatcher() {
  thread_.quit();
  thread_.wait(); // the poller is deleted in its thread as it finishes
}

void TuningWatcher::watch(const QString& path, int64_t runId) {
  path_ = path;
  runId_ = runId;
  ++generation_;
  latest_.reset();
  Q_EMIT watchRequested(path, qint64(runId), generation_);
}

void TuningWatcher::refresh() { Q_EMIT refreshRequested(); }

void TuningWatcher::setPollInterval(int ms) { Q_EMIT intervalRequested(std::max(10, ms)); }

bool TuningWatcher::waitForSnapshot(int timeoutMs) {
  const unsigned before = received_;
  QElapsedTimer clock;
  clock.start();
  while (received_ == before) {
    if (clock.elapsed() > timeoutMs)
      return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    if (received_ == before)
      QThread::msleep(5);
  }
  return true;
}

void TuningWatcher::onSnapshot(TuningSnapshotPtr snapshot, unsigned generation) {
  if (generation != generation_)
    return; // for a file or run no longer watched
  latest_ = snapshot;
  ++received_;
  Q_EMIT snapshotReady(snapshot);
}

} // namespace lowerscope
