#include "relax/interpreter.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "relax/block_builder.h"
#include "relax/op/registry.h"
#include "runtime/nonzero.h"
#include "runtime/text_format.h"
#include "tir/interpreter.h"

namespace wb::relax {

// --- Values -----------------------------------------------------------------------------------

Value Value::Tensor(runtime::NDArray array) {
  Value v;
  v.kind = Kind::kTensor;
  v.tensor = std::move(array);
  return v;
}
Value Value::TupleOf(std::vector<Value> fields) {
  Value v;
  v.kind = Kind::kTuple;
  v.fields = std::move(fields);
  return v;
}
Value Value::ShapeOf(std::vector<int64_t> dims) {
  Value v;
  v.kind = Kind::kShape;
  v.shape = std::move(dims);
  return v;
}
Value Value::Int(DataType dtype, int64_t i) {
  Value v;
  v.kind = Kind::kPrim;
  v.dtype = dtype;
  v.int_value = i;
  v.float_value = double(i);
  return v;
}
Value Value::Float(DataType dtype, double f) {
  Value v;
  v.kind = Kind::kPrim;
  v.dtype = dtype;
  v.float_value = f;
  return v;
}
Value Value::String(std::string s) {
  Value v;
  v.kind = Kind::kString;
  v.string_value = std::move(s);
  return v;
}
Value Value::DType(DataType d) {
  Value v;
  v.kind = Kind::kDataType;
  v.dtype = d;
  return v;
}

namespace {

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + (dims.size() == 1 ? ",)" : ")");
}

}  // namespace

std::string Value::Describe() const {
  switch (kind) {
    case Kind::kTensor:
      return "tensor " + DimsText(tensor.shape()) + " " + runtime::DTypeToString(tensor.dtype());
    case Kind::kTuple:
      return "tuple of " + std::to_string(fields.size());
    case Kind::kShape:
      return "shape " + DimsText(shape);
    case Kind::kPrim:
      return dtype.ToString() + " " +
             (dtype.is_floating_point() ? std::to_string(float_value) : std::to_string(int_value));
    case Kind::kString:
      return "string \"" + string_value + "\"";
    case Kind::kDataType:
      return "dtype " + dtype.ToString();
    case Kind::kFunction:
      return "function";
    case Kind::kObject:
      return "object";
  }
  return "value";
}

