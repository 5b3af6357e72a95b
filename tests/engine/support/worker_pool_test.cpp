// The isolated worker pool: each way a child can end (a payload, an error
// exit with stderr, a crash, a hang), the exec form, capture limits and more
// jobs than workers. No job's outcome depends on the machine's speed: the
// hanging job never ends by itself, so its timeout always fires, and no other
// job has a timeout.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "engine/support/worker_pool.h"

using namespace unity;

namespace {

IsolatedJob forkJob(std::function<std::string()> fn, double timeout = 0) {
  IsolatedJob j;
  j.run = std::move(fn);
  j.timeoutSeconds = timeout;
  return j;
}

IsolatedJob shellJob(const std::string& script) {
  IsolatedJob j;
  j.command = {"/bin/sh", "-c", script};
  return j;
}

JobResult runOne(const IsolatedJob& job) {
  auto r = runIsolated({job}, WorkerPoolOptions{});
  EXPECT_EQ(r.size(), 1u);
  return r.at(0);
}

} // namespace

TEST(WorkerPool, ForkJobReturnsItsPayload) {
  JobResult r = runOne(forkJob([] { return std::string("{\"answer\": 42}"); }));
  EXPECT_EQ(r.status, JobStatus::Ok);
  EXPECT_EQ(r.payload, "{\"answer\": 42}");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.describe(), "ok");
}

TEST(WorkerPool, ForkJobRunsInAnotherProcess) {
  pid_t parent = getpid();
  JobResult r = runOne(forkJob([] { return std::to_string(getpid()); }));
  EXPECT_EQ(r.status, JobStatus::Ok);
  EXPECT_NE(r.payload, std::to_string(parent));
}

TEST(WorkerPool, SegfaultIsACrashNamingTheSignal) {
  JobResult r = runOne(forkJob([]() -> std::string {
    // The signal a bad memory access raises, sent directly: a store through
    // a null pointer would be caught first by UBSan's null check in the
    // sanitizer build (an exit code, not a crash). The pool resets the
    // child's SIGSEGV disposition, so a sanitizer's handler does not turn
    // the signal into an exit code either.
    raise(SIGSEGV);
    return "unreachable";
  }));
  EXPECT_EQ(r.status, JobStatus::Crashed);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_EQ(signalName(r.signal), "SIGSEGV");
  EXPECT_NE(r.describe().find("SIGSEGV"), std::string::npos) << r.describe();
  EXPECT_TRUE(r.payload.empty());
}

TEST(WorkerPool, AHangingJobTimesOutAndThePoolGoesOn) {
  std::vector<IsolatedJob> jobs;
  jobs.push_back(forkJob(
      []() -> std::string {
        volatile bool spinning = true; // a busy loop the compiler cannot remove
        while (spinning) {
        }
        return "unreachable";
      },
      0.3));
  jobs.push_back(forkJob([] { return std::string("after"); }));
  WorkerPoolOptions o;
  o.workers = 1; // the second job can only start once the first is gone
  auto r = runIsolated(jobs, o);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].status, JobStatus::TimedOut);
  EXPECT_EQ(r[0].signal, SIGKILL);
  EXPECT_GE(r[0].seconds, 0.3);
  EXPECT_NE(r[0].describe().find("timed out"), std::string::npos);
  EXPECT_EQ(r[1].status, JobStatus::Ok);
  EXPECT_EQ(r[1].payload, "after");
}

TEST(WorkerPool, ThePoolTimeoutAppliesToJobsWithoutTheirOwn) {
  WorkerPoolOptions o;
  o.timeoutSeconds = 0.2;
  auto r = runIsolated({forkJob([]() -> std::string {
                         for (;;)
                           pause();
                       })},
                       o);
  EXPECT_EQ(r.at(0).status, JobStatus::TimedOut);
}

TEST(WorkerPool, ExecJobWritingStderrAndExitingNonZeroIsAnError) {
  JobResult r = runOne(shellJob("printf partial; echo 'something broke' >&2; exit 3"));
  EXPECT_EQ(r.status, JobStatus::Error);
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_EQ(r.stderrText, "something broke\n");
  EXPECT_EQ(r.payload, "partial"); // stdout is an exec job's payload
  EXPECT_EQ(r.describe(), "exit code 3");
}

