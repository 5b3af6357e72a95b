#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "engine/codegen/codegen.h"
#include "engine/runtime/c_runtime_api.h"
#include "engine/runtime/kernel_call.h"
#include "engine/runtime/thread_pool.h"
#include "engine/support/error.h"
#include "tests/engine/codegen/kernel_builders.h"

using namespace unity;
using namespace unity::ir;
using namespace unity::testing;
using unity::runtime::ThreadPool;

namespace {
/// Restores the global pool to its default size after a test.
struct PoolReset {
  ~PoolReset() { ThreadPool::setNumThreads(0); }
};
} // namespace

TEST(RuntimeThreadPool, EachIndexIsRunExactlyOnce) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.numThreads(), threads);
    for (int64_t extent : {0, 1, 2, 5, 1000}) {
      std::vector<std::atomic<int>> hits(extent);
      std::mutex m;
      std::set<std::thread::id> ids;
      int32_t rc = pool.parallelFor(extent, [&](int64_t b, int64_t e) {
        {
          std::lock_guard lock(m);
          ids.insert(std::this_thread::get_id());
        }
        EXPECT_TRUE(runtime::insideParallelRegion());
        for (int64_t i = b; i < e; ++i)
          hits[i]++;
        return 0;
      });
      EXPECT_EQ(rc, 0);
      for (int64_t i = 0; i < extent; ++i) {
        ASSERT_EQ(hits[i].load(), 1) << "threads " << threads << " i " << i;
      }
      if (extent >= threads) {
        EXPECT_EQ(static_cast<int>(ids.size()), threads) << extent;
      }
    }
  }
  EXPECT_FALSE(runtime::insideParallelRegion());
}

