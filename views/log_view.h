#pragma once
// The application log: timestamped, one line per event, newest at the bottom.
// Read-only for the user; the window and (later) long-running jobs append.
// An entry with a source location (an error at file:line:column) is drawn
// as a link: clicking it, or Enter on it, emits locationActivated.
#include <QPlainTextEdit>

namespace lowerscope {

enum class LogLevel { Info, Warning, Error };

class LogView : public QPlainTextEdit {
  Q_OBJECT
public:
  /// Older lines are dropped past this many, so a long session stays cheap.
  static constexpr int kMaxLines = 10000;

  explicit LogView(QWidget* parent = nullptr);

  /// The location of the entry at a document position (block number), if any.
  bool locationAt(int blockNumber, QString* file, int* line, int* column) const;

public Q_SLOTS:
  void append(lowerscope::LogLevel level, const QString& text);
  /// An entry that points at file:line:column (line 0: the file only).
  void appendLocated(lowerscope::LogLevel level, const QString& text, const QString& file, int line,
                     int column);
  void info(const QString& text) { append(LogLevel::Info, text); }
  void warning(const QString& text) { append(LogLevel::Warning, text); }
  void error(const QString& text) { append(LogLevel::Error, text); }

Q_SIGNALS:
  void locationActivated(const QString& file, int line, int column);

protected:
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;

private:
  bool activateBlock(int blockNumber);
};

/// "info", "warning" or "error".
QString logLevelName(LogLevel level);

} // namespace lowerscope
