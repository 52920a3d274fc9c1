// The reference interpreter's innermost loops as flat register bytecode (LoopKernel in
// interpreter_machine.h). A loop whose body is only scalar stores, conditions, blocks without
// allocations and scalar bindings is compiled, besides its closures, into a short program over a
// register file of Scalars: one instruction per operation, loads and stores straight through
// pointers, constants and loop-invariant variables read once per run of the loop.
//
// Addresses are strength-reduced along the loop: an access whose every index is affine in the
// loop variable and in variables the body does not assign has a byte address affine in the loop
// variable, so when it runs the kernel computes it at the first and the last iteration, checks
// both (every index in its dimension, the element in its memory: a linear function is in a range
// at every point between two points that are), and then only adds a step per iteration. When any
// such check fails, or anything else the kernel relies on does not hold (a variable of another
// type than declared, shared memory under the race check, the iteration limit close), the kernel
// does not run at all and the loop's closures run it instead, element by element, so that every
// error is the closures' own, at the same iteration, with the same message. Other accesses are
// computed and checked at every iteration, as the closures do.
//
// Every value is computed by the same functions as the closures (BinaryLane, CastLane,
// LoadScalar, StoreScalar, Normalize) in the same order, so the two cannot disagree; what the
// kernel removes is the call chain, the Value bookkeeping and the per-access index arithmetic.
#include <cstring>
#include <deque>
#include <unordered_set>

#include "tir/functor.h"
#include "tir/interpreter_gpu.h"
#include "tir/interpreter_machine.h"

namespace wb::tir::interp {

using ir::TypeIndex;

namespace {

using BinFn = Scalar (*)(Scalar, Scalar, const Span&);

template <TypeIndex K, DataType::Code C, int Bits>
Scalar TypedBin(Scalar a, Scalar b, const Span& span) {
  return BinaryLane(K, DataType(C, Bits), a, b, span);
}

template <TypeIndex K>
BinFn BinOn(DataType t) {
  if (t == DataType::Int(32)) return &TypedBin<K, DataType::kInt, 32>;
  if (t == DataType::Int(64)) return &TypedBin<K, DataType::kInt, 64>;
  if (t == DataType::Float(32)) return &TypedBin<K, DataType::kFloat, 32>;
  if (t == DataType::Float(64)) return &TypedBin<K, DataType::kFloat, 64>;
  return nullptr;
}

// The instantiated operation for the common types; null for the others (run generically).
BinFn BinFnFor(TypeIndex kind, DataType t) {
  switch (kind) {
#define WB_CASE(Name) \
  case TypeIndex::k##Name: return BinOn<TypeIndex::k##Name>(t);
    WB_CASE(Add) WB_CASE(Sub) WB_CASE(Mul) WB_CASE(Div) WB_CASE(Mod) WB_CASE(FloorDiv)
    WB_CASE(FloorMod) WB_CASE(Min) WB_CASE(Max) WB_CASE(EQ) WB_CASE(NE) WB_CASE(LT) WB_CASE(LE)
    WB_CASE(GT) WB_CASE(GE) WB_CASE(And) WB_CASE(Or)
#undef WB_CASE
    default: return nullptr;
  }
}

// The representable range of an integer type, as 128-bit numbers.
void IntRange(DataType t, __int128* lo, __int128* hi) {
  const int bits = t.bits();
  if (KindOf(t) == Kind::kUInt) {
    *lo = 0;
    *hi = bits >= 64 ? static_cast<__int128>(UINT64_MAX) : (static_cast<__int128>(1) << bits) - 1;
  } else {
    *lo = -(static_cast<__int128>(1) << (bits - 1));
    *hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
  }
}

}  // namespace

enum class KOp : uint8_t {
  kEnd,
  kJump,         // pc = aux
  kJumpIfZero,   // if !AsBool(r[a]) (kind) pc = aux
  kAddF32,       // r[dst] = f32(r[a] + r[b])
  kSubF32,
  kMulF32,
  kMulAddF32,    // r[dst] = f32(f32(r[a] * r[b]) + r[c])   (Add(Mul(a, b), c))
  kAddMulF32,    // r[dst] = f32(r[c] + f32(r[a] * r[b]))   (Add(c, Mul(a, b)))
  kBin,          // r[dst] = fn(r[a], r[b])
  kBinGeneric,   // r[dst] = BinaryLane(bin, dtype, r[a], r[b])
  kCast,         // r[dst] = CastLane(dtype, from, r[a])
  kNot,          // r[dst] = !r[a] (kind)
  kSelect,       // r[dst] = r[a].i ? r[b] : r[c]
  kEqI,          // r[dst].i = r[a].i == r[b].i
  kLoadF32,      // r[dst] = *ptr[aux]
  kLoadF64,
  kLoadI32,
  kLoadI64,
  kLoad,         // r[dst] = LoadScalar(dtype, ptr[aux])
  kLoadChecked,  // r[dst] = checked[aux], computed and checked now
  kStoreF32,     // *ptr[aux] = r[a]
  kStoreF64,
  kStoreI32,
  kStoreI64,
  kStore,
  kStoreChecked,
  kOperand,      // r[dst] = operands[aux](frame)
  kSetVar,       // frame var aux = r[a] (dtype); r[dst] = r[a]
};

struct KInstr {
  KOp op = KOp::kEnd;
  Kind kind = Kind::kInt;
  TypeIndex bin = TypeIndex::kAdd;
  uint16_t dst = 0, a = 0, b = 0, c = 0;
  int32_t aux = 0;
  DataType dtype = DataType::Void();
  DataType from = DataType::Void();
  BinFn fn = nullptr;
  const Span* span = nullptr;
};

// A strength-reduced access: per dimension `index = constant + sum(coeff * invariant) + step *
// loop_var`, all in the index's integer type.
struct KPointer {
  const BufferInfo* info = nullptr;
  struct Dim {
    DataType dtype;
    int64_t constant = 0;
    int64_t loop_coeff = 0;
    std::vector<std::pair<int, int64_t>> terms;  // (slot, coefficient) of invariant variables
    bool operator==(const Dim&) const = default;
  };
  std::vector<Dim> dims;
};

struct LoopKernel {
  static constexpr int kMaxRegs = 256;
  int loop_slot = -1;
  DataType loop_type;
  Kind loop_kind = Kind::kInt;
  uint16_t loop_reg = 0;
  int num_regs = 0;
  std::vector<Scalar> init_regs;  // constants in place
  struct Invariant {
    uint16_t reg;
    int slot;
    DataType dtype;
  };
  std::vector<Invariant> invariants;
  std::vector<KPointer> pointers;
  std::vector<std::shared_ptr<Access>> checked;
  std::vector<Operand> operands;
  std::vector<KInstr> code;
  std::deque<Span> spans;
};

namespace {

class KernelCompiler {
 public:
  KernelCompiler(ExprCompiler& compiler, LoopKernel* k) : compiler_(compiler), k_(k) {}

