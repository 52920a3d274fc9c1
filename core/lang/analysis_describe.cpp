#include "lang/analysis_describe.h"

#include <sstream>

#include "relax/expr.h"
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


namespace {

std::string RelaxSignatureText(const std::string& name, const relax::FunctionNode* func) {
  std::string out = "def " + name + "(";
  for (size_t i = 0; i < func->params.size(); ++i) {
    out += (i ? ", " : "") + func->params[i]->name_hint + ": " + relax::TypeToString(func->params[i]->struct_info);
  }
  out += ")";
  if (func->ret_struct_info.defined()) out += " -> " + relax::TypeToString(func->ret_struct_info);
  return out;
}

}  // namespace

std::string DecoratorText(const ir::BaseFuncNode* func) {
  return ir::IsInstance<relax::FunctionNode>(func) ? "@R.function" : "@T.prim_func";
}

std::string FunctionKindText(const ir::BaseFuncNode* func) {
  return ir::IsInstance<relax::FunctionNode>(func) ? "Relax function" : "PrimFunc";
}

std::string SignatureText(const std::string& name, const ir::BaseFuncNode* base) {
  if (ir::IsInstance<relax::FunctionNode>(base)) {
    return RelaxSignatureText(name, static_cast<const relax::FunctionNode*>(base));
  }
  if (!ir::IsInstance<tir::PrimFuncNode>(base)) return "def " + name;
  auto func = static_cast<const tir::PrimFuncNode*>(base);
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
