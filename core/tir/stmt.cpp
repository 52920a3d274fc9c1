#include "tir/stmt.h"

namespace wb::tir {

void BufferNode::VisitFields(FieldVisitor* v) {
  Fields{v}("data", data, FieldKind::kDef)("dtype", dtype)("shape", shape, FieldKind::kDef)(
      "strides", strides, FieldKind::kDef)("elem_offset", elem_offset, FieldKind::kDef)(
      "data_alignment", data_alignment)("offset_factor", offset_factor)("name", name,
                                                                         FieldKind::kIgnore);
}

std::string BufferNode::scope() const {
  if (data.defined()) {
    if (auto* ptr = data->type_annotation.as<ir::PointerTypeNode>()) {
      return ptr->storage_scope.empty() ? "global" : ptr->storage_scope;
    }
  }
  return "global";
}

void BufferRegionNode::VisitFields(FieldVisitor* v) {
  Fields{v}("buffer", buffer)("region", region);
}
void MatchBufferRegionNode::VisitFields(FieldVisitor* v) {
  Fields{v}("buffer", buffer, FieldKind::kDef)("source", source);
}
void IterVarNode::VisitFields(FieldVisitor* v) {
  Fields{v}("dom", dom)("var", var, FieldKind::kDef)("iter_type", iter_type)("thread_tag",
                                                                              thread_tag);
}
void BindNode::VisitFields(FieldVisitor* v) {
  Fields{v}("value", value)("var", var, FieldKind::kDef);
}
void AttrStmtNode::VisitFields(FieldVisitor* v) {
  Fields{v}("node", node, FieldKind::kDef)("attr_key", attr_key)("value", value)("body", body);
}
void AssertStmtNode::VisitFields(FieldVisitor* v) {
  Fields{v}("condition", condition)("error_kind", error_kind)("message_parts", message_parts);
}
void BufferStoreNode::VisitFields(FieldVisitor* v) {
  Fields{v}("buffer", buffer)("value", value)("indices", indices)("predicate", predicate);
}
void AllocBufferNode::VisitFields(FieldVisitor* v) {
  Fields{v}("buffer", buffer, FieldKind::kDef)("annotations", annotations);
}
void DeclBufferNode::VisitFields(FieldVisitor* v) {
  Fields{v}("buffer", buffer, FieldKind::kDef);
}
void ForNode::VisitFields(FieldVisitor* v) {
  Fields{v}("loop_var", loop_var, FieldKind::kDef)("min", min)("extent", extent)("kind", kind)(
      "thread_binding", thread_binding, FieldKind::kDef)("annotations", annotations)("step", step)(
      "body", body);
}
void WhileNode::VisitFields(FieldVisitor* v) { Fields{v}("condition", condition)("body", body); }
void IfThenElseNode::VisitFields(FieldVisitor* v) {
  Fields{v}("condition", condition)("then_case", then_case)("else_case", else_case);
}
void SeqStmtNode::VisitFields(FieldVisitor* v) { Fields{v}("seq", seq); }
void EvaluateNode::VisitFields(FieldVisitor* v) { Fields{v}("value", value); }
void SBlockNode::VisitFields(FieldVisitor* v) {
  Fields{v}("iter_vars", iter_vars, FieldKind::kDef)("alloc_buffers", alloc_buffers,
                                                     FieldKind::kDef)(
      "match_buffers", match_buffers)("reads", reads)("writes", writes)("annotations",
                                                                        annotations)(
      "init", init)("body", body)("name_hint", name_hint, FieldKind::kIgnore);
}
void SBlockRealizeNode::VisitFields(FieldVisitor* v) {
  Fields{v}("iter_values", iter_values)("predicate", predicate)("block", block);
}
void PrimFuncNode::VisitFields(FieldVisitor* v) {
  Fields{v}("params", params, FieldKind::kDef)("buffer_map", buffer_map, FieldKind::kDef)(
      "ret_type", ret_type)("attrs", attrs)("body", body);
}

Buffer PrimFuncNode::BufferOf(const Var& param) const {
  for (size_t i = 0; i < params.size() && i < buffer_map.size(); ++i) {
    if (params[i].same_as(param)) return buffer_map[i];
  }
  return Buffer();
}

WB_REGISTER_NODE(BufferNode);
WB_REGISTER_NODE(BufferRegionNode);
WB_REGISTER_NODE(MatchBufferRegionNode);
WB_REGISTER_NODE(IterVarNode);
WB_REGISTER_NODE(BindNode);
WB_REGISTER_NODE(AttrStmtNode);
WB_REGISTER_NODE(AssertStmtNode);
WB_REGISTER_NODE(BufferStoreNode);
WB_REGISTER_NODE(AllocBufferNode);
WB_REGISTER_NODE(DeclBufferNode);
WB_REGISTER_NODE(ForNode);
WB_REGISTER_NODE(WhileNode);
WB_REGISTER_NODE(IfThenElseNode);
WB_REGISTER_NODE(SeqStmtNode);
WB_REGISTER_NODE(EvaluateNode);
WB_REGISTER_NODE(BreakNode);
WB_REGISTER_NODE(ContinueNode);
WB_REGISTER_NODE(SBlockNode);
WB_REGISTER_NODE(SBlockRealizeNode);
WB_REGISTER_NODE(PrimFuncNode);

const char* IterVarTypeName(IterVarType t) {
  switch (t) {
    case IterVarType::kDataPar:
      return "DataPar";
    case IterVarType::kThreadIndex:
      return "ThreadIndex";
    case IterVarType::kCommReduce:
      return "CommReduce";
    case IterVarType::kOrdered:
      return "Ordered";
    case IterVarType::kOpaque:
      return "Opaque";
    case IterVarType::kUnrolled:
      return "Unrolled";
    case IterVarType::kVectorized:
      return "Vectorized";
    case IterVarType::kParallelized:
      return "Parallelized";
    case IterVarType::kTensorized:
      return "Tensorized";
  }
  return "DataPar";
}

const char* ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unroll";
    case ForKind::kThreadBinding:
      return "thread_binding";
  }
  return "serial";
}