  // Whether `body` is made only of what the kernel runs; fills the kernel if so.
  bool Compile(const Stmt& body) {
    if (!CollectWritten(body)) return false;
    if (!CompileStmt(body)) return false;
    Emit({.op = KOp::kEnd});
    k_->num_regs = next_reg_;
    k_->init_regs.resize(next_reg_);
    for (auto& [reg, value] : consts_) k_->init_regs[reg] = value;
    return next_reg_ <= LoopKernel::kMaxRegs;
  }

 private:
  // The variables the body assigns (besides the loop variable): their reads go to the frame and
  // the accesses that use them are checked at every iteration. False when the body contains what
  // the kernel never runs (loops, allocations, buffer declarations).
  bool CollectWritten(const Stmt& body) {
    written_.insert(k_->loop_slot);
    bool ok = true;
    PostOrderVisit(body, [&](const Object* node) {
      switch (node->type_index()) {
        case TypeIndex::kFor:
        case TypeIndex::kWhile:
        case TypeIndex::kAllocBuffer:
        case TypeIndex::kDeclBuffer: ok = false; break;
        case TypeIndex::kLet: written_.insert(compiler_.Slot(static_cast<const LetNode*>(node)->var.get())); break;
        case TypeIndex::kBind: written_.insert(compiler_.Slot(static_cast<const BindNode*>(node)->var.get())); break;
        default: break;
      }
    });
    if (!ok) return false;
    PostOrderVisit(body, [&](const Object* node) {
      if (node->type_index() != TypeIndex::kSBlockRealize) return;
      auto* realize = static_cast<const SBlockRealizeNode*>(node);
      const auto& ivs = realize->block->iter_vars;
      for (size_t i = 0; i < ivs.size() && i < realize->iter_values.size(); ++i) {
        if (!SharesSlot(ivs[i], realize->iter_values[i])) written_.insert(compiler_.Slot(ivs[i]->var.get()));
      }
    });
    return true;
  }
  // An iter var compiled to share its value variable's slot (interpreter_compile.cpp).
  bool SharesSlot(const IterVar& iv, const PrimExpr& value) {
    auto* v = value.as<VarNode>();
    return v && compiler_.Slot(iv->var.get()) == compiler_.Slot(v);
  }

