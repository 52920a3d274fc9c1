#include "transform/relax/call_tir_rewrite.h"

#include "relax/block_builder.h"
#include "relax/op/registry.h"
#include "tir/expr.h"
#include "transform/registry.h"
#include "transform/relax/expr_mutator.h"

namespace wb::transform {

namespace {

using namespace relax;

class CallTIRMutator : public RelaxExprMutator {
 public:
  explicit CallTIRMutator(ir::IRModule module) : module_(std::move(module)), builder_(module_) {}

  void VisitBindingBlock(const BindingBlock& block, std::vector<BindingBlock>* out) override {
    bool outer = in_dataflow_;
    in_dataflow_ = block.as<DataflowBlockNode>() != nullptr;
    RelaxExprMutator::VisitBindingBlock(block, out);
    in_dataflow_ = outer;
  }

  void VisitBinding(const Binding& binding, std::vector<Binding>* out) override {
    auto* vb = binding.as<VarBindingNode>();
    auto* call = vb ? vb->value.as<CallNode>() : nullptr;
    auto* op = call ? call->op.as<ir::OpNode>() : nullptr;
    if (!op || (op->name != "relax.call_tir" && op->name != "relax.call_tir_inplace" &&
                op->name != "relax.call_dps_packed")) {
      RelaxExprMutator::VisitBinding(binding, out);
      return;
    }
    Call c = Downcast<CallNode>(VisitCall(call));
    const Span& span = vb->span;
    bool inplace = op->name == "relax.call_tir_inplace";
    std::vector<int64_t> inplace_indices;
    if (inplace) inplace_indices = AttrInts(c, "inplace_indices");
    const Type& out_type = c->sinfo_args.at(0);
    std::vector<Type> out_types;
    if (auto* t = out_type.as<ir::TupleTypeNode>()) {
      out_types = t->fields;
    } else {
      out_types = {out_type};
    }
    std::vector<Expr> inputs;
    if (auto* t = c->args[1].as<TupleNode>()) {
      inputs = t->fields;
    } else {
      inputs = {c->args[1]};
    }
    std::vector<Expr> outs;
    std::vector<Expr> kernel_args = inputs;
    for (size_t i = 0; i < out_types.size(); ++i) {
      if (inplace && inplace_indices.at(i) >= 0) {
        outs.push_back(inputs.at(inplace_indices[i]));
        continue;
      }
      auto* tt = out_types[i].as<TensorTypeNode>();
      if (!tt || !tt->shape || tt->IsUnknownDtype()) {
        throw ir::PassError(Diagnostic::Error(
            "CallTIRRewrite: output " + std::to_string(i) + " of " + op->name +
                " has no known shape and dtype to allocate (" + TypeToString(out_types[i]) + ")",
            span));
      }
      Call alloc = MakeOpCall("relax.builtin.alloc_tensor",
                              {MakeShapeExpr(*tt->shape), MakeDataTypeImm(tt->dtype),
                               MakePrimValue(tir::MakeIntImm(DataType::Int(64), 0)),
                               MakeStringImm("global")},
                              {}, {}, span);
      Var v = Bind("alloc", alloc, span, out);
      outs.push_back(v);
      kernel_args.push_back(v);
    }
    if (c->args.size() > 2) {
      auto* tir_vars = c->args[2].as<ShapeExprNode>();
      if (!tir_vars) {
        throw ir::PassError(Diagnostic::Error("CallTIRRewrite: tir_vars must be R.shape([...])", span));
      }
      for (const auto& d : tir_vars->values) kernel_args.push_back(MakePrimValue(d));
    }
    Bind("_", MakeCall(c->args[0], std::move(kernel_args), {}, {}, span), span, out);
    Expr result = outs.size() == 1 ? outs[0] : builder_.Normalize(MakeTuple(outs, span));
    out->push_back(MakeVarBinding(vb->var, result, span));
  }

 private:
  Var Bind(const std::string& name, const Expr& value, const Span& span, std::vector<Binding>* out) {
    Expr typed = builder_.Normalize(value);
    if (builder_.diagnostics().HasErrors()) {
      throw ir::PassError(builder_.diagnostics()[0]);
    }
    Type t = GetType(typed);
    Var v = in_dataflow_ ? Var(MakeDataflowVar(name, t, span)) : MakeVar(name, t, span);
    out->push_back(MakeVarBinding(v, typed, span));
    return v;
  }

  ir::IRModule module_;
  BlockBuilder builder_;
  bool in_dataflow_ = false;
};

}  // namespace

ir::Pass CallTIRRewrite() {
  return ir::CreateModulePass(
      [](ir::IRModule module, const ir::PassContext&) {
        return MapRelaxFunctions(module, [&](const Function& f, const ir::GlobalVar&) {
          return Downcast<FunctionNode>(CallTIRMutator(module).VisitExpr(f));
        });
      },
      0, "CallTIRRewrite");
}

static PassRegistrar registrar(
    {"CallTIRRewrite",
     "allocates call_tir outputs explicitly and calls the kernel on them (Relax)",
     {},
     [](const PassArgs&) { return CallTIRRewrite(); }});

}  // namespace wb::transform
