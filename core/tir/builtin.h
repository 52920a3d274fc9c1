// The registry of TensorIR's builtin operators (`tirx.exp`, `tirx.if_then_else`, ...): each op's
// name, the name TVMScript prints (`T.exp`), its arity and how its result type is derived.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/expr.h"

namespace wb::tir {

enum class OpResultType : uint8_t {
  kSameAsFirstArg,  // exp(x): dtype of x
  kBool,            // isnan(x)
  kExplicit,        // the dtype is the op's first script argument: call_extern("int32", ...)
  kExplicitLast,    // tvm_struct_get(h, 0, 1, "handle")
  kSecondArg,       // if_then_else(c, a, b): dtype of a
  kValueArg,        // tvm_warp_shuffle(mask, value, ...): dtype of the second argument alone
  kInt32,
  kUInt32,
  kHandle,
  kVoid,
};

struct OpInfo {
  ir::Op op;
  std::string name;         // "tirx.exp"
  std::string script_name;  // "exp" (printed as T.exp)
  int num_inputs = -1;      // -1: variadic
  OpResultType result = OpResultType::kSameAsFirstArg;
  bool pure = true;
  std::string doc;
};

// Looks up an op by registered name ("tirx.exp") or by its script name ("exp", "call_packed").
// Null when unknown.
const OpInfo* FindOp(std::string_view name);
const OpInfo* FindOpByScriptName(std::string_view script_name);
const OpInfo* InfoOf(const ir::Op& op);
// The op with this registered name; throws std::logic_error when unknown (a core bug).
ir::Op GetOp(std::string_view name);
const std::vector<const OpInfo*>& AllOps();

}  // namespace wb::tir