namespace {

// A failure of the program being run, at the span of the expression that failed.
class Failure : public std::runtime_error {
 public:
  Failure(const std::string& message, Span span)
      : std::runtime_error(message), span(std::move(span)) {}
  Span span;
};

[[noreturn]] void Fail(const std::string& message, const Span& span) { throw Failure(message, span); }

// The variables of one activation of a Relax function: Relax vars and symbolic shape vars.
struct Frame {
  std::unordered_map<const VarNode*, Value> vars;
  std::unordered_map<const tir::VarNode*, int64_t> dims;
};

bool IsOpNamed(const ObjectRef& op, const char* name) {
  auto* o = op.as<ir::OpNode>();
  return o && o->name == name;
}

// --- Symbolic arithmetic ----------------------------------------------------------------------

struct Scalar {
  bool is_float = false;
  int64_t i = 0;
  double f = 0;
  double AsDouble() const { return is_float ? f : double(i); }
};

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

Scalar EvalPrim(const PrimExpr& e, const Frame& frame, const Span& span) {
  using ir::TypeIndex;
  if (auto* imm = e.as<tir::IntImmNode>()) return {false, imm->value, 0};
  if (auto* imm = e.as<tir::FloatImmNode>()) return {true, 0, imm->value};
  if (auto* v = e.as<tir::VarNode>()) {
    auto it = frame.dims.find(v);
    if (it == frame.dims.end()) Fail("symbolic var " + v->name_hint + " has no value here", span);
    return {false, it->second, 0};
  }
  if (auto* c = e.as<tir::CastNode>()) {
    Scalar s = EvalPrim(c->value, frame, span);
    if (c->dtype.is_floating_point()) return {true, 0, s.AsDouble()};
    if (c->dtype.is_bool()) return {false, s.AsDouble() != 0, 0};
    return {false, s.is_float ? int64_t(s.f) : s.i, 0};
  }
  if (auto* n = e.as<tir::NotNode>()) return {false, EvalPrim(n->a, frame, span).AsDouble() == 0, 0};
  if (auto* s = e.as<tir::SelectNode>()) {
    return EvalPrim(s->condition, frame, span).AsDouble() != 0 ? EvalPrim(s->true_value, frame, span)
                                                              : EvalPrim(s->false_value, frame, span);
  }
  if (auto* b = e.as<tir::BinaryNode>()) {
    Scalar x = EvalPrim(b->a, frame, span), y = EvalPrim(b->b, frame, span);
    bool fl = x.is_float || y.is_float;
    double xf = x.AsDouble(), yf = y.AsDouble();
    auto num = [&](int64_t iv, double fv) { return fl ? Scalar{true, 0, fv} : Scalar{false, iv, 0}; };
    auto cmp = [](bool v) { return Scalar{false, v, 0}; };
    switch (b->type_index()) {
      case TypeIndex::kAdd:
        return num(x.i + y.i, xf + yf);
      case TypeIndex::kSub:
        return num(x.i - y.i, xf - yf);
      case TypeIndex::kMul:
        return num(x.i * y.i, xf * yf);
      case TypeIndex::kDiv:
      case TypeIndex::kMod:
      case TypeIndex::kFloorDiv:
      case TypeIndex::kFloorMod: {
        if (!fl && y.i == 0) Fail("division by zero in " + std::string(b->type_key()), span);
        if (b->type_index() == TypeIndex::kDiv) return num(fl ? 0 : x.i / y.i, xf / yf);
        if (b->type_index() == TypeIndex::kMod) return num(fl ? 0 : x.i % y.i, std::fmod(xf, yf));
        if (b->type_index() == TypeIndex::kFloorDiv) {
          return num(fl ? 0 : FloorDivInt(x.i, y.i), std::floor(xf / yf));
        }
        return num(fl ? 0 : x.i - FloorDivInt(x.i, y.i) * y.i, xf - std::floor(xf / yf) * yf);
      }
      case TypeIndex::kMin:
        return num(std::min(x.i, y.i), std::min(xf, yf));
      case TypeIndex::kMax:
        return num(std::max(x.i, y.i), std::max(xf, yf));
      case TypeIndex::kEQ:
        return cmp(fl ? xf == yf : x.i == y.i);
      case TypeIndex::kNE:
        return cmp(fl ? xf != yf : x.i != y.i);
      case TypeIndex::kLT:
        return cmp(fl ? xf < yf : x.i < y.i);
      case TypeIndex::kLE:
        return cmp(fl ? xf <= yf : x.i <= y.i);
      case TypeIndex::kGT:
        return cmp(fl ? xf > yf : x.i > y.i);
      case TypeIndex::kGE:
        return cmp(fl ? xf >= yf : x.i >= y.i);
      case TypeIndex::kAnd:
        return cmp(xf != 0 && yf != 0);
      case TypeIndex::kOr:
        return cmp(xf != 0 || yf != 0);
      default:
        break;
    }
  }
  Fail(std::string("cannot evaluate the symbolic expression (") + e->type_key() + ")", span);
}

int64_t EvalDim(const PrimExpr& e, const Frame& frame, const Span& span) {
  Scalar s = EvalPrim(e, frame, span);
  if (s.is_float) Fail("a shape dimension evaluated to a float", span);
  return s.i;
}

std::vector<int64_t> EvalDims(const std::vector<PrimExpr>& dims, const Frame& frame,
                              const Span& span) {
  std::vector<int64_t> out;
  for (const auto& d : dims) out.push_back(EvalDim(d, frame, span));
  return out;
}

// --- Matching values against types ------------------------------------------------------------

// Binds every bare symbolic var of `type` that is not bound yet from `value` (first pass of a
// match), so that compound dims like `n * 2` can be checked in the second pass.
void BindDims(const Type& type, const Value& value, Frame& frame) {
  auto bind_list = [&](const std::vector<PrimExpr>& dims, const std::vector<int64_t>& actual) {
    if (dims.size() != actual.size()) return;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (auto* v = dims[i].as<tir::VarNode>()) frame.dims.emplace(v, actual[i]);
    }
  };
  if (auto* t = type.as<TensorTypeNode>()) {
    if (t->shape && value.kind == Value::Kind::kTensor) bind_list(*t->shape, value.tensor.shape());
  } else if (auto* s = type.as<ShapeTypeNode>()) {
    if (s->values && value.kind == Value::Kind::kShape) bind_list(*s->values, value.shape);
  } else if (auto* tt = type.as<TupleTypeNode>()) {
    if (value.kind != Value::Kind::kTuple) return;
    for (size_t i = 0; i < tt->fields.size() && i < value.fields.size(); ++i) {
      BindDims(tt->fields[i], value.fields[i], frame);
    }
  }
}

DataType DTypeOf(const runtime::NDArray& a) {
  runtime::DLDataType t = a.dtype();
  return DataType(static_cast<DataType::Code>(t.code), t.code == runtime::kDLBool ? 1 : t.bits,
                  t.lanes);
}

// Checks `value` against `type` (dims evaluated in `frame`); throws a Failure that starts with
// `what`.
void CheckType(const Type& type, const Value& value, const Frame& frame, const std::string& what,
               const Span& span) {
  auto mismatch = [&](const std::string& detail) {
    Fail(what + " is a " + value.Describe() + ", which does not match " + TypeToString(type) +
             (detail.empty() ? "" : ": " + detail),
         span);
  };
  auto check_dims = [&](const std::vector<PrimExpr>& dims, const std::vector<int64_t>& actual) {
    if (dims.size() != actual.size()) mismatch("the ranks differ");
    for (size_t i = 0; i < dims.size(); ++i) {
      int64_t want = EvalDim(dims[i], frame, span);
      if (want != actual[i]) {
        mismatch("dimension " + std::to_string(i) + " is " + std::to_string(actual[i]) +
                 ", expected " + std::to_string(want));
      }
    }
  };
  if (!type.defined() || type.as<ObjectTypeNode>()) return;
  if (auto* t = type.as<TensorTypeNode>()) {
    if (value.kind != Value::Kind::kTensor) mismatch("");
    if (!t->IsUnknownDtype() && DTypeOf(value.tensor) != t->dtype) mismatch("the dtypes differ");
    if (!t->IsUnknownNdim() && t->ndim != value.tensor.ndim()) mismatch("the ranks differ");
    if (t->shape) check_dims(*t->shape, value.tensor.shape());
  } else if (auto* s = type.as<ShapeTypeNode>()) {
    if (value.kind != Value::Kind::kShape) mismatch("");
    if (s->ndim != kUnknownNDim && s->ndim != static_cast<int64_t>(value.shape.size())) {
      mismatch("the ranks differ");
    }
    if (s->values) check_dims(*s->values, value.shape);
  } else if (auto* p = type.as<PrimTypeNode>()) {
    if (value.kind != Value::Kind::kPrim) mismatch("");
    if (!p->dtype.is_void() && p->dtype != value.dtype) mismatch("the dtypes differ");
  } else if (auto* tt = type.as<TupleTypeNode>()) {
    if (value.kind != Value::Kind::kTuple) mismatch("");
    if (tt->fields.size() != value.fields.size()) mismatch("the tuple sizes differ");
    for (size_t i = 0; i < tt->fields.size(); ++i) {
      CheckType(tt->fields[i], value.fields[i], frame, what + " field " + std::to_string(i), span);
    }
  } else if (type.as<FuncTypeNode>() || type.as<PackedFuncTypeNode>()) {
    if (value.kind != Value::Kind::kFunction) mismatch("");
  }
}

