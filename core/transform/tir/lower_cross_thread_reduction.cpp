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

bool IsThreadLoop(const ForNode* loop) {
  return loop->kind == ForKind::kThreadBinding && loop->thread_binding.defined() &&
         loop->thread_binding->thread_tag.rfind("threadIdx.", 0) == 0;
}

// The update `B[idx] = B[idx] op value` of a reduction block with `B[idx] = identity` as init.
struct Update {
  const BufferStoreNode* store = nullptr;
  const BufferStoreNode* init = nullptr;
  PrimExpr value;
  CommReducer reducer;
  ir::TypeIndex kind;
};

class CrossThreadLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;
  std::vector<Buffer> new_buffers;

  Stmt VisitStmt_(const ForNode* op) override {
    if (Stmt lowered = LowerWithInThreadPart(op); lowered.defined()) return lowered;
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
      if (!DrivesReduction(op, loop)) continue;
      (IsThreadLoop(loop) ? thread_loops : serial_reduction).push_back(loop);
    }
    if (thread_loops.empty()) return StmtExprMutator::VisitStmt_(op);
    if (thread_loops.size() > 1) Fail(block, "its reduction is bound to more than one thread axis");
    if (!serial_reduction.empty()) {
      Fail(block, "it also reduces over the serial loop '" + serial_reduction[0]->loop_var->name_hint +
                      "', which is not in a chain of reduction loops directly around the block (the "
                      "in-thread reduction needs the loops between the first reduction loop and "
                      "the block to be reduction loops only)");
    }
    const ForNode* tloop = thread_loops[0];
    Update u = ParseUpdate(op);
    Buffer cross = NewLocal("cross_thread_" + u.store->buffer->name, u.store->buffer->dtype);
    PrimExpr cond = MakeIntImm(DataType::Bool(), 1);
    if (op->predicate.defined() && !IsConstInt(op->predicate, 1)) cond = op->predicate;
    return MakeSeq({CrossThreadBlock(op, u, u.value, cond, cross, tloop),
                    WriteBack(op, u, cross, tloop, {tloop})},
                   op->span);
  }

 private:
  [[noreturn]] static void Fail(const SBlockNode* block, const std::string& why) {
    throw ir::PassError(Diagnostic::Error(
        "LowerCrossThreadReduction: block '" + block->name_hint + "': " + why, block->span));
  }

  static bool DrivesReduction(const SBlockRealizeNode* op, const ForNode* loop) {
    const SBlockNode* block = op->block.get();
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i]->iter_type == IterVarType::kCommReduce &&
          Uses(op->iter_values[i], loop->loop_var.get())) {
        return true;
      }
    }
    return false;
  }
  static bool DrivesSpatial(const SBlockRealizeNode* op, const ForNode* loop) {
    const SBlockNode* block = op->block.get();
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i]->iter_type != IterVarType::kCommReduce &&
          Uses(op->iter_values[i], loop->loop_var.get())) {
        return true;
      }
    }
    return false;
  }

  Update ParseUpdate(const SBlockRealizeNode* op) const {
    const SBlockNode* block = op->block.get();
    Update u;
    u.store = block->body.as<BufferStoreNode>();
    u.init = block->init.as<BufferStoreNode>();
    if (!u.store || !u.init || !u.init->buffer.same_as(u.store->buffer)) {
      Fail(block, "the body is not a single update B[...] = B[...] op value with a matching init");
    }
    auto is_self = [&](const PrimExpr& e) {
      auto* load = e.as<BufferLoadNode>();
      if (!load || !load->buffer.same_as(u.store->buffer) || load->indices.size() != u.store->indices.size()) {
        return false;
      }
      for (size_t i = 0; i < load->indices.size(); ++i) {
        if (!ir::StructuralEqual(load->indices[i], u.store->indices[i], false)) return false;
      }
      return true;
    };
    auto* bin = dynamic_cast<const BinaryNode*>(u.store->value.get());
    u.kind = u.store->value->type_index();
    const bool combiner = bin && (u.kind == ir::TypeIndex::kAdd || u.kind == ir::TypeIndex::kMul ||
                                  u.kind == ir::TypeIndex::kMax || u.kind == ir::TypeIndex::kMin);
    if (!combiner || !(is_self(bin->a) || is_self(bin->b))) {
      Fail(block, "the update is not B[...] = B[...] op value with op one of +, *, max, min");
    }
    u.value = is_self(bin->a) ? bin->b : bin->a;
    const DataType t = u.store->buffer->dtype;
    Var x = MakeVar("x", t), y = MakeVar("y", t);
    u.reducer = MakeCommReducer({x}, {y}, {MakeBinary(u.kind, x, y)}, {u.init->value});
    return u;
  }

  Buffer NewLocal(const std::string& name, DataType t) {
    Buffer b = MakeBuffer(name, {MakeIntImm(DataType::Int(32), 1)}, t, BufferOptions{.scope = "local"});
    new_buffers.push_back(b);
    return b;
  }

  static VarMap Bindings(const SBlockRealizeNode* op) {
    VarMap bind;
    for (size_t i = 0; i < op->block->iter_vars.size(); ++i) {
      bind[op->block->iter_vars[i]->var.get()] = op->iter_values[i];
    }
    return bind;
  }

  // "<block>_cross_thread": every thread's `value` (masked by `cond`) reduced over `tloop`'s
  // axis into `cross`. Opaque: its body names the thread loop variable, which a block with iter
  // vars may not, so the iter vars are replaced by their bindings.
  Stmt CrossThreadBlock(const SBlockRealizeNode* op, const Update& u, const PrimExpr& value,
                        const PrimExpr& cond, const Buffer& cross, const ForNode* tloop,
                        std::vector<BufferRegion> extra_reads = {}) const {
    const SBlockNode* block = op->block.get();
    PrimExpr allreduce = MakeCall(
        DataType::Handle(), GetOp("tirx.tvm_thread_allreduce"),
        {MakeIntImm(DataType::UInt(32), 1), value, cond, cross->data, tloop->loop_var}, op->span);
    Stmt reduce = MakeAttrStmt(u.reducer, "reduce_scope",
                               MakeCall(DataType::Handle(), GetOp("tirx.reinterpret"),
                                        {MakeIntImm(DataType::UInt(64), 0)}),
                               MakeEvaluate(allreduce, op->span), op->span);
    VarMap bind = Bindings(op);
    std::vector<BufferRegion> reads = std::move(extra_reads);
    if (reads.empty()) {
      for (const auto& r : block->reads) {
        if (!r->buffer.same_as(u.store->buffer)) reads.push_back(Substitute(r, bind));
      }
    }
    SBlock cross_block = MakeSBlock({}, reads, {FullRegion(cross)}, block->name_hint + "_cross_thread",
                                    Substitute(reduce, bind), {}, {}, {}, block->annotations, block->span);
    return MakeSBlockRealize({}, MakeIntImm(DataType::Bool(), 1), cross_block, op->span);
  }

  // "<block>_write_back": the result stored from the first thread, spatial iter vars only. The
  // block's predicate is kept with the `reduction_loops` at their first iteration.
  Stmt WriteBack(const SBlockRealizeNode* op, const Update& u, const Buffer& cross, const ForNode* tloop,
                 const std::vector<const ForNode*>& reduction_loops) const {
    const SBlockNode* block = op->block.get();
    std::vector<IterVar> spatial;
    std::vector<PrimExpr> spatial_values;
    VarMap first;
    for (const ForNode* l : reduction_loops) first[l->loop_var.get()] = l->min;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i]->iter_type == IterVarType::kCommReduce) continue;
      for (const ForNode* l : reduction_loops) {
        if (Uses(op->iter_values[i], l->loop_var.get())) {
          Fail(block, "a spatial iter var depends on the reduction loop '" + l->loop_var->name_hint + "'");
        }
      }
      spatial.push_back(block->iter_vars[i]);
      spatial_values.push_back(op->iter_values[i]);
    }
    PrimExpr wb_pred = equal(tloop->loop_var, MakeIntImm(tloop->loop_var->dtype, 0));
    if (op->predicate.defined() && !IsConstInt(op->predicate, 1)) {
      // The predicate at the first thread, with the reduction iter vars there too.
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
      if (w->buffer.same_as(u.store->buffer)) writes.push_back(w);
    }
    PrimExpr zero = MakeIntImm(DataType::Int(32), 0);
    Stmt body = MakeBufferStore(u.store->buffer, MakeBufferLoad(cross, {zero}), u.store->indices, {},
                                u.store->span);
    SBlock write_back = MakeSBlock(spatial, {FullRegion(cross)}, writes, block->name_hint + "_write_back",
                                   body, {}, {}, {}, {}, block->span);
    return MakeSBlockRealize(spatial_values, wb_pred, write_back, op->span);
  }

  // TVM's in-thread reduction: `op` heads a chain of loops (each the only statement of the one
  // above) that drive reduction iter vars only, ending at a reduction block; one of them is
  // bound to threadIdx and the others are serial. Each thread first reduces its serial share into
  // "normal_reduce_temp_<B>" (from the init's identity), then the threads reduce those:
  //   for tx (thread):  temp = identity; for serial...: temp = temp op value; allreduce(temp);
  //                     B[...] = cross (first thread)
  // The thread loop moves outside the serial ones, which reorders a commutative reduction.
  // Null when `op` is not such a chain.
  Stmt LowerWithInThreadPart(const ForNode* op) {
    std::vector<const ForNode*> chain;
    Stmt s = GetRef(op);
    while (auto* f = s.as<ForNode>()) {
      chain.push_back(f);
      s = f->body;
    }
    auto* realize = s.as<SBlockRealizeNode>();
    if (!realize || !realize->block->init.defined()) return {};
    std::vector<const ForNode*> thread_loops, serial;
    for (const ForNode* f : chain) {
      if (!DrivesReduction(realize, f) || DrivesSpatial(realize, f)) return {};
      (IsThreadLoop(f) ? thread_loops : serial).push_back(f);
    }
    if (thread_loops.size() != 1 || serial.empty()) return {};
    for (const ForNode* f : serial) {
      if (f->kind == ForKind::kThreadBinding) return {};
    }
    const SBlockNode* block = realize->block.get();
    // Reduction loops outside the chain would reduce over more than it: not this shape.
    for (const ForNode* l : loops_) {
      if (DrivesReduction(realize, l)) return {};
    }
    const ForNode* tloop = thread_loops[0];
    Update u = ParseUpdate(realize);
    const DataType t = u.store->buffer->dtype;
    PrimExpr zero = MakeIntImm(DataType::Int(32), 0);
    Buffer temp = NewLocal("normal_reduce_temp_" + u.store->buffer->name, t);
    Buffer cross = NewLocal("cross_thread_" + u.store->buffer->name, t);
    VarMap bind = Bindings(realize);
    // The identity into the thread's accumulator.
    SBlock init = MakeSBlock({}, {}, {FullRegion(temp)}, block->name_hint + "_in_thread_init",
                             MakeBufferStore(temp, Substitute(u.init->value, bind), {zero}), {}, {}, {}, {},
                             block->span);
    // The thread's serial share, under the serial loops, with the block's predicate; its iter
    // vars are fresh (the write-back defines the spatial ones again).
    std::vector<IterVar> iters;
    VarMap fresh;
    for (const IterVar& iv : block->iter_vars) {
      Var v = MakeVar(iv->var->name_hint, iv->var->dtype);
      fresh[iv->var.get()] = v;
      iters.push_back(MakeIterVar(iv->dom, v, iv->iter_type, iv->thread_tag));
    }
    std::vector<BufferRegion> reads;
    for (const auto& r : block->reads) {
      if (!r->buffer.same_as(u.store->buffer)) reads.push_back(Substitute(r, fresh));
    }
    reads.push_back(FullRegion(temp));
    PrimExpr acc = MakeBinary(u.kind, MakeBufferLoad(temp, {zero}), Substitute(u.value, fresh));
    SBlock update = MakeSBlock(iters, reads, {FullRegion(temp)}, block->name_hint + "_in_thread",
                               MakeBufferStore(temp, acc, {zero}, {}, u.store->span), {}, {}, {},
                               block->annotations, block->span);
    Stmt in_thread = MakeSBlockRealize(realize->iter_values, realize->predicate, update, realize->span);
    for (auto it = serial.rbegin(); it != serial.rend(); ++it) {
      const ForNode* f = *it;
      in_thread = MakeFor(f->loop_var, f->min, f->extent, f->kind, in_thread, {}, f->annotations, f->step, f->span);
    }
    Stmt cross_block = CrossThreadBlock(realize, u, MakeBufferLoad(temp, {zero}), MakeIntImm(DataType::Bool(), 1),
                                        cross, tloop, {FullRegion(temp)});
    Stmt body = MakeSeq({MakeSBlockRealize({}, MakeIntImm(DataType::Bool(), 1), init, realize->span), in_thread,
                         cross_block, WriteBack(realize, u, cross, tloop, chain)},
                        op->span);
    return MakeFor(tloop->loop_var, tloop->min, tloop->extent, tloop->kind, body, tloop->thread_binding,
                   tloop->annotations, tloop->step, tloop->span);
  }

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
