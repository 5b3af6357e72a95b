// AlterConvLayout: which convolutions get their constant weight packed with
// output channels innermost (kernel_layout OIHW<b>o), per target, and that
// the packed build computes what the OIHW build computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "../te/te_test_util.h"
#include "engine/build.h"
#include "engine/ir/functor.h"
#include "engine/ir/intrinsics.h"
#include "engine/support/error.h"
#include "engine/target/machine_model.h"
#include "engine/text/parser.h"
#include "engine/transform/alter_conv_layout.h"
#include "engine/transform/default_schedule.h"
#include "engine/transform/normalize.h"
#include "tests/engine/transform/graph_test_util.h"

using namespace unity;
using namespace unity::ir;
using unity::te::testing::randomTensor;
using unity::transform::testing::maxAbsDiff;

namespace {

/// Replaces the parameter `w` of main by the constant `value`.
struct BindWeight : ExprMutator {
  const VarNode* w;
  Expr value;
  Expr visitVar(const VarNode* op, const Expr& self) override {
    return op == w ? value : ExprMutator::visitVar(op, self);
  }
};

/// main(x) = relu(conv2d(x, W) + 1) with W a constant of `wshape`, after
/// `conv` attributes (text, e.g. `padding=[1, 1, 1, 1]`), under `target`.
IRModule convModule(std::vector<int64_t> xshape, std::vector<int64_t> wshape,
                    const std::string& attrs, const std::string& target = "") {
  auto dimsOf = [](const std::vector<int64_t>& s) {
    std::string out;
    for (auto d : s)
      out += (out.empty() ? "" : ", ") + std::to_string(d);
    return out;
  };
  std::string text = "@R.function\ndef main(x: R.Tensor((" + dimsOf(xshape) +
                     "), \"float32\"), w: R.Tensor((" + dimsOf(wshape) +
                     "), \"float32\")):\n    with R.dataflow():\n        c = R.nn.conv2d(x, w" +
                     (attrs.empty() ? "" : ", " + attrs) +
                     ")\n        d = R.nn.relu(R.add(c, R.const(1.0, \"float32\")))\n"
                     "        R.output(d)\n    return d\n";
  IRModule m = transform::normalize(text::parseModule(text));
  auto* fn = as<Function>(m->lookup("main"));
  BindWeight bind;
  bind.w = fn->params[1].get();
  bind.value = make<Constant>(randomTensor(wshape, 7));
  Expr body = bind.mutate(fn->body);
  BaseFunc f = make<Function>(std::vector<Var>{fn->params[0]}, body, fn->retSInfo, fn->attrs);
  IRModule out = transform::normalize(makeModule({{"main", f}}));
  return target.empty() ? out : withAttrs(out, out->attrs.with("target", target));
}

/// The kernel_layout of the module's conv2d call ("" when there is none).
std::string kernelLayout(const IRModule& m) {
  std::string out;
  postOrderVisit(as<Function>(m->lookup("main"))->body, [&](const Expr& e) {
    if (auto* c = as<Call>(e); c && as<OpRef>(c->op) && as<OpRef>(c->op)->name == "nn.conv2d")
      out = c->attrs.getString("kernel_layout", "OIHW");
  });
  return out;
}

const char* kAvx512 = "llvm -mcpu=skylake-avx512";
const char* kAvx2 = "llvm -mcpu=haswell";

/// m built for this machine without AlterConvLayout (the OIHW reference),
/// run on x.
unity::Tensor oihwResult(const IRModule& m, const unity::Tensor& x) {
  BuildOptions plain;
  plain.target = "llvm -num-cores=1";
  plain.disabledPasses = {"AlterConvLayout"};
  return build(m, plain).executable->runTensors({x}).at(0);
}

} // namespace