void MatchType(const Type& type, const Value& value, Frame& frame, const std::string& what,
               const Span& span) {
  BindDims(type, value, frame);
  CheckType(type, value, frame, what, span);
}

runtime::NDArray ConstantArray(const ConstantNode* c) {
  runtime::NDArray a = runtime::NDArray::Empty(c->shape, tir::ToRuntimeDType(c->dtype));
  std::string error;
  if (!a.CopyFromBytes(c->data.data(), c->data.size(), &error)) Fail("R.const: " + error, c->span);
  return a;
}

runtime::NDArray Allocate(const TensorTypeNode* t, const Frame& frame, const Span& span,
                          const std::string& what) {
  if (!t->shape) Fail(what + " has no known shape to allocate: " + TypeToString(GetRef(t)), span);
  if (t->IsUnknownDtype()) Fail(what + " has no known dtype to allocate", span);
  return runtime::NDArray::Empty(EvalDims(*t->shape, frame, span), tir::ToRuntimeDType(t->dtype));
}

tir::InterpArg ToKernelArg(const Value& v, const std::string& kernel, size_t index,
                           const Span& span) {
  if (v.kind == Value::Kind::kTensor) return tir::InterpArg(v.tensor);
  if (v.kind == Value::Kind::kPrim) {
    if (v.dtype.is_floating_point()) return tir::InterpArg(v.float_value);
    return tir::InterpArg(v.int_value);
  }
  Fail("argument " + std::to_string(index) + " of " + kernel + " is a " + v.Describe() +
           ", which a PrimFunc cannot take",
       span);
}

// --- The interpreter --------------------------------------------------------------------------

class Interpreter {
 public:
  // One op call legalized: the typed call it was made for, and the module whose `main` runs it.
  struct LegalizedCall {
    Expr call;
    ir::IRModule module;
  };
  using LegalizeCache = std::unordered_multimap<uint64_t, LegalizedCall>;

  Interpreter(ir::IRModule module, const RelaxInterpretOptions& options,
              std::shared_ptr<LegalizeCache> cache = std::make_shared<LegalizeCache>())
      : module_(std::move(module)), options_(options), cache_(std::move(cache)) {}

  Value CallFunction(const Function& func, const std::string& name, std::vector<Value> args,
                     const Frame* captured, const Span& call_span) {
    if (++depth_ > options_.max_call_depth) {
      Fail("more than " + std::to_string(options_.max_call_depth) +
               " nested calls of Relax functions (runaway recursion?)",
           call_span);
    }
    if (args.size() != func->params.size()) {
      Fail(name + " takes " + std::to_string(func->params.size()) + " arguments, got " +
               std::to_string(args.size()),
           call_span.defined() ? call_span : func->span);
    }
    Frame frame;
    if (captured) frame = *captured;
    // Bare dims first (all params), so that `(n * 2,)` on one param can use `n` of another.
    for (size_t i = 0; i < args.size(); ++i) BindDims(func->params[i]->struct_info, args[i], frame);
    for (size_t i = 0; i < args.size(); ++i) {
      const Var& p = func->params[i];
      CheckType(p->struct_info, args[i], frame,
                name + ": argument " + std::to_string(i) + " ('" + p->name_hint + "')",
                p->span.defined() ? p->span : call_span);
      frame.vars[p.get()] = std::move(args[i]);
    }
    Value out = Eval(func->body, frame);
    --depth_;
    return out;
  }

