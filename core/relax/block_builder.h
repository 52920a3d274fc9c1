// The BlockBuilder: how Relax functions are built (by the script parser, importers and passes),
// and the normalizer that gives every expression its type as it is built (TVM's
// relax.BlockBuilder). Types are inferred bottom-up when a binding is emitted, through the op
// registry for op calls; a failure becomes a Diagnostic at the call's span and the binding is
// left untyped, which silences errors that would only repeat it.
//
// Symbolic shape vars are tracked as in TVM: a function's parameter types define the tirx.Vars
// they mention, R.match_cast defines the ones its target type adds, and every later mention by
// name resolves to the same tirx.Var (LookupSymbolicVar), across bindings and functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "relax/expr.h"
#include "support/diagnostic.h"
#include "tir/expr.h"

namespace wb::relax {

class BlockBuilder {
 public:
  // `context`: the module whose functions calls by GlobalVar refer to (may be null).
  explicit BlockBuilder(ir::IRModule context = {});

  // --- Functions ------------------------------------------------------------------------------
  // Opens a function scope. The params' types define the symbolic vars they mention.
  void BeginFunction(std::string name, std::vector<Var> params, AttrMap attrs = {},
                     bool is_pure = true, Span span = {});
  // Closes the function with `output` as its result (emitted blocks become a SeqExpr), adds it
  // to the module under its name, and returns it. `ret_type` null: the output's type.
  Function EndFunction(Expr output, Type ret_type = {});
  // Adds (or replaces) a function of the module.
  GlobalVar AddFunction(const ir::BaseFunc& func, const std::string& name);
  ir::IRModule GetModule() const { return module_; }

  // --- Blocks ---------------------------------------------------------------------------------
  void BeginDataflowBlock(Span span = {});
  void BeginBindingBlock(Span span = {});
  // Ends the current block; it becomes part of the current function (empty blocks are dropped).
  BindingBlock EndBlock();
  bool InDataflowBlock() const;

  // --- Bindings -------------------------------------------------------------------------------
  // Normalizes `value` and binds it to a new var: a DataflowVar inside a dataflow block, a Var
  // otherwise. The var's type is the value's inferred type.
  Var Emit(Expr value, std::string name_hint = "", Span span = {});
  // Binds a var (annotated by the caller, e.g. `lv: R.Tensor((n,), "float32") = ...`); the value
  // must fit the annotation.
  Var EmitBinding(Var var, Expr value, Span span = {});
  // Inside a dataflow block: binds a plain Var, visible after the block (TVM's emit_output).
  Var EmitOutput(Expr value, std::string name_hint = "", Span span = {});
  // var = R.match_cast(value, type): the symbolic vars that `type` mentions and that are not
  // yet defined become defined.
  Var EmitMatchCast(Expr value, Type type, std::string name_hint = "", Span span = {});

  // Gives `expr` and everything under it a type (calls through the op registry, tuples from
  // their fields, SeqExprs and Ifs from their bodies). Already typed nodes are kept as they are.
  Expr Normalize(const Expr& expr);
  // The type of a normalized expression; functions of the module for GlobalVars.
  Type TypeOf(const Expr& expr) const;

  // --- Symbolic vars --------------------------------------------------------------------------
  // The defined symbolic var named `name` in the current function, or null.
  tir::Var LookupSymbolicVar(const std::string& name) const;
  // Defines the symbolic vars in `type` that are not yet defined (for the parser's annotations).
  void DefineSymbolicVars(const Type& type);

  const DiagnosticList& diagnostics() const { return diagnostics_; }

 private:
  struct BlockFrame {
    bool dataflow = false;
    Span span;
    std::vector<Binding> bindings;
  };
  struct FunctionFrame {
    std::string name;
    std::vector<Var> params;
    AttrMap attrs;
    bool is_pure = true;
    Span span;
    std::vector<BindingBlock> blocks;
    std::map<std::string, tir::Var> symbolic_vars;
    size_t block_depth = 0;  // blocks open when the function began (an enclosing function's)
  };

  Type InferCall(const Call& call);
  void EnsureBlock(const Span& span);
  std::string FreshName(std::string hint);
  void Error(std::string message, Span span);

  ir::IRModule module_;
  std::vector<FunctionFrame> functions_;
  std::vector<BlockFrame> blocks_;
  std::map<std::string, int> name_counts_;
  DiagnosticList diagnostics_;
};

}  // namespace wb::relax
