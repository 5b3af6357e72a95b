#include "app/gui/screenshot.h"

#include <QCoreApplication>
#include <QImageWriter>
#include <QWidget>

namespace lowerscope {

QImage renderWindow(QWidget& window, const QSize& size) {
  // Laid out and painted like a visible window, but never mapped, so this
  // works the same under a real display, Xvfb and the offscreen platform.
  window.setAttribute(Qt::WA_DontShowOnScreen, true);
  window.resize(size);
  window.show();
  // Dock sizes and deferred layouts settle over a few event-loop rounds.
  for (int round = 0; round < 3; ++round) {
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
  }
  return window.grab().toImage();
}

bool writeScreenshot(QWidget& window, const QSize& size, const QString& path, QString* error) {
  const QImage image = renderWindow(window, size);
  if (image.isNull()) {
    if (error)
      *error = QStringLiteral("the window rendered to an empty image");
    return false;
  }
  QImageWriter writer(path, "png");
  if (!writer.write(image)) {
    if (error)
      *error = writer.errorString();
    return false;
  }
  return true;
}

} // namespace lowerscope
