#include "engine/runtime/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "engine/runtime/c_runtime_api.h"

namespace unity::runtime {

namespace {
thread_local bool tInsideParallel = false;

/// Marks the current thread as inside a parallel chunk for a scope.
struct ParallelScope {
  bool saved = tInsideParallel;
  ParallelScope() { tInsideParallel = true; }
  ~ParallelScope() { tInsideParallel = saved; }
};

/// Bounds of chunk c of n over [0, extent): near-equal contiguous pieces.
std::pair<int64_t, int64_t> chunkRange(int64_t extent, int n, int c) {
  return {extent * c / n, extent * (c + 1) / n};
}

int32_t runSerial(int64_t extent, const ThreadPool::ChunkFn& fn) {
  ParallelScope scope;
  return fn(0, extent);
}
} // namespace

bool insideParallelRegion() { return tInsideParallel; }

template <class Done> bool ThreadPool::spinUntil(Done done) {
  using Clock = std::chrono::steady_clock;
  auto until = Clock::now() + std::chrono::microseconds(kSpinMicros);
  for (int i = 0;; ++i) {
    if (done())
      return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if ((i & 63) == 63 && Clock::now() > until)
      return false;
  }
}

ThreadPool::ThreadPool(int numThreads) {
  for (int i = 1; i < std::max(1, numThreads); ++i)
    workers_.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (auto& t : workers_)
    t.join();
}

void ThreadPool::workerLoop(int index) {
  uint64_t seen = 0;
  for (;;) {
    spinUntil([&] {
      return stop_.load(std::memory_order_relaxed) ||
             generation_.load(std::memory_order_acquire) != seen;
    });
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return stop_.load() || generation_.load() != seen; });
    if (stop_.load())
      return;
    seen = generation_.load();
    if (index >= chunks_)
      continue; // not needed for this (short) loop
    const ChunkFn* job = job_;
    auto [begin, end] = chunkRange(extent_, chunks_, index);
    lock.unlock();
    int32_t rc;
    {
      ParallelScope scope;
      rc = (*job)(begin, end);
    }
    lock.lock();
    if (rc != 0 && firstError_ == 0)
      firstError_ = rc;
    if (pending_.fetch_sub(1) == 1)
      done_.notify_one();
  }
}

int32_t ThreadPool::parallelFor(int64_t extent, const ChunkFn& fn) {
  if (extent <= 0)
    return 0;
  // Nested loops, pools without workers, single iterations, and a pool
  // already busy with another host thread's loop all run serially here.
  if (tInsideParallel || workers_.empty() || extent == 1)
    return runSerial(extent, fn);
  std::unique_lock run(runMutex_, std::try_to_lock);
  if (!run.owns_lock())
    return runSerial(extent, fn);

  int chunks = static_cast<int>(std::min<int64_t>(numThreads(), extent));
  {
    std::lock_guard lock(mutex_);
    job_ = &fn;
    extent_ = extent;
    chunks_ = chunks;
    pending_.store(chunks - 1);
    firstError_ = 0;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  auto [begin, end] = chunkRange(extent, chunks, 0);
  int32_t rc;
  {
    ParallelScope scope;
    rc = fn(begin, end);
  }
  spinUntil([&] { return pending_.load(std::memory_order_acquire) == 0; });
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_.load() == 0; });
  job_ = nullptr;
  return rc != 0 ? rc : firstError_;
}

namespace {
std::mutex gPoolMutex;
std::unique_ptr<ThreadPool> gPool;

int hardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

/// fork() copies only the forking thread: a child (a measurement worker of
/// the tuner, a conformance case) would otherwise inherit a pool whose worker
/// threads do not exist in it and wait forever on its first parallel loop,
/// or join ghosts in setNumThreads. The handlers hold gPoolMutex across the
/// fork (so no other thread is inside global() or setNumThreads), and the
/// child forgets the inherited pool without destroying it (its destructor
/// would join threads that are not there); the next global() builds one.
void installForkHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    pthread_atfork([] { gPoolMutex.lock(); }, [] { gPoolMutex.unlock(); },
                   [] {
                     (void)gPool.release(); // leaked on purpose: its threads are gone
                     gPoolMutex.unlock();
                   });
  });
}
} // namespace

ThreadPool& ThreadPool::global() {
  installForkHandlers();
  std::lock_guard lock(gPoolMutex);
  if (!gPool)
    gPool = std::make_unique<ThreadPool>(hardwareThreads());
  return *gPool;
}

void ThreadPool::setNumThreads(int n) {
  installForkHandlers();
  std::lock_guard lock(gPoolMutex);
  gPool.reset(); // joins the old workers first
  gPool = std::make_unique<ThreadPool>(n > 0 ? n : hardwareThreads());
}

} // namespace unity::runtime

extern "C" int32_t unity_parallel_for(UnityParallelBody body, void* closure, int64_t extent) {
  return unity::runtime::ThreadPool::global().parallelFor(
      extent, [&](int64_t begin, int64_t end) { return body(closure, begin, end); });
}
