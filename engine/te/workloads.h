#pragma once
// Whole PrimFuncs of common operators, built with te and topi: the
// workloads that tuning, benchmarks and tests schedule, written once.
#include <cstdint>
#include <string>

#include "engine/te/te.h"
#include "engine/te/topi.h"

namespace unity::te {

/// C[i, j] = sum_k A[i, k] * B[k, j]: A is m x k, B is k x n. The PrimFunc's
/// params are A, B and C (the inputs named a and b), its one block is "C".
/// Dims may be symbolic.
inline ir::PrimFuncRef matmulPrimFunc(ir::PrimExpr m, ir::PrimExpr n, ir::PrimExpr k,
                                      const std::string& a = "A", const std::string& b = "B",
                                      DataType dtype = DataType::Float32()) {
  Tensor A = placeholder({m, k}, dtype, a);
  Tensor B = placeholder({k, n}, dtype, b);
  return createPrimFunc({A, B, topi::matmul(A, B, "C")});
}

/// The same with constant dims.
inline ir::PrimFuncRef matmulPrimFunc(int64_t m, int64_t n, int64_t k, const std::string& a = "A",
                                      const std::string& b = "B",
                                      DataType dtype = DataType::Float32()) {
  return matmulPrimFunc(ir::intImm(m), ir::intImm(n), ir::intImm(k), a, b, dtype);
}

} // namespace unity::te
