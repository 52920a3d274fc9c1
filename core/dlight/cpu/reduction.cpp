// Reduction: functions of row-wise reductions and the elementwise stages around them (softmax,
// log_softmax, layer_norm, rms_norm, sum/mean/max over the last axis), where every reduction has
// the same leading data-parallel iterators (the rows), its reduction iterators innermost, and
// reads its inputs at plain iterators (not windows: convolutions and pooling are not rows), and
// not contiguously along an output axis (a sum over a leading axis, or over (h, w) of NHWC: the
// Fallback vectorizes those along the output).
//
// Each row is computed by one task: the rows of the last block are fused and parallel, every
// other block is computed at that loop (compute_at), so a row's stages run back to back while
// the row is in cache and its intermediates shrink to one row. A reduction whose extent is a
// multiple of the vector width (and at least two vectors) is factored over a vector-width split
// (rfactor): the lanes accumulate in a vector, reassociating the sum (or max) as the schedule
// says, and the lanes are combined once per row; a reduction over several trailing axes that
// every input reads whole (a mean over (h, w)) has its loops fused into that one axis first.
// A reduction of several values at once (group_norm's and layer_norm's sum and sum of squares,
// argmax's index and value) keeps its reduction loops serial in the row: rfactor takes one
// buffer. Elementwise stages get the spatial loop schedule inside the row.
//
// GEMV (batch 1: a dense layer with its weight [N, K], a matmul (N, K) x (K,)) is the same
// schedule on a matrix-vector product whose reduction axis is the matrix's contiguous one: one
// output element per row, the row's K products summed in vector lanes (rfactor), the epilogue
// computed at the row; it goes parallel by its multiply-adds (N x K), not by its N outputs, and
// computes 4 rows at a time where N allows (each vector of the vector operand feeds the 4 rows'
// accumulators: 4 streams through the matrix and 4x the independent multiply-adds). A
// GEMV whose contiguous axis is the output's ((1, K) x (K, N)) is the Matmul rule's register
// tile of one row: k outside, the output vectorized.
#include <algorithm>
#include <set>

#include "dlight/cpu/rules.h"
#include "dlight/cpu/spatial.h"
#include "ir/structural_equal.h"
#include "schedule/ir_path.h"
#include "tir/functor.h"

