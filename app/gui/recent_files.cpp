#include "app/gui/recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace lowerscope {

namespace {
const QString kKey = QStringLiteral("recentFiles");

void store(const QStringList& files) { QSettings().setValue(kKey, files); }
} // namespace

QStringList recentFiles() { return QSettings().value(kKey).toStringList(); }

void addRecentFile(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList files = recentFiles();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecentFiles)
    files.removeLast();
  store(files);
}

void removeRecentFile(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(QFileInfo(path).absoluteFilePath());
  store(files);
}

void clearRecentFiles() { store({}); }

} // namespace lowerscope
