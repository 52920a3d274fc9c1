// parallel, vectorize, bind and unroll (shared/SCHEDULE.md §2.3): they only change a loop's kind,
// after checking (enable_check) that the loop's subtree has compact dataflow and that no block
// iterator bound to the loop is a reduction or opaque one.
#include "schedule/block_scope.h"
#include "schedule/schedule.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace wb::schedule {

using namespace tir;

namespace {

bool IsKnownThreadTag(const std::string& tag) {
  static const char* kTags[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z", "threadIdx.x",
                                "threadIdx.y", "threadIdx.z", "vthread",    "vthread.x",
                                "vthread.y",   "vthread.z"};
  for (const char* t : kTags) {
    if (tag == t) return true;
  }
  return false;
}

bool UsesVar(const PrimExpr& e, const VarNode* var) {
  bool used = false;
  PostOrderVisit(e, [&](const ir::Object* n) { used |= n == var; });
  return used;
}

// The first block under `loop` with an iterator bound to the loop variable whose type the new
// kind cannot honour; null when there is none.
const SBlockNode* FindWrongIterType(const For& loop, bool allow_reduction) {
  const SBlockNode* bad = nullptr;
  PostOrderVisit(loop->body, [&](const ir::Object* n) {
    if (bad || !ir::IsInstance<SBlockRealizeNode>(n)) return;
    const auto* realize = static_cast<const SBlockRealizeNode*>(n);
    for (size_t i = 0; i < realize->iter_values.size(); ++i) {
      IterVarType t = realize->block->iter_vars[i]->iter_type;
      bool ok = t == IterVarType::kDataPar || (allow_reduction && t == IterVarType::kCommReduce);
      if (!ok && UsesVar(realize->iter_values[i], loop->loop_var.get())) {
        bad = realize->block.get();
        return;
      }
    }
  });
  return bad;
}

}  // namespace

void Schedule::SetLoopKind(const LoopRV& rv, ForKind kind, const std::string& thread_axis) {
  For loop = Get(rv);
  const char* prim = kind == ForKind::kParallel     ? "parallel"
                     : kind == ForKind::kVectorized ? "vectorize"
                     : kind == ForKind::kUnrolled   ? "unroll"
                                                    : "bind";
  if (kind != ForKind::kUnrolled) {
    if (enable_check_) CheckSubtreeCompactDataflow(prim, Func(), loop);
    if (kind == ForKind::kThreadBinding && !IsKnownThreadTag(thread_axis)) {
      throw std::invalid_argument("bind: \"" + thread_axis + "\" is not a thread tag (expected " +
                                  "blockIdx.x/y/z, threadIdx.x/y/z or vthread)");
    }
    bool allow_reduction =
        kind == ForKind::kThreadBinding && thread_axis.rfind("threadIdx.", 0) == 0;
    if (const SBlockNode* block = FindWrongIterType(loop, allow_reduction)) {
      std::string what = kind == ForKind::kThreadBinding ? "bind" : prim;
      throw ScheduleError(
          prim, "The \"" + what + "\" cannot be fulfilled with regard to block `" +
                    block->name_hint + "` because some block iter whose block_iter_type is not " +
                    (allow_reduction ? "data-parallel or reduction" : "data-parallel") +
                    " is bound to the loop `" + loop->loop_var->name_hint + "`");
    }
  }
  IterVar thread;
  if (kind == ForKind::kThreadBinding) {
    thread = MakeIterVar(ir::MakeRange(loop->min, loop->extent),
                         MakeVar(thread_axis, loop->loop_var->dtype), IterVarType::kThreadIndex,
                         thread_axis);
  }
  Replace(loop.get(), MakeFor(loop->loop_var, loop->min, loop->extent, kind, loop->body, thread,
                              loop->annotations, loop->step, loop->span));
  Instruction inst{prim, {{"loop", TraceValue::Loop(rv.id)}}, {}, false};
  if (kind == ForKind::kThreadBinding) {
    inst.args.push_back({"thread_axis", TraceValue::String(thread_axis)});
  }
  trace_.Append(std::move(inst));
}

void Schedule::Parallel(const LoopRV& loop) { SetLoopKind(loop, ForKind::kParallel, ""); }
void Schedule::Vectorize(const LoopRV& loop) { SetLoopKind(loop, ForKind::kVectorized, ""); }
void Schedule::Unroll(const LoopRV& loop) { SetLoopKind(loop, ForKind::kUnrolled, ""); }
void Schedule::Bind(const LoopRV& loop, const std::string& thread_axis) {
  SetLoopKind(loop, ForKind::kThreadBinding, thread_axis);
}

}  // namespace wb::schedule