namespace wb::dlight::cpu {

namespace {

using schedule::LoopRV;
using schedule::SBlockRV;

size_t DataParCount(const BlockInfo& b) {
  return static_cast<size_t>(std::count_if(
      b.block->iter_vars.begin(), b.block->iter_vars.end(),
      [](const tir::IterVar& iv) { return iv->iter_type == tir::IterVarType::kDataPar; }));
}

// Whether the block reads each element at plain iterators (or constants), or (`grouped`) at a
// group's `p * G + k` (a data-parallel p, a reduction k over the G elements of its group:
// group_norm's channels): a row reduction, each element read once. A windowed one (a
// convolution, a pooling: `pad[.., y + ry, x + rx]`) reads overlapping windows of its producer;
// computed at each output point, the producer would be recomputed per window. (A pooling whose
// stride is its window reads `p * G + k` too: `grouped` only where a later stage reads the
// results per group, which a pooling's stages do not.)
bool ReadsAtIterators(const tir::SBlock& block, bool grouped_reads) {
  auto iter = [&](const ir::PrimExpr& e) -> const tir::IterVar* {
    for (const tir::IterVar& iv : block->iter_vars) {
      if (e.same_as(iv->var)) return &iv;
    }
    return nullptr;
  };
  auto grouped = [&](const ir::PrimExpr& e) {
    const auto* add = e.as<tir::AddNode>();
    const auto* mul = add ? add->a.as<tir::MulNode>() : nullptr;
    if (!mul) return false;
    const tir::IterVar* p = iter(mul->a);
    const tir::IterVar* k = iter(add->b);
    const int64_t* g = tir::AsConstInt(mul->b);
    return p && k && g && (*p)->iter_type == tir::IterVarType::kDataPar &&
           (*k)->iter_type == tir::IterVarType::kCommReduce && tir::IsConstInt((*k)->dom->min, 0) &&
           tir::IsConstInt((*k)->dom->extent, *g);
  };
  for (const tir::BufferRegion& read : block->reads) {
    for (const ir::Range& range : read->region) {
      if (!tir::IsConstInt(range->extent, 1)) return false;
      if (tir::AsConstInt(range->min) || iter(range->min)) continue;
      if (grouped_reads && grouped(range->min)) continue;
      return false;
    }
  }
  return true;
}

// For each row dimension d of the reductions' results, the group size G where `block` reads
// them at `i // G` of its iterator i bound to loop d (group_norm's statistics, one per group of
// channels), else 1: the row loop is then split by G and its outer part is the row.
std::vector<int64_t> RowGroups(const BlockInfo& block, const std::set<const tir::BufferNode*>& results,
                               size_t rows) {
  std::vector<int64_t> groups(rows, 1);
  tir::PostOrderVisit(block.block->body, [&](const ir::Object* n) {
    const auto* load = schedule::NodeAs<tir::BufferLoadNode>(n);
    if (!load || !results.count(load->buffer.get())) return;
    for (size_t d = 0; d < std::min(rows, load->indices.size()); ++d) {
      const auto* div = load->indices[d].as<tir::FloorDivNode>();
      const int64_t* g = div ? tir::AsConstInt(div->b) : nullptr;
      if (g && *g > 1 && div->a.same_as(block.block->iter_vars[d]->var)) groups[d] = *g;
    }
  });
  return groups;
}

// The block's loops below `outer`.
std::vector<LoopRV> LoopsBelow(schedule::Schedule& sch, const SBlockRV& block,
                               const LoopRV& outer) {
  std::vector<LoopRV> loops = sch.GetLoops(block);
  const tir::ForNode* target = sch.Get(outer).get();
  for (size_t k = 0; k < loops.size(); ++k) {
    if (sch.Get(loops[k]).get() == target)
      return {loops.begin() + static_cast<long>(k) + 1, loops.end()};
  }
  throw std::invalid_argument("block is not under the row loop");
}

// The iterators (positions among the block's) the region's indices use.
std::set<size_t> ItersOf(const tir::SBlock& block, const tir::BufferRegion& region) {
  std::set<size_t> used;
  for (const ir::Range& range : region->region) {
    for (size_t k = 0; k < block->iter_vars.size(); ++k) {
      if (range->min.same_as(block->iter_vars[k]->var)) used.insert(k);
    }
  }
  return used;
}

// Whether the block (a reduction reading at iterators) is a matrix-vector product with its
// reduction axis contiguous: one reduction iterator k; two inputs, the matrix indexed last by k
// and by the output's iterators, the vector by k and iterators of extent 1 only (batch 1).
bool IsContiguousGemv(const BlockInfo& b) {
  const tir::SBlock& block = b.block;
  std::optional<size_t> k;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (block->iter_vars[i]->iter_type != tir::IterVarType::kCommReduce) continue;
    if (k) return false;
    k = i;
  }
  if (!k) return false;
  const tir::Buffer& out = block->writes[0]->buffer;
  std::vector<tir::BufferRegion> inputs;
  for (const tir::BufferRegion& read : block->reads) {
    if (!read->buffer.same_as(out)) inputs.push_back(read);
  }
  if (inputs.size() != 2) return false;
  auto unit = [&](size_t i) { return tir::IsConstInt(block->iter_vars[i]->dom->extent, 1); };
  for (size_t m = 0; m < 2; ++m) {
    const tir::BufferRegion& matrix = inputs[m];
    const tir::BufferRegion& vector = inputs[1 - m];
    if (matrix->region.empty() || !matrix->region.back()->min.same_as(block->iter_vars[*k]->var))
      continue;
    std::set<size_t> mi = ItersOf(block, matrix), vi = ItersOf(block, vector);
    if (!vi.count(*k)) continue;
    bool vector_ok = std::all_of(vi.begin(), vi.end(), [&](size_t i) { return i == *k || unit(i); });
    // The matrix has a row per output element: it uses every iterator the output does not
    // leave at extent 1.
    bool rows_ok = mi.size() >= 2;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (i != *k && !unit(i) && !mi.count(i)) rows_ok = false;
    }
    if (vector_ok && rows_ok) return true;
  }
  return false;
}

