// The ONNX importer's outer loop: the protobuf, the opset, the graph's inputs and initializers,
// every node through its converter, and the outputs.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>
#include <limits>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/onnx/importer.h"
#include "frontend/onnx/onnx_frontend.h"
#include "relax/type.h"

namespace wb::frontend::onnx {

const ConverterTable& Converters() {
  static const ConverterTable table = [] {
    ConverterTable t;
    RegisterElementwise(t);
    RegisterNN(t);
    RegisterShape(t);
    RegisterReduce(t);
    RegisterQuantization(t);
    return t;
  }();
  return table;
}

namespace {

using ::onnx::TensorProto;

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// A node's key in the converter table: the op type in the default domain, "domain.OpType" in
// another (the com.microsoft ops onnxruntime's quantizer emits).
std::string ConverterKey(const ::onnx::NodeProto& node) {
  return IsDefaultDomain(node.domain()) ? node.op_type() : node.domain() + "." + node.op_type();
}

std::string NodeLabel(const ::onnx::NodeProto& node, int index) {
  std::string label = node.name().empty() ? "#" + std::to_string(index)
                                          : "'" + node.name() + "' (#" + std::to_string(index) + ")";
  return "node " + label;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// A non-negative decimal integer of an external data entry (`offset`, `length`).
int64_t ExternalDataNumber(const std::string& key, const std::string& value) {
  int64_t n = 0;
  if (value.empty()) throw ImportError("its external data " + key + " is empty");
  for (char c : value) {
    if (c < '0' || c > '9' || n > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) {
      throw ImportError("its external data " + key + " '" + value + "' is not a byte count");
    }
    n = n * 10 + (c - '0');
  }
  return n;
}

// The bytes of an EXTERNAL tensor, read from the file its `location` names beside the model.
// As ONNX requires, the location is a relative path that stays inside the model's folder: a
// model never makes the importer read any other file of the machine.
std::string ReadExternalData(const TensorProto& t, const std::string& model_path) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    if (kv.key() == "offset") offset = ExternalDataNumber("offset", kv.value());
    if (kv.key() == "length") length = ExternalDataNumber("length", kv.value());
  }
  if (location.empty()) throw ImportError("external data without a location");
  std::filesystem::path relative(location);
  bool escapes = relative.has_root_name() || relative.has_root_directory();
  for (const auto& part : relative.lexically_normal()) escapes = escapes || part == "..";
  if (escapes) {
    throw ImportError("its external data location '" + location +
                      "' is not a relative path inside the model's folder");
  }
  std::filesystem::path file = std::filesystem::path(model_path).parent_path() / relative;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ImportError("cannot read its external data file '" + file.string() + "'");
  in.seekg(0, std::ios::end);
  int64_t size = in.tellg();
  if (offset <= size && length < 0) length = size - offset;
  if (offset > size || length > size - offset) {
    throw ImportError("its external data (offset " + std::to_string(offset) + ", length " +
                      std::to_string(length) + ") lies outside '" + file.string() + "' (" +
                      std::to_string(size) + " bytes)");
  }
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  return bytes;
}

}  // namespace

// Row-major little-endian bytes, as raw_data holds them.
relax::Constant ConstantOfTensor(const TensorProto& t, const std::string& model_path) {
  DataType dtype = DataTypeOf(t.data_type());
  if (dtype.is_void()) throw ImportError("its element type " + ONNXTypeName(t.data_type()) + " is not supported");
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) throw ImportError("it has a negative dimension " + ShapeText(shape));
    count *= d;
  }
  size_t want = static_cast<size_t>(count) * dtype.bytes();
  std::string bytes;
  if (t.data_location() == TensorProto::EXTERNAL) {
    bytes = ReadExternalData(t, model_path);
  } else if (t.has_raw_data()) {
    bytes = t.raw_data();
  } else {
    // Typed fields: float_data, double_data, int64_data, uint64_data, or int32_data (which
    // also holds the narrower ints, bool, and float16/bfloat16 as their bit patterns).
    std::vector<double> values;
    std::string raw16;
    switch (t.data_type()) {
      case TensorProto::FLOAT: values.assign(t.float_data().begin(), t.float_data().end()); break;
      case TensorProto::DOUBLE: values.assign(t.double_data().begin(), t.double_data().end()); break;
      case TensorProto::INT64:
        for (int64_t v : t.int64_data()) values.push_back(static_cast<double>(v));
        break;
      case TensorProto::UINT32:
      case TensorProto::UINT64:
        for (uint64_t v : t.uint64_data()) values.push_back(static_cast<double>(v));
        break;
      case TensorProto::FLOAT16:
      case TensorProto::BFLOAT16:
        for (int32_t v : t.int32_data()) {
          uint16_t bits = static_cast<uint16_t>(v);
          raw16.append(reinterpret_cast<const char*>(&bits), 2);
        }
        break;
      default: values.assign(t.int32_data().begin(), t.int32_data().end()); break;
    }
    if (!raw16.empty() || t.data_type() == TensorProto::FLOAT16 || t.data_type() == TensorProto::BFLOAT16) {
      bytes = raw16;
    } else {
      if (values.size() != static_cast<size_t>(count)) {
        throw ImportError("it holds " + std::to_string(values.size()) + " values where its shape " +
                          ShapeText(shape) + " needs " + std::to_string(count));
      }
      return MakeConstantOf(dtype, shape, values);
    }
  }
  if (bytes.size() != want) {
    throw ImportError("it holds " + std::to_string(bytes.size()) + " bytes where " + ShapeText(shape) +
                      " " + dtype.ToString() + " needs " + std::to_string(want));
  }
  return relax::MakeConstant(dtype, shape, std::move(bytes));
}

