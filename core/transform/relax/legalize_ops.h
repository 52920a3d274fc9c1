// LegalizeOps (TVM's relax.transform.LegalizeOps): every call of a Relax operator that has a
// TensorIR lowering becomes a call_tir of a PrimFunc built with TE/topi and added to the module
// (named as TVM names them: "add", "add1", "matmul", "relu", ...). Calls of ops without a
// lowering, or whose operands' shapes are not known, stay as they are and are reported as
// warnings naming the op, with the call's span.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ir/transform.h"
#include "relax/block_builder.h"
#include "relax/expr.h"
#include "support/diagnostic.h"

namespace wb::transform {

// The call_tir replacing one op call (its PrimFunc is added to `builder`'s module), or nullopt
// when the op has no lowering (also for calls that are not op calls). Throws
// std::runtime_error when the op has a lowering that cannot handle this call; the message says
// why ("an operand's shape is not known").
std::optional<relax::Expr> LegalizeCall(relax::BlockBuilder& builder, const relax::Call& call);

// True when the Relax op `op_name` ("relax.add") has a lowering.
bool HasLegalization(std::string_view op_name);

// LegalizeOps applied to a whole module; warnings (calls left as they are) go to `warnings`
// when given.
ir::IRModule LegalizeModule(const ir::IRModule& module, DiagnosticList* warnings = nullptr);

// The pass. Warnings go to `warnings` when given, otherwise to stderr.
ir::Pass LegalizeOps(std::shared_ptr<DiagnosticList> warnings = nullptr);

}  // namespace wb::transform
