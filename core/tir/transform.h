// PrimFunc passes: a pass that rewrites each PrimFunc of a module on its own.
#pragma once

#include "ir/transform.h"
#include "tir/stmt.h"

namespace wb::tir {

using PrimFuncPassFunction =
    std::function<PrimFunc(PrimFunc, const ir::IRModule&, const ir::PassContext&)>;

// Applies `fn` to every PrimFunc of the module; other functions are left alone. A function the
// pass returns unchanged (the same object) keeps its identity, so instruments see "unchanged".
ir::Pass CreatePrimFuncPass(PrimFuncPassFunction fn, int opt_level, std::string name,
                            std::vector<std::string> required = {});

// The common case: a pass that rewrites each PrimFunc's body and nothing else. A body that
// comes back unchanged keeps its function (and so the module) the same object.
using BodyRewrite = std::function<Stmt(const Stmt&)>;
ir::Pass CreateBodyRewritePass(BodyRewrite rewrite, int opt_level, std::string name,
                               std::vector<std::string> required = {});

}  // namespace wb::tir
