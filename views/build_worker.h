#pragma once
// Runs unity::build off the UI thread (a QThreadPool task through
// QtConcurrent) and reports back by queued signals: one `passStarted` per
// pass, then `finished` with the result or the error. cancel() sets the flag
// the pass manager checks before every pass; the build then ends with
// `cancelled` set. The worker object lives on the UI thread; only the lambda
// given to QtConcurrent runs on the pool.
#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

#include "engine/build.h"

namespace lowerscope {

struct BuildOutcome {
  std::shared_ptr<const unity::BuildResult> result; // null on error / cancel
  bool cancelled = false;
  QString error; // the message (unity::Error::message when located)
  QString file;  // location of the error, when known
  int line = 0, column = 0;
  double ms = 0;
};

class BuildWorker : public QObject {
  Q_OBJECT
public:
  explicit BuildWorker(QObject* parent = nullptr);
  ~BuildWorker() override; // cancels and waits

  /// Starts building `module`; false (and nothing happens) while a build runs.
  bool start(unity::ir::IRModule module, unity::BuildOptions options);
  void cancel();
  bool isRunning() const;
  /// Blocks until the running build ends (tests, screenshots); false on timeout.
  bool wait(int timeoutMs);
  const BuildOutcome& lastOutcome() const { return outcome_; }

Q_SIGNALS:
  void passStarted(int count, const QString& name, int depth);
  void finished(const lowerscope::BuildOutcome& outcome);

private:
  void onDone();

  QFutureWatcher<BuildOutcome> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  BuildOutcome outcome_;
  bool delivered_ = true;
};

} // namespace lowerscope
