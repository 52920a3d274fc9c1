#include "tir/transform.h"

namespace wb::tir {

ir::Pass CreatePrimFuncPass(PrimFuncPassFunction fn, int opt_level, std::string name,
                            std::vector<std::string> required) {
  auto run = [fn = std::move(fn)](ir::IRModule module, const ir::PassContext& context) {
    std::vector<ir::BaseFunc> funcs = module->functions;
    bool changed = false;
    for (auto& func : funcs) {
      if (auto prim = func.as_ref<PrimFuncNode>(); prim.defined()) {
        PrimFunc updated = fn(prim, module, context);
        if (!updated.same_as(prim)) {
          func = updated;
          changed = true;
        }
      }
    }
    if (!changed) return module;
    return ir::WithFunctions(module, module->global_vars, std::move(funcs));
  };
  return ir::CreateModulePass(std::move(run), opt_level, std::move(name), std::move(required));
}

ir::Pass CreateBodyRewritePass(BodyRewrite rewrite, int opt_level, std::string name,
                               std::vector<std::string> required) {
  return CreatePrimFuncPass(
      [rewrite = std::move(rewrite)](PrimFunc f, const ir::IRModule&, const ir::PassContext&) {
        Stmt body = rewrite(f->body);
        if (body.same_as(f->body)) return f;
        PrimFunc copy = f;
        copy.CopyOnWrite()->body = body;
        return copy;
      },
      opt_level, std::move(name), std::move(required));
}

}  // namespace wb::tir
