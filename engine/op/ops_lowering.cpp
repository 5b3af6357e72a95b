// Lowering operators: call_tir and call_dps_library. Both call a function in
// destination-passing style whose output cannot be deduced from the callee
// (a PrimFunc writes into buffers it is given), so the caller states it in
// sinfo_args[0] -- a tensor, or a tuple of tensors for several outputs.
//
// Also `unsupported`: the placeholder an importer leaves for a source-model
// node it cannot convert (ImportOptions::keepUnsupported), so a model that
// cannot be built can still be opened, printed and drawn. Its output is
// whatever the source model declares (sinfo_args[0]); it has no
// legalization and no implementation, and build() refuses a module holding
// one, naming every such node (engine/build.cpp).
#include <fmt/format.h>

#include "engine/op/deduce_util.h"
#include "engine/op/sinfo_util.h"

namespace unity::op::detail {

using namespace unity::ir;
using Type = AttrSpec::Type;

namespace {

void checkOutput(const Call& call, const DeduceContext& ctx, const StructInfo& s) {
  if (isa<TensorSInfo>(s))
    return;
  if (auto* t = as<TupleSInfo>(s)) {
    for (auto& f : t->fields)
      if (!isa<TensorSInfo>(f))
        fail(call, ctx,
             "output struct info must be a tensor or a tuple of tensors, got " + sinfoStr(s));
    return;
  }
  fail(call, ctx, "output struct info must be a tensor or a tuple of tensors, got " + sinfoStr(s));
}

DeduceFn dpsCall(bool library) {
  return [library](const Call& call, const DeduceContext& ctx) -> StructInfo {
    const Expr& callee = call.args[0];
    if (library ? !isa<ExternFunc>(callee) : !isa<GlobalVar>(callee))
      fail(call, ctx,
           library ? "operand 0 must be an external function (ExternFunc)"
                   : "operand 0 must be a global tensor-level function (GlobalVar)");
    const Expr& args = call.args[1];
    if (!isa<Tuple>(args) && !isa<TupleSInfo>(args->sinfo))
      fail(call, ctx, "operand 1 must be a tuple of arguments");
    if (call.args.size() == 3 && !isa<ShapeExpr>(call.args[2]) &&
        !isa<ShapeSInfo>(call.args[2]->sinfo))
      fail(call, ctx, "operand 2 (tir_vars) must be a shape");
    if (call.sinfoArgs.size() != 1)
      fail(call, ctx,
           fmt::format("needs exactly one output struct info in sinfo_args, got {}",
                       call.sinfoArgs.size()));
    checkOutput(call, ctx, call.sinfoArgs[0]);
    return call.sinfoArgs[0];
  };
}

StructInfo deduceUnsupported(const Call& call, const DeduceContext& ctx) {
  if (call.sinfoArgs.size() != 1)
    fail(call, ctx,
         fmt::format("needs exactly one output struct info in sinfo_args, got {}",
                     call.sinfoArgs.size()));
  return call.sinfoArgs[0];
}

} // namespace

void registerLoweringOps() {
  registerOp({"call_tir",
              2,
              3,
              OpPattern::Opaque,
              {},
              dpsCall(false),
              "call_tir(@prim_func, (args...)[, tir_vars]) with sinfo_args=[output]"});
  registerOp({"call_dps_library",
              2,
              3,
              OpPattern::Opaque,
              {},
              dpsCall(true),
              "call_dps_library(extern, (args...)) with sinfo_args=[output]"});
  registerOp({"unsupported",
              0,
              -1,
              OpPattern::Opaque,
              {{"op_type", Type::String, true, std::string(), "the source operator"},
               {"node", Type::String, false, std::string(), "the source node's name"},
               {"reason", Type::String, true, std::string(), "why it cannot be converted"}},
              deduceUnsupported,
              "placeholder for a source-model node the importer cannot convert (kept so the "
              "model can be viewed); output as declared in sinfo_args=[output]; cannot be built"});
}

} // namespace unity::op::detail