namespace {

class GraphImporter {
 public:
  GraphImporter(const ::onnx::ModelProto& model, std::string path, const ImportOptions& options)
      : model_(model), path_(std::move(path)), options_(options) {}

  ImportResult Run() {
    ImportResult result;
    if (!FindOpset(result.diagnostics)) return result;
    if (!CheckOps(result.diagnostics)) return result;
    try {
      result.module = Build(result.diagnostics);
    } catch (const ImportError& e) {
      result.diagnostics.Error(path_ + ": " + e.what());
      result.module = {};
    }
    return result;
  }

 private:
  bool FindOpset(DiagnosticList& diags) {
    bool found = false;
    for (const auto& o : model_.opset_import()) {
      if (IsDefaultDomain(o.domain())) {
        opset_ = o.version();
        found = true;
      }
    }
    if (options_.opset) {
      opset_ = *options_.opset;
      found = true;
    }
    if (!found) {
      diags.Error(path_ + ": the model imports no opset of the default ONNX domain");
      return false;
    }
    if (opset_ < kMinOpset) {
      diags.Error(path_ + ": opset " + std::to_string(opset_) + " is older than the oldest supported, " +
                  std::to_string(kMinOpset) + " (convert the model with onnx.version_converter)");
      return false;
    }
    if (opset_ > kMaxOpset) {
      diags.Add(Diagnostic::Warning(path_ + ": opset " + std::to_string(opset_) +
                                    " is newer than the newest the converters follow, " +
                                    std::to_string(kMaxOpset) + "; ops whose meaning changed may import wrongly"));
    }
    return true;
  }

  // Every node whose op has no converter, all at once.
  bool CheckOps(DiagnosticList& diags) {
    const auto& graph = model_.graph();
    const ConverterTable& table = Converters();
    bool ok = true;
    for (int i = 0; i < graph.node_size(); ++i) {
      const auto& node = graph.node(i);
      if (table.count(ConverterKey(node))) continue;
      if (!IsDefaultDomain(node.domain())) {
        diags.Error(path_ + ": unsupported op '" + node.op_type() + "' of domain '" + node.domain() +
                    "' at " + NodeLabel(node, i));
        ok = false;
      } else {
        diags.Error(path_ + ": unsupported op '" + node.op_type() + "' at " + NodeLabel(node, i) +
                    " (opset " + std::to_string(opset_) + ")");
        ok = false;
      }
    }
    return ok;
  }

  // A graph input's type: a `dim_param` is a symbolic dim shared by name, an unnamed unknown dim
  // a fresh one named after the input.
  relax::Type InputType(const ::onnx::ValueInfoProto& info) {
    if (!info.type().has_tensor_type()) {
      throw ImportError("graph input '" + info.name() + "' is not a tensor");
    }
    const auto& tt = info.type().tensor_type();
    DataType dtype = DataTypeOf(tt.elem_type());
    if (dtype.is_void()) {
      throw ImportError("graph input '" + info.name() + "' has the unsupported element type " +
                        ONNXTypeName(tt.elem_type()));
    }
    if (!tt.has_shape()) throw ImportError("graph input '" + info.name() + "' has no shape");
    std::vector<PrimExpr> dims;
    for (int k = 0; k < tt.shape().dim_size(); ++k) {
      const auto& d = tt.shape().dim(k);
      if (d.has_dim_value() && d.dim_value() > 0) {
        dims.push_back(tir::MakeIntImm(DataType::Int(64), d.dim_value()));
        continue;
      }
      std::string name = d.has_dim_param() && !d.dim_param().empty()
                             ? d.dim_param()
                             : info.name() + "_dim" + std::to_string(k);
      auto it = dims_.find(name);
      if (it == dims_.end()) it = dims_.emplace(name, tir::MakeVar(name, DataType::Int(64))).first;
      dims.push_back(it->second);
    }
    return relax::MakeTensorType(dims, dtype);
  }

