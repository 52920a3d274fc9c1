#include "relax/analysis/tir_op_pattern_kind.h"

#include <algorithm>
#include <optional>
#include <unordered_set>
#include <vector>

#include "tir/functor.h"

namespace wb::relax {

namespace {

using tir::Buffer;
using tir::BufferLoad;
using tir::BufferLoadNode;
using tir::BufferStore;
using tir::BufferStoreNode;
using tir::Stmt;

OpPatternKind Max(OpPatternKind a, OpPatternKind b) { return int(a) >= int(b) ? a : b; }

// Index lists are compared by identity, as TVM does: the iter vars of a block are single
// objects, so `C[vi, vj]` and `A[vi, vj]` match, while two separately built `vi + 1` do not.
bool IsSameArray(const std::vector<PrimExpr>& lhs, const std::vector<PrimExpr>& rhs) {
  if (lhs.size() != rhs.size()) return false;
  for (size_t i = 0; i < lhs.size(); ++i) {
    if (!lhs[i].same_as(rhs[i])) return false;
  }
  return true;
}

// True when `expr` mentions a var for which `pred` holds.
template <typename Pred>
bool UsesVar(const PrimExpr& expr, Pred pred) {
  bool found = false;
  tir::PostOrderVisit(expr, [&](const Object* node) {
    if (!found && ir::IsInstance<tir::VarNode>(node)) {
      found = pred(static_cast<const tir::VarNode*>(node));
    }
  });
  return found;
}

// C[i, j] = A[i, j]
bool IsElemwisePattern(const BufferStoreNode* store, const BufferLoadNode* load) {
  return IsSameArray(store->indices, load->indices);
}

// C[i, j] = A[j] or A[0, j] with a unit dim: the load's indices appear among the store's, in
// order.
bool IsBroadcastPattern(const BufferStoreNode* store, const BufferLoadNode* load) {
  size_t ndim_load = load->buffer->shape.size();
  size_t ndim_store = store->buffer->shape.size();
  if (load->indices.size() != ndim_load || store->indices.size() != ndim_store) return false;
  for (size_t i = 0, j = 0; i < ndim_load; ++i) {
    if (tir::IsConstInt(load->buffer->shape[i], 1) && tir::IsConstInt(load->indices[i], 0)) {
      continue;
    }
    while (j < ndim_store && !store->indices[j].same_as(load->indices[i])) ++j;
    if (j == ndim_store) return false;
  }
  return true;
}

// C[i, j] = A[j, i] or A[i - j]: the store indexes by bare vars and the load uses no others.
bool IsInjectivePattern(const BufferStoreNode* store, const BufferLoadNode* load) {
  std::unordered_set<const tir::VarNode*> vars;
  for (const PrimExpr& index : store->indices) {
    auto* v = index.as<tir::VarNode>();
    if (!v) return false;
    vars.insert(v);
  }
  for (const PrimExpr& index : load->indices) {
    if (UsesVar(index, [&](const tir::VarNode* v) { return !vars.count(v); })) return false;
  }
  return true;
}

// The load can reuse data across store positions: some store var does not index the load
// (C[i, j] += A[i, k] * B[k, j] reads A for every j).
bool IsAllowReusePattern(const BufferStoreNode* store, const BufferLoadNode* load) {
  std::unordered_set<const tir::VarNode*> vars;
  for (const PrimExpr& index : store->indices) {
    auto* v = index.as<tir::VarNode>();
    if (!v) return false;
    vars.insert(v);
  }
  for (const PrimExpr& index : load->indices) {
    tir::PostOrderVisit(index, [&](const Object* node) {
      if (ir::IsInstance<tir::VarNode>(node)) vars.erase(static_cast<const tir::VarNode*>(node));
    });
  }
  return !vars.empty();
}

PrimExpr RemoveCast(PrimExpr e) {
  while (auto* cast = e.as<tir::CastNode>()) e = cast->value;
  return e;
}

// C[i, j] = C[i, j] + A[i, k] * B[k, j], casts allowed around each part.
bool IsFMA(const Stmt& body) {
  auto* store = body.as<BufferStoreNode>();
  if (!store) return false;
  PrimExpr value = RemoveCast(store->value);
  auto* add = value.as<tir::AddNode>();
  if (!add) return false;
  PrimExpr rhs_of_add = RemoveCast(add->b);
  auto* mul = rhs_of_add.as<tir::MulNode>();
  if (!mul) return false;
  PrimExpr acc = RemoveCast(add->a);
  auto* acc_load = acc.as<BufferLoadNode>();
  if (!acc_load || !store->buffer.same_as(acc_load->buffer) ||
      !IsSameArray(store->indices, acc_load->indices)) {
    return false;
  }
  PrimExpr a = RemoveCast(mul->a);
  PrimExpr b = RemoveCast(mul->b);
  auto* lhs = a.as<BufferLoadNode>();
  auto* rhs = b.as<BufferLoadNode>();
  if (!lhs || !rhs) return false;
  return IsAllowReusePattern(store, lhs) && IsAllowReusePattern(store, rhs);
}

// Every index that mentions a reduction var is exactly that var: B[i] = sum(A[i, k]) is a pure
// reduction, pooling's A[i, j * 2 + k] is not.
bool IsPureReducePattern(const std::vector<const tir::VarNode*>& reduce_vars,
                         const std::vector<PrimExpr>& indices) {
  for (const PrimExpr& e : indices) {
    const tir::VarNode* used = nullptr;
    bool uses = UsesVar(e, [&](const tir::VarNode* v) {
      if (std::find(reduce_vars.begin(), reduce_vars.end(), v) == reduce_vars.end()) return false;
      used = v;
      return true;
    });
    if (uses && e.get() != static_cast<const Object*>(used)) return false;
  }
  return true;
}

class PatternKindAnalyzer : public tir::StmtExprVisitor {
 public:
  explicit PatternKindAnalyzer(const tir::PrimFunc& func) {
    for (const Buffer& b : func->buffer_map) {
      if (b.defined()) param_buffers_.insert(b.get());
    }
  }

