#include "transform/tir/vectorize_loop.h"

#include <unordered_map>

#include "tir/builtin.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

// Thrown inside the vectorizer when the whole loop has to stay serial.
struct CannotVectorize {};

int Lanes(const PrimExpr& e) { return e->dtype.lanes(); }

// The scalar an operand stands for when it is the same in every lane, or null.
PrimExpr Invariant(const PrimExpr& e) {
  if (Lanes(e) == 1) return e;
  if (auto* b = e.as<BroadcastNode>()) return b->value;
  return {};
}

PrimExpr Widen(const PrimExpr& e, int lanes) {
  if (Lanes(e) == lanes) return e;
  if (Lanes(e) != 1) throw CannotVectorize();
  return MakeBroadcast(e, lanes);
}

// Rewrites the body of one vectorized loop on vectors of `lanes` lanes.
class Vectorizer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Vectorizer(const ForNode* loop, int lanes)
      : loop_(loop),
        lanes_(lanes),
        ramp_(MakeRamp(loop->min, make_const(loop->loop_var->dtype, int64_t(1)), lanes)) {}

  PrimExpr VisitExpr_(const VarNode* op) override {
    if (op == loop_->loop_var.get()) return ramp_;
    auto it = vars_.find(op);
    return it == vars_.end() ? PrimExpr(GetRef(op)) : it->second;
  }

