// tensorize (see tensorize.h): blockize when given a loop, match the block against the tensor
// intrinsic's description (DescMatcher, after TVM's TensorizeComparator), then swap in the
// implementation's body with its parameters bound to the matched regions.
#include "schedule/primitive/tensorize.h"

#include <set>
#include <unordered_map>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "schedule/block_scope.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/blockize.h"
#include "schedule/recipe.h"
#include "schedule/tensor_intrin.h"
#include "tir/expr_text.h"
#include "tir/op.h"
#include "tir/renew_defs.h"
#include "tir/substitute.h"

namespace wb::schedule {

using namespace tir;

namespace {

const char* kPrim = "tensorize";

std::string StmtKind(const Stmt& s) {
  if (s.as<ForNode>()) return "loop";
  if (s.as<SBlockNode>() || s.as<SBlockRealizeNode>()) return "block";
  if (s.as<SeqStmtNode>()) return "sequence of statements";
  if (s.as<BufferStoreNode>()) return "buffer store";
  if (s.as<EvaluateNode>()) return "T.evaluate";
  if (s.as<IfThenElseNode>()) return "if statement";
  return s->type_key();
}

// "serial", "parallel", "vectorized", "unrolled", "thread-bound".
std::string KindWord(ForKind kind) {
  if (kind == ForKind::kUnrolled) return "unrolled";
  if (kind == ForKind::kThreadBinding) return "thread-bound";
  return ForKindName(kind);
}

bool IsIndexInt(DataType t) {
  return (t.is_int() || t.is_uint()) && t.lanes() == 1 && (t.bits() == 32 || t.bits() == 64);
}

std::string Join(const std::vector<PrimExpr>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) out += (i ? ", " : "") + ExprText(exprs[i]);
  return out;
}

// Compares the workload (lhs) with the description (rhs). Variables and buffers of the lhs are
// mapped to the rhs's when first met at a definition (a loop, a block iterator, a region);
// every buffer access is compared relative to the start of the region the outer block declares
// for it. The first difference found (the innermost) is kept in `why`, the innermost loop or
// block around it in `where`.
class DescMatcher {
 public:
  bool Match(const SBlockRealizeNode* lhs, const SBlockRealizeNode* rhs) { return Realize(lhs, rhs); }

  // Description buffer -> workload buffer.
  std::unordered_map<const BufferNode*, Buffer> workload_of;
  // Workload buffer -> the start of its region in the outer block (one index per dimension).
  std::unordered_map<const BufferNode*, std::vector<PrimExpr>> base;
  std::string why;
  const StmtNode* where = nullptr;

 private:
  bool Fail(const std::string& message) {
    if (why.empty()) why = message;
    return false;
  }

  bool Statement(const Stmt& l, const Stmt& r) {
    bool ok = StatementBody(l, r);
    if (!ok && !where && (l.as<ForNode>() || l.as<SBlockNode>())) where = l.get();
    return ok;
  }

  bool StatementBody(const Stmt& l, const Stmt& r) {
    if (l->type_index() != r->type_index()) {
      return Fail("a " + StmtKind(l) + " stands where the description has a " + StmtKind(r));
    }
    if (auto* a = l.as<ForNode>()) return Loop(a, r.as<ForNode>());
    if (auto* a = l.as<SBlockRealizeNode>()) return Realize(a, r.as<SBlockRealizeNode>());
    if (auto* a = l.as<SBlockNode>()) return Block(a, r.as<SBlockNode>());
    if (auto* a = l.as<SeqStmtNode>()) {
      auto* b = r.as<SeqStmtNode>();
      if (a->seq.size() != b->seq.size()) {
        return Fail("a sequence of " + std::to_string(a->seq.size()) +
                    " statements where the description has " + std::to_string(b->seq.size()));
      }
      for (size_t i = 0; i < a->seq.size(); ++i) {
        if (!Statement(a->seq[i], b->seq[i])) return false;
      }
      return true;
    }
    if (auto* a = l.as<BufferStoreNode>()) {
      auto* b = r.as<BufferStoreNode>();
      return Access(a->buffer, a->indices, b->buffer, b->indices) && Expr(a->value, b->value);
    }
    if (auto* a = l.as<EvaluateNode>()) return Expr(a->value, r.as<EvaluateNode>()->value);
    if (auto* a = l.as<IfThenElseNode>()) {
      auto* b = r.as<IfThenElseNode>();
      if (a->else_case.defined() != b->else_case.defined()) {
        return Fail("an if statement with and one without an else branch");
      }
      return Expr(a->condition, b->condition) && Statement(a->then_case, b->then_case) &&
             (!a->else_case.defined() || Statement(a->else_case, b->else_case));
    }
    return Fail("a " + StmtKind(l) + " in the description is not supported by tensorize");
  }

