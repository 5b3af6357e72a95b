#include <gtest/gtest.h>

#include "app/gui/recent_files.h"

#include <QDir>

using namespace lowerscope;

TEST(RecentFiles, NewestFirstWithoutDuplicates) {
  clearRecentFiles();
  addRecentFile("/m/a.uir");
  addRecentFile("/m/b.uir");
  addRecentFile("/m/a.uir");
  EXPECT_EQ(recentFiles(), (QStringList{"/m/a.uir", "/m/b.uir"}));
  removeRecentFile("/m/a.uir");
  EXPECT_EQ(recentFiles(), QStringList{"/m/b.uir"});
  clearRecentFiles();
  EXPECT_TRUE(recentFiles().isEmpty());
}

TEST(RecentFiles, KeepsAtMostTheLimitAndStoresAbsolutePaths) {
  clearRecentFiles();
  for (int i = 0; i < kMaxRecentFiles + 3; ++i)
    addRecentFile(QString("/m/%1.uir").arg(i));
  const QStringList files = recentFiles();
  ASSERT_EQ(files.size(), kMaxRecentFiles);
  EXPECT_EQ(files.first(), QString("/m/%1.uir").arg(kMaxRecentFiles + 2));

  clearRecentFiles();
  addRecentFile("relative.uir");
  EXPECT_EQ(recentFiles(), QStringList{QDir::current().absoluteFilePath("relative.uir")});
  clearRecentFiles();
}
