// Relax: the graph-level dialect of an IRModule (TVM's relax.expr). Functions are sequences of
// binding blocks over immutable values; every expression carries its inferred type (TVM's
// struct_info_), filled in by the BlockBuilder/normalizer (relax/block_builder.h).
//
// A Relax expression is any node in the TypeIndex range [kRelaxFunction, kRelaxExprEnd): the
// nodes below, Relax functions and extern functions (which are also BaseFuncs of the module),
// GlobalVars and ir Ops. Those share no C++ base class, so `Expr` is an ObjectRef and IsExpr()
// checks the range; ExprNode is the base of the kinds defined here (kRelaxVar..kSeqExpr), which
// store their type in the node. GetType() answers for every kind.
//
// Reflection (VisitFields) follows TVM's structural-equality flags: binding sites (function
// params, binding vars, match_cast's target type) are FieldKind::kDef, so symbolic shape vars
// first met there are mapped; inferred types of non-variable expressions are derived, so they are
// kIgnore (still saved to JSON).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "relax/type.h"

namespace wb::relax {

using ir::AttrMap;
using ir::GetRef;
using ir::GlobalVar;
using ir::Op;
using ir::TypeIndex;

using Expr = ObjectRef;

// True for every Relax expression kind (the range above).
bool IsExpr(const Object* node);

// Base of the Relax expression kinds defined in this module.
class ExprNode : public Object {
 public:
  WB_NODE_BASE(ExprNode, kRelaxVar, kRelaxExprEnd, Object)
  Type struct_info;  // the inferred type; null before normalization
};

// --- Leaves ----------------------------------------------------------------------------------

// A variable bound once: a function parameter or a binding's left-hand side. Its type is its
// annotation and part of its identity (compared structurally).
class VarNode : public ExprNode {
 public:
  WB_NODE_BASE(VarNode, kRelaxVar, kConstant, ExprNode)
  std::string name_hint;
  ir::Object* Clone() const override { return new VarNode(*this); }
  void VisitFields(FieldVisitor* v) override;
};
using Var = Ref<VarNode>;

// A variable bound inside a dataflow block and invisible outside it.
class DataflowVarNode : public VarNode {
 public:
  WB_NODE_FINAL(DataflowVarNode, kDataflowVar, VarNode)
};
using DataflowVar = Ref<DataflowVarNode>;

// A tensor literal (R.const). The bytes are owned here in row-major order, little-endian, with
// no runtime dependency; JSON writes them as hex.
class ConstantNode : public ExprNode {
 public:
  WB_NODE_FINAL(ConstantNode, kConstant, ExprNode)
  DataType dtype;
  std::vector<int64_t> shape;
  std::string data;  // raw bytes: product(shape) * dtype.bytes()
  void VisitFields(FieldVisitor* v) override;
};
using Constant = Ref<ConstantNode>;

class TupleNode : public ExprNode {
 public:
  WB_NODE_FINAL(TupleNode, kTuple, ExprNode)
  std::vector<Expr> fields;
  void VisitFields(FieldVisitor* v) override;
};
using Tuple = Ref<TupleNode>;

class TupleGetItemNode : public ExprNode {
 public:
  WB_NODE_FINAL(TupleGetItemNode, kTupleGetItem, ExprNode)
  Expr tuple;
  int64_t index = 0;
  void VisitFields(FieldVisitor* v) override;
};
using TupleGetItem = Ref<TupleGetItemNode>;

// R.shape([n, 4]): a shape value; the dims are TensorIR expressions over symbolic vars.
class ShapeExprNode : public ExprNode {
 public:
  WB_NODE_FINAL(ShapeExprNode, kShapeExpr, ExprNode)
  std::vector<PrimExpr> values;
  void VisitFields(FieldVisitor* v) override;
};
using ShapeExpr = Ref<ShapeExprNode>;

// R.prim_value(e): a TensorIR scalar as a Relax value.
class PrimValueNode : public ExprNode {
 public:
  WB_NODE_FINAL(PrimValueNode, kPrimValue, ExprNode)
  PrimExpr value;
  void VisitFields(FieldVisitor* v) override;
};
using PrimValue = Ref<PrimValueNode>;

// R.str("...").
class StringImmNode : public ExprNode {
 public:
  WB_NODE_FINAL(StringImmNode, kRelaxStringImm, ExprNode)
  std::string value;
  void VisitFields(FieldVisitor* v) override;
};
using StringImm = Ref<StringImmNode>;

// R.dtype("float32").
class DataTypeImmNode : public ExprNode {
 public:
  WB_NODE_FINAL(DataTypeImmNode, kDataTypeImm, ExprNode)
  DataType value;
  void VisitFields(FieldVisitor* v) override;
};
using DataTypeImm = Ref<DataTypeImmNode>;

// --- Compound expressions --------------------------------------------------------------------

// A call. `op` is an ir Op (a registered Relax op, relax/op/registry.h), a GlobalVar (a Relax
// function or PrimFunc of the module), an ExternFunc, or a Var of function type. `attrs` are the
// op's attributes by name (the registry gives their order and defaults); `sinfo_args` are the
// explicit result types some ops take (call_tir's out_sinfo, call_dps_packed's).
class CallNode : public ExprNode {
 public:
  WB_NODE_FINAL(CallNode, kRelaxCall, ExprNode)
  Expr op;
  std::vector<Expr> args;
  AttrMap attrs;
  std::vector<Type> sinfo_args;
  void VisitFields(FieldVisitor* v) override;
};
using Call = Ref<CallNode>;

class IfNode : public ExprNode {
 public:
  WB_NODE_FINAL(IfNode, kRelaxIf, ExprNode)
  Expr cond;
  Expr true_branch;  // each branch is a SeqExpr after normalization
  Expr false_branch;
  void VisitFields(FieldVisitor* v) override;
};
using If = Ref<IfNode>;

// --- Bindings and blocks ---------------------------------------------------------------------

class BindingNode : public Object {
 public:
  WB_NODE_BASE(BindingNode, kBindingBegin, kBindingEnd, Object)
  Var var;
};
using Binding = Ref<BindingNode>;

// var = value
class VarBindingNode : public BindingNode {
 public:
  WB_NODE_FINAL(VarBindingNode, kVarBinding, BindingNode)
  Expr value;
  void VisitFields(FieldVisitor* v) override;
};
using VarBinding = Ref<VarBindingNode>;

// var = R.match_cast(value, struct_info): checks `value` at run time against a type and binds
// the symbolic vars that the type introduces.
class MatchCastNode : public BindingNode {
 public:
  WB_NODE_FINAL(MatchCastNode, kMatchCast, BindingNode)
  Expr value;
  Type struct_info;
  void VisitFields(FieldVisitor* v) override;
};
using MatchCast = Ref<MatchCastNode>;

// A sequence of bindings. A DataflowBlock (`with R.dataflow():`) holds only pure bindings; its
// DataflowVars are local to it and the plain Vars it binds are its outputs.
class BindingBlockNode : public Object {
 public:
  WB_NODE_BASE(BindingBlockNode, kBindingBlock, kPrimExprBegin, Object)
  std::vector<Binding> bindings;
  ir::Object* Clone() const override { return new BindingBlockNode(*this); }
  void VisitFields(FieldVisitor* v) override;
};
using BindingBlock = Ref<BindingBlockNode>;

class DataflowBlockNode : public BindingBlockNode {
 public:
  WB_NODE_FINAL(DataflowBlockNode, kDataflowBlock, BindingBlockNode)
};
using DataflowBlock = Ref<DataflowBlockNode>;

// Blocks then a result: a function body or an If branch.
class SeqExprNode : public ExprNode {
 public:
  WB_NODE_FINAL(SeqExprNode, kSeqExpr, ExprNode)
  std::vector<BindingBlock> blocks;
  Expr body;
  void VisitFields(FieldVisitor* v) override;
};
using SeqExpr = Ref<SeqExprNode>;

// --- Functions -------------------------------------------------------------------------------

// A Relax function (@R.function). Its type is a FuncType of the params' types and
// ret_struct_info, stored in struct_info.
class FunctionNode : public ir::BaseFuncNode {
 public:
  WB_NODE_FINAL(FunctionNode, kRelaxFunction, ir::BaseFuncNode)
  std::vector<Var> params;
  Expr body;  // a SeqExpr after normalization
  Type ret_struct_info;
  bool is_pure = true;
  Type struct_info;  // FuncType(params' types, ret_struct_info, is_pure)
  void VisitFields(FieldVisitor* v) override;
};
using Function = Ref<FunctionNode>;

// A function that lives outside the module, called by symbol (R.ExternFunc("name")).
class ExternFuncNode : public ir::BaseFuncNode {
 public:
  WB_NODE_FINAL(ExternFuncNode, kExternFunc, ir::BaseFuncNode)
  std::string global_symbol;
  Type struct_info;  // a PackedFuncType unless declared more precisely
  void VisitFields(FieldVisitor* v) override;
};
using ExternFunc = Ref<ExternFuncNode>;

// --- Constructors ----------------------------------------------------------------------------
// Leaves get their type here (a Var its annotation, a Constant its tensor type); compound nodes
// get theirs from the BlockBuilder's normalizer, except where the type is given.

Var MakeVar(std::string name, Type struct_info, Span span = {});
DataflowVar MakeDataflowVar(std::string name, Type struct_info, Span span = {});
// `data` must hold product(shape) * bytes(dtype) bytes; throws std::invalid_argument otherwise.
Constant MakeConstant(DataType dtype, std::vector<int64_t> shape, std::string data, Span span = {});
Tuple MakeTuple(std::vector<Expr> fields, Span span = {});
TupleGetItem MakeTupleGetItem(Expr tuple, int64_t index, Span span = {});
ShapeExpr MakeShapeExpr(std::vector<PrimExpr> values, Span span = {});
PrimValue MakePrimValue(PrimExpr value, Span span = {});
StringImm MakeStringImm(std::string value, Span span = {});
DataTypeImm MakeDataTypeImm(DataType value, Span span = {});
Call MakeCall(Expr op, std::vector<Expr> args, AttrMap attrs = {},
              std::vector<Type> sinfo_args = {}, Span span = {});
If MakeIf(Expr cond, Expr true_branch, Expr false_branch, Span span = {});
VarBinding MakeVarBinding(Var var, Expr value, Span span = {});
MatchCast MakeMatchCast(Var var, Expr value, Type struct_info, Span span = {});
BindingBlock MakeBindingBlock(std::vector<Binding> bindings, Span span = {});
DataflowBlock MakeDataflowBlock(std::vector<Binding> bindings, Span span = {});
SeqExpr MakeSeqExpr(std::vector<BindingBlock> blocks, Expr body, Span span = {});
// `ret_struct_info` null: taken from the body's type (the body must then be typed).
Function MakeFunction(std::vector<Var> params, Expr body, Type ret_struct_info = {},
                      bool is_pure = true, AttrMap attrs = {}, Span span = {});
ExternFunc MakeExternFunc(std::string global_symbol, Type struct_info = {}, Span span = {});

// The type of any Relax expression: the stored one for the kinds above and for functions; for a
// GlobalVar null (the module knows it; see BlockBuilder::GetType), for an Op ObjectType.
Type GetType(const Expr& expr);
// A copy of `expr` (a kind defined here, not a Var) with its type set.
Expr WithType(const Expr& expr, Type type);

}  // namespace wb::relax
