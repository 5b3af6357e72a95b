#include "views/build_worker.h"

#include <QCoreApplication>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <chrono>

#include "engine/support/error.h"
#include "engine/transform/pass.h"

namespace lowerscope {

BuildWorker::BuildWorker(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<BuildOutcome>::finished, this, &BuildWorker::onDone);
}

BuildWorker::~BuildWorker() {
  cancel();
  watcher_.waitForFinished();
}

bool BuildWorker::start(unity::ir::IRModule module, unity::BuildOptions options) {
  if (isRunning())
    return false;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  delivered_ = false;
  auto cancel = cancel_;
  QPointer<BuildWorker> self(this);
  auto future = QtConcurrent::run([module, options, cancel, self]() mutable {
    BuildOutcome out;
    options.cancel = cancel.get();
    int count = 0;
    options.onPass = [&count, self](const std::string& name, int depth) {
      int n = ++count;
      QString qname = QString::fromStdString(name);
      if (self)
        QMetaObject::invokeMethod(
            self.data(),
            [self, n, qname, depth] {
              if (self)
                Q_EMIT self->passStarted(n, qname, depth);
            },
            Qt::QueuedConnection);
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
    out.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
  });
  watcher_.setFuture(future);
  return true;
}

void BuildWorker::cancel() {
  if (cancel_)
    cancel_->store(true);
}

bool BuildWorker::isRunning() const { return watcher_.isRunning(); }

bool BuildWorker::wait(int timeoutMs) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  // Until the watcher's finished signal (and the queued progress) is delivered.
  while (!delivered_) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  }
  return true;
}

void BuildWorker::onDone() {
  outcome_ = watcher_.result();
  delivered_ = true;
  Q_EMIT finished(outcome_);
}

} // namespace lowerscope
