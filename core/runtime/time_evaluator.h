// Timing of packed functions with TVM's time_evaluator semantics: one warm-up call, then
// `repeat` measurements, each the mean of `number` back-to-back calls. When a measurement takes
// less than `min_repeat_ms`, `number` grows (as TVM grows it) and the measurement is redone;
// `cooldown_interval_ms` sleeps between measurements. `preproc` runs before each measurement (TVM's
// f_preproc, where a cache flush goes) and `on_sample` after it, so a caller can report each
// sample as it comes and stop early (a cancel).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/packed_func.h"

namespace wb::runtime {

struct TimeEvaluatorOptions {
  int number = 1;
  int repeat = 1;
  int min_repeat_ms = 0;
  int cooldown_interval_ms = 0;
  std::function<void()> preproc;
  // Seconds per call of the measurement just made; false stops after it.
  std::function<bool(double sample_s)> on_sample;
};

struct TimeEvaluatorResult {
  std::vector<double> samples_s;  // one per repeat: seconds per call
  int final_number = 0;           // the `number` the last measurement used
  int64_t total_calls = 0;        // warm-up included
  double mean_s() const;
  double median_s() const;
  double min_s() const;
  double max_s() const;
};

// Throws runtime::Error when a call fails or the options are invalid (number or repeat < 1).
TimeEvaluatorResult TimeEvaluate(const PackedFunc& fn, const std::vector<PackedArg>& args,
                                 const TimeEvaluatorOptions& options);

}  // namespace wb::runtime