  uint16_t NewReg() { return static_cast<uint16_t>(next_reg_++); }
  void Emit(KInstr i) { k_->code.push_back(i); }
  const Span* Keep(const Span& s) {
    k_->spans.push_back(s);
    return &k_->spans.back();
  }
  uint16_t Const(Scalar s) {
    uint16_t r = NewReg();
    consts_.emplace_back(r, s);
    return r;
  }
  uint16_t OperandReg(Operand op) {
    uint16_t r = NewReg();
    k_->operands.push_back(std::move(op));
    Emit({.op = KOp::kOperand, .dst = r, .aux = static_cast<int32_t>(k_->operands.size() - 1)});
    return r;
  }

  // --- Expressions: each returns the register holding the value, or nullopt when it is not a
  // fast scalar (then the statement around it is not compiled).
  struct Reg {
    uint16_t r;
    DataType dtype;
  };

  // `e` when it is a fast scalar (CompileScalar accepts it; then so it does each operand, and
  // each has the type of its node), else nullopt.
  std::optional<Reg> Expr(const PrimExpr& e) {
    std::optional<Operand> fast = CompileScalar(compiler_, e);
    if (!fast || fast->dtype != e->dtype) return std::nullopt;
    return FastExpr(e);
  }
  std::optional<Reg> FastExpr(const PrimExpr& e) {
    const DataType t = e->dtype;
    if (auto* imm = e.as<IntImmNode>()) return Reg{Const(Value::Int(t, imm->value).scalar()), t};
    if (auto* imm = e.as<FloatImmNode>()) return Reg{Const(Value::Float(t, imm->value).scalar()), t};
    if (auto* v = e.as<VarNode>()) return VarReg(v, *CompileScalar(compiler_, e));
    if (auto* cast = e.as<CastNode>()) {
      auto a = FastExpr(cast->value);
      if (!a) return std::nullopt;
      if (a->dtype == t) return a;
      uint16_t r = NewReg();
      Emit({.op = KOp::kCast, .dst = r, .a = a->r, .dtype = t, .from = a->dtype});
      return Reg{r, t};
    }
    if (auto* bin = dynamic_cast<const BinaryNode*>(e.get())) return BinaryReg(bin, t);
    if (auto* n = e.as<NotNode>()) {
      auto a = FastExpr(n->a);
      if (!a) return std::nullopt;
      uint16_t r = NewReg();
      Emit({.op = KOp::kNot, .kind = KindOf(a->dtype), .dst = r, .a = a->r});
      return Reg{r, t};
    }
    if (auto* s = e.as<SelectNode>()) {
      auto c = FastExpr(s->condition);
      auto tv = FastExpr(s->true_value);
      auto ev = FastExpr(s->false_value);
      if (!c || !tv || !ev) return std::nullopt;
      uint16_t r = NewReg();
      Emit({.op = KOp::kSelect, .dst = r, .a = c->r, .b = tv->r, .c = ev->r});
      return Reg{r, t};
    }
    if (auto* load = e.as<BufferLoadNode>()) return LoadReg(load);
    // Lets, T.if_then_else (one branch only runs), T.likely: the fast path's own closures.
    std::optional<Operand> fast = CompileScalar(compiler_, e);
    if (!fast) return std::nullopt;
    return Reg{OperandReg(std::move(*fast)), t};
  }

  std::optional<Reg> VarReg(const VarNode* v, Operand fast) {
    const int slot = compiler_.Slot(v);
    if (slot == k_->loop_slot && v->dtype == k_->loop_type) return Reg{k_->loop_reg, v->dtype};
    if (written_.count(slot) || slot == k_->loop_slot) return Reg{OperandReg(std::move(fast)), v->dtype};
    for (const auto& inv : k_->invariants) {
      if (inv.slot == slot && inv.dtype == v->dtype) return Reg{inv.reg, v->dtype};
    }
    uint16_t r = NewReg();
    k_->invariants.push_back({r, slot, v->dtype});
    return Reg{r, v->dtype};
  }

