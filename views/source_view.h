#pragma once
// A read-only view of a model's source file at an error: the file's text
// with the error line highlighted and the caret on the error's column. The
// log opens it when the user activates a located error (see LogView).
#include <QPlainTextEdit>

namespace lowerscope {

class SourceView : public QPlainTextEdit {
  Q_OBJECT
public:
  explicit SourceView(QWidget* parent = nullptr);

  /// Loads `file` (when it is not the one shown) and moves to line:column
  /// (1-based; 0 = unknown). Returns false, showing why, when the file
  /// cannot be read or is not text (an .onnx model).
  bool showLocation(const QString& file, int line, int column);
  QString file() const { return file_; }
  /// The highlighted line (1-based), 0 when none.
  int highlightedLine() const { return line_; }

private:
  QString file_;
  int line_ = 0;
};

} // namespace lowerscope
