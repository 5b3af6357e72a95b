#include "views/build_worker.h"

#include <chrono>

#include "engine/support/error.h"
#include "engine/transform/pass.h"
#include "views/background_job.h"

namespace lowerscope {

namespace {

/// The build itself, on the job's thread: every error becomes part of the outcome.
BuildOutcome runBuild(const unity::ir::IRModule& module, unity::BuildOptions options,
                      JobContext& job) {
  BuildOutcome out;
  options.cancel = job.cancelFlag();
  int count = 0;
  options.onPass = [&count, &job](const std::string& name, int) {
    job.report(++count, QString::fromStdString(name));
  };
  auto t0 = std::chrono::steady_clock::now();
  try {
    out.result = std::make_shared<unity::BuildResult>(unity::build(module, options));
  } catch (const unity::transform::Cancelled&) {
    out.cancelled = true;
  } catch (const unity::Error& e) {
    out.error = QString::fromStdString(e.loc().known() ? e.message() : std::string(e.what()));
    out.file = QString::fromStdString(e.loc().file);
    out.line = e.loc().line;
    out.column = e.loc().column;
  } catch (const std::exception& e) {
    out.error = QString::fromUtf8(e.what());
  }
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

} // namespace

BuildWorker::BuildWorker(QObject* parent) : QObject(parent), job_(new BackgroundJob(this)) {
  connect(job_, &BackgroundJob::progress, this, &BuildWorker::passStarted);
}

BuildWorker::~BuildWorker() {
  // The job (a child) cancels and waits in its own destructor; do it here
  // already so no signal of this half-destroyed object can be emitted.
  job_->cancel();
  delete job_;
}

bool BuildWorker::start(unity::ir::IRModule module, unity::BuildOptions options) {
  return job_->start([module = std::move(module), options = std::move(options)](
                         JobContext& job) { return runBuild(module, options, job); },
                     [this](BuildOutcome out) {
                       outcome_ = std::move(out);
                       Q_EMIT finished(outcome_);
                     });
}

void BuildWorker::cancel() { job_->cancel(); }

bool BuildWorker::isRunning() const { return job_->isRunning(); }

bool BuildWorker::wait(int timeoutMs) { return job_->wait(timeoutMs); }

} // namespace lowerscope