Buffer MakeBuffer(std::string name, std::vector<PrimExpr> shape, DataType dtype,
                  BufferOptions options, Span span) {
  NodeBuilder<BufferNode> n;
  // TVM's default index type: the first dimension's.
  DataType index_type =
      !shape.empty() && shape[0].defined() ? shape[0]->dtype : DataType::Int(32);
  n->data = options.data.defined()
                ? options.data
                : MakePointerVar(name, dtype, options.scope.empty() ? "global" : options.scope);
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->strides = std::move(options.strides);
  n->elem_offset =
      options.elem_offset.defined() ? options.elem_offset : PrimExpr(MakeIntImm(index_type, 0));
  n->name = std::move(name);
  n->data_alignment = options.data_alignment;
  n->offset_factor = options.offset_factor;
  n->span = std::move(span);
  return n.Finish();
}

BufferRegion MakeBufferRegion(Buffer buffer, std::vector<Range> region, Span span) {
  NodeBuilder<BufferRegionNode> n;
  n->buffer = std::move(buffer);
  n->region = std::move(region);
  n->span = std::move(span);
  return n.Finish();
}

BufferRegion FullRegion(const Buffer& buffer) {
  std::vector<Range> region;
  for (const auto& dim : buffer->shape) {
    region.push_back(ir::MakeRange(MakeIntImm(dim->dtype, 0), dim));
  }
  return MakeBufferRegion(buffer, std::move(region));
}

MatchBufferRegion MakeMatchBufferRegion(Buffer buffer, BufferRegion source, Span span) {
  NodeBuilder<MatchBufferRegionNode> n;
  n->buffer = std::move(buffer);
  n->source = std::move(source);
  n->span = std::move(span);
  return n.Finish();
}

