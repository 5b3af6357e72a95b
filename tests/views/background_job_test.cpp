// BackgroundJob (views/background_job.h): the work runs on another thread,
// its result, progress and failure arrive on the UI thread in order, cancel()
// reaches the work, and the job counts as running until it has delivered.
// The work waits on gates the test opens, so no step depends on timing.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QThread>

#include <atomic>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

#include "views/background_job.h"

using namespace lowerscope;

namespace {

constexpr int kWaitMs = 60000;

/// A one-shot gate the work waits at until the test opens it.
struct Gate {
  std::promise<void> open;
  std::shared_future<void> opened = open.get_future().share();
};

} // namespace

TEST(BackgroundJob, DeliversTheResultOnTheUiThreadAfterItsProgress) {
  BackgroundJob job;
  std::vector<std::string> events;
  QThread* workThread = nullptr;
  QThread* doneThread = nullptr;
  QObject::connect(&job, &BackgroundJob::progress, [&](int value, const QString& text) {
    events.push_back("progress " + std::to_string(value) + " " + text.toStdString());
  });
  QObject::connect(&job, &BackgroundJob::finished, [&] { events.push_back("finished"); });
  ASSERT_TRUE(job.start(
      [&](JobContext& c) {
        workThread = QThread::currentThread();
        c.report(1, "one");
        c.report(2, "two");
        return 42;
      },
      [&](int result) {
        doneThread = QThread::currentThread();
        events.push_back("done " + std::to_string(result));
      }));
  ASSERT_TRUE(job.wait(kWaitMs));
  EXPECT_NE(workThread, QCoreApplication::instance()->thread());
  EXPECT_EQ(doneThread, QCoreApplication::instance()->thread());
  EXPECT_EQ(events,
            (std::vector<std::string>{"progress 1 one", "progress 2 two", "done 42", "finished"}));
}

TEST(BackgroundJob, RunsOneJobAtATimeAndIsRunningUntilItDelivered) {
  BackgroundJob job;
  Gate gate;
  std::atomic<bool> workReturned = false;
  bool delivered = false;
  ASSERT_TRUE(job.start(
      [&](JobContext&) {
        gate.opened.wait();
        workReturned = true;
      },
      [&] { delivered = true; }));
  EXPECT_TRUE(job.isRunning());
  EXPECT_FALSE(job.start([](JobContext&) {}, [] {})) << "a second job while one runs";
  gate.open.set_value();
  // The work has returned, but until the event loop delivers, the job runs.
  while (!workReturned)
    QThread::yieldCurrentThread();
  EXPECT_TRUE(job.isRunning());
  EXPECT_FALSE(delivered);
  ASSERT_TRUE(job.wait(kWaitMs));
  EXPECT_TRUE(delivered);
  EXPECT_FALSE(job.isRunning());
  // Free again.
  bool second = false;
  ASSERT_TRUE(job.start([](JobContext&) { return std::string("x"); },
                        [&](std::string s) { second = s == "x"; }));
  ASSERT_TRUE(job.wait(kWaitMs));
  EXPECT_TRUE(second);
}

TEST(BackgroundJob, CancelReachesTheWork) {
  BackgroundJob job;
  Gate started;
  bool sawCancel = false;
  ASSERT_TRUE(job.start(
      [&](JobContext& c) {
        started.open.set_value();
        while (!c.cancelled())
          QThread::yieldCurrentThread();
        return c.cancelFlag()->load();
      },
      [&](bool flag) { sawCancel = flag; }));
  started.opened.wait();
  job.cancel();
  ASSERT_TRUE(job.wait(kWaitMs));
  EXPECT_TRUE(sawCancel);
}

TEST(BackgroundJob, AThrowingJobReportsFailureInsteadOfAResult) {
  BackgroundJob job;
  bool delivered = false, finished = false;
  QString failure;
  QObject::connect(&job, &BackgroundJob::failed, [&](const QString& m) { failure = m; });
  QObject::connect(&job, &BackgroundJob::finished, [&] { finished = true; });
  ASSERT_TRUE(job.start([](JobContext&) -> int { throw std::runtime_error("no luck"); },
                        [&](int) { delivered = true; }));
  ASSERT_TRUE(job.wait(kWaitMs));
  EXPECT_FALSE(delivered);
  EXPECT_TRUE(finished);
  EXPECT_EQ(failure, "no luck");
}

TEST(BackgroundJob, DoneMayStartTheNextJob) {
  BackgroundJob job;
  std::vector<int> results;
  ASSERT_TRUE(job.start([](JobContext&) { return 1; },
                        [&](int r) {
                          results.push_back(r);
                          EXPECT_TRUE(job.start([](JobContext&) { return 2; },
                                                [&](int r2) { results.push_back(r2); }));
                        }));
  ASSERT_TRUE(job.wait(kWaitMs)); // waits for the chained job too
  EXPECT_EQ(results, (std::vector<int>{1, 2}));
}

TEST(BackgroundJob, DestroyingARunningJobCancelsAndWaitsForIt) {
  std::atomic<bool> ended = false;
  bool delivered = false;
  {
    BackgroundJob job;
    Gate started;
    ASSERT_TRUE(job.start(
        [&](JobContext& c) {
          started.open.set_value();
          while (!c.cancelled())
            QThread::yieldCurrentThread();
          ended = true;
        },
        [&] { delivered = true; }));
    started.opened.wait();
  }
  EXPECT_TRUE(ended) << "the destructor returned before the work ended";
  QCoreApplication::processEvents();
  EXPECT_FALSE(delivered) << "nothing is delivered from a destroyed job";
}
