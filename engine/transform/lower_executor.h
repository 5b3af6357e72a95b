#pragma once
// LowerToExecutor: the last graph-level pass. It turns every call_tir into
// explicit allocation plus a destination-passing kernel call, and plans
// memory statically where shapes allow:
//
//   lv = R.call_tir(f, (x, w), out_sinfo=R.Tensor((n, 128), "float32"))
// becomes
//   lv = R.ExternFunc("vm.builtin.alloc_tensor")(R.shape([n, 128]), R.prim_value(2),
//   dtype="float32") _0 = R.ExternFunc("vm.builtin.call_tir_dps")(f, (x, w), (lv,))
//
// The prim_value is the storage slot (planned) or -1 (allocate at run time:
// a value that escapes the function). Slot sizes in bytes are the function
// attribute "storage_bytes"; a tensor of symbolic shape gets a slot of size
// -1, which the executor grows to the size a run needs and keeps for later
// runs (a model built once and run at many sizes allocates only when a run
// needs more than any before). Shape expressions with
// symbolic dimensions are evaluated by the executor from the shape variables
// bound at function entry.
//
// Memory planning is a linear scan over the bindings in order: a tensor's
// slot returns to the free pool after the binding that uses it last; a new
// tensor takes the smallest free slot that is large enough (best fit), else
// a new one. Values that reach the function's result never share a slot.
#include "engine/ir/builtins.h"
#include "engine/transform/pass.h"

namespace unity::transform {

// The built-in names it writes (defined in ir/ so that runtime can read them).
using ir::kAllocTensor;
using ir::kCallTIRDps;

ir::IRModule lowerToExecutor(const ir::IRModule& m);
PassRef lowerToExecutorPass();

} // namespace unity::transform
