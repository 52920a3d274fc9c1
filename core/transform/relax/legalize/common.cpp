#include "transform/relax/legalize/common.h"

#include <cstring>
#include <unordered_set>

#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "relax/op/registry.h"
#include "relax/type.h"
#include "runtime/half.h"
#include "te/create_prim_func.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::transform::legalize {

namespace {

const relax::TensorTypeNode* TensorTypeOf(const Expr& expr) {
  relax::Type t = relax::GetType(expr);
  return t.defined() ? t.as<relax::TensorTypeNode>() : nullptr;
}

std::string NameOf(const Expr& expr) {
  if (auto* v = expr.as<relax::VarNode>()) {
    if (!v->name_hint.empty()) return v->name_hint;
  }
  return "rxplaceholder";
}

// The value of a 0-d constant of a common dtype, as a literal.
ir::PrimExpr ScalarConstant(const relax::ConstantNode* c) {
  if (!c->shape.empty()) return {};
  const ir::DataType t = c->dtype;
  const char* p = c->data.data();
  auto read = [&](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  if (t == ir::DataType::Float(32)) return tir::make_const(t, double(read(float{})));
  if (t == ir::DataType::Float(64)) return tir::make_const(t, read(double{}));
  if (t == ir::DataType::Float(16)) return tir::make_const(t, double(runtime::HalfBitsToFloat(read(uint16_t{}))));
  if (t == ir::DataType::Int(64)) return tir::make_const(t, read(int64_t{}));
  if (t == ir::DataType::Int(32)) return tir::make_const(t, int64_t(read(int32_t{})));
  if (t == ir::DataType::Int(16)) return tir::make_const(t, int64_t(read(int16_t{})));
  if (t == ir::DataType::Int(8)) return tir::make_const(t, int64_t(read(int8_t{})));
  if (t == ir::DataType::UInt(8)) return tir::make_const(t, int64_t(read(uint8_t{})));
  if (t.is_bool()) return tir::make_const(t, int64_t(read(uint8_t{}) != 0));
  return {};
}

}  // namespace

std::vector<ir::PrimExpr> ShapeOf(const Expr& expr) {
  const relax::TensorTypeNode* t = TensorTypeOf(expr);
  if (!t) throw LegalizeError("an operand is not a tensor");
  if (!t->shape) throw LegalizeError("an operand's shape is not known");
  if (t->IsUnknownDtype()) throw LegalizeError("an operand's dtype is not known");
  return *t->shape;
}

const relax::TensorTypeNode* OutputTensorType(const Call& call) {
  const relax::TensorTypeNode* t = TensorTypeOf(call);
  if (!t) throw LegalizeError("the result is not a tensor");
  if (!t->shape) throw LegalizeError("the result's shape is not known");
  if (t->IsUnknownDtype()) throw LegalizeError("the result's dtype is not known");
  return t;
}

std::vector<ir::PrimExpr> ShapeValues(const Expr& expr) {
  if (auto* s = expr.as<relax::ShapeExprNode>()) return s->values;
  relax::Type t = relax::GetType(expr);
  if (auto* st = t.defined() ? t.as<relax::ShapeTypeNode>() : nullptr; st && st->values) {
    return *st->values;
  }
  throw LegalizeError("the shape argument is not known");
}

te::Tensor TECall::Tensor(const Call& call, size_t i) { return Tensor(call->args.at(i)); }

ir::PrimExpr TECall::Dim(const ir::PrimExpr& dim) {
  tir::PostOrderVisit(dim, [&](const ir::Object* n) {
    auto* v = dynamic_cast<const tir::VarNode*>(n);
    if (!v || to_func_.count(v)) return;
    tir::Var copy = tir::MakeVar(v->name_hint, v->dtype);
    to_func_[v] = copy;
    to_relax_[copy.get()] = ir::GetRef(v);
    copies_.push_back(copy);
  });
  return to_func_.empty() ? dim : tir::Substitute(dim, to_func_);
}

std::vector<ir::PrimExpr> TECall::Dims(const std::vector<ir::PrimExpr>& dims) {
  std::vector<ir::PrimExpr> out;
  for (const auto& d : dims) out.push_back(Dim(d));
  return out;
}

te::Tensor TECall::Tensor(const Expr& arg) {
  std::vector<ir::PrimExpr> shape = Dims(ShapeOf(arg));
  te::Tensor t = te::placeholder(shape, TensorTypeOf(arg)->dtype, NameOf(arg));
  // The same operand twice (multiply(x, x)) is two parameters, as in TVM's call_te.
  inputs_.push_back(t);
  input_exprs_.push_back(arg);
  return t;
}

ir::PrimExpr TECall::Scalar(const Expr& arg) {
  if (auto* c = arg.as<relax::ConstantNode>()) return ScalarConstant(c);
  if (auto* pv = arg.as<relax::PrimValueNode>()) {
    if (tir::AsConstInt(pv->value) || pv->value.as<tir::FloatImmNode>()) return pv->value;
    return {};
  }
  if (auto* v = arg.as<relax::VarNode>()) {
    relax::Type t = relax::GetType(arg);
    auto* prim = t.defined() ? t.as<ir::PrimTypeNode>() : nullptr;
    if (!prim || prim->dtype.is_void()) return {};
    tir::Var param = tir::MakeVar(v->name_hint, prim->dtype);
    scalar_params_.push_back(param);
    input_exprs_.push_back(arg);
    return param;
  }
  return {};
}

Expr TECall::Emit(const std::vector<te::Tensor>& outputs, const std::string& name) {
  return EmitRewritten(outputs, name, {}, {});
}

Expr TECall::EmitRewritten(const std::vector<te::Tensor>& outputs, const std::string& name,
                           const PrimFuncRewrite& rewrite, const relax::Type& out_type) {
  // Parameters in the order the call passes them: tensors and scalars interleaved as the
  // operands came, then the symbolic vars no buffer defines, then the outputs.
  std::vector<te::PrimFuncArg> args;
  size_t ti = 0, si = 0;
  for (const Expr& e : input_exprs_) {
    relax::Type t = relax::GetType(e);
    if (t.defined() && t.as<ir::PrimTypeNode>()) {
      args.emplace_back(scalar_params_.at(si++));
    } else {
      args.emplace_back(inputs_.at(ti++));
    }
  }
  // The vars a buffer defines: those that are a whole dim of an input or output.
  std::unordered_set<const tir::VarNode*> bound;
  auto bind_dims = [&](const te::Tensor& t) {
    for (const auto& d : t.shape()) {
      if (auto* v = d.as<tir::VarNode>()) bound.insert(v);
    }
  };
  for (const te::Tensor& t : inputs_) bind_dims(t);
  for (const te::Tensor& t : outputs) bind_dims(t);
  std::vector<Expr> call_inputs = input_exprs_;
  for (const tir::Var& copy : copies_) {
    if (bound.count(copy.get())) continue;
    args.emplace_back(copy);
    call_inputs.push_back(relax::MakePrimValue(to_relax_.at(copy.get())));
  }
  for (const te::Tensor& o : outputs) args.emplace_back(o);
  tir::PrimFunc func = te::create_prim_func(args, ir::DataType::Int(64));
  // A legalized kernel is private to the module: no global_symbol.
  ir::AttrMap attrs = func->attrs;
  attrs.erase("global_symbol");
  func = tir::MakePrimFunc(func->params, func->buffer_map, func->body, func->ret_type, attrs);
  if (rewrite) func = rewrite(func);
  ir::GlobalVar gv = AddPrimFunc(builder_, func, name);
  // The result type speaks of the Relax program's vars again.
  auto TensorTypeFor = [&](const te::Tensor& t) {
    std::vector<ir::PrimExpr> shape;
    for (const auto& d : t.shape()) shape.push_back(tir::Substitute(d, to_relax_));
    return relax::Type(relax::MakeTensorType(shape, t.dtype()));
  };
  relax::Type out = out_type;
  if (!out.defined() && outputs.size() == 1) {
    out = TensorTypeFor(outputs[0]);
  } else if (!out.defined()) {
    std::vector<relax::Type> fields;
    for (const te::Tensor& o : outputs) fields.push_back(TensorTypeFor(o));
    out = ir::MakeTupleType(std::move(fields));
  }
  std::vector<Expr> call_args = {gv, relax::MakeTuple(std::move(call_inputs))};
  Expr call = relax::MakeCall(relax::GetOp("relax.call_tir"), std::move(call_args), {}, {out});
  return builder_.Normalize(call);
}

namespace {
thread_local PrimFuncCacheScope* g_cache = nullptr;
}  // namespace

PrimFuncCacheScope::PrimFuncCacheScope(BlockBuilder& b) : builder(b), previous_(g_cache) {
  ir::IRModule mod = builder.GetModule();
  for (size_t i = 0; i < mod->functions.size(); ++i) {
    auto* f = mod->functions[i].as<tir::PrimFuncNode>();
    if (f && f->global_symbol().empty())
      by_hash.emplace(ir::StructuralHash(mod->functions[i]), mod->global_vars[i]);
  }
  g_cache = this;
}

PrimFuncCacheScope::~PrimFuncCacheScope() { g_cache = previous_; }

ir::GlobalVar AddPrimFunc(BlockBuilder& builder, const tir::PrimFunc& func,
                          const std::string& name) {
  ir::IRModule mod = builder.GetModule();
  uint64_t hash = ir::StructuralHash(func);
  if (g_cache && &g_cache->builder == &builder) {
    auto [lo, hi] = g_cache->by_hash.equal_range(hash);
    for (auto it = lo; it != hi; ++it) {
      if (ir::StructuralEqual(mod->Lookup(it->second), func)) return it->second;
    }
    int& next = g_cache->next_suffix[name];
    std::string fresh = next == 0 ? name : name + std::to_string(next);
    while (mod->GetGlobalVar(fresh).defined()) fresh = name + std::to_string(++next);
    ++next;
    ir::GlobalVar gv = builder.AddFunction(func, fresh);
    g_cache->by_hash.emplace(hash, gv);
    return gv;
  }
  for (size_t i = 0; i < mod->functions.size(); ++i) {
    auto* f = mod->functions[i].as<tir::PrimFuncNode>();
    if (!f || !f->global_symbol().empty()) continue;
    if (ir::StructuralHash(mod->functions[i]) == hash &&
        ir::StructuralEqual(mod->functions[i], func)) {
      return mod->global_vars[i];
    }
  }
  std::string fresh = name;
  for (int i = 1; mod->GetGlobalVar(fresh).defined(); ++i) fresh = name + std::to_string(i);
  return builder.AddFunction(func, fresh);
}

}  // namespace wb::transform::legalize
