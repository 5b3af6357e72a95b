#pragma once
// Reading and writing NumPy .npy files (format versions 1-3, C order,
// little-endian bool/int/uint/float of 8-64 bits) for CLI inputs/outputs.
#include <string>

#include "engine/support/tensor.h"

namespace unity {

/// Throws unity::Error naming the file and the problem (bad magic, Fortran
/// order, unsupported dtype, truncated data).
Tensor readNpy(const std::string& path);
void writeNpy(const std::string& path, const Tensor& t);

} // namespace unity