TEST(WorkerPool, ExecJobsStdoutIsThePayload) {
  JobResult r = runOne(shellJob("echo '{\"ok\": true}'"));
  EXPECT_EQ(r.status, JobStatus::Ok);
  EXPECT_EQ(r.payload, "{\"ok\": true}\n");
  EXPECT_TRUE(r.stderrText.empty());
}

TEST(WorkerPool, AProgramThatCannotRunIsAnError) {
  IsolatedJob j;
  j.command = {"/nonexistent/lowerscope-no-such-program"};
  JobResult r = runOne(j);
  EXPECT_EQ(r.status, JobStatus::Error);
  EXPECT_EQ(r.exitCode, 127);
  EXPECT_NE(r.stderrText.find("cannot run"), std::string::npos) << r.stderrText;
}

TEST(WorkerPool, ForkJobThatThrowsIsAnErrorWithTheMessageOnStderr) {
  JobResult r = runOne(forkJob([]() -> std::string { throw std::runtime_error("bad candidate"); }));
  EXPECT_EQ(r.status, JobStatus::Error);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.stderrText.find("bad candidate"), std::string::npos) << r.stderrText;
}

TEST(WorkerPool, ForkJobPrintsGoToStderrTextNotThePayload) {
  JobResult r = runOne(forkJob([] {
    std::printf("chatter\n");
    std::fprintf(stderr, "warning\n");
    return std::string("result");
  }));
  EXPECT_EQ(r.status, JobStatus::Ok);
  EXPECT_EQ(r.payload, "result");
  EXPECT_NE(r.stderrText.find("chatter"), std::string::npos);
  EXPECT_NE(r.stderrText.find("warning"), std::string::npos);
}

TEST(WorkerPool, LargePayloadsArriveWholeOrCappedWithoutBlockingTheChild) {
  const std::size_t big = 3u << 20; // far more than a pipe buffer
  WorkerPoolOptions o;
  o.maxCaptureBytes = 2 * big;
  auto whole = runIsolated({forkJob([&] { return std::string(big, 'x'); })}, o);
  EXPECT_EQ(whole.at(0).status, JobStatus::Ok);
  EXPECT_EQ(whole.at(0).payload, std::string(big, 'x'));

  o.maxCaptureBytes = 1000;
  auto capped = runIsolated({forkJob([&] { return std::string(big, 'y'); })}, o);
  EXPECT_EQ(capped.at(0).status, JobStatus::Ok);
  EXPECT_EQ(capped.at(0).payload, std::string(1000, 'y'));
}

TEST(WorkerPool, MoreJobsThanWorkersAllFinishAndEachIsReportedOnce) {
  std::vector<IsolatedJob> jobs;
  for (int i = 0; i < 12; ++i)
    jobs.push_back(forkJob([i] {
      usleep(1000 * (i % 4)); // finish out of order
      return std::to_string(i * i);
    }));
  jobs.push_back(shellJob("echo exec"));
  WorkerPoolOptions o;
  o.workers = 3;
  std::multiset<std::size_t> reported;
  auto r = runIsolated(jobs, o, [&](const JobResult& done) { reported.insert(done.index); });
  ASSERT_EQ(r.size(), jobs.size());
  for (std::size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(r[i].index, i);
    EXPECT_EQ(r[i].status, JobStatus::Ok) << i << ": " << r[i].describe() << r[i].stderrText;
    EXPECT_EQ(r[i].payload, std::to_string(i * i));
  }
  EXPECT_EQ(r[12].payload, "exec\n");
  EXPECT_EQ(reported.size(), jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i)
    EXPECT_EQ(reported.count(i), 1u);
}

TEST(WorkerPool, AnExceptionFromTheCallbackLeavesNoChildRunning) {
  std::vector<IsolatedJob> jobs;
  jobs.push_back(forkJob([] { return std::string("first"); }));
  for (int i = 0; i < 3; ++i)
    jobs.push_back(forkJob([]() -> std::string {
      for (;;)
        pause();
    }));
  WorkerPoolOptions o;
  o.workers = 4;
  EXPECT_THROW(runIsolated(jobs, o, [](const JobResult&) { throw std::runtime_error("stop"); }),
               std::runtime_error);
  // Every child was reaped: none is left for waitpid.
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(WorkerPool, SignalNames) {
  EXPECT_EQ(signalName(SIGABRT), "SIGABRT");
  EXPECT_EQ(signalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(std::string(jobStatusName(JobStatus::TimedOut)), "timed out");
}
