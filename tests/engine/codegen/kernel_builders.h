#pragma once
// Hand-built PrimFuncs shared by the codegen and runtime tests (there is no
// tensor-expression builder in the engine yet).
#include <vector>

#include "engine/ir/tir.h"

namespace unity::testing {

using namespace ir;

inline std::vector<PrimExpr> idx(std::initializer_list<PrimExpr> l) { return l; }

inline Stmt store(const BufferRef& b, PrimExpr v, std::initializer_list<PrimExpr> i) {
  return make<BufferStore>(b, std::move(v), std::vector<PrimExpr>(i));
}
inline PrimExpr load(const BufferRef& b, std::initializer_list<PrimExpr> i) {
  return make<BufferLoad>(b, std::vector<PrimExpr>(i));
}
inline Stmt loop(const Ref<PrimVar>& v, PrimExpr extent, Stmt body, ForKind k = ForKind::Serial) {
  return make<For>(v, intImm(0, v->dtype), std::move(extent), k, std::move(body));
}
inline PrimFunc::Param bufParam(const BufferRef& b) { return {b, nullptr}; }
inline PrimFunc::Param scalarParam(const Ref<PrimVar>& v) { return {nullptr, v}; }
inline PrimFuncRef primFunc(std::vector<PrimFunc::Param> params, Stmt body) {
  return make<PrimFunc>(std::move(params), std::move(body));
}

/// C[i] = A[i] + B[i] for i < n, with n a shape variable.
inline PrimFuncRef elementwiseAdd(DataType t = DataType::Float32()) {
  auto n = primVar("n");
  auto A = makeBuffer("A", t, {n});
  auto B = makeBuffer("B", t, {n});
  auto C = makeBuffer("C", t, {n});
  auto i = primVar("i");
  return primFunc({bufParam(A), bufParam(B), bufParam(C)},
                  loop(i, n, store(C, load(A, {i}) + load(B, {i}), {i})));
}

/// Block-form row sum: for i, k: block S (vi spatial, vk reduce) with init
/// S[vi] = 0 and body S[vi] += A[vi, vk]; A is (m, n), S is (m).
inline PrimFuncRef rowSumBlock() {
  auto m = primVar("m"), n = primVar("n");
  auto A = makeBuffer("A", DataType::Float32(), {m, n});
  auto S = makeBuffer("S", DataType::Float32(), {m});
  auto i = primVar("i"), k = primVar("k");
  auto vi = primVar("vi"), vk = primVar("vk");
  std::vector<IterVar> iters{{vi, {intImm(0), m}, IterType::Spatial},
                             {vk, {intImm(0), n}, IterType::Reduce}};
  Stmt init = store(S, floatImm(0.0), {vi});
  Stmt body = store(S, load(S, {vi}) + load(A, {vi, vk}), {vi});
  Stmt block = make<Block>("S", iters, std::vector<PrimExpr>{i, k}, std::vector<BufferRegion>{},
                           std::vector<BufferRegion>{}, init, body);
  return primFunc({bufParam(A), bufParam(S)}, loop(i, m, loop(k, n, block)));
}

/// C = A x B (n x n), loops i (parallel), k, j (vectorized) with C zeroed per
/// row first: the hand schedule of a fast CPU matmul without tiling.
inline PrimFuncRef matmulParallelVectorized(int64_t n) {
  auto N = intImm(n);
  auto A = makeBuffer("A", DataType::Float32(), {N, N});
  auto B = makeBuffer("B", DataType::Float32(), {N, N});
  auto C = makeBuffer("C", DataType::Float32(), {N, N});
  auto i = primVar("i"), j = primVar("j"), j0 = primVar("j0"), k = primVar("k");
  Stmt zero = loop(j0, N, store(C, floatImm(0.0), {i, j0}), ForKind::Vectorized);
  Stmt update =
      loop(k, N,
           loop(j, N, store(C, load(C, {i, j}) + load(A, {i, k}) * load(B, {k, j}), {i, j}),
                ForKind::Vectorized));
  return primFunc({bufParam(A), bufParam(B), bufParam(C)},
                  loop(i, N, seqStmt({zero, update}), ForKind::Parallel));
}

} // namespace unity::testing
