// Visitors and mutators over TensorIR: the only way passes walk the IR. Dispatch is a switch on
// the node's TypeIndex that the compiler checks for completeness.
#pragma once

#include <functional>
#include <utility>

#include "tir/stmt.h"

namespace wb::tir {

#define WB_EXPR_NODES(X)                                                                    \
  X(IntImm) X(FloatImm) X(StringImm) X(Var) X(SizeVar) X(Cast) X(Add) X(Sub) X(Mul) X(Div)  \
  X(Mod) X(FloorDiv) X(FloorMod) X(Min) X(Max) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(And) \
  X(Or) X(Not) X(Select) X(BufferLoad) X(Ramp) X(Broadcast) X(Shuffle) X(Let) X(Call)      \
  X(Reduce)

#define WB_STMT_NODES(X)                                                                     \
  X(Bind) X(AttrStmt) X(AssertStmt) X(BufferStore) X(AllocBuffer) X(DeclBuffer) X(For)      \
  X(While) X(IfThenElse) X(SeqStmt) X(Evaluate) X(SBlock) X(SBlockRealize) X(Break)        \
  X(Continue)

template <typename FType>
class ExprFunctor;

template <typename R, typename... Args>
class ExprFunctor<R(const PrimExpr&, Args...)> {
 public:
  virtual ~ExprFunctor() = default;
  R operator()(const PrimExpr& e, Args... args) { return VisitExpr(e, std::forward<Args>(args)...); }
  virtual R VisitExpr(const PrimExpr& e, Args... args) {
    switch (e->type_index()) {
#define WB_CASE(Name)      \
  case ir::TypeIndex::k##Name: \
    return VisitExpr_(static_cast<const Name##Node*>(e.get()), std::forward<Args>(args)...);
      WB_EXPR_NODES(WB_CASE)
#undef WB_CASE
      default:
        throw std::logic_error(std::string("ExprFunctor: not a PrimExpr: ") + e->type_key());
    }
  }
#define WB_DECL(Name) \
  virtual R VisitExpr_(const Name##Node* op, Args... args) = 0;
  WB_EXPR_NODES(WB_DECL)
#undef WB_DECL
};

template <typename FType>
class StmtFunctor;

template <typename R, typename... Args>
class StmtFunctor<R(const Stmt&, Args...)> {
 public:
  virtual ~StmtFunctor() = default;
  R operator()(const Stmt& s, Args... args) { return VisitStmt(s, std::forward<Args>(args)...); }
  virtual R VisitStmt(const Stmt& s, Args... args) {
    switch (s->type_index()) {
#define WB_CASE(Name)      \
  case ir::TypeIndex::k##Name: \
    return VisitStmt_(static_cast<const Name##Node*>(s.get()), std::forward<Args>(args)...);
      WB_STMT_NODES(WB_CASE)
#undef WB_CASE
      default:
        throw std::logic_error(std::string("StmtFunctor: not a Stmt: ") + s->type_key());
    }
  }
#define WB_DECL(Name) \
  virtual R VisitStmt_(const Name##Node* op, Args... args) = 0;
  WB_STMT_NODES(WB_DECL)
#undef WB_DECL
};

// Walks every expression (recursively); override what you need and call the base to recurse.
class ExprVisitor : public ExprFunctor<void(const PrimExpr&)> {
 public:
#define WB_DECL(Name) void VisitExpr_(const Name##Node* op) override;
  WB_EXPR_NODES(WB_DECL)
#undef WB_DECL
 protected:
  // Buffers appear inside loads; visiting their shape is opt-in.
  virtual void VisitBufferUse(const Buffer& buffer) {}
};

// Rebuilds expressions bottom-up, reusing every node whose children did not change.
class ExprMutator : public ExprFunctor<PrimExpr(const PrimExpr&)> {
 public:
#define WB_DECL(Name) PrimExpr VisitExpr_(const Name##Node* op) override;
  WB_EXPR_NODES(WB_DECL)
#undef WB_DECL
 protected:
  virtual Buffer VisitBufferUse(const Buffer& buffer) { return buffer; }
  std::vector<PrimExpr> VisitExprs(const std::vector<PrimExpr>& exprs, bool* changed);
};

class StmtVisitor : public StmtFunctor<void(const Stmt&)> {
 public:
#define WB_DECL(Name) void VisitStmt_(const Name##Node* op) override;
  WB_STMT_NODES(WB_DECL)
#undef WB_DECL
 protected:
  // Expressions inside statements; StmtExprVisitor routes these into an ExprVisitor.
  virtual void VisitExpr(const PrimExpr& e) {}
  virtual void VisitBufferRegion(const BufferRegion& region);
  virtual void VisitBufferDef(const Buffer& buffer);
  // Every buffer a statement reads or writes (stores, regions); loads go through ExprVisitor.
  virtual void VisitBufferUse(const Buffer& buffer) {}
};

class StmtMutator : public StmtFunctor<Stmt(const Stmt&)> {
 public:
#define WB_DECL(Name) Stmt VisitStmt_(const Name##Node* op) override;
  WB_STMT_NODES(WB_DECL)
#undef WB_DECL
 protected:
  virtual PrimExpr VisitExpr(const PrimExpr& e) { return e; }
  virtual BufferRegion VisitBufferRegion(const BufferRegion& region);
  virtual Buffer VisitBufferUse(const Buffer& buffer) { return buffer; }
  virtual Buffer VisitBufferDef(const Buffer& buffer) { return buffer; }
};

// Visits statements and every expression inside them.
class StmtExprVisitor : public StmtVisitor, public ExprVisitor {
 public:
  using StmtVisitor::operator();
  using ExprVisitor::operator();
  using StmtVisitor::VisitStmt;
  using StmtVisitor::VisitStmt_;
  using ExprVisitor::VisitExpr_;
  void VisitExpr(const PrimExpr& e) override {
    if (e.defined()) ExprVisitor::VisitExpr(e);
  }

 protected:
  // One hook for buffer uses in statements and in loads.
  void VisitBufferUse(const Buffer& buffer) override {}
};

class StmtExprMutator : public StmtMutator, public ExprMutator {
 public:
  using StmtMutator::operator();
  using ExprMutator::operator();
  using StmtMutator::VisitStmt;
  using StmtMutator::VisitStmt_;
  using ExprMutator::VisitExpr_;
  PrimExpr VisitExpr(const PrimExpr& e) override {
    return e.defined() ? ExprMutator::VisitExpr(e) : e;
  }

 protected:
  Buffer VisitBufferUse(const Buffer& buffer) override { return buffer; }
};

// Calls `fn` on every expression and statement node, children before parents.
void PostOrderVisit(const Stmt& stmt, const std::function<void(const Object*)>& fn);
void PostOrderVisit(const PrimExpr& expr, const std::function<void(const Object*)>& fn);

}  // namespace wb::tir
