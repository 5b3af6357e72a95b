#include "views/log_view.h"

#include <QFontDatabase>
#include <QTime>

namespace lowerscope {

QString logLevelName(LogLevel level) {
  switch (level) {
  case LogLevel::Info:
    return QStringLiteral("info");
  case LogLevel::Warning:
    return QStringLiteral("warning");
  case LogLevel::Error:
    return QStringLiteral("error");
  }
  return QStringLiteral("info");
}

LogView::LogView(QWidget* parent) : QPlainTextEdit(parent) {
  setObjectName("logView");
  setReadOnly(true);
  setMaximumBlockCount(kMaxLines);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
}

void LogView::append(LogLevel level, const QString& text) {
  const QString stamp = QTime::currentTime().toString(QStringLiteral("HH:mm:ss"));
  // Multi-line messages (a parse error with its caret) keep their shape,
  // indented under the stamp.
  QString body = text;
  body.replace(QLatin1Char('\n'), QLatin1Char('\n') + QString(stamp.size() + 2, QLatin1Char(' ')));
  const QString prefix = level == LogLevel::Info ? QString() : logLevelName(level) + ": ";
  appendPlainText(QStringLiteral("%1  %2%3").arg(stamp, prefix, body));
}

} // namespace lowerscope
