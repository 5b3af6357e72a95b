#pragma once
// A fixed-size pool of worker threads for the parallel loops of compiled
// kernels (the runtime side of `for ... parallel`).
//
// Scheduling is static: a loop of `extent` iterations is cut into
// min(threads, extent) contiguous chunks of near-equal size; the calling
// thread runs chunk 0 and the workers run the others, then the caller waits
// for all of them. There is no work stealing: kernels produced by the
// compiler have uniform iterations, and static chunks keep each thread on the
// same rows every call (cache friendly, deterministic).
//
// Waiting spins before it sleeps: a worker that finished a chunk watches for
// the next loop for up to kSpinMicros before it blocks on the condition
// variable, and the caller watches for the last chunk the same way. A model
// runs a few parallel loops per kernel, microseconds apart, and waking a
// sleeping thread through the kernel (a futex wake-up) costs tens of
// microseconds, as much as a small loop's whole chunk: without the spin, a
// model of many small parallel loops runs slower on 2 threads than on 1
// (docs/benchmarks.md, "Kernel and runtime changes of session 4"). ONNX
// Runtime and OpenMP runtimes spin the same way.
//
// Nested parallel loops (a parallel body reaching another parallel loop) and
// concurrent calls from several host threads run serially on the calling
// thread rather than deadlocking or oversubscribing.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace unity::runtime {

class ThreadPool {
public:
  /// Chunk function: runs iterations [begin, end), returns 0 or an error code.
  using ChunkFn = std::function<int32_t(int64_t begin, int64_t end)>;

  /// numThreads counts the calling thread; 1 means "no workers".
  explicit ThreadPool(int numThreads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int numThreads() const { return static_cast<int>(workers_.size()) + 1; }

  /// Runs fn over [0, extent) in static chunks; returns 0 or the first
  /// nonzero code returned by a chunk (the other chunks still run).
  int32_t parallelFor(int64_t extent, const ChunkFn& fn);

  /// The pool generated kernels use. Sized by setNumThreads, by default the
  /// number of hardware threads.
  static ThreadPool& global();
  /// Replaces the global pool by one of n threads (n <= 0: hardware threads).
  /// Must not be called while a kernel runs.
  static void setNumThreads(int n);

private:
  void workerLoop(int index);
  /// Spins up to kSpinMicros until done() holds; false when it did not.
  template <class Done> static bool spinUntil(Done done);
  static constexpr int kSpinMicros = 200;

  std::vector<std::thread> workers_;
  std::mutex runMutex_; // one parallel loop at a time
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  // The current job, written under mutex_; generation_ and pending_ are also
  // read without it by the spinning waits.
  const ChunkFn* job_ = nullptr;
  int64_t extent_ = 0;
  int chunks_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  int32_t firstError_ = 0;
  std::atomic<bool> stop_{false};
};

/// True while the calling thread is executing a chunk of a parallel loop.
bool insideParallelRegion();

} // namespace unity::runtime
