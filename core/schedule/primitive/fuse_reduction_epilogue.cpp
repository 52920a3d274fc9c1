// fuse_reduction_epilogue (primitives.h): a reduction into an intermediate `temp` followed by an
// elementwise epilogue `D = E(temp)` becomes one reduction into D, as TVM's ReductionEpilogueFuser
// does. E reads temp once and combines it only through additions, min/max and other shells that
// do not scale it (no `*`, `/`, `%` over it): a bias `temp + C`, a ReLU `max(temp + C, 0)`, a
// clip `min(max(temp, lo), hi)`. The fused block's init is E with temp replaced by the
// reduction's init value; its update is E with temp replaced by the reduction's update (reading
// D), where the addend next to temp is dropped (the bias was added once, by the init). For a
// linear epilogue (the bias) this is the same program; for ReLU and clipping the shell then
// applies at every reduction step, which is the primitive's documented meaning in TVM.
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

const char kErrEpilogueBody[] =
    "The body of the inlined block should be in form of\n"
    "    `B[...] = g(i, j, k, A[f(i, j, k, ...)] ...)`,\n"
    "where A is the reduction's output, read exactly once and combined only by additions and "
    "min/max\n(no multiplication, division or modulo of it), and there should not be predicates "
    "in the\nepilogue block.";

int CountLoads(const PrimExpr& e, const Buffer& buffer) {
  int count = 0;
  PostOrderVisit(e, [&](const ir::Object* n) {
    auto* load = NodeAs<BufferLoadNode>(n);
    count += load && load->buffer.same_as(buffer);
  });
  return count;
}

bool Loads(const PrimExpr& e, const Buffer& buffer) { return CountLoads(e, buffer) > 0; }

// Whether `e` multiplies, divides or takes the remainder of an expression reading `buffer`:
// the epilogue would then scale the partial sums, which per-step application cannot express.
bool ScalesLoad(const PrimExpr& e, const Buffer& buffer) {
  bool scales = false;
  PostOrderVisit(e, [&](const ir::Object* n) {
    const PrimExpr* a = nullptr;
    const PrimExpr* b = nullptr;
    if (auto* m = NodeAs<MulNode>(n)) a = &m->a, b = &m->b;
    if (auto* d = NodeAs<DivNode>(n)) a = &d->a, b = &d->b;
    if (auto* m = NodeAs<ModNode>(n)) a = &m->a, b = &m->b;
    scales |= a && (Loads(*a, buffer) || Loads(*b, buffer));
  });
  return scales;
}

// The epilogue's expression with the load of temp replaced by `replacement`. An addition met on
// the way up from that load keeps only its operand holding it: the bias it adds was applied by
// the init. TVM's rule is asymmetric after the first such addition (when temp came from the
// left operand, outer additions are kept; from the right, the next one drops its other operand
// too); it is followed as written so the fused block is the one TVM builds.
class EpilogueApplier : public ExprMutator {
 public:
  // `drop_addend` off: a plain substitution (the init's `E(init value)`).
  EpilogueApplier(Buffer temp, PrimExpr replacement, bool drop_addend = true)
      : temp_(std::move(temp)), replacement_(std::move(replacement)), drop_addend_(drop_addend) {}
  using ExprMutator::VisitExpr_;

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    if (op->buffer.same_as(temp_)) {
      found_ = true;
      return replacement_;
    }
    return ExprMutator::VisitExpr_(op);
  }

  PrimExpr VisitExpr_(const AddNode* op) override {
    if (!drop_addend_) return ExprMutator::VisitExpr_(op);
    bool before = found_;
    found_ = false;
    PrimExpr a = VisitExpr(op->a);
    bool in_a = found_;
    found_ = false;
    PrimExpr b = VisitExpr(op->b);
    if (in_a) return a;
    if (found_) return b;
    found_ = before;
    if (a.same_as(op->a) && b.same_as(op->b)) return ir::GetRef(op);
    return MakeBinary(ir::TypeIndex::kAdd, a, b, op->span);
  }

 private:
  Buffer temp_;
  PrimExpr replacement_;
  bool drop_addend_;
  bool found_ = false;
};

