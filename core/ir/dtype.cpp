#include "ir/dtype.h"

#include <array>
#include <charconv>

namespace wb::ir {

namespace {

struct NarrowFloat {
  DataType::Code code;
  const char* name;
  int bits;
};

constexpr std::array<NarrowFloat, 11> kNarrowFloats = {{
    {DataType::kFloat8_e3m4, "float8_e3m4", 8},
    {DataType::kFloat8_e4m3, "float8_e4m3", 8},
    {DataType::kFloat8_e4m3b11fnuz, "float8_e4m3b11fnuz", 8},
    {DataType::kFloat8_e4m3fn, "float8_e4m3fn", 8},
    {DataType::kFloat8_e4m3fnuz, "float8_e4m3fnuz", 8},
    {DataType::kFloat8_e5m2, "float8_e5m2", 8},
    {DataType::kFloat8_e5m2fnuz, "float8_e5m2fnuz", 8},
    {DataType::kFloat8_e8m0fnu, "float8_e8m0fnu", 8},
    {DataType::kFloat6_e2m3fn, "float6_e2m3fn", 6},
    {DataType::kFloat6_e3m2fn, "float6_e3m2fn", 6},
    {DataType::kFloat4_e2m1fn, "float4_e2m1fn", 4},
}};

bool ParseInt(std::string_view text, int* out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string DataType::ToString() const {
  if (code_ == kVoid) return "void";
  if (code_ == kHandle) return "handle";
  std::string base;
  switch (code_) {
    case kInt:
      base = "int" + std::to_string(bits_);
      break;
    case kUInt:
      base = "uint" + std::to_string(bits_);
      break;
    case kFloat:
      base = "float" + std::to_string(bits_);
      break;
    case kBFloat:
      base = "bfloat" + std::to_string(bits_);
      break;
    case kBool:
      base = "bool";
      break;
    default:
      for (const auto& nf : kNarrowFloats) {
        if (nf.code == code_) base = nf.name;
      }
      if (base.empty()) base = "custom[" + std::to_string(int(code_)) + "]" + std::to_string(bits_);
  }
  if (scalable_) return base + "xvscalex" + std::to_string(lanes_);
  if (lanes_ > 1) return base + "x" + std::to_string(lanes_);
  return base;
}

std::optional<DataType> DataType::Parse(std::string_view text) {
  if (text.empty() || text == "void") return Void();
  if (text == "handle") return Handle();
  if (text == "bool") return Bool();
  // Split off lanes: "float32x4", "float32xvscalex4".
  int lanes = 1;
  bool scalable = false;
  std::string_view base = text;
  if (auto pos = text.find("xvscalex"); pos != std::string_view::npos) {
    if (!ParseInt(text.substr(pos + 8), &lanes) || lanes <= 0) return std::nullopt;
    scalable = true;
    base = text.substr(0, pos);
  } else if (auto x = text.rfind('x'); x != std::string_view::npos && x + 1 < text.size() &&
                                        text[x + 1] >= '0' && text[x + 1] <= '9') {
    if (!ParseInt(text.substr(x + 1), &lanes) || lanes <= 0 || lanes > 32768) return std::nullopt;
    base = text.substr(0, x);
  }
  if (base == "bool") return DataType(kBool, 1, lanes, scalable);
  for (const auto& nf : kNarrowFloats) {
    if (base == nf.name) return DataType(nf.code, nf.bits, lanes, scalable);
  }
  auto with_bits = [&](std::string_view rest, Code code, int default_bits) -> std::optional<DataType> {
    int bits = default_bits;
    if (!rest.empty() && !ParseInt(rest, &bits)) return std::nullopt;
    if (bits <= 0 || bits > 128) return std::nullopt;
    return DataType(code, bits, lanes, scalable);
  };
  if (StartsWith(base, "uint")) return with_bits(base.substr(4), kUInt, 32);
  if (StartsWith(base, "int")) return with_bits(base.substr(3), kInt, 32);
  if (StartsWith(base, "bfloat")) return with_bits(base.substr(6), kBFloat, 16);
  if (StartsWith(base, "float")) {
    auto t = with_bits(base.substr(5), kFloat, 32);
    if (t && t->bits() != 16 && t->bits() != 32 && t->bits() != 64) return std::nullopt;
    return t;
  }
  return std::nullopt;
}

}  // namespace wb::ir
