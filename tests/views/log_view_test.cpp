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

// --- located entries ---------------------------------------------------------

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>

#include "views/source_view.h"

namespace {
/// Clicks the middle of the first line of block `n`.
void clickBlock(LogView& log, int n) {
  QTextCursor c(log.document()->findBlockByNumber(n));
  QRect r = log.cursorRect(c);
  QTest::mouseClick(log.viewport(), Qt::LeftButton, {}, QPoint(20, r.center().y()));
}
} // namespace

TEST(LogView, ClickingALocatedErrorEmitsItsLocation) {
  LogView log;
  log.resize(600, 300);
  log.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&log));
  log.info("opened m.uir");
  log.appendLocated(LogLevel::Error, "m.uir:3:5: unexpected ')'\n  x = )\n      ^", "/tmp/m.uir", 3,
                    5);
  log.info("done");
  QSignalSpy spy(&log, &LogView::locationActivated);

  clickBlock(log, 0); // a plain entry: nothing
  EXPECT_EQ(spy.count(), 0);
  clickBlock(log, 2); // the caret line of the located entry
  ASSERT_EQ(spy.count(), 1);
  EXPECT_EQ(spy[0][0].toString(), "/tmp/m.uir");
  EXPECT_EQ(spy[0][1].toInt(), 3);
  EXPECT_EQ(spy[0][2].toInt(), 5);
  clickBlock(log, 4); // "done"
  EXPECT_EQ(spy.count(), 1);

  // Enter on the entry, from the keyboard.
  QTextCursor c(log.document()->findBlockByNumber(1));
  log.setTextCursor(c);
  QTest::keyClick(log.viewport(), Qt::Key_Return);
  EXPECT_EQ(spy.count(), 2);
}

TEST(SourceView, HighlightsTheErrorLineAndPutsTheCaretOnTheColumn) {
  QTemporaryDir dir;
  QString path = dir.filePath("m.uir");
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write("line one\nline two\n  x = )\nline four\n");
  f.close();
  lowerscope::SourceView view;
  EXPECT_TRUE(view.showLocation(path, 3, 7));
  EXPECT_EQ(view.highlightedLine(), 3);
  EXPECT_EQ(view.textCursor().blockNumber(), 2);
  EXPECT_EQ(view.textCursor().positionInBlock(), 6);
  ASSERT_EQ(view.extraSelections().size(), 1);
  EXPECT_EQ(view.extraSelections()[0].cursor.block().text(), "  x = )");

  // Binary (an .onnx model) and missing files say why instead.
  QString bin = dir.filePath("m.onnx");
  QFile g(bin);
  ASSERT_TRUE(g.open(QIODevice::WriteOnly));
  g.write(QByteArray("\x08\x07\x00\x12", 4));
  g.close();
  EXPECT_FALSE(view.showLocation(bin, 0, 0));
  EXPECT_TRUE(view.toPlainText().contains("binary"));
  EXPECT_FALSE(view.showLocation(dir.filePath("absent.uir"), 1, 1));
  EXPECT_EQ(view.highlightedLine(), 0);
}