TEST(AlterConvLayout, PacksByTheTargetsVectorWidth) {
  auto m = [](const std::string& t) {
    return convModule({1, 64, 14, 14}, {64, 64, 3, 3}, "padding=[1, 1, 1, 1]", t);
  };
  // Two vectors of output channels per block: 32 with AVX-512, 16 with AVX2.
  EXPECT_EQ(kernelLayout(transform::alterConvLayout(m(kAvx512))), "OIHW32o");
  EXPECT_EQ(kernelLayout(transform::alterConvLayout(m(kAvx2))), "OIHW16o");
  // A microcontroller without vectors keeps OIHW.
  EXPECT_EQ(kernelLayout(
                transform::alterConvLayout(m("llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7"))),
            "OIHW");
  // Turned off by the build's config.
  Attrs off{{"relax.alter_conv_layout", false}};
  EXPECT_EQ(kernelLayout(transform::alterConvLayout(m(kAvx512), off)), "OIHW");
  // The packed weight: [O / 32, I, KH, KW, 32], element (o, i, ky, kx) at
  // [o / 32, i, ky, kx, o % 32].
  IRModule plain = m(kAvx512), packed = transform::alterConvLayout(plain);
  const Constant *before = nullptr, *after = nullptr;
  for (auto [mod, out] : {std::pair{&plain, &before}, std::pair{&packed, &after}})
    postOrderVisit(as<Function>((*mod)->lookup("main"))->body, [out = out](const Expr& e) {
      if (auto* k = as<Constant>(e); k && k->data.ndim() >= 4)
        *out = k;
    });
  ASSERT_TRUE(before && after);
  EXPECT_EQ(after->data.shape(), (std::vector<int64_t>{2, 64, 3, 3, 32}));
  for (int64_t o : {0, 31, 33, 63})
    for (int64_t t : {0, 5, 575})
      EXPECT_EQ(before->data.getDouble(o * 576 + t),
                after->data.getDouble(((o / 32) * 576 + t) * 32 + o % 32));
  // Packing refuses a block that does not divide O, and a weight of another rank.
  EXPECT_THROW(transform::packConvWeight(before->data, 48), Error);
  EXPECT_THROW(transform::packConvWeight(randomTensor({64, 64, 3}, 1), 32), Error);
}