  Value Eval(const Expr& expr, Frame& frame) {
    if (!expr.defined()) Fail("cannot evaluate a missing expression", {});
    const Object* node = expr.get();
    if (auto* v = expr.as<VarNode>()) {
      auto it = frame.vars.find(v);
      if (it == frame.vars.end()) Fail("variable " + v->name_hint + " has no value here", v->span);
      return it->second;
    }
    if (auto* c = expr.as<ConstantNode>()) return Value::Tensor(ConstantArray(c));
    if (auto* t = expr.as<TupleNode>()) {
      std::vector<Value> fields;
      for (const Expr& f : t->fields) fields.push_back(Eval(f, frame));
      return Value::TupleOf(std::move(fields));
    }
    if (auto* g = expr.as<TupleGetItemNode>()) {
      Value tuple = Eval(g->tuple, frame);
      if (tuple.kind != Value::Kind::kTuple) {
        Fail("item " + std::to_string(g->index) + " of a " + tuple.Describe() + ", not a tuple",
             g->span);
      }
      if (g->index < 0 || g->index >= static_cast<int64_t>(tuple.fields.size())) {
        Fail("tuple index " + std::to_string(g->index) + " out of range for a tuple of " +
                 std::to_string(tuple.fields.size()),
             g->span);
      }
      return tuple.fields[g->index];
    }
    if (auto* s = expr.as<ShapeExprNode>()) return Value::ShapeOf(EvalDims(s->values, frame, s->span));
    if (auto* p = expr.as<PrimValueNode>()) {
      Scalar s = EvalPrim(p->value, frame, p->span);
      if (p->value->dtype.is_floating_point()) return Value::Float(p->value->dtype, s.AsDouble());
      return Value::Int(p->value->dtype, s.is_float ? int64_t(s.f) : s.i);
    }
    if (auto* s = expr.as<StringImmNode>()) return Value::String(s->value);
    if (auto* d = expr.as<DataTypeImmNode>()) return Value::DType(d->value);
    if (auto* seq = expr.as<SeqExprNode>()) {
      for (const BindingBlock& block : seq->blocks) {
        for (const Binding& b : block->bindings) RunBinding(b, frame);
      }
      return Eval(seq->body, frame);
    }
    if (auto* i = expr.as<IfNode>()) {
      Value cond = Eval(i->cond, frame);
      bool taken;
      if (cond.kind == Value::Kind::kTensor && cond.tensor.NumElements() == 1 &&
          cond.tensor.ndim() == 0) {
        taken = cond.tensor.GetDouble(0) != 0;
      } else if (cond.kind == Value::Kind::kPrim) {
        taken = cond.dtype.is_floating_point() ? cond.float_value != 0 : cond.int_value != 0;
      } else {
        Fail("the condition of an if is a " + cond.Describe() + ", not a bool scalar", i->span);
      }
      return Eval(taken ? i->true_branch : i->false_branch, frame);
    }
    if (auto* c = expr.as<CallNode>()) return EvalCall(c, frame);
    if (node->type_index() == ir::TypeIndex::kGlobalVar || expr.as<ExternFuncNode>()) {
      Value v;
      v.kind = Value::Kind::kFunction;
      v.function = expr;
      return v;
    }
    if (auto* f = expr.as<FunctionNode>()) {
      Value v;
      v.kind = Value::Kind::kFunction;
      v.function = GetRef(f);
      v.captured = std::make_shared<const Frame>(frame);
      return v;
    }
    Fail(std::string("cannot evaluate a ") + node->type_key(), node->span);
  }

 private:
  void RunBinding(const Binding& b, Frame& frame) {
    if (auto* vb = b.as<VarBindingNode>()) {
      frame.vars[vb->var.get()] = Eval(vb->value, frame);
      return;
    }
    auto* mc = b.as<MatchCastNode>();
    Value value = Eval(mc->value, frame);
    MatchType(mc->struct_info, value, frame, "R.match_cast: the value of " + mc->var->name_hint,
              mc->span);
    frame.vars[mc->var.get()] = std::move(value);
  }

  Value EvalCall(const CallNode* call, Frame& frame) {
    const Span& span = call->span;
    // call_tir_with_grad runs as call_tir: its gradient names only matter to the Gradient pass.
    if (IsOpNamed(call->op, "relax.call_tir") || IsOpNamed(call->op, "relax.call_tir_inplace") ||
        IsOpNamed(call->op, "relax.call_tir_with_grad")) {
      return CallTIR(call, frame);
    }
    if (auto* op = call->op.as<ir::OpNode>()) return CallOp(call, op, frame);
    Value callee = Eval(call->op, frame);
    std::vector<Value> args;
    for (const Expr& a : call->args) args.push_back(Eval(a, frame));
    if (callee.kind != Value::Kind::kFunction) {
      Fail("the callee is a " + callee.Describe() + ", not a function", span);
    }
    return Apply(callee, std::move(args), span);
  }

  Value Apply(const Value& callee, std::vector<Value> args, const Span& span) {
    if (auto* gv = callee.function.as<ir::GlobalVarNode>()) {
      ir::BaseFunc f = module_->Lookup(GetRef(gv));
      if (!f.defined()) Fail(gv->name_hint + " is not a function of the module", span);
      if (auto* rf = f.as<FunctionNode>()) {
        return CallFunction(GetRef(rf), gv->name_hint, std::move(args), nullptr, span);
      }
      if (f.as<tir::PrimFuncNode>()) {
        // A destination-passing call (what CallTIRRewrite emits): outputs are among the args.
        std::vector<tir::InterpArg> kargs;
        for (size_t i = 0; i < args.size(); ++i) {
          kargs.push_back(ToKernelArg(args[i], gv->name_hint, i, span));
        }
        return RunKernel(gv->name_hint, std::move(kargs), span);
      }
      if (auto* ext = f.as<ExternFuncNode>()) {
        Fail("extern function " + ext->global_symbol + " cannot be evaluated by the interpreter",
             span);
      }
      Fail(gv->name_hint + " is not a function the interpreter can call", span);
    }
    if (auto* rf = callee.function.as<FunctionNode>()) {
      auto captured = std::static_pointer_cast<const Frame>(callee.captured);
      return CallFunction(GetRef(rf), "a local function", std::move(args), captured.get(), span);
    }
    if (auto* ext = callee.function.as<ExternFuncNode>()) {
      Fail("extern function " + ext->global_symbol + " cannot be evaluated by the interpreter",
           span);
    }
    Fail("this callee cannot be evaluated", span);
  }

  Value RunKernel(const std::string& name, std::vector<tir::InterpArg> args, const Span& span) {
    tir::InterpretOptions opts;
    opts.max_iterations = options_.max_iterations;
    tir::InterpretResult r = tir::InterpretModule(module_, name, std::move(args), opts);
    if (!r.ok()) {
      Fail("PrimFunc " + name + " failed: " + r.diagnostics[0].message, span);
    }
    if (r.return_value) {
      const tir::InterpValue& rv = *r.return_value;
      if (rv.dtype.is_floating_point()) return Value::Float(rv.dtype, rv.float_value);
      return Value::Int(rv.dtype, rv.int_value);
    }
    return Value::TupleOf({});
  }

