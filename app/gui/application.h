#pragma once
// Process-wide setup shared by the lowerscope executable and the GUI tests.
#include <QIcon>

class QApplication;

namespace lowerscope {

/// Registers the compiled-in resources (resources/resources.qrc). The window
/// lives in a static library, so nothing would pull the resource object in
/// otherwise. Safe to call more than once.
void loadResources();

/// Names (used by QSettings), version and window icon of the application.
void initApplication(QApplication& app);

/// The application icon from resources/icons/lowerscope.svg.
QIcon applicationIcon();

} // namespace lowerscope