TEST(AlterConvLayout, KeepsTheFormsThatMeasuredFasterAndWhatItCannotPack) {
  auto p = transform::schedulePolicyFor(target::Target::parse(kAvx512));
  // Deep 3x3 layers, strided and pointwise ones: packed.
  EXPECT_EQ(transform::alterConvLayoutChoice(512, 512, 3, 3, 1, 1, 7, p), 32);
  EXPECT_EQ(transform::alterConvLayoutChoice(64, 128, 3, 3, 2, 2, 28, p), 32);
  EXPECT_EQ(transform::alterConvLayoutChoice(960, 160, 1, 1, 1, 1, 7, p), 32);
  EXPECT_EQ(transform::alterConvLayoutChoice(64, 144, 3, 3, 1, 1, 14, p), 16); // 144 = 9 x 16
  // The RGB stems of ResNet (7x7/2) and MobileNetV2 (3x3/2): packed too.
  EXPECT_EQ(transform::alterConvLayoutChoice(3, 64, 7, 7, 2, 2, 112, p), 32);
  EXPECT_EQ(transform::alterConvLayoutChoice(3, 32, 3, 3, 2, 2, 112, p), 32);
  // A thin pointwise layer, a wide stride-1 image, output channels that are
  // no multiple of the lanes: not.
  EXPECT_EQ(transform::alterConvLayoutChoice(24, 144, 1, 1, 1, 1, 28, p), 0);
  EXPECT_EQ(transform::alterConvLayoutChoice(64, 64, 3, 3, 1, 1, 56, p), 0);
  EXPECT_EQ(transform::alterConvLayoutChoice(64, 24, 3, 3, 1, 1, 14, p), 0);
  // Without fast scatters (Zen 4) the stems keep the wide form; the other
  // layers are packed as on Intel.
  auto zen = transform::schedulePolicyFor(target::Target::parse("llvm -mcpu=znver4"));
  EXPECT_EQ(transform::alterConvLayoutChoice(3, 64, 7, 7, 2, 2, 112, zen), 0);
  EXPECT_EQ(transform::alterConvLayoutChoice(3, 32, 3, 3, 2, 2, 112, zen), 0);
  EXPECT_EQ(transform::alterConvLayoutChoice(64, 128, 1, 1, 2, 2, 28, zen), 32);
  EXPECT_EQ(transform::alterConvLayoutChoice(96, 576, 1, 1, 1, 1, 14, zen), 32);
  EXPECT_EQ(transform::alterConvLayoutChoice(64, 128, 3, 3, 2, 2, 28, zen), 32);
  EXPECT_EQ(transform::alterConvLayoutChoice(24, 144, 1, 1, 1, 1, 28, zen), 0);
  // The thresholds are knobs: the 1x1 one packs a thin layer when lowered.
  EXPECT_EQ(transform::alterConvLayoutChoice(24, 144, 1, 1, 1, 1, 28,
                                             p.withJSON(R"({"packed_1x1_min_channels": 16})")),
            16);
  EXPECT_EQ(transform::alterConvLayoutChoice(3, 64, 7, 7, 2, 2, 112,
                                             p.withJSON(R"({"packed_conv_min_channels": 4})")),
            0);
  // Grouped convolutions and weights that are not constants stay OIHW.
  EXPECT_EQ(kernelLayout(transform::alterConvLayout(convModule(
                {1, 64, 14, 14}, {64, 32, 3, 3}, "padding=[1, 1, 1, 1], groups=2", kAvx512))),
            "OIHW");
  IRModule param = transform::normalize(text::parseModule(R"(
@R.function
def main(x: R.Tensor((1, 64, 14, 14), "float32"), w: R.Tensor((64, 64, 3, 3), "float32")):
    with R.dataflow():
        c = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
        R.output(c)
    return c
)"));
  EXPECT_TRUE(sameNode(transform::alterConvLayout(param), param));
}

TEST(AlterConvLayout, PackedBuildComputesTheSameAsTheOIHWBuild) {
  // Each case built with and without the pass on this machine, run on the
  // same input: 3x3 with padding, stride 2, pointwise, dilation.
  struct Case {
    std::vector<int64_t> x, w;
    std::string attrs;
  };
  const Case cases[] = {
      {{1, 32, 9, 7}, {32, 32, 3, 3}, "padding=[1, 1, 1, 1]"},
      {{2, 16, 12, 12}, {64, 16, 3, 3}, "strides=[2, 2], padding=[1, 0, 1, 1]"},
      {{1, 96, 7, 7}, {32, 96, 1, 1}, ""},
      {{1, 64, 10, 10}, {16, 64, 3, 3}, "dilation=[2, 2], padding=[2, 2, 2, 2]"},
  };
  unsigned seed = 11;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.attrs);
    IRModule m = convModule(c.x, c.w, c.attrs);
    BuildOptions packed;
    packed.target = "llvm -num-cores=1";
    packed.record = true;
    auto rp = build(m, packed);
    // The pass ran and changed the module (the host vectorizes: lanes >= 4).
    bool rewritten = false;
    for (auto& r : rp.records)
      rewritten = rewritten || (r.name == "AlterConvLayout" && r.changed);
    EXPECT_TRUE(rewritten);
    auto x = randomTensor(c.x, seed++);
    EXPECT_LT(maxAbsDiff(rp.executable->runTensors({x}).at(0), oihwResult(m, x)), 1e-4);
  }
}

namespace {
/// The prefetch calls in every PrimFunc of m.
std::vector<const PrimCall*> prefetchesIn(const IRModule& m) {
  std::vector<const PrimCall*> out;
  for (auto& [name, f] : m->functions)
    if (auto pf = cast<PrimFunc>(f))
      walkStmt(pf->body, [&](const Stmt& s) {
        if (auto* e = as<Evaluate>(s))
          if (auto* c = as<PrimCall>(e->value); c && c->op == kPrefetchIntrinsic)
            out.push_back(c);
      });
  return out;
}
} // namespace

