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
// tile is the same, with a vector load per row; a stride along v makes its vector loads strided.
//
// Where the output's innermost axis holds no whole vectors of the target's width (an NCHW output
// 7, 14 or 10 wide), or a stride along it would make the vector loads strided (ResNet's 7x7
// stride-2 stem), the vector runs along the output channel instead (oneDNN's channel blocks):
// the weight is packed once per call into blocks of the tile's channels, innermost, and the
// accumulators are laid out so too; the rows then run along x, whose inputs are broadcast. A
// grouped convolution does the same with the tile's channels inside one group (its input value
// is then one for the tile's channels); a depthwise one (its input channel the output's) has its
// input packed the same way, written so by the padding, and each row of the tile loads its own
// input vector. Where neither axis holds whole vectors (of 4 lanes at least) the rule does not
// apply.
#include <algorithm>

#include "dlight/cpu/rules.h"
#include "dlight/cpu/spatial.h"
#include "schedule/ir_path.h"
#include "tir/functor.h"
#include "tir/index_map.h"

namespace wb::dlight::cpu {

namespace {

using schedule::LoopRV;
using schedule::SBlockRV;

bool Uses(const ir::PrimExpr& e, const tir::VarNode* var) {
  bool used = false;
  tir::PostOrderVisit(e, [&](const ir::Object* n) { used |= n == var; });
  return used;
}

// Whether `index` is `var`, or `var` plus an iterator of extent 1 (a depthwise convolution
// reads its input at channel `ff + rc`, rc over the one input channel of its group).
bool AtIterator(const ir::PrimExpr& index, const tir::Var& var,
                const std::vector<tir::IterVar>& iters) {
  if (index.same_as(var)) return true;
  const auto* add = index.as<tir::AddNode>();
  if (!add) return false;
  auto unit = [&](const ir::PrimExpr& e) {
    for (const tir::IterVar& iv : iters) {
      if (e.same_as(iv->var)) return tir::IsConstInt(iv->dom->extent, 1);
    }
    return false;
  };
  return (add->a.same_as(var) && unit(add->b)) || (add->b.same_as(var) && unit(add->a));
}

// q where every use of `var` in the load's indices is `var // q` (q > 1, a constant): a grouped
// convolution's input read at its group's channels.
std::optional<int64_t> GroupOf(const tir::BufferLoadNode* load, const tir::Var& var) {
  std::optional<int64_t> q;
  bool ok = true;
  size_t divided = 0, uses = 0;
  for (const ir::PrimExpr& index : load->indices) {
    tir::PostOrderVisit(index, [&](const ir::Object* n) {
      if (n == var.get()) ++uses;
      const auto* div = schedule::NodeAs<tir::FloorDivNode>(n);
      if (!div || !div->a.same_as(var)) return;
      const int64_t* c = tir::AsConstInt(div->b);
      if (!c || *c <= 1 || (q && *q != *c)) ok = false;
      if (c) q = *c;
      ++divided;
    });
  }
  if (!ok || uses == 0 || divided != uses) return std::nullopt;
  return q;
}

struct ConvTile {
  int64_t rows = 0, vectors = 0, lanes = 0;
};

// rows x (vectors x lanes) for a row extent R and a vector extent V: lanes the widest power of
// two dividing V (at most the target's, at least 4), scored as the Matmul rule scores its tile,
// a tile whose rows leave a remainder scaled by `remainder_score`, and each vector of the tile
// taking at least `vector_cycles` a step to load (its operand streamed from L2).
std::optional<ConvTile> ChooseConvTile(int64_t r, int64_t v, int64_t max_lanes, int registers,
                                       double remainder_score, double vector_cycles = 0) {
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
      double cycles = std::max({acc / 2, loads / 2, 5.0, vector_cycles * static_cast<double>(nv)});
      double remainder = r % mr != 0 ? remainder_score : 1.0;
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

// The index map moving dimension `dim` of a rank-`rank` buffer into blocks of `cols`: the block
// index in its place and the position in the block last, e.g. (f, c, ry, rx) -> (f // 16, c, ry,
// rx, f % 16); nullopt when it does not parse.
std::optional<tir::IndexMap> BlockLastMap(size_t rank, size_t dim, int64_t cols,
                                          ir::DataType dtype) {
  std::string params, result;
  for (size_t d = 0; d < rank; ++d) {
    const std::string v = "d" + std::to_string(d);
    params += (d ? ", " : "") + v;
    result += (d ? ", " : "") + (d == dim ? v + " // " + std::to_string(cols) : v);
  }
  std::string text = "lambda " + params + ": (" + result + ", d" + std::to_string(dim) + " % " +
                     std::to_string(cols) + ")";
  std::string error;
  size_t offset = 0;
  tir::IndexMap map = tir::ParseIndexMapLambda(text, dtype, &error, &offset);
  if (!map.defined()) return std::nullopt;
  return map;
}

// Packs the operand read along the output channel (the weight of an NCHW convolution) into
// blocks of `cols` channels with the channel innermost (cache_read + transform_layout), so that
// the tile's vector loads are contiguous; the copy is one pass of its own, parallel over the
// blocks when it is large. An operand that a stage of the function writes (a depthwise
// convolution's padded input) is written so by that stage instead (transform_layout alone).
// Returns false (nothing applied) when the read is not found.
bool PackChannels(schedule::Schedule& sch, const SBlockRV& block, const tir::Buffer& operand,
                  size_t dim, int64_t cols) {
  const tir::SBlock now = sch.Get(block);
  int read_index = -1;
  for (size_t r = 0; r < now->reads.size() && read_index < 0; ++r) {
    if (now->reads[r]->buffer.same_as(operand)) read_index = static_cast<int>(r);
  }
  const size_t rank = operand->shape.size();
  std::optional<tir::IndexMap> map = BlockLastMap(rank, dim, cols, operand->shape[0]->dtype);
  if (read_index < 0 || !map) return false;
  // An intermediate (the padding's output): its producer writes it packed, no copy of its own.
  for (const SBlockRV& producer : sch.GetProducers(block)) {
    const tir::SBlock p = sch.Get(producer);
    if (p->writes.size() == 1 && p->writes[0]->buffer.same_as(operand)) {
      sch.TransformLayout(block, std::pair<std::string, int64_t>{"read", read_index}, *map);
      return true;
    }
  }
  SBlockRV packed = sch.CacheRead(block, read_index, "global");
  sch.TransformLayout(packed, std::pair<std::string, int64_t>{"write", 0}, *map);
  std::vector<LoopRV> loops = sch.GetLoops(packed);
  if (loops.size() != rank) return true;
  std::optional<int64_t> elements = LoopElements(sch, loops);
  // Each block's channels written innermost (the copy's stores contiguous, its loads the
  // channel stride apart, once per call).
  std::vector<LoopRV> split = sch.Split(loops[dim], {std::nullopt, cols});
  std::vector<LoopRV> order(loops.begin(), loops.begin() + static_cast<long>(dim));
  order.push_back(split[0]);
  order.insert(order.end(), loops.begin() + static_cast<long>(dim) + 1, loops.end());
  order.push_back(split[1]);
  sch.Reorder(order);
  if (elements && *elements >= kMinParallelElements) {
    std::vector<LoopRV> outer(order.begin(), order.begin() + static_cast<long>(dim) + 1);
    sch.Parallel(outer.size() == 1 ? outer[0] : sch.Fuse(outer));
  }
  return true;
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
  auto uses = [&](const tir::BufferLoadNode* l, size_t k) {
    for (const auto& index : l->indices) {
      if (Uses(index, iters[k]->var.get())) return true;
    }
    return false;
  };
  // The rows for vector iterator v: the innermost other iterator that the operands read along v
  // do not use (their vector loads shared by the rows), else the one outside v.
  auto rows_for = [&](size_t v) {
    for (size_t k = spatial; k-- > 0;) {
      if (k == v) continue;
      bool used_by_vector_operand = false;
      for (const auto* l : loads) used_by_vector_operand |= uses(l, v) && uses(l, k);
      if (!used_by_vector_operand) return k;
    }
    return v > 0 ? v - 1 : v + 1;
  };
  CpuParams params = CpuParamsOf(target);
  ir::DataType dtype = store->buffer->dtype;
  const int64_t max_lanes = params.Lanes(dtype);
  auto extent = [&](size_t k) { return ConstExtent(iters[k]->dom->extent); };

  // The vector along the output's innermost axis (x in NCHW, the channel in NHWC), its loads
  // shared by the rows.
  struct Choice {
    size_t v_iter = 0, r_iter = 0;
    ConvTile tile;
    // The operands packed so that v is their innermost axis (dimension `dim` indexed by v): the
    // weight, and a depthwise convolution's input too.
    struct Packed {
      const tir::BufferLoadNode* load = nullptr;
      size_t dim = 0;
    };
    std::vector<Packed> packed;
  };
  std::optional<Choice> choice;
  {
    const size_t v = spatial - 1, r = rows_for(v);
    std::optional<int64_t> ve = extent(v), re = extent(r);
    if (ve && re) {
      if (auto t = ChooseConvTile(*re, *ve, max_lanes, params.vector_registers, 0.9))
        choice = Choice{v, r, *t};
    }
  }
  // Where that axis holds no whole vectors of the target's width (ResNet's 7x7 and 14x14
  // stages, a 10-wide row), the vector runs along the output channel instead, as oneDNN's
  // channel blocks do: the one operand that reads the channel (the weight) reads it at the
  // iterator itself in one dimension and is packed with blocks of the tile's channels innermost;
  // the other operand does not depend on it (its loads are the rows' broadcasts), or only on its
  // group (grouped: the tile's channels in one group), or reads it so too (depthwise: packed as
  // well). The rows run along the innermost other axis, and the accumulators too are laid out
  // with the channels innermost.
  // A stride along v makes the tile's vector loads strided (a gather, or shuffles, per vector:
  // ResNet's 7x7 stride-2 stem ran at a twentieth of oneDNN): the channel-blocked tile, whose
  // vectors are the packed weight's and whose input values are broadcasts, is taken instead
  // wherever it applies.
  bool strided = false;
  if (choice) {
    const tir::VarNode* v_var = iters[choice->v_iter]->var.get();
    for (const auto* l : loads) {
      for (const auto& index : l->indices) {
        tir::PostOrderVisit(index, [&](const ir::Object* n) {
          const auto* m = schedule::NodeAs<tir::MulNode>(n);
          if (!m) return;
          const int64_t* c = tir::AsConstInt(m->b);
          const int64_t* c2 = tir::AsConstInt(m->a);
          if ((m->a.get() == v_var && c && *c != 1) || (m->b.get() == v_var && c2 && *c2 != 1))
            strided = true;
        });
      }
    }
  }
  auto better = [&](const ConvTile& t) {
    return !choice || strided || t.lanes > choice->tile.lanes;
  };
  if (!choice || choice->tile.lanes < max_lanes || strided) {
    for (size_t k = spatial - 1; k-- > 0 && (!choice || choice->tile.lanes < max_lanes || strided);) {
      // Each operand that reads the channel reads it at the iterator itself in one dimension of
      // its extent: the weight, and a depthwise convolution's input (its channel the output's).
      std::optional<int64_t> ke = extent(k);
      std::vector<Choice::Packed> operands;
      bool ok = ke.has_value();
      // A grouped convolution's input reads the channel's group (`ff // q`, q output channels a
      // group) alone: one value for a tile's channels where the tile's channels divide q.
      std::optional<int64_t> group;
      for (const auto* l : loads) {
        if (!ok || !uses(l, k)) continue;
        if (std::optional<int64_t> q = GroupOf(l, iters[k]->var); q && (!group || *group == *q)) {
          group = q;
          continue;
        }
        std::optional<size_t> dim;
        for (size_t d = 0; d < l->indices.size(); ++d) {
          if (!Uses(l->indices[d], iters[k]->var.get())) continue;
          if (dim || !AtIterator(l->indices[d], iters[k]->var, iters)) ok = false;
          dim = d;
        }
        std::optional<int64_t> shape = dim ? ConstExtent(l->buffer->shape[*dim]) : std::nullopt;
        if (!shape || *shape != *ke) ok = false;
        if (ok) operands.push_back({l, *dim});
      }
      if (!ok || operands.empty() || (group && operands.size() != 1)) continue;
      // Both packed: each row loads a vector of its own inputs; grouped: each row broadcasts its
      // group's input. The rows run along the innermost other axis (x).
      const size_t r = operands.size() == 1 && !group ? rows_for(k)
                                                      : (k == spatial - 1 ? k - 1 : spatial - 1);
      std::optional<int64_t> re = extent(r);
      if (!re) continue;
      // Rows that leave a remainder cost a branch per row in the tile: strongly avoided. Two
      // registers fewer: LLVM keeps the input broadcasts that neighbouring rows share across the
      // unrolled window live (x_i + rx), and a 14-row tile of 16 ymm registers spilled (0.6x of
      // oneDNN on ResNet's 14x14 stage against 1.1x for 7 rows). A vector of the packed weight
      // whose block (the reduction's elements x the tile's channels) exceeds L1 streams from L2
      // each step, at ~2 cycles a vector.
      int64_t reduction_elements = 1;
      for (size_t i = spatial; i < iters.size(); ++i) {
        std::optional<int64_t> e = extent(i);
        reduction_elements *= e.value_or(1 << 20);
      }
      const double l2_vector_cycles =
          reduction_elements * max_lanes * dtype.bytes() * 2 > params.l1d_bytes ? 2.0 : 0.0;
      std::optional<ConvTile> t = ChooseConvTile(*re, group.value_or(*ke), max_lanes,
                                                 params.vector_registers - 2, 0.5, l2_vector_cycles);
      if (!t || !better(*t)) continue;
      choice = Choice{k, r, *t, operands};
      strided = false;
    }
  }
  if (!choice) return std::nullopt;
  const size_t v_iter = choice->v_iter, r_iter = choice->r_iter;
  const ConvTile tile = choice->tile;
  const int64_t cols = tile.vectors * tile.lanes;

  SBlockRV block = conv->rv;
  for (const Choice::Packed& p : choice->packed) {
    if (!PackChannels(sch, block, p.load->buffer, p.dim, cols)) return std::nullopt;
  }
  SBlockRV write_back = sch.CacheWrite(block, 0, "local");
  if (!choice->packed.empty()) {
    // The accumulators with the tile's channels innermost: each vector of them contiguous.
    std::optional<tir::IndexMap> map = BlockLastMap(spatial, v_iter, cols, iters[0]->var->dtype);
    if (!map) return std::nullopt;
    sch.TransformLayout(block, std::pair<std::string, int64_t>{"write", 0}, *map);
  }
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
  std::vector<LoopRV> rs = sch.Split(loops[r_iter], {std::nullopt, tile.rows});
  std::vector<LoopRV> vs = sch.Split(loops[v_iter], {std::nullopt, tile.vectors, tile.lanes});
  std::vector<LoopRV> outer, order;
  for (size_t k = 0; k < spatial; ++k) {
    if (k == r_iter)
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
