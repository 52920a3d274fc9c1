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
// `def main(A: T.Buffer(...), n: T.int32)`.
std::string SignatureText(const std::string& name, const tir::PrimFuncNode* func);

}  // namespace wb::lang