TEST(AlterConvLayout, DeepLayersPrefetchTheNextWeightSliceOnBothBackends) {
  // 256 channels x 9 taps x 32 lanes: 295 KB of weight per block of output
  // channels, cut into slices whose loop InjectPrefetch serves. Built with
  // the LLVM and C backends, with and without the prefetches: same values.
  IRModule m = convModule({1, 256, 7, 7}, {64, 256, 3, 3}, "padding=[1, 1, 1, 1]");
  auto x = randomTensor({1, 256, 7, 7}, 5);
  auto want = oihwResult(m, x);
  for (std::string target : {"llvm -num-cores=1", "c"}) {
    SCOPED_TRACE(target);
    for (bool prefetch : {true, false}) {
      BuildOptions o;
      o.target = target;
      if (!prefetch)
        o.config.set("tir.schedule_policy", std::string(R"({"prefetch_slices": false})"));
      auto r = build(m, o);
      ASSERT_TRUE(r.executable);
      // Each prefetch names one element of the packed weight, with the
      // slice loop's variable advanced (clamped to the last slice).
      auto calls = prefetchesIn(r.lowered);
      EXPECT_EQ(!calls.empty(), prefetch);
      for (auto* c : calls)
        EXPECT_EQ(as<BufferLoad>(c->args[0])->buffer->ndim(), 5);
      EXPECT_LT(maxAbsDiff(r.executable->runTensors({x}).at(0), want), 1e-4);
    }
  }
  // The intrinsic takes a buffer element, nothing else.
  EXPECT_THROW(
      make<PrimCall>(DataType::Int32(), kPrefetchIntrinsic, std::vector<PrimExpr>{intImm(0)}),
      Error);
}

TEST(AlterConvLayout, DeepPointwiseLayersReadTheirWeightInSlicesToo) {
  // A 1x1 kernel over 512 channels and a 7x7 image: its row of 7 columns is
  // unrolled whole and its only reduce loop (the channels) reads 64 KB of
  // packed weight per block of 32 output channels, more than L1. The
  // channel loop is cut into slices that serve all 7 rows (InjectPrefetch
  // then prefetches the next one), where before every row read the whole
  // block from L2. Same values as the OIHW build, sliced or not.
  IRModule m = convModule({1, 512, 7, 7}, {64, 512, 1, 1}, "");
  auto x = randomTensor({1, 512, 7, 7}, 9);
  auto want = oihwResult(m, x);
  for (bool sliced : {true, false}) {
    SCOPED_TRACE(sliced);
    BuildOptions o;
    o.target = "llvm -num-cores=1";
    // A slice as large as L2: the whole channel loop fits, nothing is cut.
    if (!sliced)
      o.config.set("tir.schedule_policy", std::string(R"({"reduce_slice_bytes": 2097152})"));
    auto r = build(m, o);
    EXPECT_EQ(!prefetchesIn(r.lowered).empty(), sliced);
    EXPECT_LT(maxAbsDiff(r.executable->runTensors({x}).at(0), want), 1e-4);
  }
}

// ------------------------------------------------------------ WinogradConv

