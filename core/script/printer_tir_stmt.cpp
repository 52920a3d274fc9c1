// Statements, blocks and buffer declarations, including TVM's syntactic sugar: `T.grid`,
// `T.axis.remap`, concise scoping of attributes and `T.launch_thread`.
#include <unordered_set>

#include "script/printer_tir.h"
#include "tir/op.h"

namespace wb::script::printer {

using ir::TypeIndex;
using namespace wb::tir;  // NOLINT(google-build-using-namespace): node names are the vocabulary

namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out;
}

std::string Tuple(const std::vector<std::string>& items) {
  if (items.size() == 1) return "(" + items[0] + ",)";
  return "(" + Join(items) + ")";
}

bool HasTrivialStep(const ForNode* loop) {
  return !loop->step.defined() || IsConstInt(loop->step, 1);
}

bool UsesAnyVar(const PrimExpr& e, const std::unordered_set<const Object*>& vars) {
  if (!e.defined() || vars.empty()) return false;
  bool found = false;
  PostOrderVisit(e, [&](const Object* node) { found = found || vars.count(node); });
  return found;
}

// Whether `e` loads from `buffer` or mentions its data pointer.
bool ReadsBuffer(const PrimExpr& e, const BufferNode* buffer) {
  bool found = false;
  const Object* data = buffer->data.get();
  PostOrderVisit(e, [&](const Object* node) {
    if (node == buffer || (data && node == data)) found = true;
    if (auto* load = ir::IsInstance<BufferLoadNode>(node)
                         ? static_cast<const BufferLoadNode*>(node)
                         : nullptr) {
      if (load->buffer.get() == buffer) found = true;
    }
  });
  return found;
}

int CountUses(const Stmt& s, const Object* var) {
  int n = 0;
  if (s.defined()) PostOrderVisit(s, [&](const Object* node) { n += node == var; });
  return n;
}

// Structural equality of expressions, enough to recognise a loop's bounds in a block axis.
bool ExprEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a->type_index() != b->type_index() || a->dtype != b->dtype) return false;
  if (auto* ia = a.as<IntImmNode>()) return ia->value == b.as<IntImmNode>()->value;
  if (auto* fa = a.as<FloatImmNode>()) return fa->value == b.as<FloatImmNode>()->value;
  if (auto* ba = a.as<BinaryNode>()) {
    auto* bb = b.as<BinaryNode>();
    return ExprEqual(ba->a, bb->a) && ExprEqual(ba->b, bb->b);
  }
  if (auto* ca = a.as<CastNode>()) return ExprEqual(ca->value, b.as<CastNode>()->value);
  return false;
}

const char* AxisKind(IterVarType type) {
  switch (type) {
    case IterVarType::kDataPar:
      return "spatial";
    case IterVarType::kCommReduce:
      return "reduce";
    case IterVarType::kOrdered:
      return "scan";
    default:
      return "opaque";
  }
}

}  // namespace

// --- Names -------------------------------------------------------------------------------------

std::string TIRPrinter::Define(const Object* obj, std::string_view hint,
                               std::string_view empty_hint) {
  std::string name = names_.Define(hint, empty_hint);
  Alias(obj, name);
  return name;
}

void TIRPrinter::Alias(const Object* obj, std::string text) {
  std::optional<std::string> previous;
  if (auto it = name_of_.find(obj); it != name_of_.end()) previous = it->second;
  name_of_[obj] = std::move(text);
  scope_objects_.back().push_back({obj, std::move(previous)});
}

void TIRPrinter::PushScope() {
  names_.PushScope();
  scope_objects_.emplace_back();
}

void TIRPrinter::PopScope() {
  if (scope_objects_.size() <= 1) return;
  // Undo in reverse order, so that a redefinition gives back the outer name.
  auto& defined = scope_objects_.back();
  for (auto it = defined.rbegin(); it != defined.rend(); ++it) {
    if (it->previous) {
      name_of_[it->object] = *it->previous;
    } else {
      name_of_.erase(it->object);
    }
  }
  scope_objects_.pop_back();
  names_.PopScope();
}

Line TIRPrinter::MakeLine(std::string text, bool compound) {
  Line line;
  line.text = std::move(text);
  line.compound = compound;
  line.uses = std::move(pending_uses_);
  pending_uses_.clear();
  return line;
}

// --- Buffers -----------------------------------------------------------------------------------

