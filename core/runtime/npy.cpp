// NumPy's .npy format: "\x93NUMPY", a version, a header length, then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded so the data starts on a
// 64-byte boundary, then the raw C-order data. This is how users bring reference inputs and
// outputs into batch runs, so every unsupported case says exactly what was found.
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/ndarray.h"

namespace wb::runtime {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

bool Fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

std::optional<DLDataType> FromDescr(const std::string& descr, std::string* why) {
  if (descr.size() < 3) {
    *why = "unsupported dtype '" + descr + "'";
    return std::nullopt;
  }
  char order = descr[0];
  char kind = descr[1];
  std::string size_text = descr.substr(2);
  if (size_text.find_first_not_of("0123456789") != std::string::npos) {
    *why = "unsupported dtype '" + descr + "'";
    return std::nullopt;
  }
  int size = std::atoi(size_text.c_str());
  if (order == '>' && size > 1) {
    *why = "big-endian data ('" + descr + "') is not supported; save it little-endian";
    return std::nullopt;
  }
  if (order != '<' && order != '|' && order != '=' && order != '>') {
    *why = "unsupported byte order in dtype '" + descr + "'";
    return std::nullopt;
  }
  const bool size_ok = size == 1 || size == 2 || size == 4 || size == 8;
  if (kind == 'b' && size == 1) return Bool();
  if (kind == 'i' && size_ok) return Int(size * 8);
  if (kind == 'u' && size_ok) return UInt(size * 8);
  if (kind == 'f' && (size == 2 || size == 4 || size == 8)) return Float(size * 8);
  *why = "unsupported dtype '" + descr +
         "' (supported: bool, int8-64, uint8-64, float16/32/64)";
  return std::nullopt;
}

std::string ToDescr(DLDataType t) {
  switch (t.code) {
    case kDLBool: return "|b1";
    case kDLInt: return t.bits == 8 ? "|i1" : "<i" + std::to_string(t.bits / 8);
    case kDLUInt: return t.bits == 8 ? "|u1" : "<u" + std::to_string(t.bits / 8);
    case kDLFloat: return "<f" + std::to_string(t.bits / 8);
    case kDLBfloat: return "<u2";  // NumPy has no bfloat16: keep the bits
    default: return "";
  }
}

// A cursor over the header's dict literal.
struct HeaderReader {
  std::string_view s;
  size_t pos = 0;
  void Skip() {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
  }
  bool Eat(char c) {
    Skip();
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool String(std::string* out) {
    Skip();
    if (pos >= s.size() || (s[pos] != '\'' && s[pos] != '"')) return false;
    char q = s[pos++];
    size_t end = s.find(q, pos);
    if (end == std::string_view::npos) return false;
    *out = std::string(s.substr(pos, end - pos));
    pos = end + 1;
    return true;
  }
  bool Word(std::string* out) {
    Skip();
    size_t start = pos;
    while (pos < s.size() && (std::isalnum(static_cast<unsigned char>(s[pos])) || s[pos] == '_')) ++pos;
    *out = std::string(s.substr(start, pos - start));
    return !out->empty();
  }
};

bool ParseHeader(std::string_view header, std::string* descr, bool* fortran,
                 std::vector<int64_t>* shape, std::string* error) {
  HeaderReader r{header};
  bool have_descr = false, have_order = false, have_shape = false;
  if (!r.Eat('{')) return Fail(error, "malformed .npy header: expected a dict literal");
  while (!r.Eat('}')) {
    std::string key;
    if (!r.String(&key) || !r.Eat(':')) return Fail(error, "malformed .npy header: expected 'key':");
    if (key == "descr") {
      if (!r.String(descr)) {
        return Fail(error, "unsupported .npy dtype: structured dtypes are not supported");
      }
      have_descr = true;
    } else if (key == "fortran_order") {
      std::string word;
      if (!r.Word(&word) || (word != "True" && word != "False")) {
        return Fail(error, "malformed .npy header: fortran_order must be True or False");
      }
      *fortran = word == "True";
      have_order = true;
    } else if (key == "shape") {
      if (!r.Eat('(')) return Fail(error, "malformed .npy header: shape must be a tuple");
      while (!r.Eat(')')) {
        std::string digits;
        if (!r.Word(&digits) || digits.find_first_not_of("0123456789") != std::string::npos) {
          return Fail(error, "malformed .npy header: shape entries must be integers");
        }
        shape->push_back(std::stoll(digits));
        r.Eat(',');
      }
      have_shape = true;
    } else {
      return Fail(error, "malformed .npy header: unexpected key '" + key + "'");
    }
    r.Eat(',');
    if (r.pos >= header.size()) return Fail(error, "malformed .npy header: unterminated dict");
  }
  if (!have_descr || !have_order || !have_shape) {
    return Fail(error, "malformed .npy header: needs 'descr', 'fortran_order' and 'shape'");
  }
  return true;
}

}  // namespace

NDArray ParseNpy(std::string_view bytes, std::string* error) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view(kMagic, 6)) {
    Fail(error, "not a .npy file (missing the \\x93NUMPY magic)");
    return {};
  }
  const auto major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (size_t{static_cast<uint8_t>(bytes[9])} << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      Fail(error, "truncated .npy file");
      return {};
    }
    for (int i = 0; i < 4; ++i) header_len |= size_t{static_cast<uint8_t>(bytes[8 + i])} << (8 * i);
    header_start = 12;
  } else {
    Fail(error, "unsupported .npy format version " + std::to_string(major) + "." +
                    std::to_string(static_cast<uint8_t>(bytes[7])) + " (supported: 1.0, 2.0, 3.0)");
    return {};
  }
  if (header_start + header_len > bytes.size()) {
    Fail(error, "truncated .npy file: the header runs past the end");
    return {};
  }
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  if (!ParseHeader(bytes.substr(header_start, header_len), &descr, &fortran, &shape, error)) return {};
  if (fortran) {
    Fail(error, "Fortran-order .npy data is not supported; save it in C order");
    return {};
  }
  std::string why;
  auto dtype = FromDescr(descr, &why);
  if (!dtype) {
    Fail(error, why);
    return {};
  }
  NDArray array = NDArray::Empty(shape, *dtype);
  size_t data_start = header_start + header_len;
  size_t have = bytes.size() - data_start;
  if (have < array.CompactBytes()) {
    Fail(error, "truncated .npy file: " + std::to_string(array.CompactBytes()) +
                    " data bytes expected, " + std::to_string(have) + " present");
    return {};
  }
  array.CopyFromBytes(bytes.data() + data_start, array.CompactBytes());
  return array;
}

