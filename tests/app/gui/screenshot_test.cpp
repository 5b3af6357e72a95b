#include <gtest/gtest.h>

#include "app/gui/main_window.h"
#include "app/gui/screenshot.h"
#include "tests/views/image_checks.h"

#include <QImage>
#include <QTemporaryDir>

using lowerscope::test::distinctColours;

TEST(Screenshot, WritesANonBlankPngOfTheRequestedSize) {
  QTemporaryDir dir;
  const QString path = dir.filePath("window.png");
  lowerscope::MainWindow w;
  QString error;
  ASSERT_TRUE(lowerscope::writeScreenshot(w, QSize(1100, 720), path, &error))
      << error.toStdString();

  QImage image;
  ASSERT_TRUE(image.load(path, "PNG"));
  EXPECT_EQ(image.size(), QSize(1100, 720));
  EXPECT_GE(distinctColours(image, 16), 16) << "the screenshot is (nearly) a single colour";
}

TEST(Screenshot, DefaultSizeIs1400x900) {
  lowerscope::MainWindow w;
  const QImage image = lowerscope::renderWindow(w, lowerscope::MainWindow::kDefaultSize);
  EXPECT_EQ(image.size(), QSize(1400, 900));
  EXPECT_GE(distinctColours(image, 16), 16);
}

TEST(Screenshot, ReportsAnUnwritablePath) {
  QTemporaryDir dir;
  lowerscope::MainWindow w;
  QString error;
  EXPECT_FALSE(
      lowerscope::writeScreenshot(w, QSize(800, 600), dir.filePath("no/such/dir/x.png"), &error));
  EXPECT_FALSE(error.isEmpty());
}