  std::optional<Reg> BinaryReg(const BinaryNode* op, DataType result) {
    const TypeIndex kind = op->type_index();
    const DataType t = op->a->dtype;
    if (t == DataType::Float(32) && kind == TypeIndex::kAdd) {
      // The multiply-add of reductions, one instruction: the product rounded, then the sum.
      auto* ma = op->a.as<MulNode>();
      auto* mb = op->b.as<MulNode>();
      if (ma && ma->a->dtype == t) {
        auto x = FastExpr(ma->a), y = FastExpr(ma->b), z = FastExpr(op->b);
        if (!x || !y || !z) return std::nullopt;
        uint16_t r = NewReg();
        Emit({.op = KOp::kMulAddF32, .dst = r, .a = x->r, .b = y->r, .c = z->r});
        return Reg{r, t};
      }
      if (mb && mb->a->dtype == t) {
        auto z = FastExpr(op->a), x = FastExpr(mb->a), y = FastExpr(mb->b);
        if (!x || !y || !z) return std::nullopt;
        uint16_t r = NewReg();
        Emit({.op = KOp::kAddMulF32, .dst = r, .a = x->r, .b = y->r, .c = z->r});
        return Reg{r, t};
      }
    }
    auto a = FastExpr(op->a), b = FastExpr(op->b);
    if (!a || !b) return std::nullopt;
    uint16_t r = NewReg();
    KInstr i{.op = KOp::kBin, .bin = kind, .dst = r, .a = a->r, .b = b->r, .dtype = t, .span = Keep(op->span)};
    if (t == DataType::Float(32) && kind == TypeIndex::kAdd) i.op = KOp::kAddF32;
    else if (t == DataType::Float(32) && kind == TypeIndex::kSub) i.op = KOp::kSubF32;
    else if (t == DataType::Float(32) && kind == TypeIndex::kMul) i.op = KOp::kMulF32;
    else if (!(i.fn = BinFnFor(kind, t))) i.op = KOp::kBinGeneric;
    Emit(i);
    return Reg{r, result};
  }

  // The pointer slot of an access when it is strength-reducible; -1 else.
  int PointerFor(const std::shared_ptr<Access>& access, const std::vector<PrimExpr>& indices) {
    if (!access->scalar || access->info->shape.size() != indices.size()) return -1;
    KPointer p;
    p.info = access->info;
    for (const auto& index : indices) {
      std::optional<Operand> op = CompileScalar(compiler_, index);
      if (!op || (op->kind != Kind::kInt && op->kind != Kind::kUInt) || op->dtype.bits() < 8) return -1;
      KPointer::Dim d;
      d.dtype = op->dtype;
      auto add_term = [&](int slot, int64_t coeff) {
        if (slot == k_->loop_slot) {
          if (k_->loop_type != op->dtype) return false;
          d.loop_coeff = static_cast<int64_t>(static_cast<uint64_t>(d.loop_coeff) + static_cast<uint64_t>(coeff));
          return true;
        }
        if (written_.count(slot)) return false;
        d.terms.emplace_back(slot, coeff);
        return true;
      };
      if (op->how == Operand::How::kConst) {
        d.constant = op->value.i;
      } else if (op->how == Operand::How::kVar) {
        if (!add_term(op->slot, 1)) return -1;
      } else if (op->how == Operand::How::kAffine) {
        d.constant = op->value.i;
        for (int t = 0; t < op->terms; ++t) {
          if (!add_term(op->term_slots[t], op->term_coeffs[t])) return -1;
        }
      } else {
        return -1;
      }
      p.dims.push_back(std::move(d));
    }
    for (size_t i = 0; i < k_->pointers.size(); ++i) {
      if (k_->pointers[i].info == p.info && k_->pointers[i].dims == p.dims) return static_cast<int>(i);
    }
    k_->pointers.push_back(std::move(p));
    return static_cast<int>(k_->pointers.size() - 1);
  }

