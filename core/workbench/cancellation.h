// Cancellation and progress for long work that a face runs on a worker thread (pipelines,
// builds, runs, profiles): the face keeps a copy of the token to cancel, the worker checks its
// own between stages and reports progress through a callback.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace wb::workbench {

// Copies share one flag: the UI keeps a copy to cancel, the worker checks its own.
class CancellationToken {
 public:
  CancellationToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void Cancel() const { flag_->store(true); }
  bool cancelled() const { return flag_->load(); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

// Called on the worker's thread: what is being done, and the fraction of the job done (0..1).
using ProgressFn = std::function<void(const std::string& stage, double fraction)>;

}  // namespace wb::workbench
