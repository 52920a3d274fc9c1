#include "tir/functor.h"

namespace wb::tir {

// --- ExprVisitor -------------------------------------------------------------------------------

void ExprVisitor::VisitExpr_(const IntImmNode*) {}
void ExprVisitor::VisitExpr_(const FloatImmNode*) {}
void ExprVisitor::VisitExpr_(const StringImmNode*) {}
void ExprVisitor::VisitExpr_(const VarNode*) {}
void ExprVisitor::VisitExpr_(const SizeVarNode* op) { VisitExpr_(static_cast<const VarNode*>(op)); }
void ExprVisitor::VisitExpr_(const CastNode* op) { VisitExpr(op->value); }
#define WB_BINARY_VISIT(Name)                             \
  void ExprVisitor::VisitExpr_(const Name##Node* op) {   \
    VisitExpr(op->a);                                     \
    VisitExpr(op->b);                                     \
  }
WB_BINARY_VISIT(Add)
WB_BINARY_VISIT(Sub)
WB_BINARY_VISIT(Mul)
WB_BINARY_VISIT(Div)
WB_BINARY_VISIT(Mod)
WB_BINARY_VISIT(FloorDiv)
WB_BINARY_VISIT(FloorMod)
WB_BINARY_VISIT(Min)
WB_BINARY_VISIT(Max)
WB_BINARY_VISIT(EQ)
WB_BINARY_VISIT(NE)
WB_BINARY_VISIT(LT)
WB_BINARY_VISIT(LE)
WB_BINARY_VISIT(GT)
WB_BINARY_VISIT(GE)
WB_BINARY_VISIT(And)
WB_BINARY_VISIT(Or)
#undef WB_BINARY_VISIT
void ExprVisitor::VisitExpr_(const NotNode* op) { VisitExpr(op->a); }
void ExprVisitor::VisitExpr_(const SelectNode* op) {
  VisitExpr(op->condition);
  VisitExpr(op->true_value);
  VisitExpr(op->false_value);
}
void ExprVisitor::VisitExpr_(const BufferLoadNode* op) {
  VisitBufferUse(op->buffer);
  for (const auto& i : op->indices) VisitExpr(i);
  if (op->predicate.defined()) VisitExpr(op->predicate);
}
void ExprVisitor::VisitExpr_(const RampNode* op) {
  VisitExpr(op->base);
  VisitExpr(op->stride);
}
void ExprVisitor::VisitExpr_(const BroadcastNode* op) { VisitExpr(op->value); }
void ExprVisitor::VisitExpr_(const ShuffleNode* op) {
  for (const auto& v : op->vectors) VisitExpr(v);
  for (const auto& i : op->indices) VisitExpr(i);
}
void ExprVisitor::VisitExpr_(const LetNode* op) {
  VisitExpr(op->value);
  VisitExpr(op->body);
}
void ExprVisitor::VisitExpr_(const CallNode* op) {
  for (const auto& a : op->args) VisitExpr(a);
}
void ExprVisitor::VisitExpr_(const ReduceNode* op) {
  for (const auto& iv : op->axis) {
    VisitExpr(iv->dom->min);
    VisitExpr(iv->dom->extent);
  }
  for (const auto& s : op->source) VisitExpr(s);
  for (const auto& i : op->init) VisitExpr(i);
  if (op->condition.defined()) VisitExpr(op->condition);
}

// --- ExprMutator -------------------------------------------------------------------------------

std::vector<PrimExpr> ExprMutator::VisitExprs(const std::vector<PrimExpr>& exprs, bool* changed) {
  std::vector<PrimExpr> out;
  out.reserve(exprs.size());
  for (const auto& e : exprs) {
    PrimExpr n = e.defined() ? VisitExpr(e) : e;
    if (!n.same_as(e)) *changed = true;
    out.push_back(std::move(n));
  }
  return out;
}

PrimExpr ExprMutator::VisitExpr_(const IntImmNode* op) { return ir::GetRef(op); }
PrimExpr ExprMutator::VisitExpr_(const FloatImmNode* op) { return ir::GetRef(op); }
PrimExpr ExprMutator::VisitExpr_(const StringImmNode* op) { return ir::GetRef(op); }
PrimExpr ExprMutator::VisitExpr_(const VarNode* op) { return ir::GetRef(op); }
PrimExpr ExprMutator::VisitExpr_(const SizeVarNode* op) {
  return VisitExpr_(static_cast<const VarNode*>(op));
}
PrimExpr ExprMutator::VisitExpr_(const CastNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return ir::GetRef(op);
  return MakeCast(op->dtype, v, op->span);
}
#define WB_BINARY_MUTATE(Name)                                              \
  PrimExpr ExprMutator::VisitExpr_(const Name##Node* op) {                  \
    PrimExpr a = VisitExpr(op->a);                                          \
    PrimExpr b = VisitExpr(op->b);                                          \
    if (a.same_as(op->a) && b.same_as(op->b)) return ir::GetRef(op);        \
    return MakeBinary(ir::TypeIndex::k##Name, a, b, op->span);              \
  }
WB_BINARY_MUTATE(Add)
WB_BINARY_MUTATE(Sub)
WB_BINARY_MUTATE(Mul)
WB_BINARY_MUTATE(Div)
WB_BINARY_MUTATE(Mod)
WB_BINARY_MUTATE(FloorDiv)
WB_BINARY_MUTATE(FloorMod)
WB_BINARY_MUTATE(Min)
WB_BINARY_MUTATE(Max)
WB_BINARY_MUTATE(EQ)
WB_BINARY_MUTATE(NE)
WB_BINARY_MUTATE(LT)
WB_BINARY_MUTATE(LE)
WB_BINARY_MUTATE(GT)
WB_BINARY_MUTATE(GE)
WB_BINARY_MUTATE(And)
WB_BINARY_MUTATE(Or)
#undef WB_BINARY_MUTATE
PrimExpr ExprMutator::VisitExpr_(const NotNode* op) {
  PrimExpr a = VisitExpr(op->a);
  if (a.same_as(op->a)) return ir::GetRef(op);
  return MakeNot(a, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const SelectNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  PrimExpr t = VisitExpr(op->true_value);
  PrimExpr f = VisitExpr(op->false_value);
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
    return ir::GetRef(op);
  }
  return MakeSelect(c, t, f, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const BufferLoadNode* op) {
  bool changed = false;
  Buffer buffer = VisitBufferUse(op->buffer);
  auto indices = VisitExprs(op->indices, &changed);
  PrimExpr pred = op->predicate.defined() ? VisitExpr(op->predicate) : op->predicate;
  if (!changed && buffer.same_as(op->buffer) && pred.same_as(op->predicate)) {
    return ir::GetRef(op);
  }
  return MakeBufferLoad(buffer, std::move(indices), pred, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const RampNode* op) {
  PrimExpr base = VisitExpr(op->base);
  PrimExpr stride = VisitExpr(op->stride);
  if (base.same_as(op->base) && stride.same_as(op->stride)) return ir::GetRef(op);
  return MakeRamp(base, stride, op->lanes, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const BroadcastNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return ir::GetRef(op);
  return MakeBroadcast(v, op->lanes, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const ShuffleNode* op) {
  bool changed = false;
  auto vectors = VisitExprs(op->vectors, &changed);
  auto indices = VisitExprs(op->indices, &changed);
  if (!changed) return ir::GetRef(op);
  return MakeShuffle(std::move(vectors), std::move(indices), op->span);
}
PrimExpr ExprMutator::VisitExpr_(const LetNode* op) {
  PrimExpr value = VisitExpr(op->value);
  PrimExpr body = VisitExpr(op->body);
  if (value.same_as(op->value) && body.same_as(op->body)) return ir::GetRef(op);
  return MakeLet(op->var, value, body, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const CallNode* op) {
  bool changed = false;
  auto args = VisitExprs(op->args, &changed);
  if (!changed) return ir::GetRef(op);
  return MakeCall(op->dtype, op->op, std::move(args), op->span);
}
PrimExpr ExprMutator::VisitExpr_(const ReduceNode* op) {
  bool changed = false;
  auto source = VisitExprs(op->source, &changed);
  auto init = VisitExprs(op->init, &changed);
  PrimExpr cond = op->condition.defined() ? VisitExpr(op->condition) : op->condition;
  if (!changed && cond.same_as(op->condition)) return ir::GetRef(op);
  Ref<ReduceNode> copy = ir::GetRef(op);
  ReduceNode* n = copy.CopyOnWrite();
  n->source = std::move(source);
  n->init = std::move(init);
  n->condition = cond;
  return copy;
}

// --- StmtVisitor -------------------------------------------------------------------------------

void StmtVisitor::VisitBufferRegion(const BufferRegion& region) {
  VisitBufferUse(region->buffer);
  for (const auto& r : region->region) {
    VisitExpr(r->min);
    VisitExpr(r->extent);
  }
}
void StmtVisitor::VisitBufferDef(const Buffer& buffer) {
  for (const auto& d : buffer->shape) VisitExpr(d);
  for (const auto& s : buffer->strides) VisitExpr(s);
  if (buffer->elem_offset.defined()) VisitExpr(buffer->elem_offset);
}
void StmtVisitor::VisitStmt_(const BindNode* op) { VisitExpr(op->value); }
void StmtVisitor::VisitStmt_(const AttrStmtNode* op) {
  if (op->value.defined()) VisitExpr(op->value);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const AssertStmtNode* op) { VisitExpr(op->condition); }
void StmtVisitor::VisitStmt_(const BufferStoreNode* op) {
  VisitBufferUse(op->buffer);
  VisitExpr(op->value);
  for (const auto& i : op->indices) VisitExpr(i);
  if (op->predicate.defined()) VisitExpr(op->predicate);
}
void StmtVisitor::VisitStmt_(const AllocBufferNode* op) { VisitBufferDef(op->buffer); }
void StmtVisitor::VisitStmt_(const DeclBufferNode* op) { VisitBufferDef(op->buffer); }
void StmtVisitor::VisitStmt_(const ForNode* op) {
  VisitExpr(op->min);
  VisitExpr(op->extent);
  if (op->step.defined()) VisitExpr(op->step);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const WhileNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const IfThenElseNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->then_case);
  if (op->else_case.defined()) VisitStmt(op->else_case);
}
void StmtVisitor::VisitStmt_(const SeqStmtNode* op) {
  for (const auto& s : op->seq) VisitStmt(s);
}
void StmtVisitor::VisitStmt_(const EvaluateNode* op) { VisitExpr(op->value); }
void StmtVisitor::VisitStmt_(const BreakNode*) {}
void StmtVisitor::VisitStmt_(const ContinueNode*) {}
void StmtVisitor::VisitStmt_(const SBlockNode* op) {
  for (const auto& iv : op->iter_vars) {
    VisitExpr(iv->dom->min);
    VisitExpr(iv->dom->extent);
  }
  for (const auto& b : op->alloc_buffers) VisitBufferDef(b);
  for (const auto& m : op->match_buffers) {
    VisitBufferDef(m->buffer);
    VisitBufferRegion(m->source);
  }
  for (const auto& r : op->reads) VisitBufferRegion(r);
  for (const auto& w : op->writes) VisitBufferRegion(w);
  if (op->init.defined()) VisitStmt(op->init);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const SBlockRealizeNode* op) {
  for (const auto& v : op->iter_values) VisitExpr(v);
  VisitExpr(op->predicate);
  VisitStmt(op->block);
}

// --- StmtMutator -------------------------------------------------------------------------------

BufferRegion StmtMutator::VisitBufferRegion(const BufferRegion& region) {
  bool changed = false;
  std::vector<Range> ranges;
  for (const auto& r : region->region) {
    PrimExpr mn = VisitExpr(r->min);
    PrimExpr ext = VisitExpr(r->extent);
    if (!mn.same_as(r->min) || !ext.same_as(r->extent)) {
      changed = true;
      ranges.push_back(ir::MakeRange(mn, ext, r->span));
    } else {
      ranges.push_back(r);
    }
  }
  Buffer buffer = VisitBufferUse(region->buffer);
  if (!changed && buffer.same_as(region->buffer)) return region;
  return MakeBufferRegion(buffer, std::move(ranges), region->span);
}

Stmt StmtMutator::VisitStmt_(const BindNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return ir::GetRef(op);
  return MakeBind(op->var, v, op->span);
}
Stmt StmtMutator::VisitStmt_(const AttrStmtNode* op) {
  PrimExpr v = op->value.defined() ? VisitExpr(op->value) : op->value;
  Stmt body = VisitStmt(op->body);
  if (v.same_as(op->value) && body.same_as(op->body)) return ir::GetRef(op);
  return MakeAttrStmt(op->node, op->attr_key, v, body, op->span);
}
Stmt StmtMutator::VisitStmt_(const AssertStmtNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  if (c.same_as(op->condition)) return ir::GetRef(op);
  AssertStmt copy = ir::GetRef(op);
  copy.CopyOnWrite()->condition = c;
  return copy;
}
Stmt StmtMutator::VisitStmt_(const BufferStoreNode* op) {
  PrimExpr value = VisitExpr(op->value);
  bool changed = !value.same_as(op->value);
  std::vector<PrimExpr> indices;
  for (const auto& i : op->indices) {
    indices.push_back(VisitExpr(i));
    if (!indices.back().same_as(i)) changed = true;
  }
  PrimExpr pred = op->predicate.defined() ? VisitExpr(op->predicate) : op->predicate;
  Buffer buffer = VisitBufferUse(op->buffer);
  if (!changed && pred.same_as(op->predicate) && buffer.same_as(op->buffer)) {
    return ir::GetRef(op);
  }
  return MakeBufferStore(buffer, value, std::move(indices), pred, op->span);
}
Stmt StmtMutator::VisitStmt_(const AllocBufferNode* op) {
  Buffer b = VisitBufferDef(op->buffer);
  if (b.same_as(op->buffer)) return ir::GetRef(op);
  return MakeAllocBuffer(b, op->annotations, op->span);
}
Stmt StmtMutator::VisitStmt_(const DeclBufferNode* op) {
  Buffer b = VisitBufferDef(op->buffer);
  if (b.same_as(op->buffer)) return ir::GetRef(op);
  return MakeDeclBuffer(b, op->span);
}
Stmt StmtMutator::VisitStmt_(const ForNode* op) {
  PrimExpr mn = VisitExpr(op->min);
  PrimExpr ext = VisitExpr(op->extent);
  PrimExpr step = op->step.defined() ? VisitExpr(op->step) : op->step;
  Stmt body = VisitStmt(op->body);
  if (mn.same_as(op->min) && ext.same_as(op->extent) && step.same_as(op->step) &&
      body.same_as(op->body)) {
    return ir::GetRef(op);
  }
  For copy = ir::GetRef(op);
  ForNode* n = copy.CopyOnWrite();
  n->min = mn;
  n->extent = ext;
  n->step = step;
  n->body = body;
  return copy;
}
Stmt StmtMutator::VisitStmt_(const WhileNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  Stmt body = VisitStmt(op->body);
  if (c.same_as(op->condition) && body.same_as(op->body)) return ir::GetRef(op);
  return MakeWhile(c, body, op->span);
}
Stmt StmtMutator::VisitStmt_(const IfThenElseNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  Stmt t = VisitStmt(op->then_case);
  Stmt e = op->else_case.defined() ? VisitStmt(op->else_case) : op->else_case;
  if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) {
    return ir::GetRef(op);
  }
  return MakeIfThenElse(c, t, e, op->span);
}
Stmt StmtMutator::VisitStmt_(const SeqStmtNode* op) {
  bool changed = false;
  std::vector<Stmt> seq;
  seq.reserve(op->seq.size());
  for (const auto& s : op->seq) {
    seq.push_back(VisitStmt(s));
    if (!seq.back().same_as(s)) changed = true;
  }
  if (!changed) return ir::GetRef(op);
  return MakeSeq(std::move(seq), op->span);
}
Stmt StmtMutator::VisitStmt_(const EvaluateNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return ir::GetRef(op);
  return MakeEvaluate(v, op->span);
}
Stmt StmtMutator::VisitStmt_(const BreakNode* op) { return ir::GetRef(op); }
Stmt StmtMutator::VisitStmt_(const ContinueNode* op) { return ir::GetRef(op); }
Stmt StmtMutator::VisitStmt_(const SBlockNode* op) {
  bool changed = false;
  std::vector<IterVar> iter_vars;
  for (const auto& iv : op->iter_vars) {
    PrimExpr mn = VisitExpr(iv->dom->min);
    PrimExpr ext = VisitExpr(iv->dom->extent);
    if (mn.same_as(iv->dom->min) && ext.same_as(iv->dom->extent)) {
      iter_vars.push_back(iv);
    } else {
      changed = true;
      iter_vars.push_back(MakeIterVar(ir::MakeRange(mn, ext, iv->dom->span), iv->var,
                                      iv->iter_type, iv->thread_tag, iv->span));
    }
  }
  std::vector<Buffer> allocs;
  for (const auto& b : op->alloc_buffers) {
    allocs.push_back(VisitBufferDef(b));
    if (!allocs.back().same_as(b)) changed = true;
  }
  std::vector<MatchBufferRegion> matches;
  for (const auto& m : op->match_buffers) {
    BufferRegion src = VisitBufferRegion(m->source);
    Buffer buffer = VisitBufferDef(m->buffer);
    if (!src.same_as(m->source) || !buffer.same_as(m->buffer)) {
      changed = true;
      matches.push_back(MakeMatchBufferRegion(buffer, src, m->span));
    } else {
      matches.push_back(m);
    }
  }
  auto visit_regions = [&](const std::vector<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (const auto& r : regions) {
      out.push_back(VisitBufferRegion(r));
      if (!out.back().same_as(r)) changed = true;
    }
    return out;
  };
  auto reads = visit_regions(op->reads);
  auto writes = visit_regions(op->writes);
  Stmt init = op->init.defined() ? VisitStmt(op->init) : op->init;
  Stmt body = VisitStmt(op->body);
  if (!changed && init.same_as(op->init) && body.same_as(op->body)) return ir::GetRef(op);
  SBlock copy = ir::GetRef(op);
  SBlockNode* n = copy.CopyOnWrite();
  n->iter_vars = std::move(iter_vars);
  n->alloc_buffers = std::move(allocs);
  n->match_buffers = std::move(matches);
  n->reads = std::move(reads);
  n->writes = std::move(writes);
  n->init = init;
  n->body = body;
  return copy;
}
Stmt StmtMutator::VisitStmt_(const SBlockRealizeNode* op) {
  bool changed = false;
  std::vector<PrimExpr> values;
  for (const auto& v : op->iter_values) {
    values.push_back(VisitExpr(v));
    if (!values.back().same_as(v)) changed = true;
  }
  PrimExpr pred = VisitExpr(op->predicate);
  Stmt block = VisitStmt(op->block);
  if (!changed && pred.same_as(op->predicate) && block.same_as(op->block)) return ir::GetRef(op);
  return MakeSBlockRealize(std::move(values), pred, Downcast<SBlockNode>(block), op->span);
}

// --- PostOrderVisit ----------------------------------------------------------------------------

namespace {

class PostOrderVisitor : public StmtExprVisitor {
 public:
  explicit PostOrderVisitor(const std::function<void(const Object*)>& fn) : fn_(fn) {}
  void VisitExpr(const PrimExpr& e) override {
    if (!e.defined()) return;
    StmtExprVisitor::VisitExpr(e);
    fn_(e.get());
  }
  void VisitStmt(const Stmt& s) override {
    if (!s.defined()) return;
    StmtExprVisitor::VisitStmt(s);
    fn_(s.get());
  }

 private:
  const std::function<void(const Object*)>& fn_;
};

}  // namespace

void PostOrderVisit(const Stmt& stmt, const std::function<void(const Object*)>& fn) {
  PostOrderVisitor(fn).VisitStmt(stmt);
}
void PostOrderVisit(const PrimExpr& expr, const std::function<void(const Object*)>& fn) {
  PostOrderVisitor(fn).VisitExpr(expr);
}

}  // namespace wb::tir
