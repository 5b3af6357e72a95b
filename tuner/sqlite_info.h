#pragma once
#include <string>

namespace unity::tuner {

/// Version of the SQLite library the tuning database runs on.
std::string sqliteVersion();

} // namespace unity::tuner