  Value CallTIR(const CallNode* call, Frame& frame) {
    const Span& span = call->span;
    bool inplace = IsOpNamed(call->op, "relax.call_tir_inplace");
    auto* gv = call->args.empty() ? nullptr : call->args[0].as<ir::GlobalVarNode>();
    if (!gv || call->args.size() < 2 || call->sinfo_args.size() != 1) {
      Fail("malformed call_tir: expected a GlobalVar, an argument tuple and out_ty", span);
    }
    ir::BaseFunc f = module_->Lookup(GetRef(gv));
    if (!f.defined() || !f.as<tir::PrimFuncNode>()) {
      Fail("call_tir callee " + gv->name_hint + " is not a PrimFunc of the module", span);
    }
    Value packed = Eval(call->args[1], frame);
    std::vector<Value> inputs =
        packed.kind == Value::Kind::kTuple ? packed.fields : std::vector<Value>{packed};
    std::vector<const TensorTypeNode*> out_types;
    const Type& out = call->sinfo_args[0];
    bool is_tuple = out.as<TupleTypeNode>() != nullptr;
    if (is_tuple) {
      for (const Type& t : out.as<TupleTypeNode>()->fields) out_types.push_back(t.as<TensorTypeNode>());
    } else {
      out_types.push_back(out.as<TensorTypeNode>());
    }
    std::vector<int64_t> indices;
    if (inplace) {
      indices = AttrInts(GetRef(call), "inplace_indices");
      if (indices.size() != out_types.size()) Fail("inplace_indices does not match out_ty", span);
    }
    std::vector<Value> outputs;
    std::vector<tir::InterpArg> kargs;
    for (size_t i = 0; i < inputs.size(); ++i) kargs.push_back(ToKernelArg(inputs[i], gv->name_hint, i, span));
    for (size_t i = 0; i < out_types.size(); ++i) {
      if (!out_types[i]) Fail("out_ty of call_tir must be tensor types", span);
      if (inplace && indices[i] >= 0) {
        if (indices[i] >= static_cast<int64_t>(inputs.size()) ||
            inputs[indices[i]].kind != Value::Kind::kTensor) {
          Fail("inplace index " + std::to_string(indices[i]) + " does not name a tensor argument",
               span);
        }
        outputs.push_back(inputs[indices[i]]);
        continue;
      }
      runtime::NDArray a = Allocate(out_types[i], frame, span, "output " + std::to_string(i));
      outputs.push_back(Value::Tensor(a));
      kargs.emplace_back(a);
    }
    if (call->args.size() > 2) {  // legacy tir_vars: a shape appended after the outputs
      Value extra = Eval(call->args[2], frame);
      if (extra.kind != Value::Kind::kShape) Fail("tir_vars must be a shape", span);
      for (int64_t d : extra.shape) kargs.emplace_back(d);
    }
    RunKernel(gv->name_hint, std::move(kargs), span);
    for (size_t i = 0; i < outputs.size(); ++i) {
      CheckType(GetRef(out_types[i]), outputs[i], frame,
                "output " + std::to_string(i) + " of " + gv->name_hint, span);
    }
    return is_tuple ? Value::TupleOf(std::move(outputs)) : outputs[0];
  }

  // A value as R.print shows it (TVM's render_object): tensors as nested lists, tuples and
  // shapes in parentheses.
  static std::string Render(const Value& v) {
    switch (v.kind) {
      case Value::Kind::kTensor: return runtime::ElementsText(v.tensor);
      case Value::Kind::kPrim:
        if (v.dtype.is_bool()) return v.int_value ? "True" : "False";
        if (v.dtype.is_floating_point()) {
          char text[40];
          std::snprintf(text, sizeof(text), "%.8g", v.float_value);
          return text;
        }
        return std::to_string(v.int_value);
      case Value::Kind::kString: return v.string_value;
      case Value::Kind::kShape:
      case Value::Kind::kTuple: {
        std::string out;
        size_t n = v.kind == Value::Kind::kShape ? v.shape.size() : v.fields.size();
        for (size_t i = 0; i < n; ++i) {
          out += (i ? ", " : "") +
                 (v.kind == Value::Kind::kShape ? std::to_string(v.shape[i]) : Render(v.fields[i]));
        }
        return "(" + out + (n == 1 ? ",)" : ")");
      }
      default: return v.Describe();
    }
  }

  // An assert's condition: a boolean scalar, as a prim value or a 0-d bool tensor.
  bool Holds(const Value& cond, const Span& span) {
    if (cond.kind == Value::Kind::kPrim) return cond.int_value != 0;
    if (cond.kind == Value::Kind::kTensor && cond.tensor.shape().empty() &&
        cond.tensor.dtype().code == runtime::kDLBool) {
      return cond.tensor.GetInt(0) != 0;
    }
    Fail("R.assert_op: the condition must be a boolean scalar, got " + cond.Describe(), span);
  }

