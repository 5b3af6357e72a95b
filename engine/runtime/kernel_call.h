#pragma once
// Calling a compiled kernel with tensors: the host side of the packed
// calling convention (engine/codegen/README.md).
//
// callKernel checks every argument against the PrimFunc's parameters (kind,
// dtype, rank, constant dimensions, and consistency of shape variables: the
// first bare occurrence of `n` binds it, every other use must agree), then
// packs data pointers, dims and scalar slots and calls the kernel. Mismatches
// are reported as unity::Error naming the kernel, the parameter and the
// dimension, before any code runs.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ir/tir.h"
#include "engine/runtime/module.h"
#include "engine/support/tensor.h"

namespace unity::runtime {

/// One kernel argument: a tensor for a buffer parameter, a number for a
/// scalar parameter.
struct KernelArg {
  KernelArg(Tensor* t) : tensor(t) {}
  KernelArg(Tensor& t) : tensor(&t) {}
  KernelArg(int64_t v) : isScalar(true), intValue(v), floatValue(static_cast<double>(v)) {}
  KernelArg(int v) : KernelArg(static_cast<int64_t>(v)) {}
  KernelArg(double v) : isScalar(true), intValue(static_cast<int64_t>(v)), floatValue(v) {}

  Tensor* tensor = nullptr;
  bool isScalar = false;
  int64_t intValue = 0;
  double floatValue = 0;
};

/// Calls kernel `name` of m, whose source function is f.
void callKernel(const CompiledModule& m, const std::string& name, const ir::PrimFuncRef& f,
                const std::vector<KernelArg>& args);
/// Same, with the function the module compiled under that name.
void callKernel(const CompiledModule& m, const std::string& name,
                const std::vector<KernelArg>& args);

/// Binds the shape variables of f's buffer parameters from the argument
/// tensors and checks all dimensions (what callKernel does before calling).
/// Returns the value of every bound variable.
std::unordered_map<const ir::PrimVar*, int64_t>
bindShapes(const std::string& name, const ir::PrimFuncRef& f, const std::vector<KernelArg>& args);

} // namespace unity::runtime
