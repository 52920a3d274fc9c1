// fuse_reduction_epilogue (primitives.h): a sum reduction into an intermediate followed by an
// elementwise `D = temp + X` becomes one reduction into D whose init is X, as TVM's
// ReductionEpilogueFuser does for its bias-add pattern.
#include <algorithm>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/primitives.h"
#include "schedule/recipe.h"
#include "schedule/region.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

const char* kPrim = "fuse-reduction-epilogue";

bool Loads(const PrimExpr& e, const Buffer& buffer) {
  bool found = false;
  PostOrderVisit(e, [&](const ir::Object* n) {
    auto* load = NodeAs<BufferLoadNode>(n);
    found |= load && load->buffer.same_as(buffer);
  });
  return found;
}

// `e` as `load + rest` or `rest + load` with `load` a load of `buffer`; rest is null for `e`
// being the load itself. False when `e` has another shape or `rest` loads the buffer too.
bool SplitAddend(const PrimExpr& e, const Buffer& buffer, const BufferLoadNode** load,
                 PrimExpr* rest, bool* load_first) {
  if (auto* l = e.as<BufferLoadNode>(); l && l->buffer.same_as(buffer)) {
    *load = l;
    *rest = PrimExpr();
    *load_first = true;
    return true;
  }
  auto* add = e.as<AddNode>();
  if (!add) return false;
  for (int side = 0; side < 2; ++side) {
    const PrimExpr& a = side == 0 ? add->a : add->b;
    const PrimExpr& b = side == 0 ? add->b : add->a;
    auto* l = a.as<BufferLoadNode>();
    if (l && l->buffer.same_as(buffer) && !Loads(b, buffer)) {
      *load = l;
      *rest = b;
      *load_first = side == 0;
      return true;
    }
  }
  return false;
}

bool SameIndices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!ir::StructuralEqual(a[i], b[i], /*map_free_vars=*/false)) return false;
  }
  return true;
}

// The scope with the reduction block swapped for the fused one and the epilogue's statement
// removed.
class FusionReplacer : public StmtMutator {
 public:
  FusionReplacer(const SBlockNode* reduction, SBlock fused, const StmtNode* removed)
      : reduction_(reduction), fused_(std::move(fused)), removed_(removed) {}
  using StmtMutator::VisitStmt_;
  Stmt VisitStmt(const Stmt& s) override {
    if (s.get() == removed_) return MakeEvaluate(make_const(DataType::Int(32), int64_t(0)));
    if (s.get() == reduction_) return fused_;
    return StmtMutator::VisitStmt(s);
  }
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> items;
    for (const Stmt& s : op->seq) items.push_back(VisitStmt(s));
    return MakeSeq(items, op->span);
  }

 private:
  const SBlockNode* reduction_;
  SBlock fused_;
  const StmtNode* removed_;
};

}  // namespace

