#pragma once
// Runs one piece of work at a time off the UI thread and hands what it
// produced back on the UI thread.
//
// Long work (a build, the "Run and Compare" runs, later a tuning run) must
// not block the window, yet what it produces is UI state. A BackgroundJob
// takes a callable `work(JobContext&) -> R` and a callable `done(R)`: work
// runs on Qt's global thread pool; done runs on the thread this object lives
// on (the UI thread), then finished() is emitted. The JobContext gives the
// work a cancel flag (set by cancel(), polled by the work — engine calls take
// it as a `const std::atomic<bool>*`) and report(), whose calls arrive in
// order as progress() signals on the UI thread, all before finished().
//
// isRunning() stays true until done has run, so code on the UI thread never
// sees a job that has ended but not yet delivered; done may start the next
// job. If work throws, done is skipped and failed(message) comes before
// finished(). The destructor cancels and waits, so `this` outlives the work.
#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace lowerscope {

/// What a running job sees. Usable from the job's thread.
class JobContext {
public:
  bool cancelled() const { return cancel_->load(); }
  /// The cancel flag itself, for engine calls that poll one.
  const std::atomic<bool>* cancelFlag() const { return cancel_.get(); }
  /// Delivered on the UI thread as BackgroundJob::progress(value, text).
  void report(int value, const QString& text) const { report_(value, text); }

private:
  friend class BackgroundJob;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::function<void(int, const QString&)> report_;
};

class BackgroundJob : public QObject {
  Q_OBJECT
public:
  explicit BackgroundJob(QObject* parent = nullptr);
  ~BackgroundJob() override;

  /// Starts `work` (see the header comment); false, and nothing runs, while
  /// a job runs.
  template <class Work, class Done> bool start(Work work, Done done);

  /// Sets the running job's cancel flag (no effect without one).
  void cancel();
  bool isRunning() const { return running_; }
  /// Processes events until no job runs (one that done() started included);
  /// false on timeout. For tests and scripted runs.
  bool wait(int timeoutMs);

Q_SIGNALS:
  void progress(int value, const QString& text);
  void failed(const QString& message);
  void finished();

private:
  bool startErased(std::function<void(JobContext&)> work, std::function<void()> deliver);
  void onDone();

  QFutureWatcher<void> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::function<void()> deliver_;
  std::shared_ptr<QString> error_; // set by the job when work threw
  unsigned generation_ = 0;        // drops progress of a job that is no longer current
  bool running_ = false;
};

template <class Work, class Done> bool BackgroundJob::start(Work work, Done done) {
  using Result = std::invoke_result_t<Work&, JobContext&>;
  if constexpr (std::is_void_v<Result>) {
    return startErased([work = std::move(work)](JobContext& c) mutable { work(c); },
                       [done = std::move(done)]() mutable { done(); });
  } else {
    auto slot = std::make_shared<std::optional<Result>>();
    return startErased(
        [work = std::move(work), slot](JobContext& c) mutable { slot->emplace(work(c)); },
        [done = std::move(done), slot]() mutable { done(std::move(**slot)); });
  }
}

} // namespace lowerscope
