// Control-flow operators: loop and scan. Both call a graph-level function of
// the module (operand 0, a GlobalVar: the body) repeatedly; the executor
// runs them itself (runtime/executor.cpp), like tensor_to_shape, so they
// have no legalization and no kernel. The body is an ordinary function of
// the module, so it is legalized, fused, scheduled and compiled like main.
//
// Why an operator and not unrolling: a Loop's trip count and condition are
// run-time values in general (the body may stop the loop), and a scan's
// length is a symbolic dimension in dynamic models; unrolling needs both at
// import time and multiplies the code by the trip count. Why not recursion
// (Relax's tail-recursive functions): every iteration would concatenate the
// scan outputs again (quadratic) and nest one frame deeper.
//
//   loop(@body, trip_count, cond, (v_initial...), (captured...))
//     body(i: int64 scalar, cond: bool scalar, v..., captured...)
//          -> (cond_out, v_out..., scan_out...)
//     result: (v_final..., scan_out stacked on a new axis 0...)
//   scan(@body, (state_initial...), (scan_inputs...), (captured...))
//     body(state..., scan_input slices..., captured...) -> (state_out..., scan_out...)
//     result: (state_final..., scan_out stacked along scan_output_axes...)
//
// The result's struct info is stated by the caller in sinfo_args[0] (a
// tuple), as for call_tir: the number of iterations is known only at run
// time, so an importer follows with match_cast to name the unknown extents.
#include <fmt/format.h>

#include "engine/op/deduce_util.h"
#include "engine/op/sinfo_util.h"

namespace unity::op::detail {

using namespace unity::ir;
using Type = AttrSpec::Type;

namespace {

void checkTupleOperand(const Call& call, const DeduceContext& ctx, size_t i, const char* what) {
  const Expr& a = call.args[i];
  if (!isa<Tuple>(a) && !isa<TupleSInfo>(a->sinfo))
    fail(call, ctx, fmt::format("operand {} ({}) must be a tuple", i, what));
}

StructInfo deduceControl(const Call& call, const DeduceContext& ctx,
                         const std::vector<const char*>& tuples, size_t firstTuple) {
  if (!isa<GlobalVar>(call.args[0]))
    fail(call, ctx, "operand 0 must be the body, a global graph-level function (GlobalVar)");
  for (size_t k = 0; k < tuples.size(); ++k)
    checkTupleOperand(call, ctx, firstTuple + k, tuples[k]);
  if (call.sinfoArgs.size() != 1 || !isa<TupleSInfo>(call.sinfoArgs[0]))
    fail(call, ctx, "needs the result's struct info, a tuple, in sinfo_args");
  return call.sinfoArgs[0];
}

StructInfo deduceLoop(const Call& call, const DeduceContext& ctx) {
  for (size_t i : {size_t(1), size_t(2)}) {
    auto* t = as<TensorSInfo>(call.args[i]->sinfo);
    if (!t || t->ndim > 1)
      fail(call, ctx,
           fmt::format("operand {} ({}) must be a scalar tensor", i,
                       i == 1 ? "trip count" : "cond"));
  }
  return deduceControl(call, ctx, {"initial values", "captured values"}, 3);
}

StructInfo deduceScan(const Call& call, const DeduceContext& ctx) {
  return deduceControl(call, ctx, {"initial states", "scan inputs", "captured values"}, 1);
}

} // namespace

void registerControlOps() {
  registerOp({"loop",
              5,
              5,
              OpPattern::Opaque,
              {{"num_scan_outputs", Type::Int, false, int64_t(0),
                "trailing body results stacked over the iterations"}},
              deduceLoop,
              "loop(@body, trip_count, cond, (initial...), (captured...)) with "
              "sinfo_args=[result]: run the body while i < trip_count and cond (run by the "
              "executor)"});
  registerOp(
      {"scan",
       4,
       4,
       OpPattern::Opaque,
       {{"num_scan_outputs", Type::Int, false, int64_t(0), "trailing body results stacked"},
        {"scan_input_axes", Type::Ints, false, std::vector<int64_t>{}, "axis of each scan input"},
        {"scan_input_directions", Type::Ints, false, std::vector<int64_t>{},
         "1 = read that input backwards"},
        {"scan_output_axes", Type::Ints, false, std::vector<int64_t>{}, "axis of each scan output"},
        {"scan_output_directions", Type::Ints, false, std::vector<int64_t>{},
         "1 = stack that output backwards"},
        {"batched", Type::Bool, false, false,
         "Scan-8: states and inputs have a leading batch axis, scanned per entry"}},
       deduceScan,
       "scan(@body, (states...), (scan_inputs...), (captured...)) with sinfo_args=[result]: run "
       "the body on each slice of the scan inputs (run by the executor)"});
}

} // namespace unity::op::detail
