#pragma once
// The File > Open Recent list: newest first, no duplicates, at most
// kMaxRecentFiles entries, kept in QSettings under "recentFiles".
#include <QStringList>

namespace lowerscope {

constexpr int kMaxRecentFiles = 10;

QStringList recentFiles();
/// Moves (or adds) `path` to the front; paths are stored absolute.
void addRecentFile(const QString& path);
void removeRecentFile(const QString& path);
void clearRecentFiles();

} // namespace lowerscope
