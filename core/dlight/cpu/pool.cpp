// Pooling: one windowed reduction of one input (max, sum, average over a window; any rank,
// layout, stride, dilation), with its padding before it and its elementwise stages after it
// (the average's division), e.g. R.nn.max_pool2d / avg_pool2d legalized.
//
// The output's loops except its two innermost ("plane" loops: batch and channels in NCHW,
// batch and rows in NHWC) are fused and parallel; the padded input is computed at that loop,
// one plane at a time (it stays in cache and is not recomputed per window, as it would be
// inlined into each read); inside, for each output row the window's loops run outside the
// innermost output axis, so that axis is the vector: every window position is one vector
// max/add across outputs (W in NCHW, strided when the pool is; C in NHWC, contiguous), the
// accumulators a row of the output. The stages after the pool are computed at the plane too.
#include <algorithm>

#include "dlight/cpu/rules.h"
#include "dlight/cpu/spatial.h"

namespace wb::dlight::cpu {

namespace {

using schedule::LoopRV;
using schedule::SBlockRV;

// The one input the block reads other than its own output, or nullptr.
const tir::BufferRegionNode* SingleInput(const tir::SBlock& block) {
  const tir::BufferRegionNode* input = nullptr;
  const tir::Buffer& out = block->writes[0]->buffer;
  for (const tir::BufferRegion& read : block->reads) {
    if (read->buffer.same_as(out)) continue;
    if (input) return nullptr;
    input = read.get();
  }
  return input;
}

// Whether the block writes its output at its data-parallel iterators, in order, and reads its
// input through a window: some index uses a reduction iterator.
bool IsPool(const BlockInfo& b) {
  if (!b.simple_nest || !b.IsReduction() || !b.ReductionInnermost()) return false;
  if (b.block->writes.size() != 1) return false;
  const tir::BufferRegionNode* input = SingleInput(b.block);
  if (!input) return false;
  const auto& iters = b.block->iter_vars;
  const auto& out = b.block->writes[0]->region;
  size_t spatial = 0;
  for (const tir::IterVar& iv : iters) spatial += iv->iter_type == tir::IterVarType::kDataPar;
  if (out.size() != spatial || spatial == iters.size()) return false;
  for (size_t d = 0; d < out.size(); ++d) {
    if (!out[d]->min.same_as(iters[d]->var)) return false;
  }
  // A window: some index of the input is more than one iterator or a constant (`h * 2 + rh`);
  // a reduction read at plain iterators is a row reduction (the Reduction rule's).
  for (const ir::Range& range : input->region) {
    if (!tir::IsConstInt(range->extent, 1)) return false;
    if (tir::AsConstInt(range->min)) continue;
    bool plain = false;
    for (const tir::IterVar& iv : iters) plain |= range->min.same_as(iv->var);
    if (!plain) return true;
  }
  return false;
}

std::optional<schedule::Schedule> Apply(const tir::PrimFunc& func, const codegen::Target& target) {
  schedule::Schedule sch(SingleFunctionModule(func));
  std::vector<BlockInfo> blocks = GetBlockInfos(sch);
  const BlockInfo* pool = nullptr;
  for (const BlockInfo& b : blocks) {
    if (b.IsSpatial() && b.simple_nest) continue;
    if (pool || !IsPool(b)) return std::nullopt;
    pool = &b;
  }
  if (!pool) return std::nullopt;
  const size_t spatial = pool->block->writes[0]->region.size();
  // A 1-D output: its one axis is the vector, nothing is a plane.
  if (spatial < 2) return std::nullopt;
  // The later stages must be elementwise over the pool's output (same rank: computed at the
  // plane loops, which drive their leading iterators).
  bool after = false;
  for (const BlockInfo& b : blocks) {
    if (&b == pool) {
      after = true;
      continue;
    }
    if (after && b.block->iter_vars.size() != spatial) return std::nullopt;
  }
  CpuParams params = CpuParamsOf(target);
  const ir::DataType dtype = pool->block->writes[0]->buffer->dtype;
  const int64_t lanes = params.Lanes(dtype);

  std::vector<LoopRV> loops = sch.GetLoops(pool->rv);
  std::vector<LoopRV> plane(loops.begin(), loops.begin() + static_cast<long>(spatial > 2 ? spatial - 2 : 1));
  std::vector<LoopRV> rows(loops.begin() + static_cast<long>(plane.size()),
                           loops.begin() + static_cast<long>(spatial - 1));
  LoopRV inner = loops[spatial - 1];
  std::vector<LoopRV> window(loops.begin() + static_cast<long>(spatial), loops.end());
  std::optional<int64_t> work = LoopElements(sch, loops);
  // The plane loops fused (unless one is symbolic: a fused symbolic loop drives several
  // iterators, which the affine analysis cannot prove; the first one is parallel then).
  const bool symbolic = !LoopElements(sch, plane).has_value();
  LoopRV outer = plane.size() == 1 || symbolic ? plane[0] : sch.Fuse(plane);
  // The window outside the innermost output axis: each window position one vector operation.
  std::vector<LoopRV> order = rows;
  order.insert(order.end(), window.begin(), window.end());
  order.push_back(inner);
  sch.Reorder(order);
  // A row of whole vectors is vectorized; any other stays serial for LLVM's loop vectorizer
  // (narrower vectors were tried: 4-lane vectors of a stride-2 NCHW row were 4x slower than
  // LLVM's own code, the strided loads assembled lane by lane).
  std::optional<int64_t> extent = ConstExtent(sch.Get(inner)->extent);
  if (lanes > 1 && extent && *extent % lanes == 0) {
    sch.Vectorize(*extent > lanes ? sch.Split(inner, {std::nullopt, lanes})[1] : inner);
  }

  // The padding, one plane at a time; the stages after, at the plane too.
  for (const BlockInfo& b : blocks) {
    if (&b == pool) break;
    sch.ComputeAt(b.rv, outer);
  }
  bool past = false;
  std::vector<SBlockRV> later;
  for (const BlockInfo& b : blocks) {
    if (past) later.push_back(b.rv);
    past |= &b == pool;
  }
  for (const SBlockRV& b : later) sch.ReverseComputeAt(b, outer);
  for (const BlockInfo& b : GetBlockInfos(sch)) {
    if (b.name == pool->name || !b.IsSpatial()) continue;
    std::vector<LoopRV> inside = sch.GetLoops(b.rv);
    const tir::ForNode* at = sch.Get(outer).get();
    auto it = std::find_if(inside.begin(), inside.end(),
                           [&](const LoopRV& l) { return sch.Get(l).get() == at; });
    if (it == inside.end()) continue;
    ScheduleSpatialLoops(sch, {it + 1, inside.end()}, b.WidestDType(), params, /*parallel=*/false);
  }
  // Threads pay for a pool by its window operations (as a reduction by its multiply-adds).
  if (!work || *work >= kMinParallelMultiplyAdds) sch.Parallel(outer);
  // Last: the init out of the window, its row loop a copy of the vectorized one.
  if (!window.empty()) sch.DecomposeReduction(pool->rv, window.front());
  return sch;
}

}  // namespace

ScheduleRule Pool() { return {"Pool", Apply}; }

}  // namespace wb::dlight::cpu
