#include "tir/renew_defs.h"

#include <unordered_map>
#include <unordered_set>

namespace wb::tir {

Var DefRenewer::RenewVar(const Var& var) {
  Var fresh;
  if (var.as<SizeVarNode>()) {
    fresh = MakeSizeVar(var->name_hint, var->dtype, var->span);
  } else {
    fresh = var->type_annotation.defined()
                ? MakeVar(var->name_hint, var->type_annotation, var->span)
                : MakeVar(var->name_hint, var->dtype, var->span);
  }
  var_map[var.get()] = fresh;
  return fresh;
}

Buffer DefRenewer::RenewBuffer(const Buffer& buffer) {
  if (!buffer.defined()) return buffer;
  BufferOptions options;
  for (const PrimExpr& s : buffer->strides) options.strides.push_back(VisitExpr(s));
  options.elem_offset =
      buffer->elem_offset.defined() ? VisitExpr(buffer->elem_offset) : buffer->elem_offset;
  options.data_alignment = buffer->data_alignment;
  options.offset_factor = buffer->offset_factor;
  options.data = RenewVar(buffer->data);
  std::vector<PrimExpr> shape;
  for (const PrimExpr& d : buffer->shape) shape.push_back(VisitExpr(d));
  Buffer fresh =
      MakeBuffer(buffer->name, std::move(shape), buffer->dtype, std::move(options), buffer->span);
  buffer_map[buffer.get()] = fresh;
  return fresh;
}

PrimExpr DefRenewer::VisitExpr_(const VarNode* op) {
  auto it = var_map.find(op);
  return it == var_map.end() ? GetRef(op) : it->second;
}

PrimExpr DefRenewer::VisitExpr_(const SizeVarNode* op) {
  return VisitExpr_(static_cast<const VarNode*>(op));
}

PrimExpr DefRenewer::VisitExpr_(const LetNode* op) {
  PrimExpr value = VisitExpr(op->value);
  Var var = RenewVar(op->var);
  PrimExpr body = VisitExpr(op->body);
  return MakeLet(var, value, body, op->span);
}

Stmt DefRenewer::VisitStmt_(const BindNode* op) {
  PrimExpr value = VisitExpr(op->value);
  Var var = RenewVar(op->var);
  return MakeBind(var, value, op->span);
}

Stmt DefRenewer::VisitStmt_(const ForNode* op) {
  PrimExpr min = VisitExpr(op->min);
  PrimExpr extent = VisitExpr(op->extent);
  PrimExpr step = op->step.defined() ? VisitExpr(op->step) : op->step;
  Var loop_var = RenewVar(op->loop_var);
  IterVar binding = op->thread_binding;
  if (binding.defined()) {
    Var v = binding->var.same_as(op->loop_var) ? loop_var : RenewVar(binding->var);
    binding =
        MakeIterVar(ir::MakeRange(VisitExpr(binding->dom->min), VisitExpr(binding->dom->extent)), v,
                    binding->iter_type, binding->thread_tag, binding->span);
  }
  Stmt body = VisitStmt(op->body);
  return MakeFor(loop_var, min, extent, op->kind, body, binding, op->annotations, step, op->span);
}

Stmt DefRenewer::VisitStmt_(const AttrStmtNode* op) {
  // launch_thread defines the IterVar's var for the rest of the scope.
  if (auto* iv = op->node.as<IterVarNode>()) {
    if (!var_map.count(iv->var.get())) {
      PrimExpr value = op->value.defined() ? VisitExpr(op->value) : op->value;
      Var v = RenewVar(iv->var);
      IterVar fresh =
          MakeIterVar(ir::MakeRange(VisitExpr(iv->dom->min), VisitExpr(iv->dom->extent)), v,
                      iv->iter_type, iv->thread_tag, iv->span);
      Stmt body = VisitStmt(op->body);
      return MakeAttrStmt(fresh, op->attr_key, value, body, op->span);
    }
  }
  return StmtExprMutator::VisitStmt_(op);
}

namespace {

// Regions of one buffer listed twice (two kernel inputs that became one buffer) keep the first.
std::vector<BufferRegion> UnionAccessRegions(std::vector<BufferRegion> regions) {
  std::unordered_set<const BufferNode*> seen;
  std::vector<BufferRegion> out;
  for (auto& r : regions) {
    if (seen.insert(r->buffer.get()).second) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

Stmt DefRenewer::VisitStmt_(const SBlockNode* op) {
  std::vector<IterVar> iter_vars;
  for (const IterVar& iv : op->iter_vars) {
    Range dom = ir::MakeRange(VisitExpr(iv->dom->min), VisitExpr(iv->dom->extent), iv->dom->span);
    iter_vars.push_back(
        MakeIterVar(dom, RenewVar(iv->var), iv->iter_type, iv->thread_tag, iv->span));
  }
  std::vector<Buffer> allocs;
  for (const Buffer& b : op->alloc_buffers) allocs.push_back(RenewBuffer(b));
  std::vector<MatchBufferRegion> matches;
  for (const MatchBufferRegion& m : op->match_buffers) {
    BufferRegion source = VisitBufferRegion(m->source);
    matches.push_back(MakeMatchBufferRegion(RenewBuffer(m->buffer), source, m->span));
  }
  std::vector<BufferRegion> reads;
  for (const BufferRegion& r : op->reads) reads.push_back(VisitBufferRegion(r));
  std::vector<BufferRegion> writes;
  for (const BufferRegion& r : op->writes) writes.push_back(VisitBufferRegion(r));
  Stmt init = op->init.defined() ? VisitStmt(op->init) : op->init;
  Stmt body = VisitStmt(op->body);
  return MakeSBlock(std::move(iter_vars), UnionAccessRegions(std::move(reads)),
                    UnionAccessRegions(std::move(writes)), op->name_hint, body, init,
                    std::move(allocs), std::move(matches), op->annotations, op->span);
}

Buffer DefRenewer::VisitBufferUse(const Buffer& buffer) {
  auto it = buffer_map.find(buffer.get());
  return it == buffer_map.end() ? buffer : it->second;
}

PrimFunc RenewDefs(const PrimFunc& func) {
  DefRenewer renewer;
  std::vector<Var> params;
  std::vector<Buffer> buffers;
  // Scalar parameters first: a buffer's compound dim (`n * 4`) may use one that comes later.
  std::unordered_map<const VarNode*, Var> scalars;
  for (size_t i = 0; i < func->params.size(); ++i) {
    if (!func->buffer_map[i].defined()) scalars[func->params[i].get()] = renewer.RenewVar(func->params[i]);
  }
  for (size_t i = 0; i < func->params.size(); ++i) {
    const Buffer& b = func->buffer_map[i];
    if (!b.defined()) {
      params.push_back(scalars.at(func->params[i].get()));
      buffers.push_back(b);
      continue;
    }
    params.push_back(renewer.RenewVar(func->params[i]));
    // Symbolic dims of a parameter's buffer are defined by it.
    for (const PrimExpr& d : b->shape) {
      if (auto* v = d.as<VarNode>(); v && !renewer.var_map.count(v)) renewer.RenewVar(GetRef(v));
    }
    buffers.push_back(renewer.RenewBuffer(b));
  }
  Stmt body = renewer.VisitStmt(func->body);
  return MakePrimFunc(std::move(params), std::move(buffers), body, func->ret_type, func->attrs,
                      func->span);
}

}  // namespace wb::tir
