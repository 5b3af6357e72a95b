#pragma once
// The module as text, read-only, in a fixed-width font. Until there is text it
// shows an empty state that says what will appear.
#include <QStackedWidget>

class QPlainTextEdit;

namespace lowerscope {

class EmptyStateWidget;

class IrTextView : public QStackedWidget {
  Q_OBJECT
public:
  explicit IrTextView(QWidget* parent = nullptr);

  /// Shows `text`; `sourceName` (a file name) is kept for the caller's titles.
  void setText(const QString& sourceName, const QString& text);
  /// Drops the text and shows the empty state with `message`.
  void showEmptyState(const QString& message);

  bool hasText() const;
  QString text() const;
  QString sourceName() const { return sourceName_; }
  EmptyStateWidget* emptyState() const { return empty_; }

  static QString defaultEmptyMessage();

private:
  EmptyStateWidget* empty_;
  QPlainTextEdit* editor_;
  QString sourceName_;
};

} // namespace lowerscope
