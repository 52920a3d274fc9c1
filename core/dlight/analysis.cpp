#include "dlight/analysis.h"

#include "ir/structural_equal.h"

#include <algorithm>
#include <set>

#include "tir/functor.h"
#include "tir/op.h"

namespace wb::dlight {

using namespace tir;

int CpuParams::Lanes(DataType dtype) const {
  int bits = std::max(8, dtype.bits());
  return std::max(1, vector_bits / bits);
}

CpuParams CpuParamsOf(const codegen::Target& target) {
  CpuParams p;
  p.vector_bits = target.MaxVectorBits();
  p.vector_registers = target.NumVectorRegisters();
  if (target.l1d_cache_bytes > 0) p.l1d_bytes = target.l1d_cache_bytes;
  if (target.l2_cache_bytes > 0) p.l2_bytes = target.l2_cache_bytes;
  p.num_cores = std::max(1, target.num_cores);
  return p;
}

std::optional<int64_t> ConstExtent(const PrimExpr& extent) {
  if (const int64_t* n = AsConstInt(extent)) return *n;
  return std::nullopt;
}

bool BlockInfo::IsSpatial() const {
  return std::all_of(block->iter_vars.begin(), block->iter_vars.end(),
                     [](const IterVar& iv) { return iv->iter_type == IterVarType::kDataPar; });
}

bool BlockInfo::IsReduction() const {
  if (!block->init.defined()) return false;
  return std::all_of(block->iter_vars.begin(), block->iter_vars.end(), [](const IterVar& iv) {
    return iv->iter_type == IterVarType::kDataPar || iv->iter_type == IterVarType::kCommReduce;
  });
}

bool BlockInfo::ReductionInnermost() const {
  bool seen_reduce = false;
  for (const IterVar& iv : block->iter_vars) {
    if (iv->iter_type != IterVarType::kDataPar)
      seen_reduce = true;
    else if (seen_reduce)
      return false;
  }
  return true;
}

std::optional<schedule::LoopRV> BlockInfo::LoopOf(schedule::Schedule& sch, size_t iter) const {
  if (iter >= bindings.size()) return std::nullopt;
  for (const schedule::LoopRV& loop : loops) {
    if (sch.Get(loop)->loop_var.same_as(bindings[iter])) return loop;
  }
  return std::nullopt;
}

DataType BlockInfo::WidestDType() const {
  DataType widest = DataType::Float(32);
  int bits = 0;
  for (const auto* regions : {&block->reads, &block->writes}) {
    for (const BufferRegion& r : *regions) {
      if (r->buffer->dtype.bits() > bits) {
        bits = r->buffer->dtype.bits();
        widest = r->buffer->dtype;
      }
    }
  }
  return widest;
}

namespace {

// The realizes of the blocks whose nearest enclosing block is the root, with their loops.
class ChildRealizes : public StmtVisitor {
 public:
  struct Entry {
    const SBlockRealizeNode* realize;
    std::vector<const ForNode*> loops;
  };
  std::vector<Entry> entries;

  void VisitStmt_(const ForNode* op) override {
    loops_.push_back(op);
    StmtVisitor::VisitStmt_(op);
    loops_.pop_back();
  }
  void VisitStmt_(const SBlockRealizeNode* op) override {
    if (depth_ == 0) {
      // The root block: look inside.
      ++depth_;
      std::vector<const ForNode*> saved;
      std::swap(saved, loops_);
      StmtVisitor::VisitStmt_(op);
      std::swap(saved, loops_);
      --depth_;
      return;
    }
    entries.push_back({op, loops_});
  }

