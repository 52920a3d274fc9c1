#include "transform/relax/legalize_ops.h"

#include <iostream>
#include <stdexcept>

#include "relax/op/registry.h"
#include "transform/registry.h"
#include "ir/structural_equal.h"
#include "transform/relax/expr_mutator.h"
#include "transform/relax/legalize/common.h"
#include "transform/relax/normalize.h"

namespace wb::transform {

namespace {

using legalize::LegalizeTable;
using relax::Expr;

// Built on first use, not from static initializers: the op registry (filled by other files'
// static initializers) is complete by then.
const LegalizeTable& Table() {
  static const LegalizeTable table = [] {
    LegalizeTable t;
    legalize::RegisterBinary(t);
    legalize::RegisterUnary(t);
    legalize::RegisterLinalg(t);
    legalize::RegisterNN(t);
    legalize::RegisterManipulate(t);
    legalize::RegisterReduce(t);
    legalize::RegisterCreate(t);
    legalize::RegisterImage(t);
    legalize::RegisterCCL(t);
    return t;
  }();
  return table;
}

// Ops that other passes lower (call_tir itself, the memory builtins) or that the VM calls as they
// are (call_pure_packed, and the ops with a runtime function: print, assert_op, nonzero): not
// LegalizeOps' business, so leaving them is not worth a warning.
bool LoweredElsewhere(std::string_view name) {
  if (const relax::OpInfo* info = relax::FindOp(name); info && !info->call_packed.empty()) return true;
  // The calls and the runtime's builtins that later passes lower (alloc_tensor and the like
  // appear when an already built module is built again, e.g. `--pipeline
  // default_build_pipeline --run`): no kernels, and nothing to warn about.
  return name == "relax.call_tir" || name == "relax.call_tir_inplace" ||
         name == "relax.call_dps_packed" || name == "relax.call_pure_packed" ||
         name.rfind("relax.memory.", 0) == 0 ||
         name.rfind("relax.builtin.", 0) == 0 || name.rfind("relax.vm.", 0) == 0;
}

class Legalizer {
 public:
  Legalizer(relax::BlockBuilder& builder, DiagnosticList* warnings)
      : builder_(builder), warnings_(warnings) {}

  relax::Function VisitFunction(const relax::FunctionNode* f) {
    Expr body = VisitExpr(f->body);
    if (body.same_as(f->body)) return ir::GetRef(f);
    // TVM's rule for a rewritten function: the declared return type stays while it is at least
    // as precise as the new body's (a legalized body may know less); otherwise the body's type
    // replaces it (a declared `ndim=4` becomes the body's `(2, 3, 16, 32)`).
    relax::Type ret = f->ret_struct_info;
    relax::Type body_type = relax::GetType(body);
    if (ret.defined() && body_type.defined() && !relax::IsBaseOf(body_type, ret)) ret = relax::Type();
    return relax::MakeFunction(f->params, body, ret, f->is_pure, f->attrs, f->span);
  }

 private:
  Expr VisitExpr(const Expr& e) {
    if (auto* seq = e.as<relax::SeqExprNode>()) return VisitSeq(seq);
    if (auto* f = e.as<relax::FunctionNode>()) return VisitFunction(f);
    if (auto* i = e.as<relax::IfNode>()) {
      Expr t = VisitExpr(i->true_branch), f = VisitExpr(i->false_branch);
      if (t.same_as(i->true_branch) && f.same_as(i->false_branch)) return e;
      return relax::WithType(relax::MakeIf(i->cond, t, f, i->span), i->struct_info);
    }
    if (auto* call = e.as<relax::CallNode>()) return VisitCall(ir::GetRef(call));
    return e;
  }

  Expr VisitSeq(const relax::SeqExprNode* seq) {
    bool changed = false;
    std::vector<relax::BindingBlock> blocks;
    for (const relax::BindingBlock& block : seq->blocks) {
      std::vector<relax::Binding> bindings;
      for (const relax::Binding& b : block->bindings) {
        auto* vb = b.as<relax::VarBindingNode>();
        if (!vb) {
          Expr value = remap_.VisitExpr(b.as<relax::MatchCastNode>()->value);
          if (value.same_as(b.as<relax::MatchCastNode>()->value)) {
            bindings.push_back(b);
          } else {
            auto* mc = b.as<relax::MatchCastNode>();
            changed = true;
            bindings.push_back(relax::MakeMatchCast(mc->var, value, mc->struct_info, mc->span));
          }
          continue;
        }
        Expr value = VisitExpr(remap_.VisitExpr(vb->value));
        if (value.same_as(vb->value)) {
          bindings.push_back(b);
          continue;
        }
        changed = true;
        if (auto* steps = value.as<relax::SeqExprNode>(); steps && !vb->value.as<relax::SeqExprNode>()) {
          // A legalization that needs bindings of its own (a shape computed before the kernel):
          // they go before the call's binding, which takes the result.
          for (const relax::BindingBlock& inner : steps->blocks) {
            bindings.insert(bindings.end(), inner->bindings.begin(), inner->bindings.end());
          }
          value = steps->body;
        }
        bindings.push_back(relax::MakeVarBinding(Retyped(vb->var, value), value, vb->span));
      }
      if (ir::IsInstance<relax::DataflowBlockNode>(block.get())) {
        blocks.push_back(relax::MakeDataflowBlock(std::move(bindings), block->span));
      } else {
        blocks.push_back(relax::MakeBindingBlock(std::move(bindings), block->span));
      }
    }
    Expr body = VisitExpr(remap_.VisitExpr(seq->body));
    if (!changed && body.same_as(seq->body)) return ir::GetRef(seq);
    // The result may now be a var of a more precise type (see Retyped).
    relax::Type type = body.same_as(seq->body) ? seq->struct_info : relax::GetType(body);
    return relax::WithType(relax::MakeSeqExpr(std::move(blocks), body, seq->span),
                           type.defined() ? type : seq->struct_info);
  }

