// The GPU rules (TVM: dlight.gpu), and the list the default cuda build applies, in order. A rule
// binds every block it schedules to GPU threads; what no rule takes is bound by
// DefaultGPUSchedule (transform/tir/default_gpu_schedule.h) when the build runs.
#pragma once

#include <vector>

#include "dlight/schedule_rule.h"

namespace wb::dlight::gpu {

// Threads per block the rules use for data-parallel work.
inline constexpr int64_t kThreadsPerBlock = 256;

// C[.., i, j] += A[.., i, k] * B[.., k, j] with static extents and the elementwise blocks after
// it: a thread block per tile of C, each thread accumulating a register tile of it (matmul.cpp).
ScheduleRule Matmul();
// Functions of data-parallel blocks only: producers inlined into the outputs, each output's
// loops fused and spread over blocks of kThreadsPerBlock threads.
ScheduleRule Elementwise();

// Matmul, Elementwise.
std::vector<ScheduleRule> DefaultRules();

}  // namespace wb::dlight::gpu
