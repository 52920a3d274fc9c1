// The Relax half of the TVMScript printer: `@R.function`s, their types, bindings and
// expressions, and `R.ExternFunc` module members, in the canonical forms of TVM's printer
// (shared/TVMSCRIPT.md §8). The module printer (printer_module.cpp) orders the functions and
// writes the header; this file prints one function at a time.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "relax/expr.h"
#include "script/printer_doc.h"
#include "tir/index_map.h"

namespace wb::script::printer {

// Which namespaces the printout has used so far, in TVM's header order. Nested Relax functions
// repeat the header lines "used so far" before themselves, so this is shared along a printout.
struct ScriptUsage {
  bool typevar = false;
  bool ir = false;
  bool tir = false;
  bool relax = false;
  // Non-scalar constants sent to `metadata["relax.expr.Constant"][i]`, in order.
  std::vector<ir::ObjectRef> constants;
};

// The commented import lines for `usage`, each followed by a newline, without the final empty
// line.
std::vector<std::string> HeaderLines(const ScriptUsage& usage);

// Prints Relax functions of one module (null for standalone functions).
class RelaxPrinter {
 public:
  RelaxPrinter(const ir::IRModuleNode* module, ScriptUsage* usage)
      : module_(module), usage_(usage) {}

  // The decorated def; `pre_lines` receives the `n = TypeVar("n")` lines that go before it.
  std::vector<Line> PrintFunction(const relax::Function& func, const std::string& name,
                                  std::vector<Line>* pre_lines);
  // `name = R.ExternFunc("symbol")` as a module member.
  Line PrintExternMember(const relax::ExternFunc& func, const std::string& name);

  // Canonical text of a type in a Relax context (`R.Tensor((n, 4), dtype="float32")`), for
  // diagnostics; symbolic vars print by name.
  static std::string TypeText(const ir::Type& type);

 private:

  std::vector<Line> PrintFunctionImpl(const relax::FunctionNode* f, const std::string& name,
                                      std::vector<Line>* pre_lines, bool top_level);
  void PrintSeqBody(const relax::SeqExprNode* seq, std::vector<Line>* out);
  void PrintBinding(const relax::BindingNode* binding, std::vector<Line>* out);
  // The bindings of an If's branch, ending with `dest: ann = value`.
  void PrintBranch(const ir::ObjectRef& branch, const std::string& dest, const std::string& ann,
                   std::vector<Line>* out);

  std::string Expr(const ir::ObjectRef& expr);
  std::string Callee(const ir::ObjectRef& expr);
  std::string CallText(const relax::CallNode* call);
  std::string Type(const ir::Type& type);
  // A vdevice as TVMScript names it, `"cuda:0"` (its index among the module's vdevices of that
  // kind); throws when the module does not list it, since the text could not be parsed back.
  std::string VDeviceText(const ir::ObjectRef& vdevice);
  std::string Dim(const ir::PrimExpr& dim);
  std::string Prim(const ir::PrimExpr& e, int* prec);
  std::string AttrValue(const ir::ObjectRef& value);
  std::string ConstantText(const relax::ConstantNode* c);
  std::string GlobalText(const ir::GlobalVarNode* gv);

  std::string DefineVar(const relax::VarNode* var);
  std::string IndexMapText(const tir::IndexMapNode* map);
  std::string VarName(const ir::Object* var);

  const ir::IRModuleNode* module_;
  ScriptUsage* usage_;
  NameTable names_;
  std::unordered_map<const ir::Object*, std::string> name_of_;
  // Signature dims print quoted when they are compound expressions over TypeVars.
  bool in_signature_ = false;
  std::unordered_set<const ir::Object*> typevars_;
  // The top-level function's prelude (`cls = Module`, `m = T.int64()`), in order of first use.
  std::vector<Line>* prelude_ = nullptr;
  bool cls_printed_ = false;
  // With `standalone_`, TypeText mode: never define anything, print var hints as they are.
  bool text_only_ = false;
  bool in_dataflow_ = false;  // printing the bindings of an R.dataflow() block
};

}  // namespace wb::script::printer