  bool Loop(const ForNode* a, const ForNode* b) {
    std::string loop = "the loop `" + a->loop_var->name_hint + "`";
    std::string desc = "the description's loop `" + b->loop_var->name_hint + "`";
    if (!DefineVar(a->loop_var, b->loop_var)) return Fail(loop + " and " + desc + " differ in dtype");
    if (!Expr(a->min, b->min)) return Fail(loop + " starts at " + ExprText(a->min) + ", " + desc + " at " + ExprText(b->min));
    if (!Expr(a->extent, b->extent)) {
      why.clear();
      return Fail(loop + " has extent " + ExprText(a->extent) + ", " + desc + " " + ExprText(b->extent));
    }
    if (a->kind != b->kind) {
      return Fail(loop + " is " + KindWord(a->kind) + ", " + desc + " is " + KindWord(b->kind));
    }
    if (a->thread_binding.defined() != b->thread_binding.defined() ||
        (a->thread_binding.defined() && a->thread_binding->thread_tag != b->thread_binding->thread_tag)) {
      return Fail(loop + " and " + desc + " are bound to different threads");
    }
    if (!Annotations(a->annotations, b->annotations)) return Fail(loop + " and " + desc + " have different annotations");
    return Statement(a->body, b->body);
  }

  bool Annotations(const ir::AttrMap& a, const ir::AttrMap& b) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a) {
      auto it = b.find(key);
      if (it == b.end() || !ir::StructuralEqual(value, it->second)) return false;
    }
    return true;
  }

  bool Realize(const SBlockRealizeNode* a, const SBlockRealizeNode* b) {
    if (!scope_) {
      if (a->iter_values.size() != b->iter_values.size()) {
        return Fail("the block `" + a->block->name_hint + "` has " +
                    std::to_string(a->iter_values.size()) + " iterators, the description's `" +
                    b->block->name_hint + "` " + std::to_string(b->iter_values.size()));
      }
      for (size_t i = 0; i < a->iter_values.size(); ++i) {
        if (!Expr(a->iter_values[i], b->iter_values[i])) {
          why.clear();
          return Fail("the block `" + a->block->name_hint + "` binds its iterators to [" +
                      Join(a->iter_values) + "], the description's `" + b->block->name_hint +
                      "` to [" + Join(b->iter_values) + "]");
        }
      }
    }
    if (!Expr(a->predicate, b->predicate)) {
      why.clear();
      return Fail("the block `" + a->block->name_hint + "` has the predicate " +
                  ExprText(a->predicate) + ", the description's " + ExprText(b->predicate));
    }
    return Statement(a->block, b->block);
  }

  bool Block(const SBlockNode* a, const SBlockNode* b) {
    for (const IterVar& iv : a->iter_vars) lhs_analyzer_.Bind(iv->var, iv->dom, true);
    std::string block = "the block `" + a->name_hint + "`";
    if (!scope_) {
      if (a->iter_vars.size() != b->iter_vars.size()) {
        return Fail(block + " has " + std::to_string(a->iter_vars.size()) +
                    " iterators, the description's `" + b->name_hint + "` " +
                    std::to_string(b->iter_vars.size()));
      }
      for (size_t i = 0; i < a->iter_vars.size(); ++i) {
        const IterVar& x = a->iter_vars[i];
        const IterVar& y = b->iter_vars[i];
        if (!DefineVar(x->var, y->var) || x->iter_type != y->iter_type) {
          return Fail(block + "'s iterator `" + x->var->name_hint + "` is " +
                      IterVarTypeName(x->iter_type) + ", the description's `" +
                      y->var->name_hint + "` is " + IterVarTypeName(y->iter_type));
        }
      }
      if (a->alloc_buffers.size() != b->alloc_buffers.size()) {
        return Fail(block + " allocates " + std::to_string(a->alloc_buffers.size()) +
                    " buffers, the description's `" + b->name_hint + "` " +
                    std::to_string(b->alloc_buffers.size()));
      }
      for (size_t i = 0; i < a->alloc_buffers.size(); ++i) {
        if (!BufferPair(a->alloc_buffers[i], b->alloc_buffers[i])) return false;
      }
    }
    if (!Regions(a->writes, b->writes, block, b->name_hint, "writes")) return false;
    if (!Regions(a->reads, b->reads, block, b->name_hint, "reads")) return false;
    scope_ = false;
    return Statement(a->body, b->body);
  }

  bool Regions(const std::vector<BufferRegion>& a, const std::vector<BufferRegion>& b,
               const std::string& block, const std::string& desc_block, const char* what) {
    auto list = [](const std::vector<BufferRegion>& rs) {
      std::string out;
      for (size_t i = 0; i < rs.size(); ++i) out += (i ? ", " : "") + RegionText(rs[i]);
      return "[" + out + "]";
    };
    std::string both = block + " " + what + " " + list(a) + ", the description's `" + desc_block +
                       "` " + what + " " + list(b);
    if (a.size() != b.size()) return Fail(both);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Region(a[i], b[i])) {
        why = why.empty() ? both : both + ": " + why;
        return false;
      }
    }
    return true;
  }

  bool BufferPair(const Buffer& l, const Buffer& r) {
    auto it = workload_of.find(r.get());
    if (it != workload_of.end()) {
      if (it->second.same_as(l)) return true;
      return Fail("the description's buffer `" + r->name + "` stands for `" + it->second->name +
                  "` and for `" + l->name + "`");
    }
    auto jt = desc_of_.find(l.get());
    if (jt != desc_of_.end()) {
      return Fail("the buffer `" + l->name + "` stands for the description's `" + jt->second->name +
                  "` and `" + r->name + "`");
    }
    if (l->dtype != r->dtype) {
      return Fail("the buffer `" + l->name + "` is " + l->dtype.ToString() + ", the description's `" +
                  r->name + "` is " + r->dtype.ToString());
    }
    if (l->scope() != r->scope()) {
      return Fail("the buffer `" + l->name + "` is in scope " + l->scope() + ", the description's `" +
                  r->name + "` in " + r->scope());
    }
    workload_of[r.get()] = l;
    desc_of_[l.get()] = r;
    return true;
  }

  bool Region(const BufferRegion& l, const BufferRegion& r) {
    if (!BufferPair(l->buffer, r->buffer)) return false;
    if (l->region.size() < r->region.size()) {
      return Fail("`" + l->buffer->name + "` has fewer dimensions than the description's `" +
                  r->buffer->name + "`");
    }
    size_t offset = l->region.size() - r->region.size();
    auto it = base.find(l->buffer.get());
    if (it == base.end()) {
      if (!scope_) {
        return Fail("`" + l->buffer->name + "` is accessed but not in the outer block's regions");
      }
      std::vector<PrimExpr> start;
      for (size_t i = 0; i < l->region.size(); ++i) {
        if (i < offset && !IsConstInt(l->region[i]->extent, 1)) {
          return Fail("the leading dimension " + std::to_string(i) + " of `" + l->buffer->name +
                      "` (one the description does not have) must have extent 1");
        }
        if (i >= offset && !Equal(l->region[i]->extent, r->region[i - offset]->extent)) {
          return Fail("the extents of `" + l->buffer->name + "` differ from the description's");
        }
        start.push_back(l->region[i]->min);
      }
      base.emplace(l->buffer.get(), std::move(start));
      return true;
    }
    const std::vector<PrimExpr>& start = it->second;
    for (size_t i = 0; i < l->region.size(); ++i) {
      if (i < offset) {
        if (!IsConstInt(l->region[i]->extent, 1) ||
            !lhs_analyzer_.CanProveEqual(start[i], l->region[i]->min)) {
          return Fail("`" + l->buffer->name + "` leaves its tile in dimension " + std::to_string(i));
        }
        continue;
      }
      const Range& rr = r->region[i - offset];
      if (!Equal(l->region[i]->extent, rr->extent) ||
          !Equal(lhs_analyzer_.Simplify(sub(l->region[i]->min, start[i])), rr->min)) {
        return Fail("`" + RegionText(l) + "` is not at `" + RegionText(r) + "` of the tile");
      }
    }
    return true;
  }

  bool Access(const Buffer& lb, const std::vector<PrimExpr>& li, const Buffer& rb,
              const std::vector<PrimExpr>& ri) {
    std::string access = "`" + lb->name + "[" + Join(li) + "]`";
    std::string desc = "`" + rb->name + "[" + Join(ri) + "]`";
    if (!BufferPair(lb, rb)) return false;
    if (li.size() < ri.size()) return Fail(access + " has fewer indices than the description's " + desc);
    auto it = base.find(lb.get());
    if (it == base.end()) return Fail(access + " is not in the outer block's regions");
    const std::vector<PrimExpr>& start = it->second;
    size_t offset = li.size() - ri.size();
    for (size_t i = 0; i < li.size(); ++i) {
      PrimExpr rel = lhs_analyzer_.Simplify(sub(li[i], start[i]));
      bool ok = i < offset ? IsConstInt(rel, 0) : Equal(rel, ri[i - offset]);
      if (!ok) return Fail(access + " does not correspond to the description's " + desc);
    }
    return true;
  }

  // A variable met at its definition: mapped to the description's, or checked against it.
  bool DefineVar(const Var& l, const Var& r) {
    auto it = var_map_.find(l.get());
    if (it != var_map_.end()) return it->second.same_as(r);
    if (l->dtype.code() != r->dtype.code()) return false;
    var_map_[l.get()] = r;
    subst_[l.get()] = l->dtype == r->dtype ? PrimExpr(r) : cast(l->dtype, r);
    return true;
  }

  // Whether the workload expression `l` (its variables renamed to the description's) provably
  // equals the description's `r`.
  bool Equal(const PrimExpr& l, const PrimExpr& r) {
    PrimExpr a = Substitute(l, subst_);
    PrimExpr b = a->dtype == r->dtype ? r : cast(a->dtype, r);
    return analyzer_.CanProveEqual(a, b);
  }

  bool Expr(const PrimExpr& l, const PrimExpr& r) {
    bool ok = ExprBody(l, r);
    if (!ok && why.empty()) {
      why = "`" + ExprText(l) + "` does not match the description's `" + ExprText(r) + "`";
    }
    return ok;
  }

  bool ExprBody(const PrimExpr& l, const PrimExpr& r) {
    if (l.same_as(r)) return true;
    bool var_l = l.as<VarNode>() != nullptr, var_r = r.as<VarNode>() != nullptr;
    if (var_l || var_r) {
      if (!var_l || !var_r) return false;
      auto it = var_map_.find(l.as<VarNode>());
      return it != var_map_.end() && it->second.get() == r.get();
    }
    if (l->type_index() != r->type_index()) return false;
    DataType a = l->dtype, b = r->dtype;
    if (a != b && !(IsIndexInt(a) && IsIndexInt(b) && a.code() == b.code())) return false;
    if (auto* x = l.as<IntImmNode>()) return x->value == r.as<IntImmNode>()->value;
    if (auto* x = l.as<FloatImmNode>()) return x->value == r.as<FloatImmNode>()->value;
    if (auto* x = l.as<StringImmNode>()) return x->value == r.as<StringImmNode>()->value;
    if (auto* x = l.as<CastNode>()) return Expr(x->value, r.as<CastNode>()->value);
    if (auto* x = l.as<BinaryNode>()) {
      auto* y = r.as<BinaryNode>();
      return Expr(x->a, y->a) && Expr(x->b, y->b);
    }
    if (auto* x = l.as<NotNode>()) return Expr(x->a, r.as<NotNode>()->a);
    if (auto* x = l.as<SelectNode>()) {
      auto* y = r.as<SelectNode>();
      return Expr(x->condition, y->condition) && Expr(x->true_value, y->true_value) &&
             Expr(x->false_value, y->false_value);
    }
    if (auto* x = l.as<BufferLoadNode>()) {
      auto* y = r.as<BufferLoadNode>();
      return Access(x->buffer, x->indices, y->buffer, y->indices);
    }
    if (auto* x = l.as<RampNode>()) {
      auto* y = r.as<RampNode>();
      return x->lanes == y->lanes && Expr(x->base, y->base) && Expr(x->stride, y->stride);
    }
    if (auto* x = l.as<BroadcastNode>()) {
      auto* y = r.as<BroadcastNode>();
      return x->lanes == y->lanes && Expr(x->value, y->value);
    }
    if (auto* x = l.as<CallNode>()) {
      auto* y = r.as<CallNode>();
      if (!x->op.same_as(y->op) || x->args.size() != y->args.size()) return false;
      for (size_t i = 0; i < x->args.size(); ++i) {
        if (!Expr(x->args[i], y->args[i])) return false;
      }
      return true;
    }
    return false;
  }

  bool scope_ = true;
  std::unordered_map<const VarNode*, Var> var_map_;
  VarMap subst_;
  std::unordered_map<const BufferNode*, Buffer> desc_of_;
  arith::Analyzer analyzer_;
  arith::Analyzer lhs_analyzer_;
};

