// Conv2d: a windowed reduction out[.., p, .., v] += in[.., p*s + r*d, ..] * w[..] (conv2d NCHW
// and NHWC, strided, dilated, grouped, depthwise), with its padding stage before it and the
// elementwise blocks after it (bias, relu).
//
// The register tile is a matmul's: the output's innermost iterator v (x for NCHW, the channel
// for NHWC) is the vector dimension, and the tile's rows are the innermost other data-parallel
// iterator that the operand read along v does not use (the output channel for NCHW, whose
// weights are broadcast; x for NHWC, whose inputs are broadcast). Per reduction step the tile
// issues rows x vectors FMAs against one vector load per vector (shared by the rows) and one
// broadcast per row. The accumulators go to a "local" cache (cache_write) whose write-back, with
// the epilogue inlined, is computed at the tile; the tile loops are outermost, fused and
// parallel; the reduction loops inside them, then the unrolled rows and vectors and the
// vectorized lanes; last, the init out of the reduction. The padding stays a stage of its own
// (one pass over the input), scheduled as data-parallel loops.
//
// A grouped or depthwise convolution reads its input at a channel that depends on the rows: the
// tile is the same, with a vector load per row. A stride along v makes the vector loads strided.
#include <algorithm>

#include "dlight/cpu/rules.h"
#include "dlight/cpu/spatial.h"
#include "schedule/ir_path.h"
#include "tir/functor.h"