IterVar MakeIterVar(Range dom, Var var, IterVarType type, std::string thread_tag, Span span) {
  NodeBuilder<IterVarNode> n;
  n->dom = std::move(dom);
  n->var = std::move(var);
  n->iter_type = type;
  n->thread_tag = std::move(thread_tag);
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeBind(Var var, PrimExpr value, Span span) {
  NodeBuilder<BindNode> n;
  n->var = std::move(var);
  n->value = std::move(value);
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeAttrStmt(ObjectRef node, std::string key, PrimExpr value, Stmt body, Span span) {
  NodeBuilder<AttrStmtNode> n;
  n->node = std::move(node);
  n->attr_key = std::move(key);
  n->value = std::move(value);
  n->body = std::move(body);
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeAssertStmt(PrimExpr condition, std::string error_kind, std::vector<std::string> parts,
                    Span span) {
  NodeBuilder<AssertStmtNode> n;
  n->condition = std::move(condition);
  n->error_kind = MakeStringImm(std::move(error_kind));
  for (auto& p : parts) n->message_parts.push_back(MakeStringImm(std::move(p)));
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeBufferStore(Buffer buffer, PrimExpr value, std::vector<PrimExpr> indices,
                     PrimExpr predicate, Span span) {
  NodeBuilder<BufferStoreNode> n;
  n->buffer = std::move(buffer);
  n->value = std::move(value);
  n->indices = std::move(indices);
  n->predicate = std::move(predicate);
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeAllocBuffer(Buffer buffer, AttrMap annotations, Span span) {
  NodeBuilder<AllocBufferNode> n;
  n->buffer = std::move(buffer);
  n->annotations = std::move(annotations);
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeDeclBuffer(Buffer buffer, Span span) {
  NodeBuilder<DeclBufferNode> n;
  n->buffer = std::move(buffer);
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeFor(Var loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body,
             IterVar thread_binding, AttrMap annotations, PrimExpr step, Span span) {
  NodeBuilder<ForNode> n;
  n->loop_var = std::move(loop_var);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->kind = kind;
  n->body = std::move(body);
  n->thread_binding = std::move(thread_binding);
  n->annotations = std::move(annotations);
  n->step = std::move(step);
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeWhile(PrimExpr condition, Stmt body, Span span) {
  NodeBuilder<WhileNode> n;
  n->condition = std::move(condition);
  n->body = std::move(body);
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeIfThenElse(PrimExpr condition, Stmt then_case, Stmt else_case, Span span) {
  NodeBuilder<IfThenElseNode> n;
  n->condition = std::move(condition);
  n->then_case = std::move(then_case);
  n->else_case = std::move(else_case);
  n->span = std::move(span);
  return n.Finish();
}

namespace {

void FlattenInto(std::vector<Stmt>& out, const Stmt& s) {
  if (!s.defined()) return;
  if (auto* seq = s.as<SeqStmtNode>()) {
    for (const auto& child : seq->seq) FlattenInto(out, child);
    return;
  }
  // Only `T.evaluate(0)` is the no-op; `T.evaluate(T.bool(False))` is kept.
  if (auto* eval = s.as<EvaluateNode>()) {
    if (IsConstInt(eval->value, 0) && eval->value->dtype == DataType::Int(32)) return;
  }
  out.push_back(s);
}

}  // namespace

Stmt MakeSeq(std::vector<Stmt> seq, Span span) {
  std::vector<Stmt> flat;
  flat.reserve(seq.size());
  for (const auto& s : seq) FlattenInto(flat, s);
  if (flat.empty()) return MakeEvaluate(MakeIntImm(DataType::Int(32), 0), std::move(span));
  if (flat.size() == 1) return flat[0];
  NodeBuilder<SeqStmtNode> n;
  n->seq = std::move(flat);
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeEvaluate(PrimExpr value, Span span) {
  NodeBuilder<EvaluateNode> n;
  n->value = std::move(value);
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeBreak(Span span) {
  NodeBuilder<BreakNode> n;
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeContinue(Span span) {
  NodeBuilder<ContinueNode> n;
  n->span = std::move(span);
  return n.Finish();
}

SBlock MakeSBlock(std::vector<IterVar> iter_vars, std::vector<BufferRegion> reads,
                  std::vector<BufferRegion> writes, std::string name, Stmt body, Stmt init,
                  std::vector<Buffer> alloc_buffers, std::vector<MatchBufferRegion> match_buffers,
                  AttrMap annotations, Span span) {
  NodeBuilder<SBlockNode> n;
  n->iter_vars = std::move(iter_vars);
  n->reads = std::move(reads);
  n->writes = std::move(writes);
  n->name_hint = std::move(name);
  n->body = std::move(body);
  n->init = std::move(init);
  n->alloc_buffers = std::move(alloc_buffers);
  n->match_buffers = std::move(match_buffers);
  n->annotations = std::move(annotations);
  n->span = std::move(span);
  return n.Finish();
}

Stmt MakeSBlockRealize(std::vector<PrimExpr> iter_values, PrimExpr predicate, SBlock block,
                       Span span) {
  NodeBuilder<SBlockRealizeNode> n;
  n->iter_values = std::move(iter_values);
  n->predicate = std::move(predicate);
  n->block = std::move(block);
  n->span = std::move(span);
  return n.Finish();
}

PrimFunc MakePrimFunc(std::vector<Var> params, std::vector<Buffer> buffer_map, Stmt body,
                      Type ret_type, AttrMap attrs, Span span) {
  NodeBuilder<PrimFuncNode> n;
  buffer_map.resize(params.size());
  n->params = std::move(params);
  n->buffer_map = std::move(buffer_map);
  n->body = std::move(body);
  n->ret_type = std::move(ret_type);
  n->attrs = std::move(attrs);
  n->span = std::move(span);
  return n.Finish();
}

}  // namespace wb::tir
