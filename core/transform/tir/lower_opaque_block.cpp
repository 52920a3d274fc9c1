#include "transform/tir/lower_opaque_block.h"

#include "tir/functor.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

class OpaqueBlockLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const SBlockRealizeNode* op) override {
    const SBlockNode* block = op->block.get();
    if (!op->iter_values.empty() || !block->iter_vars.empty()) {
      throw ir::PassError(Diagnostic::Error("block '" + block->name_hint +
                                                "' is not opaque; run ConvertBlocksToOpaque first",
                                            block->span));
    }
    if (!block->match_buffers.empty()) {
      throw ir::PassError(Diagnostic::Error(
          "block '" + block->name_hint + "' has match_buffer; run LowerMatchBuffer first",
          block->match_buffers[0]->span));
    }
    Stmt body = VisitStmt(block->body);
    if (!IsConstInt(op->predicate, 1)) body = MakeIfThenElse(op->predicate, body, {}, op->span);
    std::vector<Stmt> seq;
    for (const auto& buffer : block->alloc_buffers) seq.push_back(MakeAllocBuffer(buffer));
    seq.push_back(body);
    return MakeSeq(std::move(seq), block->span);
  }

  Stmt VisitStmt_(const ForNode* op) override {
    Stmt body = VisitStmt(op->body);
    // Pragmas travel as attributes on the loop's body (naming the loop variable, defined
    // there), as TVM places them, thread-bound loops' too (a kernel's auto-unroll limit sits on
    // its outermost loop); other annotations are dropped here.
    std::vector<std::pair<std::string, ir::ObjectRef>> pragmas;
    for (const auto& [key, value] : op->annotations) {
      if (key.rfind("pragma_", 0) == 0) pragmas.emplace_back(key, value);
    }
    for (auto it = pragmas.rbegin(); it != pragmas.rend(); ++it) {
      PrimExpr value;
      if (auto* e = it->second.as<ir::PrimExprNode>()) value = GetRef(e);
      else if (auto* i = it->second.as<ir::IntObj>()) value = MakeIntImm(DataType::Int(32), i->value);
      else if (auto* b = it->second.as<ir::BoolObj>()) value = MakeIntImm(DataType::Int(32), b->value);
      else value = MakeIntImm(DataType::Int(32), 1);
      body = MakeAttrStmt(op->loop_var, it->first, value, body, op->span);
    }
    if (op->kind == ForKind::kThreadBinding) {
      std::string tag = op->thread_binding.defined() ? op->thread_binding->thread_tag : "";
      // A virtual thread is a loop inside each real thread (TVM interleaves its iterations with
      // InjectVirtualThread; running them one after another computes the same): no launch, so
      // the kernel's thread count and its barriers stay those of the real threads.
      if (tag.rfind("vthread", 0) == 0) {
        return MakeFor(op->loop_var, op->min, op->extent, ForKind::kSerial, body, {}, {}, op->step,
                       op->span);
      }
      IterVar iv = MakeIterVar(ir::MakeRange(op->min, op->extent), op->loop_var,
                               IterVarType::kThreadIndex, tag);
      return MakeAttrStmt(iv, "thread_extent", op->extent, body, op->span);
    }
    if (body.same_as(op->body) && op->annotations.empty()) return GetRef(op);
    return MakeFor(op->loop_var, op->min, op->extent, op->kind, body, op->thread_binding, {},
                   op->step, op->span);
  }
};

}  // namespace

ir::Pass LowerOpaqueBlock() {
  return tir::CreateBodyRewritePass([](const Stmt& body) { return OpaqueBlockLowerer()(body); }, 0,
                                   "LowerOpaqueBlock");
}

static PassRegistrar registrar({"LowerOpaqueBlock",
                                "removes opaque blocks; thread-bound loops become thread_extent",
                                {},
                                [](const PassArgs&) { return LowerOpaqueBlock(); }});

}  // namespace wb::transform
