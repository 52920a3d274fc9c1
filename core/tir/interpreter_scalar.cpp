// The reference interpreter's scalar fast path (Operand in interpreter_machine.h): the
// expressions loops spend their time on, compiled to closures over 8-byte Scalars instead of
// Values. Every lane is computed by the same functions as the general closures (BinaryLane,
// CastLane, LoadScalar, StoreScalar, Normalize), so the two paths cannot disagree; what is gone
// is the Value bookkeeping and, for the common types, the switch on the dtype: those closures
// are instantiated with the operation and the dtype as constants.
#include "tir/functor.h"
#include "tir/interpreter_gpu.h"
#include "tir/interpreter_machine.h"

namespace wb::tir::interp {

using ir::TypeIndex;

Scalar Operand::Mismatch(const Value& v) const {
  if (!v.defined()) {
    Fail("variable '" + var->name_hint + "' has no value here (used outside its scope)", var->span);
  }
  if (v.lanes() != 1 || v.kind() == Kind::kHandle) {
    Fail("variable '" + var->name_hint + "' is declared " + dtype.ToString() + " but holds a " +
             v.dtype().ToString() + " value",
         var->span);
  }
  return CastLane(dtype, v.dtype(), v.scalar());
}

namespace {

// A dtype the fast path handles: a scalar number or bool the interpreter supports.
bool FastType(DataType t) {
  if (!t.is_scalar()) return false;
  const Kind k = KindOf(t);
  if (k == Kind::kHandle || k == Kind::kUndefined) return false;
  try {
    CheckSupported(t, {});
  } catch (const InterpError&) {
    return false;
  }
  return true;
}

Operand Const(DataType t, Scalar value) {
  Operand op;
  op.how = Operand::How::kConst;
  op.dtype = t;
  op.kind = KindOf(t);
  op.value = value;
  return op;
}

Operand Call(DataType t, std::function<Scalar(Frame&)> fn) {
  Operand op;
  op.dtype = t;
  op.kind = KindOf(t);
  op.fn = std::move(fn);
  return op;
}

// `a kind b` on operands of type `t`, with both known here: after inlining, BinaryLane is the
// one operation on the one type.
template <TypeIndex K, DataType::Code C, int Bits>
std::function<Scalar(Frame&)> TypedBinary(Operand a, Operand b, Span span) {
  return [a = std::move(a), b = std::move(b), span](Frame& f) {
    return BinaryLane(K, DataType(C, Bits), a(f), b(f), span);
  };
}

template <TypeIndex K>
std::function<Scalar(Frame&)> BinaryOn(DataType t, Operand a, Operand b, Span span) {
  if (t == DataType::Int(32)) return TypedBinary<K, DataType::kInt, 32>(std::move(a), std::move(b), span);
  if (t == DataType::Int(64)) return TypedBinary<K, DataType::kInt, 64>(std::move(a), std::move(b), span);
  if (t == DataType::Float(32)) return TypedBinary<K, DataType::kFloat, 32>(std::move(a), std::move(b), span);
  if (t == DataType::Float(64)) return TypedBinary<K, DataType::kFloat, 64>(std::move(a), std::move(b), span);
  return [t, a = std::move(a), b = std::move(b), span](Frame& f) { return BinaryLane(K, t, a(f), b(f), span); };
}

std::function<Scalar(Frame&)> Binary(TypeIndex kind, DataType t, Operand a, Operand b, Span span) {
  switch (kind) {
#define WB_CASE(Name) \
  case TypeIndex::k##Name: return BinaryOn<TypeIndex::k##Name>(t, std::move(a), std::move(b), span);
    WB_CASE(Add) WB_CASE(Sub) WB_CASE(Mul) WB_CASE(Div) WB_CASE(Mod) WB_CASE(FloorDiv)
    WB_CASE(FloorMod) WB_CASE(Min) WB_CASE(Max) WB_CASE(EQ) WB_CASE(NE) WB_CASE(LT) WB_CASE(LE)
    WB_CASE(GT) WB_CASE(GE) WB_CASE(And) WB_CASE(Or)
#undef WB_CASE
    default: return [kind, t, a = std::move(a), b = std::move(b), span](Frame& f) {
      return BinaryLane(kind, t, a(f), b(f), span);
    };
  }
}

// A scalar load of type `t` at `access` (which is scalar).
template <DataType::Code C, int Bits>
std::function<Scalar(Frame&)> TypedLoad(std::shared_ptr<Access> access) {
  const Access& a = *access;
  return WithRank(a, [&]<int N>() -> std::function<Scalar(Frame&)> {
    return [access](Frame& f) {
      Storage* storage = nullptr;
      const int64_t byte = AddressOf<N>(*access, f, &storage);
      if (storage->shadow) [[unlikely]] CheckSharedAccess(storage, byte, (Bits + 7) / 8, false, access->span);
      return LoadScalar(DataType(C, Bits), storage->data + byte);
    };
  });
}

std::function<Scalar(Frame&)> Load(DataType t, std::shared_ptr<Access> access) {
  if (t == DataType::Float(32)) return TypedLoad<DataType::kFloat, 32>(std::move(access));
  if (t == DataType::Int(32)) return TypedLoad<DataType::kInt, 32>(std::move(access));
  if (t == DataType::Int(64)) return TypedLoad<DataType::kInt, 64>(std::move(access));
  if (t == DataType::Float(64)) return TypedLoad<DataType::kFloat, 64>(std::move(access));
  const int64_t nbytes = ElementBytes(t);
  return [t, nbytes, access = std::move(access)](Frame& f) {
    Storage* storage = nullptr;
    const int64_t byte = access->ScalarAddress(f, &storage);
    if (storage->shadow) [[unlikely]] CheckSharedAccess(storage, byte, nbytes, false, access->span);
    return LoadScalar(t, storage->data + byte);
  };
}

std::string CallName(const CallNode* op) {
  auto* o = op->op.as<ir::OpNode>();
  if (!o) return {};
  return o->name.rfind("tirx.", 0) == 0 ? o->name.substr(5) : o->name;
}

class ScalarCompiler : public ExprFunctor<std::optional<Operand>(const PrimExpr&)> {
 public:
  explicit ScalarCompiler(ExprCompiler* compiler) : compiler_(compiler) {}

