#include "views/ir_text_view.h"

#include "views/empty_state_widget.h"

#include <QFontDatabase>
#include <QPlainTextEdit>

namespace lowerscope {

QString IrTextView::defaultEmptyMessage() {
  return tr("Open a model (File \u25b8 Open\u2026) to see its IR as text.");
}

IrTextView::IrTextView(QWidget* parent)
    : QStackedWidget(parent), empty_(new EmptyStateWidget(tr("IR Text"), defaultEmptyMessage())),
      editor_(new QPlainTextEdit) {
  setObjectName("irTextView");
  editor_->setObjectName("irTextEditor");
  editor_->setReadOnly(true);
  editor_->setLineWrapMode(QPlainTextEdit::NoWrap);
  editor_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  addWidget(empty_);
  addWidget(editor_);
  setCurrentWidget(empty_);
}

void IrTextView::setText(const QString& sourceName, const QString& text) {
  sourceName_ = sourceName;
  editor_->setPlainText(text);
  setCurrentWidget(editor_);
}

void IrTextView::showEmptyState(const QString& message) {
  sourceName_.clear();
  editor_->clear();
  empty_->setMessage(message);
  setCurrentWidget(empty_);
}

bool IrTextView::hasText() const { return currentWidget() == editor_; }

QString IrTextView::text() const { return editor_->toPlainText(); }

} // namespace lowerscope
