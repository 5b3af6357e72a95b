#include <gtest/gtest.h>

#include "views/empty_state_widget.h"

#include <QLabel>

using lowerscope::EmptyStateWidget;

TEST(EmptyStateWidget, ShowsTitleAndMessage) {
  EmptyStateWidget w("Tuning", "Runs will appear here.");
  EXPECT_EQ(w.title(), "Tuning");
  EXPECT_EQ(w.message(), "Runs will appear here.");
  auto* title = w.findChild<QLabel*>("emptyStateTitle");
  auto* message = w.findChild<QLabel*>("emptyStateMessage");
  ASSERT_NE(title, nullptr);
  ASSERT_NE(message, nullptr);
  EXPECT_EQ(title->text(), "Tuning");
  EXPECT_TRUE(message->wordWrap());
}

TEST(EmptyStateWidget, MessageCanChange) {
  EmptyStateWidget w("Graph", "Open a model.");
  w.setMessage("The graph of m.uir will appear here.");
  EXPECT_EQ(w.message(), "The graph of m.uir will appear here.");
  EXPECT_EQ(w.title(), "Graph");
}

TEST(EmptyStateWidget, MessageIsPlainText) {
  // A file name with markup characters must show literally.
  EmptyStateWidget w("IR Text", "<b>a.uir</b>");
  auto* message = w.findChild<QLabel*>("emptyStateMessage");
  ASSERT_NE(message, nullptr);
  EXPECT_EQ(message->textFormat(), Qt::PlainText);
}
