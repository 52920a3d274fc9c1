#include "transform/tir/thread_storage_sync.h"

#include <unordered_set>

#include "ir/structural_equal.h"
#include "tir/builtin.h"
#include "tir/functor.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

struct Access {
  const BufferNode* buffer;
  std::vector<PrimExpr> indices;
  bool write;
};
// Accesses since the last barrier.
using Pending = std::vector<Access>;

bool SameAccess(const Access& a, const Access& b) {
  if (a.buffer != b.buffer || a.write != b.write || a.indices.size() != b.indices.size()) return false;
  for (size_t i = 0; i < a.indices.size(); ++i) {
    if (!ir::StructuralEqual(a.indices[i], b.indices[i], false)) return false;
  }
  return true;
}

// `into` with the accesses of `from` it does not hold yet. Pending is a set: a loop's walks
// join what was pending before with what an iteration leaves, and keeping copies would grow it
// threefold with every loop of a sequence (exponentially in the loops of a kernel).
void Merge(Pending& into, const Pending& from) {
  for (const Access& a : from) {
    bool held = false;
    for (const Access& b : into) {
      if (SameAccess(a, b)) {
        held = true;
        break;
      }
    }
    if (!held) into.push_back(a);
  }
}

bool IsLeaf(const Stmt& s) {
  return !s.as<SeqStmtNode>() && !s.as<ForNode>() && !s.as<WhileNode>() &&
         !s.as<IfThenElseNode>() && !s.as<AttrStmtNode>();
}

bool IsSync(const Stmt& s) {
  auto* e = s.as<EvaluateNode>();
  auto* call = e ? e->value.as<CallNode>() : nullptr;
  auto* op = call ? call->op.as<ir::OpNode>() : nullptr;
  return op && op->name == "tirx.tvm_storage_sync";
}

class SyncPlanner {
 public:
  explicit SyncPlanner(std::string scope) : scope_(std::move(scope)) {}

  // Rewrites `s` with barriers where needed; `p` holds the accesses since the last barrier on
  // entry and on return.
  Stmt Plan(const Stmt& s, Pending& p) {
    if (!s.defined()) return s;
    if (auto* seq = s.as<SeqStmtNode>()) {
      std::vector<Stmt> out;
      bool changed = false;
      for (const auto& c : seq->seq) {
        // A compound statement that conflicts with what is pending gets its barrier before
        // it, not before its first conflicting leaf (which may sit in a loop, run each time).
        if (!IsLeaf(c)) {
          Pending acc;
          CollectStmt(c, &acc);
          if (Stmt guard = Guard(acc, p, c->span); guard.defined()) {
            out.push_back(guard);
            changed = true;
          }
        }
        Stmt n = Plan(c, p);
        changed |= !n.same_as(c);
        out.push_back(n);
      }
      return changed ? MakeSeq(std::move(out), s->span) : s;
    }
    if (auto* loop = s.as<ForNode>()) {
      // The body is walked starting from the union of what was pending before the loop and
      // what an iteration leaves, which is what the next iteration meets. What an iteration
      // leaves is taken as every access of the body (a superset: it also holds those before a
      // barrier of the body, which only matter at the body's start): walking the body once
      // more for it instead would walk a nest of d loops 2^d times.
      Pending first;
      CollectStmt(loop->body, &first);
      Pending entry = p;
      Merge(entry, first);
      Stmt body = Plan(loop->body, entry);
      Merge(p, entry);
      if (body.same_as(loop->body)) return s;
      For f = Downcast<ForNode>(s);
      f.CopyOnWrite()->body = body;
      return f;
    }
    if (auto* w = s.as<WhileNode>()) {
      Pending first;
      CollectStmt(w->body, &first);
      Pending entry = p;
      Merge(entry, first);
      Stmt body = Plan(w->body, entry);
      Merge(p, entry);
      if (body.same_as(w->body)) return s;
      While n = Downcast<WhileNode>(s);
      n.CopyOnWrite()->body = body;
      return n;
    }
    if (auto* branch = s.as<IfThenElseNode>()) {
      Pending cond;
      Collect(branch->condition, &cond);
      Stmt guard = Guard(cond, p, s->span);
      Pending pe = p;
      Stmt then_case = Plan(branch->then_case, p);
      Stmt else_case = branch->else_case.defined() ? Plan(branch->else_case, pe) : branch->else_case;
      Merge(p, pe);
      Stmt r = s;
      if (!then_case.same_as(branch->then_case) || !else_case.same_as(branch->else_case)) {
        r = MakeIfThenElse(branch->condition, then_case, else_case, s->span);
      }
      return guard.defined() ? MakeSeq({guard, r}, s->span) : r;
    }
    if (auto* attr = s.as<AttrStmtNode>()) {
      Stmt body = Plan(attr->body, p);
      if (body.same_as(attr->body)) return s;
      AttrStmt a = Downcast<AttrStmtNode>(s);
      a.CopyOnWrite()->body = body;
      return a;
    }
    if (IsSync(s)) {
      p.clear();
      return s;
    }
    // A leaf: its accesses against what is pending.
    Pending acc;
    CollectStmt(s, &acc);
    Stmt guard = Guard(acc, p, s->span);
    Merge(p, acc);
    return guard.defined() ? MakeSeq({guard, s}, s->span) : s;
  }

