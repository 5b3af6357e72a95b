// Sequence and optional values (ONNX sequence<tensor> and optional<...>).
//
// A sequence is a run-time list of tensors whose length is known only at run
// time, so it cannot be a tuple (a tuple's arity is part of its struct
// info); an optional is a value or nothing. Both have Object struct info in
// the graph; the importer keeps their element types on its side. These
// operators are run by the executor itself (runtime/executor.cpp), like
// loop and scan: they move whole tensors between lists and need no kernels.
// Each states its result's struct info in sinfo_args[0] (a sequence's
// element read by seq.at has the element type the model declares).
//
//   seq.construct(t...)  seq.empty()  seq.insert(s, t[, pos])  seq.at(s, pos)
//   seq.erase(s[, pos])  seq.length(s)
//   seq.map(@body, (inputs...), (captured...); sequence_inputs)
//   optional.wrap(x)  optional.none()  optional.has(x)  optional.get(x)
#include <fmt/format.h>

#include "engine/op/deduce_util.h"
#include "engine/op/sinfo_util.h"

namespace unity::op::detail {

using namespace unity::ir;
using Type = AttrSpec::Type;

namespace {

StructInfo deduceStated(const Call& call, const DeduceContext& ctx) {
  if (call.sinfoArgs.size() != 1)
    fail(call, ctx, "needs the result's struct info in sinfo_args");
  return call.sinfoArgs[0];
}

StructInfo deduceMap(const Call& call, const DeduceContext& ctx) {
  if (!isa<GlobalVar>(call.args[0]))
    fail(call, ctx, "operand 0 must be the body, a global graph-level function (GlobalVar)");
  return deduceStated(call, ctx);
}

void reg(const std::string& name, int minArgs, int maxArgs, std::vector<AttrSpec> attrs,
         const std::string& doc, DeduceFn fn = deduceStated) {
  registerOp({name, minArgs, maxArgs, OpPattern::Opaque, std::move(attrs), std::move(fn),
              doc + " (run by the executor; result struct info in sinfo_args)"});
}

} // namespace

void registerSequenceOps() {
  reg("seq.construct", 0, -1, {}, "a sequence of the given tensors");
  reg("seq.empty", 0, 0, {}, "an empty sequence");
  reg("seq.insert", 2, 3, {}, "the sequence with a tensor inserted at pos (default: at the end)");
  reg("seq.at", 2, 2, {}, "the tensor at pos (negative counts from the end)");
  reg("seq.erase", 1, 2, {}, "the sequence without the tensor at pos (default: the last)");
  reg("seq.length", 1, 1, {}, "the number of tensors, an int64 scalar");
  reg("seq.map", 3, 3,
      {{"sequence_inputs", Type::Ints, false, std::vector<int64_t>{},
        "1 for each input that is a sequence (a tensor is passed to every call)"}},
      "seq.map(@body, (inputs...), (captured...)): the body applied to the sequences' elements, "
      "each result collected into a sequence",
      deduceMap);
  reg("optional.wrap", 1, 1, {}, "an optional holding the value");
  reg("optional.none", 0, 0, {}, "an empty optional");
  reg("optional.has", 1, 1, {}, "whether the optional holds a value, a bool scalar");
  reg("optional.get", 1, 1, {}, "the optional's value (an error when empty)");
}

} // namespace unity::op::detail
