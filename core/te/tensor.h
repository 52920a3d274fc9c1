// The tensor expression language (TVM's te): tensors described by how each element is computed
// from other tensors, without saying in which order. `placeholder` declares an input,
// `compute` a stage whose element at (i, j, ...) is an expression of the indices, and the
// reducers (sum, max, min, prod over `reduce_axis` ranges) give reduction stages.
// create_prim_func (te/create_prim_func.h) turns a set of stages into a PrimFunc of T.sblocks.
//
// A stage's output stands for a tir::Buffer that the stage owns from its creation; reading a
// tensor `A(i, j)` is a BufferLoad of that buffer. create_prim_func keeps these buffers, so no
// ProducerLoad rewriting is needed, and reading a tensor is an ordinary TIR expression.
//
// Tensors are plain C++ values (shared, immutable once built), not IR nodes: they exist only
// while a PrimFunc is being built.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tir/stmt.h"

namespace wb::te {

using ir::AttrMap;
using ir::DataType;
using ir::PrimExpr;
using ir::Range;
using tir::IterVar;
using tir::Var;

class Tensor;

struct OperationNode {
  enum class Kind { kPlaceholder, kCompute };
  Kind kind = Kind::kPlaceholder;
  std::string name;
  std::string tag;
  AttrMap attrs;
  // compute: the spatial axes (one per output dim) and the reduction axes of the body.
  std::vector<IterVar> axis;
  std::vector<IterVar> reduce_axis;
  // compute: one body per output; several only for a multi-value reduction (argmax).
  std::vector<PrimExpr> body;
  // The tensors the bodies read, in order of first use.
  std::vector<Tensor> inputs;
  // One buffer per output (placeholder: one).
  std::vector<tir::Buffer> outputs;
};
using Operation = std::shared_ptr<const OperationNode>;

class Tensor {
 public:
  Tensor() = default;
  Tensor(Operation op, size_t value_index) : op_(std::move(op)), value_index_(value_index) {}

  bool defined() const { return op_ != nullptr; }
  const Operation& op() const { return op_; }
  size_t value_index() const { return value_index_; }
  const tir::Buffer& buffer() const { return op_->outputs[value_index_]; }
  const std::vector<PrimExpr>& shape() const { return buffer()->shape; }
  size_t ndim() const { return shape().size(); }
  DataType dtype() const { return buffer()->dtype; }
  const std::string& name() const { return buffer()->name; }

  // The element at `indices` (one per dim): a read of this tensor inside a compute body.
  PrimExpr operator()(std::vector<PrimExpr> indices) const;
  PrimExpr operator()(const std::vector<Var>& indices) const;
  template <typename... I>
  PrimExpr operator()(const PrimExpr& first, const I&... rest) const {
    return (*this)(std::vector<PrimExpr>{first, PrimExpr(rest)...});
  }

  bool same_as(const Tensor& other) const {
    return op_ == other.op_ && value_index_ == other.value_index_;
  }

 private:
  Operation op_;
  size_t value_index_ = 0;
};

// An input tensor.
Tensor placeholder(std::vector<PrimExpr> shape, DataType dtype = DataType::Float(32),
                   std::string name = "placeholder");

using FCompute = std::function<PrimExpr(const std::vector<Var>& indices)>;
using FBatchCompute = std::function<std::vector<PrimExpr>(const std::vector<Var>& indices)>;

// A stage: element `indices` of the result is `fcompute(indices)`. The index vars are named
// `axis_names[i]` when given, else "ax<i>" (TVM's C++ te::compute; Python-style topi ops pass
// "i0", "i1", ...). Their dtype is the dim's.
Tensor compute(std::vector<PrimExpr> shape, const FCompute& fcompute,
               std::string name = "T_compute", std::string tag = "", AttrMap attrs = {},
               std::vector<std::string> axis_names = {});
// A stage with several outputs computed together (a multi-value reduction such as argmax).
std::vector<Tensor> compute_batch(std::vector<PrimExpr> shape, const FBatchCompute& fcompute,
                                  std::string name, std::string tag = "", AttrMap attrs = {},
                                  std::vector<std::string> axis_names = {});

// "ax0", "ax1", ... or "i0", "i1", ... for `ndim` dims.
std::vector<std::string> AxisNames(const std::string& prefix, size_t ndim);

// A reduction axis over `dom`.
IterVar reduce_axis(Range dom, std::string name = "rv");
IterVar reduce_axis(PrimExpr extent, std::string name = "rv");

// A symbolic size (TVM's te.var / tir.Var): int64 by default, as Relax shapes are.
Var var(std::string name, DataType dtype = DataType::Int(64));

// Reducers: the value of `source` combined over every point of `axis` where `condition` holds
// (null: everywhere). The identity is TVM's: 0 for sum, 1 for prod, the dtype's lowest value for
// max and its highest for min.
PrimExpr sum(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition = {});
PrimExpr prod(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition = {});
PrimExpr max(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition = {});
PrimExpr min(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition = {});

// A commutative reducer `lambda x..., y...: result` with identities; `Apply` builds the Reduce
// expressions (one per value) over `axis`.
struct CommReducerSpec {
  tir::CommReducer reducer;
  std::vector<PrimExpr> Apply(std::vector<PrimExpr> sources, std::vector<IterVar> axis,
                              PrimExpr condition = {}) const;
};
CommReducerSpec MakeReducer(const std::function<std::vector<PrimExpr>(
                                const std::vector<Var>& lhs, const std::vector<Var>& rhs)>& combine,
                            std::vector<PrimExpr> identity);

// The lowest / highest finite value of a dtype (TVM's min_value / max_value).
PrimExpr min_value(DataType dtype);
PrimExpr max_value(DataType dtype);

}  // namespace wb::te
