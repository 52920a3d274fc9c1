// The TensorIR half of the printer: PrimFunc signatures, statements and expressions, in the
// canonical forms of TVM's printer (shared/TVMSCRIPT.md §2-§7).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "script/printer_doc.h"
#include "tir/functor.h"

namespace wb::script::printer {

// Python operator precedence, loosest first.
enum Prec : int {
  kPrecLambda = 1,
  kPrecIfElse,
  kPrecOr,
  kPrecAnd,
  kPrecNot,
  kPrecCompare,
  kPrecBitOr,
  kPrecBitXor,
  kPrecBitAnd,
  kPrecShift,
  kPrecAdd,
  kPrecMul,
  kPrecUnary,
  kPrecPow,
  kPrecAtom,
};

struct ExprDoc {
  std::string text;
  int prec = kPrecAtom;
};

// Where a statement's lines go, and whether it is the last of its sequence (concise scoping).
struct Emit {
  std::vector<Line>* out;
  bool last;
};

// Prints one PrimFunc. One instance per function; `module` (may be null) resolves calls to
// module functions as `Module.f`.
class TIRPrinter : private tir::ExprFunctor<ExprDoc(const ir::PrimExpr&)>,
                   private tir::StmtFunctor<void(const tir::Stmt&, Emit)> {
 public:
  explicit TIRPrinter(const ir::IRModuleNode* module) : module_(module) {}

  // The decorated `def` (decorator line, then the def with its body). Lines that must precede
  // the decorator (`n = TypeVar("n")`) go to `pre_lines`.
  std::vector<Line> PrintFunction(const tir::PrimFunc& func, const std::string& name,
                                  std::vector<Line>* pre_lines);
  bool used_typevar() const { return used_typevar_; }
  // `{"key": value, ...}` for module-level attributes.
  std::string PrintAttrDict(const ir::AttrMap& map) { return AttrDict(map); }

 private:
  // --- names and definitions (printer_tir_stmt.cpp) ---
  std::string Define(const ir::Object* obj, std::string_view hint,
                     std::string_view empty_hint = "v");
  // Binds `obj` to an exact text (`A.data`) in the current scope.
  void Alias(const ir::Object* obj, std::string text);
  bool IsDefined(const ir::Object* obj) const { return name_of_.count(obj) != 0; }
  void PushScope();
  void PopScope();
  // Takes the free-variable uses gathered while printing a line's text.
  Line MakeLine(std::string text, bool compound = false);

  // --- expressions (printer_tir_expr.cpp) ---
  ExprDoc Print(const ir::PrimExpr& e);
  std::string P(const ir::PrimExpr& e) { return Print(e).text; }
  std::string PrintVarUse(const tir::VarNode* var);
  std::string VarCreation(const tir::VarNode* var);
  std::string TypeText(const ir::Type& type, ir::DataType dtype);
  std::string DTypeText(ir::DataType dtype) { return "T." + dtype.ToString(); }
  // The buffer's name; a scalar buffer used as an object prints `t.buffer`.
  std::string BufferName(const tir::Buffer& buffer);
  // A scalar buffer's bare name `t` (for element 0).
  std::string ScalarName(const tir::Buffer& buffer);
  // Whether an access to `buffer` at `indices` prints as the bare scalar name.
  bool IsScalarAccess(const tir::Buffer& buffer, const std::vector<ir::PrimExpr>& indices) const;
  // Whether an AllocBuffer prints in the scalar form `t: T.int32` (CONVENTIONS.md).
  bool IsScalarBuffer(const tir::AllocBufferNode* op) const;
  std::string Indices(const std::vector<ir::PrimExpr>& indices, bool slices);
  std::string Region(const tir::BufferRegion& region);
  std::string AttrValue(const ir::ObjectRef& value);
  std::string AttrDict(const ir::AttrMap& map);
  std::string CommReducerText(const tir::CommReducerNode* reducer);
  std::string Binary(const tir::BinaryNode* op, ir::TypeIndex kind);
  std::string Operand(const ir::PrimExpr& e, int parent, bool right);
  std::string Call(const std::string& callee, const std::vector<std::string>& args);

#define WB_DECL(Name) ExprDoc VisitExpr_(const tir::Name##Node* op) override;
  WB_EXPR_NODES(WB_DECL)
#undef WB_DECL

  // --- buffers (printer_tir_stmt.cpp) ---
  // The arguments of a buffer declaration: shape, dtype (always or only when not float32), then
  // the non-default keywords in TVM's order. Defines the data pointer as `B.data` when new.
  std::vector<std::string> BufferArgs(const tir::Buffer& buffer, const std::string& name,
                                      bool always_dtype, bool print_data, bool print_scope = true);
  std::vector<std::string> BufferKeywords(const tir::Buffer& buffer, const std::string& name,
                                          bool print_data, bool print_scope);
  std::string DefineBuffer(const tir::Buffer& buffer);
  // `P.view("uint32")` / `P.view(4096)` when `buffer` (a DeclBuffer) views an already printed
  // buffer P's memory as the parser reads that sugar (TVMSCRIPT.md, DeclBuffer view sugar);
  // empty when the sugar does not apply.
  std::string ViewSugar(const tir::Buffer& buffer);

  // --- statements (printer_tir_stmt.cpp) ---
  void PrintBody(const tir::Stmt& body, std::vector<Line>* out);
  // `t: T.int32` or, merged with its first store, `t: T.int32 = value` (store may be null).
  void PrintScalarAlloc(const tir::AllocBufferNode* op, const tir::BufferStoreNode* store,
                        Emit emit);
  void PrintBlockContents(const tir::SBlockNode* block, const tir::SBlockRealizeNode* realize,
                          std::vector<Line>* out);
  void PrintAttr(const tir::AttrStmtNode* op, Emit emit);
  void PrintLaunchThread(const tir::AttrStmtNode* op, const tir::IterVarNode* iv, Emit emit);
  // Prints `header` then `body`: as a plain statement followed by the body at the same level
  // when `concise`, else as `with header:` around the body.
  void ScopedBody(std::string header, const tir::Stmt& body, Emit emit, bool concise);

#define WB_DECL(Name) void VisitStmt_(const tir::Name##Node* op, Emit emit) override;
  WB_STMT_NODES(WB_DECL)
#undef WB_DECL

  // --- the signature (printer_module.cpp) ---
  std::string ParamText(const tir::PrimFuncNode* func, size_t index,
                        std::unordered_set<const ir::Object*>* later_params,
                        std::vector<std::string>* decls);
  std::string SignatureDim(const ir::PrimExpr& dim,
                           std::unordered_set<const ir::Object*>* later_params,
                           std::vector<std::string>* new_vars);

  const ir::IRModuleNode* module_;
  bool s_tir_ = false;
  bool used_typevar_ = false;
  NameTable names_;
  std::unordered_map<const ir::Object*, std::string> name_of_;
  // What each open scope defined, with the name each object had before (when redefined).
  struct ScopedName {
    const ir::Object* object;
    std::optional<std::string> previous;
  };
  std::vector<std::vector<ScopedName>> scope_objects_{1};
  // Free variables met so far, in order of first use, with their declarations.
  std::vector<FreeDecl> free_;
  std::unordered_map<const ir::Object*, std::vector<const ir::Object*>> free_deps_;
  std::vector<const ir::Object*> pending_uses_;
  // Declarations that replace `x = T.int32()` for particular free vars (env threads).
  std::unordered_map<const ir::Object*, std::string> custom_decl_;
  // Enclosing loops, by loop variable (for `T.axis.remap`).
  std::unordered_map<const tir::VarNode*, const tir::ForNode*> loops_;
  // The buffer whose data pointer prints as `P.data`, by data variable (for the view sugar).
  std::unordered_map<const ir::Object*, const tir::BufferNode*> data_owner_;
  // Buffers printed in the scalar form `t: T.int32`.
  std::unordered_set<const ir::Object*> scalar_buffers_;
  // How often each variable is used in the function body.
  std::unordered_map<const ir::Object*, int> use_count_;
  // While printing a parameter: where declarations of new signature variables go (strides).
  std::vector<std::string>* signature_decls_ = nullptr;
  // How often each variable occurs in the signature's buffers (shape, strides, elem_offset).
  std::unordered_map<const ir::Object*, int> signature_count_;
  // Signature variables written as `TypeVar`s (int64) or quoted strings still to be declared.
  std::unordered_set<const ir::Object*> typevars_;
};

}  // namespace wb::script::printer
