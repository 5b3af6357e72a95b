#pragma once
// Runs unity::build as a BackgroundJob (views/background_job.h) and reports
// back on the UI thread: one `passStarted` per pass, then `finished` with
// the result or the error (with its source location when the engine knows
// it). cancel() sets the flag the pass manager checks before every pass; the
// build then ends with `cancelled` set.
#include <QObject>
#include <QString>

#include <memory>

#include "engine/build.h"

namespace lowerscope {

class BackgroundJob;

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
  /// True until the build's `finished` has been emitted.
  bool isRunning() const;
  /// Blocks (processing events) until no build runs; false on timeout.
  bool wait(int timeoutMs);
  const BuildOutcome& lastOutcome() const { return outcome_; }

Q_SIGNALS:
  void passStarted(int count, const QString& name);
  void finished(const lowerscope::BuildOutcome& outcome);

private:
  BackgroundJob* job_;
  BuildOutcome outcome_;
};

} // namespace lowerscope
