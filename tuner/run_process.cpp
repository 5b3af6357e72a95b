// Process identity from procfs (see run_process.h).
#include "tuner/run_process.h"

#include "tuner/measure.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace unity::tuner {

namespace {

std::string bootId() {
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(f, id);
  return id;
}

} // namespace

std::optional<std::string> processStartToken(int64_t pid) {
  if (pid <= 0)
    return std::nullopt;
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!f || !std::getline(f, stat))
    return std::nullopt;
  // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses, so
  // the fields are counted from the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos)
    return std::nullopt;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  std::string state;
  std::string startTicks;
  // Field 3 is the state, field 22 the start time.
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 3)
      state = field;
    if (i == 22)
      startTicks = field;
  }
  if (startTicks.empty() || state == "Z" || state == "X")
    return std::nullopt;
  const std::string boot = bootId();
  if (boot.empty())
    return std::nullopt;
  return boot + ":" + startTicks;
}

RunProcess thisProcess() {
  const int64_t pid = int64_t(getpid());
  return RunProcess{pid, hostName(), processStartToken(pid).value_or("")};
}

ProcessLiveness liveness(const RunProcess& process) {
  if (process.host.empty() || process.startToken.empty() || process.pid <= 0)
    return ProcessLiveness::Unknown;
  if (process.host != hostName())
    return ProcessLiveness::OtherHost;
  if (bootId().empty())
    return ProcessLiveness::Unknown;
  auto now = processStartToken(process.pid);
  return now && *now == process.startToken ? ProcessLiveness::Alive : ProcessLiveness::Gone;
}

const char* toString(ProcessLiveness l) {
  switch (l) {
  case ProcessLiveness::Alive:
    return "alive";
  case ProcessLiveness::Gone:
    return "gone";
  case ProcessLiveness::OtherHost:
    return "other host";
  case ProcessLiveness::Unknown:
    return "unknown";
  }
  return "?";
}

} // namespace unity::tuner
