// The thread pool that generated `parallel` loops run on (through WBBackendParallelLaunch). One
// process-wide pool; its size defaults to the number of cores (or WB_NUM_THREADS) and can be
// changed between launches. A forked child gets a fresh global pool of the same size on first use
// (a pthread_atfork handler drops the inherited one, whose threads do not exist in the child).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wb::runtime {

class ThreadPool {
 public:
  static ThreadPool& Global();
  // The global pool's size without starting it (what a target's num_cores defaults to).
  static int GlobalNumThreads();
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that run tasks, the calling thread included.
  int num_threads() const { return num_threads_; }
  // Resizes the pool (<= 0: the core count). Not while a launch is running.
  void SetNumThreads(int num_threads);

  // Runs fn(task_id) for task_id in [0, num_tasks); task i runs on thread i % num_threads, the
  // caller running its share. Returns the first non-zero result. A launch from inside a task
  // runs serially on that thread (nested parallelism is not split further).
  int32_t Launch(int num_tasks, const std::function<int32_t(int)>& fn);

  static int DefaultNumThreads();

 private:
  void Start(int num_threads);
  void Stop();
  void WorkerLoop(int worker, uint64_t seen);

  int num_threads_ = 1;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::mutex launch_mutex_;  // one launch at a time
  const std::function<int32_t(int)>* job_ = nullptr;
  int job_tasks_ = 0;
  uint64_t generation_ = 0;
  int pending_ = 0;
  int32_t result_ = 0;
  bool stop_ = false;
};

}  // namespace wb::runtime