TEST(WinogradConv, ChoosesTheThreeByThreeStrideOneLayersWithEnoughTiles) {
  auto p = transform::schedulePolicyFor(target::Target::parse(kAvx512));
  EXPECT_EQ(p.winogradTile, 4);
  // ResNet-18's 56, 28 and 14 wide layers (196, 49 and 16 tiles of 4x4).
  EXPECT_EQ(transform::winogradConvChoice(64, 64, 3, 3, 1, 1, 1, 1, 56, 56, p), 4);
  EXPECT_EQ(transform::winogradConvChoice(128, 128, 3, 3, 1, 1, 1, 1, 28, 28, p), 4);
  EXPECT_EQ(transform::winogradConvChoice(256, 256, 3, 3, 1, 1, 1, 1, 14, 14, p), 4);
  // The 7x7 layers (4 tiles), strides, other kernels, dilation, the RGB
  // stem's 3 channels and output channels fewer than the lanes: direct.
  EXPECT_EQ(transform::winogradConvChoice(512, 512, 3, 3, 1, 1, 1, 1, 7, 7, p), 0);
  EXPECT_EQ(transform::winogradConvChoice(64, 128, 3, 3, 2, 2, 1, 1, 28, 28, p), 0);
  EXPECT_EQ(transform::winogradConvChoice(64, 64, 1, 1, 1, 1, 1, 1, 56, 56, p), 0);
  EXPECT_EQ(transform::winogradConvChoice(64, 64, 5, 5, 1, 1, 1, 1, 56, 56, p), 0);
  EXPECT_EQ(transform::winogradConvChoice(64, 64, 3, 3, 1, 1, 2, 2, 56, 56, p), 0);
  EXPECT_EQ(transform::winogradConvChoice(3, 64, 3, 3, 1, 1, 1, 1, 56, 56, p), 0);
  EXPECT_EQ(transform::winogradConvChoice(64, 8, 3, 3, 1, 1, 1, 1, 56, 56, p), 0);
  // A machine without vectors keeps the direct form.
  auto m7 = transform::schedulePolicyFor(
      target::Target::parse("llvm -mtriple=thumbv7em-none-eabi -mcpu=cortex-m7"));
  EXPECT_EQ(transform::winogradConvChoice(64, 64, 3, 3, 1, 1, 1, 1, 56, 56, m7), 0);
  // The knobs: F(2x2), fewer tiles, off; a tile size that does not exist.
  EXPECT_EQ(transform::winogradConvChoice(64, 64, 3, 3, 1, 1, 1, 1, 56, 56,
                                          p.withJSON(R"({"winograd_tile": 2})")),
            2);
  EXPECT_EQ(transform::winogradConvChoice(512, 512, 3, 3, 1, 1, 1, 1, 7, 7,
                                          p.withJSON(R"({"winograd_min_tiles": 4})")),
            4);
  EXPECT_EQ(transform::winogradConvChoice(64, 64, 3, 3, 1, 1, 1, 1, 56, 56,
                                          p.withJSON(R"({"winograd_tile": 0})")),
            0);
  try {
    transform::winogradConvChoice(64, 64, 3, 3, 1, 1, 1, 1, 56, 56,
                                  p.withJSON(R"({"winograd_tile": 3})"));
    ADD_FAILURE() << "winograd_tile 3 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("winograd_tile"), std::string::npos) << e.what();
  }
}

TEST(WinogradConv, TheTransformsComputeTheCorrelationOfOneTile) {
  // One channel, one filter: A^T [(G g G^T) . (B^T d B)] A is the 3x3
  // correlation of the (m + 2) x (m + 2) tile d, computed here directly.
  for (int64_t m : {2, 4}) {
    SCOPED_TRACE(m);
    int64_t a = m + 2;
    unity::Tensor g = randomTensor({1, 1, 3, 3}, 3), d = randomTensor({a, a}, 4);
    unity::Tensor u = transform::winogradWeight(g, m), t = transform::winogradMatrices(m);
    ASSERT_EQ(u.shape(), (std::vector<int64_t>{a * a, 1, 1}));
    ASSERT_EQ(t.shape(), (std::vector<int64_t>{2 * a - 2, a}));
    auto T = [&](int64_t r, int64_t c) { return t.getDouble(r * a + c); };
    std::vector<double> v(a * a), prod(a * a);
    for (int64_t r = 0; r < a; ++r)
      for (int64_t q = 0; q < a; ++q) {
        double s = 0;
        for (int64_t i = 0; i < a; ++i)
          for (int64_t j = 0; j < a; ++j)
            s += T(r, i) * d.getDouble(i * a + j) * T(q, j);
        prod[r * a + q] = s * u.getDouble(r * a + q);
      }
    for (int64_t y = 0; y < m; ++y)
      for (int64_t x = 0; x < m; ++x) {
        double got = 0, want = 0;
        for (int64_t r = 0; r < a; ++r)
          for (int64_t q = 0; q < a; ++q)
            got += T(a + y, r) * prod[r * a + q] * T(a + x, q);
        for (int64_t i = 0; i < 3; ++i)
          for (int64_t j = 0; j < 3; ++j)
            want += d.getDouble((y + i) * a + x + j) * g.getDouble(i * 3 + j);
        EXPECT_NEAR(got, want, 1e-4) << y << ", " << x;
      }
  }
  EXPECT_THROW(transform::winogradWeight(randomTensor({4, 4, 5, 5}, 1), 4), Error);
  EXPECT_THROW(transform::winogradWeight(randomTensor({4, 4, 3, 3}, 1), 3), Error);
  EXPECT_THROW(transform::winogradMatrices(6), Error);
}

