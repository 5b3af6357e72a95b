// The list of built-in passes and pipelines. One entry per pass: adding a
// pass to the engine means writing it and listing it here.
#include "engine/ir/arith.h"
#include "engine/transform/alter_conv_layout.h"
#include "engine/transform/default_schedule.h"
#include "engine/transform/fold_batch_norm.h"
#include "engine/transform/fold_constant.h"
#include "engine/transform/fuse_ops.h"
#include "engine/transform/graph_cleanup.h"
#include "engine/transform/inject_prefetch.h"
#include "engine/transform/legalize.h"
#include "engine/transform/lower_executor.h"
#include "engine/transform/normalize.h"
#include "engine/transform/partition.h"
#include "engine/transform/registry.h"
#include "engine/transform/storage_rewrite.h"
#include "engine/transform/tir_lower.h"

namespace unity::transform {

namespace {
using TensorFn = ir::PrimFuncRef (*)(const ir::PrimFuncRef&);

PassRef tensorPass(const std::string& name, int optLevel,
                   std::function<ir::PrimFuncRef(const ir::PrimFuncRef&)> fn) {
  return makeFunctionPass({name, PassLevel::Tensor, optLevel, {}},
                          [fn](const ir::BaseFunc& f, const ir::IRModule&, PassContext&) {
                            return ir::BaseFunc(fn(ir::cast<ir::PrimFunc>(f)));
                          });
}

ir::PrimFuncRef simplifyPrimFunc(const ir::PrimFuncRef& f) {
  ir::Stmt body = arith::simplify(f->body);
  if (ir::sameNode(body, f->body))
    return f;
  return ir::make<ir::PrimFunc>(f->params, body, f->attrs);
}
} // namespace

void registerBuiltinPasses() {
  registerPass(
      {"Normalize", PassLevel::Graph, "deduce the struct info of every expression and binding", [] {
         return makePass({"Normalize", PassLevel::Graph, 0, {}},
                         [](const ir::IRModule& m, PassContext&) { return normalize(m); });
       }});
  registerPass({"FoldConstant", PassLevel::Graph,
                "evaluate operator calls on constants at compile time (reference evaluator)",
                foldConstantPass});
  registerPass({"DeadCodeElimination", PassLevel::Graph,
                "remove unused bindings and functions unreachable from entry functions",
                deadCodeEliminationPass});
  registerPass({"CanonicalizeBindings", PassLevel::Graph,
                "remove variable aliases and fold items of literal tuples",
                canonicalizeBindingsPass});
  registerPass({"FoldBatchNorm", PassLevel::Graph,
                "fold an inference batch norm into the constant weight of the conv2d it follows "
                "(a per-channel scale and bias)",
                foldBatchNormPass});
  registerPass({"WinogradConv", PassLevel::Graph,
                "3x3 stride-1 convolutions with a constant weight as Winograd F(m x m, 3 x 3) "
                "(nn.conv2d_winograd, the weight transformed) where the policy asks for it",
                winogradConvPass});
  registerPass({"AlterConvLayout", PassLevel::Graph,
                "pack constant conv2d weights with output channels innermost (OIHW<b>o) where "
                "that form is faster on the target",
                alterConvLayoutPass});
  registerPass({"AlterMatmulLayout", PassLevel::Graph,
                "pack constant matmul weights in column panels [N / V, K, V] (KN<V>n) for the "
                "register tile",
                alterMatmulLayoutPass});
  registerPass({"LegalizeOps", PassLevel::Graph,
                "lower every operator call to call_tir of a generated tensor function",
                legalizePass});
  registerPass({"AnnotateOpPattern", PassLevel::Tensor,
                "derive op_pattern of tensor functions from their blocks", annotateOpPatternPass});
  registerPass({"FuseOps", PassLevel::Graph,
                "group call_tir bindings by the op-pattern lattice (post-dominator based)",
                fuseOpsPass});
  registerPass({"FuseTIR", PassLevel::Graph,
                "merge the tensor functions of each fused group into one", fuseTIRPass});
  registerPass({"LowerToExecutor", PassLevel::Graph,
                "explicit allocation with a static memory plan, kernel calls in DPS form",
                lowerToExecutorPass});
  registerPass(
      {"LowerBlocks", PassLevel::Tensor,
       "replace blocks by their bindings; reduction init under a first-iteration test",
       [] { return tensorPass("LowerBlocks", 0, [](auto& f) { return lowerBlocks(f); }); }});
  registerPass({"InjectPrefetch", PassLevel::Tensor,
                "software prefetches of the next slice of a loop annotated prefetch_next "
                "(a packed convolution weight)",
                [] { return tensorPass("InjectPrefetch", 1, injectPrefetch); }});
  registerPass({"DefaultSchedule", PassLevel::Tensor,
                "inline injective producers, parallelize, vectorize and tile untuned kernels",
                defaultSchedulePass});
  registerTargetPasses();
  registerPass({"Simplify", PassLevel::Tensor, "simplify index arithmetic, drop unit loops",
                [] { return tensorPass("Simplify", 1, simplifyPrimFunc); }});
  registerPass({"SkipPaddingTaps", PassLevel::Tensor,
                "drop the multiply-adds of convolution taps that read the zero padding",
                [] { return tensorPass("SkipPaddingTaps", 1, skipPaddingTaps); }});
  registerPass({"PartitionLoops", PassLevel::Tensor,
                "cut vectorized loops over padded reads into borders and a test-free interior",
                [] { return tensorPass("PartitionLoops", 1, partitionLoops); }});
  registerPass({"StorageRewrite", PassLevel::Tensor,
                "shrink kernel temporaries to the scope that uses them; share disjoint ones",
                [] { return tensorPass("StorageRewrite", 1, storageRewrite); }});
  registerPass({"PromoteAccumulators", PassLevel::Tensor,
                "accumulate a register tile whose rows lie a symbolic distance apart in a local "
                "buffer across its reduction loop",
                [] { return tensorPass("PromoteAccumulators", 1, promoteAccumulators); }});
  registerPass({"FlattenBuffers", PassLevel::Tensor,
                "multi-dimensional buffer accesses become one row-major index; temporaries 1-D",
                [] { return tensorPass("FlattenBuffers", 0, flattenBuffers); }});
  registerPass({"LowerIntrinsics", PassLevel::Tensor,
                "expand rsqrt, sigmoid and float32 erf into arithmetic shared by all backends", [] {
                  return tensorPass("LowerIntrinsics", 0, static_cast<TensorFn>(lowerIntrinsics));
                }});
  registerPass({"UnrollLoops", PassLevel::Tensor,
                "copy the body of small constant unrolled loops; larger ones keep the LLVM hint",
                [] { return tensorPass("UnrollLoops", 1, unrollLoops); }});
  registerPass({"VectorizeLoops", PassLevel::Tensor,
                "keep legal vectorized loops; make the others serial, annotated with the reason",
                [] { return tensorPass("VectorizeLoops", 0, vectorizeLoops); }});
  registerPass({"MakePackedAPI", PassLevel::Tensor,
                "the calling convention as IR: bind shape variables from the runtime "
                "dimensions, assert every other dimension",
                [] { return tensorPass("MakePackedAPI", 0, makePackedAPI); }});

  registerPipeline({"default",
                    "the default lowering for the llvm target",
                    {"Normalize",           "FoldConstant",      "CanonicalizeBindings",
                     "DeadCodeElimination", "FoldBatchNorm",     "WinogradConv",
                     "AlterConvLayout",     "AlterMatmulLayout", "LegalizeOps",
                     "AnnotateOpPattern",   "FuseOps",           "FuseTIR",
                     "DeadCodeElimination", "DefaultSchedule",   "LowerBlocks",
                     "InjectPrefetch",      "Simplify",          "SkipPaddingTaps",
                     "PartitionLoops",      "StorageRewrite",    "PromoteAccumulators",
                     "FlattenBuffers",      "LowerIntrinsics",   "UnrollLoops",
                     "VectorizeLoops",      "MakePackedAPI",     "LowerToExecutor"}});
}

} // namespace unity::transform
