// The executor's planned memory slots start on a cache line like every
// other tensor (see TensorStorage in tests/engine/support/tensor_test.cpp):
// outputs placed in a slot, of a size that glibc serves from mmap, and
// inputs of another size.
#include <gtest/gtest.h>

#include <cstdint>

#include "engine/build.h"
#include "engine/text/parser.h"
#include "tests/engine/te/te_test_util.h"

using namespace unity;
using namespace unity::ir;

TEST(ExecutorAlignment, PlannedTensorsStartOnACacheLine) {
  IRModule m = text::parseModule(R"(
@R.function
def main(x: R.Tensor((257, 1024), "float32")) -> R.Tensor((257, 1024), "float32"):
    R.func_attr({"global_symbol": "main"})
    with R.dataflow():
        a: R.Tensor((257, 1024), "float32") = R.nn.relu(x)
        b: R.Tensor((257, 1024), "float32") = R.add(a, x)
        c: R.Tensor((257, 1024), "float32") = R.multiply(b, a)
        R.output(c)
    return c
)",
                                 "alignment_test");
  BuildOptions opts;
  auto r = build(m, opts);
  auto x = te::testing::randomTensor({257, 1024}, 1);
  for (int run = 0; run < 2; ++run) {
    auto outs = r.executable->runTensors({x});
    ASSERT_EQ(outs.size(), 1u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(outs[0].data()) % 64, 0u) << run;
    // relu(x) * (relu(x) + x): 2 x^2 where x > 0, else 0
    for (int64_t i = 0; i < 1024; ++i) {
      double v = x.getDouble(i);
      EXPECT_NEAR(outs[0].getDouble(i), v > 0 ? 2 * v * v : 0.0, 1e-5);
    }
  }
}