  ir::IRModule Build(DiagnosticList& diags) {
    const auto& graph = model_.graph();
    Importer im;
    im.path = path_;
    std::map<std::string, const TensorProto*> initializers;
    for (const auto& t : graph.initializer()) initializers[t.name()] = &t;

    std::vector<relax::Var> params;
    for (const auto& input : graph.input()) {
      if (initializers.count(input.name())) continue;  // older exporters list weights as inputs
      relax::Var v = relax::MakeVar(input.name(), InputType(input));
      params.push_back(v);
      im.values[input.name()] = Value(relax::Expr(v));
    }
    size_t num_input = params.size();
    for (const auto& t : graph.initializer()) {
      relax::Constant c;
      try {
        c = ConstantOfTensor(t, path_);
      } catch (const ImportError& e) {
        throw ImportError("initializer '" + t.name() + "': " + e.what());
      }
      if (options_.keep_params_in_input) {
        relax::Var v = relax::MakeVar(t.name(), relax::GetType(c));
        params.push_back(v);
        im.values[t.name()] = Value(relax::Expr(v));
      } else {
        im.values[t.name()] = Value(relax::Expr(c));
      }
    }

    // As TVM's BlockBuilder.function("main") and from_onnx: public, with the number of
    // parameters that are graph inputs.
    ir::AttrMap attrs{{"global_symbol", ir::MakeString("main")},
                      {"num_input", ir::MakeInt(static_cast<int64_t>(num_input))}};
    im.builder.BeginFunction("main", params, attrs);
    im.builder.BeginDataflowBlock();
    const ConverterTable& table = Converters();
    for (int i = 0; i < graph.node_size(); ++i) {
      const auto& node = graph.node(i);
      NodeContext ctx(im, node, opset_);
      std::vector<Operand> outputs;
      try {
        outputs = table.find(ConverterKey(node))->second(ctx);
      } catch (const ImportError& e) {
        throw ImportError(node.op_type() + " at " + NodeLabel(node, i) + ": " + e.what());
      } catch (const DiagnosticError& e) {
        throw ImportError(node.op_type() + " at " + NodeLabel(node, i) + ": " + e.diagnostic().message);
      }
      for (int k = 0; k < node.output_size(); ++k) {
        if (node.output(k).empty()) continue;
        if (static_cast<size_t>(k) >= outputs.size() || !outputs[k].defined()) {
          throw ImportError(node.op_type() + " at " + NodeLabel(node, i) + ": output " +
                            std::to_string(k) + " ('" + node.output(k) + "') is not supported");
        }
        im.values[node.output(k)] = outputs[k];
      }
    }

    std::vector<relax::Expr> results;
    for (const auto& out : graph.output()) {
      auto it = im.values.find(out.name());
      if (it == im.values.end()) throw ImportError("graph output '" + out.name() + "' is produced by no node");
      relax::Expr e = it->second.expr;
      if (!e.defined()) {
        throw ImportError("graph output '" + out.name() + "' holds symbolic shape values, which cannot be returned as a tensor yet");
      }
      results.push_back(e);
    }
    if (results.empty()) throw ImportError("the graph has no outputs");
    relax::Expr output = results.size() == 1 ? results[0] : relax::Expr(relax::MakeTuple(results));
    relax::Var gv = im.builder.EmitOutput(output, "gv");
    im.builder.EndBlock();
    im.builder.EndFunction(gv);
    diags.Append(im.builder.diagnostics());
    if (diags.HasErrors()) return {};
    return im.builder.GetModule();
  }

  const ::onnx::ModelProto& model_;
  std::string path_;
  ImportOptions options_;
  int64_t opset_ = 0;
  std::map<std::string, tir::Var> dims_;
};

}  // namespace

ImportResult FromONNXBytes(std::string_view bytes, const std::string& path, const ImportOptions& options) {
  ::onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT_MAX);
  bool parsed = model.MergePartialFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  if (!parsed) {
    ImportResult r;
    r.diagnostics.Error(path + ": not an ONNX model: the protobuf is malformed at byte " +
                        std::to_string(coded.CurrentPosition()) + " of " + std::to_string(bytes.size()));
    return r;
  }
  if (!model.has_graph()) {
    ImportResult r;
    r.diagnostics.Error(path + ": not an ONNX model: it has no graph");
    return r;
  }
  ImportResult r = GraphImporter(model, path, options).Run();
  for (const auto& out : model.graph().output()) r.output_names.push_back(out.name());
  return r;
}

ImportResult FromONNXFile(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ImportResult r;
    r.diagnostics.Error("cannot read file '" + path + "'");
    return r;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  return FromONNXBytes(buf.str(), path, options);
}

}  // namespace wb::frontend::onnx