void FuseReductionEpilogue(Schedule& sch, const SBlockRV& reduction_rv,
                           const SBlockRV& epilogue_rv) {
  SBlock reduction = sch.Get(reduction_rv);
  SBlock epilogue = sch.Get(epilogue_rv);
  PrimFunc func = sch.Func();
  SBlock scope = GetScopeRoot(sch, kPrim, epilogue.get(), true);
  if (!GetScopeRoot(sch, kPrim, reduction.get(), false).same_as(scope)) {
    throw ScheduleError(kPrim, "The blocks " + Quote(reduction.get()) + " and " +
                                   Quote(epilogue.get()) + " are not under the same block scope",
                        reduction->span);
  }
  if (reduction->writes.size() != 1) {
    throw ScheduleError(kPrim, "The block is only allowed to write a single buffer region, but "
                               "it writes " +
                                   std::to_string(reduction->writes.size()) + " region(s): " +
                                   Quote(reduction.get()),
                        reduction->span);
  }
  Buffer temp = reduction->writes[0]->buffer;
  BlockScope deps(scope);
  CheckReductionBlock(kPrim, func, deps, reduction.get());
  CheckCompleteBlock(kPrim, deps, epilogue.get());
  if (IsOutputBlock(scope.get(), reduction.get())) {
    throw ScheduleError(kPrim, "The block " + Quote(reduction.get()) +
                                   " is an output block: it writes a buffer that its scope does "
                                   "not allocate",
                        reduction->span);
  }

  auto body_error = [&](const std::string& why) {
    return ScheduleError(kPrim, "The epilogue block " + Quote(epilogue.get()) +
                                    " cannot be fused into the reduction " +
                                    Quote(reduction.get()) + ": " + why,
                         epilogue->span);
  };
  const SBlockRealizeNode* e_realize = RealizeOf(func, epilogue.get());
  if (!e_realize || !IsConstInt(e_realize->predicate, 1)) {
    throw body_error("it has a predicate");
  }
  auto* e_store = epilogue->body.as<BufferStoreNode>();
  const BufferLoadNode* e_load = nullptr;
  PrimExpr addend;
  bool e_load_first = true;
  if (!e_store || !SplitAddend(e_store->value, temp, &e_load, &addend, &e_load_first)) {
    throw body_error("its body must be `D[...] = " + temp->name + "[...] + X` (or `X + " +
                     temp->name + "[...]`, or a copy of " + temp->name + ") with X not reading " +
                     temp->name);
  }
  auto* r_store = reduction->body.as<BufferStoreNode>();
  auto* r_init = reduction->init.defined() ? reduction->init.as<BufferStoreNode>() : nullptr;
  const BufferLoadNode* r_load = nullptr;
  PrimExpr update;
  bool r_load_first = true;
  if (!r_store || !r_init || !r_store->buffer.same_as(temp) || !r_init->buffer.same_as(temp) ||
      !SplitAddend(r_store->value, temp, &r_load, &update, &r_load_first) || !update.defined() ||
      !SameIndices(r_load->indices, r_store->indices) || Loads(r_init->value, temp)) {
    throw ScheduleError(kPrim, "The reduction " + Quote(reduction.get()) +
                                   " must be a sum: an init storing a value to " + temp->name +
                                   " and an update `" + temp->name + "[...] = " + temp->name +
                                   "[...] + f` with f not reading " + temp->name,
                        reduction->span);
  }
  Buffer out = e_store->buffer;
  if (Loads(update, out) || out.same_as(temp)) {
    throw body_error("the reduction reads " + out->name + ", which the fused block writes");
  }
  // The epilogue's iterators stand for the reduction's data-parallel ones, in order.
  std::vector<IterVar> r_data, e_data;
  for (const IterVar& iv : reduction->iter_vars) {
    if (iv->iter_type == IterVarType::kDataPar) r_data.push_back(iv);
  }
  for (const IterVar& iv : epilogue->iter_vars) e_data.push_back(iv);
  arith::Analyzer analyzer;
  bool same_domain = r_data.size() == e_data.size();
  VarMap to_reduction;
  for (size_t i = 0; same_domain && i < r_data.size(); ++i) {
    same_domain = analyzer.CanProveEqual(r_data[i]->dom->min, e_data[i]->dom->min) &&
                  analyzer.CanProveEqual(r_data[i]->dom->extent, e_data[i]->dom->extent);
    to_reduction[e_data[i]->var.get()] = r_data[i]->var;
  }
  std::vector<PrimExpr> load_idx;
  for (const PrimExpr& e : e_load->indices) load_idx.push_back(Substitute(e, to_reduction));
  if (!same_domain || !SameIndices(load_idx, r_store->indices)) {
    throw body_error("its iterators must span the reduction's data-parallel iterators, in order, "
                     "and read " + temp->name + " where the reduction writes it");
  }
  // Dataflow: the epilogue is temp's only reader, and nothing between the two blocks touches
  // what the fused block now writes early or reads early.
  std::vector<SBlock> readers = deps.ReadersOf(temp.get());
  if (readers.size() != 1 || !readers[0].same_as(epilogue)) {
    throw body_error("it must be the only block reading " + temp->name);
  }
  const std::vector<SBlock>& children = deps.children();
  auto pos = [&](const SBlock& b) {
    return std::find_if(children.begin(), children.end(),
                        [&](const SBlock& c) { return c.same_as(b); }) -
           children.begin();
  };
  for (auto i = pos(reduction) + 1; i < pos(epilogue); ++i) {
    const SBlock& mid = children[i];
    bool touches_out = FindRegion(mid->reads, out).defined() || FindRegion(mid->writes, out).defined();
    bool writes_addend = false;
    for (const BufferRegion& w : mid->writes) {
      writes_addend |= addend.defined() && Loads(addend, w->buffer);
    }
    if (touches_out || writes_addend) {
      throw body_error("block " + Quote(mid.get()) + " between them accesses " + out->name +
                       " or writes what the epilogue reads");
    }
  }
  const StmtNode* removed = LeafRemovalTarget(func, scope.get(), epilogue.get());
  if (!removed) {
    throw ScheduleError(kPrim, "The block " + Quote(epilogue.get()) +
                                   " is the only leaf in the scope " + Quote(scope.get()) +
                                   ", which cannot be removed; Otherwise the scope will be empty.",
                        epilogue->span);
  }

  // The fused block: init D = X + init value, update D = D + f.
  std::vector<PrimExpr> out_idx;
  for (const PrimExpr& e : e_store->indices) out_idx.push_back(Substitute(e, to_reduction));
  PrimExpr x = addend.defined() ? Substitute(addend, to_reduction) : PrimExpr();
  PrimExpr init_value = r_init->value;
  if (x.defined()) {
    init_value = analyzer.Simplify(e_load_first ? add(init_value, x) : add(x, init_value));
  }
  PrimExpr acc = MakeBufferLoad(out, out_idx);
  PrimExpr new_update = r_load_first ? add(acc, update) : add(update, acc);
  SBlock fused = reduction;
  SBlockNode* n = fused.CopyOnWrite();
  n->init = MakeBufferStore(out, init_value, out_idx, {}, r_init->span);
  n->body = MakeBufferStore(out, new_update, out_idx, r_store->predicate, r_store->span);
  BufferRegion e_write = FindRegion(epilogue->writes, out);
  n->writes = {e_write.defined() ? Substitute(e_write, to_reduction)
                                 : MakeBufferRegion(out, reduction->writes[0]->region)};
  std::vector<BufferRegion> reads;
  for (const BufferRegion& r : epilogue->reads) {
    if (!r->buffer.same_as(temp)) reads.push_back(Substitute(r, to_reduction));
  }
  for (const BufferRegion& r : reduction->reads) {
    if (!r->buffer.same_as(temp) && !FindRegion(reads, r->buffer).defined()) reads.push_back(r);
  }
  n->reads = std::move(reads);

  SBlock new_scope = Downcast<SBlockNode>(FusionReplacer(reduction.get(), fused, removed)(scope));
  // temp is no longer written or read: drop its allocation.
  SBlockNode* s = new_scope.CopyOnWrite();
  s->alloc_buffers.erase(std::remove_if(s->alloc_buffers.begin(), s->alloc_buffers.end(),
                                        [&](const Buffer& b) { return b.same_as(temp); }),
                         s->alloc_buffers.end());
  ReplaceOptions options;
  options.removed_blocks.push_back(epilogue->name_hint);
  sch.Replace(scope.get(), new_scope, options);
  sch.Record({"fuse_reduction_epilogue",
              {{"reduction_block", TraceValue::Block(reduction_rv.id)},
               {"epilogue_block", TraceValue::Block(epilogue_rv.id)}},
              {},
              false});
}

namespace {

RecipeMethodRegistrar reg_fuse_reduction_epilogue(
    "fuse_reduction_epilogue",
    {{"reduction_block", "epilogue_block"}, false, RecipeReturns::kNothing,
     [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
       FuseReductionEpilogue(sch, args.Block("reduction_block"), args.Block("epilogue_block"));
       return {};
     }},
    {"compute location",
     "fold an elementwise `D = temp + X` after a sum reduction into it (init D = X)",
     {{"reduction_block", RecipeParamKind::kBlock, "the sum reduction writing temp", ""},
      {"epilogue_block", RecipeParamKind::kBlock, "the block adding to temp", ""}}});

}  // namespace
}  // namespace wb::schedule
