// The isolated worker pool of worker_pool.h.
//
// Each child gets two pipes, created close-on-exec so that no other child
// inherits them (a stray copy of a write end would keep the parent from ever
// seeing end-of-file): one for the payload, one for standard error. The
// parent sets its read ends non-blocking and polls all of them, at most 50 ms
// at a time and no longer than the nearest deadline, so that output is
// drained while children run and a timeout is noticed promptly. A child is
// reaped with waitpid(WNOHANG) after each poll; whatever it left in its pipes
// is drained then without blocking (a grandchild that keeps a pipe open must
// not hang the pool). Every child leads its own process group, so a timeout
// kills the group, and asks the kernel to kill it when the parent dies
// (PR_SET_PDEATHSIG): neither an interrupted run nor a timed-out job leaves
// processes behind.
#include "engine/support/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>

#include "engine/support/error.h"

namespace unity {

namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  pid_t pid = -1;
  std::size_t index = 0;
  int out = -1, err = -1; // read ends; -1 once at end-of-file
  Clock::time_point start;
  double timeout = 0;
  bool timedOut = false;
  std::string payload, stderrText;
};

/// Writes all of s to fd (a pipe the parent drains); false on a write error.
bool writeAll(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w;
    n -= std::size_t(w);
  }
  return true;
}

/// The child side, after fork: never returns.
[[noreturn]] void runChild(const IsolatedJob& job, int outW, int errW, pid_t parent) {
  setpgid(0, 0);
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) // the parent died before prctl took effect
    _exit(125);
#else
  (void)parent;
#endif
  int devNull = open("/dev/null", O_RDONLY);
  if (devNull >= 0) {
    dup2(devNull, 0);
    close(devNull);
  }
  dup2(errW, 2);
  if (job.run) {
    // A crash is reported to the parent as the signal that ended the child.
    // Runtimes that catch fatal signals themselves (a sanitizer's SEGV
    // handler prints a report and exits 1) would turn it into an exit code,
    // so the child puts the default dispositions back before the job runs.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL})
      std::signal(sig, SIG_DFL);
    // Stray prints to stdout join the stderr text: the payload pipe carries
    // the return value only.
    dup2(errW, 1);
    int code = 0;
    try {
      std::string payload = job.run();
      std::fflush(nullptr);
      if (!writeAll(outW, payload.data(), payload.size()))
        code = 124;
    } catch (const std::exception& e) {
      std::fflush(nullptr);
      std::string m = std::string(e.what()) + "\n";
      writeAll(2, m.data(), m.size());
      code = 1;
    } catch (...) {
      std::fflush(nullptr);
      writeAll(2, "unknown exception\n", 18);
      code = 1;
    }
    // _exit: the copy of the parent's atexit handlers and static objects
    // must not run in the child.
    _exit(code);
  }
  dup2(outW, 1);
  std::vector<char*> argv;
  for (auto& a : job.command)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  if (!job.command.empty())
    execvp(argv[0], argv.data());
  std::string m = "cannot run '" + (job.command.empty() ? std::string() : job.command[0]) +
                  "': " + (job.command.empty() ? "empty job" : strerror(errno)) + "\n";
  writeAll(2, m.data(), m.size());
  _exit(127);
}

Child spawn(const IsolatedJob& job, std::size_t index, double defaultTimeout) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0)
    throw Error(std::string("worker pool: pipe failed: ") + strerror(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    int e = errno;
    close(out[0]);
    close(out[1]);
    throw Error(std::string("worker pool: pipe failed: ") + strerror(e));
  }
  pid_t parent = getpid();
  std::fflush(nullptr); // else the child inherits (and may print) unflushed output
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    for (int fd : {out[0], out[1], err[0], err[1]})
      close(fd);
    throw Error(std::string("worker pool: fork failed: ") + strerror(e));
  }
  if (pid == 0)
    runChild(job, out[1], err[1], parent);
  setpgid(pid, pid); // also here: the group must exist before a kill can race the child
  close(out[1]);
  close(err[1]);
  for (int fd : {out[0], err[0]})
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  Child c;
  c.pid = pid;
  c.index = index;
  c.out = out[0];
  c.err = err[0];
  c.start = Clock::now();
  c.timeout = job.timeoutSeconds > 0 ? job.timeoutSeconds : defaultTimeout;
  return c;
}

/// Reads what fd has now into `into` (up to `cap` bytes kept); closes it and
/// sets it to -1 at end-of-file.
void drain(int& fd, std::string& into, std::size_t cap) {
  char buf[65536];
  while (fd >= 0) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      if (into.size() < cap)
        into.append(buf, std::min(std::size_t(n), cap - into.size()));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else { // end-of-file or a read error: nothing more will come
      close(fd);
      fd = -1;
    }
  }
}

void killGroup(pid_t pid) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL); // in case the child had not yet made its group
}

