#include "runtime/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

#include "runtime/c_backend_api.h"

namespace wb::runtime {

namespace {
thread_local bool in_task = false;
}  // namespace

int ThreadPool::DefaultNumThreads() {
  if (const char* env = std::getenv("WB_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

namespace {

// The global pool lives on the heap and is never destroyed: a forked child (ChildProcess, the
// manifest's cases) inherits the object but none of its workers, so the child drops it (see
// ResetInChild) and makes its own on first use. Destroying the inherited one would join threads
// that do not exist there; its mutexes may even be held by them.
std::atomic<ThreadPool*> global_pool{nullptr};
std::mutex global_mutex;
// The size of the pool a child dropped, so the child's own pool has the parent's size.
int inherited_threads = 0;

void LockForFork() { global_mutex.lock(); }
void UnlockAfterFork() { global_mutex.unlock(); }
void ResetInChild() {
  if (ThreadPool* pool = global_pool.load(std::memory_order_relaxed)) {
    inherited_threads = pool->num_threads();
    global_pool.store(nullptr, std::memory_order_relaxed);
  }
  global_mutex.unlock();
}

}  // namespace

ThreadPool& ThreadPool::Global() {
  if (ThreadPool* pool = global_pool.load(std::memory_order_acquire)) return *pool;
  static std::once_flag fork_handlers;
  std::call_once(fork_handlers, [] { pthread_atfork(LockForFork, UnlockAfterFork, ResetInChild); });
  std::lock_guard lock(global_mutex);
  if (ThreadPool* pool = global_pool.load(std::memory_order_relaxed)) return *pool;
  auto* pool = new ThreadPool(inherited_threads > 0 ? inherited_threads : DefaultNumThreads());
  global_pool.store(pool, std::memory_order_release);
  return *pool;
}

int ThreadPool::GlobalNumThreads() {
  if (ThreadPool* pool = global_pool.load(std::memory_order_acquire)) return pool->num_threads();
  std::lock_guard lock(global_mutex);
  return inherited_threads > 0 ? inherited_threads : DefaultNumThreads();
}

ThreadPool::ThreadPool(int num_threads) { Start(num_threads <= 0 ? DefaultNumThreads() : num_threads); }

ThreadPool::~ThreadPool() { Stop(); }

void ThreadPool::SetNumThreads(int num_threads) {
  if (num_threads <= 0) num_threads = DefaultNumThreads();
  std::lock_guard launch(launch_mutex_);
  if (num_threads == num_threads_) return;
  Stop();
  Start(num_threads);
}

void ThreadPool::Start(int num_threads) {
  num_threads_ = num_threads;
  stop_ = false;
  // New workers start at the current generation: the last launch's job is gone.
  uint64_t generation = generation_;
  for (int i = 1; i < num_threads; ++i) {
    workers_.emplace_back([this, i, generation] { WorkerLoop(i, generation); });
  }
}

void ThreadPool::Stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
}

void ThreadPool::WorkerLoop(int worker, uint64_t seen) {
  for (;;) {
    const std::function<int32_t(int)>* job;
    int tasks;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      tasks = job_tasks_;
    }
    int32_t rc = 0;
    in_task = true;
    for (int t = worker; t < tasks; t += num_threads_) {
      int32_t r = (*job)(t);
      if (r != 0 && rc == 0) rc = r;
    }
    in_task = false;
    std::lock_guard lock(mutex_);
    if (rc != 0 && result_ == 0) result_ = rc;
    if (--pending_ == 0) done_.notify_one();
  }
}

int32_t ThreadPool::Launch(int num_tasks, const std::function<int32_t(int)>& fn) {
  if (num_tasks <= 0) return 0;
  if (in_task || num_threads_ == 1 || num_tasks == 1) {
    int32_t rc = 0;
    for (int t = 0; t < num_tasks && rc == 0; ++t) rc = fn(t);
    return rc;
  }
  std::lock_guard launch(launch_mutex_);
  {
    std::lock_guard lock(mutex_);
    job_ = &fn;
    job_tasks_ = num_tasks;
    pending_ = static_cast<int>(workers_.size());
    result_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  int32_t rc = 0;
  in_task = true;
  for (int t = 0; t < num_tasks; t += num_threads_) {
    int32_t r = fn(t);
    if (r != 0 && rc == 0) rc = r;
  }
  in_task = false;
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  return rc != 0 ? rc : result_;
}

}  // namespace wb::runtime

extern "C" int32_t WBBackendParallelLaunch(WBParallelLambda flambda, void* cdata,
                                           int32_t num_task) {
  auto& pool = wb::runtime::ThreadPool::Global();
  int n = num_task <= 0 ? pool.num_threads() : std::min(num_task, pool.num_threads());
  return pool.Launch(n, [&](int task) { return flambda(task, n, cdata); });
}
