// Shape and layout manipulation (TVM's topi/transform.h): reshape, transpose (permute_dims),
// expand_dims, squeeze, flatten, concatenate, split, strided_slice and take, each one
// injective stage with TVM's stage name ("T_reshape", "T_transpose", "T_concat", ...).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "te/tensor.h"

namespace wb::topi {

using ir::PrimExpr;
using te::Tensor;

// Row-major reinterpretation with the same element count.
Tensor reshape(const Tensor& x, const std::vector<PrimExpr>& new_shape);
// Output dim i is input dim axes[i]; nullopt reverses the dims.
Tensor transpose(const Tensor& x, const std::optional<std::vector<int64_t>>& axes);
// Unit dims inserted so that they sit at `axes` of the result ("expand_dims", axes i0, ...).
Tensor expand_dims(const Tensor& x, const std::vector<int64_t>& axes);
// Unit dims at `axes` removed (nullopt: every unit dim).
Tensor squeeze(const Tensor& x, const std::optional<std::vector<int64_t>>& axes);
// All dims flattened into one (relax.flatten).
Tensor flatten(const Tensor& x);
Tensor concatenate(const std::vector<Tensor>& xs, int64_t axis);
// Equal sections, or pieces cut before each of `indices`.
std::vector<Tensor> split_sections(const Tensor& x, int64_t sections, int64_t axis);
std::vector<Tensor> split_indices(const Tensor& x, const std::vector<int64_t>& indices,
                                  int64_t axis);
// numpy slicing x[begin:end:stride] on `axes`; begin/end are clamped as numpy does.
Tensor strided_slice(const Tensor& x, const std::vector<int64_t>& axes,
                     const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                     const std::vector<int64_t>& strides);
// Elements of x at `indices` along `axis` (nullopt: of the flattened x). TVM's modes: "fast"
// reads the indices as they are, "clip" clamps them into [0, extent), "wrap" takes them modulo
// the extent (so -1 is the last element).
// A slice whose begin, end and strides (1-D int64 tensors, one value per axis) are known only when
// it runs. Each begin and end is canonicalized as Python slices do (a negative one counts from
// the end, then clamped into range: [0, extent] for a positive stride, [-1, extent - 1] for a
// negative one). shape_func_dynamic_strided_slice gives the result's shape as an int64 tensor
// ("T_shape_func_strided_slice_dynamic": per axis max(0, ceildiv(end - begin, stride))), which the
// caller turns into the symbolic `output_shape` of dynamic_strided_slice
// ("T_dynamic_strided_slice").
Tensor shape_func_dynamic_strided_slice(const Tensor& x, const Tensor& begin, const Tensor& end,
                                        const Tensor& strides);
Tensor dynamic_strided_slice(const Tensor& x, const Tensor& begin, const Tensor& end, const Tensor& strides,
                             const std::vector<PrimExpr>& output_shape);
// on_value where indices[i without axis] equals i[axis], off_value elsewhere; the new axis
// `axis` has extent `depth` ("T_one_hot").
Tensor one_hot(const Tensor& indices, const PrimExpr& on_value, const PrimExpr& off_value, int64_t depth,
               int64_t axis);
Tensor take(const Tensor& x, const Tensor& indices, std::optional<int64_t> axis,
            const std::string& mode = "fast");
// take of one scalar index (a Relax R.Prim): the axis is dropped.
Tensor take(const Tensor& x, const PrimExpr& index, std::optional<int64_t> axis, const std::string& mode);
// The elements in reverse order along `axis` ("T_reverse_sequence", as TVM's topi.flip).
Tensor flip(const Tensor& x, int64_t axis);
// Along seq_axis, the first seq_lengths[b] elements of batch b (on batch_axis) reversed, the rest
// kept; lengths past the axis reverse all of it ("T_reverse_sequence", TVM's formula).
Tensor reverse_sequence(const Tensor& x, const Tensor& seq_lengths, int64_t seq_axis,
                        int64_t batch_axis);
// The upper (col - row >= k) or lower (col - row <= k) triangle of the last two axes, zero
// elsewhere ("trilu", as TVM's topi.trilu); k may be symbolic.
Tensor trilu(const Tensor& x, PrimExpr k, bool upper);
// out[i] = x[i with the axis coordinate replaced by indices[i]] (ONNX GatherElements); the
// output has the indices' shape; negative indices count from the end ("T_gather_elements").
Tensor gather_elements(const Tensor& x, const Tensor& indices, int64_t axis);
// ONNX GatherND with batch_dims 0: the last axis of `indices` holds coordinates into x's first
// axes; the output is indices.shape[:-1] + x.shape[K:] ("T_gather_nd").
Tensor gather_nd(const Tensor& x, const Tensor& indices);
// ONNX ScatterElements: data with updates[q] combined into position q with q[axis] =
// indices[q] (negative indices count from the end); reduction update (the last update wins),
// add, mul, max or min. Computed in gather form, a reduction over the indices' axis per output
// element ("T_scatter_elements").
Tensor scatter_elements(const Tensor& x, const Tensor& indices, const Tensor& updates, int64_t axis,
                        const std::string& reduction);
// ONNX ScatterND: indices' last axis (K) holds coordinates into x's first K axes, updates has
// shape indices.shape[:-1] + x.shape[K:]; the reductions as scatter_elements. A reduction over
// all the indices' positions per output element ("T_scatter_nd").
Tensor scatter_nd(const Tensor& x, const Tensor& indices, const Tensor& updates, const std::string& reduction);
// numpy's repeat along `axis`: out[..., i, ...] = x[..., i // repeats, ...] ("T_repeat").
Tensor repeat(const Tensor& x, int64_t repeats, int64_t axis);
// numpy's tile: `repeats` copies along each axis, ranks aligned from the right ("T_tile").
Tensor tile(const Tensor& x, const std::vector<int64_t>& repeats);

// Sorting along `axis`, stable (equal elements keep their order), by ranks: each element's
// rank counts the elements that come before it ("T_sort_rank", quadratic in the axis length),
// and output position k gathers the element of rank k. sort gives the values, argsort their
// int positions in `dtype`; topk the first k of the descending (largest) or ascending order,
// values and indices.
Tensor sort(const Tensor& x, int64_t axis, bool descending);
Tensor argsort(const Tensor& x, int64_t axis, bool descending, ir::DataType dtype);
std::vector<Tensor> topk(const Tensor& x, int64_t k, int64_t axis, bool largest, ir::DataType dtype);

// The length of numpy's slice begin:end:stride of a dim of `extent`.
int64_t SliceLength(int64_t extent, int64_t begin, int64_t end, int64_t stride, int64_t* start);

}  // namespace wb::topi
