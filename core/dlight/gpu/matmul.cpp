// Matmul (GPU): C[.., i, j] += A[.., i, k] * B[.., k, j], every extent static, with the
// elementwise blocks that follow it.
//
// A thread block of ty x tx threads computes a (ty * ri) x (tx * rj) tile of C; each thread
// accumulates its ri x rj part in registers (a "local" cache of C, computed at the thread and
// written back through the epilogue blocks), reading A and B from global memory (through the
// caches) while k runs. The tile sizes divide the extents: the largest of 16x16 threads with
// 4x4 registers down to one thread that does. Batch loops are fused over blockIdx.z.
//
// Not done yet: staging A's and B's k slices in shared memory (a cooperative fetch needs
// compute_at to relax a shared buffer's region over the block's threads, which the schedule's
// region analysis does not do), so this tile reuses operands through L1/L2 only.
#include <algorithm>

#include "dlight/analysis.h"
#include "dlight/gpu/rules.h"

namespace wb::dlight::gpu {

namespace {

using schedule::LoopRV;
using schedule::SBlockRV;

struct Split2 {
  int64_t threads = 1;
  int64_t regs = 1;
};

// The threads and registers along a spatial extent: the first pair, in order of preference,
// whose product divides it.
Split2 ChooseSplit(int64_t extent) {
  static const Split2 kChoices[] = {{16, 4}, {16, 2}, {8, 4}, {16, 1}, {8, 2}, {8, 1},
                                    {4, 2}, {4, 1}, {2, 1}, {1, 1}};
  for (const Split2& s : kChoices) {
    if (extent % (s.threads * s.regs) == 0) return s;
  }
  return {};
}

int64_t ChooseKStep(int64_t k) {
  for (int64_t kt : {16, 8, 4, 2}) {
    if (k % kt == 0) return kt;
  }
  return 1;
}

std::optional<schedule::Schedule> Apply(const tir::PrimFunc& func, const codegen::Target&) {
  schedule::Schedule sch(SingleFunctionModule(func));
  std::vector<BlockInfo> blocks = GetBlockInfos(sch);
  const BlockInfo* mm = nullptr;
  std::optional<MatmulPattern> pattern;
  for (const BlockInfo& b : blocks) {
    if (!b.simple_nest || !b.IsReduction()) continue;
    if (auto p = MatchMatmul(b.block)) {
      if (mm) return std::nullopt;
      mm = &b;
      pattern = p;
    }
  }
  if (!mm || pattern->b_transposed) return std::nullopt;
  for (const BlockInfo& b : blocks) {
    if (&b != mm && (!b.IsSpatial() || !b.simple_nest)) return std::nullopt;
  }
  // Only a matmul followed by its epilogue: producers before it would need kernels of their own.
  if (&blocks.front() != mm) return std::nullopt;
  const auto& iters = mm->block->iter_vars;
  if (pattern->k_iter != iters.size() - 1 || pattern->j_iter != iters.size() - 2 ||
      pattern->i_iter != iters.size() - 3) {
    return std::nullopt;
  }
  std::optional<int64_t> m = ConstExtent(iters[pattern->i_iter]->dom->extent);
  std::optional<int64_t> n = ConstExtent(iters[pattern->j_iter]->dom->extent);
  std::optional<int64_t> k = ConstExtent(iters[pattern->k_iter]->dom->extent);
  if (!m || !n || !k) return std::nullopt;
  for (size_t b = 0; b < pattern->i_iter; ++b) {
    if (!ConstExtent(iters[b]->dom->extent)) return std::nullopt;
  }
  const Split2 si = ChooseSplit(*m), sj = ChooseSplit(*n);
  const int64_t kt = ChooseKStep(*k);

  SBlockRV block = mm->rv;
  SBlockRV write_back = sch.CacheWrite(block, 0, "local");
  for (;;) {
    std::vector<SBlockRV> consumers = sch.GetConsumers(write_back);
    if (consumers.size() != 1) break;
    try {
      sch.ReverseComputeInline(consumers[0]);
    } catch (const schedule::ScheduleError&) {
      break;
    }
  }

  std::vector<LoopRV> loops = sch.GetLoops(block);
  std::vector<LoopRV> is = sch.Split(loops[pattern->i_iter], {std::nullopt, si.threads, si.regs});
  std::vector<LoopRV> js = sch.Split(loops[pattern->j_iter], {std::nullopt, sj.threads, sj.regs});
  std::vector<LoopRV> ks = sch.Split(loops[pattern->k_iter], {std::nullopt, kt});
  sch.Reorder({is[0], js[0], is[1], js[1], ks[0], ks[1], is[2], js[2]});
  sch.Unroll(ks[1]);
  std::vector<LoopRV> batch(loops.begin(), loops.begin() + static_cast<long>(pattern->i_iter));
  if (!batch.empty()) sch.Bind(batch.size() == 1 ? batch[0] : sch.Fuse(batch), "blockIdx.z");
  sch.Bind(is[0], "blockIdx.y");
  sch.Bind(js[0], "blockIdx.x");
  sch.Bind(is[1], "threadIdx.y");
  sch.Bind(js[1], "threadIdx.x");
  sch.ReverseComputeAt(write_back, js[1]);
  sch.Unroll(is[2]);
  sch.Unroll(js[2]);
  sch.DecomposeReduction(block, ks[0]);
  // Blocks after the matmul that did not join the epilogue get the elementwise binding.
  for (const BlockInfo& b : GetBlockInfos(sch)) {
    bool bound = false;
    for (const LoopRV& l : b.loops) bound |= sch.Get(l)->kind == tir::ForKind::kThreadBinding;
    if (bound || b.loops.empty()) continue;
    LoopRV fused = b.loops.size() == 1 ? b.loops[0] : sch.Fuse(b.loops);
    std::optional<int64_t> extent = ConstExtent(sch.Get(fused)->extent);
    if (!extent) return std::nullopt;
    std::vector<LoopRV> split = sch.Split(fused, {std::nullopt, std::min(kThreadsPerBlock, *extent)});
    sch.Bind(split[0], "blockIdx.x");
    sch.Bind(split[1], "threadIdx.x");
  }
  return sch;
}

}  // namespace

ScheduleRule Matmul() { return {"Matmul", Apply}; }

}  // namespace wb::dlight::gpu
