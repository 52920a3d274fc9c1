// The time evaluator on a CUDA device: TVM's semantics (runtime/time_evaluator.h: a warm-up
// call, `repeat` measurements of `number` back-to-back calls, `number` grown until a
// measurement lasts min_repeat_ms), but each measurement is the GPU time between two CUDA
// events recorded on the stream around the calls: kernel launches return before the kernels
// finish, so a host clock would time the launches.
#pragma once

#include "runtime/time_evaluator.h"

namespace wb::runtime::cuda {

// Throws runtime::Error (no device, a failed call, invalid options).
TimeEvaluatorResult TimeEvaluateCuda(const PackedFunc& fn, const std::vector<PackedArg>& args,
                                     const TimeEvaluatorOptions& options, int device_id = 0);

}  // namespace wb::runtime::cuda
