// What the rules know about a function and the machine: the blocks of a PrimFunc with their
// loops and iteration kinds, the matmul pattern of a reduction block, and the target's vector
// width, register file and caches.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "schedule/schedule.h"
#include "tir/stmt.h"

namespace wb::dlight {

// The machine as the rules see it.
struct CpuParams {
  int vector_bits = 128;
  int vector_registers = 16;
  int64_t l1d_bytes = 32 << 10;
  int64_t l2_bytes = 512 << 10;
  int num_cores = 1;
  // Elements of `dtype` in one vector register (at least 1).
  int Lanes(ir::DataType dtype) const;
};
CpuParams CpuParamsOf(const codegen::Target& target);

// One block below the root, with the loops around it.
struct BlockInfo {
  std::string name;
  schedule::SBlockRV rv;
  std::vector<schedule::LoopRV> loops;  // outer to inner
  tir::SBlock block;
  std::vector<ir::PrimExpr> bindings;  // the realize's iterator values
  // Each loop drives one block iterator, in order (loop k binds iter k, same extent, from 0),
  // with no predicate: the shape legalized kernels have.
  bool simple_nest = false;
  bool IsSpatial() const;    // every iterator data-parallel
  bool IsReduction() const;  // an init, data-parallel and reduction iterators only
  // Reduction iterators all come after the data-parallel ones.
  bool ReductionInnermost() const;
  // The loop whose variable is iterator `iter`'s whole binding, or nullopt.
  std::optional<schedule::LoopRV> LoopOf(schedule::Schedule& sch, size_t iter) const;
  // The widest element type the block reads or writes.
  ir::DataType WidestDType() const;
};

// Whether `loops` (outer to inner: the loops between the enclosing block and the realize) drive
// the realize's iterators one to one and in order (loop k binds iter k, from 0, same extent),
// with no predicate: a nest as legalization or a user writes it, before any schedule.
bool IsSimpleNest(const tir::SBlockRealizeNode* realize,
                  const std::vector<const tir::ForNode*>& loops);

// The blocks under the root of the schedule's function, in program order.
std::vector<BlockInfo> GetBlockInfos(schedule::Schedule& sch);

// A reduction block proven to compute C[..., i, j] += A[..., i, k] * B[..., k, j] (operands
// possibly cast; batch indices of an operand may be a constant 0, a broadcast): the positions
// of i, j and k among the block's iterators and of A and B among its reads.
struct MatmulPattern {
  size_t i_iter = 0, j_iter = 0, k_iter = 0;
  std::vector<size_t> batch_iters;
  tir::Buffer a, b, c;
  // B is indexed [.., j, k] (the transposed layout of a dense layer's weight).
  bool b_transposed = false;
};
std::optional<MatmulPattern> MatchMatmul(const tir::SBlock& block);

// The extent as a constant, or nullopt when symbolic.
std::optional<int64_t> ConstExtent(const ir::PrimExpr& extent);

}  // namespace wb::dlight