// Whether every input of the reduction block (its iterators past the first `rows` all reduction
// ones, each driven by its own loop) reads them, in order, as its trailing dimensions, and all
// of each but the outermost (a mean over (h, w) of an NCHW tensor): the reduction's loops fused
// then walk each input contiguously, one axis of whole vectors.
bool ReadsTrailingWhole(const BlockInfo& b, size_t rows) {
  const tir::SBlock& block = b.block;
  const size_t n = block->iter_vars.size();
  if (n < rows + 2 || b.loops.size() != n) return false;
  const tir::Buffer& out = block->writes[0]->buffer;
  for (const tir::BufferRegion& read : block->reads) {
    if (read->buffer.same_as(out)) continue;
    const auto& region = read->region;
    if (region.size() < n - rows) return false;
    for (size_t k = rows; k < n; ++k) {
      const tir::IterVar& iv = block->iter_vars[k];
      const size_t dim = region.size() - (n - k);
      if (!region[dim]->min.same_as(iv->var) || !tir::IsConstInt(region[dim]->extent, 1))
        return false;
      if (k > rows && !ir::StructuralEqual(read->buffer->shape[dim], iv->dom->extent))
        return false;
    }
  }
  return true;
}

// Whether every input of the reduction block reads its innermost non-unit data-parallel iterator
// as its last (contiguous) dimension (a sum over (h, w) of an NHWC tensor, a softmax over a
// leading axis): its rows' elements are strided, and the contiguous axis is an output one (the
// Fallback's vector, with the reduction outside it).
bool ReadsAlongOutputAxis(const BlockInfo& b) {
  const tir::SBlock& block = b.block;
  const tir::IterVar* inner = nullptr;
  for (const tir::IterVar& iv : block->iter_vars) {
    if (iv->iter_type == tir::IterVarType::kDataPar && !tir::IsConstInt(iv->dom->extent, 1))
      inner = &iv;
  }
  if (!inner) return false;
  const tir::Buffer& out = block->writes[0]->buffer;
  bool any = false;
  for (const tir::BufferRegion& read : block->reads) {
    if (read->buffer.same_as(out)) continue;
    if (read->region.empty() || !read->region.back()->min.same_as((*inner)->var)) return false;
    any = true;
  }
  return any;
}

enum class Kind { kRows, kGemv };

// A last stage that only copies an intermediate written by another data-parallel stage (TVM's
// group_norm reshapes its (n, groups, channels of a group, ..) result back to (n, c, ..)) is
// reverse-inlined into that stage: the rows are then the reductions' own, not the copy's (whose
// channel row would recompute its group's statistics for each channel of the group). Returns
// whether it inlined one.
bool InlineTrailingCopy(schedule::Schedule& sch) {
  std::vector<BlockInfo> blocks = GetBlockInfos(sch);
  if (blocks.size() < 2) return false;
  const BlockInfo& last = blocks.back();
  const auto* store = last.block->body.as<tir::BufferStoreNode>();
  const auto* load = store ? store->value.as<tir::BufferLoadNode>() : nullptr;
  if (!last.IsSpatial() || !load || last.block->reads.size() != 1) return false;
  const BlockInfo* producer = nullptr;
  for (const BlockInfo& b : blocks) {
    for (const tir::BufferRegion& w : b.block->writes) {
      if (w->buffer.same_as(load->buffer)) producer = &b;
    }
  }
  if (!producer || !producer->IsSpatial()) return false;
  try {
    sch.ReverseComputeInline(last.rv);
  } catch (const schedule::ScheduleError&) {
    return false;
  }
  return true;
}

// The vector accumulators of a long row's reduction (a power of two). Each costs a combine of
// its lanes per row: 4 were slower than 2 on softmax 4096^2 (0.77x against 0.84x of the
// hand-written loop, thread CPU time, AMD EPYC with AVX-512).
constexpr int64_t kVectorAccumulators = 2;
// The rows of a GEMV computed together (its register tile: rows x the reduction's vectors).
constexpr int64_t kGemvRows = 4;

