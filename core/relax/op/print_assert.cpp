// The ops that talk to the user at run time: relax.print (its first argument the Python-style
// format string as an R.str, then the values) and relax.assert_op (the condition, the format
// string, then the values the message shows). Both are impure and return nothing (an empty
// tuple); the interpreter and the VM (relax.run.print, relax.run.assert_op) carry them out.
#include "relax/op/op_common.h"

namespace wb::relax {
namespace {

using namespace op_common;

void CheckFormat(const Call& call, size_t i) {
  if (i >= call->args.size() || !call->args[i].as<StringImmNode>()) {
    throw TypeError("the " + Ordinal(i) + " argument must be the format string (an R.str)");
  }
}

OpInfo Print() {
  OpDef def;
  def.name = "relax.print";
  def.args = {"vals"};
  def.variadic = true;
  def.pure = false;
  def.call_packed = "relax.run.print";
  def.infer = [](const Call& call, const std::vector<Type>&) -> Type {
    CheckFormat(call, 0);
    return ir::MakeTupleType({});
  };
  return Define(std::move(def));
}

// The condition is a boolean scalar: an R.Prim("bool"), or a 0-d bool tensor; a tensor whose
// rank or dtype is unknown is checked when it runs (as TVM's IsBoolType permits).
OpInfo AssertOp() {
  OpDef def;
  def.name = "relax.assert_op";
  def.args = {"vals"};
  def.variadic = true;
  def.pure = false;
  def.call_packed = "relax.run.assert_op";
  def.infer = [](const Call& call, const std::vector<Type>& types) -> Type {
    if (types.empty()) throw TypeError("the condition is missing");
    const Type& cond = types[0];
    bool ok = false;
    if (auto* p = cond.as<PrimTypeNode>()) ok = p->dtype.is_bool();
    if (auto* t = cond.as<TensorTypeNode>()) {
      ok = (t->IsUnknownDtype() || t->dtype.is_bool()) && (t->IsUnknownNdim() || t->ndim == 0);
    }
    if (!ok) throw TypeError("the condition must be a boolean scalar, got " + TypeToString(cond));
    CheckFormat(call, 1);
    return ir::MakeTupleType({});
  };
  return Define(std::move(def));
}

const OpRegistrar kOps[] = {
    OpRegistrar(Print()),
    OpRegistrar(AssertOp()),
};

}  // namespace
}  // namespace wb::relax
