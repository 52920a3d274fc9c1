// The CPU rules (TVM: dlight.cpu), and the list the default build applies, in order. Each rule
// reads the target's vector width, register file and caches (CpuParamsOf), never a fixed ISA.
#pragma once

#include <vector>

#include "dlight/schedule_rule.h"

namespace wb::dlight::cpu {

// A reduction block computing C[.., i, j] += A[.., i, k] * B[.., k, j] (matmul, batch matmul,
// a dense layer after permute_dims), with the elementwise blocks after it (bias, relu, gelu,
// add, cast) computed at its register tile. matmul.cpp says how the tile is chosen.
ScheduleRule Matmul();
// A convolution (a windowed reduction of two operands: NCHW, NHWC, strided, dilated, grouped,
// depthwise) with its padding and epilogue: the matmul's register tile over the output's
// innermost axis and the axis the vector operand does not use, or over the output channel with
// the weight packed when that axis holds no whole vectors (conv2d.cpp).
ScheduleRule Conv2d();
// Row-wise reductions with their elementwise parts (softmax, log_softmax, layer_norm, rms_norm,
// sum/mean/max over the last axes): parallel over rows, each row's stages computed together,
// vector partial results (reduction.cpp).
ScheduleRule Reduction();
// A windowed reduction of one input (max and average pooling, any rank and layout) with its
// padding and the stages after it: parallel over planes, the padding computed per plane, the
// window outside the output's innermost axis, which is the vector (pool.cpp).
ScheduleRule Pool();
// A matrix-vector product (batch 1) over the matrix's contiguous axis, with its epilogue: the
// Reduction schedule with one output element per row, parallel by its multiply-adds.
ScheduleRule GEMV();
// Functions of data-parallel blocks only (elementwise, broadcast, transpose, layout changes):
// the producers inlined into the outputs, parallel outer loops, vectorized inner loops.
ScheduleRule Injective();
// Always applies: each block on its own, data-parallel loops as Injective schedules them, a
// reduction parallel over its data-parallel loops (vectorized along the output's contiguous axis,
// inside the reduction, where every operand reads along it contiguously; else along its one
// reduction axis in vector partial results where that is read so).
ScheduleRule Fallback();

// GEMV, Matmul, Conv2d, Reduction, Pool, Injective, Fallback.
std::vector<ScheduleRule> DefaultRules();

}  // namespace wb::dlight::cpu
