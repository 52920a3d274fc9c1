#include "runtime/cuda/cuda_time_evaluator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "runtime/cuda/cuda_device_api.h"

namespace wb::runtime::cuda {

TimeEvaluatorResult TimeEvaluateCuda(const PackedFunc& fn, const std::vector<PackedArg>& args,
                                     const TimeEvaluatorOptions& options, int device_id) {
  if (options.number < 1) throw Error("time evaluator: number must be at least 1");
  if (options.repeat < 1) throw Error("time evaluator: repeat must be at least 1");
  if (options.min_repeat_ms < 0 || options.cooldown_interval_ms < 0) {
    throw Error("time evaluator: min_repeat_ms and cooldown_interval_ms must not be negative");
  }
  TimeEvaluatorResult result;
  CudaEventTimer timer(device_id);
  fn.Call(args);  // warm-up: module load, first-touch
  StreamSync(device_id);
  ++result.total_calls;
  int number = options.number;
  for (int r = 0; r < options.repeat; ++r) {
    if (r > 0 && options.cooldown_interval_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(options.cooldown_interval_ms));
    }
    double elapsed_ms = 0;
    for (;;) {
      timer.Start();
      for (int i = 0; i < number; ++i) fn.Call(args);
      timer.Stop();
      elapsed_ms = timer.ElapsedMs();
      result.total_calls += number;
      if (elapsed_ms >= options.min_repeat_ms) break;
      double per_call = std::max(elapsed_ms / number, 1e-6);
      int golden = static_cast<int>(std::ceil(number * 1.618));
      int needed = static_cast<int>(options.min_repeat_ms / per_call) + 1;
      number = std::max(golden, needed);
    }
    result.samples_s.push_back(elapsed_ms / 1e3 / number);
  }
  result.final_number = number;
  return result;
}

}  // namespace wb::runtime::cuda
