// Matmul: C[.., i, j] += A[.., i, k] * B[.., k, j] with the elementwise blocks that follow it.
//
// The micro-kernel keeps an MR x (nv * lanes) tile of C in vector registers while k runs: per k,
// MR broadcasts of A and nv vector loads of B feed MR * nv FMAs. The tile is the one that keeps
// both FMA pipes busy (at least ~10 independent accumulators, since an FMA takes ~4 cycles) and
// fits the register file with the B vectors and a broadcast beside it (MR * nv + nv + 1 <=
// registers): 6 x 2 vectors (6 x 16 floats) with 16 ymm registers, 6 x 4 (6 x 64 floats) with 32
// zmm ones. j must be a multiple of the tile (a predicate across vector lanes would scalarize the
// kernel); i may be anything, symbolic included (the rows are padded to whole tiles, below).
//
// The schedule: B is packed first (PackB) when the row tiles re-read it often enough or it is
// transposed; the accumulation goes to a "local" cache (cache_write) whose write-back, with the
// epilogue blocks inlined into it (reverse_compute_inline), is computed at the column tile
// (reverse_compute_at); i and j are split into tiles, the row tiles outermost (with any batch
// loops, fused and parallel), the column tiles inside them, k inside the tile loops, the rows
// and vectors of the tile unrolled and its lanes vectorized; last, the init is decomposed out
// of the k loop. This is the shape of the hand schedule of bench_matmul (0.96x OpenBLAS).
#include <algorithm>
#include <cmath>