// A fresh copy of the implementation: its buffers (with their element offsets and strides), loop
// and block variables are new objects, so that each tensorized tile defines its own.
PrimFunc FreshImpl(const PrimFunc& impl) {
  DefRenewer renewer;
  std::vector<Buffer> buffers;
  for (const Buffer& b : impl->buffer_map) {
    std::vector<PrimExpr> fields = b->strides;
    fields.push_back(b->elem_offset);
    fields.insert(fields.end(), b->shape.begin(), b->shape.end());
    for (const PrimExpr& f : fields) {
      if (auto* v = f.as<VarNode>(); v && !renewer.var_map.count(v)) renewer.RenewVar(GetRef(v));
    }
    buffers.push_back(renewer.RenewBuffer(b));
  }
  Stmt body = renewer.VisitStmt(impl->body);
  return MakePrimFunc(impl->params, std::move(buffers), body, impl->ret_type, impl->attrs, impl->span);
}

// The chain of loop extents from `s` down to the first statement that is not a loop (through a
// block's body for a block): a cheap first test of whether a description can match.
std::vector<PrimExpr> LoopExtents(Stmt s) {
  std::vector<PrimExpr> out;
  if (auto* r = s.as<SBlockRealizeNode>()) s = r->block;
  if (auto* b = s.as<SBlockNode>()) s = b->body;
  while (auto* f = s.as<ForNode>()) {
    out.push_back(f->extent);
    s = f->body;
  }
  return out;
}

