// `T.index_map(lambda i, j: (j, i), inverse_index_map=None, index_dtype="int64")`: a TensorIR
// IndexMap, as R.layout_transform's attribute holds it. The lambda's parameters are fresh index
// variables of `index_dtype` (int64 by default, as in TVM's Python API). A bare lambda where an
// attribute is expected (`R.layout_transform(x, index_map=lambda i, j: (j, i))`) is the same
// map with int64 indices, as TVM's IndexMap.from_func makes it.
#include "script/parser_core.h"
#include "tir/index_map.h"

namespace wb::script::detail {

using namespace wb::tir;

Value Parser::IndexMapCall(const Args& args) {
  Node n = args.call;
  if (args.pos.size() != 1) Fail(n, "T.index_map expects one lambda");
  DataType dtype = DataType::Int(64);
  for (const auto& [key, value] : args.kw) {
    if (key == "index_dtype") {
      Value v = Eval(value);
      if (v.kind == VK::kDType) {
        dtype = v.dtype;
      } else {
        std::optional<DataType> parsed = DataType::Parse(ToStr(v, value));
        if (!parsed) Fail(value, "unknown index_dtype");
        dtype = *parsed;
      }
      if (!dtype.is_int() && !dtype.is_uint()) Fail(value, "index_dtype must be an integer type");
    } else if (key != "inverse_index_map") {
      Fail(value, "T.index_map got an unexpected keyword argument '" + std::string(key) + "'");
    }
  }
  auto lambda_map = [&](Node lambda) { return LambdaIndexMap(lambda, dtype); };
  IndexMap map = lambda_map(args.pos[0]);
  if (Node inv = args.Kw("inverse_index_map"); !IsNull(inv) && Kind(inv) == K::kLambda) {
    auto* node = map.CopyOnWrite();
    node->inverse_index_map = lambda_map(inv);
  }
  return Value::Of(VK::kObject, map);
}

IndexMap Parser::LambdaIndexMap(Node lambda, DataType dtype) {
  if (Kind(lambda) != K::kLambda) Fail(lambda, "T.index_map expects a lambda");
  std::vector<Node> params;
  Node plist = Field(lambda, F().parameters);
  if (!IsNull(plist)) params = cst_->Children(plist);
  std::vector<Var> vars;
  PushScope();
  std::vector<PrimExpr> final_indices;
  try {
    for (Node p : params) {
      if (Kind(p) != K::kIdentifier) Fail(p, "expected a parameter name");
      Var v = MakeVar(std::string(Text(p)), dtype, SpanOf(p));
      vars.push_back(v);
      Bind(Text(p), Value::Expr(v));
    }
    Node body = Field(lambda, F().body);
    Value result = Eval(body);
    if (result.is_seq()) {
      for (const auto& item : ToSeq(result, body)) final_indices.push_back(ToPrim(item, body));
    } else {
      final_indices.push_back(ToPrim(result, body));
    }
  } catch (...) {
    PopScope();
    throw;
  }
  PopScope();
  return MakeIndexMap(vars, final_indices, {}, SpanOf(lambda));
}

}  // namespace wb::script::detail