NDArray LoadNpy(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    Fail(error, "cannot open '" + path + "'");
    return {};
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string inner;
  NDArray a = ParseNpy(ss.str(), &inner);
  if (!a.defined()) Fail(error, path + ": " + inner);
  return a;
}

std::string SerializeNpy(const NDArray& array) {
  std::string descr = ToDescr(array.dtype());
  if (descr.empty() || array.dtype().lanes != 1) {
    throw std::invalid_argument("SerializeNpy: dtype " + DTypeToString(array.dtype()) +
                                " has no .npy form");
  }
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < array.shape().size(); ++i) {
    dict += std::to_string(array.shape()[i]) + (array.shape().size() == 1 ? "," : i + 1 < array.shape().size() ? ", " : "");
  }
  dict += "), }";
  // Pad with spaces and a final newline so the data starts on a 64-byte boundary.
  size_t prefix = 10;
  int major = 1;
  if (dict.size() + 1 + prefix > 65535) {
    prefix = 12;
    major = 2;
  }
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic, 6);
  out += static_cast<char>(major);
  out += '\0';
  size_t len = dict.size();
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += dict;
  size_t data_start = out.size();
  out.resize(data_start + array.CompactBytes());
  array.CopyToBytes(out.data() + data_start, array.CompactBytes());
  return out;
}

bool SaveNpy(const std::string& path, const NDArray& array, std::string* error) {
  std::string bytes;
  try {
    bytes = SerializeNpy(array);
  } catch (const std::invalid_argument& e) {
    return Fail(error, e.what());
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) return Fail(error, "cannot write '" + path + "'");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) return Fail(error, "write to '" + path + "' failed");
  return true;
}

}  // namespace wb::runtime