 private:
  // A barrier when `acc` conflicts with `p` (which it then clears), else null.
  Stmt Guard(const Pending& acc, Pending& p, const Span& span) {
    for (const auto& a : acc) {
      for (const auto& q : p) {
        if (a.buffer != q.buffer || (!a.write && !q.write) || SameThread(a, q)) continue;
        p.clear();
        return MakeEvaluate(MakeCall(DataType::Int(32), GetOp("tirx.tvm_storage_sync"),
                                     {MakeStringImm(scope_)}, span),
                            span);
      }
    }
    return {};
  }

  bool SameThread(const Access& a, const Access& b) const {
    if (a.indices.size() != b.indices.size()) return false;
    bool thread = false;
    for (size_t i = 0; i < a.indices.size(); ++i) {
      if (!ir::StructuralEqual(a.indices[i], b.indices[i], false)) return false;
      PostOrderVisit(a.indices[i], [&](const Object* n) {
        if (auto* v = dynamic_cast<const VarNode*>(n)) thread |= thread_vars_.count(v) > 0;
      });
    }
    return thread;
  }

  bool InScope(const Buffer& b) const { return b->scope() == scope_; }

  void Collect(const PrimExpr& e, Pending* out) {
    PostOrderVisit(e, [&](const Object* n) {
      if (auto* load = dynamic_cast<const BufferLoadNode*>(n)) {
        if (InScope(load->buffer)) out->push_back({load->buffer.get(), load->indices, false});
      }
    });
  }
  void CollectStmt(const Stmt& s, Pending* out) {
    PostOrderVisit(s, [&](const Object* n) {
      if (auto* load = dynamic_cast<const BufferLoadNode*>(n)) {
        if (InScope(load->buffer)) out->push_back({load->buffer.get(), load->indices, false});
      } else if (auto* store = dynamic_cast<const BufferStoreNode*>(n)) {
        if (InScope(store->buffer)) out->push_back({store->buffer.get(), store->indices, true});
      } else if (auto* call = dynamic_cast<const CallNode*>(n)) {
        // A pointer into the memory (an extern call, address_of) may be written through.
        for (const auto& a : call->args) {
          auto* load = a.as<BufferLoadNode>();
          auto* op = call->op.as<ir::OpNode>();
          if (load && op && op->name == "tirx.address_of" && InScope(load->buffer)) {
            out->push_back({load->buffer.get(), {}, true});
          }
        }
      }
    });
  }

 public:
  std::string scope_;
  std::unordered_set<const VarNode*> thread_vars_;
};

class KernelFinder : public StmtMutator {
 public:
  explicit KernelFinder(std::string scope) : scope_(std::move(scope)) {}
  Stmt VisitStmt_(const AttrStmtNode* op) override {
    auto* iv = op->node.as<IterVarNode>();
    if (iv && op->attr_key == "thread_extent") {
      // A kernel: plan it whole, knowing its thread variables.
      SyncPlanner planner(scope_);
      PostOrderVisit(GetRef(op), [&](const Object* n) {
        auto* a = dynamic_cast<const AttrStmtNode*>(n);
        auto* v = a ? a->node.as<IterVarNode>() : nullptr;
        if (v && v->thread_tag.rfind("threadIdx.", 0) == 0) planner.thread_vars_.insert(v->var.get());
      });
      Pending p;
      return planner.Plan(GetRef(op), p);
    }
    return StmtMutator::VisitStmt_(op);
  }

 private:
  std::string scope_;
};

}  // namespace

ir::Pass ThreadSync(std::string storage_scope) {
  return CreateBodyRewritePass(
      [storage_scope](const Stmt& body) {
        // A grid-wide ("global") barrier is not something a block-local pass can place.
        if (storage_scope != "shared" && storage_scope != "shared.dyn") {
          throw ir::PassError(Diagnostic::Error("ThreadSync: storage_scope must be \"shared\" "
                                                "or \"shared.dyn\", not \"" +
                                                storage_scope + "\""));
        }
        return KernelFinder(storage_scope)(body);
      },
      0, "ThreadSync");
}

static PassRegistrar registrar({"ThreadSync",
                                "inserts tvm_storage_sync barriers where threads exchange data "
                                "through memory of a storage scope",
                                {{"storage_scope", ParamType::kString, ir::MakeString("shared"),
                                  "the storage scope to synchronise: shared or shared.dyn"}},
                                [](const PassArgs& args) {
                                  return ThreadSync(args.String("storage_scope"));
                                }});

}  // namespace wb::transform
