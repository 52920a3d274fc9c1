#include "runtime/text_format.h"

#include <cctype>
#include <cstdio>

#include "runtime/ndarray_device.h"

namespace wb::runtime {

namespace {

std::string Element(const NDArray& a, int64_t flat) {
  DLDataType t = a.dtype();
  if (t.code == kDLBool) return a.GetInt(flat) ? "True" : "False";
  if (!t.is_float()) return std::to_string(a.GetInt(flat));
  char text[40];
  std::snprintf(text, sizeof(text), "%.8g", a.GetDouble(flat));
  return text;
}

void Append(const NDArray& a, size_t axis, int64_t offset, bool summarize, std::string* out) {
  const auto& shape = a.shape();
  if (axis == shape.size()) {
    *out += Element(a, offset);
    return;
  }
  int64_t stride = 1;
  for (size_t k = axis + 1; k < shape.size(); ++k) stride *= shape[k];
  *out += '[';
  for (int64_t i = 0; i < shape[axis]; ++i) {
    if (i) *out += ", ";
    if (summarize && shape[axis] > 6 && i == 3) {
      *out += "...";
      i = shape[axis] - 4;
      continue;
    }
    Append(a, axis + 1, offset + i * stride, summarize, out);
  }
  *out += ']';
}

}  // namespace

std::string ElementsText(const NDArray& array) {
  NDArray a = array.is_cpu() ? array : array.CopyTo(CPU());
  std::string out;
  Append(a, 0, 0, a.NumElements() > 1000, &out);
  return out;
}

std::optional<std::string> PythonFormat(const std::string& format, const std::vector<std::string>& args,
                                        std::string* error) {
  if (format.empty()) {
    std::string out;
    for (const auto& a : args) out += (out.empty() ? "" : " ") + a;
    return out;
  }
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if (c == '}') {
      if (i + 1 < format.size() && format[i + 1] == '}') {
        out += '}';
        ++i;
        continue;
      }
      *error = "single '}' in format string \"" + format + "\"";
      return std::nullopt;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    size_t close = format.find('}', i);
    if (close == std::string::npos) {
      *error = "unclosed '{' in format string \"" + format + "\"";
      return std::nullopt;
    }
    std::string field = format.substr(i + 1, close - i - 1);
    size_t index = next;
    if (field.empty()) {
      ++next;
    } else {
      for (char d : field) {
        if (!std::isdigit(static_cast<unsigned char>(d))) {
          *error = "unsupported replacement field {" + field + "} in format string \"" + format + "\"";
          return std::nullopt;
        }
      }
      index = std::stoul(field);
    }
    if (index >= args.size()) {
      *error = "format string \"" + format + "\" needs argument " + std::to_string(index) + ", but " +
               std::to_string(args.size()) + " were given";
      return std::nullopt;
    }
    out += args[index];
    i = close;
  }
  return out;
}

}  // namespace wb::runtime