  OpPatternKind result() const { return kind_; }

 private:
  using tir::StmtExprVisitor::VisitExpr_;
  using tir::StmtExprVisitor::VisitStmt_;

  void VisitStmt_(const BufferStoreNode* op) override {
    // One store per block (what compute definitions give); a second one elsewhere is opaque.
    if (store_ && !IsSameArray(op->indices, store_->indices)) {
      kind_ = OpPatternKind::kOpaque;
      return;
    }
    store_ = op;
    tir::StmtExprVisitor::VisitStmt_(op);
  }

  void VisitExpr_(const BufferLoadNode* op) override {
    loads_.push_back(op);
    tir::StmtExprVisitor::VisitExpr_(op);
  }

  void VisitStmt_(const tir::SBlockNode* op) override {
    if (op->name_hint == "root") {
      VisitStmt(op->body);
      return;
    }
    loads_.clear();
    store_ = nullptr;
    // The init statement (a reduction's identity) does not count, only the update.
    VisitStmt(op->body);
    if (!store_) {
      kind_ = OpPatternKind::kOpaque;
      return;
    }

    OpPatternKind index_pattern = OpPatternKind::kElemWise;
    bool has_elemwise = false;
    for (const BufferLoadNode* load : loads_) {
      if (IsElemwisePattern(store_, load)) {
        has_elemwise = true;
      } else if (IsBroadcastPattern(store_, load)) {
        index_pattern = Max(index_pattern, OpPatternKind::kBroadcast);
      } else if (IsInjectivePattern(store_, load)) {
        index_pattern = Max(index_pattern, OpPatternKind::kInjective);
      } else {
        index_pattern = OpPatternKind::kOpaque;
        break;
      }
    }
    // A[i, j] = B[i, j] + C[j] still walks the output elementwise.
    if (index_pattern == OpPatternKind::kBroadcast && has_elemwise) {
      index_pattern = OpPatternKind::kElemWise;
    }
    if (index_pattern != OpPatternKind::kOpaque) {
      // A reduction followed by an injective block writing the output (softmax's shape).
      if (IsOutputBlock(op) && kind_ == OpPatternKind::kCommReduce) {
        kind_ = OpPatternKind::kOutEWiseFusable;
      } else {
        kind_ = Max(kind_, index_pattern);
      }
      return;
    }

    std::vector<const tir::VarNode*> reduce_vars;
    for (const tir::IterVar& iv : op->iter_vars) {
      if (iv->iter_type == tir::IterVarType::kCommReduce) reduce_vars.push_back(iv->var.get());
    }
    if (reduce_vars.empty()) {
      kind_ = OpPatternKind::kOpaque;
      return;
    }
    if (IsFMA(op->body)) {
      kind_ = Max(kind_, OpPatternKind::kOutEWiseFusable);
      return;
    }
    for (const BufferLoadNode* load : loads_) {
      if (!IsPureReducePattern(reduce_vars, load->indices)) {
        kind_ = Max(kind_, OpPatternKind::kOutEWiseFusable);
        return;
      }
    }
    kind_ = Max(kind_, OpPatternKind::kCommReduce);
  }

  bool IsOutputBlock(const tir::SBlockNode* block) const {
    for (const tir::BufferRegion& region : block->writes) {
      if (param_buffers_.count(region->buffer.get())) return true;
    }
    return false;
  }

  std::unordered_set<const tir::BufferNode*> param_buffers_;
  const BufferStoreNode* store_ = nullptr;
  std::vector<const BufferLoadNode*> loads_;
  OpPatternKind kind_ = OpPatternKind::kElemWise;
};

}  // namespace

OpPatternKind AnalyzeOpPatternKind(const tir::PrimFunc& func) {
  PatternKindAnalyzer analyzer(func);
  analyzer(func->body);
  return analyzer.result();
}

}  // namespace wb::relax
