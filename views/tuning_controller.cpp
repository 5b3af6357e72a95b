// Tuning runs as detached `lowerscope-cli tune` processes (see
// tuning_controller.h for why).
#include "views/tuning_controller.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QThread>

#include <cerrno>
#include <csignal>

#include <signal.h>
#include <sys/types.h>

#include "tuner/run_process.h"

namespace lowerscope {

QStringList TuningLaunch::arguments(QString* error) const {
  auto fail = [&](const QString& why) {
    if (error)
      *error = why;
    return QStringList{};
  };
  if (model.isEmpty())
    return fail(QStringLiteral("no model file to tune"));
  if (database.isEmpty())
    return fail(QStringLiteral("no tuning database file"));
  if (trials < 1)
    return fail(QStringLiteral("the trial budget must be at least 1"));
  const bool slurm = runner.id == QLatin1String("slurm");
  if (!slurm && runner.id != QLatin1String("local"))
    return fail(QStringLiteral("unknown runner '%1' (runners: local, slurm)").arg(runner.id));
  if (!slurm && (!runner.partitions.isEmpty() || runner.maxJobs > 0 || !runner.jobTime.isEmpty() ||
                 !runner.spool.isEmpty()))
    return fail(QStringLiteral("partitions, job limits and the spool folder are Slurm settings; "
                               "the local runner takes none"));
  if (runner.maxJobs < 0)
    return fail(QStringLiteral("the number of Slurm jobs at once must not be negative"));
  QStringList a{QStringLiteral("tune"),     model,
                QStringLiteral("--db"),     database,
                QStringLiteral("--trials"), QString::number(trials)};
  if (!target.isEmpty())
    a << QStringLiteral("--target") << target;
  if (!functions.isEmpty())
    a << QStringLiteral("--tasks") << functions.join(QLatin1Char(','));
  if (timeBudgetSeconds > 0)
    a << QStringLiteral("--time-budget") << QString::number(timeBudgetSeconds);
  if (threads > 0)
    a << QStringLiteral("--threads") << QString::number(threads);
  a << QStringLiteral("--timeout") << QString::number(timeoutSeconds);
  if (batch > 0)
    a << QStringLiteral("--batch") << QString::number(batch);
  if (symbolicSize < 0)
    return fail(QStringLiteral("the size of symbolic extents must be positive"));
  if (symbolicSize > 0)
    a << QStringLiteral("--symbolic-size") << QString::number(symbolicSize);
  if (slurm) {
    a << QStringLiteral("--runner") << QStringLiteral("slurm");
    for (const QString& p : runner.partitions)
      if (!p.trimmed().isEmpty())
        a << QStringLiteral("--partition") << p.trimmed();
    if (runner.maxJobs > 0)
      a << QStringLiteral("--max-jobs") << QString::number(runner.maxJobs);
    if (!runner.jobTime.trimmed().isEmpty())
      a << QStringLiteral("--job-time") << runner.jobTime.trimmed();
    if (!runner.spool.trimmed().isEmpty())
      a << QStringLiteral("--spool") << runner.spool.trimmed();
  }
  a << runner.extraArguments;
  return a;
}

TuningController::TuningController(QObject* parent) : QObject(parent) {
  cli_ = findCli();
  timer_.setInterval(200);
  connect(&timer_, &QTimer::timeout, this, &TuningController::poll);
}

// A run outlives this object on purpose (tuning_controller.h).
TuningController::~TuningController() = default;

QString TuningController::findCli() {
  const QString env = qEnvironmentVariable("LOWERSCOPE_CLI");
  if (!env.isEmpty())
    return env;
  const QString here = QCoreApplication::applicationDirPath();
  for (const QString& candidate :
       {here + QStringLiteral("/lowerscope-cli"), here + QStringLiteral("/../app/lowerscope-cli")})
    if (QFileInfo(candidate).isExecutable())
      return QFileInfo(candidate).canonicalFilePath();
  return QStandardPaths::findExecutable(QStringLiteral("lowerscope-cli"));
}

QString TuningController::logDirectory() const {
  if (!logDir_.isEmpty())
    return logDir_;
  return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
         QStringLiteral("/tuning-logs");
}

bool TuningController::start(const TuningLaunch& launchOptions, QString* error) {
  QString why;
  const QStringList args = launchOptions.arguments(&why);
  if (args.isEmpty()) {
    if (error)
      *error = why;
    return false;
  }
  return launch(args, launchOptions.database, error);
}

bool TuningController::resume(const QString& database, int64_t runId, QString* error) {
  return launch({QStringLiteral("tune"), QStringLiteral("--resume"), QString::number(runId),
                 QStringLiteral("--db"), database},
                database, error);
}

bool TuningController::launch(const QStringList& args, const QString& database, QString* error) {
  auto fail = [&](const QString& why) {
    if (error)
      *error = why;
    return false;
  };
  if (isActive())
    return fail(QStringLiteral("a tuning run started here is still active (run %1)").arg(runId_));
  if (cli_.isEmpty() || !QFileInfo(cli_).isExecutable())
    return fail(QStringLiteral("lowerscope-cli not found (looked next to this program and on "
                               "PATH; set LOWERSCOPE_CLI)"));
  const QString dir = logDirectory();
  if (!QDir().mkpath(dir))
    return fail(QStringLiteral("%1: cannot create the log folder").arg(dir));
  if (const QString parent = QFileInfo(database).absolutePath(); !QDir().mkpath(parent))
    return fail(QStringLiteral("%1: cannot create the database folder").arg(parent));
  const QString log =
      QDir(dir).filePath(QStringLiteral("tune-%1-%2.log")
                             .arg(QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss-zzz"))
                             .arg(QCoreApplication::applicationPid()));
  QProcess p;
  p.setProgram(cli_);
  p.setArguments(args);
  p.setStandardInputFile(QProcess::nullDevice());
  p.setStandardOutputFile(log);
  p.setStandardErrorFile(log, QIODevice::Append);
  qint64 pid = 0;
  if (!p.startDetached(&pid) || pid <= 0)
    return fail(QStringLiteral("cannot start %1: %2").arg(cli_, p.errorString()));
  pid_ = pid;
  database_ = database;
  logPath_ = log;
  logOffset_ = 0;
  partialLine_.clear();
  output_ = QStringLiteral("$ lowerscope-cli %1\n").arg(args.join(QLatin1Char(' ')));
  runId_ = 0;
  setState(State::Starting);
  timer_.start();
  return true;
}

bool TuningController::pause() {
  if (state_ != State::Running || pid_ <= 0)
    return false;
  return ::kill(pid_t(pid_), SIGUSR1) == 0;
}

bool TuningController::unpause() {
  if (state_ != State::Paused || pid_ <= 0)
    return false;
  return ::kill(pid_t(pid_), SIGUSR2) == 0;
}

bool TuningController::cancel() {
  if ((state_ != State::Running && state_ != State::Paused && state_ != State::Starting) ||
      pid_ <= 0)
    return false;
  if (::kill(pid_t(pid_), SIGTERM) != 0)
    return false;
  setState(State::Cancelling);
  return true;
}

bool TuningController::signalRun(const unity::tuner::Run& run, Signal signal, QString* error) {
  auto fail = [&](const QString& why) {
    if (error)
      *error = why;
    return false;
  };
  if (run.status != unity::tuner::RunStatus::Running)
    return fail(QStringLiteral("run %1 is not running").arg(run.id));
  if (!run.process)
    return fail(QStringLiteral("run %1 recorded no process (started by an older lowerscope-cli)")
                    .arg(run.id));
  const unity::tuner::RunProcess& p = *run.process;
  switch (unity::tuner::liveness(p)) {
  case unity::tuner::ProcessLiveness::Alive:
    break;
  case unity::tuner::ProcessLiveness::Gone:
    return fail(QStringLiteral("the process of run %1 (pid %2) has ended").arg(run.id).arg(p.pid));
  case unity::tuner::ProcessLiveness::OtherHost:
    return fail(QStringLiteral("run %1 runs on %2, not on this machine")
                    .arg(run.id)
                    .arg(QString::fromStdString(p.host)));
  case unity::tuner::ProcessLiveness::Unknown:
    return fail(QStringLiteral("cannot tell whether pid %1 is still the process of run %2")
                    .arg(p.pid)
                    .arg(run.id));
  }
  const int sig = signal == Signal::Pause      ? SIGUSR1
                  : signal == Signal::Continue ? SIGUSR2
                                               : SIGTERM;
  if (::kill(pid_t(p.pid), sig) != 0)
    return fail(QStringLiteral("cannot signal pid %1: %2").arg(p.pid).arg(qt_error_string(errno)));
  return true;
}

void TuningController::setState(State s) {
  if (s == state_)
    return;
  state_ = s;
  Q_EMIT stateChanged(s);
}

void TuningController::readLog() {
  QFile f(logPath_);
  if (!f.open(QIODevice::ReadOnly))
    return;
  if (f.size() <= logOffset_ || !f.seek(logOffset_))
    return;
  const QByteArray bytes = f.readAll();
  logOffset_ += bytes.size();
  // The CLI redraws its table only on a terminal; in a file every line is new.
  partialLine_ += QString::fromUtf8(bytes);
  static const QRegularExpression started(QStringLiteral("^(tuning|resuming) run (\\d+) on "));
  int nl;
  while ((nl = int(partialLine_.indexOf(QLatin1Char('\n')))) >= 0) {
    const QString line = partialLine_.left(nl);
    partialLine_.remove(0, nl + 1);
    output_ += line + QLatin1Char('\n');
    if (auto m = started.match(line); m.hasMatch()) {
      runId_ = m.captured(2).toLongLong();
      if (state_ == State::Starting)
        setState(State::Running);
      Q_EMIT runStarted(qint64(runId_), database_);
    } else if (line.startsWith(QLatin1String("tune: paused"))) {
      if (state_ != State::Cancelling)
        setState(State::Paused);
    } else if (line.startsWith(QLatin1String("tune: continued"))) {
      if (state_ != State::Cancelling)
        setState(State::Running);
    } else if (line.startsWith(QLatin1String("tune: cancelling"))) {
      setState(State::Cancelling);
    }
    Q_EMIT outputLine(line);
  }
}

namespace {
/// True while `pid` runs (a zombie no longer does: a detached child may be
/// left unreaped by a subreaper).
bool alive(qint64 pid) {
  if (::kill(pid_t(pid), 0) != 0 && errno != EPERM)
    return false;
  QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
  if (stat.open(QIODevice::ReadOnly)) {
    const QByteArray s = stat.readAll();
    const int close = int(s.lastIndexOf(')'));
    if (close > 0 && close + 2 < s.size() && s.at(close + 2) == 'Z')
      return false;
  }
  return true;
}
} // namespace

void TuningController::poll() {
  readLog();
  if (state_ == State::Idle || alive(pid_))
    return;
  readLog();
  if (!partialLine_.isEmpty()) {
    output_ += partialLine_ + QLatin1Char('\n');
    Q_EMIT outputLine(partialLine_);
    partialLine_.clear();
  }
  timer_.stop();
  // The summary line of a run that ended normally (finished or cancelled).
  static const QRegularExpression ended(QStringLiteral("^run \\d+ (finished|cancelled): "),
                                        QRegularExpression::MultilineOption);
  const bool ok = ended.match(output_).hasMatch();
  QString message;
  if (!ok) {
    QStringList lines = output_.trimmed().split(QLatin1Char('\n'));
    message = lines.mid(std::max<qsizetype>(0, lines.size() - 4)).join(QLatin1Char('\n'));
  }
  pid_ = 0;
  setState(State::Idle);
  Q_EMIT finished(ok, message);
}

bool TuningController::waitUntilIdle(int timeoutMs) {
  QElapsedTimer clock;
  clock.start();
  while (isActive()) {
    if (clock.elapsed() > timeoutMs)
      return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(10);
  }
  return true;
}

bool TuningController::waitForRunId(int timeoutMs) {
  QElapsedTimer clock;
  clock.start();
  while (runId_ == 0) {
    if (!isActive() || clock.elapsed() > timeoutMs)
      return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(10);
  }
  return true;
}

} // namespace lowerscope