TEST(RuntimeThreadPool, NestedLoopsRunSeriallyAndErrorsPropagate) {
  ThreadPool pool(2);
  std::atomic<int> inner{0};
  int32_t rc = pool.parallelFor(4, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      auto self = std::this_thread::get_id();
      pool.parallelFor(3, [&](int64_t b2, int64_t e2) {
        EXPECT_EQ(std::this_thread::get_id(), self); // serial on the same thread
        inner += static_cast<int>(e2 - b2);
        return 0;
      });
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(inner.load(), 12);
  rc = pool.parallelFor(10, [](int64_t b, int64_t) { return b == 0 ? 0 : 7; });
  EXPECT_EQ(rc, 7);
}

TEST(RuntimeThreadPool, CEntryPointUsesTheGlobalPool) {
  PoolReset reset;
  for (int threads : {1, 2}) {
    ThreadPool::setNumThreads(threads);
    EXPECT_EQ(ThreadPool::global().numThreads(), threads);
    std::vector<int> out(100, 0);
    auto body = [](void* closure, int64_t b, int64_t e) -> int32_t {
      auto* v = static_cast<std::vector<int>*>(closure);
      for (int64_t i = b; i < e; ++i)
        (*v)[i] += static_cast<int>(i);
      return 0;
    };
    EXPECT_EQ(unity_parallel_for(body, &out, 100), 0);
    for (int i = 0; i < 100; ++i)
      ASSERT_EQ(out[i], i);
  }
}

TEST(RuntimeAlloc, AlignedAndFreeable) {
  void* p = unity_alloc(100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  unity_free(p);
  void* z = unity_alloc(0);
  EXPECT_NE(z, nullptr);
  unity_free(z);
}

TEST(RuntimeAlloc, LargeBlocksAreReusedAtTheSameSize) {
  // A kernel's big temporaries come back at every call: the block freed
  // last is handed out again instead of fresh pages from malloc.
  const int64_t big = 1 << 20;
  char* a = static_cast<char*>(unity_alloc(big));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  std::memset(a, 1, big);
  unity_free(a);
  char* b = static_cast<char*>(unity_alloc(big));
  EXPECT_EQ(b, a);
  std::memset(b, 2, big); // the whole block is the caller's
  char* c = static_cast<char*>(unity_alloc(big));
  EXPECT_NE(c, b); // b is in use
  char* d = static_cast<char*>(unity_alloc(big + 4096));
  EXPECT_NE(d, b);
  EXPECT_NE(d, c);
  unity_free(b);
  unity_free(c);
  unity_free(d);
  // More blocks than the cache keeps, freed on another thread than the one
  // that allocated them: each is still freed once (ASan checks).
  std::vector<void*> many;
  for (int i = 0; i < 40; ++i)
    many.push_back(unity_alloc(big + i * 64));
  std::thread([&] {
    for (void* p : many)
      unity_free(p);
  }).join();
  unity_free(nullptr);
}

TEST(RuntimeKernel, ParallelLoopWritesEveryIndexWithOneAndTwoThreads) {
  PoolReset reset;
  // Out[i, j] = i * 1000 + j with i parallel, and a nested parallel j loop.
  auto n = primVar("n");
  auto Out = makeBuffer("Out", DataType::Int64(), {n, intImm(3)});
  auto i = primVar("i"), j = primVar("j");
  Stmt body = loop(
      i, n,
      loop(j, intImm(3), store(Out, PrimExpr(i) * 1000 + PrimExpr(j), {i, j}), ForKind::Parallel),
      ForKind::Parallel);
  auto m = codegen::compileForHost({{"fill", primFunc({bufParam(Out)}, body)}});
  for (int threads : {1, 2}) {
    ThreadPool::setNumThreads(threads);
    for (int64_t len : {1, 2, 37}) {
      Tensor out(DataType::Int64(), {len, 3});
      for (int64_t k = 0; k < out.numel(); ++k)
        out.setDouble(k, -1);
      runtime::callKernel(*m, "fill", {&out});
      for (int64_t a = 0; a < len; ++a)
        for (int64_t b = 0; b < 3; ++b)
          ASSERT_EQ(out.getDouble(a * 3 + b), double(a * 1000 + b));
    }
  }
}

TEST(RuntimeKernel, CallKernelRejectsMismatchedArguments) {
  auto m =
      codegen::compileForHost({{"add", elementwiseAdd()}, {"mm", matmulParallelVectorized(4)}});
  Tensor a(DataType::Float32(), {5}), b(DataType::Float32(), {5}), c(DataType::Float32(), {6});
  Tensor d(DataType::Int32(), {5}), e(DataType::Float32(), {5, 1});
  auto expectError = [](auto&& fn, const std::string& needle) {
    try {
      fn();
      ADD_FAILURE() << "expected an error mentioning " << needle;
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find(needle), std::string::npos) << err.what();
    }
  };
  expectError([&] { runtime::callKernel(*m, "add", {&a, &b, &c}); }, "buffer 'C'");
  expectError([&] { runtime::callKernel(*m, "add", {&a, &b}); }, "expects 3 arguments");
  expectError([&] { runtime::callKernel(*m, "add", {&a, &d, &c}); }, "float32");
  expectError([&] { runtime::callKernel(*m, "add", {&a, &e, &b}); }, "dimensions");
  expectError([&] { runtime::callKernel(*m, "add", {&a, int64_t{3}, &b}); }, "must be a tensor");
  expectError([&] { runtime::callKernel(*m, "missing", {&a}); }, "missing");
  Tensor m4(DataType::Float32(), {4, 4}), m5(DataType::Float32(), {4, 5});
  expectError([&] { runtime::callKernel(*m, "mm", {&m4, &m5, &m4}); }, "dimension 1 of argument 1");
  runtime::callKernel(*m, "add", {&a, &b, &b}); // consistent shapes run
}

TEST(RuntimeKernel, BindShapesEvaluatesCompoundDimensions) {
  // B has shape (2 * n): n is bound by A, B is checked.
  auto n = primVar("n");
  auto A = makeBuffer("A", DataType::Float32(), {n});
  auto B = makeBuffer("B", DataType::Float32(), {n * 2});
  auto i = primVar("i");
  auto f =
      primFunc({bufParam(A), bufParam(B)}, loop(i, n, store(B, load(A, {i}), {PrimExpr(i) * 2})));
  Tensor a(DataType::Float32(), {3}), b(DataType::Float32(), {6}), bad(DataType::Float32(), {5});
  auto vars = runtime::bindShapes("f", f, {&a, &b});
  EXPECT_EQ(vars.at(n.get()), 3);
  EXPECT_THROW(runtime::bindShapes("f", f, {&a, &bad}), Error);
  auto m = codegen::compileForHost({{"f", f}});
  for (int64_t k = 0; k < 3; ++k)
    a.setDouble(k, double(k + 1));
  runtime::callKernel(*m, "f", {&a, &b});
  EXPECT_EQ(b.getDouble(0), 1.0);
  EXPECT_EQ(b.getDouble(2), 2.0);
  EXPECT_EQ(b.getDouble(4), 3.0);
  // Same check inside the kernel when called directly.
  std::vector<float> x(3), y(5);
  void* args[2] = {x.data(), y.data()};
  int64_t shapes[2] = {3, 5};
  EXPECT_EQ(m->lookup("f")(args, shapes, 2), codegen::kKernelShapeMismatch);
}
