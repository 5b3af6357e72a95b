// Fusion and executor lowering on legalized text modules: which groups
// FuseOps forms (expected from TVM's rules, reasoned out below), FuseTIR's
// single kernel, LowerToExecutor's memory plan, and -- with the reference
// evaluator, which also runs call_tir -- that every pass of the default
// pipeline keeps the numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "engine/build.h"
#include "engine/ir/functor.h"
#include "engine/runtime/reference.h"
#include "engine/text/parser.h"
#include "engine/text/printer.h"
#include "engine/transform/fuse_ops.h"
#include "engine/transform/graph_cleanup.h"
#include "engine/transform/legalize.h"
#include "engine/transform/lower_executor.h"
#include "engine/transform/normalize.h"
#include "tests/engine/e2e/e2e_util.h"

using namespace unity;
using namespace unity::ir;

namespace {

using Group = std::vector<std::string>;

/// Legalized tensor functions are named after their operator, made unique
/// with a numeric suffix ("matmul2", "add_1"); the operator name is what we
/// compare.
std::string opOf(std::string fn) {
  while (!fn.empty() && std::isdigit(static_cast<unsigned char>(fn.back())))
    fn.pop_back();
  if (!fn.empty() && fn.back() == '_')
    fn.pop_back();
  return fn;
}

std::string calleeOfCallTIR(const Expr& e) {
  auto* c = as<Call>(e);
  auto* op = c ? as<OpRef>(c->op) : nullptr;
  if (!op || op->name != "call_tir")
    return "";
  return as<GlobalVar>(c->args[0])->name;
}

/// For every binding of main: the operators it runs (one for a plain
/// call_tir, the members of a fused group in order), sorted.
std::vector<Group> groupsOf(const IRModule& m) {
  std::vector<Group> groups;
  auto* main = as<Function>(m->lookup("main"));
  for (auto& blk : as<SeqExpr>(main->body)->blocks)
    for (auto& b : blk->bindings) {
      if (std::string f = calleeOfCallTIR(b->value); !f.empty()) {
        groups.push_back({opOf(f)});
        continue;
      }
      auto* c = as<Call>(b->value);
      auto* gv = c ? as<GlobalVar>(c->op) : nullptr;
      if (!gv)
        continue; // tuples, aliases
      Group g;
      auto* fn = as<Function>(m->lookup(gv->name));
      EXPECT_TRUE(fn && fn->attrs.getBool("primitive", false)) << gv->name;
      for (auto& ib : as<SeqExpr>(fn->body)->blocks)
        for (auto& x : ib->bindings)
          if (std::string f = calleeOfCallTIR(x->value); !f.empty())
            g.push_back(opOf(f));
      groups.push_back(g);
    }
  std::sort(groups.begin(), groups.end());
  return groups;
}

IRModule fuse(const IRModule& m) {
  return transform::fuseOps(
      transform::annotateOpPattern(transform::legalize(transform::normalize(m))));
}

const char* kConvBnRelu = R"(
@R.function
def main(x: R.Tensor((n, 3, 6, 6), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"), g: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32"), m: R.Tensor((4,), "float32"), v: R.Tensor((4,), "float32")):
    with R.dataflow():
        c = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
        bn = R.nn.batch_norm(c, g, b, m, v)
        gv = R.nn.relu(bn)
        R.output(gv)
    return gv
)";

std::string readExample(const std::string& name) {
  return std::string(LOWERSCOPE_SOURCE_DIR) + "/resources/examples/" + name;
}

} // namespace

TEST(PassFuseOps, ConvBatchNormReluIsOneGroup) {
  // conv2d is OutEWiseFusable; batch_norm (inference) is Broadcast and relu
  // ElemWise: the anchor takes the whole elementwise epilogue.
  IRModule fused = fuse(text::parseModule(kConvBnRelu));
  EXPECT_EQ(groupsOf(fused), (std::vector<Group>{{"conv2d", "batch_norm", "relu"}}))
      << text::printModule(fused);
}

TEST(PassFuseOps, TransformerBlockGroupsFollowThePatternLattice) {
  // Expected from TVM's rules (phase 0: an OutEWiseFusable anchor -- matmul
  // -- takes consumers up to its post-dominator when everything on the way is
  // at most Broadcast; phase 1: Injective chains fuse up to an Injective
  // post-dominator). Opaque operators (layer_norm, softmax) stay alone.
  //  - q/k/v = matmul(ln1, W): post-dominated by a reshape (Injective), so
  //    the matmuls stay alone; each reshape + permute_dims pair fuses in
  //    phase 1 and stops at the next matmul.
  //  - scores = matmul(qt, kt) takes the Broadcast multiply by 0.25 and stops
  //    at softmax (Opaque).
  //  - ctx = matmul(attn, vt) is followed by permute_dims (Injective): alone;
  //    permute_dims + reshape fuse in phase 1.
  //  - o = matmul(ctx2, Wo) takes res1 = add(x, o); res1's post-dominator is
  //    gv, reached through layer_norm (Opaque), so it stops there.
  //  - h1 = matmul takes the bias add and gelu; h3 = matmul takes its bias
  //    add and the residual add gv.
  IRModule fused = fuse(text::parseFile(readExample("transformer.uir")));
  std::vector<Group> want = {{"layer_norm"},
                             {"layer_norm"},
                             {"matmul"},
                             {"matmul"},
                             {"matmul"},
                             {"matmul"},
                             {"matmul", "add"},
                             {"matmul", "add", "add"},
                             {"matmul", "add", "gelu"},
                             {"matmul", "multiply"},
                             {"permute_dims", "reshape"},
                             {"reshape", "permute_dims"},
                             {"reshape", "permute_dims"},
                             {"reshape", "permute_dims"},
                             {"softmax"}};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(groupsOf(fused), want) << text::printModule(fused);
}

