// png_check FILE.png WIDTHxHEIGHT: exits 0 when FILE is a PNG of exactly that
// size showing more than a flat colour (what `lowerscope --screenshot` must
// produce); otherwise says what is wrong and exits 1.
#include "tests/views/image_checks.h"

#include <QImage>
#include <QRegularExpression>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: png_check FILE.png WIDTHxHEIGHT\n");
    return 2;
  }
  const QRegularExpressionMatch size =
      QRegularExpression("^(\\d+)x(\\d+)$").match(QString::fromLocal8Bit(argv[2]));
  if (!size.hasMatch()) {
    std::fprintf(stderr, "png_check: bad size '%s'\n", argv[2]);
    return 2;
  }
  const QSize expected(size.captured(1).toInt(), size.captured(2).toInt());

  QImage image;
  if (!image.load(QString::fromLocal8Bit(argv[1]), "PNG")) {
    std::fprintf(stderr, "png_check: %s is missing or not a PNG\n", argv[1]);
    return 1;
  }
  if (image.size() != expected) {
    std::fprintf(stderr, "png_check: %s is %dx%d, expected %dx%d\n", argv[1], image.width(),
                 image.height(), expected.width(), expected.height());
    return 1;
  }
  constexpr int kEnough = 16;
  const int colours = lowerscope::test::distinctColours(image, kEnough);
  if (colours < kEnough) {
    std::fprintf(stderr, "png_check: %s has only %d colours: blank rendering?\n", argv[1], colours);
    return 1;
  }
  std::printf("png_check: %s is a %dx%d rendering\n", argv[1], image.width(), image.height());
  return 0;
}
