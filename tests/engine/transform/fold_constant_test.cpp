#include <gtest/gtest.h>

#include "engine/ir/functor.h"
#include "engine/text/parser.h"
#include "engine/transform/fold_constant.h"
#include "engine/transform/normalize.h"

using namespace unity;
using namespace unity::ir;

namespace {
IRModule parse(const char* text) { return transform::normalize(text::parseModule(text)); }

std::vector<Binding> bindingsOf(const IRModule& m) {
  std::vector<Binding> out;
  for (auto& blk : as<SeqExpr>(as<Function>(m->lookup("main"))->body)->blocks)
    for (auto& b : blk->bindings)
      out.push_back(b);
  return out;
}
} // namespace

TEST(FoldConstant, EvaluatesCallsOnConstantsOnly) {
  IRModule m = parse(R"(
@R.function
def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    with R.dataflow():
        c: R.Tensor((2,), "float32") = R.add(R.const([1.5, 2.0], "float32"), R.const([0.25, -4.0], "float32"))
        d: R.Tensor((2,), "float32") = R.multiply(x, c)
        R.output(d)
    return d
)");
  IRModule out = transform::foldConstant(m);
  auto bs = bindingsOf(out);
  ASSERT_EQ(bs.size(), 2u);
  auto* folded = as<Constant>(bs[0]->value);
  ASSERT_NE(folded, nullptr) << "add of two constants was not folded";
  EXPECT_FLOAT_EQ(folded->data.getDouble(0), 1.75);
  EXPECT_FLOAT_EQ(folded->data.getDouble(1), -2.0);
  EXPECT_TRUE(isa<Call>(bs[1]->value)); // depends on x: stays
  EXPECT_TRUE(sameNode(transform::foldConstant(out), out));
}

TEST(FoldConstant, LeavesLargeResultsAlone) {
  IRModule m = parse(R"(
@R.function
def main() -> R.Tensor((4,), "float32"):
    with R.dataflow():
        c: R.Tensor((4,), "float32") = R.exp(R.const([0.0, 1.0, 2.0, 3.0], "float32"))
        R.output(c)
    return c
)");
  EXPECT_TRUE(sameNode(transform::foldConstant(m, 3), m));
  IRModule folded = transform::foldConstant(m, 4);
  auto* c = as<Constant>(bindingsOf(folded)[0]->value);
  ASSERT_NE(c, nullptr);
  EXPECT_NEAR(c->data.getDouble(3), 20.0855369, 1e-5);
}
