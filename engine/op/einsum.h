#pragma once
// The syntax of an einsum equation ("ij,jk->ik"), shared by the operator's
// struct-info deduction, its te implementation, the reference evaluator and
// the ONNX importer. Splitting only: each user checks what it supports
// (ellipses, letters) and reports it in its own terms.
#include <optional>
#include <string>
#include <vector>

namespace unity::op {

struct EinsumEquation {
  std::string text;                  ///< the equation without spaces
  std::vector<std::string> inputs;   ///< one subscript string per operand (split at ',')
  std::optional<std::string> output; ///< after "->", when there is one
};

/// Drops the spaces of `equation` and splits it at "->" and ','. Never throws.
EinsumEquation splitEinsum(const std::string& equation);

/// numpy's implicit output (an equation without "->"): the letters used
/// exactly once across `inputs`, in alphabetical order.
std::string implicitEinsumOutput(const std::vector<std::string>& inputs);

} // namespace unity::op