std::string TIRPrinter::DefineBuffer(const Buffer& buffer) {
  return Define(buffer.get(), buffer->name, "buffer");
}

std::vector<std::string> TIRPrinter::BufferKeywords(const Buffer& buffer, const std::string& name,
                                                    bool print_data, bool print_scope) {
  std::vector<std::string> kw;
  if (buffer->data.defined()) {
    if (IsDefined(buffer->data.get())) {
      if (print_data) kw.push_back("data=" + PrintVarUse(buffer->data.get()));
    } else {
      Alias(buffer->data.get(), name + ".data");
      data_owner_.emplace(buffer->data.get(), buffer.get());
    }
  }
  if (!buffer->strides.empty()) {
    std::vector<std::string> strides;
    for (const auto& s : buffer->strides) {
      auto* var = s.as<VarNode>();
      if (signature_decls_ && var && !IsDefined(var)) {
        // A new stride variable in the signature. Used nowhere else, it prints as a string, from
        // which the parser makes a fresh int32 Var; otherwise it is quoted at its first
        // occurrence and declared at the top of the body, like a symbolic shape variable.
        std::string text = Define(var, var->name_hint);
        int uses = signature_count_[var] + use_count_[var];
        if (uses > 1 || var->dtype != DataType::Int(32)) {
          signature_decls_->push_back(text + " = " + VarCreation(var));
        }
        strides.push_back(QuoteString(text));
        continue;
      }
      strides.push_back(P(s));
    }
    kw.push_back("strides=" + Tuple(strides));
  }
  bool needs_factor = false;
  DataType index_type = buffer->shape.empty() || !buffer->shape[0].defined()
                            ? DataType::Int(32)
                            : buffer->shape[0]->dtype;
  const PrimExpr& offset = buffer->elem_offset;
  if (auto* imm = offset.as<IntImmNode>()) {
    if (imm->value != 0 || imm->dtype != index_type) kw.push_back("elem_offset=" + P(offset));
  } else if (auto* var = offset.as<VarNode>(); var && !IsDefined(var)) {
    Alias(var, name + ".elem_offset");
    needs_factor = true;
  } else if (offset.defined()) {
    kw.push_back("elem_offset=" + P(offset));
  }
  std::string scope = buffer->scope();
  if (print_scope && scope != "global") kw.push_back("scope=" + QuoteString(scope));
  if (buffer->data_alignment != 64) {
    kw.push_back("align=" + std::to_string(buffer->data_alignment));
  }
  if (needs_factor || buffer->offset_factor != 1) {
    kw.push_back("offset_factor=" + std::to_string(buffer->offset_factor));
  }
  return kw;
}

std::vector<std::string> TIRPrinter::BufferArgs(const Buffer& buffer, const std::string& name,
                                                bool always_dtype, bool print_data,
                                                bool print_scope) {
  std::vector<std::string> shape;
  for (const auto& d : buffer->shape) shape.push_back(P(d));
  std::vector<std::string> args{Tuple(shape)};
  if (always_dtype || buffer->dtype != DataType::Float(32)) {
    args.push_back(QuoteString(buffer->dtype.ToString()));
  }
  for (auto& k : BufferKeywords(buffer, name, print_data, print_scope))
    args.push_back(std::move(k));
  return args;
}

std::string TIRPrinter::Region(const BufferRegion& region) {
  if (!region.defined()) return "None";
  std::string name = BufferName(region->buffer);
  std::vector<std::string> items;
  for (const auto& r : region->region) {
    if (!r.defined()) {
      items.push_back("None");
    } else if (IsConstInt(r->extent, 1)) {
      items.push_back(P(r->min));
    } else {
      items.push_back(P(r->min) + ":" + P(add(r->min, r->extent)));
    }
  }
  return name + "[" + (items.empty() ? "()" : Join(items)) + "]";
}

// --- Sequences and scopes ----------------------------------------------------------------------

void TIRPrinter::PrintBody(const Stmt& body, std::vector<Line>* out) {
  if (!body.defined()) return;
  VisitStmt(body, Emit{out, true});
}

