#include "lang/analysis_describe.h"

#include <sstream>

#include "tir/builtin.h"

namespace wb::lang {

namespace {

std::string Join(const std::vector<ir::PrimExpr>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) out += (i ? ", " : "") + ExprText(exprs[i]);
  return out;
}

}  // namespace

std::string BufferText(const tir::Buffer& buffer) {
  std::string shape = Join(buffer->shape);
  if (buffer->shape.size() == 1) shape += ",";
  std::string out = "T.Buffer((" + shape + "), \"" + buffer->dtype.ToString() + "\"";
  std::string scope = buffer->scope();
  if (scope != "global") out += ", scope=\"" + scope + "\"";
  return out + ")";
}


std::string SignatureText(const std::string& name, const tir::PrimFuncNode* func) {
  std::string out = "def " + name + "(";
  for (size_t i = 0; i < func->params.size(); ++i) {
    out += i ? ", " : "";
    const tir::Buffer& buffer = func->buffer_map[i];
    if (buffer.defined()) {
      out += buffer->name + ": " + BufferText(buffer);
    } else {
      out += func->params[i]->name_hint + ": T." + func->params[i]->dtype.ToString();
    }
  }
  return out + ")";
}

}  // namespace wb::lang
