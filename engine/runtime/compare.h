#pragma once
// Numerical comparison of two runs' outputs: how far `got` is from `want`,
// element by element, with a tolerance that scales with the expected value.
//
// Used wherever two builds (or a build and the reference evaluator) should
// compute the same thing: the workbench's "Run and Compare", and any tool
// that checks a target against another. The rule per element is
//   |got - want| <= atol + rtol * |want|
// for floating-point types, exact equality for integers and bools. NaN
// matches NaN (two builds that both produce NaN agree); an infinity matches
// only the same infinity. The largest absolute and relative differences are
// kept over the finite pairs so a report can say how close "close" was; a
// non-finite mismatch makes the largest absolute difference infinite.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/support/tensor.h"

namespace unity::runtime {

struct Tolerance {
  double rtol = 1e-4, atol = 1e-4;
};

/// The outcome of comparing one tensor, or a list of them (merged).
struct TensorDifference {
  int64_t elements = 0;       // elements compared
  int64_t mismatches = 0;     // elements outside the tolerance
  int64_t firstMismatch = -1; // flat index of the first one (first tensor that has one)
  size_t firstMismatchTensor = 0;
  double maxAbs = 0; // largest |got - want| (infinite for a non-finite mismatch)
  double maxRel = 0; // largest |got - want| / |want| over finite pairs with want != 0
  /// Non-empty when the tensors cannot be compared element by element
  /// (different counts, shapes or dtypes); nothing else is then meaningful.
  std::string structural;

  bool same() const { return structural.empty() && mismatches == 0; }
};

/// Element `i` (flat index) of `t` as a double; float16 included, which
/// Tensor::getDouble does not read.
double elementAsDouble(const Tensor& t, int64_t i);

/// Compares `got` against `want` (see the header comment).
TensorDifference compareTensors(const Tensor& got, const Tensor& want, const Tolerance& tol = {});

/// Compares two lists of outputs pairwise; the counts merge and the maxima
/// are taken over all tensors. A different number of tensors, or a shape or
/// dtype difference in any pair, is reported in `structural`.
TensorDifference compareTensorLists(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                                    const Tolerance& tol = {});

} // namespace unity::runtime
