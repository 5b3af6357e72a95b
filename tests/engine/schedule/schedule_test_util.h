#pragma once
// Shared fixtures of the schedule tests: small te functions, the hand-written
// reference loops they must match, and structure queries.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/ir/functor.h"
#include "engine/support/error.h"
#include "engine/support/tensor.h"
#include "engine/te/interpreter.h"
#include "engine/te/workloads.h"
#include "engine/transform/default_schedule.h"

namespace unity::schedule::testing {

/// The default schedule's policy for a target string: its numbers come
/// from the target (a named CPU), not from the machine running the test.
inline target::SchedulePolicy policyFor(const std::string& t) {
  return transform::schedulePolicyFor(target::Target::parse(t));
}
/// 16 float32 lanes, 32 registers (24 accumulators).
inline target::SchedulePolicy avx512Policy(int cores) {
  return policyFor("llvm -mcpu=skylake-avx512 -num-cores=" + std::to_string(cores));
}
/// 8 lanes, 16 registers (12 accumulators).
inline target::SchedulePolicy avx2Policy(int cores) {
  return policyFor("llvm -mcpu=haswell -num-cores=" + std::to_string(cores));
}
/// This machine's vectors (for tests that only check results).
inline target::SchedulePolicy hostPolicy(int cores) {
  return policyFor("llvm -num-cores=" + std::to_string(cores));
}

inline unity::Tensor randomTensor(std::vector<int64_t> shape, uint32_t seed) {
  unity::Tensor t(DataType::Float32(), std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setDouble(i, dist(rng));
  return t;
}

inline ::testing::AssertionResult close(const unity::Tensor& got, const unity::Tensor& want,
                                        double tol = 1e-4) {
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shapes differ";
  for (int64_t i = 0; i < got.numel(); ++i) {
    double a = got.getDouble(i), b = want.getDouble(i);
    if (std::isnan(a) || std::fabs(a - b) > tol * (1 + std::fabs(b)))
      return ::testing::AssertionFailure() << "element " << i << ": got " << a << ", want " << b;
  }
  return ::testing::AssertionSuccess();
}

inline unity::Tensor matmulRef(const unity::Tensor& a, const unity::Tensor& b) {
  int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  unity::Tensor c(DataType::Float32(), {m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t r = 0; r < k; ++r)
        s += a.getDouble(i * k + r) * b.getDouble(r * n + j);
      c.setDouble(i * n + j, s);
    }
  return c;
}

/// Runs f (inputs then one output of outShape) in the interpreter.
inline unity::Tensor run(const ir::PrimFuncRef& f, std::vector<unity::Tensor> inputs,
                         std::vector<int64_t> outShape) {
  unity::Tensor out(DataType::Float32(), std::move(outShape));
  std::vector<unity::Tensor*> args;
  for (auto& t : inputs)
    args.push_back(&t);
  args.push_back(&out);
  te::interpretPrimFunc(f, args);
  return out;
}

inline std::vector<const ir::For*> allLoops(const ir::PrimFuncRef& f) {
  std::vector<const ir::For*> out;
  ir::walkStmt(f->body, [&](const ir::Stmt& s) {
    if (auto* l = ir::as<ir::For>(s))
      out.push_back(l);
  });
  return out;
}

inline int countLoops(const ir::PrimFuncRef& f, ir::ForKind kind) {
  int n = 0;
  for (auto* l : allLoops(f))
    n += l->forKind == kind;
  return n;
}

inline std::vector<const ir::Block*> allBlocks(const ir::PrimFuncRef& f) {
  std::vector<const ir::Block*> out;
  ir::walkStmt(f->body, [&](const ir::Stmt& s) {
    if (auto* b = ir::as<ir::Block>(s); b && !b->iters.empty())
      out.push_back(b);
  });
  return out;
}

/// The block of f with this name (null when there is none).
inline const ir::Block* findBlock(const ir::PrimFuncRef& f, const std::string& name) {
  for (auto* b : allBlocks(f))
    if (b->name == name)
      return b;
  return nullptr;
}

/// The message of the unity::Error fn throws ("" if none).
template <class F> std::string errorOf(F&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

} // namespace unity::schedule::testing