#define WB_VECTOR_BINARY(Name) \
  PrimExpr VisitExpr_(const Name##Node* op) override { return Binary(op, ir::TypeIndex::k##Name); }
  WB_VECTOR_BINARY(Add)
  WB_VECTOR_BINARY(Sub)
  WB_VECTOR_BINARY(Mul)
  WB_VECTOR_BINARY(Div)
  WB_VECTOR_BINARY(Mod)
  WB_VECTOR_BINARY(FloorDiv)
  WB_VECTOR_BINARY(FloorMod)
  WB_VECTOR_BINARY(Min)
  WB_VECTOR_BINARY(Max)
  WB_VECTOR_BINARY(EQ)
  WB_VECTOR_BINARY(NE)
  WB_VECTOR_BINARY(LT)
  WB_VECTOR_BINARY(LE)
  WB_VECTOR_BINARY(GT)
  WB_VECTOR_BINARY(GE)
  WB_VECTOR_BINARY(And)
  WB_VECTOR_BINARY(Or)
#undef WB_VECTOR_BINARY

  PrimExpr VisitExpr_(const NotNode* op) override {
    PrimExpr a = VisitExpr(op->a);
    return a.same_as(op->a) ? PrimExpr(GetRef(op)) : MakeNot(a, op->span);
  }

  PrimExpr VisitExpr_(const CastNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    if (v.same_as(op->value)) return GetRef(op);
    return MakeCast(op->dtype.with_lanes(Lanes(v)), v, op->span);
  }

  PrimExpr VisitExpr_(const SelectNode* op) override {
    PrimExpr c = VisitExpr(op->condition);
    PrimExpr t = VisitExpr(op->true_value);
    PrimExpr f = VisitExpr(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
      return GetRef(op);
    }
    int lanes = std::max({Lanes(c), Lanes(t), Lanes(f)});
    return MakeSelect(Widen(c, lanes), Widen(t, lanes), Widen(f, lanes), op->span);
  }

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    bool changed = false;
    std::vector<PrimExpr> indices = VisitExprs(op->indices, &changed);
    PrimExpr pred = op->predicate.defined() ? VisitExpr(op->predicate) : op->predicate;
    if (!changed && pred.same_as(op->predicate)) return GetRef(op);
    int lanes = IndexLanes(indices);
    if (pred.defined()) pred = Widen(pred, lanes * op->buffer->dtype.lanes());
    return MakeBufferLoad(op->buffer, std::move(indices), pred, op->span);
  }

  PrimExpr VisitExpr_(const LetNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    if (value.same_as(op->value)) {
      PrimExpr body = VisitExpr(op->body);
      return body.same_as(op->body) ? PrimExpr(GetRef(op)) : MakeLet(op->var, value, body, op->span);
    }
    Var v = MakeVar(op->var->name_hint, value->dtype, op->var->span);
    vars_[op->var.get()] = v;
    PrimExpr body = VisitExpr(op->body);
    return MakeLet(v, value, body, op->span);
  }

  PrimExpr VisitExpr_(const CallNode* op) override {
    bool changed = false;
    std::vector<PrimExpr> args = VisitExprs(op->args, &changed);
    if (!changed) return GetRef(op);
    // Only pure builtins that act lane by lane widen; anything else keeps the loop serial.
    const auto* opnode = op->op.as<ir::OpNode>();
    const OpInfo* info = opnode ? InfoOf(GetRef(opnode)) : nullptr;
    if (!info || !info->pure ||
        (info->result != OpResultType::kSameAsFirstArg && info->result != OpResultType::kSecondArg &&
         info->result != OpResultType::kBool)) {
      throw CannotVectorize();
    }
    int lanes = 1;
    for (const auto& a : args) lanes = std::max(lanes, Lanes(a));
    for (auto& a : args) a = Widen(a, lanes);
    return MakeCall(op->dtype.with_lanes(lanes), op->op, std::move(args), op->span);
  }

  // A vector of vectors has no meaning: these must stay invariant.
  PrimExpr VisitExpr_(const RampNode* op) override { return Unchanged(op); }
  PrimExpr VisitExpr_(const BroadcastNode* op) override { return Unchanged(op); }
  PrimExpr VisitExpr_(const ShuffleNode* op) override { return Unchanged(op); }
  PrimExpr VisitExpr_(const ReduceNode* op) override { return Unchanged(op); }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    bool changed = false;
    std::vector<PrimExpr> indices = VisitExprs(op->indices, &changed);
    PrimExpr pred = op->predicate.defined() ? VisitExpr(op->predicate) : op->predicate;
    if (!changed && value.same_as(op->value) && pred.same_as(op->predicate)) return GetRef(op);
    int lanes = IndexLanes(indices);
    // Every lane would write the same element: the order of the lanes matters, so keep it.
    if (lanes == 1) return Scalarize(GetRef(op));
    int value_lanes = lanes * op->buffer->dtype.lanes();
    if (pred.defined()) pred = Widen(pred, value_lanes);
    return MakeBufferStore(op->buffer, Widen(value, value_lanes), std::move(indices), pred,
                           op->span);
  }

  Stmt VisitStmt_(const IfThenElseNode* op) override {
    PrimExpr cond = VisitExpr(op->condition);
    if (Lanes(cond) > 1) return Scalarize(GetRef(op));
    return StmtExprMutator::VisitStmt_(op);
  }

  Stmt VisitStmt_(const ForNode* op) override {
    PrimExpr min = VisitExpr(op->min);
    PrimExpr extent = VisitExpr(op->extent);
    PrimExpr step = op->step.defined() ? VisitExpr(op->step) : op->step;
    if (!min.same_as(op->min) || !extent.same_as(op->extent) || !step.same_as(op->step)) {
      return Scalarize(GetRef(op));
    }
    return StmtExprMutator::VisitStmt_(op);
  }

  Stmt VisitStmt_(const BindNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    if (value.same_as(op->value)) return GetRef(op);
    Var v = MakeVar(op->var->name_hint, value->dtype, op->var->span);
    vars_[op->var.get()] = v;
    return MakeBind(v, value, op->span);
  }

  Stmt VisitStmt_(const AssertStmtNode* op) override {
    if (Lanes(VisitExpr(op->condition)) > 1) return Scalarize(GetRef(op));
    return GetRef(op);
  }

  // Side effects (an extern call, `T.break_loop()`) must happen once per iteration: such a
  // loop stays serial.
  Stmt VisitStmt_(const EvaluateNode* op) override {
    bool side_effect = false;
    PostOrderVisit(op->value, [&](const Object* node) {
      if (node->type_index() != ir::TypeIndex::kCall) return;
      const auto* call = static_cast<const CallNode*>(node);
      const auto* callee = call->op.as<ir::OpNode>();
      const OpInfo* info = callee ? InfoOf(GetRef(callee)) : nullptr;
      side_effect |= !info || !info->pure;
    });
    if (side_effect) throw CannotVectorize();
    if (!VisitExpr(op->value).same_as(op->value)) return Scalarize(GetRef(op));
    return GetRef(op);
  }

  Stmt VisitStmt_(const AttrStmtNode* op) override {
    if (op->value.defined() && !VisitExpr(op->value).same_as(op->value)) throw CannotVectorize();
    return StmtExprMutator::VisitStmt_(op);
  }

  // Per-iteration memory, control flow that leaves the loop, and blocks keep the loop serial.
  Stmt VisitStmt_(const AllocBufferNode*) override { throw CannotVectorize(); }
  Stmt VisitStmt_(const DeclBufferNode*) override { throw CannotVectorize(); }
  Stmt VisitStmt_(const WhileNode*) override { throw CannotVectorize(); }
  Stmt VisitStmt_(const BreakNode*) override { throw CannotVectorize(); }
  Stmt VisitStmt_(const ContinueNode*) override { throw CannotVectorize(); }
  Stmt VisitStmt_(const SBlockNode*) override { throw CannotVectorize(); }
  Stmt VisitStmt_(const SBlockRealizeNode*) override { throw CannotVectorize(); }

 private:
  template <typename Node>
  PrimExpr Unchanged(const Node* op) {
    PrimExpr visited = ExprMutator::VisitExpr_(op);
    if (!visited.same_as(GetRef(op))) throw CannotVectorize();
    return visited;
  }

  PrimExpr Binary(const BinaryNode* op, ir::TypeIndex kind) {
    PrimExpr a = VisitExpr(op->a);
    PrimExpr b = VisitExpr(op->b);
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef(op);
    int lanes = std::max(Lanes(a), Lanes(b));
    // Affine index arithmetic stays a Ramp, as TVM keeps it, so loads and stores stay dense.
    auto* ra = a.as<RampNode>();
    auto* rb = b.as<RampNode>();
    PrimExpr ia = Invariant(a), ib = Invariant(b);
    if (kind == ir::TypeIndex::kAdd || kind == ir::TypeIndex::kSub) {
      bool is_add = kind == ir::TypeIndex::kAdd;
      if (ra && ib.defined()) {
        return MakeRamp(is_add ? add(ra->base, ib) : sub(ra->base, ib), ra->stride, lanes);
      }
      if (ia.defined() && rb) {
        return MakeRamp(is_add ? add(ia, rb->base) : sub(ia, rb->base),
                        is_add ? rb->stride : neg(rb->stride), lanes);
      }
      if (ra && rb) {
        return MakeRamp(is_add ? add(ra->base, rb->base) : sub(ra->base, rb->base),
                        is_add ? add(ra->stride, rb->stride) : sub(ra->stride, rb->stride), lanes);
      }
    }
    if (kind == ir::TypeIndex::kMul) {
      if (ra && ib.defined()) return MakeRamp(mul(ra->base, ib), mul(ra->stride, ib), lanes);
      if (ia.defined() && rb) return MakeRamp(mul(ia, rb->base), mul(ia, rb->stride), lanes);
    }
    return MakeBinary(kind, Widen(a, lanes), Widen(b, lanes), op->span);
  }

  // The lanes of a (possibly multi-dimensional) access: at most one vector index.
  static int IndexLanes(const std::vector<PrimExpr>& indices) {
    int lanes = 1;
    for (const auto& i : indices) {
      if (Lanes(i) > 1) {
        if (lanes > 1) throw CannotVectorize();
        lanes = Lanes(i);
      }
    }
    return lanes;
  }

  // The original statement, run lane by lane by a serial loop of its own (a fresh loop variable,
  // so every definition stays unique).
  Stmt Scalarize(const Stmt& stmt) {
    Var v = MakeVar(loop_->loop_var->name_hint + "_s", loop_->loop_var->dtype);
    VarMap vmap{{loop_->loop_var.get(), add(v, loop_->min)}};
    // Vector lets bound earlier are scalars again inside: rebind them lane by lane.
    if (!vars_.empty()) throw CannotVectorize();
    Stmt body = Substitute(stmt, vmap);
    return MakeFor(v, make_const(v->dtype, int64_t(0)), make_const(v->dtype, int64_t(lanes_)),
                   ForKind::kSerial, body, {}, {}, {}, loop_->span);
  }

  const ForNode* loop_;
  int lanes_;
  PrimExpr ramp_;
  std::unordered_map<const VarNode*, PrimExpr> vars_;
};

