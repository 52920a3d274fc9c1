#include "transform/relax/annotate_tir_op_pattern.h"

#include "relax/analysis/tir_op_pattern_kind.h"
#include "tir/stmt.h"
#include "transform/registry.h"

namespace wb::transform {

ir::Pass AnnotateTIROpPattern() {
  auto fn = [](ir::IRModule module, const ir::PassContext&) {
    ir::IRModule out = module;
    for (size_t i = 0; i < module->functions.size(); ++i) {
      auto* func = module->functions[i].as<tir::PrimFuncNode>();
      if (!func || func->GetAttr("op_pattern")) continue;
      relax::OpPatternKind kind = relax::AnalyzeOpPatternKind(ir::GetRef(func));
      tir::PrimFunc annotated = ir::GetRef(func);
      annotated.CopyOnWrite()->attrs["op_pattern"] = ir::MakeInt(static_cast<int64_t>(kind));
      out.CopyOnWrite()->functions[i] = annotated;
    }
    return out;
  };
  return ir::CreateModulePass(fn, 0, "AnnotateTIROpPattern");
}

static PassRegistrar registrar(
    {"AnnotateTIROpPattern",
     "sets each PrimFunc's op_pattern attribute (elemwise, broadcast, injective, reduce, "
     "out-elemwise-fusable, opaque) from its TensorIR, for FuseOps",
     {},
     [](const PassArgs&) { return AnnotateTIROpPattern(); }});

}  // namespace wb::transform
