#include "tir/verifier.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tir/functor.h"

namespace wb::tir {

namespace {

std::string Quote(const std::string& name) { return "'" + name + "'"; }

std::string Dimensions(size_t n) {
  return std::to_string(n) + (n == 1 ? " dimension" : " dimensions");
}

// How a variable came into scope; decides which rules apply to its uses.
enum class DefKind {
  kParam,
  kShapeVar,  // symbolic shape/stride/offset of a parameter buffer or match_buffer
  kLoopVar,
  kIterVar,
  kBind,
  kLet,
  kThreadVar,   // launch_thread; may be launched again (each kernel launches its threads)
  kBufferData,  // the data pointer of a buffer in scope; several buffers may share it
  kReduceVar,   // CommReducer lhs/rhs and Reduce axes; shared by the Reduce nodes of one tuple
};

// One pass over a PrimFunc. Scopes are a stack of frames: every statement body, SeqStmt, Let
// body and SBlock opens one, and Bind/AllocBuffer/DeclBuffer add to the innermost frame, so
// what they define stays visible for the rest of the enclosing sequence.
class WellFormedChecker : public StmtExprVisitor {
 public:
  WellFormedChecker(const ir::IRModuleNode* module, DiagnosticList* diagnostics)
      : module_(module), diagnostics_(diagnostics) {}

  void Check(const PrimFuncNode* func) {
    PathGuard in_func(this, func);
    Scope scope(this);
    for (const auto& param : func->params) DefineVar(param, DefKind::kParam, param.get());
    // A buffer_map binds its buffer's symbolic shape, strides and offset (the caller's tensor
    // supplies them); an expression that is not a plain variable only uses its variables.
    for (const auto& buffer : func->buffer_map) {
      if (buffer.defined()) DefineBufferWithShapeVars(buffer);
    }
    for (const auto& buffer : func->buffer_map) {
      if (!buffer.defined()) continue;
      PathGuard in_buffer(this, buffer.get());
      VisitBufferShape(buffer);
    }
    VisitStmt(func->body);
  }

  void VisitStmt(const Stmt& stmt) override {
    if (!stmt.defined()) return;
    PathGuard guard(this, stmt.get());
    StmtVisitor::VisitStmt(stmt);
  }

  void VisitExpr(const PrimExpr& expr) override {
    if (!expr.defined()) return;
    // A Var node is shared by all its uses and its own span (if any) is where it was created,
    // so a use is reported at the expression around it instead.
    if (expr.as<VarNode>()) {
      ExprVisitor::VisitExpr(expr);
      return;
    }
    PathGuard guard(this, expr.get());
    ExprVisitor::VisitExpr(expr);
  }

  // --- Expressions -----------------------------------------------------------------------------

  void VisitExpr_(const VarNode* op) override { CheckVarUse(op); }
  void VisitExpr_(const SizeVarNode* op) override { CheckVarUse(op); }

  void VisitExpr_(const BufferLoadNode* op) override {
    if (op->buffer.defined()) {
      CheckBufferUse(op->buffer, op);
      CheckRank(op->buffer, op->indices.size(), op);
    }
    for (const auto& index : op->indices) VisitExpr(index);
    VisitExpr(op->predicate);
  }

  void VisitExpr_(const LetNode* op) override {
    VisitExpr(op->value);
    Scope scope(this);
    DefineVar(op->var, DefKind::kLet, op);
    VisitExpr(op->body);
  }

  void VisitExpr_(const CallNode* op) override {
    if (const auto* callee = op->op.as<ir::GlobalVarNode>()) CheckCallee(callee, op);
    for (const auto& arg : op->args) VisitExpr(arg);
  }

  void VisitExpr_(const ReduceNode* op) override {
    if (op->combiner.defined()) {
      Scope scope(this);
      for (const auto& v : op->combiner->lhs) DefineVar(v, DefKind::kReduceVar, op);
      for (const auto& v : op->combiner->rhs) DefineVar(v, DefKind::kReduceVar, op);
      for (const auto& e : op->combiner->result) VisitExpr(e);
      for (const auto& e : op->combiner->identity_element) VisitExpr(e);
    }
    for (const auto& iv : op->axis) VisitDomain(iv);
    Scope scope(this);
    for (const auto& iv : op->axis) {
      if (iv.defined()) DefineVar(iv->var, DefKind::kReduceVar, op);
    }
    for (const auto& e : op->source) VisitExpr(e);
    for (const auto& e : op->init) VisitExpr(e);
    VisitExpr(op->condition);
  }