namespace wb::dlight::cpu {

namespace {

using schedule::LoopRV;
using schedule::SBlockRV;

bool Uses(const ir::PrimExpr& e, const tir::VarNode* var) {
  bool used = false;
  tir::PostOrderVisit(e, [&](const ir::Object* n) { used |= n == var; });
  return used;
}

struct ConvTile {
  int64_t rows = 0, vectors = 0, lanes = 0;
};

// rows x (vectors x lanes) for a row extent R and a vector extent V: lanes the widest power of
// two dividing V (at most the target's, at least 4), scored as the Matmul rule scores its tile.
std::optional<ConvTile> ChooseConvTile(int64_t r, int64_t v, int64_t max_lanes, int registers) {
  int64_t lanes = max_lanes;
  while (lanes >= 4 && v % lanes != 0) lanes /= 2;
  if (lanes < 4) return std::nullopt;
  std::optional<ConvTile> best;
  double best_score = 0;
  for (int64_t nv = 1; nv <= 8; ++nv) {
    if ((v / lanes) % nv != 0) continue;
    for (int64_t mr = 1; mr <= std::min<int64_t>(r, 16); ++mr) {
      if (mr * nv + nv + 1 > registers) break;
      double acc = static_cast<double>(mr * nv);
      double loads = static_cast<double>(mr + nv);
      double cycles = std::max({acc / 2, loads / 2, 5.0});
      double remainder = r % mr != 0 ? 0.9 : 1.0;
      double width = static_cast<double>(lanes) / static_cast<double>(max_lanes);
      double score = acc / cycles * remainder * width + 0.01 * acc / loads;
      if (score > best_score + 1e-9) {
        best_score = score;
        best = ConvTile{mr, nv, lanes};
      }
    }
  }
  return best;
}

std::optional<schedule::Schedule> Apply(const tir::PrimFunc& func, const codegen::Target& target) {
  schedule::Schedule sch(SingleFunctionModule(func));
  std::vector<BlockInfo> blocks = GetBlockInfos(sch);
  const BlockInfo* conv = nullptr;
  for (const BlockInfo& b : blocks) {
    if (b.IsSpatial()) {
      if (!b.simple_nest) return std::nullopt;
      continue;
    }
    if (conv || !b.simple_nest || !b.IsReduction() || !b.ReductionInnermost()) return std::nullopt;
    conv = &b;
  }
  if (!conv || MatchMatmul(conv->block)) return std::nullopt;
  const auto* store = conv->block->body.as<tir::BufferStoreNode>();
  const auto* add = store ? store->value.as<tir::AddNode>() : nullptr;
  const auto* mul = add ? add->b.as<tir::MulNode>() : nullptr;
  if (!mul) return std::nullopt;
  const auto& iters = conv->block->iter_vars;
  size_t spatial = 0;
  while (spatial < iters.size() && iters[spatial]->iter_type == tir::IterVarType::kDataPar)
    ++spatial;
  if (spatial < 3 || spatial == iters.size() || store->indices.size() != spatial) return std::nullopt;
  for (size_t d = 0; d < spatial; ++d) {
    if (!store->indices[d].same_as(iters[d]->var)) return std::nullopt;
  }
  // A windowed read: some read index mixes a data-parallel and a reduction iterator.
  std::vector<const tir::BufferLoadNode*> loads;
  tir::PostOrderVisit(GetRef(mul), [&](const ir::Object* n) {
    if (auto* l = schedule::NodeAs<tir::BufferLoadNode>(n)) loads.push_back(l);
  });
  if (loads.size() != 2) return std::nullopt;
  bool windowed = false;
  for (const auto* l : loads) {
    for (const auto& index : l->indices) {
      bool dp = false, red = false;
      for (size_t k = 0; k < iters.size(); ++k) {
        if (Uses(index, iters[k]->var.get())) (k < spatial ? dp : red) = true;
      }
      windowed |= dp && red;
    }
  }
  if (!windowed) return std::nullopt;
  const size_t v_iter = spatial - 1;
  const tir::VarNode* v = iters[v_iter]->var.get();
  // The operand read along v; the rows are the innermost other iterator it does not use.
  std::optional<size_t> r_iter;
  for (size_t k = v_iter; k-- > 0;) {
    bool used_by_vector_operand = false;
    for (const auto* l : loads) {
      bool along_v = false;
      for (const auto& index : l->indices) along_v |= Uses(index, v);
      if (!along_v) continue;
      for (const auto& index : l->indices) used_by_vector_operand |= Uses(index, iters[k]->var.get());
    }
    if (!used_by_vector_operand) {
      r_iter = k;
      break;
    }
  }
  if (!r_iter) r_iter = v_iter - 1;
  std::optional<int64_t> v_extent = ConstExtent(iters[v_iter]->dom->extent);
  std::optional<int64_t> r_extent = ConstExtent(iters[*r_iter]->dom->extent);
  if (!v_extent || !r_extent) return std::nullopt;
  CpuParams params = CpuParamsOf(target);
  ir::DataType dtype = store->buffer->dtype;
  std::optional<ConvTile> tile =
      ChooseConvTile(*r_extent, *v_extent, params.Lanes(dtype), params.vector_registers);
  if (!tile) return std::nullopt;

  SBlockRV block = conv->rv;
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
  std::optional<int64_t> work = LoopElements(sch, loops);
  std::vector<LoopRV> rs = sch.Split(loops[*r_iter], {std::nullopt, tile->rows});
  std::vector<LoopRV> vs = sch.Split(loops[v_iter], {std::nullopt, tile->vectors, tile->lanes});
  std::vector<LoopRV> outer, order;
  for (size_t k = 0; k < spatial; ++k) {
    if (k == *r_iter)
      outer.push_back(rs[0]);
    else if (k == v_iter)
      outer.push_back(vs[0]);
    else
      outer.push_back(loops[k]);
  }
  order = outer;
  for (size_t k = spatial; k < loops.size(); ++k) order.push_back(loops[k]);
  order.push_back(rs[1]);
  order.push_back(vs[1]);
  order.push_back(vs[2]);
  sch.Reorder(order);
  LoopRV tile_loop = outer.size() == 1 ? outer[0] : sch.Fuse(outer);
  sch.ReverseComputeAt(write_back, tile_loop);
  sch.Unroll(rs[1]);
  sch.Unroll(vs[1]);
  sch.Vectorize(vs[2]);
  std::vector<LoopRV> stage = sch.GetLoops(write_back);
  stage.erase(stage.begin());
  ScheduleSpatialLoops(sch, stage, sch.Get(write_back)->writes[0]->buffer->dtype, params,
                       /*parallel=*/false);
  if (!work || *work >= kMinParallelMultiplyAdds) sch.Parallel(tile_loop);
  SBlockRV init = sch.DecomposeReduction(block, loops[spatial]);
  // The padding and any other data-parallel stage: the spatial loop schedule.
  const std::string conv_name = sch.Get(block)->name_hint;
  const std::string wb_name = sch.Get(write_back)->name_hint;
  for (const BlockInfo& b : GetBlockInfos(sch)) {
    if (b.name == conv_name || b.name == wb_name || b.name == sch.Get(init)->name_hint) continue;
    if (b.IsSpatial() && b.simple_nest) ScheduleSpatialLoops(sch, b.loops, b.WidestDType(), params);
  }
  return sch;
}

}  // namespace

ScheduleRule Conv2d() { return {"Conv2d", Apply}; }

}  // namespace wb::dlight::cpu
