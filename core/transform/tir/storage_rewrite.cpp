#include "transform/tir/storage_rewrite.h"

#include <unordered_map>
#include <unordered_set>

#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

// The data variables a statement touches: through buffer accesses, buffer declarations or the
// variable itself (address computations, calls).
class DataUseCollector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  std::unordered_set<const VarNode*> used;

  void VisitExpr_(const VarNode* op) override { used.insert(op); }

 protected:
  void VisitBufferUse(const Buffer& buffer) override { used.insert(buffer->data.get()); }
  void VisitBufferDef(const Buffer& buffer) override {
    used.insert(buffer->data.get());
    StmtExprVisitor::VisitBufferDef(buffer);
  }
};

// Replaces buffers (every access and declaration) and data variables.
class BufferRemapper : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  std::unordered_map<const BufferNode*, Buffer> buffers;
  std::unordered_map<const VarNode*, Var> vars;

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = vars.find(op);
    return it == vars.end() ? PrimExpr(GetRef(op)) : PrimExpr(it->second);
  }

 protected:
  Buffer VisitBufferUse(const Buffer& buffer) override { return Map(buffer); }
  Buffer VisitBufferDef(const Buffer& buffer) override { return Map(buffer); }

 private:
  Buffer Map(const Buffer& buffer) {
    auto it = buffers.find(buffer.get());
    return it == buffers.end() ? buffer : it->second;
  }
};

// An allocation that can share memory: flat, compact, constant-sized.
bool Shareable(const AllocBufferNode* alloc) {
  const Buffer& b = alloc->buffer;
  return alloc->annotations.empty() && b->shape.size() == 1 && b->strides.empty() &&
         (!b->elem_offset.defined() || IsConstInt(b->elem_offset, 0)) && AsConstInt(b->shape[0]);
}

class StorageRewriter : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const SeqStmtNode* op) override {
    Stmt visited = StmtExprMutator::VisitStmt_(op);
    const auto* seq = visited.as<SeqStmtNode>();
    if (!seq) return visited;
    return Plan(seq);
  }

 private:
  struct Slot {
    Buffer original;     // the buffer an AllocBuffer of this sequence allocates
    Buffer owner;        // the same, grown to fit every buffer that shares it
    size_t busy_until;   // last statement index that uses the memory
  };

  Stmt Plan(const SeqStmtNode* seq) {
    const size_t n = seq->seq.size();
    std::vector<std::unordered_set<const VarNode*>> uses(n);
    for (size_t i = 0; i < n; ++i) {
      DataUseCollector c;
      c(seq->seq[i]);
      uses[i] = std::move(c.used);
    }
    std::vector<Slot> slots;
    BufferRemapper remap;
    std::vector<Stmt> out = seq->seq;
    bool changed = false;
    for (size_t i = 0; i < n; ++i) {
      const auto* alloc = seq->seq[i].as<AllocBufferNode>();
      if (!alloc || !Shareable(alloc)) continue;
      const Buffer& b = alloc->buffer;
      // The uses come after the allocation statement.
      size_t first = n, last = i;
      for (size_t k = i + 1; k < n; ++k) {
        if (uses[k].count(b->data.get())) {
          first = std::min(first, k);
          last = k;
        }
      }
      Slot* reuse = nullptr;
      for (auto& slot : slots) {
        if (slot.busy_until < first && slot.owner->dtype == b->dtype &&
            slot.owner->scope() == b->scope()) {
          reuse = &slot;
          break;
        }
      }
      if (!reuse) {
        slots.push_back({b, b, last});
        continue;
      }
      // B lives in the slot's memory from now on; the slot grows to fit it.
      if (*AsConstInt(b->shape[0]) > *AsConstInt(reuse->owner->shape[0])) {
        Buffer grown = reuse->owner;
        grown.CopyOnWrite()->shape = {b->shape[0]};
        reuse->owner = grown;
      }
      Buffer alias = b;
      alias.CopyOnWrite()->data = reuse->original->data;
      remap.buffers[b.get()] = alias;
      remap.vars[b->data.get()] = reuse->original->data;
      out[i] = MakeDeclBuffer(alias, alloc->span);
      reuse->busy_until = last;
      changed = true;
    }
    if (!changed) return GetRef(seq);
    for (const auto& slot : slots) {
      if (!slot.owner.same_as(slot.original)) remap.buffers[slot.original.get()] = slot.owner;
    }
    for (auto& s : out) s = remap(s);
    return MakeSeq(std::move(out), seq->span);
  }
};

}  // namespace

ir::Pass StorageRewrite() {
  return tir::CreateBodyRewritePass([](const Stmt& body) { return StorageRewriter()(body); }, 0,
                                   "StorageRewrite");
}

static PassRegistrar registrar({"StorageRewrite",
                                "lets allocations with disjoint lifetimes share memory",
                                {},
                                [](const PassArgs&) { return StorageRewrite(); }});

}  // namespace wb::transform
