#include "transform/tir/lower_cross_thread_reduction.h"

#include <unordered_set>

#include "ir/structural_equal.h"
#include "tir/builtin.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

bool Uses(const PrimExpr& e, const VarNode* v) {
  bool found = false;
  PostOrderVisit(e, [&](const Object* n) { found |= n == v; });
  return found;
}

class CrossThreadLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;
  std::vector<Buffer> new_buffers;

  Stmt VisitStmt_(const ForNode* op) override {
    loops_.push_back(op);
    Stmt s = StmtExprMutator::VisitStmt_(op);
    loops_.pop_back();
    return s;
  }

  Stmt VisitStmt_(const SBlockRealizeNode* op) override {
    const SBlockNode* block = op->block.get();
    if (!block->init.defined()) return StmtExprMutator::VisitStmt_(op);
    // The thread-bound loops that drive reduction iter vars.
    std::vector<const ForNode*> thread_loops;
    std::vector<const ForNode*> serial_reduction;
    for (const ForNode* loop : loops_) {
      bool reduces = false;
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        if (block->iter_vars[i]->iter_type == IterVarType::kCommReduce &&
            Uses(op->iter_values[i], loop->loop_var.get())) {
          reduces = true;
        }
      }
      if (!reduces) continue;
      const bool thread = loop->kind == ForKind::kThreadBinding && loop->thread_binding.defined() &&
                          loop->thread_binding->thread_tag.rfind("threadIdx.", 0) == 0;
      (thread ? thread_loops : serial_reduction).push_back(loop);
    }
    if (thread_loops.empty()) return StmtExprMutator::VisitStmt_(op);
    auto fail = [&](const std::string& why) -> Stmt {
      throw ir::PassError(Diagnostic::Error(
          "LowerCrossThreadReduction: block '" + block->name_hint + "': " + why, block->span));
    };
    if (thread_loops.size() > 1) fail("its reduction is bound to more than one thread axis");
    if (!serial_reduction.empty()) {
      fail("it also reduces over the serial loop '" + serial_reduction[0]->loop_var->name_hint +
           "'; bind every reduction loop to the thread axis (in-thread reduction first is not "
           "supported)");
    }
    const ForNode* tloop = thread_loops[0];
    // The update B[idx] = B[idx] op value, with B[idx] = identity as init.
    auto* store = block->body.as<BufferStoreNode>();
    auto* init = block->init.as<BufferStoreNode>();
    if (!store || !init || !init->buffer.same_as(store->buffer)) {
      fail("the body is not a single update B[...] = B[...] op value with a matching init");
    }
    auto is_self = [&](const PrimExpr& e) {
      auto* load = e.as<BufferLoadNode>();
      if (!load || !load->buffer.same_as(store->buffer) || load->indices.size() != store->indices.size()) return false;
      for (size_t i = 0; i < load->indices.size(); ++i) {
        if (!ir::StructuralEqual(load->indices[i], store->indices[i], false)) return false;
      }
      return true;
    };
    auto* bin = dynamic_cast<const BinaryNode*>(store->value.get());
    const ir::TypeIndex kind = store->value->type_index();
    const bool combiner = bin && (kind == ir::TypeIndex::kAdd || kind == ir::TypeIndex::kMul ||
                                  kind == ir::TypeIndex::kMax || kind == ir::TypeIndex::kMin);
    if (!combiner || !(is_self(bin->a) || is_self(bin->b))) {
      fail("the update is not B[...] = B[...] op value with op one of +, *, max, min");
    }
    PrimExpr value = is_self(bin->a) ? bin->b : bin->a;
    const DataType t = store->buffer->dtype;
    Var x = MakeVar("x", t), y = MakeVar("y", t);
    CommReducer reducer = MakeCommReducer({x}, {y}, {MakeBinary(kind, x, y)}, {init->value});

    Buffer cross = MakeBuffer("cross_thread_" + store->buffer->name, {MakeIntImm(DataType::Int(32), 1)},
                              t, BufferOptions{.scope = "local"});
    new_buffers.push_back(cross);
    PrimExpr zero = MakeIntImm(DataType::Int(32), 0);
    PrimExpr cond = MakeIntImm(DataType::Bool(), 1);
    if (op->predicate.defined() && !IsConstInt(op->predicate, 1)) cond = op->predicate;
    PrimExpr allreduce = MakeCall(
        DataType::Handle(), GetOp("tirx.tvm_thread_allreduce"),
        {MakeIntImm(DataType::UInt(32), 1), value, cond, cross->data, tloop->loop_var}, op->span);
    Stmt reduce = MakeAttrStmt(reducer, "reduce_scope",
                               MakeCall(DataType::Handle(), GetOp("tirx.reinterpret"),
                                        {MakeIntImm(DataType::UInt(64), 0)}),
                               MakeEvaluate(allreduce, op->span), op->span);
    // The cross-thread block is opaque (its body names the thread loop variable, which a block
    // with iter vars may not): the iter vars are replaced by their bindings.
    VarMap bind;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      bind[block->iter_vars[i]->var.get()] = op->iter_values[i];
    }
    std::vector<BufferRegion> reads;
    for (const auto& r : block->reads) {
      if (!r->buffer.same_as(store->buffer)) reads.push_back(Substitute(r, bind));
    }
    SBlock cross_block = MakeSBlock({}, reads, {FullRegion(cross)},
                                    block->name_hint + "_cross_thread", Substitute(reduce, bind),
                                    {}, {}, {}, block->annotations, block->span);
    // The write-back: spatial iter vars only, from the first thread.
    std::vector<IterVar> spatial;
    std::vector<PrimExpr> spatial_values;
    VarMap first{{tloop->loop_var.get(), MakeIntImm(tloop->loop_var->dtype, 0)}};
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i]->iter_type == IterVarType::kCommReduce) continue;
      if (Uses(op->iter_values[i], tloop->loop_var.get())) fail("a spatial iter var depends on the thread-bound reduction loop");
      spatial.push_back(block->iter_vars[i]);
      spatial_values.push_back(op->iter_values[i]);
    }
    PrimExpr wb_pred = equal(tloop->loop_var, MakeIntImm(tloop->loop_var->dtype, 0));
    if (op->predicate.defined() && !IsConstInt(op->predicate, 1)) {
      // The predicate at the first thread, with the reduction iter vars at that thread too.
      VarMap at_first = first;
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        if (block->iter_vars[i]->iter_type == IterVarType::kCommReduce) {
          at_first[block->iter_vars[i]->var.get()] = Substitute(op->iter_values[i], first);
        }
      }
      wb_pred = logical_and(wb_pred, Substitute(op->predicate, at_first));
    }
    std::vector<BufferRegion> writes;
    for (const auto& w : block->writes) {
      if (w->buffer.same_as(store->buffer)) writes.push_back(w);
    }
    Stmt write_back_body = MakeBufferStore(store->buffer, MakeBufferLoad(cross, {zero}),
                                           store->indices, {}, store->span);
    SBlock write_back = MakeSBlock(spatial, {FullRegion(cross)}, writes,
                                   block->name_hint + "_write_back", write_back_body, {}, {}, {},
                                   {}, block->span);
    return MakeSeq({MakeSBlockRealize({}, MakeIntImm(DataType::Bool(), 1), cross_block, op->span),
                    MakeSBlockRealize(spatial_values, wb_pred, write_back, op->span)},
                   op->span);
  }

 private:
  std::vector<const ForNode*> loops_;
};

}  // namespace

