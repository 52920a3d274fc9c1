// ONNX import: an ONNX model (ai.onnx opsets 11 to 18) becomes a Relax IRModule the way TVM's
// relax.frontend.onnx.from_onnx builds it. The graph becomes one function `main` with a dataflow
// block; graph inputs become its parameters (a `dim_param` becomes a symbolic int64 dim, the same
// name the same var); initializers become constants, or trailing parameters with
// keep_params_in_input (then `num_input` says how many parameters are the graph's inputs, as in
// TVM); the graph's outputs are the result (a tuple when there are several).
//
// Shape arithmetic is done while importing: Shape, Gather, Concat, Unsqueeze, Slice, Cast and
// integer math on values known at import time give values, not calls, so the Reshape / Expand /
// ConstantOfShape chains that exporters write become static shapes where the dims are static and
// symbolic ones (`R.shape([n, 4])`) where they are not.
//
// Failures are diagnostics, never exceptions: a file that is no ONNX model says at which byte
// the protobuf stopped; every node whose op has no converter is listed at once, with its node
// name, its index and the model's opset; a converter that meets an attribute or a shape it cannot
// handle names the node and the op.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expr.h"
#include "support/diagnostic.h"

namespace wb::frontend::onnx {

struct ImportOptions {
  // Initializers become parameters after the graph inputs (TVM's keep_params_in_input).
  bool keep_params_in_input = false;
  // Imports as this opset instead of the model's (TVM's `opset=`).
  std::optional<int64_t> opset;
};

struct ImportResult {
  ir::IRModule module;  // null when the import failed
  DiagnosticList diagnostics;
  // The graph's output names, in the order of main's results.
  std::vector<std::string> output_names;
  bool ok() const { return module.defined() && !diagnostics.HasErrors(); }
};

// The opsets of the default domain that the converters follow.
constexpr int64_t kMinOpset = 11;
constexpr int64_t kMaxOpset = 18;

// Reads the model at `path` (external tensor data is read relative to its folder).
ImportResult FromONNXFile(const std::string& path, const ImportOptions& options = {});
// Imports a serialized ModelProto; `path` names it in messages and locates external data.
ImportResult FromONNXBytes(std::string_view bytes, const std::string& path,
                           const ImportOptions& options = {});

}  // namespace wb::frontend::onnx
