// The base of TensorIR's scalar expressions and the module-level objects shared by every
// dialect: types, ranges, operators, global references, functions and the IRModule.
#pragma once

#include <string>
#include <vector>

#include "ir/object.h"

namespace wb::ir {

// --- Types -------------------------------------------------------------------------------------

class TypeNode : public Object {
 public:
  WB_NODE_BASE(TypeNode, kTypeBegin, kTypeEnd, Object)
};
using Type = Ref<TypeNode>;

// A scalar or vector type: `T.int32`.
class PrimTypeNode : public TypeNode {
 public:
  WB_NODE_FINAL(PrimTypeNode, kPrimType, TypeNode)
  DataType dtype;
  void VisitFields(FieldVisitor* v) override;
};
using PrimType = Ref<PrimTypeNode>;
PrimType MakePrimType(DataType dtype);

// A typed pointer with its storage scope: `T.handle("float32", "shared")`.
class PointerTypeNode : public TypeNode {
 public:
  WB_NODE_FINAL(PointerTypeNode, kPointerType, TypeNode)
  Type element_type;  // a PrimType, or null for `void*`
  std::string storage_scope;
  void VisitFields(FieldVisitor* v) override;
};
using PointerType = Ref<PointerTypeNode>;
PointerType MakePointerType(Type element_type, std::string storage_scope = "global");

class TupleTypeNode : public TypeNode {
 public:
  WB_NODE_FINAL(TupleTypeNode, kTupleType, TypeNode)
  std::vector<Type> fields;
  void VisitFields(FieldVisitor* v) override;
};
using TupleType = Ref<TupleTypeNode>;
TupleType MakeTupleType(std::vector<Type> fields);

// --- Expressions -------------------------------------------------------------------------------

class PrimExprNode : public Object {
 public:
  WB_NODE_BASE(PrimExprNode, kPrimExprBegin, kPrimExprEnd, Object)
  DataType dtype;
};
using PrimExpr = Ref<PrimExprNode>;

// [min, min + extent)
class RangeNode : public Object {
 public:
  WB_NODE_FINAL(RangeNode, kRange, Object)
  PrimExpr min;
  PrimExpr extent;
  void VisitFields(FieldVisitor* v) override;
};
using Range = Ref<RangeNode>;
Range MakeRange(PrimExpr min, PrimExpr extent, Span span = {});

// A named operator (`tirx.exp`, `tirx.if_then_else`); one node per name, compared by identity.
// Properties live in the op registry of the dialect that defines it.
class OpNode : public Object {
 public:
  WB_NODE_FINAL(OpNode, kOp, Object)
  std::string name;
  void VisitFields(FieldVisitor* v) override;
};
using Op = Ref<OpNode>;

// --- Functions and modules ---------------------------------------------------------------------

class BaseFuncNode : public Object {
 public:
  WB_NODE_BASE(BaseFuncNode, kBaseFuncBegin, kBaseFuncEnd, Object)
  AttrMap attrs;

  const Object* GetAttr(const std::string& key) const;
  // The `global_symbol` attribute, or "" when the function is private.
  std::string global_symbol() const;
};
using BaseFunc = Ref<BaseFuncNode>;

// A reference to a function of the enclosing module, by name.
class GlobalVarNode : public Object {
 public:
  WB_NODE_FINAL(GlobalVarNode, kGlobalVar, Object)
  std::string name_hint;
  void VisitFields(FieldVisitor* v) override;
};
using GlobalVar = Ref<GlobalVarNode>;
GlobalVar MakeGlobalVar(std::string name, Span span = {});

// A module of functions, kept sorted by name (the printer orders them TVM's way).
class IRModuleNode : public Object {
 public:
  WB_NODE_FINAL(IRModuleNode, kIRModule, Object)
  std::vector<GlobalVar> global_vars;
  std::vector<BaseFunc> functions;  // parallel to global_vars
  AttrMap attrs;
  // TVM's global_infos: a kind ("vdevice") to an ArrayObj of GlobalInfo nodes (VDevice).
  AttrMap global_infos;

  void VisitFields(FieldVisitor* v) override;
  // Lookup by name; null when absent.
  GlobalVar GetGlobalVar(const std::string& name) const;
  BaseFunc Lookup(const std::string& name) const;
  BaseFunc Lookup(const GlobalVar& var) const;
  size_t size() const { return functions.size(); }
};
using IRModule = Ref<IRModuleNode>;

IRModule MakeIRModule(std::vector<GlobalVar> vars, std::vector<BaseFunc> funcs, AttrMap attrs = {},
                      Span span = {});
// A module holding `funcs` under `vars` and everything else of `module` (attrs, global_infos,
// span): how a pass rebuilds a module, so that module-level data is never dropped.
IRModule WithFunctions(const IRModule& module, std::vector<GlobalVar> vars,
                       std::vector<BaseFunc> funcs);
// Returns a copy of `module` with `func` under `var` (added or replaced).
IRModule WithFunction(const IRModule& module, const GlobalVar& var, const BaseFunc& func);

}  // namespace wb::ir
