#pragma once
// The executor: runs the graph-level functions of a lowered module, calling
// the compiled kernels.
//
// It walks a function's bindings in order (the lowered form is a straight
// line of allocations and kernel calls, plus tuples, constants and calls of
// other graph functions), binds shape variables from the arguments at entry
// (checking every dimension), evaluates shape expressions for allocations,
// places statically planned tensors in storage slots kept across runs, and
// can time every kernel call. It also accepts modules that stopped before
// LowerToExecutor (plain call_tir), so any point of the pipeline can run.
// Shapes read from data: it evaluates R.tensor_to_shape itself (a 1-D
// integer tensor's values as a shape; negative values are an error), and a
// match_cast to R.Shape([...]) binds the variables seen for the first time
// and checks the other values. Control flow: an `if` runs the branch its
// condition picks; R.loop and R.scan call their body function (a graph-level
// function of the module) once per iteration and stack the scan outputs;
// the sequence and optional operators (R.seq.*, R.optional.*) work on
// tuple values of any length (a sequence) and on no value (an empty
// optional).
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "engine/ir/module.h"
#include "engine/runtime/module.h"
#include "engine/support/tensor.h"

namespace unity::runtime {

/// A run-time value: a tensor, a tuple, a shape, a scalar, or nothing.
struct Value {
  std::variant<std::monostate, Tensor, std::vector<Value>, std::vector<int64_t>, int64_t, double> v;
  Value() = default;
  Value(Tensor t) : v(std::move(t)) {}
  bool isTensor() const { return std::holds_alternative<Tensor>(v); }
  const Tensor& tensor() const;
  /// All tensors in order, tuples flattened.
  void flatten(std::vector<Tensor>& out) const;
};

struct KernelProfile {
  std::string name;
  int64_t calls = 0;
  double totalMs = 0;
};

class Executable {
public:
  Executable(ir::IRModule lowered, std::shared_ptr<const CompiledModule> kernels);

  /// Runs graph function `name` on the arguments.
  Value run(const std::string& name, const std::vector<Value>& args);
  /// Runs "main" (or the first graph function) on tensors; returns every
  /// output tensor (tuples flattened).
  std::vector<Tensor> runTensors(const std::vector<Tensor>& inputs, const std::string& name = {});

  /// The graph function run by default: "main" if present, else the first.
  std::string entry() const;
  const ir::IRModule& module() const { return module_; }
  const CompiledModule* kernels() const { return kernels_.get(); }

  void setProfiling(bool on) { profiling_ = on; }
  /// Per-kernel calls and time, sorted by total time, descending.
  std::vector<KernelProfile> profile() const;
  void resetProfile() { profile_.clear(); }

private:
  friend struct FrameEval;
  ir::IRModule module_;
  std::shared_ptr<const CompiledModule> kernels_;
  std::map<std::string, std::vector<std::shared_ptr<TensorBytes>>> slots_;
  bool profiling_ = false;
  std::map<std::string, KernelProfile> profile_;
  int depth_ = 0;
};

} // namespace unity::runtime
