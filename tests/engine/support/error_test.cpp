#include <gtest/gtest.h>

#include "engine/support/error.h"

TEST(Error, RendersLocationMessageAndCaret) {
  unity::Error e({"m.ls", 3, 5}, "unexpected ')'", "  x = )");
  EXPECT_EQ(std::string(e.what()), "m.ls:3:5: error: unexpected ')'\n  x = )\n    ^");
  EXPECT_EQ(e.loc().line, 3);
  EXPECT_EQ(e.message(), "unexpected ')'");
}

TEST(Error, WithoutLocationIsPlain) {
  unity::Error e("no such file");
  EXPECT_EQ(std::string(e.what()), "error: no such file");
  EXPECT_FALSE(e.loc().known());
}
