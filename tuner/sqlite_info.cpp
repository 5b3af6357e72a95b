#include "tuner/sqlite_info.h"

#include <sqlite3.h>

namespace unity::tuner {

std::string sqliteVersion() { return sqlite3_libversion(); }

} // namespace unity::tuner
