// Compiles a PrimFunc into closures for the reference interpreter. Every variable and buffer
// gets a slot in the Frame here, once, so running touches no maps. Each closure does exactly
// what TVM's semantics say for its node; the comments note where that is subtle.
#include <algorithm>
#include <sstream>

#include "tir/builtin.h"
#include "tir/functor.h"
#include "tir/interpreter_gpu.h"
#include "tir/interpreter_machine.h"

namespace wb::tir::interp {

namespace {

using ir::TypeIndex;

// Lane `i` of a value that is either a vector of the expected width or a scalar; anything
// else is ill-typed IR, reported instead of read out of range.
const Scalar& Lane(const Value& v, int i) {
  if (v.lanes() == 1) return v[0];
  if (i >= v.lanes()) Fail("a " + v.dtype().ToString() + " operand has too few lanes", {});
  return v[i];
}

// An iter var type the fast binding may set directly: what Cast accepts as a target without
// failing (a supported scalar that is not a handle).
bool FastIterType(DataType t) {
  if (!t.is_scalar() || t.is_handle() || t.is_void()) return false;
  try {
    CheckSupported(t, {});
  } catch (const InterpError&) {
    return false;
  }
  return true;
}

// Whether running `s` may allocate memory that no SeqStmt or block inside `s` releases: then
// the sequence or block around it must release it (AllocBuffer scopes over the rest of its
// sequence). Sequences and blocks whose statements cannot allocate skip that bookkeeping.
bool AllocatesUnscoped(const tir::Stmt& s) {
  if (!s.defined()) return false;
  if (s.as<AllocBufferNode>()) return true;
  if (auto* loop = s.as<ForNode>()) return AllocatesUnscoped(loop->body);
  if (auto* loop = s.as<WhileNode>()) return AllocatesUnscoped(loop->body);
  if (auto* attr = s.as<AttrStmtNode>()) return AllocatesUnscoped(attr->body);
  if (auto* branch = s.as<IfThenElseNode>()) {
    return AllocatesUnscoped(branch->then_case) || AllocatesUnscoped(branch->else_case);
  }
  return false;  // SeqStmt and blocks release their own; other statements do not allocate
}

std::string OpShortName(const ir::OpNode* op) {
  const std::string& n = op->name;
  return n.rfind("tirx.", 0) == 0 ? n.substr(5) : n;
}

class Compiler : public ExprFunctor<ExprFn(const PrimExpr&)>,
                 public StmtFunctor<StmtFn(const Stmt&)>,
                 public ExprCompiler {
 public:
  Compiler(Machine* machine, CompiledFunc* out) : machine_(machine), out_(out) {}

  int Slot(const VarNode* var) override {
    auto [it, inserted] = var_slots_.try_emplace(var, static_cast<int>(var_slots_.size()));
    return it->second;
  }

  Matcher MakeMatcher(const PrimExpr& e) {
    Matcher m;
    m.expr = e;
    if (!e.defined()) return m;
    if (auto* var = e.as<VarNode>()) {
      m.var_slot = Slot(var);
      m.var_dtype = var->dtype;
    }
    m.eval = Expr(e);
    return m;
  }

  BufferInfo* Info(const Buffer& buffer) {
    auto it = buffer_infos_.find(buffer.get());
    if (it != buffer_infos_.end()) return it->second;
    auto info = std::make_unique<BufferInfo>();
    BufferInfo* p = info.get();
    buffer_infos_[buffer.get()] = p;
    out_->buffers.push_back(std::move(info));
    p->buffer = buffer;
    p->slot = static_cast<int>(buffer_infos_.size()) - 1;
    p->data_slot = Slot(buffer->data.get());
    p->elem_bytes = ElementBytes(buffer->dtype);
    for (const auto& s : buffer->shape) p->shape.push_back(MakeMatcher(s));
    for (const auto& s : buffer->strides) p->strides.push_back(MakeMatcher(s));
    p->elem_offset = MakeMatcher(buffer->elem_offset);
    return p;
  }

  // What cannot be interpreted (an external call, an unsupported dtype, ill-typed IR) fails
  // when it is reached, not when it is compiled: a path never taken must not stop the run.
  ExprFn Expr(const PrimExpr& e) override {
    // Scalars go through the fast path where it applies (interpreter_scalar.cpp), wrapped back
    // into a Value for the general closures around them.
    if (auto fast = CompileScalar(*this, e)) {
      return [op = std::move(*fast)](Frame& f) {
        Value v;
        v.SetScalar(op.dtype, op.kind, op(f));
        return v;
      };
    }
    try {
      return ExprFunctor::VisitExpr(e);
    } catch (const InterpError& error) {
      Diagnostic d = error.diagnostic();
      return [d](Frame&) -> Value { throw InterpError(d); };
    }
  }
  StmtFn Stmt(const tir::Stmt& s) {
    if (!s.defined()) return [](Frame&) { return Flow::kNormal; };
    try {
      return StmtFunctor::VisitStmt(s);
    } catch (const InterpError& error) {
      Diagnostic d = error.diagnostic();
      return [d](Frame&) -> Flow { throw InterpError(d); };
    }
  }

  // How many block occurrences in `body` define each iter var (see the slot sharing in
  // VisitStmt_(SBlockRealizeNode)).
  void CountIterVarDefinitions(const tir::Stmt& body) {
    PostOrderVisit(body, [this](const Object* node) {
      if (node->type_index() != TypeIndex::kSBlock) return;
      for (const auto& iv : static_cast<const SBlockNode*>(node)->iter_vars) ++iter_var_definitions_[iv->var.get()];
    });
  }

  void Finish() {
    out_->num_vars = static_cast<int>(var_slots_.size());
    out_->num_buffers = static_cast<int>(buffer_infos_.size());
  }

  // --- Expressions -----------------------------------------------------------------------------

  ExprFn VisitExpr_(const IntImmNode* op) override {
    Value v = Value::Int(op->dtype, op->value);
    return [v](Frame&) { return v; };
  }
  ExprFn VisitExpr_(const FloatImmNode* op) override {
    Value v = Value::Float(op->dtype, op->value);
    return [v](Frame&) { return v; };
  }
  ExprFn VisitExpr_(const StringImmNode* op) override {
    Span span = op->span;
    return [span](Frame&) -> Value { Fail("a string cannot be used as a value here", span); };
  }
  ExprFn VarRead(const VarNode* op) {
    int slot = Slot(op);
    std::string name = op->name_hint;
    Span span = op->span;
    return [slot, name, span](Frame& f) -> Value {
      const Value& v = f.vars[slot];
      if (!v.defined()) Fail("variable '" + name + "' has no value here (used outside its scope)", span);
      return v;
    };
  }
  ExprFn VisitExpr_(const VarNode* op) override { return VarRead(op); }
  ExprFn VisitExpr_(const SizeVarNode* op) override { return VarRead(op); }
  ExprFn VisitExpr_(const CastNode* op) override {
    CheckSupported(op->dtype, op->span);
    ExprFn value = Expr(op->value);
    DataType t = op->dtype;
    Span span = op->span;
    return [value, t, span](Frame& f) { return Cast(t, value(f), span); };
  }
  ExprFn BinaryFn(const BinaryNode* op) {
    ExprFn a = Expr(op->a), b = Expr(op->b);
    TypeIndex kind = op->type_index();
    Span span = op->span;
    // And/Or evaluate both operands: TIR expressions are pure, so short-circuiting could not
    // change a result, and vectors need both sides anyway.
    return [a, b, kind, span](Frame& f) { return Binary(kind, a(f), b(f), span); };
  }
#define WB_BIN(Name) \
  ExprFn VisitExpr_(const Name##Node* op) override { return BinaryFn(op); }
  WB_BIN(Add) WB_BIN(Sub) WB_BIN(Mul) WB_BIN(Div) WB_BIN(Mod) WB_BIN(FloorDiv) WB_BIN(FloorMod)
  WB_BIN(Min) WB_BIN(Max) WB_BIN(EQ) WB_BIN(NE) WB_BIN(LT) WB_BIN(LE) WB_BIN(GT) WB_BIN(GE)
  WB_BIN(And) WB_BIN(Or)
#undef WB_BIN
  ExprFn VisitExpr_(const NotNode* op) override {
    ExprFn a = Expr(op->a);
    return [a](Frame& f) { return LogicalNot(a(f)); };
  }
  ExprFn VisitExpr_(const SelectNode* op) override {
    ExprFn c = Expr(op->condition), t = Expr(op->true_value), e = Expr(op->false_value);
    DataType dtype = op->dtype;
    return [c, t, e, dtype](Frame& f) {
      Value cv = c(f), tv = t(f), ev = e(f);  // Select evaluates both sides
      if (cv.lanes() == 1) return cv[0].i ? tv : ev;
      Value r(dtype);
      for (int i = 0; i < r.lanes(); ++i) r[i] = Lane(cv, i).i ? Lane(tv, i) : Lane(ev, i);
      return r;
    };
  }

  std::shared_ptr<Access> MakeAccess(const Buffer& buffer, const std::vector<PrimExpr>& indices,
                                     const PrimExpr& predicate, const Span& span,
                                     const char* verb) override {
    CheckSupported(buffer->dtype, span);
    auto a = std::make_shared<Access>();
    a->info = Info(buffer);
    for (const auto& i : indices) a->indices.push_back(Expr(i));
    if (predicate.defined()) a->predicate = Expr(predicate);
    a->span = span;
    a->machine = machine_;
    a->verb = verb;
    a->scalar = !predicate.defined();
    for (const auto& i : indices) a->scalar &= i->dtype.lanes() == 1;
    if (a->scalar) {
      for (size_t k = 0; k < indices.size(); ++k) {
        std::optional<Operand> fast = CompileScalar(*this, indices[k]);
        if (fast && fast->kind != Kind::kFloat) {
          a->scalar_indices.push_back(std::move(*fast));
          continue;
        }
        // The general closure, checked as Access::IndexValue checks it.
        Operand general;
        general.dtype = DataType::Int(64);
        general.fn = [g = a->indices[k], k, name = buffer->name, span](Frame& f) {
          Value v = g(f);
          if (v.kind() == Kind::kFloat || v.kind() == Kind::kHandle) {
            Fail("index " + std::to_string(k) + " of " + name + " is not an integer", span);
          }
          return v[0];
        };
        a->scalar_indices.push_back(std::move(general));
      }
    }
    return a;
  }

  ExprFn VisitExpr_(const BufferLoadNode* op) override {
    auto access = MakeAccess(op->buffer, op->indices, op->predicate, op->span, "read");
    DataType elem = op->buffer->dtype.element_of();
    const int buffer_lanes = op->buffer->dtype.lanes();
    if (access->scalar && buffer_lanes == 1) {
      const int64_t nbytes = ElementBytes(elem);
      return [access, elem, nbytes](Frame& f) {
        Storage* storage = nullptr;
        const int64_t byte = access->ScalarAddress(f, &storage);
        if (storage->shadow) [[unlikely]] CheckSharedAccess(storage, byte, nbytes, false, access->span);
        Value r(elem);
        r[0] = LoadScalar(elem, storage->data + byte);
        return r;
      };
    }
    return [access, elem, buffer_lanes](Frame& f) {
      Value pred;
      if (access->predicate) pred = access->predicate(f);
      std::vector<int64_t> bytes;
      Storage* storage = nullptr;
      int lanes = 1;
      access->Addresses(f, &bytes, &storage, &lanes, access->predicate ? &pred : nullptr);
      Value r(elem.with_lanes(lanes * buffer_lanes));
      const int64_t scalar_bytes = ElementBytes(elem);
      for (int l = 0; l < lanes; ++l) {
        if (bytes[l] < 0) continue;  // masked off: the lane's value is unspecified (0 here)
        if (storage->shadow) CheckSharedAccess(storage, bytes[l], scalar_bytes * buffer_lanes, false, access->span);
        for (int e = 0; e < buffer_lanes; ++e) {
          const int lane = l * buffer_lanes + e;
          if (access->predicate && pred.lanes() > 1 && !pred[lane].i) continue;
          r[lane] = LoadScalar(elem, storage->data + bytes[l] + e * scalar_bytes);
        }
      }
      return r;
    };
  }

  ExprFn VisitExpr_(const RampNode* op) override {
    ExprFn base = Expr(op->base), stride = Expr(op->stride);
    DataType t = op->dtype;
    int64_t lanes = op->lanes;
    Span span = op->span;
    return [base, stride, t, lanes, span](Frame& f) {
      Value b = base(f), s = stride(f);
      if (b.lanes() != 1 || s.lanes() != 1) Fail("a Ramp's base and stride must be scalars", span);
      Value r(t.with_lanes(static_cast<int>(lanes)));
      for (int i = 0; i < lanes; ++i) {
        if (b.kind() == Kind::kFloat) {
          r[i] = Normalize(r.dtype(), Scalar{.f = b[0].f + i * s.AsDouble()});
        } else {
          r[i] = Normalize(r.dtype(), Scalar{.i = static_cast<int64_t>(static_cast<uint64_t>(b[0].i) +
                                                                       static_cast<uint64_t>(i) * static_cast<uint64_t>(s[0].i))});
        }
      }
      return r;
    };
  }
  ExprFn VisitExpr_(const BroadcastNode* op) override {
    ExprFn value = Expr(op->value);
    DataType t = op->dtype;
    return [value, t](Frame& f) {
      Value v = value(f);
      Value r(t);
      for (int i = 0; i < r.lanes(); ++i) r[i] = v[i % v.lanes()];
      r.set_storage(v.storage());
      return r;
    };
  }
  ExprFn VisitExpr_(const ShuffleNode* op) override {
    std::vector<ExprFn> vectors;
    for (const auto& v : op->vectors) vectors.push_back(Expr(v));
    std::vector<int64_t> indices;
    for (const auto& i : op->indices) {
      const int64_t* c = AsConstInt(i);
      if (!c) Fail("Shuffle indices must be constant integers", op->span);
      indices.push_back(*c);
    }
    DataType t = op->dtype;
    Span span = op->span;
    return [vectors, indices, t, span](Frame& f) {
      std::vector<Scalar> all;
      for (const auto& v : vectors) {
        Value x = v(f);
        for (int i = 0; i < x.lanes(); ++i) all.push_back(x[i]);
      }
      Value r(t);
      for (size_t i = 0; i < indices.size() && static_cast<int>(i) < r.lanes(); ++i) {
        if (indices[i] < 0 || indices[i] >= static_cast<int64_t>(all.size())) {
          Fail("Shuffle index " + std::to_string(indices[i]) + " is outside the " +
                   std::to_string(all.size()) + " input lanes",
               span);
        }
        r[static_cast<int>(i)] = all[indices[i]];
      }
      return r;
    };
  }
  ExprFn VisitExpr_(const LetNode* op) override {
    int slot = Slot(op->var.get());
    ExprFn value = Expr(op->value), body = Expr(op->body);
    return [slot, value, body](Frame& f) {
      f.vars[slot] = value(f);
      return body(f);
    };
  }
  ExprFn VisitExpr_(const ReduceNode* op) override {
    Fail("a Reduce expression (compute-definition form) cannot be interpreted; schedule it into "
         "blocks first",
         op->span);
  }

  ExprFn VisitExpr_(const CallNode* op) override {
    Span span = op->span;
    std::vector<ExprFn> args;
    if (auto* gv = op->op.as<ir::GlobalVarNode>()) {
      for (const auto& a : op->args) args.push_back(Expr(a));
      std::string name = gv->name_hint;
      Machine* m = machine_;
      return [args, name, m, span](Frame& f) {
        std::vector<Value> values;
        for (const auto& a : args) values.push_back(a(f));
        return m->CallFunction(name, std::move(values), span);
      };
    }
    auto* opnode = op->op.as<ir::OpNode>();
    if (!opnode) Fail("call of something that is neither a builtin nor a module function", span);
    std::string name = OpShortName(opnode);
    DataType dtype = op->dtype;
    if (name == "if_then_else") {
      if (op->args.size() != 3) Fail("T.if_then_else takes 3 arguments", span);
      ExprFn c = Expr(op->args[0]), t = Expr(op->args[1]), e = Expr(op->args[2]);
      return [c, t, e, dtype](Frame& f) {
        Value cv = c(f);
        if (cv.lanes() == 1) return cv[0].i ? t(f) : e(f);  // only the taken branch runs
        Value tv = t(f), ev = e(f);
        Value r(dtype);
        for (int i = 0; i < r.lanes(); ++i) r[i] = Lane(cv, i).i ? Lane(tv, i) : Lane(ev, i);
        return r;
      };
    }
    if (name == "address_of") {
      auto* load = op->args.size() == 1 ? op->args[0].as<BufferLoadNode>() : nullptr;
      if (!load) Fail("T.address_of needs a buffer element", span);
      auto access = MakeAccess(load->buffer, load->indices, {}, load->span, "address");
      return [access](Frame& f) {
        std::vector<int64_t> bytes;
        Storage* storage = nullptr;
        int lanes = 1;
        access->Addresses(f, &bytes, &storage, &lanes, nullptr);
        return Value::Handle(storage, bytes[0]);
      };
    }
    // Barriers, warp shuffles and kernel launches: interpreter_gpu.cpp.
    if (ExprFn gpu = CompileGpuCall(machine_, op, name, [this](const PrimExpr& e) { return Expr(e); })) {
      return gpu;
    }
    if (name == "assume" || name == "prefetch" || name == "undef") {
      // Hints and barriers: no effect on a sequential run.
      return [dtype](Frame&) { return Value::Int(dtype.is_void() ? DataType::Int(32) : dtype, 0); };
    }
    if (name == "ret" || name == "break_loop" || name == "continue_loop") {
      Fail("T." + name + " may only appear as a statement", span);
    }
    if (name == "dp4a") {
      for (const auto& a : op->args) args.push_back(Expr(a));
      return [args, dtype, span](Frame& f) {
        Value a = args[0](f), b = args[1](f), c = args[2](f);
        if (a.lanes() != 4 || b.lanes() != 4) Fail("T.dp4a needs two 4-lane vectors", span);
        int64_t acc = c[0].i;
        for (int i = 0; i < 4; ++i) acc += a[i].i * b[i].i;
        return Value::Int(dtype, acc);
      };
    }
    const OpInfo* info = InfoOf(GetRef(opnode));
    if (info && !info->pure) {
      std::string callee;
      if (!op->args.empty()) {
        if (auto* s = op->args[0].as<StringImmNode>()) callee = " \"" + s->value + "\"";
      }
      Fail("the interpreter cannot run T." + info->script_name + callee +
               " (external code or a runtime facility)",
           span);
    }
    for (const auto& a : op->args) args.push_back(Expr(a));
    return [args, name, dtype, span](Frame& f) {
      std::vector<Value> values;
      values.reserve(args.size());
      for (const auto& a : args) values.push_back(a(f));
      Value r = PureIntrinsic(name, dtype, values, span);
      if (!r.defined()) Fail("the interpreter does not support T." + name + " on these operands", span);
      return r;
    };
  }

  // --- Statements ------------------------------------------------------------------------------

  StmtFn VisitStmt_(const BindNode* op) override {
    int slot = Slot(op->var.get());
    if (auto fast = CompileScalar(*this, op->value)) {
      return [slot, value = std::move(*fast)](Frame& f) {
        f.vars[slot].SetScalar(value.dtype, value.kind, value(f));
        return Flow::kNormal;
      };
    }
    ExprFn value = Expr(op->value);
    return [slot, value](Frame& f) {
      f.vars[slot] = value(f);
      return Flow::kNormal;
    };
  }
  // A launch of a GPU axis (blockIdx/threadIdx): see interpreter_gpu.h.
  StmtFn Launch(int axis, const std::string& tag, const Var& var, const PrimExpr& min,
                const PrimExpr& extent, const wb::tir::Stmt& body, const Span& span) {
    auto info = std::make_shared<LaunchInfo>();
    info->axis = axis;
    info->tag = tag;
    info->var_slot = Slot(var.get());
    info->var_dtype = var->dtype;
    if (min.defined() && !IsConstInt(min, 0)) info->min = Expr(min);
    info->extent = Expr(extent);
    info->span = span;
    if (IsThreadAxis(axis)) {
      LaunchScan scan = ScanLaunchBody(body);
      info->needs_team = scan.needs_team;
      for (const auto& [a, e] : scan.thread_axes) {
        if (a != axis) info->inner_thread_axes.emplace_back(a, Expr(e));
      }
    }
    info->body = Stmt(body);
    Machine* m = machine_;
    return [info, m](Frame& f) { return RunLaunch(m, *info, f); };
  }

  StmtFn VisitStmt_(const AttrStmtNode* op) override {
    auto* iv = op->node.as<IterVarNode>();
    if (iv && op->attr_key == "thread_extent" && LaunchAxisOf(iv->thread_tag) >= 0) {
      return Launch(LaunchAxisOf(iv->thread_tag), iv->thread_tag, iv->var, {}, op->value, op->body,
                    op->span);
    }
    if (iv && (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread")) {
      // A thread launch: the body runs once per thread, threads one after another. A nested
      // launch of a variable already launched is the same thread, not a new loop.
      int slot = Slot(iv->var.get());
      StmtFn body = Stmt(op->body);
      DataType t = iv->var->dtype;
      ExprFn extent = Expr(op->value);
      Machine* m = machine_;
      Span span = op->span;
      return [slot, t, extent, body, m, span](Frame& f) {
        if (f.vars[slot].defined()) return body(f);
        int64_t n = extent(f).AsInt();
        Flow flow = Flow::kNormal;
        for (int64_t i = 0; i < n; ++i) {
          m->Tick(span);
          f.vars[slot] = Value::Int(t, i);
          flow = body(f);
          if (flow == Flow::kReturn) break;
        }
        f.vars[slot] = Value();
        return flow == Flow::kReturn ? flow : Flow::kNormal;
      };
    }
    return Stmt(op->body);
  }
  StmtFn VisitStmt_(const AssertStmtNode* op) override {
    Operand cond = CompileBool(*this, op->condition);
    std::string message;
    for (const auto& p : op->message_parts) message += p->value;
    std::string kind = op->error_kind.defined() ? op->error_kind->value : "RuntimeError";
    Span span = op->span;
    return [cond, message, kind, span](Frame& f) {
      if (!cond.AsBool(f)) Fail("assertion failed (" + kind + "): " + message, span);
      return Flow::kNormal;
    };
  }
  // A scalar store of a fast-path value of type (C, Bits), with the access's rank a constant
  // (the loops' common case: no switch on the dtype, no loop over the indices).
  template <DataType::Code C, int Bits>
  static StmtFn TypedStore(const std::shared_ptr<Access>& access, Operand value) {
    return WithRank(*access, [&]<int N>() -> StmtFn {
      return [access, value](Frame& f) {
        const Scalar v = value(f);
        Storage* storage = nullptr;
        const int64_t byte = AddressOf<N>(*access, f, &storage);
        if (storage->shadow) [[unlikely]] CheckSharedAccess(storage, byte, (Bits + 7) / 8, true, access->span);
        StoreScalar(DataType(C, Bits), storage->data + byte, v);
        return Flow::kNormal;
      };
    });
  }

  StmtFn VisitStmt_(const BufferStoreNode* op) override {
    auto access = MakeAccess(op->buffer, op->indices, op->predicate, op->span, "write");
    ExprFn value = Expr(op->value);
    DataType elem = op->buffer->dtype.element_of();
    const int buffer_lanes = op->buffer->dtype.lanes();
    Span span = op->span;
    if (access->scalar && buffer_lanes == 1 && op->value->dtype == elem) {
      const int64_t nbytes = ElementBytes(elem);
      if (auto fast = CompileScalar(*this, op->value); fast && fast->dtype == elem) {
        if (elem == DataType::Float(32)) return TypedStore<DataType::kFloat, 32>(access, std::move(*fast));
        if (elem == DataType::Int(32)) return TypedStore<DataType::kInt, 32>(access, std::move(*fast));
        if (elem == DataType::Float(64)) return TypedStore<DataType::kFloat, 64>(access, std::move(*fast));
        if (elem == DataType::Int(64)) return TypedStore<DataType::kInt, 64>(access, std::move(*fast));
        return [access, value = std::move(*fast), elem, nbytes](Frame& f) {
          const Scalar v = value(f);
          Storage* storage = nullptr;
          const int64_t byte = access->ScalarAddress(f, &storage);
          if (storage->shadow) [[unlikely]] CheckSharedAccess(storage, byte, nbytes, true, access->span);
          StoreScalar(elem, storage->data + byte, v);
          return Flow::kNormal;
        };
      }
      return [access, value, elem, nbytes](Frame& f) {
        Value v = value(f);
        Storage* storage = nullptr;
        const int64_t byte = access->ScalarAddress(f, &storage);
        if (storage->shadow) [[unlikely]] CheckSharedAccess(storage, byte, nbytes, true, access->span);
        StoreScalar(elem, storage->data + byte, v[0]);
        return Flow::kNormal;
      };
    }
    return [access, value, elem, buffer_lanes, span](Frame& f) {
      Value v = value(f);
      Value pred;
      if (access->predicate) pred = access->predicate(f);
      std::vector<int64_t> bytes;
      Storage* storage = nullptr;
      int lanes = 1;
      access->Addresses(f, &bytes, &storage, &lanes, access->predicate ? &pred : nullptr);
      if (v.lanes() != 1 && v.lanes() != lanes * buffer_lanes) {
        Fail("storing " + std::to_string(v.lanes()) + " lanes into " +
                 std::to_string(lanes * buffer_lanes) + " buffer lanes",
             span);
      }
      if (v.kind() == Kind::kHandle) Fail("storing a handle into a buffer is not supported", span);
      // The value already has the buffer's element type (TIR requires it); cast defensively
      // so that a mismatch cannot write garbage bits.
      if (v.dtype().element_of() != elem) v = Cast(elem.with_lanes(v.lanes()), v, span);
      const int64_t scalar_bytes = ElementBytes(elem);
      for (int l = 0; l < lanes; ++l) {
        if (bytes[l] < 0) continue;
        if (storage->shadow) CheckSharedAccess(storage, bytes[l], scalar_bytes * buffer_lanes, true, span);
        for (int e = 0; e < buffer_lanes; ++e) {
          const int lane = l * buffer_lanes + e;
          if (access->predicate && pred.lanes() > 1 && !pred[lane].i) continue;
          StoreScalar(elem, storage->data + bytes[l] + e * scalar_bytes, v.lanes() == 1 ? v[0] : v[lane]);
        }
      }
      return Flow::kNormal;
    };
  }

  // Allocates fresh zeroed memory for `buffer` and binds it.
  std::function<void(Frame&)> Allocator(const Buffer& buffer, const Span& span) {
    CheckSupported(buffer->dtype, span);
    BufferInfo* info = Info(buffer);
    Machine* m = machine_;
    // Shared memory is one allocation per thread block (the first thread of a team to get
    // here makes it), watched by the race check.
    const bool shared = buffer->scope().rfind("shared", 0) == 0;
    return [info, m, span, shared](Frame& f) {
      int64_t bytes = info->elem_bytes;
      for (const auto& s : info->shape) {
        int64_t d = s.eval(f).AsInt();
        if (d < 0) Fail("allocation of " + info->buffer->name + " with a negative extent", span);
        if (__builtin_mul_overflow(bytes, d, &bytes)) bytes = -1;  // reported as too large
      }
      Storage* storage = nullptr;
      if (shared && InTeam()) {
        if (bytes < 0 || bytes > (int64_t{1} << 30)) Fail("shared buffer " + info->buffer->name + " is too large", span);
        storage = TeamSharedStorage(info, info->buffer->name, bytes, span);
      } else {
        storage = m->Allocate(info->buffer->name, bytes, span);
        if (shared) {
          storage->shadow = std::make_shared<RaceShadow>();
          storage->shadow->bytes.resize(static_cast<size_t>(bytes));
        }
      }
      Value handle = Value::Handle(storage, 0);
      f.vars[info->data_slot] = handle;
      m->BindBuffer(f, *info, handle, span);
    };
  }

  StmtFn VisitStmt_(const AllocBufferNode* op) override {
    auto alloc = Allocator(op->buffer, op->span);
    return [alloc](Frame& f) {
      alloc(f);
      return Flow::kNormal;
    };
  }
  StmtFn VisitStmt_(const DeclBufferNode* op) override {
    BufferInfo* info = Info(op->buffer);
    Machine* m = machine_;
    Span span = op->span;
    std::string name = op->buffer->name;
    return [info, m, span, name](Frame& f) {
      const Value& handle = f.vars[info->data_slot];
      if (!handle.defined() || handle.kind() != Kind::kHandle || !handle.storage()) {
        Fail("T.decl_buffer " + name + ": its data pointer '" + info->buffer->data->name_hint +
                 "' does not point to memory here",
             span);
      }
      m->BindBuffer(f, *info, handle, span);
      return Flow::kNormal;
    };
  }
  StmtFn VisitStmt_(const ForNode* op) override {
    if (op->kind == ForKind::kThreadBinding && op->thread_binding.defined() &&
        LaunchAxisOf(op->thread_binding->thread_tag) >= 0) {
      if (op->step.defined() && !IsConstInt(op->step, 1)) Fail("a thread-bound loop with a step", op->span);
      const std::string& tag = op->thread_binding->thread_tag;
      return Launch(LaunchAxisOf(tag), tag, op->loop_var, op->min, op->extent, op->body, op->span);
    }
    int slot = Slot(op->loop_var.get());
    DataType t = op->loop_var->dtype;
    Operand min = CompileInt(*this, op->min), extent = CompileInt(*this, op->extent);
    std::optional<Operand> step;
    if (op->step.defined()) step = CompileInt(*this, op->step);
    StmtFn body = Stmt(op->body);
    // Innermost loops of scalar code also run as bytecode (interpreter_kernel.cpp).
    std::shared_ptr<const LoopKernel> kernel = CompileLoopKernel(*this, op, slot);
    Machine* m = machine_;
    Span span = op->span;
    const Kind kind = KindOf(t);
    return [slot, t, kind, min, extent, step, body, kernel, m, span](Frame& f) {
      const int64_t lo = min.AsInt(f);
      const int64_t n = extent.AsInt(f);
      const int64_t s = step ? step->AsInt(f) : 1;
      if (s <= 0) Fail("loop step must be positive, got " + std::to_string(s), span);
      if (kernel && RunLoopKernel(*kernel, m, f, lo, n, s)) return Flow::kNormal;
      for (int64_t v = lo; v < lo + n; v += s) {
        m->Tick(span);
        // As Value::Int(t, v), without building a Value.
        f.vars[slot].SetScalar(t, kind, kind == Kind::kFloat ? Normalize(t, Scalar{.f = static_cast<double>(v)})
                                                       : Normalize(t, Scalar{.i = v}));
        Flow flow = body(f);
        if (flow == Flow::kBreak) break;
        if (flow == Flow::kReturn) return flow;
      }
      return Flow::kNormal;
    };
  }
  StmtFn VisitStmt_(const WhileNode* op) override {
    Operand cond = CompileBool(*this, op->condition);
    StmtFn body = Stmt(op->body);
    Machine* m = machine_;
    Span span = op->span;
    return [cond, body, m, span](Frame& f) {
      while (cond.AsBool(f)) {
        m->Tick(span);
        Flow flow = body(f);
        if (flow == Flow::kBreak) break;
        if (flow == Flow::kReturn) return flow;
      }
      return Flow::kNormal;
    };
  }
  StmtFn VisitStmt_(const IfThenElseNode* op) override {
    Operand cond = CompileBool(*this, op->condition);
    StmtFn then_case = Stmt(op->then_case);
    StmtFn else_case = Stmt(op->else_case);
    return [cond, then_case, else_case](Frame& f) {
      return cond.AsBool(f) ? then_case(f) : else_case(f);
    };
  }
  StmtFn VisitStmt_(const SeqStmtNode* op) override {
    std::vector<StmtFn> seq;
    bool allocates = false;
    for (const auto& s : op->seq) {
      seq.push_back(Stmt(s));
      allocates |= AllocatesUnscoped(s);
    }
    Machine* m = machine_;
    if (!allocates) {
      return [seq](Frame& f) {
        for (const auto& s : seq) {
          const Flow flow = s(f);
          if (flow != Flow::kNormal) return flow;
        }
        return Flow::kNormal;
      };
    }
    return [seq, m](Frame& f) {
      // Allocations made in this sequence end with it (AllocBuffer scopes over the rest of
      // its sequence), so loops do not accumulate memory.
      size_t mark = m->ArenaMark();
      Flow flow = Flow::kNormal;
      for (const auto& s : seq) {
        flow = s(f);
        if (flow != Flow::kNormal) break;
      }
      m->ArenaRelease(mark);
      return flow;
    };
  }
  StmtFn VisitStmt_(const EvaluateNode* op) override {
    if (auto* call = op->value.as<CallNode>()) {
      if (auto* o = call->op.as<ir::OpNode>()) {
        std::string name = OpShortName(o);
        if (name == "ret") {
          if (call->args.size() != 1) Fail("T.ret takes one value", op->span);
          ExprFn value = Expr(call->args[0]);
          return [value](Frame& f) {
            f.ret = value(f);
            return Flow::kReturn;
          };
        }
        if (name == "break_loop") return [](Frame&) { return Flow::kBreak; };
        if (name == "continue_loop") return [](Frame&) { return Flow::kContinue; };
      }
    }
    ExprFn value = Expr(op->value);
    return [value](Frame& f) {
      value(f);
      return Flow::kNormal;
    };
  }
  StmtFn VisitStmt_(const BreakNode*) override { return [](Frame&) { return Flow::kBreak; }; }
  StmtFn VisitStmt_(const ContinueNode*) override {
    return [](Frame&) { return Flow::kContinue; };
  }

  StmtFn BlockBody(const SBlockNode* block, const Span& span, std::vector<int> reduce_slots,
                   std::vector<Operand> reduce_mins) {
    std::vector<std::function<void(Frame&)>> allocs;
    for (const auto& b : block->alloc_buffers) allocs.push_back(Allocator(b, span));
    struct Match {
      BufferInfo* info;
      std::shared_ptr<Access> source;  // the region's start element
      std::vector<ExprFn> extents;
      const BufferInfo* source_info;
      std::vector<int> owned_slots;  // variables this match_buffer defines: rebound each time
    };
    std::vector<Match> matches;
    for (const auto& mb : block->match_buffers) {
      Match m;
      // Variables first seen in the matched buffer's declaration (its elem_offset, symbolic
      // strides) are defined by it; enclosing loops, iter vars and parameters already have
      // slots by now.
      const int first_new = static_cast<int>(var_slots_.size());
      m.info = Info(mb->buffer);
      auto own = [&](const Matcher& x) {
        if (x.var_slot >= first_new) m.owned_slots.push_back(x.var_slot);
      };
      for (const auto& x : m.info->shape) own(x);
      for (const auto& x : m.info->strides) own(x);
      own(m.info->elem_offset);
      std::vector<PrimExpr> mins;
      for (const auto& r : mb->source->region) {
        mins.push_back(r->min);
        m.extents.push_back(Expr(r->extent));
      }
      m.source = MakeAccess(mb->source->buffer, mins, {}, mb->span, "match_buffer region start of");
      m.source_info = m.source->info;
      matches.push_back(std::move(m));
    }
    StmtFn init = block->init.defined() ? Stmt(block->init) : StmtFn();
    StmtFn body = Stmt(block->body);
    Machine* machine = machine_;
    std::string name = block->name_hint;
    const bool allocates = !allocs.empty() || AllocatesUnscoped(block->init) || AllocatesUnscoped(block->body);
    return [allocs, matches, init, body, machine, reduce_slots, reduce_mins, span, name, allocates](Frame& f) {
      const size_t mark = allocates ? machine->ArenaMark() : 0;
      for (const auto& a : allocs) a(f);
      for (const auto& m : matches) {
        std::vector<int64_t> bytes;
        Storage* storage = nullptr;
        int lanes = 1;
        m.source->Addresses(f, &bytes, &storage, &lanes, nullptr);
        BufferBinding& src = machine->Resolve(f, *m.source_info, span);
        std::vector<int64_t> extents;
        for (const auto& e : m.extents) extents.push_back(e(f).AsInt());
        // The matched buffer views the region in place: its trailing dimensions take the
        // source's strides, and its element offset is where the region starts.
        const size_t nd = m.info->shape.size();
        std::vector<int64_t> shape, strides;
        for (size_t i = 0; i < nd; ++i) {
          size_t src_dim = src.strides.size() - nd + i;
          shape.push_back(i + extents.size() >= nd ? extents[extents.size() - nd + i] : 1);
          strides.push_back(src_dim < src.strides.size() ? src.strides[src_dim] : 1);
        }
        if (nd > src.strides.size()) Fail("match_buffer " + m.info->buffer->name + " has more dimensions than its source region", span);
        // As in TVM, the matched buffer shares the source's data pointer; the region's start
        // becomes its element offset.
        const int64_t offset_bytes = bytes[0] - src.handle_offset;
        Value handle = Value::Handle(storage, src.handle_offset);
        for (int slot : m.owned_slots) f.vars[slot] = Value();
        f.vars[m.info->data_slot] = handle;
        machine->BindBuffer(f, *m.info, handle, span, &shape, &strides,
                            offset_bytes / m.info->elem_bytes,
                            "its T.match_buffer");
      }
      if (init) {
        bool first = true;
        for (size_t i = 0; i < reduce_slots.size() && first; ++i) {
          first = f.vars[reduce_slots[i]].AsInt() == reduce_mins[i].AsInt(f);
        }
        if (first) {
          Flow flow = init(f);
          if (flow != Flow::kNormal) {
            if (allocates) machine->ArenaRelease(mark);
            return flow;
          }
        }
      }
      Flow flow = body(f);
      if (allocates) machine->ArenaRelease(mark);
      return flow;
    };
  }

  StmtFn VisitStmt_(const SBlockNode* op) override {
    std::vector<int> reduce_slots;
    std::vector<Operand> reduce_mins;
    for (const auto& iv : op->iter_vars) {
      if (iv->iter_type == IterVarType::kCommReduce) {
        reduce_slots.push_back(Slot(iv->var.get()));
        reduce_mins.push_back(CompileInt(*this, iv->dom->min));
      }
    }
    return BlockBody(op, op->span, reduce_slots, reduce_mins);
  }

  StmtFn VisitStmt_(const SBlockRealizeNode* op) override {
    const SBlockNode* block = op->block.get();
    if (op->iter_values.size() != block->iter_vars.size()) {
      Fail("block '" + block->name_hint + "' has " + std::to_string(block->iter_vars.size()) +
               " iteration variables but is given " + std::to_string(op->iter_values.size()) +
               " values",
           op->span);
    }
    // Each iter var takes its value cast to its type: through the fast path (CastLane, as Cast
    // does per lane) where the value is a fast scalar, else through Cast.
    struct IterBind {
      int slot;
      DataType type;
      Kind kind;
      std::optional<Operand> fast;
      ExprFn general;
    };
    std::vector<IterBind> binds;
    std::vector<int> reduce_slots;
    std::vector<Operand> reduce_mins;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      const IterVar& iv = block->iter_vars[i];
      // An iter var bound to a variable of its own type (`vi = T.axis.spatial(n, i)`, remap)
      // shares that variable's slot: nothing can assign either while the block runs, so reading
      // one is reading the other, and the binding costs nothing per iteration.
      // Only for iter vars defined once in the function (the verifier's rule): a block node
      // shared in two places would otherwise write its binding into a live loop variable.
      auto* same = op->iter_values[i].as<VarNode>();
      auto defs = iter_var_definitions_.find(iv->var.get());
      if (same && same->dtype == iv->var->dtype && FastIterType(iv->var->dtype) &&
          defs != iter_var_definitions_.end() && defs->second == 1 && !var_slots_.count(iv->var.get())) {
        const int slot = Slot(same);
        var_slots_[iv->var.get()] = slot;
        if (iv->iter_type == IterVarType::kCommReduce) {
          reduce_slots.push_back(slot);
          reduce_mins.push_back(CompileInt(*this, iv->dom->min));
        }
        continue;
      }
      IterBind bind{Slot(iv->var.get()), iv->var->dtype, KindOf(iv->var->dtype),
                    CompileScalar(*this, op->iter_values[i]), {}};
      if (!bind.fast || !FastIterType(bind.type)) {
        bind.fast.reset();
        bind.general = Expr(op->iter_values[i]);
      }
      binds.push_back(std::move(bind));
      if (iv->iter_type == IterVarType::kCommReduce) {
        reduce_slots.push_back(binds.back().slot);
        reduce_mins.push_back(CompileInt(*this, iv->dom->min));
      }
    }
    std::optional<Operand> predicate;
    if (op->predicate.defined()) predicate = CompileBool(*this, op->predicate);
    StmtFn run = BlockBody(block, block->span.defined() ? block->span : op->span, reduce_slots,
                           reduce_mins);
    if (binds.empty() && !predicate) return run;  // every iter var shares its loop's slot
    return [binds, predicate, run](Frame& f) {
      // Iter values are bound before the predicate, which may use the block's own vars.
      for (const IterBind& b : binds) {
        if (b.fast) {
          const Scalar s = (*b.fast)(f);
          f.vars[b.slot].SetScalar(b.type, b.kind, b.fast->dtype == b.type ? s : CastLane(b.type, b.fast->dtype, s));
        } else {
          f.vars[b.slot] = Cast(b.type, b.general(f), {});
        }
      }
      if (predicate && !predicate->AsBool(f)) return Flow::kNormal;
      return run(f);
    };
  }

 private:
  Machine* machine_;
  CompiledFunc* out_;
  std::unordered_map<const VarNode*, int> var_slots_;
  std::unordered_map<const VarNode*, int> iter_var_definitions_;
  std::unordered_map<const BufferNode*, BufferInfo*> buffer_infos_;
};

}  // namespace

std::unique_ptr<CompiledFunc> CompileFunc(Machine* machine, const PrimFunc& func,
                                          const std::string& name) {
  auto out = std::make_unique<CompiledFunc>();
  out->func = func;
  out->name = name;
  Compiler c(machine, out.get());
  for (size_t i = 0; i < func->params.size(); ++i) {
    out->param_slots.push_back(c.Slot(func->params[i].get()));
    const Buffer& b = i < func->buffer_map.size() ? func->buffer_map[i] : Buffer();
    if (b.defined()) CheckSupported(b->dtype, b->span.defined() ? b->span : func->span);
    out->param_buffers.push_back(b.defined() ? c.Info(b) : nullptr);
  }
  c.CountIterVarDefinitions(func->body);
  out->body = c.Stmt(func->body);
  c.Finish();
  return out;
}

}  // namespace wb::tir::interp
