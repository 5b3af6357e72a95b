#pragma once
// Names of the executor's built-in extern functions. LowerToExecutor
// (engine/transform/lower_executor.h) writes calls of them into graph-level
// functions; the executor and the reference evaluator (engine/runtime) read
// them back. They live here, below both, so that neither includes the other.
//
//   R.ExternFunc("vm.builtin.alloc_tensor")(shape, slot, dtype=...)
//   R.ExternFunc("vm.builtin.call_tir_dps")(kernel, (inputs...), (outputs...))
namespace unity::ir {

inline constexpr const char* kAllocTensor = "vm.builtin.alloc_tensor";
inline constexpr const char* kCallTIRDps = "vm.builtin.call_tir_dps";

} // namespace unity::ir