void TIRPrinter::VisitStmt_(const SeqStmtNode* op, Emit emit) {
  for (size_t i = 0; i < op->seq.size(); ++i) {
    if (!op->seq[i].defined()) continue;
    // A scalar buffer merges with a following store of element 0 whose value does not read it:
    // `t: T.int32 = value`.
    if (auto* alloc = op->seq[i].as<AllocBufferNode>();
        alloc && IsScalarBuffer(alloc) && i + 1 < op->seq.size()) {
      auto* store = op->seq[i + 1].as<BufferStoreNode>();
      const IntImmNode* index = store && store->indices.size() == 1
                                    ? store->indices[0].as<IntImmNode>()
                                    : nullptr;
      if (store && store->buffer.same_as(alloc->buffer) && !store->predicate.defined() &&
          index && index->value == 0 && index->dtype == DataType::Int(32) &&
          !ReadsBuffer(store->value, alloc->buffer.get())) {
        ++i;
        PrintScalarAlloc(alloc, store, Emit{emit.out, emit.last && i + 1 == op->seq.size()});
        continue;
      }
    }
    VisitStmt(op->seq[i], Emit{emit.out, emit.last && i + 1 == op->seq.size()});
  }
}

void TIRPrinter::ScopedBody(std::string header, const Stmt& body, Emit emit, bool concise) {
  if (concise) {
    emit.out->push_back(MakeLine(std::move(header)));
    PrintBody(body, emit.out);
    return;
  }
  Line line = MakeLine("with " + header + ":", true);
  PushScope();
  PrintBody(body, &line.body);
  PopScope();
  emit.out->push_back(std::move(line));
}

// --- Flat statements ---------------------------------------------------------------------------

void TIRPrinter::VisitStmt_(const BindNode* op, Emit emit) {
  std::string value = P(op->value);
  if (!op->var.defined()) {
    emit.out->push_back(MakeLine("_ = " + value));
    return;
  }
  if (IsDefined(op->var.get())) {
    emit.out->push_back(MakeLine(PrintVarUse(op->var.get()) + " = " + value));
    return;
  }
  std::string type = TypeText(op->var->type_annotation, op->var->dtype);
  if (auto* ptr = op->var->type_annotation.as<ir::PointerTypeNode>()) {
    const auto* elem = ptr->element_type.as<ir::PrimTypeNode>();
    bool global = ptr->storage_scope.empty() || ptr->storage_scope == "global";
    if (!elem || global) type = "T.handle";
  }
  std::string name = Define(op->var.get(), op->var->name_hint);
  emit.out->push_back(MakeLine(name + ": T.let[" + type + "] = " + value));
}

void TIRPrinter::VisitStmt_(const AssertStmtNode* op, Emit emit) {
  std::string kind = op->error_kind.defined() ? op->error_kind->value : "RuntimeError";
  std::vector<std::string> parts;
  for (const auto& p : op->message_parts)
    parts.push_back(p.defined() ? QuoteString(p->value) : "None");
  emit.out->push_back(MakeLine("assert " + P(op->condition) + ", (" + QuoteString(kind) + ", [" +
                               Join(parts) + "])"));
}

void TIRPrinter::VisitStmt_(const BufferStoreNode* op, Emit emit) {
  if (!op->predicate.defined() && IsScalarAccess(op->buffer, op->indices)) {
    std::string name = ScalarName(op->buffer);
    emit.out->push_back(MakeLine(name + " = " + P(op->value)));
    return;
  }
  std::string name = BufferName(op->buffer);
  if (op->predicate.defined()) {
    std::string indices = Indices(op->indices, false);
    std::string text = name + ".vstore([" + indices + "], " + P(op->value) +
                       ", predicate=" + P(op->predicate) + ")";
    emit.out->push_back(MakeLine(std::move(text)));
    return;
  }
  std::string lhs = name + "[" + Indices(op->indices, true) + "]";
  emit.out->push_back(MakeLine(lhs + " = " + P(op->value)));
}

bool TIRPrinter::IsScalarBuffer(const AllocBufferNode* op) const {
  // In s_tir functions a buffer has no layout, so it is never TVM's scalar (TVMSCRIPT.md §2).
  if (s_tir_ || !op->buffer.defined() || !op->annotations.empty()) return false;
  const BufferNode* b = op->buffer.get();
  if (b->shape.size() != 1 || !b->strides.empty()) return false;
  auto* extent = b->shape[0].as<IntImmNode>();
  if (!extent || extent->value != 1 || extent->dtype != DataType::Int(32)) return false;
  if (b->elem_offset.defined()) {
    auto* offset = b->elem_offset.as<IntImmNode>();
    if (!offset || offset->value != 0 || offset->dtype != DataType::Int(32)) return false;
  }
  if (b->data_alignment != 64 || b->offset_factor != 1) return false;
  if (b->dtype.is_void() || b->dtype.is_handle()) return false;
  return b->scope() == "local";
}