std::optional<schedule::Schedule> ApplyRows(const tir::PrimFunc& func, const codegen::Target& target,
                                            Kind kind, bool inline_trailing_copy = false) {
  schedule::Schedule sch(SingleFunctionModule(func));
  if (inline_trailing_copy && !InlineTrailingCopy(sch)) return std::nullopt;
  std::vector<BlockInfo> blocks = GetBlockInfos(sch);
  if (blocks.empty()) return std::nullopt;
  std::optional<size_t> rows_rank;
  size_t gemvs = 0, reductions = 0;
  // Whether the reductions have the same rows (data-parallel iterators) counted without their
  // trailing unit ones, e.g. variance's mean kept as (n, 1) beside its sum of squares over (n,):
  // those rows then are the first `unit_rows` iterators, and the unit ones are computed inside.
  std::optional<size_t> unit_rows;
  bool same_unit_rows = true;
  auto leading_rows = [](const BlockInfo& b) -> std::optional<size_t> {
    const auto& iters = b.block->iter_vars;
    size_t k = 0;
    while (k < iters.size() && iters[k]->iter_type == tir::IterVarType::kDataPar &&
           !tir::IsConstInt(iters[k]->dom->extent, 1))
      ++k;
    for (size_t j = k; j < iters.size(); ++j) {
      if (iters[j]->iter_type == tir::IterVarType::kDataPar && !tir::IsConstInt(iters[j]->dom->extent, 1))
        return std::nullopt;
    }
    return k;
  };
  bool mixed_rows = false;
  // Whether a stage reads the reductions' results per group of its rows.
  bool grouped = false;
  {
    std::set<const tir::BufferNode*> results;
    for (const BlockInfo& b : blocks) {
      if (b.IsSpatial()) {
        std::vector<int64_t> groups = RowGroups(b, results, b.block->iter_vars.size());
        grouped |= std::any_of(groups.begin(), groups.end(), [](int64_t g) { return g > 1; });
      } else {
        for (const tir::BufferRegion& w : b.block->writes) results.insert(w->buffer.get());
      }
    }
  }
  for (const BlockInfo& b : blocks) {
    if (!b.simple_nest) return std::nullopt;
    if (b.IsSpatial()) continue;
    if (!b.IsReduction() || !b.ReductionInnermost() || !ReadsAtIterators(b.block, grouped) ||
        (kind == Kind::kRows && ReadsAlongOutputAxis(b)))
      return std::nullopt;
    ++reductions;
    if (kind == Kind::kGemv) {
      if (!IsContiguousGemv(b)) return std::nullopt;
      ++gemvs;
    } else if (MatchMatmul(b.block)) {
      return std::nullopt;
    }
    size_t p = DataParCount(b);
    if (p == 0) return std::nullopt;
    if (rows_rank && *rows_rank != p) mixed_rows = true;
    rows_rank = p;
    std::optional<size_t> u = leading_rows(b);
    if (!u || *u == 0 || (unit_rows && *unit_rows != *u)) same_unit_rows = false;
    if (u) unit_rows = *u;
  }
  if (mixed_rows) {
    if (!same_unit_rows || kind == Kind::kGemv) return std::nullopt;
    rows_rank = unit_rows;
  }
  if (!rows_rank || (kind == Kind::kGemv && (gemvs != 1 || reductions != 1))) return std::nullopt;
  for (const BlockInfo& b : blocks) {
    if (b.block->iter_vars.size() < *rows_rank) return std::nullopt;
  }
  CpuParams params = CpuParamsOf(target);
  // The work on the rows: a GEMV's multiply-adds (its rows are few, each long), else the
  // elements of the widest stage.
  std::optional<int64_t> work;
  bool parallel = false;
  if (kind == Kind::kGemv) {
    for (const BlockInfo& b : blocks) {
      if (!b.IsSpatial()) work = LoopElements(sch, b.loops);
    }
    parallel = !work || *work >= kMinParallelMultiplyAdds;
  } else {
    // The elements the widest stage visits: a reduction of a large input to a few rows (a mean
    // over (h, w)) is as much work as its input.
    work = 0;
    for (const BlockInfo& b : blocks) {
      std::optional<int64_t> e = LoopElements(sch, b.loops);
      work = e && work ? std::optional<int64_t>(std::max(*work, *e)) : std::nullopt;
    }
    parallel = !work || *work >= kMinParallelElements;
  }

  // Vector partial results for the reductions that have whole vectors to reduce.
  std::vector<std::pair<SBlockRV, ir::DataType>> rfactored;
  for (const BlockInfo& b : blocks) {
    if (b.IsSpatial()) continue;
    std::optional<LoopRV> reduce_loop;
    if (b.block->iter_vars.size() == *rows_rank + 1)
      reduce_loop = b.loops.back();
    else if (b.block->writes.size() == 1 && DataParCount(b) == *rows_rank &&
             ReadsTrailingWhole(b, *rows_rank))
      reduce_loop = sch.Fuse(
          std::vector<LoopRV>(b.loops.begin() + static_cast<long>(*rows_rank), b.loops.end()));
    if (!reduce_loop) continue;
    ir::DataType dtype = b.block->writes[0]->buffer->dtype;
    int64_t lanes = params.Lanes(dtype);
    std::optional<int64_t> extent = ConstExtent(sch.Get(*reduce_loop)->extent);
    // Not for a reduction of several values at once (layer_norm's sum and sum of squares):
    // rfactor takes one.
    if (lanes < 2 || !extent || *extent % lanes != 0 || *extent < 2 * lanes ||
        b.block->writes.size() != 1)
      continue;
    // Several vectors of partial results where the row holds enough: one vector accumulator is
    // one dependency chain (an add's latency per vector: 3-4 cycles where two adds a cycle
    // issue); kVectorAccumulators of them (the factored lanes, vectorized, are that many
    // registers) keep the adder busy, for one more combine of a few lanes per row.
    int64_t width = lanes;
    for (int64_t k = kVectorAccumulators; k > 1; k /= 2) {
      if (*extent % (lanes * k) == 0 && *extent >= 4 * lanes * k) {
        width = lanes * k;
        break;
      }
    }
    std::vector<LoopRV> split = sch.Split(*reduce_loop, {std::nullopt, width});
    // The partial results' buffer has the lanes last (factor_axis -1): a row's lanes are one
    // contiguous vector, also where a GEMV's tile holds several rows.
    rfactored.emplace_back(sch.RFactor(split[1], -1), dtype);
  }

  std::vector<BlockInfo> now = GetBlockInfos(sch);
  const BlockInfo& last = now.back();
  std::vector<LoopRV> row_loops(last.loops.begin(),
                                last.loops.begin() + static_cast<long>(*rows_rank));
  // A last stage that reads the reductions per group of its rows (x[n, c] against the
  // statistics of group c // G) has rows of groups: each row loop split by its group size (a
  // whole number of groups), the groups are the rows and the elements of a group inside.
  if (last.IsSpatial()) {
    std::set<const tir::BufferNode*> results;
    for (const BlockInfo& b : now) {
      if (!b.IsSpatial()) {
        for (const tir::BufferRegion& w : b.block->writes) results.insert(w->buffer.get());
      }
    }
    std::vector<int64_t> groups = RowGroups(last, results, *rows_rank);
    for (size_t d = 0; d < groups.size(); ++d) {
      std::optional<int64_t> e = ConstExtent(sch.Get(row_loops[d])->extent);
      if (groups[d] == 1 || !e || *e % groups[d] != 0) continue;
      std::vector<LoopRV> split = sch.Split(row_loops[d], {std::nullopt, groups[d]});
      row_loops[d] = split[0];
    }
    if (row_loops.size() > 1) {
      // The group's elements after the rows: the row loops adjacent, outermost.
      std::vector<LoopRV> all = sch.GetLoops(last.rv), order = row_loops;
      for (const LoopRV& l : all) {
        if (std::none_of(row_loops.begin(), row_loops.end(),
                         [&](const LoopRV& r) { return sch.Get(r).same_as(sch.Get(l)); }))
          order.push_back(l);
      }
      sch.Reorder(order);
    }
  }
  LoopRV rows = row_loops.size() == 1 ? row_loops[0] : sch.Fuse(row_loops);
  // A GEMV computes kGemvRows rows at a time (rows a whole number of such tiles): each vector of
  // the vector operand, loaded once, feeds a multiply-add of each row, and the rows' partial sums
  // are that many more independent accumulators (one row's two vectors of them left a single
  // stream through the matrix at ~0.7x of OpenBLAS's bandwidth).
  bool row_tile = false;
  if (kind == Kind::kGemv && !rfactored.empty()) {
    std::optional<int64_t> extent = ConstExtent(sch.Get(rows)->extent);
    if (extent && *extent % kGemvRows == 0 && *extent >= 2 * kGemvRows) {
      rows = sch.Split(rows, {std::nullopt, kGemvRows})[0];
      row_tile = true;
    }
  }
  for (size_t k = now.size() - 1; k-- > 0;) sch.ComputeAt(now[k].rv, rows);

  for (const BlockInfo& b : now) {
    if (!b.IsSpatial()) continue;
    ScheduleSpatialLoops(sch, LoopsBelow(sch, b.rv, rows), b.WidestDType(), params,
                         /*parallel=*/false);
  }
  std::vector<std::pair<SBlockRV, LoopRV>> decompose;
  for (const auto& [rf, dtype] : rfactored) {
    // The rfactor block's iterators: the lanes (data-parallel, first), the rows, the rest of the
    // reduction. The lanes go innermost and are vectorized, the init out of the reduction.
    std::optional<BlockInfo> info;
    for (BlockInfo& b : GetBlockInfos(sch)) {
      if (b.name == sch.Get(rf)->name_hint) info = b;
    }
    if (!info) continue;
    size_t reduce_iter = info->block->iter_vars.size() - 1;
    std::optional<LoopRV> lanes = info->LoopOf(sch, 0), reduce = info->LoopOf(sch, reduce_iter);
    if (!lanes || !reduce ||
        info->block->iter_vars[reduce_iter]->iter_type != tir::IterVarType::kCommReduce)
      continue;
    // Reorder only when the lanes are not already inside (its affine check fails on symbolic
    // rows, which this analysis cannot prove).
    std::vector<LoopRV> loops = sch.GetLoops(rf);
    auto at = [&](const LoopRV& l) {
      for (size_t p = 0; p < loops.size(); ++p) {
        if (sch.Get(loops[p]).get() == sch.Get(l).get()) return p;
      }
      return loops.size();
    };
    // The row tile's loop (the one other loop below the rows): between the reduction and the
    // lanes, unrolled.
    std::optional<LoopRV> tile_rows;
    if (row_tile) {
      for (const LoopRV& l : LoopsBelow(sch, rf, rows)) {
        const tir::ForNode* f = sch.Get(l).get();
        if (f != sch.Get(*lanes).get() && f != sch.Get(*reduce).get()) tile_rows = l;
      }
    }
    if (tile_rows) {
      sch.Reorder({*reduce, *tile_rows, *lanes});
      sch.Unroll(*tile_rows);
    } else if (at(*lanes) < at(*reduce)) {
      sch.Reorder({*reduce, *lanes});
    }
    sch.Vectorize(*lanes);
    decompose.emplace_back(rf, *reduce);
  }
  if (parallel) sch.Parallel(rows);
  // Last (loop kinds need whole reductions): the inits out of the lane loops; each init's lane
  // loop is a copy of the vectorized one.
  for (const auto& [rf, loop] : decompose) sch.DecomposeReduction(rf, loop);
  return sch;
}