  // --- Statements ------------------------------------------------------------------------------

  void VisitStmt_(const BindNode* op) override {
    VisitExpr(op->value);
    DefineVar(op->var, DefKind::kBind, op);
  }

  void VisitStmt_(const AttrStmtNode* op) override {
    const auto* thread = op->node.as<IterVarNode>();
    bool launches_thread =
        thread && (op->attr_key == "thread_extent" || op->attr_key == "virtual_thread");
    // A loop pragma (`pragma_*` around a For) names the loop variable the For defines.
    const auto* loop = op->body.as<ForNode>();
    bool names_inner_loop = loop && op->node.same_as(loop->loop_var);
    if (!launches_thread && !names_inner_loop) {
      if (const auto* var = op->node.as<VarNode>()) CheckVarUse(var);
    }
    VisitExpr(op->value);
    Scope scope(this);
    if (launches_thread) DefineVar(thread->var, DefKind::kThreadVar, op);
    VisitStmt(op->body);
  }

  void VisitStmt_(const BufferStoreNode* op) override {
    if (op->buffer.defined()) {
      CheckBufferUse(op->buffer, op);
      CheckRank(op->buffer, op->indices.size(), op);
      if (op->value.defined()) CheckStoredType(op);
    }
    for (const auto& index : op->indices) VisitExpr(index);
    VisitExpr(op->value);
    VisitExpr(op->predicate);
  }

  void VisitStmt_(const AllocBufferNode* op) override {
    if (!op->buffer.defined()) return;
    VisitBufferShape(op->buffer);
    DefineBuffer(op->buffer);
    DefineVar(op->buffer->data, DefKind::kBufferData, op);
  }

  void VisitStmt_(const DeclBufferNode* op) override {
    if (!op->buffer.defined()) return;
    // A declaration is a view of memory that exists already: its data pointer is a use.
    if (op->buffer->data.defined()) CheckVarUse(op->buffer->data.get());
    VisitBufferShape(op->buffer);
    DefineBuffer(op->buffer);
  }

  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    VisitExpr(op->step);
    Scope scope(this);
    DefineVar(op->loop_var, DefKind::kLoopVar, op);
    VisitStmt(op->body);
  }

  void VisitStmt_(const WhileNode* op) override {
    VisitExpr(op->condition);
    VisitScoped(op->body);
  }

  void VisitStmt_(const IfThenElseNode* op) override {
    VisitExpr(op->condition);
    VisitScoped(op->then_case);
    VisitScoped(op->else_case);
  }

  void VisitStmt_(const SeqStmtNode* op) override {
    Scope scope(this);
    for (const auto& stmt : op->seq) VisitStmt(stmt);
  }

  // Visited in the order TVMScript prints a block: bindings (`vi = T.axis.spatial(16, i)`),
  // `T.where`, then the block itself.
  void VisitStmt_(const SBlockRealizeNode* op) override {
    const SBlockNode* block = op->block.get();
    if (!block) {
      for (const auto& value : op->iter_values) VisitExpr(value);
      VisitExpr(op->predicate);
      return;
    }
    if (op->iter_values.size() != block->iter_vars.size()) {
      Error("block " + Quote(block->name_hint) + " has " + std::to_string(block->iter_vars.size()) +
                " iter vars but " + std::to_string(op->iter_values.size()) + " bindings",
            FirstSpan({op, block}));
    }
    size_t n = std::max(op->iter_values.size(), block->iter_vars.size());
    for (size_t i = 0; i < n; ++i) {
      const IterVar* iv = i < block->iter_vars.size() ? &block->iter_vars[i] : nullptr;
      if (iv) VisitDomain(*iv);
      if (i >= op->iter_values.size()) continue;
      const PrimExpr& value = op->iter_values[i];
      VisitExpr(value);
      if (iv && iv->defined() && value.defined()) CheckBindingType(block, *iv, value, op);
    }
    VisitExpr(op->predicate);
    realized_block_ = block;
    VisitStmt(op->block);
  }

