#include "transform/relax/fold_constant.h"

#include "relax/interpreter.h"
#include "relax/op/registry.h"
#include "tir/expr.h"
#include "transform/registry.h"
#include "transform/relax/expr_mutator.h"
#include "transform/relax/semantic_check.h"

namespace wb::transform {

namespace {

using namespace relax;

constexpr int64_t kMaxFoldedElements = int64_t{1} << 20;

bool IsConstLiteral(const Expr& e) {
  if (e.as<ConstantNode>() || e.as<StringImmNode>() || e.as<DataTypeImmNode>()) return true;
  if (auto* p = e.as<PrimValueNode>()) {
    return p->value.as<tir::IntImmNode>() || p->value.as<tir::FloatImmNode>();
  }
  if (auto* s = e.as<ShapeExprNode>()) {
    for (const auto& d : s->values) {
      if (!d.as<tir::IntImmNode>()) return false;
    }
    return true;
  }
  if (auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields) {
      if (!IsConstLiteral(f)) return false;
    }
    return true;
  }
  return false;
}

bool HasTensorConstant(const Expr& e) {
  if (e.as<ConstantNode>()) return true;
  if (auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields) {
      if (HasTensorConstant(f)) return true;
    }
  }
  return false;
}

// The static element count of a tensor type, or -1.
int64_t StaticElements(const Type& type) {
  auto* t = type.defined() ? type.as<TensorTypeNode>() : nullptr;
  if (!t || !t->shape || t->IsUnknownDtype()) return -1;
  int64_t n = 1;
  for (const auto& d : *t->shape) {
    auto* imm = d.as<tir::IntImmNode>();
    if (!imm) return -1;
    n *= imm->value;
  }
  return n;
}

class ConstantFolder : public RelaxExprMutator {
 public:
  explicit ConstantFolder(ir::IRModule module) : module_(std::move(module)) {}

  Expr VisitCall(const CallNode* call) override {
    // Uses of folded vars read the constant, so that the next call can fold too.
    std::vector<Expr> args;
    bool changed = false;
    for (const Expr& a : call->args) {
      args.push_back(Substitute(a));
      changed |= !args.back().same_as(a);
    }
    Call c = GetRef(call);
    if (changed) c.CopyOnWrite()->args = std::move(args);
    if (std::optional<Constant> folded = TryFold(c)) return *folded;
    return c;
  }

  void VisitBinding(const Binding& binding, std::vector<Binding>* out) override {
    RelaxExprMutator::VisitBinding(binding, out);
    if (auto* vb = out->back().as<VarBindingNode>(); vb && vb->value.as<ConstantNode>()) {
      constants_[vb->var.get()] = vb->value;
    }
  }

 private:
  Expr Substitute(const Expr& e) {
    if (auto* v = e.as<VarNode>()) {
      auto it = constants_.find(v);
      if (it != constants_.end()) return it->second;
      return VisitExpr(e);
    }
    if (auto* t = e.as<TupleNode>()) {
      std::vector<Expr> fields;
      bool changed = false;
      for (const Expr& f : t->fields) {
        fields.push_back(Substitute(f));
        changed |= !fields.back().same_as(f);
      }
      if (!changed) return e;
      Tuple out = GetRef(t);
      out.CopyOnWrite()->fields = std::move(fields);
      return out;
    }
    return VisitExpr(e);
  }

  std::optional<Constant> TryFold(const Call& call) {
    if (auto* op = call->op.as<ir::OpNode>()) {
      const OpInfo* info = InfoOf(GetRef(op));
      if (!info || !info->pure) return std::nullopt;
      if (op->name == "relax.call_tir_inplace" || op->name == "relax.call_dps_packed" ||
          op->name.rfind("relax.memory.", 0) == 0 || op->name.rfind("relax.builtin.", 0) == 0) {
        return std::nullopt;
      }
      size_t first = op->name == "relax.call_tir" ? 1 : 0;
      bool any_tensor = false;
      for (size_t i = first; i < call->args.size(); ++i) {
        if (!IsConstLiteral(call->args[i])) return std::nullopt;
        any_tensor |= HasTensorConstant(call->args[i]);
      }
      if (!any_tensor) return std::nullopt;
    } else {
      return std::nullopt;  // calls of functions are not folded
    }
    Type type = GetType(call);
    int64_t elements = StaticElements(type);
    if (elements < 0 || elements > kMaxFoldedElements) return std::nullopt;
    auto* tt = type.as<TensorTypeNode>();
    // Evaluate `call` as the body of a parameterless function added to the module.
    ir::GlobalVar gv = ir::MakeGlobalVar("__fold_constant__");
    Function f = MakeFunction({}, MakeSeqExpr({}, call), type);
    ir::IRModule scratch = ir::WithFunction(module_, gv, f);
    RelaxInterpretResult r = InterpretRelax(scratch, gv->name_hint, {}, InterpreterOptions());
    if (!r.ok() || r.value.kind != Value::Kind::kTensor) return std::nullopt;
    std::string bytes(r.value.tensor.CompactBytes(), '\0');
    if (!r.value.tensor.CopyToBytes(bytes.data(), bytes.size())) return std::nullopt;
    return MakeConstant(tt->dtype, r.value.tensor.shape(), std::move(bytes), call->span);
  }

  ir::IRModule module_;
  std::unordered_map<const VarNode*, Expr> constants_;
};

}  // namespace

ir::Pass FoldConstant() {
  return ir::CreateModulePass(
      [](ir::IRModule module, const ir::PassContext&) {
        return MapRelaxFunctions(module, [&](const Function& f, const ir::GlobalVar&) {
          return Downcast<FunctionNode>(ConstantFolder(module).VisitExpr(f));
        });
      },
      0, "FoldConstant");
}

static PassRegistrar registrar({"FoldConstant",
                                "evaluates calls on constant inputs at compile time (Relax)",
                                {},
                                [](const PassArgs&) { return FoldConstant(); }});

}  // namespace wb::transform