ir::Pass LowerCrossThreadReduction() {
  return CreatePrimFuncPass(
      [](PrimFunc func, const ir::IRModule&, const ir::PassContext&) {
        CrossThreadLowerer lowerer;
        Stmt body = lowerer(func->body);
        if (lowerer.new_buffers.empty()) return func;
        // The local buffers belong to the root block, as TVM places them.
        auto* root = body.as<SBlockRealizeNode>();
        if (!root) {
          throw ir::PassError(Diagnostic::Error(
              "LowerCrossThreadReduction: the function has no root block to allocate in", func->span));
        }
        SBlock block = root->block;
        auto* b = block.CopyOnWrite();
        for (const auto& buf : lowerer.new_buffers) b->alloc_buffers.push_back(buf);
        SBlockRealize realize = Downcast<SBlockRealizeNode>(body);
        realize.CopyOnWrite()->block = block;
        func.CopyOnWrite()->body = realize;
        return func;
      },
      0, "LowerCrossThreadReduction");
}

static PassRegistrar registrar({"LowerCrossThreadReduction",
                                "reduction blocks whose reduction loop is bound to threadIdx "
                                "become tvm_thread_allreduce and a write-back block",
                                {},
                                [](const PassArgs&) { return LowerCrossThreadReduction(); }});

}  // namespace wb::transform