TEST(WinogradConv, RewritesTheConvolutionIntoTheTransformedForm) {
  IRModule m = convModule({1, 64, 28, 28}, {32, 64, 3, 3}, "padding=[1, 1, 1, 1]", kAvx512);
  IRModule w = transform::winogradConv(m);
  std::vector<std::vector<int64_t>> operands;
  bool direct = false;
  postOrderVisit(as<Function>(w->lookup("main"))->body, [&](const Expr& e) {
    auto* c = as<Call>(e);
    auto* callee = c ? as<OpRef>(c->op) : nullptr;
    direct = direct || (callee && callee->name == "nn.conv2d");
    if (callee && callee->name == "nn.conv2d_winograd") {
      for (size_t i = 1; i < c->args.size(); ++i)
        operands.push_back(as<Constant>(c->args[i]) ? as<Constant>(c->args[i])->data.shape()
                                                    : std::vector<int64_t>{});
      EXPECT_EQ(c->attrs.getInts("padding"), (std::vector<int64_t>{1, 1, 1, 1}));
    }
  });
  EXPECT_FALSE(direct);
  ASSERT_EQ(operands.size(), 2u);
  EXPECT_EQ(operands[0], (std::vector<int64_t>{36, 64, 32})); // the weight, F(4x4)
  EXPECT_EQ(operands[1], (std::vector<int64_t>{10, 6}));      // B^T over A^T
  // Off by the build's config; a stride-2 layer and a symbolic weight stay.
  EXPECT_TRUE(sameNode(transform::winogradConv(m, Attrs{{"relax.winograd_conv", false}}), m));
  IRModule strided =
      convModule({1, 64, 28, 28}, {32, 64, 3, 3}, "strides=[2, 2], padding=[1, 1, 1, 1]", kAvx512);
  EXPECT_TRUE(sameNode(transform::winogradConv(strided), strided));
}

TEST(WinogradConv, BuildComputesTheSameAsTheDirectConvolution) {
  // Built for this machine with and without the pass, on the same input:
  // odd image sizes that leave partial tiles, asymmetric and no padding,
  // a batch of two, F(4x4) and F(2x2), each with the bias and relu after.
  struct Case {
    std::vector<int64_t> x, w;
    std::string attrs, policy;
  };
  const Case cases[] = {
      {{1, 16, 16, 16}, {16, 16, 3, 3}, "padding=[1, 1, 1, 1]", R"({"winograd_min_tiles": 1})"},
      {{2, 32, 13, 11}, {48, 32, 3, 3}, "padding=[1, 0, 1, 1]", R"({"winograd_min_tiles": 1})"},
      {{1, 16, 10, 9}, {32, 16, 3, 3}, "", R"({"winograd_tile": 2, "winograd_min_tiles": 1})"},
  };
  unsigned seed = 21;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.attrs + " " + c.policy);
    IRModule m = convModule(c.x, c.w, c.attrs);
    BuildOptions o;
    o.target = "llvm -num-cores=1";
    o.record = true;
    o.config.set("tir.schedule_policy", c.policy);
    auto r = build(m, o);
    bool rewritten = false;
    for (auto& rec : r.records)
      rewritten = rewritten || (rec.name == "WinogradConv" && rec.changed);
    EXPECT_TRUE(rewritten);
    BuildOptions direct = o;
    direct.record = false;
    direct.disabledPasses = {"WinogradConv"};
    auto x = randomTensor(c.x, seed++);
    EXPECT_LT(maxAbsDiff(r.executable->runTensors({x}).at(0),
                         build(m, direct).executable->runTensors({x}).at(0)),
              1e-3);
  }
}
