#pragma once
// What the About box and `lowerscope --version` report: our version and the
// versions of the libraries that decide behaviour (Qt, LLVM, SQLite, Graphviz).
#include <QList>
#include <QString>

namespace lowerscope {

struct ComponentVersion {
  QString name;    // "Qt", "LLVM", ...
  QString version; // as the library reports it at run time
};

/// Run-time versions of Qt, LLVM, SQLite and Graphviz, in that order.
QList<ComponentVersion> componentVersions();

/// Rich text for the About box.
QString aboutText();

/// Plain text, one "Name version" per line, starting with Lowerscope itself.
QString versionText();

} // namespace lowerscope