#include "dlight/cpu/rules.h"
#include "dlight/cpu/spatial.h"
#include "tir/index_map.h"

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
// Scored by the FMAs per cycle a core with two FMA pipes and two load ports sustains: per k the
// tile issues MR * nv FMAs, MR broadcasts and nv loads, and needs ~10 independent accumulators
// to cover the FMA latency; among equals, the tile with fewer loads per FMA.
std::optional<Tile> ChooseTile(std::optional<int64_t> m, int64_t n, int64_t lanes, int registers) {
  std::optional<Tile> best;
  double best_score = 0;
  for (int64_t nv = 1; nv <= 16; ++nv) {
    if (n % (nv * lanes) != 0) continue;
    for (int64_t mr = 1; mr <= 16; ++mr) {
      // One row uses each vector of B once (the load folds into the FMA): the accumulators and
      // the broadcast are all that must stay in registers. More rows keep B's vectors too.
      const int64_t needed = mr == 1 ? nv + 2 : mr * nv + nv + 1;
      if (needed > registers || (mr > 1 && nv > 8)) break;
      if (m && mr > *m) break;
      double acc = static_cast<double>(mr * nv);
      double loads = static_cast<double>(mr + nv);
      double cycles = std::max({acc / 2, loads / 2, 5.0});
      // Rows past the end cost a branch per row in the kernel.
      double remainder = (m && *m % mr != 0) ? 0.9 : 1.0;
      double score = acc / cycles * remainder + 0.01 * acc / loads;
      if (score > best_score + 1e-9) {
        best_score = score;
        best = Tile{mr, nv, lanes};
      }
    }
  }
  return best;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The row tiles from which B is packed: each row tile reads all of B once, and the copy costs
// about as much as one such read, strided.
constexpr int64_t kPackRowTiles = 4;

// Packs the matmul's B into panels of `cols` columns (cache_read + transform_layout: B[.., k, j]
// or B[.., j, k] becomes B_global[.., j // cols, k, j % cols]), so that the micro-kernel's loads
// of a row of a panel are one contiguous vector each and consecutive k are adjacent, instead of
// rows of B a whole row apart (which share a few cache sets when the row is a multiple of 4 KiB).
// The copy runs first, parallel over the panels. Returns the copy's block, or nullopt (nothing
// applied) when B's shape does not split into whole panels.
std::optional<SBlockRV> PackB(schedule::Schedule& sch, const SBlockRV& block, const MatmulPattern& pattern,
           int64_t cols, const CpuParams& params) {
  const tir::SBlock now = sch.Get(block);
  int read_index = -1;
  for (size_t r = 0; r < now->reads.size() && read_index < 0; ++r) {
    if (now->reads[r]->buffer.same_as(pattern.b)) read_index = static_cast<int>(r);
  }
  const size_t rank = pattern.b->shape.size();
  if (read_index < 0 || rank < 2) return std::nullopt;
  const size_t j_dim = pattern.b_transposed ? rank - 2 : rank - 1;
  const size_t k_dim = pattern.b_transposed ? rank - 1 : rank - 2;
  std::optional<int64_t> j_extent = ConstExtent(pattern.b->shape[j_dim]);
  if (!j_extent || *j_extent % cols != 0) return std::nullopt;
  std::string params_text, batch_text;
  for (size_t d = 0; d < rank; ++d) {
    params_text += (d ? ", " : "") + std::string("d") + std::to_string(d);
    if (d + 2 < rank) batch_text += "d" + std::to_string(d) + ", ";
  }
  const std::string jv = "d" + std::to_string(j_dim), kv = "d" + std::to_string(k_dim);
  const std::string c = std::to_string(cols);
  std::string text = "lambda " + params_text + ": (" + batch_text + jv + " // " + c + ", " + kv +
                     ", " + jv + " % " + c + ")";
  std::string error;
  size_t offset = 0;
  tir::IndexMap map = tir::ParseIndexMapLambda(text, pattern.b->shape[0]->dtype, &error, &offset);
  if (!map.defined()) return std::nullopt;

  SBlockRV packed = sch.CacheRead(block, read_index, "global");
  sch.TransformLayout(packed, std::pair<std::string, int64_t>{"write", 0}, map);
  std::vector<LoopRV> loops = sch.GetLoops(packed);
  if (loops.size() != rank) return packed;  // packed, its copy left as cache_read made it
  std::optional<int64_t> elements = LoopElements(sch, loops);
  std::vector<LoopRV> panel = sch.Split(loops[j_dim], {std::nullopt, cols});
  std::vector<LoopRV> outer(loops.begin(), loops.begin() + static_cast<long>(rank - 2));
  outer.push_back(panel[0]);
  sch.Reorder({panel[0], loops[k_dim], panel[1]});
  // A panel row is written whole; read from a row-major B it is one contiguous run too.
  const int64_t lanes = params.Lanes(pattern.b->dtype);
  if (!pattern.b_transposed && lanes > 1 && cols % lanes == 0) {
    sch.Vectorize(cols > lanes ? sch.Split(panel[1], {std::nullopt, lanes})[1] : panel[1]);
  }
  if (!elements || *elements >= kMinParallelElements) {
    if (LoopElements(sch, outer)) {
      sch.Parallel(outer.size() == 1 ? outer[0] : sch.Fuse(outer));
    } else {
      sch.Parallel(panel[0]);
    }
  }
  return packed;
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
  if (!mm) return std::nullopt;
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
  const int64_t lanes = params.Lanes(dtype);
  std::optional<Tile> tile = ChooseTile(m, *n, lanes, params.vector_registers);
  // Columns that are no whole number of vectors (a classifier's 10 outputs) are padded to one:
  // the kernel computes the padded columns from zero-padded columns of B and the write-back
  // drops them. Not when the padding would be most of the work (N below half a vector).
  bool pad_columns = false;
  if (!tile && lanes > 1 && *n * 2 > lanes) {
    tile = ChooseTile(m, CeilDiv(*n, lanes) * lanes, lanes, params.vector_registers);
    pad_columns = tile.has_value();
  }
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
  // Rows that do not fill the last tile would put a branch per row into the k loop, and LLVM
  // keeps predicated accumulators in memory (a 64x784x256 matmul over symbolic rows took 2 ms
  // instead of 0.3): the rows are padded to whole tiles instead (pad_einsum: A copied into
  // zero-padded rows, once per call, and C computed padded, its padded buffer the tile's
  // registers). Symbolic rows are always padded (to ceil(n / MR) * MR; at n = 1 the tile
  // computes MR rows, still one pass over B). Where padding does not apply, the rows past the
  // end stay predicated.
  std::optional<SBlockRV> padded_write_back;
  const bool pad_rows = !m || (*m % tile->rows != 0 && *m > tile->rows);
  if (pad_rows || pad_columns) {
    std::vector<int64_t> padding(iters.size(), 1);
    if (pad_rows) padding[pattern->i_iter] = tile->rows;
    if (pad_columns) padding[pattern->j_iter] = lanes;
    try {
      sch.PadEinsum(block, padding);
      // The copy of the rows that exist out of the padded C is the write-back of the tile.
      std::vector<SBlockRV> copy = sch.GetConsumers(block);
      if (copy.size() != 1) return std::nullopt;
      sch.SetScope(block, 0, "local");
      padded_write_back = copy[0];
    } catch (const schedule::ScheduleError&) {
      if (pad_columns) return std::nullopt;
    }
  }
  // What the matmul reads now: an inlined transpose changes B's buffer and its layout.
  std::optional<MatmulPattern> reads = MatchMatmul(sch.Get(block));
  if (!reads) return std::nullopt;
  // B is packed when it is read often enough to pay for the copy, and always when transposed
  // (the kernel's vector loads need B's columns contiguous).
  const bool pack = reads->b_transposed || (m && CeilDiv(*m, tile->rows) >= kPackRowTiles);
  std::optional<SBlockRV> packed;
  if (pack && !(packed = PackB(sch, block, *reads, tile->cols(), params))) return std::nullopt;

  SBlockRV write_back =
      padded_write_back ? *padded_write_back : sch.CacheWrite(block, 0, "local");
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
  // Row tiles outside column tiles: a tile's rows of A stay in L1 while the panels of B stream
  // by (packed, each is one contiguous K x cols block), and each thread owns whole row tiles.
  std::vector<LoopRV> order = {is[0], js[0], k, is[1]};
  order.insert(order.end(), js.begin() + 1, js.end());
  sch.Reorder(order);
  std::vector<LoopRV> outer(loops.begin(), loops.begin() + static_cast<long>(pattern->i_iter));
  outer.push_back(is[0]);
  // Fused, the batch and row-tile loops are one parallel loop; with a symbolic one they stay
  // apart, since a fused symbolic loop would drive several iterators at once, which the affine
  // analysis cannot prove: the row tiles alone are parallel then (or the batch, when the rows
  // are few and known).
  bool symbolic = !LoopElements(sch, outer).has_value();
  LoopRV parallel = !symbolic ? (outer.size() == 1 ? outer[0] : sch.Fuse(outer))
                              : (!m ? is[0] : outer.front());
  sch.ReverseComputeAt(write_back, js[0]);
  sch.Unroll(is[1]);
  if (tile->vectors > 1) sch.Unroll(js[1]);
  sch.Vectorize(js.back());
  std::vector<LoopRV> stage_loops = sch.GetLoops(write_back);
  while (!stage_loops.empty() && sch.Get(stage_loops.front()).get() != sch.Get(js[0]).get()) {
    stage_loops.erase(stage_loops.begin());
  }
  stage_loops.erase(stage_loops.begin());  // the column-tile loop
  ScheduleSpatialLoops(sch, stage_loops, sch.Get(write_back)->writes[0]->buffer->dtype, params,
                       /*parallel=*/false);
  // The zero-padded copy of A's rows is made by each row tile for its own rows, inside the
  // parallel loop: no pass of its own over A (a parallel region of its own, and for sgemm 1024
  // 4 MiB through memory), and the tile's rows are in cache when the kernel reads them.
  std::optional<std::string> a_copy;
  if (pad_rows && reads->a.defined()) {
    for (const SBlockRV& p : sch.GetProducers(block)) {
      const tir::SBlock pb = sch.Get(p);
      if (pb->writes.size() != 1 || !pb->writes[0]->buffer.same_as(reads->a)) continue;
      try {
        sch.ComputeAt(p, parallel);
      } catch (const schedule::ScheduleError&) {
        break;
      }
      std::vector<LoopRV> below = sch.GetLoops(p);
      while (!below.empty() && sch.Get(below.front()).get() != sch.Get(parallel).get()) {
        below.erase(below.begin());
      }
      if (!below.empty()) below.erase(below.begin());
      ScheduleSpatialLoops(sch, below, reads->a->dtype, params, /*parallel=*/false);
      a_copy = pb->name_hint;
      break;
    }
  }
  if (worth_threads) sch.Parallel(parallel);
  // Last: loop kinds need the reduction whole (compact dataflow); the init's loops are copies
  // of the tile's, kinds included, so it comes out unrolled and vectorized too.
  SBlockRV init = sch.DecomposeReduction(block, k);

  // Blocks after the matmul that did not join the epilogue.
  for (const BlockInfo& b : GetBlockInfos(sch)) {
    if (b.name == sch.Get(block)->name_hint || b.name == sch.Get(init)->name_hint ||
        b.name == sch.Get(write_back)->name_hint ||
        (packed && b.name == sch.Get(*packed)->name_hint) || (a_copy && b.name == *a_copy)) {
      continue;
    }
    if (b.IsSpatial() && b.simple_nest) ScheduleSpatialLoops(sch, b.loops, b.WidestDType(), params);
  }
  return sch;
}

}  // namespace

ScheduleRule Matmul() { return {"Matmul", Apply}; }

}  // namespace wb::dlight::cpu