void TIRPrinter::PrintScalarAlloc(const AllocBufferNode* op, const BufferStoreNode* store,
                                  Emit emit) {
  std::string value = store ? P(store->value) : "";
  std::string name = DefineBuffer(op->buffer);
  scalar_buffers_.insert(op->buffer.get());
  const Var& data = op->buffer->data;
  if (data.defined() && !IsDefined(data.get())) Alias(data.get(), name + ".buffer.data");
  std::string text = name + ": " + DTypeText(op->buffer->dtype);
  if (store) text += " = " + value;
  emit.out->push_back(MakeLine(std::move(text)));
}

void TIRPrinter::VisitStmt_(const AllocBufferNode* op, Emit emit) {
  if (!op->buffer.defined()) return;
  if (IsScalarBuffer(op)) {
    PrintScalarAlloc(op, nullptr, emit);
    return;
  }
  std::string name = DefineBuffer(op->buffer);
  std::string scope = op->buffer->scope();
  std::string callee = "T.alloc_buffer";
  if (scope == "shared") callee = "T.alloc_shared";
  if (scope == "local") callee = "T.alloc_local";
  auto args = BufferArgs(op->buffer, name, false, false, callee == "T.alloc_buffer");
  if (!op->annotations.empty()) args.push_back("annotations=" + AttrDict(op->annotations));
  emit.out->push_back(MakeLine(name + " = " + Call(callee, args)));
}

std::string TIRPrinter::ViewSugar(const Buffer& buffer) {
  const BufferNode* b = buffer.get();
  if (!b->data.defined()) return "";
  auto owner = data_owner_.find(b->data.get());
  if (owner == data_owner_.end()) return "";
  const BufferNode* p = owner->second;
  auto pname = name_of_.find(p);
  if (p == b || pname == name_of_.end() || scalar_buffers_.count(p)) return "";
  // The parser's view keeps P's layout attributes and a compact (stride-free) layout.
  if (!b->strides.empty() || !p->strides.empty() || b->scope() != p->scope() ||
      b->data_alignment != p->data_alignment || b->offset_factor != p->offset_factor ||
      !ExprEqual(b->elem_offset, p->elem_offset)) {
    return "";
  }
  auto same_shape = [&](const std::vector<PrimExpr>& shape) {
    if (shape.size() != b->shape.size()) return false;
    for (size_t i = 0; i < shape.size(); ++i)
      if (!ExprEqual(shape[i], b->shape[i])) return false;
    return true;
  };
  if (b->dtype != p->dtype) {
    // P.view("dtype"): the last extent scales by the ratio of the element widths.
    std::vector<PrimExpr> shape = p->shape;
    int64_t from = p->dtype.bits() * p->dtype.lanes(), to = b->dtype.bits() * b->dtype.lanes();
    if (from != to && !shape.empty()) {
      PrimExpr& last = shape.back();
      if (from > to && from % to == 0) last = mul(last, make_const(last->dtype, from / to));
      else if (to > from && to % from == 0) last = floordiv(last, make_const(last->dtype, to / from));
      else return "";
    }
    if (!same_shape(shape)) return "";
    return pname->second + ".view(" + QuoteString(b->dtype.ToString()) + ")";
  }
  // P.view(d0, d1, ...): another shape over the same elements; an identical shape is no view.
  if (same_shape(p->shape) || b->shape.empty()) return "";
  std::vector<std::string> dims;
  for (const auto& d : b->shape) dims.push_back(P(d));
  return pname->second + ".view(" + Join(dims) + ")";
}

void TIRPrinter::VisitStmt_(const DeclBufferNode* op, Emit emit) {
  if (!op->buffer.defined()) return;
  std::string sugar = ViewSugar(op->buffer);
  std::string name = DefineBuffer(op->buffer);
  if (!sugar.empty()) {
    emit.out->push_back(MakeLine(name + " = " + sugar));
    return;
  }
  auto args = BufferArgs(op->buffer, name, false, true);
  emit.out->push_back(MakeLine(name + " = " + Call("T.decl_buffer", args)));
}