// True when `body` breaks or continues the loop it is the body of (statements, or the
// `T.break_loop()` / `T.continue_loop()` calls TVMScript's `break` / `continue` parse to); a
// break inside a nested loop belongs to that loop.
bool LeavesLoop(const Stmt& body) {
  struct Finder : public StmtVisitor {
    bool found = false;
    void VisitStmt_(const BreakNode*) override { found = true; }
    void VisitStmt_(const ContinueNode*) override { found = true; }
    void VisitStmt_(const EvaluateNode* op) override {
      auto* call = op->value.as<CallNode>();
      auto* callee = call ? call->op.as<ir::OpNode>() : nullptr;
      if (callee && (callee->name == "tirx.break_loop" || callee->name == "tirx.continue_loop")) {
        found = true;
      }
    }
    void VisitStmt_(const ForNode*) override {}
    void VisitStmt_(const WhileNode*) override {}
  } finder;
  finder(body);
  return finder.found;
}

class LoopVectorizer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    Stmt visited = StmtExprMutator::VisitStmt_(op);
    const auto* loop = visited.as<ForNode>();
    if (loop->kind != ForKind::kVectorized) return visited;
    const int64_t* extent = AsConstInt(loop->extent);
    bool unit_step = !loop->step.defined() || IsConstInt(loop->step, 1);
    if (extent && unit_step && *extent >= 1 && !LeavesLoop(loop->body)) {
      if (*extent == 1) return Substitute(loop->body, {{loop->loop_var.get(), loop->min}});
      try {
        return Vectorizer(loop, static_cast<int>(*extent))(loop->body);
      } catch (const CannotVectorize&) {
      }
    }
    return MakeFor(loop->loop_var, loop->min, loop->extent, ForKind::kSerial, loop->body,
                   loop->thread_binding, loop->annotations, loop->step, loop->span);
  }
};

}  // namespace

ir::Pass VectorizeLoop() {
  return tir::CreateBodyRewritePass([](const Stmt& body) { return LoopVectorizer()(body); }, 0,
                                   "VectorizeLoop");
}

static PassRegistrar registrar({"VectorizeLoop",
                                "turns vectorized loops into Ramp/Broadcast vector expressions",
                                {},
                                [](const PassArgs&) { return VectorizeLoop(); }});

}  // namespace wb::transform
