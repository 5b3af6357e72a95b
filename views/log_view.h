#pragma once
// The application log: timestamped, one line per event, newest at the bottom.
// Read-only for the user; the window and (later) long-running jobs append.
#include <QPlainTextEdit>

namespace lowerscope {

enum class LogLevel { Info, Warning, Error };

class LogView : public QPlainTextEdit {
  Q_OBJECT
public:
  /// Older lines are dropped past this many, so a long session stays cheap.
  static constexpr int kMaxLines = 10000;

  explicit LogView(QWidget* parent = nullptr);

public Q_SLOTS:
  void append(lowerscope::LogLevel level, const QString& text);
  void info(const QString& text) { append(LogLevel::Info, text); }
  void warning(const QString& text) { append(LogLevel::Warning, text); }
  void error(const QString& text) { append(LogLevel::Error, text); }
};

/// "info", "warning" or "error".
QString logLevelName(LogLevel level);

} // namespace lowerscope