// A reduction of a whole tensor to one value (a sum or max over every axis; its data-parallel
// iterators, if any, of extent 1), the elementwise stages before it inlined into it and those
// after it (mean's division) left to themselves: the reduction's loops fused and split into
// vector-width partial results (rfactor), lanes last, so that each lane accumulates a strided
// share of the elements in a vector register; when the tensor is large, the partial results are
// also per chunk of the elements, one chunk a parallel task (chunks x lanes partial results,
// combined once at the end). Only where the elements are a whole number of vectors.
std::optional<schedule::Schedule> ApplyFull(const tir::PrimFunc& func,
                                            const codegen::Target& target) {
  schedule::Schedule sch(SingleFunctionModule(func));
  std::vector<BlockInfo> blocks = GetBlockInfos(sch);
  std::optional<size_t> red;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const BlockInfo& b = blocks[k];
    // Other stages are inlined or left as they are (mean's division has an iterator of extent
    // 1 and no loop).
    if (b.IsSpatial()) continue;
    if (red || !b.simple_nest || !b.IsReduction() || !b.ReductionInnermost() || b.block->writes.size() != 1)
      return std::nullopt;
    for (const tir::IterVar& iv : b.block->iter_vars) {
      if (iv->iter_type == tir::IterVarType::kDataPar && !tir::IsConstInt(iv->dom->extent, 1))
        return std::nullopt;
    }
    red = k;
  }
  if (!red) return std::nullopt;
  const BlockInfo& b = blocks[*red];
  const size_t units = DataParCount(b);
  std::vector<LoopRV> reduce(b.loops.begin() + static_cast<long>(units), b.loops.end());
  std::optional<int64_t> elements = LoopElements(sch, reduce);
  if (reduce.empty() || !elements) return std::nullopt;
  CpuParams params = CpuParamsOf(target);
  const ir::DataType dtype = b.block->writes[0]->buffer->dtype;
  const int64_t lanes = params.Lanes(dtype);
  int64_t width = 0;
  for (int64_t w : {lanes * kVectorAccumulators, lanes}) {
    if (lanes > 1 && *elements % w == 0 && *elements >= 2 * w) {
      width = w;
      break;
    }
  }
  if (width == 0) return std::nullopt;
  // Chunks for the threads: a few per core, each at least a few vectors long.
  int64_t chunks = 1;
  if (*elements >= kMinParallelElements) {
    for (int64_t c = 4 * params.num_cores; c > 1; --c) {
      if (*elements % (c * width) == 0) {
        chunks = c;
        break;
      }
    }
  }
  for (size_t k = 0; k < *red; ++k) {
    try {
      sch.ComputeInline(blocks[k].rv);
    } catch (const schedule::ScheduleError&) {
      // An output of its own, or not inlinable: it stays a stage.
    }
  }
  LoopRV fused = reduce.size() == 1 ? reduce[0] : sch.Fuse(reduce);
  SBlockRV rf;
  if (chunks > 1) {
    std::vector<LoopRV> split = sch.Split(fused, {chunks, std::nullopt, width});
    sch.Reorder({split[0], split[2], split[1]});
    rf = sch.RFactor(sch.Fuse({split[0], split[2]}), -1);
  } else {
    std::vector<LoopRV> split = sch.Split(fused, {std::nullopt, width});
    rf = sch.RFactor(split[1], -1);
  }
  // The partial results' block: its first iterator the (chunk, lane) position, data-parallel,
  // then the rest of the reduction.
  std::optional<BlockInfo> info;
  for (BlockInfo& i : GetBlockInfos(sch)) {
    if (i.name == sch.Get(rf)->name_hint) info = i;
  }
  if (!info) return std::nullopt;
  const size_t reduce_iter = info->block->iter_vars.size() - 1;
  std::optional<LoopRV> position = info->LoopOf(sch, 0), rest = info->LoopOf(sch, reduce_iter);
  if (!position || !rest ||
      info->block->iter_vars[reduce_iter]->iter_type != tir::IterVarType::kCommReduce)
    return std::nullopt;
  LoopRV lane_loop = *position;
  if (chunks > 1) {
    std::vector<LoopRV> split = sch.Split(*position, {chunks, width});
    sch.Reorder({split[0], *rest, split[1]});
    sch.Parallel(split[0]);
    lane_loop = split[1];
  } else {
    sch.Reorder({*rest, *position});
  }
  sch.Vectorize(lane_loop);
  sch.DecomposeReduction(rf, *rest);
  return sch;
}

}  // namespace

ScheduleRule Reduction() {
  return {"Reduction", [](const tir::PrimFunc& f, const codegen::Target& t) {
            std::optional<schedule::Schedule> full = ApplyFull(f, t);
            if (full) return full;
            // The rows of the stage a trailing copy copies, else of the stages as written.
            std::optional<schedule::Schedule> rows;
            try {
              rows = ApplyRows(f, t, Kind::kRows, /*inline_trailing_copy=*/true);
            } catch (const schedule::ScheduleError&) {
            } catch (const std::invalid_argument&) {
            }
            return rows ? rows : ApplyRows(f, t, Kind::kRows);
          }};
}

ScheduleRule GEMV() {
  return {"GEMV", [](const tir::PrimFunc& f, const codegen::Target& t) {
            return ApplyRows(f, t, Kind::kGemv);
          }};
}

}  // namespace wb::dlight::cpu
