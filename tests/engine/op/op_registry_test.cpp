// The registry as a whole, the symbolic shape arithmetic, and the generated
// operator reference page.
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "op_test_util.h"

#include "engine/op/op_docs.h"

using namespace optest;
namespace arith = unity::op::arith;

TEST(OpRegistry, HasAtLeastSixtyOperatorsSortedAndUnique) {
  const auto& ops = op::allOps();
  EXPECT_GE(ops.size(), 60u);
  std::set<std::string> names;
  for (size_t i = 0; i < ops.size(); ++i) {
    names.insert(ops[i]->name);
    if (i > 0) {
      EXPECT_LT(ops[i - 1]->name, ops[i]->name);
    }
    EXPECT_TRUE(ops[i]->deduce) << ops[i]->name;
    EXPECT_FALSE(ops[i]->doc.empty()) << ops[i]->name;
  }
  EXPECT_EQ(names.size(), ops.size());
}

TEST(OpRegistry, LooksUpOperatorsByTvmName) {
  for (const char* name :
       {"add", "nn.conv2d", "matmul", "call_tir", "image.resize2d", "permute_dims", "nn.gelu_tanh",
        "argmax", "strided_slice", "call_dps_library"})
    EXPECT_NE(op::findOp(name), nullptr) << name;
  EXPECT_EQ(op::findOp("transpose_not_an_op"), nullptr);
  EXPECT_EQ(op::findOp("nn.conv2d")->pattern, op::OpPattern::OutEWiseFusable);
  EXPECT_EQ(op::findOp("add")->pattern, op::OpPattern::Broadcast);
  EXPECT_EQ(op::findOp("exp")->pattern, op::OpPattern::ElemWise);
  EXPECT_EQ(op::findOp("sum")->pattern, op::OpPattern::CommReduce);
  EXPECT_EQ(op::findOp("reshape")->pattern, op::OpPattern::Injective);
  EXPECT_EQ(op::findOp("call_tir")->pattern, op::OpPattern::Opaque);
  EXPECT_EQ(static_cast<int>(op::OpPattern::Opaque), 8);
  EXPECT_STREQ(op::opPatternName(op::OpPattern::CommReduce), "CommReduce");
  const op::AttrSpec* a = op::findOp("nn.conv2d")->findAttr("groups");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->type, op::AttrSpec::Type::Int);
}

TEST(OpArith, SimplifiesAndDecidesEquality) {
  auto n = primVar("n"), m = primVar("m");
  EXPECT_TRUE(sameNode(arith::simplify(n + 2 - 3 + 1), n));
  EXPECT_TRUE(isConstInt(arith::simplify(floordiv(intImm(7), intImm(2)) * 3 - 1), 8));
  EXPECT_TRUE(arith::provablyEqual(n * 2, n + n));
  EXPECT_TRUE(arith::provablyEqual(floordiv(n * 4 + 8, intImm(4)), n + 2));
  EXPECT_FALSE(arith::provablyEqual(n, m));
  EXPECT_FALSE(arith::provablyDifferent(n, m));
  EXPECT_TRUE(arith::provablyDifferent(n + 1, n));
  auto q = arith::divideExact(arith::product({n, intImm(4), intImm(6)}), n * 2);
  ASSERT_TRUE(q.has_value());
  EXPECT_TRUE(isConstInt(*q, 12));
  EXPECT_FALSE(arith::divideExact(n * 4, m).has_value());
  auto r = arith::divideExact(arith::product({n, m, intImm(6)}), m * 3);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(arith::provablyEqual(*r, n * 2));
}

TEST(OpDocs, ReferenceMatchesRegistry) {
  std::string path = std::string(LOWERSCOPE_SOURCE_DIR) + "/docs/operators.md";
  std::string generated = op::operatorReferenceMarkdown();
  // Every operator appears in the generated page.
  for (const op::OpInfo* info : op::allOps())
    EXPECT_NE(generated.find("`R." + info->name + "`"), std::string::npos) << info->name;
  if (const char* update = std::getenv("LOWERSCOPE_UPDATE_DOCS"); update && *update == '1') {
    std::ofstream(path) << generated;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), generated)
      << "docs/operators.md is stale; regenerate with LOWERSCOPE_UPDATE_DOCS=1 "
         "test_engine --gtest_filter=OpDocs.*";
}
