// Short TVMScript-like text for expressions and regions (`A[vi, 0:16]`, `(i * 8 + j)`), for
// messages, hovers and outlines. Not the canonical printer: it never fails and needs no
// enclosing function, at the price of less exact parenthesization.
#pragma once

#include <string>

#include "tir/stmt.h"

namespace wb::tir {

std::string ExprText(const PrimExpr& expr);
std::string RegionText(const BufferRegion& region);

}  // namespace wb::tir