 private:
  int depth_ = 0;
  std::vector<const ForNode*> loops_;
};

bool IsTrue(const PrimExpr& e) {
  if (!e.defined()) return true;
  const int64_t* v = AsConstInt(e);
  return v && *v != 0;
}

bool SameExtent(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  const int64_t* x = AsConstInt(a);
  const int64_t* y = AsConstInt(b);
  if (x || y) return x && y && *x == *y;
  // Symbolic: the same expression, built twice (`n` and `n` cast from the shape, `n * 4`).
  return ir::StructuralEqual(a, b, /*map_free_vars=*/false);
}

}  // namespace

bool IsSimpleNest(const SBlockRealizeNode* realize, const std::vector<const ForNode*>& loops) {
  const auto& values = realize->iter_values;
  const auto& iters = realize->block->iter_vars;
  if (!IsTrue(realize->predicate) || values.size() != loops.size() ||
      values.size() != iters.size())
    return false;
  for (size_t k = 0; k < values.size(); ++k) {
    const ForNode* loop = loops[k];
    if (!values[k].same_as(loop->loop_var) || !IsConstInt(loop->min, 0) ||
        !IsConstInt(iters[k]->dom->min, 0) || !SameExtent(loop->extent, iters[k]->dom->extent))
      return false;
  }
  return true;
}

std::vector<BlockInfo> GetBlockInfos(schedule::Schedule& sch) {
  ChildRealizes finder;
  finder(sch.Func()->body);
  std::vector<BlockInfo> infos;
  for (const auto& entry : finder.entries) {
    BlockInfo info;
    info.block = entry.realize->block;
    info.name = info.block->name_hint;
    info.rv = sch.GetSBlock(info.name);
    info.loops = sch.GetLoops(info.rv);
    info.bindings = entry.realize->iter_values;
    info.simple_nest =
        info.loops.size() == entry.loops.size() && IsSimpleNest(entry.realize, entry.loops);
    infos.push_back(std::move(info));
  }
  return infos;
}

namespace {

const BufferLoadNode* StripCast(const PrimExpr& e) {
  PrimExpr x = e;
  while (auto* c = x.as<CastNode>()) x = c->value;
  return x.as<BufferLoadNode>();
}

// The iterator positions the load's indices name, or nullopt when an index is neither an
// iterator nor the constant 0.
std::optional<std::vector<int>> IndexIters(const std::vector<PrimExpr>& indices,
                                           const std::vector<IterVar>& iters) {
  std::vector<int> out;
  for (const PrimExpr& index : indices) {
    if (IsConstInt(index, 0)) {
      out.push_back(-1);
      continue;
    }
    int found = -1;
    for (size_t k = 0; k < iters.size(); ++k) {
      if (index.same_as(iters[k]->var)) found = static_cast<int>(k);
    }
    if (found < 0) return std::nullopt;
    out.push_back(found);
  }
  return out;
}

bool Contains(const std::vector<int>& v, size_t x) {
  return std::find(v.begin(), v.end(), static_cast<int>(x)) != v.end();
}

}  // namespace

std::optional<MatmulPattern> MatchMatmul(const SBlock& block) {
  if (!block->init.defined()) return std::nullopt;
  auto* store = block->body.as<BufferStoreNode>();
  auto* init = block->init.as<BufferStoreNode>();
  if (!store || !init || !init->buffer.same_as(store->buffer)) return std::nullopt;
  auto* zero_float = init->value.as<FloatImmNode>();
  if (!IsConstInt(init->value, 0) && !(zero_float && zero_float->value == 0.0)) return std::nullopt;
  auto* add = store->value.as<AddNode>();
  if (!add) return std::nullopt;
  auto is_self = [&](const PrimExpr& e) {
    auto* load = e.as<BufferLoadNode>();
    if (!load || !load->buffer.same_as(store->buffer) ||
        load->indices.size() != store->indices.size())
      return false;
    for (size_t d = 0; d < load->indices.size(); ++d) {
      if (!load->indices[d].same_as(store->indices[d])) return false;
    }
    return true;
  };
  PrimExpr rhs;
  if (is_self(add->a))
    rhs = add->b;
  else if (is_self(add->b))
    rhs = add->a;
  else
    return std::nullopt;
  auto* mul = rhs.as<MulNode>();
  if (!mul) return std::nullopt;
  const BufferLoadNode* x = StripCast(mul->a);
  const BufferLoadNode* y = StripCast(mul->b);
  if (!x || !y) return std::nullopt;
  const auto& iters = block->iter_vars;
  std::vector<size_t> reduce;
  size_t spatial = 0;
  for (size_t k = 0; k < iters.size(); ++k) {
    if (iters[k]->iter_type == IterVarType::kCommReduce)
      reduce.push_back(k);
    else if (iters[k]->iter_type == IterVarType::kDataPar)
      ++spatial;
    else
      return std::nullopt;
  }
  if (reduce.size() != 1) return std::nullopt;
  auto c_iters = IndexIters(store->indices, iters);
  auto x_iters = IndexIters(x->indices, iters);
  auto y_iters = IndexIters(y->indices, iters);
  if (!c_iters || !x_iters || !y_iters || c_iters->size() < 2 || c_iters->size() != spatial)
    return std::nullopt;
  std::set<int> distinct(c_iters->begin(), c_iters->end());
  if (distinct.size() != c_iters->size() || distinct.count(-1)) return std::nullopt;
  MatmulPattern p;
  p.k_iter = reduce[0];
  p.j_iter = static_cast<size_t>(c_iters->back());
  p.i_iter = static_cast<size_t>((*c_iters)[c_iters->size() - 2]);
  const BufferLoadNode* a = x;
  const BufferLoadNode* b = y;
  std::vector<int> ai = *x_iters, bi = *y_iters;
  if (Contains(ai, p.j_iter)) {
    std::swap(a, b);
    std::swap(ai, bi);
  }
  if (Contains(ai, p.j_iter) || !Contains(bi, p.j_iter) || Contains(bi, p.i_iter) ||
      !Contains(ai, p.i_iter) || !Contains(ai, p.k_iter) || !Contains(bi, p.k_iter)) {
    return std::nullopt;
  }
  for (size_t d = 0; d + 2 < c_iters->size(); ++d)
    p.batch_iters.push_back(static_cast<size_t>((*c_iters)[d]));
  p.a = a->buffer;
  p.b = b->buffer;
  p.c = store->buffer;
  // B's last two indices: [k, j] (row-major weight) or [j, k] (transposed).
  if (bi.size() < 2) return std::nullopt;
  int last = bi.back(), second = bi[bi.size() - 2];
  if (last == static_cast<int>(p.j_iter) && second == static_cast<int>(p.k_iter))
    p.b_transposed = false;
  else if (last == static_cast<int>(p.k_iter) && second == static_cast<int>(p.j_iter))
    p.b_transposed = true;
  else
    return std::nullopt;
  return p;
}

}  // namespace wb::dlight
