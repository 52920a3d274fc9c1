#include "frontend/load_module.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "frontend/onnx/onnx_frontend.h"

namespace wb::frontend {

bool IsONNXPath(const std::string& path) {
  if (path.size() < 5) return false;
  std::string ext = path.substr(path.size() - 5);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".onnx";
}

script::ParseResult LoadModule(const std::string& path, std::vector<std::string>* output_names) {
  script::ParseResult result;
  if (output_names) output_names->clear();
  if (IsONNXPath(path)) {
    onnx::ImportResult imported = onnx::FromONNXFile(path);
    if (output_names) *output_names = imported.output_names;
    result.module = imported.module;
    result.diagnostics = std::move(imported.diagnostics);
    return result;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    result.diagnostics.Error("cannot read file '" + path + "'");
    return result;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return script::Parse(text.str(), path);
}

}  // namespace wb::frontend
