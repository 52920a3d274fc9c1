#include "script/relax_metadata.h"

#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace wb::script {

namespace {

constexpr uint64_t kTensorMagic = 0xDD5E40F096B4A13FULL;
constexpr const char* kConstantKey = "relax.expr.Constant";
// The TVM version the printed graph claims (TVM's `tvm_version` metadata entry).
constexpr const char* kTVMVersion = "0.26.dev0";

const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64Encode(const std::string& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string Base64Decode(const std::string& in) {
  int8_t value[256];
  std::memset(value, -1, sizeof(value));
  for (int k = 0; k < 64; ++k) value[uint8_t(kAlphabet[k])] = int8_t(k);
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    int8_t v = value[uint8_t(c)];
    if (v < 0) throw std::invalid_argument(std::string("invalid base64 character '") + c + "'");
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xFF);
    }
  }
  return out;
}

// DLPack's type codes, as TVM's tensor format stores them.
enum : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(v));
}

std::string SaveTensor(const relax::ConstantNode& c) {
  std::string out;
  Put<uint64_t>(&out, kTensorMagic);
  Put<uint64_t>(&out, 0);
  Put<int32_t>(&out, 1);  // kDLCPU
  Put<int32_t>(&out, 0);
  Put<int32_t>(&out, static_cast<int32_t>(c.shape.size()));
  ir::DataType t = c.dtype;
  uint8_t code = t.is_bool() ? kDLBool : t.is_int() ? kDLInt : t.is_uint() ? kDLUInt : t.is_bfloat16() ? kDLBfloat : kDLFloat;
  Put<uint8_t>(&out, code);
  Put<uint8_t>(&out, static_cast<uint8_t>(t.is_bool() ? 8 : t.bits()));
  Put<uint16_t>(&out, 1);
  for (int64_t d : c.shape) Put<int64_t>(&out, d);
  Put<int64_t>(&out, static_cast<int64_t>(c.data.size()));
  out += c.data;
  return out;
}

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  template <typename T>
  T Get(const char* what) {
    if (at_ + sizeof(T) > bytes_.size()) throw std::invalid_argument(std::string("the tensor ends inside its ") + what);
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::string Rest() const { return bytes_.substr(at_); }

 private:
  const std::string& bytes_;
  size_t at_ = 0;
};

relax::Constant LoadTensor(const std::string& bytes, const Span& span) {
  Reader r(bytes);
  if (r.Get<uint64_t>("header") != kTensorMagic) throw std::invalid_argument("the tensor does not start with TVM's tensor magic");
  r.Get<uint64_t>("header");
  if (r.Get<int32_t>("device") != 1) throw std::invalid_argument("the tensor is not on the CPU");
  r.Get<int32_t>("device");
  int32_t ndim = r.Get<int32_t>("rank");
  uint8_t code = r.Get<uint8_t>("dtype");
  uint8_t bits = r.Get<uint8_t>("dtype");
  uint16_t lanes = r.Get<uint16_t>("dtype");
  if (ndim < 0 || lanes != 1) throw std::invalid_argument("the tensor has an unsupported rank or lanes");
  ir::DataType dtype;
  switch (code) {
    case kDLInt: dtype = ir::DataType::Int(bits); break;
    case kDLUInt: dtype = bits == 1 ? ir::DataType::Bool() : ir::DataType::UInt(bits); break;
    case kDLFloat: dtype = ir::DataType::Float(bits); break;
    case kDLBfloat: dtype = ir::DataType::BFloat(bits); break;
    case kDLBool: dtype = ir::DataType::Bool(); break;
    default: throw std::invalid_argument("the tensor's type code " + std::to_string(code) + " is not supported");
  }
  std::vector<int64_t> shape;
  for (int32_t k = 0; k < ndim; ++k) shape.push_back(r.Get<int64_t>("shape"));
  int64_t size = r.Get<int64_t>("byte count");
  std::string data = r.Rest();
  if (size < 0 || static_cast<size_t>(size) != data.size()) {
    throw std::invalid_argument("the tensor declares " + std::to_string(size) + " bytes and holds " + std::to_string(data.size()));
  }
  return relax::MakeConstant(dtype, std::move(shape), std::move(data), span);
}

using Json = nlohmann::ordered_json;

}  // namespace

std::string ConstantsMetadataJSON(const std::vector<ir::ObjectRef>& constants) {
  Json nodes = Json::array();
  auto add = [&](Json node) {
    nodes.push_back(std::move(node));
    return static_cast<int64_t>(nodes.size()) - 1;
  };
  int64_t key = add(Json{{"type", "ffi.String"}, {"data", kConstantKey}});
  Json items = Json::array();
  for (const auto& obj : constants) {
    auto* c = obj.as<relax::ConstantNode>();
    if (!c) continue;
    int64_t tensor = add(Json{{"type", "ffi.Tensor"}, {"data", Base64Encode(SaveTensor(*c))}});
    items.push_back(add(Json{{"type", kConstantKey}, {"data", Json{{"data", tensor}}}}));
  }
  int64_t array = add(Json{{"type", "ffi.Array"}, {"data", items}});
  int64_t map = add(Json{{"type", "ffi.Map"}, {"data", Json::array({key, array})}});
  Json graph{{"root_index", map}, {"nodes", nodes}, {"metadata", Json{{"tvm_version", kTVMVersion}}}};
  return graph.dump(2);
}

std::vector<relax::Constant> ParseConstantsMetadata(const std::string& text, Span span) {
  nlohmann::json graph;
  try {
    graph = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("not JSON: ") + e.what());
  }
  if (!graph.is_object() || !graph.contains("root_index") || !graph.contains("nodes") || !graph["nodes"].is_array()) {
    throw std::invalid_argument("expected a JSON object graph with `root_index` and `nodes`");
  }
  const auto& nodes = graph["nodes"];
  auto node = [&](const nlohmann::json& index, const char* want) -> const nlohmann::json& {
    if (!index.is_number_integer() || index.get<int64_t>() < 0 || index.get<size_t>() >= nodes.size()) {
      throw std::invalid_argument("invalid node index " + index.dump());
    }
    const auto& n = nodes[index.get<size_t>()];
    if (!n.is_object() || !n.contains("type") || !n["type"].is_string()) {
      throw std::invalid_argument("node " + index.dump() + " has no type");
    }
    if (want && n["type"] != want) {
      throw std::invalid_argument("node " + index.dump() + " is " + n["type"].get<std::string>() + ", expected " + want);
    }
    return n;
  };
  const auto& root = node(graph["root_index"], "ffi.Map");
  const auto& pairs = root["data"];
  std::vector<relax::Constant> out;
  for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
    const auto& key = node(pairs[i], "ffi.String");
    if (key["data"] != kConstantKey) continue;
    for (const auto& item : node(pairs[i + 1], "ffi.Array")["data"]) {
      const auto& c = node(item, kConstantKey);
      if (!c["data"].is_object() || !c["data"].contains("data")) {
        throw std::invalid_argument("constant node " + item.dump() + " has no data field");
      }
      const auto& tensor = node(c["data"]["data"], "ffi.Tensor");
      try {
        out.push_back(LoadTensor(Base64Decode(tensor["data"].get<std::string>()), span));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("constant " + std::to_string(out.size()) + ": " + e.what());
      }
    }
  }
  return out;
}

}  // namespace wb::script
