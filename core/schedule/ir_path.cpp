#include "schedule/ir_path.h"

#include "tir/functor.h"

namespace wb::schedule {

using namespace tir;

namespace {

class PathFinder : public StmtVisitor {
 public:
  explicit PathFinder(const StmtNode* target) : target_(target) {}
  using StmtVisitor::VisitStmt_;
  void VisitStmt(const Stmt& s) override {
    if (found_ || !s.defined()) return;
    stack_.push_back(s.get());
    if (s.get() == target_) {
      found_ = true;
      path_ = stack_;
      return;
    }
    StmtVisitor::VisitStmt(s);
    stack_.pop_back();
  }
  std::vector<const StmtNode*> path_;

 private:
  const StmtNode* target_;
  bool found_ = false;
  std::vector<const StmtNode*> stack_;
};

class Replacer : public StmtMutator {
 public:
  Replacer(const StmtNode* target, Stmt replacement)
      : target_(target), replacement_(std::move(replacement)) {}
  using StmtMutator::VisitStmt_;
  Stmt VisitStmt(const Stmt& s) override {
    if (!s.defined()) return s;
    if (s.get() == target_) return replacement_;
    return StmtMutator::VisitStmt(s);
  }

 private:
  const StmtNode* target_;
  Stmt replacement_;
};

}  // namespace

std::vector<SBlock> CollectBlocks(const Stmt& body) {
  struct Collector : StmtVisitor {
    using StmtVisitor::VisitStmt_;
    void VisitStmt_(const SBlockNode* op) override {
      blocks.push_back(GetRef(op));
      StmtVisitor::VisitStmt_(op);
    }
    std::vector<SBlock> blocks;
  } c;
  c(body);
  return c.blocks;
}

std::vector<SBlock> FindBlocks(const Stmt& body, const std::string& name) {
  struct Finder : StmtVisitor {
    using StmtVisitor::VisitStmt_;
    void VisitStmt_(const SBlockNode* op) override {
      if (op->name_hint == *name) found.push_back(GetRef(op));
      // Blocks inside an init statement have no sref in TVM: they are never schedulable.
      VisitStmt(op->body);
    }
    const std::string* name = nullptr;
    std::vector<SBlock> found;
  } f;
  f.name = &name;
  f(body);
  return f.found;
}

For FindLoop(const Stmt& body, const VarNode* var) {
  struct Finder : StmtVisitor {
    using StmtVisitor::VisitStmt_;
    void VisitStmt_(const ForNode* op) override {
      if (op->loop_var.get() == var) found = GetRef(op);
      if (!found.defined()) StmtVisitor::VisitStmt_(op);
    }
    const VarNode* var = nullptr;
    For found;
  } f;
  f.var = var;
  f(body);
  return f.found;
}

std::vector<const StmtNode*> PathTo(const Stmt& body, const StmtNode* target) {
  PathFinder finder(target);
  finder(body);
  return finder.path_;
}

Stmt ReplaceStmt(const Stmt& body, const StmtNode* target, const Stmt& replacement) {
  return Replacer(target, replacement)(body);
}

}  // namespace wb::schedule
