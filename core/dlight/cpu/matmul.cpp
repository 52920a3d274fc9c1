// Matmul: C[.., i, j] += A[.., i, k] * B[.., k, j] with the elementwise blocks that follow it.
//
// The micro-kernel keeps an MR x (nv * lanes) tile of C in vector registers while k runs: per k,
// MR broadcasts of A and nv vector loads of B feed MR * nv FMAs. The tile is the one that keeps
// both FMA pipes busy (at least ~10 independent accumulators, since an FMA takes ~4 cycles) and
// fits the register file with the B vectors and a broadcast beside it (MR * nv + nv + 1 <=
// registers): 6 x 2 vectors (6 x 16 floats) with 16 ymm registers, 6 x 4 (6 x 64 floats) with 32
// zmm ones. j must be a multiple of the tile (a predicate across vector lanes would scalarize the
// kernel); i may be anything, symbolic included (the rows past the end are masked by a
// per-row predicate outside the vector lanes).
//
// The schedule: the accumulation goes to a "local" cache (cache_write) whose write-back, with
// the epilogue blocks inlined into it (reverse_compute_inline), is computed at the tile
// (reverse_compute_at); i and j are split into tiles, k runs inside the tile loops, the rows and
// vectors of the tile are unrolled and its lanes vectorized; the tile loops (with any batch
// loops) are fused and parallel; last, the init is decomposed out of the k loop.
#include <algorithm>
#include <cmath>

#include "dlight/cpu/rules.h"
#include "dlight/cpu/spatial.h"

