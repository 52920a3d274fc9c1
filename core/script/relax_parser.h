// The Relax half of the TVMScript parser: `@R.function`s (signatures, binding blocks, dataflow
// blocks, if/else, match_cast, nested functions), Relax types and expressions, and
// `name = R.ExternFunc(...)` module members. It runs inside the TIR parser (parser_core.h),
// sharing its CST, scopes, diagnostics and PrimExpr evaluation; parser_module.cpp dispatches
// here. How constructs map onto the IR: CONVENTIONS.md, "Relax".
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "relax/block_builder.h"
#include "relax/expr.h"
#include "relax/op/registry.h"
#include "script/parser_core.h"

namespace wb::script::detail {

// True for `R.function` / `relax.function` decorators (the call or the bare name).
bool IsRelaxDecorator(std::string_view text);
// Parses a decorated `@R.function` def at module or top level; the function is added to the
// parser's module under `gv`.
void ParseRelaxFunction(Parser& p, Node def, Node decorator, const ir::GlobalVar& gv);
// A class-level `name = R.ExternFunc("symbol"[, type])`; false when `right` is not one.
bool ParseRelaxClassAssignment(Parser& p, Node left, Node right);
// The printed metadata header `metadata = tvm.ir.load_json("""...""")` (non-scalar Relax
// constants); false when the assignment is not one.
bool ParseRelaxMetadata(Parser& p, Node left, Node right);

// Parses one Relax function. One instance per top-level function; nested functions reuse it.
class RelaxParser {
 public:
  explicit RelaxParser(Parser& p) : p_(p) {}

  relax::Function ParseFunction(Node def, Node decorator, const std::string& name,
                                bool top_level);
  ir::Type EvalType(Node n);

 private:
  // --- statements (relax_parser.cpp) ---
  struct SeqFrame {
    std::vector<relax::BindingBlock> blocks;
    std::vector<relax::Binding> bindings;  // the open plain block
  };
  void ParseStmts(const std::vector<Node>& stmts, bool allow_return, relax::Expr* result);
  void ParseStmt(Node s, const std::vector<Node>& stmts, size_t index, relax::Expr* result);
  void ParseAssign(Node assign);
  // `n = T.int64()` / `m, n = T.int64(), T.int64()`; false when the assignment is not one.
  bool DeclareSymbolicVars(Node left, Node right);
  void BindPlaceholders(Node stmt);
  void ParseDataflow(Node with_stmt);
  void ParseIf(Node s, const std::vector<Node>& stmts, size_t index);
  relax::Expr ParseBranch(Node block, std::string* name, Node* last);
  void ParseNestedFunction(Node def, Node decorator);
  relax::Var Emit(const std::string& name, relax::Expr value, const ir::Type& ann, Node n,
                  Node ann_node);
  relax::Var EmitMatchCast(const std::string& name, relax::Expr value, const ir::Type& type,
                     const ir::Type& ann, Node n);
  void PushBinding(relax::Binding binding);
  relax::SeqExpr FinishSeq(relax::Expr body, Span span);

  // --- expressions and types (relax_parser_expr.cpp) ---
  Value Eval(Node n);
  Value EvalCall(Node n);
  Value CallRelax(const std::string& name, const Args& args);
  Value CallOp(const relax::OpInfo& info, const Args& args);
  relax::Expr ShapeOperand(const relax::OpInfo& info, Node a);
  Value CallTIR(const std::string& name, const Args& args);
  // `R.const(value, dtype)`: a number or bool, or a nested list of them (numpy's array).
  relax::Constant MakeConst(Node value, Node dtype, Span span);
  // --- device placement (relax_parser_device.cpp) ---
  // R.to_vdevice / R.hint_on_device (R.device only as the latter's argument).
  Value CallDeviceOp(const std::string& name, const Args& args);
  // A vdevice named by its TVMScript text ("cuda:0"), resolved in the module's global infos.
  ir::VDevice VDeviceArg(Node n);
  // `R.device(dev_type, dev_id)` (or `tvm.cuda(0)`, ...) as a DLPack (type code, id) pair.
  std::pair<int64_t, int64_t> DeviceArg(Node n);
  Value CallFunction(const Value& callee, const Args& args, Node callee_node);
  relax::Expr ToExpr(const Value& v, Node n);
  ir::Type ToType(const Value& v, Node n);
  ir::ObjectRef ToAttr(const relax::AttrField& field, const Value& v, Node n);
  std::vector<ir::PrimExpr> EvalDims(Node n);
  ir::PrimExpr EvalDim(Node n);
  // Gives `expr` its type (op calls through the registry's inference); reports failures at `n`.
  relax::Expr Normalize(relax::Expr expr, Node n);
  ir::Type TypeOfGlobal(const ir::GlobalVar& gv, bool* pure);
  std::string TypeText(const ir::Type& t);
  Args CollectArgs(Node call);
  ir::ObjectRef MetadataItem(Node keyed, Node n);

  Parser& p_;
  // Types op calls (the normalizer's inference through the op registry).
  relax::BlockBuilder builder_;
  std::vector<SeqFrame> seqs_;
  bool in_dataflow_ = false;
  std::set<std::string> dataflow_outputs_;
  std::vector<relax::Binding> dataflow_bindings_;
  // Names of DataflowVars of closed blocks, for the "not visible outside" diagnostic.
  std::set<std::string> closed_dataflow_vars_;
  // The Vars bound by the open dataflow block (for R.output checks).
  std::set<const ir::Object*> block_vars_;
  ir::AttrMap func_attrs_;
  Node return_value_{};
  bool saw_func_attr_ = false;
};

}  // namespace wb::script::detail
