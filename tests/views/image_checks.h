#pragma once
// Shared by the screenshot tests (test_views) and png_check (tests/app).
#include <QImage>
#include <QSet>

namespace lowerscope::test {

/// Distinct colours in `image` on a 3-pixel grid, stopping at `enough`. A
/// rendered window has hundreds; a blank or failed rendering one or two.
inline int distinctColours(const QImage& image, int enough) {
  QSet<QRgb> seen;
  for (int y = 0; y < image.height(); y += 3)
    for (int x = 0; x < image.width(); x += 3) {
      seen.insert(image.pixel(x, y));
      if (seen.size() >= enough)
        return enough;
    }
  return static_cast<int>(seen.size());
}

} // namespace lowerscope::test
