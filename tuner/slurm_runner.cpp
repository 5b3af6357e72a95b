// The Slurm runner and its worker (see slurm_runner.h): batches become job
// arrays over a shared spool directory; sbatch, squeue and scancel are run
// as child processes (runIsolated's exec jobs, with a timeout), so the tuner
// links no Slurm library and works with any Slurm whose clients are in PATH.
#include "tuner/slurm_runner.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "engine/support/error.h"
#include "engine/support/measure.h"
#include "engine/support/worker_pool.h"
#include "tuner/task.h"

namespace unity::tuner {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// Seconds squeue may keep failing (controller restarting, network) before
/// the array is given up as lost.
constexpr double kSqueueGiveUpSeconds = 300;

/// Runs a Slurm client; its stdout is the payload.
JobResult runTool(const std::vector<std::string>& argv, double timeout = 60) {
  IsolatedJob j;
  j.command = argv;
  j.timeoutSeconds = timeout;
  WorkerPoolOptions wo;
  wo.timeoutSeconds = timeout;
  return runIsolated({j}, wo).at(0);
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.pop_back();
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b])))
    ++b;
  return s.substr(b);
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot read (" + std::strerror(errno) + ")");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush())
    throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
}

/// Complete lines appended to `path` since `offset` (advanced past them); a
/// line still being written (no newline yet) waits for the next call.
std::vector<std::string> newLines(const std::string& path, size_t& offset) {
  std::vector<std::string> out;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return out;
  in.seekg(std::streamoff(offset));
  std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t start = 0;
  for (size_t nl; (nl = chunk.find('\n', start)) != std::string::npos; start = nl + 1)
    if (nl > start)
      out.push_back(chunk.substr(start, nl - start));
  offset += start;
  return out;
}

bool terminalState(const std::string& s) {
  static const std::set<std::string> done = {
      "COMPLETED", "CANCELLED", "FAILED",        "TIMEOUT", "NODE_FAIL",   "PREEMPTED",
      "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY", "REVOKED", "SPECIAL_EXIT"};
  return done.count(s) > 0;
}

std::string selfExecutable() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw Error("slurm runner: cannot find this program's path (/proc/self/exe): " + ec.message() +
                "; give the worker program explicitly");
  return p.string();
}

/// One submitted array: which candidates each task has, and what squeue
/// last said of each task.
struct Submission {
  std::string dir, jobId;
  std::vector<std::vector<size_t>> tasks; // task -> candidate indices
  std::vector<std::string> state, node;   // per task, from squeue
  std::vector<size_t> offset;             // bytes of result-K.jsonl consumed
};

/// The array has left squeue's memory (MinJobAge) before its last state
/// was seen: ask the accounting database (when the cluster has one) for
/// the final states, else say what is known.
void forgotten(Submission& sub) {
  JobResult a =
      runTool({"sacct", "-n", "-X", "-P", "-j", sub.jobId, "-o", "JobID,State,NodeList"}, 60);
  if (a.status == JobStatus::Ok) {
    std::istringstream lines(a.payload);
    for (std::string line; std::getline(lines, line);) {
      auto us = line.find('_'), bar1 = line.find('|'), bar2 = line.find('|', bar1 + 1);
      if (us == std::string::npos || bar1 == std::string::npos || bar2 == std::string::npos ||
          us > bar1)
        continue;
      std::string idx = line.substr(us + 1, bar1 - us - 1);
      if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos)
        continue;
      size_t t = std::stoul(idx);
      if (t >= sub.state.size() || terminalState(sub.state[t]))
        continue;
      std::string st = line.substr(bar1 + 1, bar2 - bar1 - 1);
      sub.state[t] = st.substr(0, st.find(' ')); // "CANCELLED by 0"
      std::string n = trim(line.substr(bar2 + 1));
      if (!n.empty() && n != "None assigned")
        sub.node[t] = n;
    }
  }
  for (auto& st : sub.state)
    if (!terminalState(st))
      st = "ENDED (no longer known to squeue or sacct)";
}

} // namespace