JobResult resultOf(Child& c, int wstatus) {
  JobResult r;
  r.index = c.index;
  r.payload = std::move(c.payload);
  r.stderrText = std::move(c.stderrText);
  r.seconds = std::chrono::duration<double>(Clock::now() - c.start).count();
  if (WIFEXITED(wstatus))
    r.exitCode = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus))
    r.signal = WTERMSIG(wstatus);
  if (c.timedOut)
    r.status = JobStatus::TimedOut;
  else if (WIFSIGNALED(wstatus))
    r.status = JobStatus::Crashed;
  else
    r.status = r.exitCode == 0 ? JobStatus::Ok : JobStatus::Error;
  return r;
}

/// Kills and reaps the children still running when runIsolated leaves early
/// (a callback threw, or a fork failed half-way).
struct Reaper {
  std::vector<Child>& running;
  ~Reaper() {
    for (auto& c : running) {
      killGroup(c.pid);
      waitpid(c.pid, nullptr, 0);
      for (int fd : {c.out, c.err})
        if (fd >= 0)
          close(fd);
    }
  }
};

} // namespace

const char* jobStatusName(JobStatus s) {
  switch (s) {
  case JobStatus::Ok:
    return "ok";
  case JobStatus::Error:
    return "error";
  case JobStatus::Crashed:
    return "crashed";
  case JobStatus::TimedOut:
    return "timed out";
  }
  return "?";
}

std::string signalName(int sig) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  if (const char* abbrev = sigabbrev_np(sig))
    return std::string("SIG") + abbrev;
#else
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  case SIGPIPE:
    return "SIGPIPE";
  case SIGTRAP:
    return "SIGTRAP";
  case SIGINT:
    return "SIGINT";
  }
#endif
  return "signal " + std::to_string(sig);
}

std::string JobResult::describe() const {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", seconds);
  switch (status) {
  case JobStatus::Ok:
    return "ok";
  case JobStatus::Error:
    return "exit code " + std::to_string(exitCode);
  case JobStatus::Crashed:
    return "crashed: " + signalName(signal) + " (" + strsignal(signal) + ")";
  case JobStatus::TimedOut:
    return std::string("timed out after ") + secs + " s";
  }
  return "?";
}

std::vector<JobResult> runIsolated(const std::vector<IsolatedJob>& jobs,
                                   const WorkerPoolOptions& options,
                                   const std::function<void(const JobResult&)>& onFinished) {
  std::vector<JobResult> results(jobs.size());
  std::vector<Child> running;
  Reaper reaper{running};
  const std::size_t workers = std::size_t(std::max(1, options.workers));
  const std::size_t cap = options.maxCaptureBytes;
  std::size_t next = 0, done = 0;
  while (done < jobs.size()) {
    while (running.size() < workers && next < jobs.size()) {
      running.push_back(spawn(jobs[next], next, options.timeoutSeconds));
      ++next;
    }
    // Wait for output, an end-of-file or the nearest deadline (at most 50 ms:
    // a child whose pipes are closed is reaped on the next round).
    std::vector<pollfd> pfds;
    double waitMs = 50;
    auto now = Clock::now();
    for (auto& c : running) {
      for (int fd : {c.out, c.err})
        if (fd >= 0)
          pfds.push_back({fd, POLLIN, 0});
      if (c.out < 0 && c.err < 0)
        waitMs = std::min(waitMs, 1.0); // exiting: reap soon
      if (c.timeout > 0 && !c.timedOut) {
        double left = c.timeout - std::chrono::duration<double>(now - c.start).count();
        waitMs = std::min(waitMs, std::max(0.0, left * 1e3));
      }
    }
    poll(pfds.data(), pfds.size(), int(std::ceil(waitMs)));
    now = Clock::now();
    for (auto& c : running) {
      drain(c.out, c.payload, cap);
      drain(c.err, c.stderrText, cap);
      if (c.timeout > 0 && !c.timedOut &&
          std::chrono::duration<double>(now - c.start).count() >= c.timeout) {
        killGroup(c.pid);
        c.timedOut = true;
      }
    }
    for (std::size_t i = 0; i < running.size();) {
      Child& c = running[i];
      int ws = 0;
      pid_t got = waitpid(c.pid, &ws, WNOHANG);
      if (got == 0 || (got < 0 && errno == EINTR)) {
        ++i;
        continue;
      }
      drain(c.out, c.payload, cap);
      drain(c.err, c.stderrText, cap);
      for (int* fd : {&c.out, &c.err})
        if (*fd >= 0) { // a grandchild still holds it: stop listening
          close(*fd);
          *fd = -1;
        }
      JobResult r = resultOf(c, got == c.pid ? ws : 0);
      if (got < 0) { // reaped by someone else (a SIGCHLD handler set to ignore)
        r.status = JobStatus::Error;
        r.stderrText += "worker pool: the child's status was lost\n";
      }
      running.erase(running.begin() + long(i));
      ++done;
      results[r.index] = r;
      if (onFinished)
        onFinished(results[r.index]);
    }
  }
  return results;
}

} // namespace unity
