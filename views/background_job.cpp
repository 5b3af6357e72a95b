#include "views/background_job.h"

#include <QCoreApplication>
#include <QtConcurrent/QtConcurrentRun>

#include <chrono>
#include <exception>

namespace lowerscope {

BackgroundJob::BackgroundJob(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<void>::finished, this, &BackgroundJob::onDone);
}

BackgroundJob::~BackgroundJob() {
  cancel();
  watcher_.waitForFinished();
}

bool BackgroundJob::startErased(std::function<void(JobContext&)> work,
                                std::function<void()> deliver) {
  if (running_)
    return false;
  running_ = true;
  const unsigned generation = ++generation_;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  deliver_ = std::move(deliver);
  error_ = std::make_shared<QString>();
  JobContext context;
  context.cancel_ = cancel_;
  // `this` outlives the work (the destructor waits for it); the queued call
  // runs on this object's thread and drops progress of an older job.
  context.report_ = [this, generation](int value, const QString& text) {
    QMetaObject::invokeMethod(
        this,
        [this, generation, value, text] {
          if (generation == generation_ && running_)
            Q_EMIT progress(value, text);
        },
        Qt::QueuedConnection);
  };
  watcher_.setFuture(QtConcurrent::run([work = std::move(work), context, error = error_]() mutable {
    try {
      work(context);
    } catch (const std::exception& e) {
      *error = QString::fromUtf8(e.what());
      if (error->isEmpty())
        *error = QStringLiteral("background job failed");
    } catch (...) {
      *error = QStringLiteral("background job failed");
    }
  }));
  return true;
}

void BackgroundJob::cancel() {
  if (cancel_)
    cancel_->store(true);
}

bool BackgroundJob::wait(int timeoutMs) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  while (running_) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  }
  return true;
}

void BackgroundJob::onDone() {
  // Cleared first: done() may start the next job.
  running_ = false;
  auto deliver = std::move(deliver_);
  deliver_ = nullptr;
  const QString error = *error_;
  if (error.isEmpty())
    deliver();
  else
    Q_EMIT failed(error);
  Q_EMIT finished();
}

} // namespace lowerscope
