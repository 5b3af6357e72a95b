#include <gtest/gtest.h>

#include "engine/viz/loop_tree.h"
#include "tests/engine/viz/viz_test_util.h"

using namespace unity;
using namespace unity::viz;
using unity::viz::testing::example;

// call_tir.uir's matmul: for i in n / for j in 8 / for k in 16 / block C.
TEST(VizLoopTree, MatmulNest) {
  LoopTree t = loopTree(example("call_tir.uir"), "matmul");
  ASSERT_EQ(t.nodes.size(), 4u);
  ASSERT_EQ(t.roots.size(), 1u);
  EXPECT_EQ(t.nodes[0].label, "for i in n");
  EXPECT_EQ(t.nodes[2].label, "for k in 16");
  EXPECT_EQ(t.nodes[3].label, "block C [2 spatial, 1 reduce]");
  EXPECT_EQ(t.nodes[3].depth, 3);
  EXPECT_EQ(t.nodes[3].parent, 2);
  EXPECT_EQ(t.nodes[2].children, std::vector<int>{3});
  EXPECT_EQ(loopTreeText(t), "for i in n\n  for j in 8\n    for k in 16\n"
                             "      block C [2 spatial, 1 reduce]\n");
}

// bias_add: for i in T.parallel(n) / for j in T.vectorized(8) / block C.
TEST(VizLoopTree, LoopKindsAreShown) {
  LoopTree t = loopTree(example("call_tir.uir"), "bias_add");
  ASSERT_GE(t.nodes.size(), 3u);
  EXPECT_EQ(t.nodes[0].label, "for i in n (parallel)");
  EXPECT_EQ(t.nodes[0].forKind, "parallel");
  EXPECT_EQ(t.nodes[1].label, "for j in 8 (vectorized)");
  EXPECT_EQ(t.nodes[2].kind, LoopTreeNode::Kind::Block);
}

TEST(VizLoopTree, ErrorsNameTheFunction) {
  ir::IRModule m = example("call_tir.uir");
  try {
    loopTree(m, "main");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'main'"), std::string::npos);
  }
  EXPECT_THROW(loopTree(m, "missing"), Error);
}