std::string workerNodeName() {
  const char* n = std::getenv("SLURMD_NODENAME");
  return n && *n ? std::string(n) : hostName();
}

// ---------------------------------------------------------------- worker

void runWorker(const std::string& jobsPath, const std::string& outPath) {
  json task;
  try {
    task = json::parse(readFile(jobsPath));
  } catch (const json::exception& e) {
    throw Error("tune-worker: " + jobsPath + ": not a task file (" + e.what() + ")");
  }
  if (!task.is_object() || !task.contains("jobs") || !task["jobs"].is_array() ||
      !task.contains("settings"))
    throw Error("tune-worker: " + jobsPath + ": expected {\"settings\": ..., \"jobs\": [...]}");
  MeasureSettings settings = MeasureSettings::fromJson(task["settings"]);
  uint64_t seed = task.value("seed", uint64_t(1));
  std::string node = workerNodeName();

  // Results already written by an earlier start of this task are kept.
  std::set<size_t> done;
  std::string before;
  if (fs::exists(outPath)) {
    before = readFile(outPath);
    std::istringstream lines(before);
    for (std::string line; std::getline(lines, line);) {
      try {
        done.insert(json::parse(line).at("index").get<size_t>());
      } catch (const json::exception&) { // a line cut by a kill
      }
    }
  }
  int fd = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error("tune-worker: " + outPath + ": cannot open (" + std::strerror(errno) + ")");
  auto writeAll = [&](const std::string& s) {
    size_t at = 0;
    while (at < s.size()) {
      ssize_t w = ::write(fd, s.data() + at, s.size() - at);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        throw Error("tune-worker: " + outPath + ": write failed (" + std::strerror(errno) + ")");
      at += size_t(w);
    }
    ::fsync(fd); // a result on disk is a result the submitter will see
  };
  if (!before.empty() && before.back() != '\n')
    writeAll("\n");
  auto emit = [&](size_t index, MeasureResult r) {
    r.node = node;
    writeAll(json{{"index", index}, {"result", r.toJson()}}.dump() + "\n");
  };

  // Candidates grouped by (workload, target): one reference per group.
  std::map<std::string, std::vector<std::pair<size_t, MeasureJob>>> groups;
  std::vector<std::string> order;
  for (auto& item : task["jobs"]) {
    size_t index = item.value("index", size_t(0));
    if (done.count(index))
      continue;
    try {
      MeasureJob job = MeasureJob::fromJson(item.at("job"));
      std::string key = item["job"]["workload"].get<std::string>() + "\n" + job.target;
      if (!groups.count(key))
        order.push_back(key);
      groups[key].emplace_back(index, std::move(job));
    } catch (const std::exception& e) {
      MeasureResult r;
      r.status = RecordStatus::BuildError;
      r.errorKind = "job";
      r.errorMessage =
          std::string("the candidate could not be read on node ") + node + ": " + e.what();
      emit(index, r);
    }
  }
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  int allowed = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : -1;
  std::fprintf(stderr, "tune-worker on %s: %zu candidates, %d CPUs allowed, %d kernel threads\n",
               node.c_str(), task["jobs"].size() - done.size(), allowed, settings.threads);
  if (allowed > 0 && allowed < settings.threads)
    std::fprintf(stderr, "tune-worker: warning: %d kernel threads share %d allowed CPUs\n",
                 settings.threads, allowed);

  LocalBuilder builder;
  for (auto& key : order) {
    auto& items = groups[key];
    TaskReference ref;
    try {
      ref = makeReference(items[0].second.workload, items[0].second.target, seed, builder,
                          settings.threads, settings.symbolicExtent);
    } catch (const std::exception& e) {
      for (auto& [index, job] : items) {
        MeasureResult r;
        r.status = RecordStatus::RunError;
        r.errorKind = "reference";
        r.errorMessage =
            "the untuned kernel does not run on node " + node + ": " + std::string(e.what());
        emit(index, r);
      }
      continue;
    }
    std::vector<MeasureJob> jobs;
    for (auto& it : items)
      jobs.push_back(it.second);
    LocalRunner runner;
    runner.run(jobs, ref, settings,
               [&](size_t k, const MeasureResult& r) { emit(items[k].first, r); });
  }
  ::close(fd);
}