bool SameExtents(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const int64_t* x = AsConstInt(a[i]);
    const int64_t* y = AsConstInt(b[i]);
    if (x && y && *x != *y) return false;
  }
  return true;
}

struct Tensorized {
  Stmt replacement;                   // for `target`
  std::vector<std::string> removed;   // blocks that were under the target and are gone
};

// The statement that replaces `target` (a For, or an SBlock of `func`); throws ScheduleError.
Tensorized Build(const PrimFunc& func, const Stmt& target, const std::string& name,
                 const TensorIntrin& intrin, bool preserve_unit_iters, bool cheap_reject = false) {
  SBlockRealize realize;
  Span target_span = target->span;
  std::string target_name;
  if (auto* loop = target.as<ForNode>()) {
    target_name = "`" + loop->loop_var->name_hint + "`";
    if (cheap_reject) {
      // Blockizing at the loop keeps the loop chain under it: its extents must be the desc's.
      if (!SameExtents(LoopExtents(target), LoopExtents(intrin.desc->body))) {
        throw ScheduleError(kPrim, "the loop nest differs");
      }
    }
    realize = detail::BlockizeLoop(func, Downcast<ForNode>(target), preserve_unit_iters, kPrim);
  } else {
    auto* block = target.as<SBlockNode>();
    target_name = "`" + block->name_hint + "`";
    const SBlockRealizeNode* r = RealizeOf(func, block);
    if (!r) throw ScheduleError(kPrim, "The block " + target_name + " is not in the function");
    if (cheap_reject && !SameExtents(LoopExtents(target), LoopExtents(intrin.desc->body))) {
      throw ScheduleError(kPrim, "the loop nest differs");
    }
    realize = GetRef(r);
  }
  const auto* desc_root = intrin.desc->body.as<SBlockRealizeNode>();
  DescMatcher matcher;
  if (!matcher.Match(realize.get(), desc_root)) {
    std::string at = target_name;
    Span span = target_span;
    if (matcher.where && matcher.where != realize->block.get()) {
      if (auto* f = NodeAs<ForNode>(matcher.where)) {
        at = Quote(f);
        if (f->span.defined()) span = f->span;
      } else if (auto* b = NodeAs<SBlockNode>(matcher.where)) {
        at = Quote(b);
        if (b->span.defined()) span = b->span;
      }
    }
    // Loops that split or fuse made have no source: point at the block they were made for.
    for (const SBlock& b : CollectBlocks(target)) {
      if (span.defined()) break;
      span = b->span;
    }
    throw ScheduleError(kPrim, "The stmt " + at + " doesn't match the tensor intrin `" + name +
                                   "`: " + matcher.why,
                        span);
  }
  PrimFunc impl = FreshImpl(intrin.impl);
  const SBlockNode* impl_block = impl->body.as<SBlockRealizeNode>()->block.get();
  std::vector<MatchBufferRegion> matches;
  for (size_t i = 0; i < impl->buffer_map.size(); ++i) {
    const Buffer& impl_buffer = impl->buffer_map[i];
    const Buffer& desc_buffer = intrin.desc->buffer_map[i];
    auto it = matcher.workload_of.find(desc_buffer.get());
    if (it == matcher.workload_of.end()) {
      throw ScheduleError(kPrim, "The description of the tensor intrin `" + name +
                                     "` does not access its parameter `" + desc_buffer->name + "`");
    }
    const Buffer& cur = it->second;
    const std::vector<PrimExpr>& start = matcher.base.at(cur.get());
    // The implementation's extents come from its root block's regions, else its buffer's shape.
    std::vector<PrimExpr> extents = impl_buffer->shape;
    for (const auto* regions : {&impl_block->reads, &impl_block->writes}) {
      for (auto rit = regions->rbegin(); rit != regions->rend(); ++rit) {
        if (!(*rit)->buffer.same_as(impl_buffer)) continue;
        extents.clear();
        for (const Range& r : (*rit)->region) extents.push_back(r->extent);
      }
    }
    if (extents.size() > start.size()) {
      throw ScheduleError(kPrim, "The implementation's buffer `" + impl_buffer->name + "` has more "
                                 "dimensions than `" + cur->name + "`");
    }
    size_t offset = start.size() - extents.size();
    std::vector<Range> region;
    for (size_t k = 0; k < start.size(); ++k) {
      DataType t = start[k]->dtype;
      PrimExpr extent = k < offset ? make_const(t, int64_t(1)) : extents[k - offset];
      if (extent->dtype != t) extent = cast(t, extent);
      region.push_back(ir::MakeRange(start[k], extent));
    }
    matches.push_back(MakeMatchBufferRegion(impl_buffer, MakeBufferRegion(cur, std::move(region))));
  }
  SBlock block = realize->block;
  {
    SBlockNode* n = block.CopyOnWrite();
    n->body = impl_block->body;
    n->match_buffers = std::move(matches);
    for (const auto& [key, value] : impl_block->annotations) n->annotations.emplace(key, value);
  }
  Tensorized out;
  std::set<std::string> after;
  for (const SBlock& b : CollectBlocks(block->body)) after.insert(b->name_hint);
  std::set<std::string> seen;
  for (const SBlock& b : CollectBlocks(target.as<SBlockNode>() ? target.as<SBlockNode>()->body : target)) {
    if (!after.count(b->name_hint) && seen.insert(b->name_hint).second) out.removed.push_back(b->name_hint);
  }
  if (target.as<SBlockNode>()) {
    out.replacement = block;
  } else {
    SBlockRealize r = realize;
    r.CopyOnWrite()->block = block;
    out.replacement = r;
  }
  return out;
}

}  // namespace

