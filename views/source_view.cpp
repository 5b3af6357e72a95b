#include "views/source_view.h"

#include <QFile>
#include <QFontDatabase>
#include <QPalette>
#include <QTextBlock>

namespace lowerscope {

SourceView::SourceView(QWidget* parent) : QPlainTextEdit(parent) {
  setObjectName("sourceView");
  setReadOnly(true);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
}

bool SourceView::showLocation(const QString& file, int line, int column) {
  if (file != file_) {
    QFile f(file);
    QByteArray bytes;
    if (f.open(QIODevice::ReadOnly))
      bytes = f.read(64 * 1024 * 1024);
    QString why;
    if (!f.isOpen())
      why = tr("cannot read %1: %2").arg(file, f.errorString());
    else if (bytes.contains('\0'))
      why = tr("%1 is a binary file (an ONNX model); the error names its node instead of a line")
                .arg(file);
    if (!why.isEmpty()) {
      file_.clear();
      line_ = 0;
      setExtraSelections({});
      setPlainText(why);
      return false;
    }
    file_ = file;
    setPlainText(QString::fromUtf8(bytes));
  }
  line_ = 0;
  QList<QTextEdit::ExtraSelection> marks;
  QTextBlock block = document()->findBlockByNumber(line - 1);
  if (line > 0 && block.isValid()) {
    line_ = line;
    QTextCursor c(block);
    QTextEdit::ExtraSelection mark;
    mark.cursor = c;
    mark.format.setBackground(QColor(255, 80, 80, 70));
    mark.format.setProperty(QTextFormat::FullWidthSelection, true);
    marks.append(mark);
    c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                   std::clamp(column - 1, 0, std::max(0, block.length() - 1)));
    setTextCursor(c);
    centerCursor();
  }
  setExtraSelections(marks);
  return true;
}

} // namespace lowerscope
