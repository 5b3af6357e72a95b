#pragma once
// What a panel shows while it has nothing to show: a title and one sentence
// saying what will appear and what the user does to get it. Every dock starts
// with one, so an empty window still explains itself.
#include <QWidget>

class QLabel;

namespace lowerscope {

class EmptyStateWidget : public QWidget {
  Q_OBJECT
public:
  EmptyStateWidget(const QString& title, const QString& message, QWidget* parent = nullptr);

  QString title() const;
  QString message() const;
  void setMessage(const QString& message);

private:
  QLabel* title_;
  QLabel* message_;
};

} // namespace lowerscope
