// Tensor intrinsics (TVM's tirx.TensorIntrin): what tensorize replaces a block's computation by.
// An intrinsic is a pair of PrimFuncs over the same buffer parameters: the description (the
// computation, as loops and one block the workload must match structurally) and the
// implementation (what runs instead: vector code, an LLVM intrinsic call, an external call).
// Both are written in TVMScript; their parameters are the buffer views tensorize binds to the
// matched regions with T.match_buffer.
//
// The registry is global and keyed by name, as TVM's. The built-in intrinsics (x86 vector FMA
// and VNNI dot products: schedule/tensor_intrin_x86.cpp) register themselves with a
// TensorIntrinRegistrar; users register theirs with RegisterTensorIntrin.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tir/stmt.h"

namespace wb::schedule {

struct TensorIntrin {
  tir::PrimFunc desc;
  tir::PrimFunc impl;
};

// Registers `name`. Throws std::invalid_argument (TVM's ValueError) when the name is taken by
// another pair and `override` is off (registering a structurally equal pair again is a no-op, so
// a recipe replayed registers its intrinsics each time), when the two functions have different
// numbers of parameters or a parameter that is not a buffer handle, or when a body is not one
// block (TVM's "root" block, whose T.reads/T.writes are the regions the parameters cover).
void RegisterTensorIntrin(const std::string& name, tir::PrimFunc desc, tir::PrimFunc impl,
                          bool override = false);
// The same from TVMScript: each text holds one `@T.prim_func`. A text that does not parse is
// std::invalid_argument with the first diagnostic and its line.
void RegisterTensorIntrin(const std::string& name, std::string_view desc_script,
                          std::string_view impl_script, bool override = false);

// The intrinsic, or nullopt when none has that name.
std::optional<TensorIntrin> FindTensorIntrin(const std::string& name);
// The intrinsic; std::invalid_argument "TensorIntrin 'x' is not registered" naming the
// registered ones when there is none.
TensorIntrin GetTensorIntrin(const std::string& name);
// Every registered name, sorted.
std::vector<std::string> TensorIntrinNames();

// Registers a built-in intrinsic from TVMScript the first time the registry is used (static
// initialisation must not run the parser); one that does not register is a programming error
// and aborts with the reason.
struct TensorIntrinRegistrar {
  TensorIntrinRegistrar(std::string name, std::string desc_script, std::string impl_script);
};

}  // namespace wb::schedule