  // TVM's ExprMutator re-emits a rewritten binding with the new value's type: the var of
  // `gv: R.Tensor((n, f, w - kw + 1)) = R.nn.conv1d(...)` takes the kernel's out_ty
  // `(n, f, w + 1 - kw)`, and later uses read the new var.
  relax::Var Retyped(const relax::Var& var, const Expr& value) {
    relax::Type type = relax::GetType(value);
    if (!type.defined() || !var->struct_info.defined() || ir::StructuralEqual(type, var->struct_info)) return var;
    relax::Var fresh = ir::IsInstance<relax::DataflowVarNode>(var.get())
                           ? relax::Var(relax::MakeDataflowVar(var->name_hint, type, var->span))
                           : relax::MakeVar(var->name_hint, type, var->span);
    remap_.Map(var, fresh);
    return fresh;
  }

  Expr VisitCall(const relax::Call& call) {
    auto* op = call->op.as<ir::OpNode>();
    if (!op) return call;
    const relax::OpInfo* info = relax::InfoOf(ir::GetRef(op));
    std::string name = info ? info->name : op->name;
    if (LoweredElsewhere(name)) return call;
    try {
      std::optional<Expr> out = LegalizeCall(builder_, call);
      if (out) return *out;
      Warn("LegalizeOps: " + name + " has no TensorIR lowering; the call is left as it is",
           call->span);
    } catch (const std::exception& e) {
      Warn("LegalizeOps: cannot legalize " + name + ": " + e.what() + "; the call is left as it is",
           call->span);
    }
    return call;
  }

  void Warn(std::string message, const Span& span) {
    if (warnings_) warnings_->Add(Diagnostic::Warning(std::move(message), span));
  }

  // Uses of a retyped var read its replacement.
  class VarRemap : public RelaxExprMutator {
   public:
    void Map(const relax::Var& from, const relax::Var& to) { var_remap_[from.get()] = to; }
    Expr VisitExpr(const Expr& e) override { return var_remap_.empty() ? e : RelaxExprMutator::VisitExpr(e); }
  };

  relax::BlockBuilder& builder_;
  DiagnosticList* warnings_;
  VarRemap remap_;
};

}  // namespace

std::optional<relax::Expr> LegalizeCall(relax::BlockBuilder& builder, const relax::Call& call) {
  auto* op = call->op.as<ir::OpNode>();
  if (!op) return std::nullopt;
  const relax::OpInfo* info = relax::InfoOf(ir::GetRef(op));
  if (!info) return std::nullopt;
  const LegalizeTable& table = Table();
  auto it = table.find(info->name);
  if (it != table.end()) {
    try {
      return it->second(builder, call);
    } catch (const std::invalid_argument& e) {
      // topi's argument checks: reported like every other call that cannot be legalized.
      throw legalize::LegalizeError(e.what());
    }
  }
  if (info->legalize) return info->legalize(builder, call);
  return std::nullopt;
}

bool HasLegalization(std::string_view op_name) {
  if (Table().count(op_name)) return true;
  const relax::OpInfo* info = relax::FindOp(op_name);
  return info && info->legalize;
}

ir::IRModule LegalizeModule(const ir::IRModule& input, DiagnosticList* warnings) {
  // The legalizations read their operands' types from vars: a call nested in a call (which TVM's
  // parser never leaves, and a module written here may have) is bound as its own binding first.
  ir::IRModule module = Normalize()(input);
  relax::BlockBuilder builder(module);
  legalize::PrimFuncCacheScope cache(builder);
  Legalizer legalizer(builder, warnings);
  std::vector<std::pair<ir::GlobalVar, relax::Function>> rewritten;
  for (size_t i = 0; i < module->functions.size(); ++i) {
    auto* f = module->functions[i].as<relax::FunctionNode>();
    if (!f) continue;
    relax::Function g = legalizer.VisitFunction(f);
    if (!g.same_as(module->functions[i])) rewritten.emplace_back(module->global_vars[i], g);
  }
  ir::IRModule out = builder.GetModule();
  for (const auto& [gv, f] : rewritten) out = ir::WithFunction(out, gv, f);
  return out;
}

ir::Pass LegalizeOps(std::shared_ptr<DiagnosticList> warnings) {
  return ir::CreateModulePass(
      [warnings](ir::IRModule module, const ir::PassContext&) {
        DiagnosticList local;
        ir::IRModule out = LegalizeModule(module, warnings ? warnings.get() : &local);
        for (const Diagnostic& d : local) std::cerr << RenderDiagnostic(d) << "\n";
        return out;
      },
      0, "LegalizeOps");
}

static PassRegistrar registrar(
    {"LegalizeOps",
     "lowers Relax operator calls to call_tir of PrimFuncs built with TE/topi",
     {},
     [](const PassArgs&) { return LegalizeOps(); }});

}  // namespace wb::transform