// ---------------------------------------------------------------- runner

SlurmRunner::SlurmRunner(RunnerOptions options) : opt_(std::move(options)) {
  if (opt_.spool.empty())
    throw Error("slurm runner: no spool directory (--spool DIR on a file system the nodes share)");
  std::error_code ec;
  fs::create_directories(opt_.spool, ec);
  if (ec)
    throw Error("slurm runner: spool directory '" + opt_.spool + "': " + ec.message());
  opt_.spool = fs::absolute(opt_.spool).string();
  if (opt_.workerProgram.empty())
    opt_.workerProgram = selfExecutable();
  opt_.maxJobs = std::max(1, opt_.maxJobs);
}

SlurmRunner::~SlurmRunner() {
  if (!active_.empty())
    runTool({"scancel", active_}, 30);
}

void SlurmRunner::beginRun(int64_t runId) {
  runDir_ = (fs::path(opt_.spool) / ("run-" + std::to_string(runId))).string();
  fs::create_directories(runDir_);
  // Arrays an earlier (killed) process submitted for this run: cancel them
  // so they stop holding nodes; their candidates were never committed and
  // the search picks again.
  std::string jobsFile = runDir_ + "/jobs";
  if (fs::exists(jobsFile)) {
    std::istringstream in(readFile(jobsFile));
    std::vector<std::string> argv = {"scancel"};
    for (std::string id; std::getline(in, id);)
      if (!trim(id).empty())
        argv.push_back(trim(id));
    if (argv.size() > 1)
      runTool(argv, 60); // finished ones are refused; nothing to do then
    fs::remove(jobsFile);
  }
}

