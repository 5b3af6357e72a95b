// The example target kind of docs/adding-a-target-kind.md: "example_relu"
// claims nn.relu on static-shape float32 tensors and runs it with the
// hand-written kernel below (a library kernel like openblas's). It reuses the
// library-kind machinery: a LibraryPattern (claims + graph_to_tir) and
// LibraryModule (tir_to_runtime). It is not part of the engine: the tests
// compile it and plug it in with registerExampleReluKind(), the way code
// outside the engine adds a kind.
#include "docs/examples/example_kind.h"

#include <algorithm>

#include "engine/runtime/library_kernels.h"
#include "engine/target/target.h"
#include "engine/transform/byoc_library.h"
#include "engine/transform/target_hooks.h"

namespace unity::transform {

namespace {

/// in (any shape), params [numel], out: out = max(in, 0).
int32_t exampleRelu(void** args, int64_t*, int32_t nargs) {
  if (nargs != 3)
    return runtime::kKernelBadArgCount;
  const float* in = static_cast<const float*>(args[0]);
  int64_t n = static_cast<const int64_t*>(args[1])[0];
  float* out = static_cast<float*>(args[2]);
  for (int64_t i = 0; i < n; ++i)
    out[i] = std::max(in[i], 0.0f);
  return runtime::kKernelOk;
}

const LibraryPattern& examplePattern() {
  static const LibraryPattern p{
      "example_relu",
      [](const ir::Call* c) {
        auto* op = ir::as<ir::OpRef>(c->op);
        auto* t = c->args.size() == 1 ? ir::as<ir::TensorSInfo>(c->args[0]->sinfo) : nullptr;
        return op && op->name == "nn.relu" && t && t->dtype == DataType::Float32() &&
               t->staticShape();
      },
      [](const ir::Expr&) { return false; }, // no bias
      [](const ir::Call*) { return std::string("example.relu"); },
      [](const ir::Call* c, bool) {
        int64_t n = 1;
        // Keep the optional alive: a range-for over `*temporary()` dangles.
        auto shape = ir::as<ir::TensorSInfo>(c->args[0]->sinfo)->staticShape();
        for (int64_t d : *shape)
          n *= d;
        return std::vector<int64_t>{n};
      },
      /*extend=*/false,
  };
  return p;
}

} // namespace

const TargetKindHooks& exampleReluKindHooks() {
  static const TargetKindHooks h{[](const target::Target&, const std::string& sub) {
                                   runtime::registerLibraryKernel("example.relu", &exampleRelu);
                                   return libraryGraphToTirPass(examplePattern(), sub);
                                 },
                                 [](const ir::BindingBlock& b, const UseCounts& u) {
                                   return claimChains(examplePattern(), b, u);
                                 },
                                 [](const runtime::NamedPrimFuncs& funcs, const target::Target& t) {
                                   runtime::registerLibraryKernel("example.relu", &exampleRelu);
                                   return libraryRuntime(funcs, t);
                                 }};
  return h;
}

void registerExampleReluKind() {
  target::registerTargetKind(
      {"example_relu",
       {},
       "docs/adding-a-target-kind.md: claims nn.relu, runs a hand-written kernel"});
  registerKindHooks("example_relu", exampleReluKindHooks());
}

} // namespace unity::transform
