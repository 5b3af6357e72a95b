#include "views/log_view.h"

#include <QFontDatabase>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QTextBlock>
#include <QTime>

namespace lowerscope {

namespace {
/// Where a located entry points; kept on every text block of the entry.
struct LocationData : QTextBlockUserData {
  QString file;
  int line = 0, column = 0;
};
} // namespace

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
  setMouseTracking(true);
  // Read-only, but the caret still moves so Enter can open a located entry.
  setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
}

void LogView::appendLocated(LogLevel level, const QString& text, const QString& file, int line,
                            int column) {
  int first = document()->blockCount();
  bool wasEmpty = document()->isEmpty();
  append(level, text);
  QTextCharFormat link;
  link.setForeground(palette().color(QPalette::Link));
  link.setFontUnderline(true);
  for (QTextBlock b = document()->findBlockByNumber(wasEmpty ? 0 : first); b.isValid();
       b = b.next()) {
    auto* data = new LocationData;
    data->file = file;
    data->line = line;
    data->column = column;
    b.setUserData(data);
    if (b.blockNumber() == (wasEmpty ? 0 : first)) { // underline the first line only
      QTextCursor c(b);
      c.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
      c.mergeCharFormat(link);
    }
  }
}

bool LogView::locationAt(int blockNumber, QString* file, int* line, int* column) const {
  QTextBlock b = document()->findBlockByNumber(blockNumber);
  auto* data = b.isValid() ? static_cast<LocationData*>(b.userData()) : nullptr;
  if (!data)
    return false;
  if (file)
    *file = data->file;
  if (line)
    *line = data->line;
  if (column)
    *column = data->column;
  return true;
}

bool LogView::activateBlock(int blockNumber) {
  QString file;
  int line = 0, column = 0;
  if (!locationAt(blockNumber, &file, &line, &column))
    return false;
  Q_EMIT locationActivated(file, line, column);
  return true;
}

void LogView::mouseReleaseEvent(QMouseEvent* e) {
  QPlainTextEdit::mouseReleaseEvent(e);
  if (e->button() == Qt::LeftButton && !textCursor().hasSelection())
    activateBlock(cursorForPosition(e->position().toPoint()).blockNumber());
}

void LogView::mouseMoveEvent(QMouseEvent* e) {
  QPlainTextEdit::mouseMoveEvent(e);
  bool located = locationAt(cursorForPosition(e->position().toPoint()).blockNumber(), nullptr,
                            nullptr, nullptr);
  viewport()->setCursor(located ? Qt::PointingHandCursor : Qt::IBeamCursor);
}

void LogView::keyPressEvent(QKeyEvent* e) {
  if ((e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) &&
      activateBlock(textCursor().blockNumber()))
    return;
  QPlainTextEdit::keyPressEvent(e);
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
