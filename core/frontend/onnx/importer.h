// What the ONNX converters share (private to frontend/onnx): the value an ONNX tensor name
// stands for while importing, the view of one node that a converter gets (its inputs, attributes
// and a way to emit Relax calls), and the table of converters, one op family a file.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "relax/block_builder.h"
#include "relax/expr.h"
#include "relax/op/registry.h"

namespace wb::frontend::onnx {

using ir::DataType;
using ir::ObjectRef;
using ir::PrimExpr;

// Thrown by a converter; the importer adds the node and op it was converting.
class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An integer (or bool) tensor whose elements are known while importing: a small integer
// constant, the output of Shape, and arithmetic on those. Elements are constants or symbolic
// dims of the graph's inputs.
struct KnownInts {
  DataType dtype;
  std::vector<int64_t> shape;
  std::vector<PrimExpr> values;  // row-major

  bool AllConstant() const;
  // The elements as numbers; ImportError naming `what` when one is symbolic.
  std::vector<int64_t> Constants(const std::string& what) const;
};

// What an ONNX value name stands for.
struct Operand {
  relax::Expr expr;  // null when only `known` is (a shape holding symbolic dims)
  std::optional<KnownInts> known;
  bool defined() const { return expr.defined() || known.has_value(); }
};

// The largest integer constant whose elements are kept for import-time arithmetic.
constexpr size_t kMaxKnownElements = 4096;
// The largest constant an op over constants is folded into at import time (Range): a model that
// asks for more is refused with its size, not left to exhaust memory.
constexpr int64_t kMaxFoldedElements = int64_t(1) << 24;

// A number as a message shows it: integral values without a fraction.
std::string FormatNumber(double value);

DataType DataTypeOf(int32_t onnx_elem_type);  // Void when unsupported
std::string ONNXTypeName(int32_t onnx_elem_type);
// A Relax constant of `dtype` holding `values` (converted from double), shape `shape`.
relax::Constant MakeConstantOf(DataType dtype, const std::vector<int64_t>& shape,
                               const std::vector<double>& values);
relax::Constant ScalarConstant(DataType dtype, double value);
relax::Constant ConstantOfKnown(const KnownInts& known);
// The known elements of an integer constant (null when it is no small integer constant).
std::optional<KnownInts> KnownOfConstant(const relax::ConstantNode& c);
// A TensorProto as a Relax constant (external data is read relative to `model_path`).
relax::Constant ConstantOfTensor(const ::onnx::TensorProto& t, const std::string& model_path);
// The elements of a constant as doubles.
std::vector<double> ConstantValues(const relax::ConstantNode& c);

// The state of one import: the builder of `main` and what each ONNX value name stands for.
struct Importer {
  std::string path;  // the model file, for messages and external data
  relax::BlockBuilder builder;
  std::map<std::string, Operand, std::less<>> values;
  std::map<std::string, int, std::less<>> fresh;  // per base name: how many vars were made
};

// One node as its converter sees it.
class NodeContext {
 public:
  NodeContext(Importer& importer, const ::onnx::NodeProto& node, int64_t opset);

  const ::onnx::NodeProto& node() const { return node_; }
  int64_t opset() const { return opset_; }
  const std::string& model_path() const;

  // --- inputs (an empty name is an absent optional input) ------------------------------------
  size_t NumInputs() const { return static_cast<size_t>(node_.input_size()); }
  bool HasInput(size_t i) const;
  const Operand& Input(size_t i) const;  // ImportError when absent
  // Input i as a Relax value (a known integer tensor becomes a constant).
  relax::Expr Expr(size_t i) const;
  relax::TensorType Type(size_t i) const;  // ImportError when no tensor
  DataType DType(size_t i) const;
  int64_t Rank(size_t i) const;  // ImportError when unknown
  std::vector<PrimExpr> Shape(size_t i) const;  // ImportError when unknown
  // Input i's elements when known at import time (integer constants, shapes).
  const KnownInts* Known(size_t i) const;
  // Input i as integer constants; ImportError naming `what` otherwise.
  std::vector<int64_t> ConstInts(size_t i, const std::string& what) const;
  // Input i as a constant scalar of any dtype; nullopt when it is not one.
  std::optional<double> ConstScalar(size_t i) const;

  // --- attributes -----------------------------------------------------------------------------
  const ::onnx::AttributeProto* Attr(const std::string& name) const;
  int64_t AttrInt(const std::string& name, int64_t fallback) const;
  float AttrFloat(const std::string& name, float fallback) const;
  std::string AttrString(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> AttrInts(const std::string& name, std::vector<int64_t> fallback) const;
  std::optional<std::vector<int64_t>> AttrIntsIfAny(const std::string& name) const;

  // --- results --------------------------------------------------------------------------------
  // Emits `call` (its type inferred); ImportError with the inference message when it fails.
  relax::Var Emit(const relax::Expr& call) const;
  // Emits the op `name` ("relax.add") on `args` with `attrs`.
  relax::Var Op(const std::string& name, std::vector<relax::Expr> args, ir::AttrMap attrs = {}) const;
  relax::Expr Const(relax::Constant c) const { return c; }
  // Emits R.match_cast(value, type); ImportError when it does not type-check.
  relax::Var MatchCast(const relax::Expr& value, const relax::Type& type) const;
  // A new int64 symbolic var named `base`, `base1`, `base2`, ... (one name per var of the import).
  tir::Var FreshVar(const std::string& base) const;

  [[noreturn]] void Fail(const std::string& message) const { throw ImportError(message); }

 private:
  Importer& importer_;
  const ::onnx::NodeProto& node_;
  int64_t opset_;
};

// The converter of one ONNX op: the node's outputs in order (an undefined Operand for an optional
// output that is not produced).
using Converter = std::function<std::vector<Operand>(NodeContext& ctx)>;
using ConverterTable = std::map<std::string, Converter, std::less<>>;

// One op family a file fills its part of the table.
void RegisterElementwise(ConverterTable& table);
void RegisterNN(ConverterTable& table);
void RegisterShape(ConverterTable& table);
void RegisterReduce(ConverterTable& table);
void RegisterQuantization(ConverterTable& table);
const ConverterTable& Converters();

// Helpers shared by converters.
Operand Value(relax::Expr expr);
Operand Value(KnownInts known);
int64_t NormalizeAxis(int64_t axis, int64_t rank, const NodeContext& ctx);
// A tuple of int64 R.prim_values (strided_slice's axes, begin, end).
relax::Expr PrimTuple(const std::vector<int64_t>& values);

// The spatial attributes of Conv, the pools and their quantized forms: strides, dilations and
// pads (befores then afters) for `kernel`, auto_pad resolved on input 0's static shape.
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;
};
Window ReadWindow(NodeContext& ctx, const std::vector<int64_t>& kernel);

}  // namespace wb::frontend::onnx
