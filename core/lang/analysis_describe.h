// Short TVMScript-like text for IR pieces shown in hovers, outlines and completion details
// (`T.Buffer((n, 64), "float32")`, `A[vi, 0:16]`). Not the canonical printer: it never fails
// and never needs a whole function, at the price of less exact parenthesization.
#pragma once

#include <string>

#include "tir/expr_text.h"
#include "tir/stmt.h"

namespace wb::lang {

using tir::ExprText;
using tir::RegionText;
// `T.Buffer((256, 256), "float32")`, with `scope="shared"` when not global.
std::string BufferText(const tir::Buffer& buffer);
// `def main(A: T.Buffer(...), n: T.int32)` for a PrimFunc,
// `def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor(...)` for a Relax function.
std::string SignatureText(const std::string& name, const ir::BaseFuncNode* func);
// The decorator of a function's kind: `@T.prim_func` or `@R.function`.
std::string DecoratorText(const ir::BaseFuncNode* func);
// "PrimFunc" or "Relax function".
std::string FunctionKindText(const ir::BaseFuncNode* func);

}  // namespace wb::lang