  Value CallOp(const CallNode* call, const ir::OpNode* op, Frame& frame) {
    const Span& span = call->span;
    const std::string& name = op->name;
    if (name == "relax.builtin.alloc_tensor" || name == "relax.memory.alloc_tensor") {
      size_t shape_index = name == "relax.builtin.alloc_tensor" ? 0 : 2;
      size_t dtype_index = shape_index + 1;
      if (call->args.size() <= dtype_index) Fail(name + ": too few arguments", span);
      if (shape_index == 2) Eval(call->args[0], frame);  // the storage
      Value shape = Eval(call->args[shape_index], frame);
      Value dtype = Eval(call->args[dtype_index], frame);
      if (shape.kind != Value::Kind::kShape || dtype.kind != Value::Kind::kDataType) {
        Fail(name + " expects a shape and a dtype", span);
      }
      return Value::Tensor(runtime::NDArray::Empty(shape.shape, tir::ToRuntimeDType(dtype.dtype)));
    }
    if (name == "relax.memory.alloc_storage") {
      for (const Expr& a : call->args) Eval(a, frame);
      Value v;
      v.kind = Value::Kind::kObject;
      return v;
    }
    if (name == "relax.memory.kill_tensor" || name == "relax.memory.kill_storage") {
      Eval(call->args[0], frame);
      return Value::TupleOf({});
    }
    if (name == "relax.to_vdevice" || name == "relax.hint_on_device") {
      // The interpreter has one address space: a copy to another device, or a hint of where
      // the value is wanted, is the value itself.
      return Eval(call->args[0], frame);
    }
    if (name == "relax.grad.no_grad" || name == "relax.grad.start_checkpoint" ||
        name == "relax.grad.end_checkpoint" || name == "relax.builtin.stop_lift_params") {
      // Markers for passes (Gradient, LiftTransformParams): the value itself.
      return Eval(call->args[0], frame);
    }
    if (name == "relax.shape_of") {
      Value x = Eval(call->args[0], frame);
      if (x.kind != Value::Kind::kTensor) Fail("R.shape_of expects a tensor", span);
      return Value::ShapeOf(x.tensor.shape());
    }
    if (name == "relax.print" || name == "relax.assert_op") {
      bool print = name == "relax.print";
      size_t format_index = print ? 0 : 1;
      auto* format = format_index < call->args.size() ? call->args[format_index].as<StringImmNode>() : nullptr;
      if (!format) Fail(name + ": the format string is missing", span);
      std::vector<std::string> texts;
      for (size_t i = format_index + 1; i < call->args.size(); ++i) texts.push_back(Render(Eval(call->args[i], frame)));
      if (!print && Holds(Eval(call->args[0], frame), span)) return Value::TupleOf({});
      std::string error;
      std::optional<std::string> text = runtime::PythonFormat(format->value, texts, &error);
      if (!text) Fail("R." + name.substr(6) + ": " + error, span);
      if (print) {
        if (options_.print) {
          options_.print(*text);
        } else {
          std::printf("%s\n", text->c_str());
          std::fflush(stdout);
        }
        return Value::TupleOf({});
      }
      Fail("R.assert_op: " + (format->value.empty() && texts.empty() ? std::string("Assertion Failed") : *text),
           span);
    }
    if (name == "relax.tensor_to_shape") {
      Value x = Eval(call->args[0], frame);
      if (x.kind != Value::Kind::kTensor || x.tensor.shape().size() != 1) {
        Fail("R.tensor_to_shape expects a 1-D tensor", span);
      }
      std::vector<int64_t> dims;
      for (int64_t i = 0; i < x.tensor.NumElements(); ++i) dims.push_back(x.tensor.GetInt(i));
      return Value::ShapeOf(std::move(dims));
    }
    if (name == "relax.nonzero") {
      Value x = Eval(call->args[0], frame);
      if (x.kind != Value::Kind::kTensor) Fail("R.nonzero expects a tensor", span);
      return Value::Tensor(runtime::NonZero(x.tensor));
    }
    if (name == "relax.call_pure_packed") {
      std::string callee = "?";
      if (!call->args.empty()) {
        if (auto* ext = call->args[0].as<ExternFuncNode>()) callee = ext->global_symbol;
      }
      Fail("R.call_pure_packed(\"" + callee + "\") calls a packed function, which the interpreter "
           "cannot evaluate",
           span);
    }
    if (name == "relax.call_dps_packed") {
      std::string callee = "?";
      if (auto* ext = call->args[0].as<ExternFuncNode>()) callee = ext->global_symbol;
      Fail("R.call_dps_packed(\"" + callee + "\") calls a packed function, which the interpreter "
           "cannot evaluate",
           span);
    }
    std::vector<Value> args;
    for (const Expr& a : call->args) args.push_back(Eval(a, frame));
    return EvalByLegalizing(GetRef(call), std::move(args), frame);
  }

  // Runs one op call by legalizing it for the concrete argument types: the call is rebuilt over
  // fresh parameters typed with the values' static shapes (value arguments, such as a reshape's
  // target shape, are kept with their symbolic dims replaced by numbers), legalized into
  // PrimFuncs and call_tirs in a module of its own, and that module's function is interpreted.
  Value EvalByLegalizing(const Call& call, std::vector<Value> args, const Frame& frame) {
    std::string op_name = call->op.as<ir::OpNode>()->name;
    std::vector<Var> params;
    std::vector<Value> param_values;
    std::vector<Expr> new_args;
    for (size_t i = 0; i < call->args.size(); ++i) {
      new_args.push_back(Concretize(call->args[i], args[i], frame, &params, &param_values));
    }
    BlockBuilder builder;
    builder.BeginFunction("main", params);
    builder.BeginBindingBlock();
    Call concrete = MakeCall(call->op, new_args, call->attrs, call->sinfo_args, call->span);
    Expr typed = builder.Normalize(concrete);
    if (builder.diagnostics().HasErrors()) {
      Fail("R." + op_name.substr(6) + ": " + builder.diagnostics()[0].message, call->span);
    }
    // The same op on the same static types and attributes was legalized before in this run
    // (a layer repeated, the other side of a --check): run that module again. The fresh
    // parameters are matched in order of occurrence.
    uint64_t key = ir::StructuralHash(typed, /*map_free_vars=*/true);
    auto [lo, hi] = cache_->equal_range(key);
    for (auto it = lo; it != hi; ++it) {
      if (ir::StructuralEqual(it->second.call, typed, /*map_free_vars=*/true)) {
        return RunLegalized(it->second.module, std::move(param_values), op_name, call->span);
      }
    }
    std::optional<Expr> lowered;
    try {
      Call typed_call = Downcast<CallNode>(typed);
      if (options_.legalize) {
        lowered = options_.legalize(builder, typed_call);
      } else if (const OpInfo* info = InfoOf(GetRef(call->op.as<ir::OpNode>()));
                 info && info->legalize) {
        lowered = info->legalize(builder, typed_call);
      }
    } catch (const std::exception& e) {
      Fail("R." + op_name.substr(6) + " could not be legalized for the interpreter: " + e.what(),
           call->span);
    }
    if (!lowered) {
      Fail("the interpreter cannot evaluate R." + op_name.substr(6) +
               ": the op has no legalization to TensorIR",
           call->span);
    }
    Var result = builder.Emit(*lowered, "result");
    builder.EndFunction(result);
    ir::IRModule lowered_module = builder.GetModule();
    cache_->emplace(key, LegalizedCall{typed, lowered_module});
    return RunLegalized(lowered_module, std::move(param_values), op_name, call->span);
  }