void Tensorize(Schedule& sch, const std::variant<SBlockRV, LoopRV>& block_or_loop,
               const std::string& intrin_name, bool preserve_unit_iters) {
  TensorIntrin intrin = GetTensorIntrin(intrin_name);
  Stmt target = sch.BlockOrLoop(block_or_loop);
  Tensorized t = Build(sch.Func(), target, intrin_name, intrin, preserve_unit_iters);
  ReplaceOptions options;
  options.removed_blocks = t.removed;
  sch.Replace(target.get(), t.replacement, options);
  TraceValue rv = std::holds_alternative<SBlockRV>(block_or_loop)
                      ? TraceValue::Block(std::get<SBlockRV>(block_or_loop).id)
                      : TraceValue::Loop(std::get<LoopRV>(block_or_loop).id);
  sch.Record({"tensorize",
              {{"block_or_loop", rv},
               {"tensor_intrin", TraceValue::String(intrin_name)},
               {"preserve_unit_iters", TraceValue::Bool(preserve_unit_iters)}},
              {},
              false});
}

std::vector<std::string> MatchingTensorIntrins(const PrimFunc& func, const Stmt& block_or_loop) {
  std::vector<std::string> out;
  if (!block_or_loop.as<ForNode>() && !block_or_loop.as<SBlockNode>()) return out;
  for (const std::string& name : TensorIntrinNames()) {
    std::optional<TensorIntrin> intrin = FindTensorIntrin(name);
    if (!intrin) continue;
    try {
      Build(func, block_or_loop, name, *intrin, true, true);
      out.push_back(name);
    } catch (const ScheduleError&) {
    } catch (const std::invalid_argument&) {
    }
  }
  return out;
}

}  // namespace wb::schedule

// --- recipe method -------------------------------------------------------------------------------

namespace wb::schedule {
namespace {

RecipeMethodRegistrar reg_tensorize(
    "tensorize", {{"block_or_loop", "tensor_intrin", "preserve_unit_iters"}, false,
                  RecipeReturns::kNothing,
                  [](Schedule& sch, RecipeArgs& args) -> std::vector<RecipeRV> {
                    Tensorize(sch, args.BlockOrLoop("block_or_loop"), args.String("tensor_intrin"),
                              args.Bool("preserve_unit_iters", true));
                    return {};
                  }},
    {"tensorization",
     "replace the block's computation (the loop's, blockized) by a tensor intrinsic",
     {{"block_or_loop", RecipeParamKind::kBlockOrLoop,
       "the block, or the loop whose subtree is blockized first", ""},
      {"tensor_intrin", RecipeParamKind::kTensorIntrin,
       "the registered tensor intrinsic whose description the block matches", ""},
      {"preserve_unit_iters", RecipeParamKind::kBool,
       "keep iterators of extent 1 in the bindings blockize makes", "True"}}});

}  // namespace
}  // namespace wb::schedule
