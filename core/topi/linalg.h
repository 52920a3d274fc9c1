// matmul with numpy semantics (TVM's Relax legalization of relax.matmul): the last two dims
// multiply, leading (batch) dims broadcast, a 1-D operand is a row (first) or column (second)
// vector whose unit dim is dropped from the result. One reduction stage "matmul" over axes
// i0, i1, ... and the reduction axis k.
#pragma once

#include <string>
#include <vector>

#include "te/tensor.h"

namespace wb::topi {

using te::Tensor;

// `out_dtype` Void: the operands' dtype; otherwise both operands are cast to it before the
// product.
Tensor matmul(const Tensor& a, const Tensor& b, ir::DataType out_dtype = ir::DataType::Void());
// numpy's einsum without ellipsis: the output's labels index the result, the other labels are
// summed over; the product of the operands at each point ("T_einsum").
Tensor einsum(const std::string& subscripts, const std::vector<Tensor>& operands);

}  // namespace wb::topi