  void VisitStmt_(const SBlockNode* op) override {
    // The domains of a realized block were visited with its bindings, outside the block.
    if (realized_block_ != op) {
      for (const auto& iv : op->iter_vars) VisitDomain(iv);
    }
    realized_block_ = nullptr;

    Scope scope(this);
    for (const auto& iv : op->iter_vars) {
      if (!iv.defined()) continue;
      if (!iv->var.defined()) continue;
      if (!iv->var->dtype.is_integer()) {
        Error("iter var " + Quote(iv->var->name_hint) + " of block " + Quote(op->name_hint) +
                  " has dtype " + iv->var->dtype.ToString() + ", but iter vars must be integers",
              SpanOf(iv.get()));
      }
      DefineVar(iv->var, DefKind::kIterVar, iv.get());
    }

    // A block without iter vars (the root block, opaque blocks) may use outer loop variables.
    bool opaque = op->iter_vars.empty();
    if (!opaque) block_stack_.push_back(op);
    // The block's own buffers are in scope in its whole signature and body.
    for (const auto& buffer : op->alloc_buffers) {
      if (!buffer.defined()) continue;
      DefineBuffer(buffer);
      DefineVar(buffer->data, DefKind::kBufferData, op);
    }
    for (const auto& match : op->match_buffers) {
      if (match.defined() && match->buffer.defined()) DefineBufferWithShapeVars(match->buffer);
    }
    for (const auto& region : op->reads) VisitRegion(region);
    for (const auto& region : op->writes) VisitRegion(region);
    for (const auto& buffer : op->alloc_buffers) {
      if (buffer.defined()) VisitBufferShape(buffer);
    }
    for (const auto& match : op->match_buffers) {
      if (!match.defined()) continue;
      PathGuard guard(this, match.get());
      VisitRegion(match->source);
      if (match->buffer.defined()) VisitBufferShape(match->buffer);
    }
    VisitScoped(op->init);
    VisitScoped(op->body);
    if (!opaque) block_stack_.pop_back();
  }

 private:
  struct Definition {
    DefKind kind;
    size_t block_depth;  // non-opaque blocks around the definition
    const Object* site;
  };

  // Records a node as enclosing what is visited next, for span fallback.
  class PathGuard {
   public:
    PathGuard(WellFormedChecker* checker, const Object* node) : checker_(checker) {
      checker_->path_.push_back(node);
    }
    ~PathGuard() { checker_->path_.pop_back(); }
    PathGuard(const PathGuard&) = delete;
    PathGuard& operator=(const PathGuard&) = delete;

   private:
    WellFormedChecker* checker_;
  };

  class Scope {
   public:
    explicit Scope(WellFormedChecker* checker) : checker_(checker) {
      checker_->frames_.emplace_back();
    }
    ~Scope() {
      for (const VarNode* var : checker_->frames_.back().vars) checker_->visible_vars_.erase(var);
      for (const BufferNode* buffer : checker_->frames_.back().buffers) {
        checker_->visible_buffers_.erase(buffer);
      }
      checker_->frames_.pop_back();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    WellFormedChecker* checker_;
  };
  struct Frame {
    std::vector<const VarNode*> vars;
    std::vector<const BufferNode*> buffers;
  };

  // --- Definitions -----------------------------------------------------------------------------

  static bool MustBeUnique(DefKind kind) {
    switch (kind) {
      case DefKind::kParam:
      case DefKind::kLoopVar:
      case DefKind::kIterVar:
      case DefKind::kBind:
      case DefKind::kLet:
        return true;
      case DefKind::kShapeVar:
      case DefKind::kThreadVar:
      case DefKind::kBufferData:
      case DefKind::kReduceVar:
        return false;
    }
    return false;
  }