  std::optional<Operand> Compile(const PrimExpr& e) {
    if (!e.defined() || !FastType(e->dtype)) return std::nullopt;
    return VisitExpr(e);
  }

  std::optional<Operand> VisitExpr_(const IntImmNode* op) override {
    return Const(op->dtype, Value::Int(op->dtype, op->value).scalar());
  }
  std::optional<Operand> VisitExpr_(const FloatImmNode* op) override {
    return Const(op->dtype, Value::Float(op->dtype, op->value).scalar());
  }
  std::optional<Operand> VisitExpr_(const StringImmNode*) override { return std::nullopt; }
  std::optional<Operand> VarRead(const VarNode* op) {
    Operand r;
    r.how = Operand::How::kVar;
    r.dtype = op->dtype;
    r.kind = KindOf(op->dtype);
    r.slot = compiler_->Slot(op);
    r.var = op;
    return r;
  }
  std::optional<Operand> VisitExpr_(const VarNode* op) override { return VarRead(op); }
  std::optional<Operand> VisitExpr_(const SizeVarNode* op) override { return VarRead(op); }
  std::optional<Operand> VisitExpr_(const CastNode* op) override {
    auto value = Compile(op->value);
    if (!value) return std::nullopt;
    const DataType to = op->dtype;
    const DataType from = value->dtype;
    if (to == from) return value;  // CastLane to the same type is the identity
    return Call(to, [to, from, value = std::move(*value)](Frame& f) { return CastLane(to, from, value(f)); });
  }
  std::optional<Operand> BinaryOp(const BinaryNode* op) {
    auto a = Compile(op->a);
    auto b = Compile(op->b);
    if (!a || !b || a->dtype != b->dtype) return std::nullopt;
    const DataType t = a->dtype;
    const TypeIndex kind = op->type_index();
    const bool compare = IsComparison(kind) || kind == TypeIndex::kAnd || kind == TypeIndex::kOr;
    std::optional<Operand> affine = Affine(kind, *a, *b);
    Operand r = Call(compare ? DataType::Bool() : t, Binary(kind, t, std::move(*a), std::move(*b), op->span));
    if (!affine) return r;
    affine->fn = std::move(r.fn);
    return affine;
  }
  // `a kind b` as one kAffine operand (see Operand) when both sides are affine in variables of
  // their integer type and the operation keeps it so (+, -, and * by a constant); nullopt else.
  // Only the terms are set: the caller gives it the operation-by-operation `fn`.
  static std::optional<Operand> Affine(TypeIndex kind, const Operand& a, const Operand& b) {
    if (a.kind != Kind::kInt && a.kind != Kind::kUInt) return std::nullopt;
    if (kind != TypeIndex::kAdd && kind != TypeIndex::kSub && kind != TypeIndex::kMul) return std::nullopt;
    auto as_affine = [](const Operand& o) -> std::optional<Operand> {
      if (o.how == Operand::How::kAffine || o.how == Operand::How::kConst) return o;
      if (o.how != Operand::How::kVar) return std::nullopt;
      Operand x = o;
      x.how = Operand::How::kAffine;
      x.value = Scalar{0};
      x.terms = 1;
      x.term_slots[0] = o.slot;
      x.term_coeffs[0] = 1;
      return x;
    };
    std::optional<Operand> x = as_affine(a), y = as_affine(b);
    if (!x || !y) return std::nullopt;
    auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
    auto scaled = [&](Operand o, int64_t c) {
      o.value.i = static_cast<int64_t>(u(o.value.i) * u(c));
      for (int t = 0; t < o.terms; ++t) o.term_coeffs[t] = static_cast<int64_t>(u(o.term_coeffs[t]) * u(c));
      return o;
    };
    Operand r = *x;
    if (kind == TypeIndex::kMul) {
      if (y->how == Operand::How::kConst) r = scaled(*x, y->value.i);
      else if (x->how == Operand::How::kConst) r = scaled(*y, x->value.i);
      else return std::nullopt;  // a product of variables
    } else {
      const int64_t sign = kind == TypeIndex::kSub ? -1 : 1;
      r.value.i = static_cast<int64_t>(u(x->value.i) + u(sign) * u(y->value.i));
      for (int t = 0; t < y->terms; ++t) {
        const int64_t c = static_cast<int64_t>(u(sign) * u(y->term_coeffs[t]));
        int k = 0;
        while (k < r.terms && r.term_slots[k] != y->term_slots[t]) ++k;
        if (k == r.terms) {
          if (r.terms == Operand::kMaxTerms) return std::nullopt;
          r.term_slots[r.terms] = y->term_slots[t];
          r.term_coeffs[r.terms++] = 0;
        }
        r.term_coeffs[k] = static_cast<int64_t>(u(r.term_coeffs[k]) + u(c));
      }
    }
    r.how = Operand::How::kAffine;
    r.fn = nullptr;
    r.var = nullptr;
    r.slot = -1;
    return r;
  }
#define WB_BIN(Name) \
  std::optional<Operand> VisitExpr_(const Name##Node* op) override { return BinaryOp(op); }
  WB_BIN(Add) WB_BIN(Sub) WB_BIN(Mul) WB_BIN(Div) WB_BIN(Mod) WB_BIN(FloorDiv) WB_BIN(FloorMod)
  WB_BIN(Min) WB_BIN(Max) WB_BIN(EQ) WB_BIN(NE) WB_BIN(LT) WB_BIN(LE) WB_BIN(GT) WB_BIN(GE)
  WB_BIN(And) WB_BIN(Or)
#undef WB_BIN
  std::optional<Operand> VisitExpr_(const NotNode* op) override {
    auto a = Compile(op->a);
    if (!a) return std::nullopt;
    return Call(DataType::Bool(), [a = std::move(*a)](Frame& f) {
      const Scalar s = a(f);
      return Scalar{.i = a.kind == Kind::kFloat ? s.f == 0 : s.i == 0};
    });
  }
  std::optional<Operand> VisitExpr_(const SelectNode* op) override {
    auto c = Compile(op->condition), t = Compile(op->true_value), e = Compile(op->false_value);
    if (!c || !t || !e || t->dtype != e->dtype) return std::nullopt;
    const DataType dtype = t->dtype;
    return Call(dtype, [c = std::move(*c), t = std::move(*t), e = std::move(*e)](Frame& f) {
      const Scalar cv = c(f), tv = t(f), ev = e(f);  // Select evaluates both sides
      return cv.i ? tv : ev;
    });
  }
  std::optional<Operand> VisitExpr_(const BufferLoadNode* op) override {
    const DataType elem = op->buffer->dtype;
    if (op->predicate.defined() || elem != op->dtype || !FastType(elem)) return std::nullopt;
    for (const auto& i : op->indices) {
      if (!i->dtype.is_scalar()) return std::nullopt;
    }
    auto access = compiler_->MakeAccess(op->buffer, op->indices, {}, op->span, "read");
    return Call(elem, Load(elem, std::move(access)));
  }
  std::optional<Operand> VisitExpr_(const RampNode*) override { return std::nullopt; }
  std::optional<Operand> VisitExpr_(const BroadcastNode*) override { return std::nullopt; }
  std::optional<Operand> VisitExpr_(const ShuffleNode*) override { return std::nullopt; }
  std::optional<Operand> VisitExpr_(const LetNode* op) override {
    auto value = Compile(op->value);
    auto body = Compile(op->body);
    if (!value || !body) return std::nullopt;
    const int slot = compiler_->Slot(op->var.get());
    const DataType dtype = body->dtype;
    return Call(dtype, [slot, value = std::move(*value), body = std::move(*body)](Frame& f) {
      f.vars[slot].SetScalar(value.dtype, value.kind, value(f));
      return body(f);
    });
  }
  std::optional<Operand> VisitExpr_(const CallNode* op) override {
    const std::string name = CallName(op);
    if (name == "likely" && op->args.size() == 1) {
      auto a = Compile(op->args[0]);
      if (!a || a->dtype != op->dtype) return std::nullopt;
      return a;
    }
    if (name == "if_then_else" && op->args.size() == 3) {
      auto c = Compile(op->args[0]), t = Compile(op->args[1]), e = Compile(op->args[2]);
      if (!c || !t || !e || t->dtype != e->dtype) return std::nullopt;
      const DataType dtype = t->dtype;
      return Call(dtype, [c = std::move(*c), t = std::move(*t), e = std::move(*e)](Frame& f) {
        return c(f).i ? t(f) : e(f);  // only the taken branch runs
      });
    }
    return std::nullopt;
  }
  std::optional<Operand> VisitExpr_(const ReduceNode*) override { return std::nullopt; }

 private:
  ExprCompiler* compiler_;
};

}  // namespace

std::optional<Operand> CompileScalar(ExprCompiler& compiler, const PrimExpr& e) {
  return ScalarCompiler(&compiler).Compile(e);
}

Operand CompileInt(ExprCompiler& compiler, const PrimExpr& e) {
  if (auto fast = CompileScalar(compiler, e)) return std::move(*fast);
  ExprFn general = compiler.Expr(e);
  return Call(DataType::Int(64), [general](Frame& f) { return Scalar{.i = general(f).AsInt()}; });
}

Operand CompileBool(ExprCompiler& compiler, const PrimExpr& e) {
  if (auto fast = CompileScalar(compiler, e)) return std::move(*fast);
  ExprFn general = compiler.Expr(e);
  return Call(DataType::Bool(), [general](Frame& f) { return Scalar{.i = general(f).AsBool()}; });
}

}  // namespace wb::tir::interp
