#include <gtest/gtest.h>

#include "views/empty_state_widget.h"
#include "views/ir_text_view.h"

using lowerscope::IrTextView;

TEST(IrTextView, StartsWithTheEmptyState) {
  IrTextView view;
  EXPECT_FALSE(view.hasText());
  EXPECT_EQ(view.currentWidget(), view.emptyState());
  EXPECT_EQ(view.emptyState()->message(), IrTextView::defaultEmptyMessage());
}

TEST(IrTextView, ShowsTextThenEmptyStateAgain) {
  IrTextView view;
  view.setText("m.uir", "@main = fn() {}\n");
  EXPECT_TRUE(view.hasText());
  EXPECT_EQ(view.text(), "@main = fn() {}\n");
  EXPECT_EQ(view.sourceName(), "m.uir");

  view.showEmptyState("m.onnx is an ONNX model.");
  EXPECT_FALSE(view.hasText());
  EXPECT_TRUE(view.text().isEmpty());
  EXPECT_TRUE(view.sourceName().isEmpty());
  EXPECT_EQ(view.emptyState()->message(), "m.onnx is an ONNX model.");
}