namespace wb::dlight::cpu {

namespace {

using schedule::LoopRV;
using schedule::SBlockRV;

struct Tile {
  int64_t rows = 0;     // MR
  int64_t vectors = 0;  // nv
  int64_t lanes = 0;    // elements per vector
  int64_t cols() const { return vectors * lanes; }
};

// The register tile for an M x N output (M nullopt: symbolic), or nullopt when N admits none.
std::optional<Tile> ChooseTile(std::optional<int64_t> m, int64_t n, int64_t lanes, int registers) {
  std::optional<Tile> best;
  double best_score = 0;
  for (int64_t nv = 1; nv <= 8; ++nv) {
    if (n % (nv * lanes) != 0) continue;
    for (int64_t mr = 1; mr <= 16; ++mr) {
      if (mr * nv + nv + 1 > registers) break;
      if (m && mr > *m) break;
      double acc = static_cast<double>(mr * nv);
      // FMA throughput: latency-bound below ~10 accumulators, load-bound when the
      // broadcasts and loads outnumber the FMAs.
      double efficiency = acc / std::max({acc, static_cast<double>(mr + nv), 10.0});
      // Rows past the end cost a branch per row in the kernel.
      double remainder = (m && *m % mr != 0) ? 0.9 : 1.0;
      double score = efficiency * acc * remainder;
      if (score > best_score + 1e-9) {
        best_score = score;
        best = Tile{mr, nv, lanes};
      }
    }
  }
  return best;
}

std::optional<schedule::Schedule> Apply(const tir::PrimFunc& func, const codegen::Target& target) {
  schedule::Schedule sch(SingleFunctionModule(func));
  std::vector<BlockInfo> blocks = GetBlockInfos(sch);
  const BlockInfo* mm = nullptr;
  std::optional<MatmulPattern> pattern;
  for (const BlockInfo& b : blocks) {
    if (!b.simple_nest || !b.IsReduction()) continue;
    if (auto p = MatchMatmul(b.block)) {
      if (mm) return std::nullopt;  // two matmuls: each wants the whole machine
      mm = &b;
      pattern = p;
    }
  }
  if (!mm || pattern->b_transposed) return std::nullopt;
  // Every other block must be one the epilogue or the fallback loop schedule handles.
  for (const BlockInfo& b : blocks) {
    if (&b != mm && (!b.IsSpatial() || !b.simple_nest)) return std::nullopt;
  }
  const auto& iters = mm->block->iter_vars;
  // The loops drive the iterators in order; the reduction must be innermost.
  if (pattern->k_iter != iters.size() - 1 || pattern->j_iter != iters.size() - 2 ||
      pattern->i_iter != iters.size() - 3) {
    return std::nullopt;
  }
  std::optional<int64_t> n = ConstExtent(iters[pattern->j_iter]->dom->extent);
  std::optional<int64_t> m = ConstExtent(iters[pattern->i_iter]->dom->extent);
  if (!n) return std::nullopt;
  CpuParams params = CpuParamsOf(target);
  ir::DataType dtype = pattern->c->dtype;
  std::optional<Tile> tile = ChooseTile(m, *n, params.Lanes(dtype), params.vector_registers);
  if (!tile) return std::nullopt;

  // Producers before the matmul (a cast, a transpose of an operand) are inlined into it.
  for (const BlockInfo& b : blocks) {
    if (&b == mm) break;
    try {
      sch.ComputeInline(b.rv);
    } catch (const schedule::ScheduleError&) {
    }
  }

  SBlockRV block = mm->rv;
  SBlockRV write_back = sch.CacheWrite(block, 0, "local");
  // The epilogue: each elementwise consumer of the result goes into the write-back.
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
  // A small product is done before a thread pool would have woken (the bundled MLP's 8x32x64
  // took 10x longer parallel): such a kernel runs on the calling thread.
  std::optional<int64_t> work = LoopElements(sch, loops);
  const bool worth_threads = !work || *work >= kMinParallelMultiplyAdds;
  LoopRV i = loops[pattern->i_iter], j = loops[pattern->j_iter], k = loops[pattern->k_iter];
  std::vector<LoopRV> is = sch.Split(i, {std::nullopt, tile->rows});
  std::vector<LoopRV> js = tile->vectors > 1
                               ? sch.Split(j, {std::nullopt, tile->vectors, tile->lanes})
                               : sch.Split(j, {std::nullopt, tile->lanes});
  // Column tiles outside row tiles: consecutive tiles (and each thread's chunk of them) reuse
  // one K x cols panel of B from the L2 cache while the rows of A stream by.
  std::vector<LoopRV> order = {js[0], is[0], k, is[1]};
  order.insert(order.end(), js.begin() + 1, js.end());
  sch.Reorder(order);
  std::vector<LoopRV> outer(loops.begin(), loops.begin() + static_cast<long>(pattern->i_iter));
  outer.push_back(js[0]);
  outer.push_back(is[0]);
  // Fused, the tile loops are one parallel loop; a symbolic one (rows `n`) stays apart, since a
  // fused symbolic loop would drive several iterators at once, which the affine analysis cannot
  // prove, and the rows alone are parallel.
  bool symbolic = !LoopElements(sch, outer).has_value();
  LoopRV tiles = symbolic ? outer.back() : sch.Fuse(outer);
  LoopRV parallel = symbolic ? outer.front() : tiles;
  sch.ReverseComputeAt(write_back, tiles);
  sch.Unroll(is[1]);
  if (tile->vectors > 1) sch.Unroll(js[1]);
  sch.Vectorize(js.back());
  std::vector<LoopRV> stage_loops = sch.GetLoops(write_back);
  while (!stage_loops.empty() && sch.Get(stage_loops.front()).get() != sch.Get(tiles).get()) {
    stage_loops.erase(stage_loops.begin());
  }
  stage_loops.erase(stage_loops.begin());  // the tile loop
  ScheduleSpatialLoops(sch, stage_loops, sch.Get(write_back)->writes[0]->buffer->dtype, params,
                       /*parallel=*/false);
  if (worth_threads) sch.Parallel(parallel);
  // Last: loop kinds need the reduction whole (compact dataflow); the init's loops are copies
  // of the tile's, kinds included, so it comes out unrolled and vectorized too.
  SBlockRV init = sch.DecomposeReduction(block, k);

  // Blocks after the matmul that did not join the epilogue.
  for (const BlockInfo& b : GetBlockInfos(sch)) {
    if (b.name == sch.Get(block)->name_hint || b.name == sch.Get(init)->name_hint ||
        b.name == sch.Get(write_back)->name_hint) {
      continue;
    }
    if (b.IsSpatial() && b.simple_nest) ScheduleSpatialLoops(sch, b.loops, b.WidestDType(), params);
  }
  return sch;
}

}  // namespace

ScheduleRule Matmul() { return {"Matmul", Apply}; }

}  // namespace wb::dlight::cpu
