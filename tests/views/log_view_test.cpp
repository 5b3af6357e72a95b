#include <gtest/gtest.h>

#include "views/log_view.h"

#include <QRegularExpression>

using lowerscope::LogLevel;
using lowerscope::LogView;

TEST(LogView, StartsEmptyAndReadOnly) {
  LogView log;
  EXPECT_TRUE(log.toPlainText().isEmpty());
  EXPECT_TRUE(log.isReadOnly());
}

TEST(LogView, OneTimestampedLinePerEntryWithLevel) {
  LogView log;
  log.info("opened m.uir");
  log.warning("slow layout");
  log.error("parse failed");
  const QStringList lines = log.toPlainText().split('\n');
  ASSERT_EQ(lines.size(), 3);
  const QRegularExpression stamp("^\\d\\d:\\d\\d:\\d\\d  ");
  for (const QString& line : lines)
    EXPECT_TRUE(stamp.match(line).hasMatch()) << line.toStdString();
  EXPECT_TRUE(lines[0].endsWith("  opened m.uir"));
  EXPECT_TRUE(lines[1].endsWith("  warning: slow layout"));
  EXPECT_TRUE(lines[2].endsWith("  error: parse failed"));
}

TEST(LogView, MultiLineMessagesStayAlignedUnderTheStamp) {
  LogView log;
  log.error("m.uir:3:5: unexpected ')'\n  x = )\n      ^");
  const QStringList lines = log.toPlainText().split('\n');
  ASSERT_EQ(lines.size(), 3);
  EXPECT_EQ(lines[1], QString(10, ' ') + "  x = )");
  EXPECT_EQ(lines[2], QString(10, ' ') + "      ^");
}

TEST(LogView, LevelNames) {
  EXPECT_EQ(lowerscope::logLevelName(LogLevel::Info), "info");
  EXPECT_EQ(lowerscope::logLevelName(LogLevel::Warning), "warning");
  EXPECT_EQ(lowerscope::logLevelName(LogLevel::Error), "error");
}