  Value RunLegalized(const ir::IRModule& lowered, std::vector<Value> args,
                     const std::string& op_name, const Span& span) {
    Interpreter inner(lowered, options_, cache_);
    auto* func = lowered->Lookup("main").as<FunctionNode>();
    try {
      return inner.CallFunction(GetRef(func), "main", std::move(args), nullptr, span);
    } catch (const Failure& f) {
      Fail("R." + op_name.substr(6) + " (legalized): " + f.what(), span);
    }
  }

  // `arg` rebuilt for the legalizer: data values become parameters of static type, literal
  // values keep their form with concrete dims.
  Expr Concretize(const Expr& arg, const Value& value, const Frame& frame, std::vector<Var>* params,
                  std::vector<Value>* param_values) {
    if (auto* t = arg.as<TupleNode>()) {
      std::vector<Expr> fields;
      for (size_t i = 0; i < t->fields.size(); ++i) {
        fields.push_back(Concretize(t->fields[i], value.fields[i], frame, params, param_values));
      }
      return MakeTuple(std::move(fields), t->span);
    }
    switch (value.kind) {
      case Value::Kind::kShape: {
        std::vector<PrimExpr> dims;
        for (int64_t d : value.shape) dims.push_back(tir::MakeIntImm(DataType::Int(64), d));
        return MakeShapeExpr(std::move(dims), arg->span);
      }
      case Value::Kind::kPrim:
        if (value.dtype.is_floating_point()) {
          return MakePrimValue(tir::MakeFloatImm(value.dtype, value.float_value), arg->span);
        }
        return MakePrimValue(tir::MakeIntImm(value.dtype, value.int_value), arg->span);
      case Value::Kind::kString:
        return MakeStringImm(value.string_value, arg->span);
      case Value::Kind::kDataType:
        return MakeDataTypeImm(value.dtype, arg->span);
      case Value::Kind::kTuple: {
        std::vector<Expr> fields;
        for (const Value& f : value.fields) {
          fields.push_back(Concretize(Expr(), f, frame, params, param_values));
        }
        return MakeTuple(std::move(fields));
      }
      case Value::Kind::kTensor: {
        std::vector<PrimExpr> dims;
        for (int64_t d : value.tensor.shape()) dims.push_back(tir::MakeIntImm(DataType::Int(64), d));
        Var p = MakeVar("arg" + std::to_string(params->size()),
                        MakeTensorType(std::move(dims), DTypeOf(value.tensor)));
        params->push_back(p);
        param_values->push_back(value);
        return p;
      }
      default:
        Fail("an op argument is a " + value.Describe() + ", which the interpreter cannot pass to "
             "a legalized op",
             arg.defined() ? arg->span : Span());
    }
  }

  ir::IRModule module_;
  RelaxInterpretOptions options_;
  std::shared_ptr<LegalizeCache> cache_;
  int depth_ = 0;
};

}  // namespace

RelaxInterpretResult InterpretRelax(const ir::IRModule& module, const std::string& name,
                                    std::vector<Value> args, const RelaxInterpretOptions& options) {
  RelaxInterpretResult result;
  ir::BaseFunc base = module.defined() ? module->Lookup(name) : ir::BaseFunc();
  auto* func = base.defined() ? base.as<FunctionNode>() : nullptr;
  if (!func) {
    result.diagnostics.Error("the module has no Relax function named '" + name + "'");
    return result;
  }
  try {
    Interpreter interp(module, options);
    result.value = interp.CallFunction(GetRef(func), name, std::move(args), nullptr, func->span);
  } catch (const Failure& f) {
    result.diagnostics.Error(f.what(), f.span);
  } catch (const DiagnosticError& e) {
    result.diagnostics.Add(e.diagnostic());
  } catch (const std::exception& e) {
    result.diagnostics.Error(std::string("the interpreter failed: ") + e.what(), func->span);
  }
  return result;
}

// --- Random arguments -------------------------------------------------------------------------

