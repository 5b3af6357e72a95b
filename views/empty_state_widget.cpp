#include "views/empty_state_widget.h"

#include <QLabel>
#include <QVBoxLayout>

namespace lowerscope {

EmptyStateWidget::EmptyStateWidget(const QString& title, const QString& message, QWidget* parent)
    : QWidget(parent), title_(new QLabel(title, this)), message_(new QLabel(message, this)) {
  setObjectName("emptyState");
  title_->setObjectName("emptyStateTitle");
  message_->setObjectName("emptyStateMessage");

  QFont titleFont = title_->font();
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.25);
  titleFont.setBold(true);
  title_->setFont(titleFont);
  title_->setAlignment(Qt::AlignCenter);

  message_->setAlignment(Qt::AlignCenter);
  message_->setWordWrap(true);
  message_->setTextFormat(Qt::PlainText);
  // Secondary text in the palette's colour for hints, so it follows the theme
  // on any background (window or canvas).
  message_->setForegroundRole(QPalette::PlaceholderText);

  // No per-item alignment: it would stop the layout from asking the wrapped
  // label for its height at the given width, and clip it.
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(24, 16, 24, 16);
  layout->addStretch(1);
  layout->addWidget(title_);
  layout->addSpacing(6);
  layout->addWidget(message_);
  layout->addStretch(1);
}

QString EmptyStateWidget::title() const { return title_->text(); }

QString EmptyStateWidget::message() const { return message_->text(); }

void EmptyStateWidget::setMessage(const QString& message) { message_->setText(message); }

} // namespace lowerscope
