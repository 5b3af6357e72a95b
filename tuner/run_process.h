#pragma once
// Finding the process that works on a tuning run again, from another
// program: the workbench after a restart, or a window watching a run that
// was started from a shell. The run stores a RunProcess (database.h): pid,
// host name and a start token. A pid is reused once its process has gone,
// so a signal is only ever sent when the pid's start token today is the one
// recorded: the token is the machine's boot id and the process's start time
// in clock ticks since boot (/proc/PID/stat field 22), which no two
// processes of one boot share for the same pid.
//
// Linux only (procfs); where /proc cannot say, the token is empty and the
// liveness Unknown, and callers neither signal the process nor call the run
// dead.
#include <cstdint>
#include <optional>
#include <string>

#include "tuner/database.h"
#include "tuner/measure.h" // hostName()

namespace unity::tuner {

/// The start token of process `pid` ("BOOTID:STARTTICKS"); nullopt when no
/// such process runs (a zombie does not run) or procfs cannot be read.
std::optional<std::string> processStartToken(int64_t pid);

/// This process, as a run records it.
RunProcess thisProcess();

enum class ProcessLiveness {
  Alive,     ///< the very process recorded still runs on this machine
  Gone,      ///< it ran here and has ended (or its pid now names another process)
  OtherHost, ///< recorded on another machine: cannot be checked from here
  Unknown,   ///< no token recorded, or procfs unreadable
};

/// Where the recorded process stands, checked now.
ProcessLiveness liveness(const RunProcess& process);
const char* toString(ProcessLiveness l);

} // namespace unity::tuner
