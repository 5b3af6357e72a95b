#include "app/gui/about.h"

#include "engine/codegen/llvm_info.h"
#include "engine/viz/graphviz_info.h"
#include "lowerscope/version.h"
#include "tuner/sqlite_info.h"

#include <QCoreApplication>

namespace lowerscope {

QList<ComponentVersion> componentVersions() {
  return {
      {QStringLiteral("Qt"), QString::fromLatin1(qVersion())},
      {QStringLiteral("LLVM"), QString::fromStdString(unity::codegen::llvmVersion())},
      {QStringLiteral("SQLite"), QString::fromStdString(unity::tuner::sqliteVersion())},
      {QStringLiteral("Graphviz"), QString::fromStdString(unity::viz::graphvizVersion())},
  };
}

QString aboutText() {
  QString rows;
  for (const ComponentVersion& c : componentVersions())
    rows += QStringLiteral("<tr><td>%1</td><td>&nbsp;&nbsp;%2</td></tr>")
                .arg(c.name.toHtmlEscaped(), c.version.toHtmlEscaped());
  return QCoreApplication::translate("lowerscope::About",
                                     "<h3>Lowerscope %1</h3>"
                                     "<p>An IR explorer and tuning workbench for the unity tensor "
                                     "compiler: watch a model being lowered pass by pass, assign "
                                     "parts of it to targets and tune its kernels.</p>"
                                     "<p>Built with:</p><table>%2</table>")
      .arg(QStringLiteral(LOWERSCOPE_VERSION), rows);
}

QString versionText() {
  QString text = QStringLiteral("lowerscope %1\n").arg(QStringLiteral(LOWERSCOPE_VERSION));
  for (const ComponentVersion& c : componentVersions())
    text += QStringLiteral("%1 %2\n").arg(c.name, c.version);
  return text;
}

} // namespace lowerscope