  std::optional<Reg> LoadReg(const BufferLoadNode* op) {
    // CompileScalar accepted it: a scalar load of the buffer's own scalar type, no predicate.
    const DataType t = op->buffer->dtype;
    auto access = compiler_.MakeAccess(op->buffer, op->indices, {}, op->span, "read");
    uint16_t r = NewReg();
    const int ptr = PointerFor(access, op->indices);
    if (ptr < 0) {
      k_->checked.push_back(access);
      Emit({.op = KOp::kLoadChecked, .dst = r, .aux = static_cast<int32_t>(k_->checked.size() - 1), .dtype = t});
      return Reg{r, t};
    }
    KOp kop = KOp::kLoad;
    if (t == DataType::Float(32)) kop = KOp::kLoadF32;
    else if (t == DataType::Float(64)) kop = KOp::kLoadF64;
    else if (t == DataType::Int(32)) kop = KOp::kLoadI32;
    else if (t == DataType::Int(64)) kop = KOp::kLoadI64;
    Emit({.op = kop, .dst = r, .aux = ptr, .dtype = t});
    return Reg{r, t};
  }

  // --- Statements ---------------------------------------------------------------------------

  bool CompileStmt(const Stmt& s) {
    if (!s.defined()) return true;
    if (auto* seq = s.as<SeqStmtNode>()) {
      for (const auto& x : seq->seq) {
        if (!CompileStmt(x)) return false;
      }
      return true;
    }
    if (auto* store = s.as<BufferStoreNode>()) return Store(store);
    if (auto* branch = s.as<IfThenElseNode>()) {
      auto c = Condition(branch->condition);
      if (!c) return false;
      const size_t jump_else = k_->code.size();
      Emit({.op = KOp::kJumpIfZero, .kind = c->second, .a = c->first});
      if (!CompileStmt(branch->then_case)) return false;
      if (!branch->else_case.defined()) {
        k_->code[jump_else].aux = static_cast<int32_t>(k_->code.size());
        return true;
      }
      const size_t jump_end = k_->code.size();
      Emit({.op = KOp::kJump});
      k_->code[jump_else].aux = static_cast<int32_t>(k_->code.size());
      if (!CompileStmt(branch->else_case)) return false;
      k_->code[jump_end].aux = static_cast<int32_t>(k_->code.size());
      return true;
    }
    if (auto* bind = s.as<BindNode>()) {
      auto v = Expr(bind->value);
      if (!v) return false;
      SetVar(compiler_.Slot(bind->var.get()), *v, v->dtype);
      return true;
    }
    if (auto* attr = s.as<AttrStmtNode>()) {
      if (attr->node.as<IterVarNode>() && (attr->attr_key == "thread_extent" || attr->attr_key == "virtual_thread")) return false;
      return CompileStmt(attr->body);
    }
    if (auto* realize = s.as<SBlockRealizeNode>()) return Block(realize);
    return false;
  }

  // A condition read as Operand::AsBool reads it: the register and the kind to test.
  std::optional<std::pair<uint16_t, Kind>> Condition(const PrimExpr& e) {
    auto c = Expr(e);
    if (!c) return std::nullopt;
    return std::make_pair(c->r, KindOf(c->dtype));
  }

  void SetVar(int slot, Reg v, DataType type) {
    uint16_t r = NewReg();
    Emit({.op = KOp::kSetVar, .dst = r, .a = v.r, .aux = slot, .dtype = type});
  }

  bool Store(const BufferStoreNode* op) {
    const DataType elem = op->buffer->dtype;
    if (op->predicate.defined() || !elem.is_scalar() || op->value->dtype != elem) return false;
    for (const auto& i : op->indices) {
      if (!i->dtype.is_scalar()) return false;
    }
    auto v = Expr(op->value);  // the value first, then the address, as the closures do
    if (!v) return false;
    auto access = compiler_.MakeAccess(op->buffer, op->indices, {}, op->span, "write");
    const int ptr = PointerFor(access, op->indices);
    if (ptr < 0) {
      k_->checked.push_back(access);
      Emit({.op = KOp::kStoreChecked, .a = v->r, .aux = static_cast<int32_t>(k_->checked.size() - 1), .dtype = elem});
      return true;
    }
    KOp kop = KOp::kStore;
    if (elem == DataType::Float(32)) kop = KOp::kStoreF32;
    else if (elem == DataType::Float(64)) kop = KOp::kStoreF64;
    else if (elem == DataType::Int(32)) kop = KOp::kStoreI32;
    else if (elem == DataType::Int(64)) kop = KOp::kStoreI64;
    Emit({.op = kop, .a = v->r, .aux = ptr, .dtype = elem});
    return true;
  }