TEST(PassFuseTIR, TheConvGroupBecomesOneKernelComputingTheSame) {
  IRModule original = transform::normalize(text::parseModule(kConvBnRelu));
  IRModule fused = transform::deadCodeElimination(transform::fuseTIR(fuse(original)));
  // main is one call_tir of one tensor function; no graph-level helper left.
  auto* main = as<Function>(fused->lookup("main"));
  auto& bs = as<SeqExpr>(main->body)->blocks[0]->bindings;
  ASSERT_EQ(bs.size(), 1u) << text::printModule(fused);
  std::string kernel = calleeOfCallTIR(bs[0]->value);
  ASSERT_FALSE(kernel.empty());
  int graphFns = 0, primFns = 0;
  for (auto& [name, f] : fused->functions) {
    graphFns += isa<Function>(f);
    primFns += isa<PrimFunc>(f);
  }
  EXPECT_EQ(graphFns, 1);
  EXPECT_EQ(primFns, 1);
  for (int64_t n : {1, 2}) {
    auto inputs = e2e::randomInputs(original, {{"n", n}}, {{}, {}, {}, {}, {}, {0.5, 2}}, 3);
    EXPECT_TRUE(e2e::allClose(runtime::referenceRun(fused, inputs),
                              runtime::referenceRun(original, inputs)));
  }
}

TEST(PassLowerToExecutor, StaticIntermediatesReuseSlotsAndTheOutputIsFresh) {
  // exp -> sin -> cos -> tanh on (4,), unfused: a is live while b is
  // computed (slot 0, then 1); c reuses a's slot 0 once a is dead; gv
  // escapes (-1). Two slots of 16 bytes.
  IRModule m = transform::legalize(transform::normalize(text::parseModule(R"(
@R.function
def main(x: R.Tensor((4,), "float32")):
    with R.dataflow():
        a = R.exp(x)
        b = R.sin(a)
        c = R.cos(b)
        gv = R.tanh(c)
        R.output(gv)
    return gv
)")));
  IRModule lowered = transform::lowerToExecutor(m);
  auto* main = as<Function>(lowered->lookup("main"));
  std::vector<int64_t> slots;
  postOrderVisit(main->body, [&](const Expr& e) {
    if (auto* c = as<Call>(e))
      if (auto* ext = as<ExternFunc>(c->op); ext && ext->symbol == transform::kAllocTensor)
        slots.push_back(*asConstInt(as<PrimValue>(c->args[1])->value));
  });
  EXPECT_EQ(slots, (std::vector<int64_t>{0, 1, 0, -1})) << text::printModule(lowered);
  EXPECT_EQ(main->attrs.getInts("storage_bytes"), (std::vector<int64_t>{16, 16}));
  // And the lowered form still computes the same (reference runs
  // alloc_tensor / call_tir_dps too).
  Tensor x = e2e::floats({4}, {0.1f, -1.f, 2.f, 0.5f});
  EXPECT_TRUE(e2e::allClose(runtime::referenceRun(lowered, {x}), runtime::referenceRun(m, {x})));
}

TEST(PassPipeline, EveryPassOfTheDefaultPipelineKeepsTheNumbers) {
  // A small network with a fusable conv chain, an injective reshape, an
  // anchor (dense) and an opaque softmax; the reference runs the module after
  // every pass that changed it (call_tir through the te interpreter, the
  // executor form included) and must agree with the reference on the input.
  IRModule m = transform::normalize(text::parseModule(R"(
@R.function
def main(x: R.Tensor((n, 3, 6, 6), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"), g: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32"), m: R.Tensor((4,), "float32"), v: R.Tensor((4,), "float32"), d: R.Tensor((5, 144), "float32")):
    with R.dataflow():
        c = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
        bn = R.nn.batch_norm(c, g, b, m, v)
        r = R.nn.relu(bn)
        f = R.reshape(r, R.shape([n, 144]))
        y = R.nn.dense(f, d)
        gv = R.nn.softmax(y)
        R.output(gv)
    return gv
)"));
  BuildOptions opts;
  opts.codegen = false;
  BuildResult r = build(m, opts);
  auto inputs = e2e::randomInputs(m, {{"n", 2}}, {{}, {}, {}, {}, {}, {0.5, 2}, {-0.2, 0.2}}, 5);
  auto want = runtime::referenceRun(m, inputs);
  int checked = 0;
  for (auto& rec : r.records) {
    if (rec.depth == 0 || !rec.changed)
      continue;
    SCOPED_TRACE("after " + rec.name);
    EXPECT_TRUE(e2e::allClose(runtime::referenceRun(rec.after, inputs), want));
    ++checked;
  }
  EXPECT_GE(checked, 6);
}
