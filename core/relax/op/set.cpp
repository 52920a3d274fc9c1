// Set ops (TVM's relax/op/tensor/set): relax.nonzero, the coordinates of the non-zero elements as
// an int64 (ndim, count) tensor. The count is known only when it runs, so its type has rank 2 and
// no shape (a front end match_casts it to a symbolic one), and it runs as the runtime function
// relax.run.nonzero (runtime/nonzero.h) rather than a kernel.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

OpInfo NonZero() {
  OpDef def;
  def.name = "relax.nonzero";
  def.args = {"x"};
  def.pattern = OpPatternKind::kOpaque;
  def.call_packed = "relax.run.nonzero";
  def.infer = [](const Call&, const std::vector<Type>& types) -> Type {
    const TensorTypeNode* x = TensorArg(types, 0, "the input");
    return WithVDevice(MakeTensorType(DataType::Int(64), 2), x->vdevice);
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {OpRegistrar(NonZero())};

}  // namespace
}  // namespace wb::relax
