#include "runtime/time_evaluator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>

namespace wb::runtime {

double TimeEvaluatorResult::mean_s() const {
  if (samples_s.empty()) return 0;
  return std::accumulate(samples_s.begin(), samples_s.end(), 0.0) / samples_s.size();
}

double TimeEvaluatorResult::median_s() const {
  if (samples_s.empty()) return 0;
  std::vector<double> s = samples_s;
  std::sort(s.begin(), s.end());
  size_t n = s.size();
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double TimeEvaluatorResult::min_s() const {
  return samples_s.empty() ? 0 : *std::min_element(samples_s.begin(), samples_s.end());
}

double TimeEvaluatorResult::max_s() const {
  return samples_s.empty() ? 0 : *std::max_element(samples_s.begin(), samples_s.end());
}

TimeEvaluatorResult TimeEvaluate(const PackedFunc& fn, const std::vector<PackedArg>& args,
                                 const TimeEvaluatorOptions& options) {
  if (options.number < 1) throw Error("time evaluator: number must be at least 1");
  if (options.repeat < 1) throw Error("time evaluator: repeat must be at least 1");
  if (options.min_repeat_ms < 0 || options.cooldown_interval_ms < 0) {
    throw Error("time evaluator: min_repeat_ms and cooldown_interval_ms must not be negative");
  }
  using Clock = std::chrono::steady_clock;
  TimeEvaluatorResult result;
  fn.Call(args);  // warm-up: page faults, first-touch, lazy JIT materialisation
  ++result.total_calls;
  int number = options.number;
  for (int r = 0; r < options.repeat; ++r) {
    if (r > 0 && options.cooldown_interval_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(options.cooldown_interval_ms));
    }
    if (options.preproc) options.preproc();
    double elapsed_ms = 0;
    // As TVM: redo the measurement with a larger `number` until it lasts min_repeat_ms.
    for (;;) {
      auto start = Clock::now();
      for (int i = 0; i < number; ++i) fn.Call(args);
      result.total_calls += number;
      elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      if (elapsed_ms >= options.min_repeat_ms) break;
      double per_call = std::max(elapsed_ms / number, 1e-6);
      int golden = static_cast<int>(std::ceil(number * 1.618));
      int needed = static_cast<int>(options.min_repeat_ms / per_call) + 1;
      number = std::max(golden, needed);
    }
    result.samples_s.push_back(elapsed_ms / 1e3 / number);
    if (options.on_sample && !options.on_sample(result.samples_s.back())) break;
  }
  result.final_number = number;
  return result;
}

}  // namespace wb::runtime
