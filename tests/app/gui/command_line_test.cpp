#include <gtest/gtest.h>

#include "app/gui/command_line.h"

using lowerscope::CommandLine;
using lowerscope::parseCommandLine;
using lowerscope::parseSize;
using Action = CommandLine::Action;

TEST(CommandLine, NoArgumentsRunsWithDefaults) {
  const CommandLine cl = parseCommandLine({"lowerscope"});
  EXPECT_EQ(cl.action, Action::Run);
  EXPECT_TRUE(cl.options.openFile.isEmpty());
  EXPECT_TRUE(cl.options.screenshotPath.isEmpty());
  EXPECT_FALSE(cl.options.size.isValid());
}

TEST(CommandLine, OpenScreenshotAndSize) {
  const CommandLine cl = parseCommandLine(
      {"lowerscope", "--open", "m.uir", "--screenshot", "out.png", "--size", "1024x768"});
  ASSERT_EQ(cl.action, Action::Run) << cl.text.toStdString();
  EXPECT_EQ(cl.options.openFile, "m.uir");
  EXPECT_EQ(cl.options.screenshotPath, "out.png");
  EXPECT_EQ(cl.options.size, QSize(1024, 768));
}

TEST(CommandLine, EqualsFormWorksToo) {
  const CommandLine cl = parseCommandLine({"lowerscope", "--screenshot=a.png", "--size=800x600"});
  ASSERT_EQ(cl.action, Action::Run);
  EXPECT_EQ(cl.options.screenshotPath, "a.png");
  EXPECT_EQ(cl.options.size, QSize(800, 600));
}

TEST(CommandLine, HelpAndVersion) {
  const CommandLine help = parseCommandLine({"lowerscope", "--help"});
  EXPECT_EQ(help.action, Action::ShowHelp);
  EXPECT_TRUE(help.text.contains("--screenshot"));
  EXPECT_TRUE(help.text.contains("--open"));
  EXPECT_TRUE(help.text.contains("--size"));
  EXPECT_EQ(parseCommandLine({"lowerscope", "--version"}).action, Action::ShowVersion);
}

TEST(CommandLine, ErrorsAreReported) {
  const CommandLine unknown = parseCommandLine({"lowerscope", "--bogus"});
  EXPECT_EQ(unknown.action, Action::Error);
  EXPECT_TRUE(unknown.text.contains("bogus"));

  const CommandLine missingValue = parseCommandLine({"lowerscope", "--open"});
  EXPECT_EQ(missingValue.action, Action::Error);

  const CommandLine badSize = parseCommandLine({"lowerscope", "--size", "big"});
  EXPECT_EQ(badSize.action, Action::Error);
  EXPECT_TRUE(badSize.text.contains("WIDTHxHEIGHT"));

  const CommandLine positional = parseCommandLine({"lowerscope", "m.uir"});
  EXPECT_EQ(positional.action, Action::Error);
  EXPECT_TRUE(positional.text.contains("--open"));
}

TEST(CommandLine, SizeParsing) {
  EXPECT_EQ(parseSize("1400x900"), QSize(1400, 900));
  EXPECT_EQ(parseSize(" 640X480 "), QSize(640, 480));
  EXPECT_FALSE(parseSize("1400").isValid());
  EXPECT_FALSE(parseSize("1400x").isValid());
  EXPECT_FALSE(parseSize("-5x10").isValid());
  EXPECT_FALSE(parseSize("10x10").isValid());     // too small to lay out
  EXPECT_FALSE(parseSize("99999x900").isValid()); // beyond any screen
}

TEST(CommandLine, ThemeForThisRun) {
  EXPECT_TRUE(parseCommandLine({"lowerscope"}).options.theme.isEmpty());
  const CommandLine dark = parseCommandLine({"lowerscope", "--theme", "Dark"});
  ASSERT_EQ(dark.action, Action::Run) << dark.text.toStdString();
  EXPECT_EQ(dark.options.theme, "dark");
  EXPECT_EQ(parseCommandLine({"lowerscope", "--theme=light"}).options.theme, "light");
  const CommandLine bad = parseCommandLine({"lowerscope", "--theme", "purple"});
  EXPECT_EQ(bad.action, Action::Error);
  EXPECT_TRUE(bad.text.contains("purple")) << bad.text.toStdString();
  EXPECT_TRUE(bad.text.contains("light, dark or system")) << bad.text.toStdString();
}

TEST(CommandLine, TuningDatabaseAndRun) {
  const CommandLine cl = parseCommandLine(
      {"lowerscope", "--tuning-db", "t.db", "--tuning-run", "3", "--screenshot", "a.png"});
  ASSERT_EQ(cl.action, CommandLine::Action::Run) << cl.text.toStdString();
  EXPECT_EQ(cl.options.tuningDb, "t.db");
  EXPECT_EQ(cl.options.tuningRun, 3);
  EXPECT_EQ(parseCommandLine({"lowerscope", "--tuning-db", "t.db"}).options.tuningRun, 0);
  const CommandLine noDb = parseCommandLine({"lowerscope", "--tuning-run", "3"});
  EXPECT_EQ(noDb.action, CommandLine::Action::Error);
  EXPECT_TRUE(noDb.text.contains("--tuning-db")) << noDb.text.toStdString();
  const CommandLine bad =
      parseCommandLine({"lowerscope", "--tuning-db", "t.db", "--tuning-run", "x"});
  EXPECT_EQ(bad.action, CommandLine::Action::Error);
  EXPECT_TRUE(bad.text.contains("'x'")) << bad.text.toStdString();
}

TEST(CommandLine, TuningDatabaseOptions) {
  CommandLine cl = parseCommandLine({"lowerscope", "--open", "m.uir", "--tuning-db", "t.db",
                                     "--record", "3,7", "--heat", "--apply-best"});
  ASSERT_EQ(cl.action, Action::Run) << cl.text.toStdString();
  EXPECT_EQ(cl.options.tuningDb, "t.db");
  EXPECT_TRUE(cl.options.records); // implied by --record
  EXPECT_EQ(cl.options.recordIds, (QList<qint64>{3, 7}));
  EXPECT_TRUE(cl.options.heat);
  EXPECT_TRUE(cl.options.build); // implied by --heat
  EXPECT_TRUE(cl.options.applyBest);

  cl = parseCommandLine({"lowerscope", "--tuning-db", "t.db", "--records"});
  ASSERT_EQ(cl.action, Action::Run) << cl.text.toStdString();
  EXPECT_TRUE(cl.options.records);
  EXPECT_FALSE(cl.options.build);

  cl = parseCommandLine({"lowerscope", "--heat", "--open", "m.uir"});
  EXPECT_EQ(cl.action, Action::Error);
  EXPECT_TRUE(cl.text.contains("--heat needs a tuning database")) << cl.text.toStdString();
  cl = parseCommandLine({"lowerscope", "--tuning-db", "t.db", "--apply-best"});
  EXPECT_EQ(cl.action, Action::Error);
  EXPECT_TRUE(cl.text.contains("--apply-best needs a model")) << cl.text.toStdString();
  for (const char* bad : {"x", "0", "1,2,3"}) {
    cl = parseCommandLine({"lowerscope", "--tuning-db", "t.db", "--record", bad});
    EXPECT_EQ(cl.action, Action::Error) << bad;
    EXPECT_TRUE(cl.text.contains("invalid --record")) << cl.text.toStdString();
  }
}