// Loads of `from` in an expression read `to` at the same indices.
class LoadRedirector : public ExprMutator {
 public:
  LoadRedirector(Buffer from, Buffer to) : from_(std::move(from)), to_(std::move(to)) {}
  using ExprMutator::VisitExpr_;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = ExprMutator::VisitExpr_(op);
    auto* load = e.as<BufferLoadNode>();
    if (!load->buffer.same_as(from_)) return e;
    return MakeBufferLoad(to_, load->indices, load->predicate, load->span);
  }

 private:
  Buffer from_;
  Buffer to_;
};

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
  // TVM's body analysis: no predicate, a store whose value reads temp once and does not scale it,
  // and a producer with a reduction iterator.
  const SBlockRealizeNode* e_realize = RealizeOf(func, epilogue.get());
  auto* e_store = epilogue->body.as<BufferStoreNode>();
  bool has_reduce_iter = std::any_of(
      reduction->iter_vars.begin(), reduction->iter_vars.end(),
      [](const IterVar& iv) { return iv->iter_type == IterVarType::kCommReduce; });
  int temp_loads = 0;
  if (e_store) {
    for (const PrimExpr& i : e_store->indices) temp_loads += CountLoads(i, temp);
    temp_loads += CountLoads(e_store->value, temp);
  }
  if (!e_realize || !IsConstInt(e_realize->predicate, 1) || !e_store || temp_loads != 1 ||
      !Loads(e_store->value, temp) || ScalesLoad(e_store->value, temp) || !has_reduce_iter) {
    throw ScheduleError(kPrim, kErrEpilogueBody, epilogue->span);
  }
  const BufferLoadNode* e_load = nullptr;
  PostOrderVisit(e_store->value, [&](const ir::Object* n) {
    auto* load = NodeAs<BufferLoadNode>(n);
    if (load && load->buffer.same_as(temp)) e_load = load;
  });
  auto* r_store = reduction->body.as<BufferStoreNode>();
  auto* r_init = reduction->init.defined() ? reduction->init.as<BufferStoreNode>() : nullptr;
  if (!r_store || !r_init || !r_store->buffer.same_as(temp) || !r_init->buffer.same_as(temp) ||
      Loads(r_init->value, temp)) {
    throw ScheduleError(kPrim, "The reduction " + Quote(reduction.get()) +
                                   " must be an init storing a value to " + temp->name +
                                   " and an update storing to " + temp->name,
                        reduction->span);
  }
  Buffer out = e_store->buffer;
  if (Loads(r_store->value, out) || out.same_as(temp)) {
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
  // Dataflow: the epilogue is temp's only reader (TVM fuses with other readers left reading a
  // temp nobody writes any more; that program would read garbage), and nothing between the two
  // blocks touches what the fused block now writes early or reads early.
  std::vector<SBlock> readers = deps.ReadersOf(temp.get());
  if (readers.size() != 1 || !readers[0].same_as(epilogue)) {
    throw body_error("it must be the only block reading " + temp->name +
                     ", which the fused block no longer writes");
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
    bool writes_read = false;
    for (const BufferRegion& w : mid->writes) {
      writes_read |= !w->buffer.same_as(temp) && Loads(e_store->value, w->buffer);
    }
    if (touches_out || writes_read) {
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

  // The fused block: init D = E(init value), update D = E(update reading D) without the addend.
  std::vector<PrimExpr> out_idx;
  for (const PrimExpr& e : e_store->indices) out_idx.push_back(Substitute(e, to_reduction));
  PrimExpr epilogue_value = Substitute(e_store->value, to_reduction);
  PrimExpr init_value =
      analyzer.Simplify(EpilogueApplier(temp, r_init->value, false)(epilogue_value));
  PrimExpr step = LoadRedirector(temp, out)(r_store->value);
  PrimExpr new_update = EpilogueApplier(temp, step)(epilogue_value);
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

  // temp's allocation stays, unused, as in TVM's result (dead allocations go at lowering).
  SBlock new_scope = Downcast<SBlockNode>(FusionReplacer(reduction.get(), fused, removed)(scope));
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
     "fold an elementwise epilogue (bias, ReLU, clip) of a reduction's result into the reduction",
     {{"reduction_block", RecipeParamKind::kBlock, "the reduction writing temp", ""},
      {"epilogue_block", RecipeParamKind::kBlock, "the elementwise block reading temp", ""}}});

}  // namespace
}  // namespace wb::schedule