  // A block as interpreter_compile.cpp runs it: iter vars bound (those not sharing a slot), the
  // predicate, the init on the first iteration of every reduction axis, the body. Blocks that
  // allocate or match buffers are not compiled.
  bool Block(const SBlockRealizeNode* op) {
    const SBlockNode* block = op->block.get();
    if (op->iter_values.size() != block->iter_vars.size()) return false;
    if (!block->alloc_buffers.empty() || !block->match_buffers.empty()) return false;
    std::vector<std::pair<Reg, const IterVar*>> reduce;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      const IterVar& iv = block->iter_vars[i];
      std::optional<Reg> value;
      if (SharesSlot(iv, op->iter_values[i])) {
        value = Expr(iv->var);
      } else {
        const DataType type = iv->var->dtype;
        if (!type.is_scalar() || type.is_handle() || type.is_void()) return false;
        try {
          CheckSupported(type, {});
        } catch (const InterpError&) {
          return false;
        }
        auto v = Expr(op->iter_values[i]);
        if (!v) return false;
        Reg cast = *v;
        if (v->dtype != type) {
          cast = Reg{NewReg(), type};
          Emit({.op = KOp::kCast, .dst = cast.r, .a = v->r, .dtype = type, .from = v->dtype});
        }
        SetVar(compiler_.Slot(iv->var.get()), cast, type);
        value = cast;
      }
      if (!value) return false;
      if (iv->iter_type == IterVarType::kCommReduce) reduce.emplace_back(*value, &iv);
    }
    std::vector<size_t> to_end;
    if (op->predicate.defined()) {
      auto c = Condition(op->predicate);
      if (!c) return false;
      to_end.push_back(k_->code.size());
      Emit({.op = KOp::kJumpIfZero, .kind = c->second, .a = c->first});
    }
    if (block->init.defined()) {
      // The init runs when every reduction iter var is at its domain's minimum (checked in
      // order, stopping at the first that is not).
      std::vector<size_t> to_body;
      for (const auto& [reg, iv] : reduce) {
        auto lo = Expr((*iv)->dom->min);
        const Kind vk = KindOf(reg.dtype);
        if (!lo || vk == Kind::kFloat || KindOf(lo->dtype) == Kind::kFloat) return false;
        uint16_t eq = NewReg();
        Emit({.op = KOp::kEqI, .dst = eq, .a = reg.r, .b = lo->r});
        to_body.push_back(k_->code.size());
        Emit({.op = KOp::kJumpIfZero, .kind = Kind::kBool, .a = eq});
      }
      if (!CompileStmt(block->init)) return false;
      for (size_t j : to_body) k_->code[j].aux = static_cast<int32_t>(k_->code.size());
    }
    if (!CompileStmt(block->body)) return false;
    for (size_t j : to_end) k_->code[j].aux = static_cast<int32_t>(k_->code.size());
    return true;
  }

  ExprCompiler& compiler_;
  LoopKernel* k_;
  std::unordered_set<int> written_;
  std::vector<std::pair<uint16_t, Scalar>> consts_;
  int next_reg_ = 1;  // register 0: the loop variable
};

}  // namespace

std::shared_ptr<const LoopKernel> CompileLoopKernel(ExprCompiler& compiler, const ForNode* loop, int loop_slot) {
  const DataType t = loop->loop_var->dtype;
  const Kind kind = KindOf(t);
  if (!t.is_scalar() || (kind != Kind::kInt && kind != Kind::kUInt) || t.bits() < 8) return nullptr;
  auto k = std::make_shared<LoopKernel>();
  k->loop_slot = loop_slot;
  k->loop_type = t;
  k->loop_kind = kind;
  k->loop_reg = 0;
  try {
    if (!KernelCompiler(compiler, k.get()).Compile(loop->body)) return nullptr;
  } catch (const InterpError&) {
    return nullptr;  // what fails to compile fails in the closures, when reached
  }
  return k;
}