  void DefineVar(const Var& var, DefKind kind, const Object* site) {
    if (!var.defined()) return;
    if (MustBeUnique(kind)) {
      auto [it, inserted] = first_definition_.emplace(var.get(), site);
      // An expression may be shared (a DAG), so meeting the same Let node again is no
      // redefinition.
      bool same_let = kind == DefKind::kLet && it->second == site;
      if (!inserted && !same_let) {
        Diagnostic& d =
            Error("variable " + Quote(var->name_hint) + " is defined more than once", SpanOf(site));
        if (it->second->span.defined()) d.Note("first definition is here", it->second->span);
      }
    }
    if (visible_vars_.count(var.get())) return;
    visible_vars_.emplace(var.get(), Definition{kind, block_stack_.size(), site});
    frames_.back().vars.push_back(var.get());
  }

  void DefineBuffer(const Buffer& buffer) {
    if (visible_buffers_.insert(buffer.get()).second)
      frames_.back().buffers.push_back(buffer.get());
  }

  void DefineBufferWithShapeVars(const Buffer& buffer) {
    DefineBuffer(buffer);
    DefineVar(buffer->data, DefKind::kBufferData, buffer.get());
    auto define_if_var = [&](const PrimExpr& e) {
      if (auto var = e.as_ref<VarNode>(); var.defined() && !visible_vars_.count(var.get())) {
        DefineVar(var, DefKind::kShapeVar, buffer.get());
      }
    };
    for (const auto& dim : buffer->shape) define_if_var(dim);
    for (const auto& stride : buffer->strides) define_if_var(stride);
    define_if_var(buffer->elem_offset);
  }

  // --- Uses ------------------------------------------------------------------------------------

  void CheckVarUse(const VarNode* var) {
    auto it = visible_vars_.find(var);
    if (it == visible_vars_.end()) {
      if (reported_vars_.insert(var).second) {
        Error("variable " + Quote(var->name_hint) + " is used but not defined", EnclosingSpan());
      }
      return;
    }
    const Definition& def = it->second;
    if (def.kind == DefKind::kLoopVar && def.block_depth < block_stack_.size()) {
      const SBlockNode* block = block_stack_.back();
      if (reported_loop_uses_.insert({var, block}).second) {
        Diagnostic& d = Error("loop variable " + Quote(var->name_hint) + " is used inside block " +
                                  Quote(block->name_hint) + " without an iter var binding",
                              EnclosingSpan());
        if (def.site->span.defined()) d.Note("the loop is here", def.site->span);
      }
    }
  }

  void CheckBufferUse(const Buffer& buffer, const Object* site) {
    if (visible_buffers_.count(buffer.get())) return;
    if (reported_buffers_.insert(buffer.get()).second) {
      Error("buffer " + Quote(buffer->name) + " is used but not declared", SpanOf(site));
    }
  }

  void CheckRank(const Buffer& buffer, size_t num_indices, const Object* site) {
    if (num_indices == buffer->shape.size()) return;
    Error("buffer " + Quote(buffer->name) + " has " + Dimensions(buffer->shape.size()) +
              " but is indexed with " + std::to_string(num_indices),
          SpanOf(site));
  }

  void CheckStoredType(const BufferStoreNode* op) {
    DataType value = op->value->dtype;
    DataType element = op->buffer->dtype;
    if (value.code() == element.code() && value.bits() == element.bits()) return;
    Error("cannot store a " + value.ToString() + " value into buffer " + Quote(op->buffer->name) +
              " of " + element.ToString(),
          SpanOf(op));
  }

  void CheckBindingType(const SBlockNode* block, const IterVar& iv, const PrimExpr& value,
                        const SBlockRealizeNode* realize) {
    if (!iv->var.defined()) return;
    DataType var_type = iv->var->dtype;
    DataType value_type = value->dtype;
    std::string what =
        "iter var " + Quote(iv->var->name_hint) + " of block " + Quote(block->name_hint);
    // A Var's own span is where it was created, not this binding.
    const Object* value_node = value.as<VarNode>() ? nullptr : value.get();
    Span span = FirstSpan({value_node, iv.get(), realize, block});
    if (!value_type.is_integer()) {
      Error(what + " is bound to a " + value_type.ToString() +
                " expression, but bindings must be integers",
            span);
    } else if (var_type.is_integer() && value_type != var_type) {
      Error(what + " has dtype " + var_type.ToString() + " but is bound to an expression of " +
                value_type.ToString(),
            span);
    }
  }