void TIRPrinter::VisitStmt_(const EvaluateNode* op, Emit emit) {
  if (auto* call = op->value.as<CallNode>()) {
    // `return e` parses to an Evaluate of `tirx.ret(e)`.
    auto* callee = call->op.as<ir::OpNode>();
    if (callee && callee->name == "tirx.ret" && call->args.size() == 1) {
      emit.out->push_back(MakeLine("return " + P(call->args[0])));
      return;
    }
    emit.out->push_back(MakeLine(P(op->value)));
  } else {
    emit.out->push_back(MakeLine(Call("T.evaluate", {P(op->value)})));
  }
}

void TIRPrinter::VisitStmt_(const BreakNode*, Emit emit) { emit.out->push_back(MakeLine("break")); }
void TIRPrinter::VisitStmt_(const ContinueNode*, Emit emit) {
  emit.out->push_back(MakeLine("continue"));
}

// --- Attributes and threads --------------------------------------------------------------------

void TIRPrinter::VisitStmt_(const AttrStmtNode* op, Emit emit) { PrintAttr(op, emit); }

void TIRPrinter::PrintAttr(const AttrStmtNode* op, Emit emit) {
  if (auto* iv = op->node.as<IterVarNode>();
      iv && iv->var.defined() &&
      (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread")) {
    PrintLaunchThread(op, iv, emit);
    return;
  }
  if (auto* node = op->node.as<IntImmNode>(); node && node->value == 0) {
    // A chain of node-0 attributes merges into one dictionary, in nesting order.
    std::vector<std::string> items;
    const AttrStmtNode* cur = op;
    while (true) {
      items.push_back(QuoteString(cur->attr_key) + ": " + P(cur->value));
      auto* next = cur->body.as<AttrStmtNode>();
      auto* next_node = next ? next->node.as<IntImmNode>() : nullptr;
      if (!next_node || next_node->value != 0) break;
      cur = next;
    }
    ScopedBody(Call("T.attr", {"{" + Join(items) + "}"}), cur->body, emit, emit.last);
    return;
  }
  // A target node is kept as its text (a string immediate, as T.attr makes of a string).
  auto* target = op->attr_key == kTargetAttrKey ? op->node.as<StringImmNode>() : nullptr;
  std::string header = Call("T.attr", {target ? TargetCallText(target->value) : AttrValue(op->node),
                                       QuoteString(op->attr_key), P(op->value)});
  ScopedBody(std::move(header), op->body, emit, emit.last);
}

void TIRPrinter::PrintLaunchThread(const AttrStmtNode* op, const IterVarNode* iv, Emit emit) {
  const VarNode* var = iv->var.get();
  std::string extent = P(op->value);
  bool encloses_all = CountUses(op->body, var) >= use_count_[var];
  if (!IsDefined(var) && encloses_all) {
    std::string call = Call("T.launch_thread", {QuoteString(iv->thread_tag), extent});
    if (emit.last) {
      std::string name = Define(var, var->name_hint);
      emit.out->push_back(MakeLine(name + " = " + call));
      PrintBody(op->body, emit.out);
      return;
    }
    PushScope();
    std::string name = Define(var, var->name_hint);
    Line line = MakeLine("with " + call + " as " + name + ":", true);
    PrintBody(op->body, &line.body);
    PopScope();
    emit.out->push_back(std::move(line));
    return;
  }
  if (!IsDefined(var)) custom_decl_[var] = Call("T.env_thread", {QuoteString(iv->thread_tag)});
  std::string name = PrintVarUse(var);
  ScopedBody(Call("T.launch_thread", {name, extent}), op->body, emit, emit.last);
}

// --- Control flow ------------------------------------------------------------------------------

void TIRPrinter::VisitStmt_(const ForNode* op, Emit emit) {
  // `T.grid`: directly nested serial loops from 0, unannotated, with unit steps, whose extents
  // do not depend on the grid's own variables.
  std::vector<const ForNode*> grid;
  std::unordered_set<const Object*> grid_vars;
  for (const ForNode* l = op; l; l = l->body.as<ForNode>()) {
    if (l->kind != ForKind::kSerial || !IsConstInt(l->min, 0) || !l->annotations.empty() ||
        !HasTrivialStep(l) || UsesAnyVar(l->extent, grid_vars) || !l->loop_var.defined()) {
      break;
    }
    grid.push_back(l);
    grid_vars.insert(l->loop_var.get());
  }
  PushScope();
  if (grid.size() > 1) {
    std::vector<std::string> extents, vars;
    for (const ForNode* l : grid) extents.push_back(P(l->extent));
    for (const ForNode* l : grid) {
      vars.push_back(Define(l->loop_var.get(), l->loop_var->name_hint));
      loops_[l->loop_var.get()] = l;
    }
    Line line = MakeLine("for " + Join(vars) + " in " + Call("T.grid", extents) + ":", true);
    PrintBody(grid.back()->body, &line.body);
    for (const ForNode* l : grid) loops_.erase(l->loop_var.get());
    PopScope();
    emit.out->push_back(std::move(line));
    return;
  }
  std::vector<std::string> args;
  std::vector<std::string> kwargs;
  bool trivial_step = HasTrivialStep(op);
  if (IsConstInt(op->min, 0) && trivial_step) {
    args.push_back(P(op->extent));
  } else {
    args.push_back(P(op->min));
    args.push_back(op->min.defined() && op->extent.defined() ? P(add(op->min, op->extent))
                                                             : "None");
  }
  std::string callee;
  switch (op->kind) {
    case ForKind::kSerial:
      callee = op->annotations.empty() ? "range" : "T.serial";
      break;
    case ForKind::kParallel:
      callee = "T.parallel";
      break;
    case ForKind::kVectorized:
      callee = "T.vectorized";
      break;
    case ForKind::kUnrolled:
      callee = "T.unroll";
      break;
    case ForKind::kThreadBinding:
      callee = "T.thread_binding";
      kwargs.push_back("thread=" + QuoteString(op->thread_binding.defined()
                                                   ? op->thread_binding->thread_tag
                                                   : ""));
      break;
  }
  if (!op->annotations.empty()) {
    const auto& ann = op->annotations;
    if (ann.size() == 1 && ann.count("disable_unroll")) {
      kwargs.push_back("unroll=False");
    } else if (ann.size() == 1 && ann.count("pragma_unroll")) {
      kwargs.push_back("unroll=" + AttrValue(ann.begin()->second));
    } else {
      kwargs.push_back("annotations=" + AttrDict(ann));
    }
  }
  if (!trivial_step) {
    if (callee == "range") {
      args.push_back(P(op->step));
    } else {
      kwargs.push_back("step=" + P(op->step));
    }
  }
  for (auto& k : kwargs) args.push_back(std::move(k));
  std::string var =
      op->loop_var.defined() ? Define(op->loop_var.get(), op->loop_var->name_hint) : "_";
  if (op->loop_var.defined()) loops_[op->loop_var.get()] = op;
  Line line = MakeLine("for " + var + " in " + Call(callee, args) + ":", true);
  PrintBody(op->body, &line.body);
  if (op->loop_var.defined()) loops_.erase(op->loop_var.get());
  PopScope();
  emit.out->push_back(std::move(line));
}

void TIRPrinter::VisitStmt_(const WhileNode* op, Emit emit) {
  Line line = MakeLine("while " + P(op->condition) + ":", true);
  PushScope();
  PrintBody(op->body, &line.body);
  PopScope();
  emit.out->push_back(std::move(line));
}

void TIRPrinter::VisitStmt_(const IfThenElseNode* op, Emit emit) {
  Line then_line = MakeLine("if " + P(op->condition) + ":", true);
  PushScope();
  PrintBody(op->then_case, &then_line.body);
  PopScope();
  emit.out->push_back(std::move(then_line));
  if (op->else_case.defined()) {
    Line else_line = MakeLine("else:", true);
    PushScope();
    PrintBody(op->else_case, &else_line.body);
    PopScope();
    emit.out->push_back(std::move(else_line));
  }
}

// --- Blocks ------------------------------------------------------------------------------------

void TIRPrinter::VisitStmt_(const SBlockRealizeNode* op, Emit emit) {
  if (!op->block.defined()) return;
  Line line = MakeLine(Call("with T.sblock", {QuoteString(op->block->name_hint)}) + ":", true);
  PushScope();
  PrintBlockContents(op->block.get(), op, &line.body);
  PopScope();
  emit.out->push_back(std::move(line));
}

void TIRPrinter::VisitStmt_(const SBlockNode* op, Emit emit) {
  Line line =
      MakeLine(Call("with T.sblock", {QuoteString(op->name_hint), "no_realize=True"}) + ":", true);
  PushScope();
  PrintBlockContents(op, nullptr, &line.body);
  PopScope();
  emit.out->push_back(std::move(line));
}

void TIRPrinter::PrintBlockContents(const SBlockNode* block, const SBlockRealizeNode* realize,
                                    std::vector<Line>* out) {
  if (realize && realize->iter_values.size() != block->iter_vars.size()) realize = nullptr;
  // Axes: maximal runs of spatial/reduce axes bound to an enclosing loop variable with the same
  // domain print as one `T.axis.remap`.
  std::vector<size_t> run;
  auto remappable = [&](size_t i) {
    const IterVar& iv = block->iter_vars[i];
    if (!realize || !iv.defined() || !iv->dom.defined()) return false;
    if (iv->iter_type != IterVarType::kDataPar && iv->iter_type != IterVarType::kCommReduce) {
      return false;
    }
    auto* var = realize->iter_values[i].as<VarNode>();
    auto it = var ? loops_.find(var) : loops_.end();
    return it != loops_.end() && ExprEqual(it->second->min, iv->dom->min) &&
           ExprEqual(it->second->extent, iv->dom->extent);
  };
  auto print_single = [&](size_t i) {
    const IterVar& iv = block->iter_vars[i];
    if (!iv.defined() || !iv->var.defined()) return;
    std::string dom = "None";
    if (iv->dom.defined()) {
      dom = IsConstInt(iv->dom->min, 0)
                ? P(iv->dom->extent)
                : "(" + P(iv->dom->min) + ", " + P(add(iv->dom->min, iv->dom->extent)) + ")";
    }
    std::vector<std::string> args{dom};
    if (realize) args.push_back(P(realize->iter_values[i]));
    std::string name = Define(iv->var.get(), iv->var->name_hint);
    out->push_back(
        MakeLine(name + " = " + Call(std::string("T.axis.") + AxisKind(iv->iter_type), args)));
  };
  auto flush_run = [&]() {
    if (run.size() == 1) {
      print_single(run[0]);
    } else if (run.size() > 1) {
      std::vector<std::string> lhs, values;
      std::string kinds;
      for (size_t i : run) values.push_back(P(realize->iter_values[i]));
      for (size_t i : run) {
        const IterVar& iv = block->iter_vars[i];
        lhs.push_back(Define(iv->var.get(), iv->var->name_hint));
        kinds += iv->iter_type == IterVarType::kDataPar ? "S" : "R";
      }
      out->push_back(
          MakeLine(Join(lhs) + " = " +
                   Call("T.axis.remap", {QuoteString(kinds), "[" + Join(values) + "]"})));
    }
    run.clear();
  };
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (remappable(i)) {
      run.push_back(i);
    } else {
      flush_run();
      print_single(i);
    }
  }
  flush_run();
  if (realize && realize->predicate.defined() && !IsConstInt(realize->predicate, 1)) {
    out->push_back(MakeLine(Call("T.where", {P(realize->predicate)})));
  }
  std::vector<std::string> reads, writes;
  for (const auto& r : block->reads) reads.push_back(Region(r));
  out->push_back(MakeLine(Call("T.reads", reads)));
  for (const auto& w : block->writes) writes.push_back(Region(w));
  out->push_back(MakeLine(Call("T.writes", writes)));
  if (!block->annotations.empty()) {
    out->push_back(MakeLine(Call("T.sblock_attr", {AttrDict(block->annotations)})));
  }
  for (const auto& buffer : block->alloc_buffers) {
    if (!buffer.defined()) continue;
    std::string name = DefineBuffer(buffer);
    out->push_back(MakeLine(name + " = " +
                            Call("T.sblock_alloc_buffer", BufferArgs(buffer, name, false, false))));
  }
  for (const auto& match : block->match_buffers) {
    if (!match.defined() || !match->buffer.defined()) continue;
    std::string source = Region(match->source);
    std::string name = DefineBuffer(match->buffer);
    std::vector<std::string> args{source};
    for (auto& a : BufferArgs(match->buffer, name, false, false)) args.push_back(std::move(a));
    out->push_back(MakeLine(name + " = " + Call("T.match_buffer", args)));
  }
  if (block->init.defined()) {
    Line line = MakeLine("with T.init():", true);
    PushScope();
    PrintBody(block->init, &line.body);
    PopScope();
    out->push_back(std::move(line));
  }
  PrintBody(block->body, out);
}

}  // namespace wb::script::printer