void SlurmRunner::run(const std::vector<MeasureJob>& jobs, const TaskReference&,
                      const MeasureSettings& settings,
                      const std::function<void(size_t, const MeasureResult&)>& onResult) {
  if (jobs.empty())
    return;
  if (runDir_.empty()) {
    runDir_ = (fs::path(opt_.spool) / ("adhoc-" + std::to_string(getpid()))).string();
    fs::create_directories(runDir_);
  }
  std::string partition = partitionFor(opt_, jobs[0].target);
  std::vector<bool> delivered(jobs.size(), false);
  std::vector<std::string> history(jobs.size()), lastNode(jobs.size());
  std::vector<size_t> todo;
  for (size_t i = 0; i < jobs.size(); ++i)
    todo.push_back(i);

  // Whatever leaves this function early (the database writer threw) must
  // not leave an array running.
  struct CancelGuard {
    SlurmRunner& r;
    ~CancelGuard() {
      if (!r.active_.empty()) {
        runTool({"scancel", r.active_}, 30);
        r.active_.clear();
        std::error_code ec;
        fs::remove(r.runDir_ + "/jobs", ec);
      }
    }
  } guard{*this};

  for (int attempt = 1; attempt <= 2 && !todo.empty(); ++attempt) {
    if (attempt == 2)
      stats_.retried += int(todo.size());
    // ---- write the batch and submit it
    Submission sub;
    std::string pattern = runDir_ + "/batch-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
      throw Error("slurm runner: cannot create a batch directory in " + runDir_ + " (" +
                  std::strerror(errno) + ")");
    sub.dir = buf.data();
    size_t k = std::min(todo.size(), size_t(opt_.maxJobs));
    sub.tasks.assign(k, {});
    for (size_t j = 0; j < todo.size(); ++j)
      sub.tasks[j % k].push_back(todo[j]);
    for (size_t t = 0; t < k; ++t) {
      json items = json::array();
      for (size_t i : sub.tasks[t])
        items.push_back({{"index", i}, {"job", jobs[i].toJson()}});
      json file = {{"version", 1}, {"settings", settings.toJson()}, {"seed", 1}, {"jobs", items}};
      writeFile(sub.dir + "/task-" + std::to_string(t) + ".json", file.dump());
    }
    std::string script = sub.dir + "/worker.sh";
    writeFile(script, "#!/bin/sh\n# lowerscope tuning worker: array task $SLURM_ARRAY_TASK_ID\n"
                      "exec " +
                          shellQuote(opt_.workerProgram) + " tune-worker --jobs " +
                          shellQuote(sub.dir) + "/task-\"$SLURM_ARRAY_TASK_ID\".json --out " +
                          shellQuote(sub.dir) + "/result-\"$SLURM_ARRAY_TASK_ID\".jsonl\n");
    ::chmod(script.c_str(), 0755);
    std::string time = opt_.jobTime;
    if (time.empty()) { // minutes: every candidate of the task may use its whole timeout
      double perTask = double(sub.tasks[0].size()) * (settings.timeoutSeconds + 30) + 120;
      time = std::to_string(int(perTask / 60) + 1);
    }
    std::vector<std::string> argv = {"sbatch",
                                     "--parsable",
                                     "--job-name=lowerscope-tune",
                                     "--array=0-" + std::to_string(k - 1) + "%" +
                                         std::to_string(opt_.maxJobs),
                                     "--ntasks=1",
                                     "--cpus-per-task=" + std::to_string(settings.threads),
                                     "--time=" + time,
                                     "--no-requeue",
                                     "--output=" + sub.dir + "/slurm-%a.out",
                                     "--chdir=" + sub.dir};
    if (!partition.empty())
      argv.push_back("--partition=" + partition);
    argv.insert(argv.end(), opt_.extraSbatch.begin(), opt_.extraSbatch.end());
    argv.push_back(script);
    JobResult jr;
    for (int tries = 0; tries < 3; ++tries) { // a busy controller refuses now and then
      jr = runTool(argv);
      if (jr.status == JobStatus::Ok)
        break;
      if (tries < 2)
        std::this_thread::sleep_for(std::chrono::seconds(1 + tries));
    }
    if (jr.status != JobStatus::Ok)
      throw Error("slurm runner: sbatch refused the batch (" + jr.describe() +
                  "): " + trim(jr.stderrText));
    sub.jobId = trim(jr.payload.substr(0, jr.payload.find(';')));
    if (sub.jobId.empty() || sub.jobId.find_first_not_of("0123456789") != std::string::npos)
      throw Error("slurm runner: sbatch printed no job id: '" + trim(jr.payload) + "'");
    active_ = sub.jobId;
    ++stats_.submissions;
    stats_.jobIds.push_back(sub.jobId);
    writeFile(runDir_ + "/jobs", sub.jobId + "\n"); // what a resumed run cancels
    sub.state.assign(k, "PENDING");
    sub.node.assign(k, "");
    sub.offset.assign(k, 0);
    std::set<size_t> mine(todo.begin(), todo.end());
    size_t waiting = todo.size();

    // ---- stream results until every candidate has one or every task ended
    auto collect = [&] {
      for (size_t t = 0; t < k; ++t)
        for (auto& line :
             newLines(sub.dir + "/result-" + std::to_string(t) + ".jsonl", sub.offset[t])) {
          size_t index = 0;
          MeasureResult r;
          try {
            json j = json::parse(line);
            index = j.at("index").get<size_t>();
            r = MeasureResult::fromJson(j.at("result"));
          } catch (const std::exception&) {
            continue; // a torn line of a killed worker: its candidate is retried
          }
          if (!mine.count(index) || delivered[index])
            continue;
          delivered[index] = true;
          --waiting;
          onResult(index, r);
        }
    };
    Stopwatch squeueFailing;
    bool squeueOk = true;
    Stopwatch sinceSqueue;
    bool first = true;
    while (true) {
      collect();
      if (waiting == 0)
        break;
      if (cancel_ && cancel_->load()) {
        runTool({"scancel", sub.jobId}, 30);
        active_.clear();
        std::error_code ec;
        fs::remove(runDir_ + "/jobs", ec);
        return; // unmeasured candidates are not failures: nothing is recorded
      }
      // Result files are cheap to read and tell most; squeue (a controller
      // RPC) is asked every pollSeconds only.
      if (!first && sinceSqueue.wallSeconds() < opt_.pollSeconds) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      first = false;
      sinceSqueue.restart();
      JobResult q =
          runTool({"squeue", "-h", "-r", "-t", "all", "-j", sub.jobId, "-o", "%i|%T|%N"}, 60);
      bool ended = false;
      if (q.status == JobStatus::Ok) {
        squeueOk = true;
        std::istringstream lines(q.payload);
        int listed = 0;
        for (std::string line; std::getline(lines, line);) {
          auto bar1 = line.find('|'), bar2 = line.find('|', bar1 + 1);
          auto us = line.find('_');
          if (bar1 == std::string::npos || bar2 == std::string::npos || us == std::string::npos)
            continue;
          std::string idx = line.substr(us + 1, bar1 - us - 1);
          if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos)
            continue; // "[2-3%2]": not split into tasks yet, still pending
          size_t t = std::stoul(idx);
          if (t >= k)
            continue;
          ++listed;
          sub.state[t] = line.substr(bar1 + 1, bar2 - bar1 - 1);
          std::string n = trim(line.substr(bar2 + 1));
          if (!n.empty() && n != "(null)")
            sub.node[t] = n;
        }
        ended = true;
        for (size_t t = 0; t < k; ++t)
          ended = ended && terminalState(sub.state[t]);
        if (listed == 0) { // squeue no longer knows the job: it has ended
          ended = true;
          forgotten(sub);
        }
      } else if (trim(q.stderrText).find("Invalid job id") != std::string::npos) {
        ended = true;
        forgotten(sub);
      } else {
        if (squeueOk)
          squeueFailing.restart();
        squeueOk = false;
        if (squeueFailing.wallSeconds() > kSqueueGiveUpSeconds) {
          runTool({"scancel", sub.jobId}, 30);
          for (size_t t = 0; t < k; ++t)
            if (!terminalState(sub.state[t]))
              sub.state[t] = "LOST (squeue failed for " +
                             std::to_string(int(kSqueueGiveUpSeconds)) +
                             " s: " + trim(q.stderrText) + ")";
          ended = true;
        }
      }
      if (ended) {
        collect(); // what the workers wrote before they ended
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    active_.clear();
    std::error_code ec;
    fs::remove(runDir_ + "/jobs", ec);

    std::vector<size_t> missing;
    for (size_t t = 0; t < k; ++t)
      for (size_t i : sub.tasks[t])
        if (!delivered[i]) {
          missing.push_back(i);
          if (!sub.node[t].empty())
            lastNode[i] = sub.node[t];
          std::string out;
          std::error_code ec;
          std::string log = sub.dir + "/slurm-" + std::to_string(t) + ".out";
          if (fs::exists(log, ec)) {
            out = trim(readFile(log));
            if (out.size() > 2000)
              out = "..." + out.substr(out.size() - 2000);
          }
          history[i] += (history[i].empty() ? "" : "; ") + std::string("attempt ") +
                        std::to_string(attempt) + ": array task " + sub.jobId + "_" +
                        std::to_string(t) + " ended " + sub.state[t] +
                        (sub.node[t].empty() ? "" : " on " + sub.node[t]) + " without its result" +
                        (out.empty() ? "" : " (worker output: " + out + ")");
        }
    if (missing.empty()) {
      fs::remove_all(sub.dir, ec); // kept when something failed: the logs say why
    }
    todo = std::move(missing);
  }
  for (size_t i : todo) {
    MeasureResult r;
    r.status = RecordStatus::RunError;
    r.errorKind = "slurm";
    r.errorMessage = "not measured after 2 attempts: " + history[i];
    r.node = lastNode[i].empty() ? "slurm" : lastNode[i];
    ++stats_.failed;
    onResult(i, r);
  }
}

} // namespace unity::tuner