  void CheckCallee(const ir::GlobalVarNode* callee, const CallNode* call) {
    if (!module_) return;
    ir::GlobalVar ref = GetRef(callee);
    if (module_->Lookup(ref).defined()) return;
    if (module_->GetGlobalVar(callee->name_hint).defined()) {
      Error("call to " + Quote(callee->name_hint) +
                " uses a GlobalVar that is not the module's GlobalVar of that name",
            SpanOf(call));
    } else {
      Error("function " + Quote(callee->name_hint) + " is called but not defined in the module",
            SpanOf(call));
    }
  }

  // --- Traversal helpers -----------------------------------------------------------------------

  void VisitScoped(const Stmt& stmt) {
    if (!stmt.defined()) return;
    Scope scope(this);
    VisitStmt(stmt);
  }

  void VisitDomain(const IterVar& iv) {
    if (!iv.defined() || !iv->dom.defined()) return;
    VisitExpr(iv->dom->min);
    VisitExpr(iv->dom->extent);
  }

  void VisitBufferShape(const Buffer& buffer) {
    for (const auto& dim : buffer->shape) VisitExpr(dim);
    for (const auto& stride : buffer->strides) VisitExpr(stride);
    VisitExpr(buffer->elem_offset);
  }

  void VisitRegion(const BufferRegion& region) {
    if (!region.defined()) return;
    PathGuard guard(this, region.get());
    if (region->buffer.defined()) {
      CheckBufferUse(region->buffer, region.get());
      CheckRank(region->buffer, region->region.size(), region.get());
    }
    for (const auto& range : region->region) {
      if (!range.defined()) continue;
      VisitExpr(range->min);
      VisitExpr(range->extent);
    }
  }

  // --- Diagnostics -----------------------------------------------------------------------------

  Diagnostic& Error(std::string message, Span span) {
    return diagnostics_->Error(std::move(message), std::move(span));
  }

  // The span of the innermost node being visited that has one.
  Span EnclosingSpan() const {
    for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
      if ((*it)->span.defined()) return (*it)->span;
    }
    return {};
  }

  Span SpanOf(const Object* node) const {
    return node && node->span.defined() ? node->span : EnclosingSpan();
  }

  Span FirstSpan(std::initializer_list<const Object*> nodes) const {
    for (const Object* node : nodes) {
      if (node && node->span.defined()) return node->span;
    }
    return EnclosingSpan();
  }

  const ir::IRModuleNode* module_;
  DiagnosticList* diagnostics_;

  std::vector<const Object*> path_;
  std::vector<Frame> frames_;
  std::unordered_map<const VarNode*, Definition> visible_vars_;
  std::unordered_set<const BufferNode*> visible_buffers_;
  std::unordered_map<const VarNode*, const Object*> first_definition_;
  std::vector<const SBlockNode*> block_stack_;
  const SBlockNode* realized_block_ = nullptr;

  // Each undefined variable and undeclared buffer is reported at its first use only.
  std::unordered_set<const VarNode*> reported_vars_;
  std::unordered_set<const BufferNode*> reported_buffers_;
  struct PairHash {
    size_t operator()(const std::pair<const VarNode*, const SBlockNode*>& p) const {
      return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
    }
  };
  std::unordered_set<std::pair<const VarNode*, const SBlockNode*>, PairHash> reported_loop_uses_;
};

void CheckFunction(const PrimFuncNode* func, const ir::IRModuleNode* module,
                   DiagnosticList* diagnostics) {
  WellFormedChecker checker(module, diagnostics);
  checker.Check(func);
}

}  // namespace

DiagnosticList VerifyWellFormed(const PrimFunc& func) {
  DiagnosticList diagnostics;
  if (func.defined()) CheckFunction(func.get(), nullptr, &diagnostics);
  return diagnostics;
}

DiagnosticList VerifyWellFormed(const ir::IRModule& module) {
  DiagnosticList diagnostics;
  if (!module.defined()) return diagnostics;
  for (const auto& func : module->functions) {
    if (const auto* prim = func.as<PrimFuncNode>()) CheckFunction(prim, module.get(), &diagnostics);
  }
  return diagnostics;
}

}  // namespace wb::tir
