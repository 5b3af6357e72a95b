#pragma once
// Renders a top-level widget without putting it on screen, for
// `lowerscope --screenshot` (documentation images, CI smoke tests).
#include <QImage>
#include <QSize>
#include <QString>

class QWidget;

namespace lowerscope {

/// Shows `window` off screen at `size`, lets it lay out, and returns its
/// rendering. The window stays shown (off screen) afterwards.
QImage renderWindow(QWidget& window, const QSize& size);

/// renderWindow() written to `path` as PNG. On failure returns false and, if
/// `error` is given, says why.
bool writeScreenshot(QWidget& window, const QSize& size, const QString& path,
                     QString* error = nullptr);

} // namespace lowerscope