namespace {

// `fill_seed`: the seed of a tensor parameter's contents (runtime::InputSeed); nested values
// draw theirs from `rng`.
std::optional<Value> RandomValue(const Type& type, const std::string& what, Frame& frame,
                                 std::mt19937_64& rng, int64_t extent, std::string* why,
                                 std::optional<uint64_t> fill_seed = std::nullopt) {
  auto dims_of = [&](const std::vector<PrimExpr>& dims) -> std::optional<std::vector<int64_t>> {
    for (const auto& d : dims) {
      if (auto* v = d.as<tir::VarNode>()) frame.dims.emplace(v, extent);
    }
    try {
      return EvalDims(dims, frame, {});
    } catch (const Failure& f) {
      *why = what + ": " + f.what();
      return std::nullopt;
    }
  };
  if (auto* t = type.as<TensorTypeNode>()) {
    if (!t->shape) {
      *why = what + " has no static shape (" + TypeToString(type) + ")";
      return std::nullopt;
    }
    if (t->IsUnknownDtype()) {
      *why = what + " has no dtype (" + TypeToString(type) + ")";
      return std::nullopt;
    }
    auto dims = dims_of(*t->shape);
    if (!dims) return std::nullopt;
    runtime::NDArray a = runtime::NDArray::Empty(*dims, tir::ToRuntimeDType(t->dtype));
    runtime::FillRandom(a, fill_seed ? *fill_seed : rng());
    return Value::Tensor(a);
  }
  if (auto* s = type.as<ShapeTypeNode>()) {
    if (!s->values) {
      *why = what + " is a shape of unknown dims";
      return std::nullopt;
    }
    auto dims = dims_of(*s->values);
    if (!dims) return std::nullopt;
    return Value::ShapeOf(*dims);
  }
  if (auto* p = type.as<PrimTypeNode>()) {
    if (p->dtype.is_floating_point()) {
      return Value::Float(p->dtype, std::uniform_real_distribution<double>(-1, 1)(rng));
    }
    if (p->dtype.is_bool()) return Value::Int(p->dtype, int64_t(rng() & 1));
    if (p->dtype.is_integer()) return Value::Int(p->dtype, int64_t(rng() % 8));
    *why = what + " has type " + TypeToString(type);
    return std::nullopt;
  }
  if (auto* tt = type.as<TupleTypeNode>()) {
    std::vector<Value> fields;
    for (size_t i = 0; i < tt->fields.size(); ++i) {
      auto f = RandomValue(tt->fields[i], what + " field " + std::to_string(i), frame, rng, extent, why);
      if (!f) return std::nullopt;
      fields.push_back(*f);
    }
    return Value::TupleOf(std::move(fields));
  }
  *why = what + " has type " + (type.defined() ? TypeToString(type) : "unknown") +
         ", for which no random value is made";
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<Value>> RandomArguments(const Function& func, uint64_t seed,
                                                  int64_t symbolic_extent, std::string* why) {
  std::mt19937_64 rng(seed);
  Frame frame;
  std::vector<Value> args;
  std::string reason;
  for (size_t i = 0; i < func->params.size(); ++i) {
    const Var& p = func->params[i];
    auto v = RandomValue(p->struct_info, "parameter '" + p->name_hint + "'", frame, rng,
                         symbolic_extent, &reason, runtime::InputSeed(seed, i));
    if (!v) {
      if (why) *why = reason;
      return std::nullopt;
    }
    args.push_back(std::move(*v));
  }
  return args;
}

// --- Comparing results ------------------------------------------------------------------------

namespace {

void CompareInto(const Value& a, const Value& e, const std::string& where, ValueComparison* out) {
  auto differ = [&](const std::string& msg) {
    if (out->ok) out->message = where + ": " + msg;
    out->ok = false;
  };
  if (a.kind != e.kind) return differ("a " + a.Describe() + " instead of a " + e.Describe());
  switch (e.kind) {
    case Value::Kind::kTensor: {
      if (a.tensor.shape() != e.tensor.shape() || a.tensor.dtype() != e.tensor.dtype()) {
        return differ("a " + a.Describe() + " instead of a " + e.Describe());
      }
      runtime::CompareResult r = runtime::Compare(a.tensor, e.tensor);
      out->max_abs_error = std::max(out->max_abs_error, r.max_abs_error);
      if (!r.ok) differ(r.message);
      return;
    }
    case Value::Kind::kTuple:
      if (a.fields.size() != e.fields.size()) return differ("tuples of different sizes");
      for (size_t i = 0; i < e.fields.size(); ++i) {
        CompareInto(a.fields[i], e.fields[i], where + "[" + std::to_string(i) + "]", out);
      }
      return;
    case Value::Kind::kShape:
      if (a.shape != e.shape) differ(a.Describe() + " instead of " + e.Describe());
      return;
    case Value::Kind::kPrim: {
      double d = std::fabs(a.float_value - e.float_value);
      if (!e.dtype.is_floating_point()) d = std::fabs(double(a.int_value - e.int_value));
      out->max_abs_error = std::max(out->max_abs_error, d);
      bool same = e.dtype.is_floating_point() ? d <= 1e-5 + 1e-5 * std::fabs(e.float_value)
                                              : a.int_value == e.int_value;
      if (!same) differ(a.Describe() + " instead of " + e.Describe());
      return;
    }
    case Value::Kind::kString:
      if (a.string_value != e.string_value) differ(a.Describe() + " instead of " + e.Describe());
      return;
    case Value::Kind::kDataType:
      if (a.dtype != e.dtype) differ(a.Describe() + " instead of " + e.Describe());
      return;
    case Value::Kind::kFunction:
    case Value::Kind::kObject:
      return;  // opaque: nothing to compare
  }
}

}  // namespace

ValueComparison CompareValues(const Value& actual, const Value& expected) {
  ValueComparison out;
  CompareInto(actual, expected, "the result", &out);
  return out;
}

}  // namespace wb::relax
