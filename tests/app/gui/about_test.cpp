#include <gtest/gtest.h>

#include "app/gui/about.h"
#include "engine/codegen/llvm_info.h"
#include "engine/viz/graphviz_info.h"
#include "lowerscope/version.h"
#include "tuner/sqlite_info.h"

TEST(About, NamesOurVersionAndTheFourLibraryVersions) {
  const QString text = lowerscope::aboutText();
  EXPECT_TRUE(text.contains(QString("Lowerscope ") + LOWERSCOPE_VERSION)) << text.toStdString();
  for (const QString& version :
       {QString(qVersion()), QString::fromStdString(unity::codegen::llvmVersion()),
        QString::fromStdString(unity::tuner::sqliteVersion()),
        QString::fromStdString(unity::viz::graphvizVersion())}) {
    ASSERT_FALSE(version.isEmpty());
    EXPECT_TRUE(text.contains(version))
        << version.toStdString() << " missing in " << text.toStdString();
  }
  for (const char* name : {"Qt", "LLVM", "SQLite", "Graphviz"})
    EXPECT_TRUE(text.contains(name)) << name;
}

TEST(About, ComponentVersionsAreTheLinkedLibraries) {
  const auto components = lowerscope::componentVersions();
  ASSERT_EQ(components.size(), 4);
  EXPECT_EQ(components[0].name, "Qt");
  EXPECT_EQ(components[1].name, "LLVM");
  EXPECT_TRUE(components[1].version.startsWith("19."));
  EXPECT_EQ(components[2].name, "SQLite");
  EXPECT_TRUE(components[2].version.startsWith("3."));
  EXPECT_EQ(components[3].name, "Graphviz");
}

TEST(About, VersionTextHasOneLinePerComponent) {
  const QStringList lines = lowerscope::versionText().trimmed().split('\n');
  ASSERT_EQ(lines.size(), 5);
  EXPECT_EQ(lines[0], QString("lowerscope ") + LOWERSCOPE_VERSION);
  EXPECT_TRUE(lines[2].startsWith("LLVM 19."));
  EXPECT_TRUE(lines[3].startsWith("SQLite 3."));
  EXPECT_TRUE(lines[4].startsWith("Graphviz "));
}
