// Fallback: always applies. Each block is scheduled on its own, and a block whose steps do not
// apply keeps what was applied before the failing one (each primitive keeps the meaning):
// data-parallel blocks get the spatial loop schedule; a reduction whose data-parallel loops are
// outermost runs them fused and parallel (when its multiply-adds pay for the threads), its
// reduction loops serial inside; where the output's contiguous axis is whole vectors and every
// operand reads along it contiguously (or not at all), that axis is the vector, inside the
// reduction loops; else where the one reduction axis is read so and holds two vectors, its
// lanes are partial results in a vector (rfactor) at each output.
#include "dlight/cpu/rules.h"
#include "dlight/cpu/spatial.h"
#include "schedule/ir_path.h"
#include "tir/functor.h"

namespace wb::dlight::cpu {

namespace {

// Whether iterator `iter` of the block can be a vector of its reduction: the output is stored
// with it as its last index (`output`; else, a reduction iterator, the store does not use it),
// and every load (in the body and the init, not the block's declared
// regions, which may be whole rows: sort's ranks) either does not use it or has it as its last
// index and nowhere else (a contiguous vector load; any other would be a gather).
bool ContiguousAxis(const tir::SBlock& block, size_t iter, bool output) {
  const tir::Var& var = block->iter_vars[iter]->var;
  auto uses = [&](const ir::PrimExpr& e) {
    bool used = false;
    tir::PostOrderVisit(e, [&](const ir::Object* n) { used |= n == var.get(); });
    return used;
  };
  auto contiguous = [&](const std::vector<ir::PrimExpr>& indices) {
    for (size_t d = 0; d < indices.size(); ++d) {
      const bool last = d + 1 == indices.size();
      if (uses(indices[d]) && !(last && indices[d].same_as(var))) return false;
    }
    return true;
  };
  bool ok = true, stored = false;
  for (const tir::Stmt& stmt : {block->body, block->init}) {
    if (!stmt.defined()) continue;
    tir::PostOrderVisit(stmt, [&](const ir::Object* n) {
      if (const auto* load = schedule::NodeAs<tir::BufferLoadNode>(n)) {
        ok &= contiguous(load->indices);
      } else if (const auto* store = schedule::NodeAs<tir::BufferStoreNode>(n)) {
        if (output) {
          ok &= !store->indices.empty() && store->indices.back().same_as(var) &&
                contiguous(store->indices);
        } else {
          for (const ir::PrimExpr& index : store->indices) ok &= !uses(index);
        }
        stored = true;
      }
    });
  }
  return ok && stored && block->writes.size() == 1;
}

void ScheduleBlock(schedule::Schedule& sch, const BlockInfo& b, const CpuParams& params) {
  if (!b.simple_nest || b.loops.empty()) return;
  if (b.IsSpatial()) {
    ScheduleSpatialLoops(sch, b.loops, b.WidestDType(), params);
    return;
  }
  if (!b.IsReduction() || !b.ReductionInnermost()) return;
  std::vector<schedule::LoopRV> spatial, reduce;
  for (size_t k = 0; k < b.loops.size(); ++k) {
    (b.block->iter_vars[k]->iter_type == tir::IterVarType::kDataPar ? spatial : reduce)
        .push_back(b.loops[k]);
  }
  if (spatial.empty()) return;
  // Threads pay for a reduction by its multiply-adds (the bundled convnet's 3x3 convolutions,
  // ~30 K of them, took 3-8x longer parallel than on the calling thread).
  std::optional<int64_t> all = LoopElements(sch, b.loops);
  const bool threads = !all || *all >= kMinParallelMultiplyAdds;
  // The output's contiguous axis as the vector, the reduction outside it (attention's weighted
  // sum over the keys, a sum over a leading axis): each reduction step one vector load and one
  // vector accumulation for `lanes` outputs, instead of a scalar chain per output.
  const size_t inner = spatial.size() - 1;
  const int64_t lanes = params.Lanes(b.WidestDType());
  std::optional<int64_t> extent = ConstExtent(sch.Get(spatial[inner])->extent);
  if (lanes > 1 && extent && *extent % lanes == 0 && ContiguousAxis(b.block, inner, /*output=*/true)) {
    std::vector<schedule::LoopRV> outer(spatial.begin(), spatial.end() - 1);
    schedule::LoopRV vector = spatial[inner];
    if (*extent > lanes) {
      std::vector<schedule::LoopRV> split = sch.Split(vector, {std::nullopt, lanes});
      outer.push_back(split[0]);
      vector = split[1];
    }
    std::vector<schedule::LoopRV> order = outer;
    order.insert(order.end(), reduce.begin(), reduce.end());
    order.push_back(vector);
    sch.Reorder(order);
    sch.Vectorize(vector);
    std::optional<int64_t> rows = LoopElements(sch, outer);
    if (threads && !outer.empty() && (!rows || *rows >= 2) && LoopElements(sch, outer)) {
      sch.Parallel(outer.size() == 1 ? outer[0] : sch.Fuse(outer));
    }
    sch.DecomposeReduction(b.rv, reduce.front());
    return;
  }
  std::optional<int64_t> rows = LoopElements(sch, spatial);
  // One reduction axis read contiguously by every operand, at least two vectors long
  // (attention's scores over the head dimension): its lanes accumulate in a vector (rfactor),
  // computed at each output, the lanes combined once per output, as the Reduction rule's rows.
  std::optional<int64_t> length = ConstExtent(sch.Get(reduce.back())->extent);
  if (reduce.size() == 1 && lanes > 1 && length && *length % lanes == 0 && *length >= 2 * lanes &&
      ContiguousAxis(b.block, b.block->iter_vars.size() - 1, /*output=*/false)) {
    std::vector<schedule::LoopRV> split = sch.Split(reduce.back(), {std::nullopt, lanes});
    schedule::SBlockRV rf = sch.RFactor(split[1], -1);
    std::vector<schedule::LoopRV> loops = sch.GetLoops(b.rv);
    std::vector<schedule::LoopRV> outer(loops.begin(), loops.begin() + static_cast<long>(spatial.size()));
    schedule::LoopRV fused = outer.size() == 1 ? outer[0] : sch.Fuse(outer);
    sch.ComputeAt(rf, fused);
    std::optional<BlockInfo> info;
    for (BlockInfo& i : GetBlockInfos(sch)) {
      if (i.name == sch.Get(rf)->name_hint) info = i;
    }
    if (!info) return;
    const size_t last = info->block->iter_vars.size() - 1;
    std::optional<schedule::LoopRV> lane = info->LoopOf(sch, 0), rest = info->LoopOf(sch, last);
    if (!lane || !rest || info->block->iter_vars[last]->iter_type != tir::IterVarType::kCommReduce)
      return;
    sch.Reorder({*rest, *lane});
    sch.Vectorize(*lane);
    if (threads && (!rows || *rows >= 2)) sch.Parallel(fused);
    sch.DecomposeReduction(rf, *rest);
    return;
  }
  if (!threads) return;
  if (rows && *rows < 2) return;
  schedule::LoopRV fused = spatial.size() == 1 ? spatial[0] : sch.Fuse(spatial);
  sch.Parallel(fused);
}

std::optional<schedule::Schedule> Apply(const tir::PrimFunc& func, const codegen::Target& target) {
  schedule::Schedule sch(SingleFunctionModule(func));
  CpuParams params = CpuParamsOf(target);
  for (const BlockInfo& b : GetBlockInfos(sch)) {
    try {
      ScheduleBlock(sch, b, params);
    } catch (const schedule::ScheduleError&) {
      // This block keeps the steps that applied; the others are scheduled regardless.
    }
  }
  return sch;
}

}  // namespace

ScheduleRule Fallback() { return {"Fallback", Apply}; }

}  // namespace wb::dlight::cpu
