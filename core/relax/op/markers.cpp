// Identity markers that only passes read. The gradient markers (relax.grad.no_grad,
// start_checkpoint, end_checkpoint) tell TVM's Gradient pass what not to differentiate and
// which stage to recompute in the backward graph instead of keeping its values; the checkpoint
// marks take a variable only, as TVM's inference requires. relax.builtin.stop_lift_params keeps
// LiftTransformParams from moving a tensor's computation out of the model. Each result is its
// argument's type.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

OpInfo Marker(const char* name, bool needs_var) {
  OpDef def;
  def.name = name;
  def.args = {"input"};
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [needs_var](const Call& call, const std::vector<Type>& types) -> Type {
    if (needs_var && !call->args[0].as<VarNode>()) throw TypeError("the argument must be a variable");
    return types[0];
  };
  return Define(std::move(def));
}

OpInfo StopLiftParams() {
  OpDef def;
  def.name = "relax.builtin.stop_lift_params";
  def.args = {"x"};
  def.pattern = OpPatternKind::kOpaque;
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    return GetRef(TensorArg(types, 0, "the argument"));
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(Marker("relax.grad.no_grad", false)),
    OpRegistrar(Marker("relax.grad.start_checkpoint", true)),
    OpRegistrar(Marker("relax.grad.end_checkpoint", true)),
    OpRegistrar(StopLiftParams()),
};

}  // namespace
}  // namespace wb::relax
