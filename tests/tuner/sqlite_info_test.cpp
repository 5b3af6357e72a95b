#include <gtest/gtest.h>

#include <sqlite3.h>

#include "tuner/sqlite_info.h"

TEST(SqliteInfo, ReportsTheLinkedLibraryVersion) {
  // The version must be the one of the library actually linked, "3.x.y".
  std::string v = unity::tuner::sqliteVersion();
  EXPECT_EQ(v.rfind("3.", 0), 0u) << v;
  EXPECT_EQ(v, std::string(sqlite3_libversion()));
}
