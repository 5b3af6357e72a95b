#include "app/gui/application.h"

#include "lowerscope/version.h"

#include <QApplication>

// Q_INIT_RESOURCE must be used outside any namespace.
static void registerQrc() { Q_INIT_RESOURCE(resources); }

namespace lowerscope {

void loadResources() {
  static const bool loaded = (registerQrc(), true);
  (void)loaded;
}

void initApplication(QApplication& app) {
  loadResources();
  QCoreApplication::setOrganizationName(QStringLiteral("Lowerscope"));
  QCoreApplication::setApplicationName(QStringLiteral("Lowerscope"));
  QCoreApplication::setApplicationVersion(QStringLiteral(LOWERSCOPE_VERSION));
  // Matches packaging/lowerscope.desktop, so Wayland shells find our icon.
  QGuiApplication::setDesktopFileName(QStringLiteral("lowerscope"));
  app.setWindowIcon(applicationIcon());
}

QIcon applicationIcon() {
  loadResources();
  return QIcon(QStringLiteral(":/icons/lowerscope.svg"));
}

} // namespace lowerscope
