#pragma once
// A reference interpreter for tensor functions: runs a PrimFunc on host
// tensors by walking its statements, so generated code (te, legalization,
// schedules) can be checked without any codegen. Slow and literal.
#include <cstdint>
#include <vector>

#include "engine/ir/tir.h"
#include "engine/support/tensor.h"

namespace unity::te {

struct InterpretOptions {
  /// Check that every load and store inside a block lies in the block's
  /// declared read/write regions (loads may also touch the write regions, as
  /// a reduction update does). Blocks with no iteration variables and no
  /// regions (a root block) are not checked.
  bool checkRegions = true;
};

/// Runs f on args (one tensor per buffer parameter, in order; outputs are
/// written in place) and scalarArgs (one per scalar parameter, in order).
/// Shape variables are bound from the argument shapes; every dimension,
/// dtype and rank is checked. A function with calling_conv = "packed"
/// (MakePackedAPI) binds and checks its dimensions in its own prologue
/// instead: arg_dim reads an argument's dimension, a failing assert_dim
/// throws naming the parameter and the dimension (dtype and rank are still
/// checked here). Throws unity::Error naming the function and
/// the cause on a mismatch, an out-of-bounds access, an integer division by
/// zero, a block binding outside its domain or an unsupported construct.
/// Intermediate buffers start filled with NaN (floats) or a 0x5A byte
/// pattern (integers), so a read before write shows up in results.
void interpretPrimFunc(const ir::PrimFuncRef& f, std::vector<unity::Tensor*> args,
                       const std::vector<int64_t>& scalarArgs = {},
                       const InterpretOptions& options = {});

} // namespace unity::te