namespace {

// The byte offset of `p`'s element at loop value `v` (exact, in 128 bits), after checking every
// index against its dimension and its type; nullopt when one is out of range.
std::optional<__int128> PointerByte(const KPointer& p, const BufferBinding& b, const Frame& f, __int128 v) {
  __int128 offset = 0;
  for (size_t k = 0; k < p.dims.size(); ++k) {
    const KPointer::Dim& d = p.dims[k];
    __int128 idx = d.constant + static_cast<__int128>(d.loop_coeff) * v;
    for (const auto& [slot, coeff] : d.terms) idx += static_cast<__int128>(coeff) * f.vars[slot].scalar().i;
    __int128 lo, hi;
    IntRange(d.dtype, &lo, &hi);
    if (idx < 0 || idx > hi || idx >= b.shape[k]) return std::nullopt;
    offset += idx * b.strides[k];
  }
  return static_cast<__int128>(b.base) + offset * p.info->elem_bytes;
}

}  // namespace

bool RunLoopKernel(const LoopKernel& k, Machine* machine, Frame& f, int64_t lo, int64_t n, int64_t step) {
  if (n <= 0) return false;
  const uint64_t count = (static_cast<uint64_t>(n) + static_cast<uint64_t>(step) - 1) / static_cast<uint64_t>(step);
  const __int128 last = static_cast<__int128>(lo) + static_cast<__int128>(count - 1) * step;
  __int128 tlo, thi;
  IntRange(k.loop_type, &tlo, &thi);
  if (lo < tlo || last > thi) return false;  // the loop variable would wrap
  Scalar regs[LoopKernel::kMaxRegs];
  std::memcpy(regs, k.init_regs.data(), sizeof(Scalar) * k.init_regs.size());
  for (const auto& inv : k.invariants) {
    const Value& v = f.vars[inv.slot];
    if (!v.defined() || v.dtype() != inv.dtype) return false;
    regs[inv.reg] = v.scalar();
  }
  // Strength-reduced addresses, checked at both ends of the loop.
  constexpr size_t kMaxPointers = 32;
  if (k.pointers.size() > kMaxPointers) return false;
  uintptr_t addr[kMaxPointers];
  uint64_t stride[kMaxPointers];
  for (size_t j = 0; j < k.pointers.size(); ++j) {
    const KPointer& p = k.pointers[j];
    const BufferBinding& b = f.buffers[p.info->slot];
    if (!b.bound || !b.storage || b.storage->shadow || b.shape.size() != p.dims.size()) return false;
    for (const auto& d : p.dims) {
      for (const auto& [slot, coeff] : d.terms) {
        const Value& v = f.vars[slot];
        if (!v.defined() || v.dtype() != d.dtype) return false;
      }
    }
    const std::optional<__int128> first = PointerByte(p, b, f, lo), final = PointerByte(p, b, f, last);
    const int64_t eb = p.info->elem_bytes;
    if (!first || !final || *first < 0 || *first + eb > b.storage->bytes || *final < 0 || *final + eb > b.storage->bytes) return false;
    addr[j] = reinterpret_cast<uintptr_t>(b.storage->data) + static_cast<uint64_t>(static_cast<int64_t>(*first));
    stride[j] = count > 1 ? static_cast<uint64_t>(static_cast<int64_t>((*final - *first) / static_cast<__int128>(count - 1))) : 0;
  }
  if (!machine->TakeIterations(count)) return false;

  Value& loop_var = f.vars[k.loop_slot];
  const KInstr* code = k.code.data();
  auto ptr = [&](int32_t j) { return reinterpret_cast<uint8_t*>(addr[j]); };
  int64_t v = lo;
  for (uint64_t it = 0; it < count; ++it, v += step) {
    const Scalar lv = Normalize(k.loop_type, Scalar{.i = v});
    loop_var.SetScalar(k.loop_type, k.loop_kind, lv);
    regs[k.loop_reg] = lv;
    for (const KInstr* i = code;; ++i) {
      switch (i->op) {
        case KOp::kEnd: goto next;
        case KOp::kJump: i = code + i->aux - 1; break;
        case KOp::kJumpIfZero: {
          const Scalar c = regs[i->a];
          if (i->kind == Kind::kFloat ? c.f == 0 : c.i == 0) i = code + i->aux - 1;
          break;
        }
        case KOp::kAddF32: regs[i->dst].f = static_cast<float>(regs[i->a].f + regs[i->b].f); break;
        case KOp::kSubF32: regs[i->dst].f = static_cast<float>(regs[i->a].f - regs[i->b].f); break;
        case KOp::kMulF32: regs[i->dst].f = static_cast<float>(regs[i->a].f * regs[i->b].f); break;
        case KOp::kMulAddF32: {
          const double p = static_cast<float>(regs[i->a].f * regs[i->b].f);
          regs[i->dst].f = static_cast<float>(p + regs[i->c].f);
          break;
        }
        case KOp::kAddMulF32: {
          const double p = static_cast<float>(regs[i->a].f * regs[i->b].f);
          regs[i->dst].f = static_cast<float>(regs[i->c].f + p);
          break;
        }
        case KOp::kBin: regs[i->dst] = i->fn(regs[i->a], regs[i->b], *i->span); break;
        case KOp::kBinGeneric: regs[i->dst] = BinaryLane(i->bin, i->dtype, regs[i->a], regs[i->b], *i->span); break;
        case KOp::kCast: regs[i->dst] = CastLane(i->dtype, i->from, regs[i->a]); break;
        case KOp::kNot: {
          const Scalar s = regs[i->a];
          regs[i->dst] = Scalar{.i = i->kind == Kind::kFloat ? s.f == 0 : s.i == 0};
          break;
        }
        case KOp::kSelect: regs[i->dst] = regs[i->a].i ? regs[i->b] : regs[i->c]; break;
        case KOp::kEqI: regs[i->dst] = Scalar{.i = regs[i->a].i == regs[i->b].i}; break;
        case KOp::kLoadF32: {
          float x;
          std::memcpy(&x, ptr(i->aux), sizeof(x));
          regs[i->dst].f = x;
          break;
        }
        case KOp::kLoadF64: std::memcpy(&regs[i->dst].f, ptr(i->aux), sizeof(double)); break;
        case KOp::kLoadI32: {
          int32_t x;
          std::memcpy(&x, ptr(i->aux), sizeof(x));
          regs[i->dst].i = x;
          break;
        }
        case KOp::kLoadI64: std::memcpy(&regs[i->dst].i, ptr(i->aux), sizeof(int64_t)); break;
        case KOp::kLoad: regs[i->dst] = LoadScalar(i->dtype, ptr(i->aux)); break;
        case KOp::kLoadChecked: {
          const Access& a = *k.checked[i->aux];
          Storage* storage = nullptr;
          const int64_t byte = a.ScalarAddress(f, &storage);
          if (storage->shadow) [[unlikely]] CheckSharedAccess(storage, byte, ElementBytes(i->dtype), false, a.span);
          regs[i->dst] = LoadScalar(i->dtype, storage->data + byte);
          break;
        }
        case KOp::kStoreF32: {
          const auto x = static_cast<float>(regs[i->a].f);
          std::memcpy(ptr(i->aux), &x, sizeof(x));
          break;
        }
        case KOp::kStoreF64: std::memcpy(ptr(i->aux), &regs[i->a].f, sizeof(double)); break;
        case KOp::kStoreI32: {
          const auto x = static_cast<uint32_t>(regs[i->a].i);
          std::memcpy(ptr(i->aux), &x, sizeof(x));
          break;
        }
        case KOp::kStoreI64: std::memcpy(ptr(i->aux), &regs[i->a].i, sizeof(int64_t)); break;
        case KOp::kStore: StoreScalar(i->dtype, ptr(i->aux), regs[i->a]); break;
        case KOp::kStoreChecked: {
          const Access& a = *k.checked[i->aux];
          Storage* storage = nullptr;
          const int64_t byte = a.ScalarAddress(f, &storage);
          if (storage->shadow) [[unlikely]] CheckSharedAccess(storage, byte, ElementBytes(i->dtype), true, a.span);
          StoreScalar(i->dtype, storage->data + byte, regs[i->a]);
          break;
        }
        case KOp::kOperand: regs[i->dst] = k.operands[i->aux](f); break;
        case KOp::kSetVar:
          f.vars[i->aux].SetScalar(i->dtype, KindOf(i->dtype), regs[i->a]);
          regs[i->dst] = regs[i->a];
          break;
      }
    }
  next:
    for (size_t j = 0; j < k.pointers.size(); ++j) addr[j] += stride[j];
  }
  return true;
}

}  // namespace wb::tir::interp
