// The CUDA postprocessors (postproc.h): what makes a sampled GPU schedule one the build takes,
// and VerifyGPUCode, which rejects one the GPU could not launch.
#include <limits>
#include <map>

#include "codegen/build_cuda.h"
#include "dlight/analysis.h"
#include "meta_schedule/postproc.h"
#include "tir/functor.h"

namespace wb::meta_schedule {

using schedule::LoopRV;
using schedule::SBlockRV;
using schedule::Schedule;

namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string ThreadTag(const tir::For& f) {
  if (f->kind != tir::ForKind::kThreadBinding || !f->thread_binding.defined()) return "";
  return f->thread_binding->thread_tag;
}

bool Uses(const ir::PrimExpr& e, const tir::Var& var) {
  bool found = false;
  tir::PostOrderVisit(e, [&](const ir::Object* node) { found |= node == var.get(); });
  return found;
}

// Every block of the function but the root.
std::vector<std::string> BlockNames(const Schedule& sch) {
  std::vector<std::string> out;
  auto* root = dynamic_cast<const tir::SBlockRealizeNode*>(sch.Func()->body.get());
  // Post-order visits a block after what it holds: reversed, outer blocks come first.
  tir::PostOrderVisit(sch.Func()->body, [&](const ir::Object* node) {
    if (auto* b = dynamic_cast<const tir::SBlockNode*>(node)) {
      if (!root || b != root->block.get()) out.push_back(b->name_hint);
    }
  });
  return out;
}

std::optional<int64_t> IntAnn(const ir::AttrMap& annotations, const std::string& key) {
  auto it = annotations.find(key);
  if (it == annotations.end()) return std::nullopt;
  if (auto* i = dynamic_cast<const ir::IntObj*>(it->second.get())) return i->value;
  return std::nullopt;
}

// The block's realize: its iterator bindings (the innermost loop's body, or under the root).
const tir::SBlockRealizeNode* RealizeOf(Schedule& sch, const SBlockRV& rv) {
  const tir::SBlockRealizeNode* found = nullptr;
  const tir::SBlockNode* block = sch.Get(rv).get();
  tir::PostOrderVisit(sch.Func()->body, [&](const ir::Object* node) {
    if (auto* r = dynamic_cast<const tir::SBlockRealizeNode*>(node)) {
      if (r->block.get() == block) found = r;
    }
  });
  return found;
}

// Whether `loop` drives only data-parallel iterators of the block.
// (A loop that drives nothing, a unit loop, counts as spatial, as in TVM's GetLoopIterType.)
bool SpatialLoop(const tir::SBlockRealizeNode* realize, const tir::For& loop) {
  for (size_t k = 0; k < realize->iter_values.size(); ++k) {
    if (Uses(realize->iter_values[k], loop->loop_var) &&
        realize->block->iter_vars[k]->iter_type != tir::IterVarType::kDataPar) {
      return false;
    }
  }
  return true;
}

// The thread loops' extents inside a lowered kernel, and its shared memory and vector widths.
class KernelLimits : public tir::StmtExprVisitor {
 public:
  explicit KernelLimits(const SpaceOptions& options) : options_(options) {}
  std::string error;
  int64_t shared_bytes = 0;

  using tir::StmtExprVisitor::VisitExpr_;
  using tir::StmtExprVisitor::VisitStmt_;

  void VisitStmt_(const tir::AttrStmtNode* op) override {
    auto* iv = op->node.as<tir::IterVarNode>();
    if (!iv || op->attr_key != "thread_extent" || !StartsWith(iv->thread_tag, "threadIdx.")) {
      return tir::StmtExprVisitor::VisitStmt_(op);
    }
    const int axis = iv->thread_tag.back() - 'x';
    const int64_t* extent = tir::AsConstInt(op->value);
    if (!extent || axis < 0 || axis > 2) {
      Fail("the thread extent of " + iv->thread_tag + " is not a constant");
      return;
    }
    const int64_t saved = threads_[axis];
    threads_[axis] = *extent;
    static const int64_t kAxisLimit[3] = {1024, 1024, 64};
    const int64_t product = threads_[0] * threads_[1] * threads_[2];
    if (*extent > kAxisLimit[axis]) {
      Fail(iv->thread_tag + " = " + std::to_string(*extent) + " exceeds " + std::to_string(kAxisLimit[axis]));
    } else if (product > options_.max_threads_per_block) {
      Fail(std::to_string(product) + " threads per block exceed max_threads_per_block " +
           std::to_string(options_.max_threads_per_block));
    }
    tir::StmtExprVisitor::VisitStmt_(op);
    threads_[axis] = saved;
  }
  void VisitStmt_(const tir::AllocBufferNode* op) override {
    if (StartsWith(op->buffer->scope(), "shared")) {
      int64_t bytes = op->buffer->dtype.bytes() * op->buffer->dtype.lanes();
      for (const auto& d : op->buffer->shape) {
        const int64_t* e = tir::AsConstInt(d);
        if (!e) {
          Fail("the shared buffer " + op->buffer->name + " has a symbolic shape");
          return;
        }
        bytes *= *e;
      }
      shared_bytes += bytes;
      if (shared_bytes > options_.max_shared_memory_per_block) {
        Fail(std::to_string(shared_bytes) + " bytes of shared memory exceed max_shared_memory_per_block " +
             std::to_string(options_.max_shared_memory_per_block));
      }
    }
    tir::StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const tir::BufferStoreNode* op) override {
    CheckVector(op->value->dtype, op->buffer->name);
    tir::StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const tir::BufferLoadNode* op) override {
    CheckVector(op->dtype, op->buffer->name);
    tir::StmtExprVisitor::VisitExpr_(op);
  }

 private:
  void Fail(const std::string& why) {
    if (error.empty()) error = why;
  }
  void CheckVector(const ir::DataType& t, const std::string& buffer) {
    if (t.lanes() <= 1) return;
    const int64_t bytes = static_cast<int64_t>(t.lanes()) * t.bytes();
    if (bytes > options_.max_vector_bytes) {
      Fail("a " + std::to_string(bytes) + "-byte vector access of " + buffer + " exceeds max_vector_bytes " +
           std::to_string(options_.max_vector_bytes));
    }
  }

  const SpaceOptions& options_;
  int64_t threads_[3] = {1, 1, 1};
};

// TVM's ThreadExtentChecker on the scheduled function, and the vthread product.
class ThreadExtentChecker : public tir::StmtVisitor {
 public:
  explicit ThreadExtentChecker(const SpaceOptions& options) : options_(options) {}
  std::string error;

  void VisitStmt_(const tir::ForNode* op) override {
    const std::string tag = op->kind == tir::ForKind::kThreadBinding && op->thread_binding.defined()
                                ? op->thread_binding->thread_tag
                                : "";
    const int64_t* extent = tir::AsConstInt(op->extent);
    if (StartsWith(tag, "threadIdx.") || StartsWith(tag, "vthread")) {
      if (!extent) {
        if (error.empty()) error = "the extent of the loop bound to " + tag + " is not a constant";
        return;
      }
      int64_t* slot = StartsWith(tag, "vthread") ? &vthreads_ : &threads_[tag.back() - 'x'];
      const int64_t saved = *slot;
      *slot = StartsWith(tag, "vthread") ? saved * *extent : *extent;
      if (vthreads_ > options_.max_vthread && error.empty()) {
        error = std::to_string(vthreads_) + " virtual threads exceed max_vthread " + std::to_string(options_.max_vthread);
      }
      tir::StmtVisitor::VisitStmt_(op);
      *slot = saved;
      return;
    }
    tir::StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const tir::SBlockNode* op) override {
    std::optional<int64_t> low = IntAnn(op->annotations, "meta_schedule.thread_extent_low_inclusive");
    std::optional<int64_t> high = IntAnn(op->annotations, "meta_schedule.thread_extent_high_inclusive");
    if (low && high) {
      const int64_t product = threads_[0] * threads_[1] * threads_[2];
      if ((product < *low || product > *high) && error.empty()) {
        error = "block " + op->name_hint + " runs on " + std::to_string(product) + " threads, outside [" +
                std::to_string(*low) + ", " + std::to_string(*high) + "]";
      }
    }
    tir::StmtVisitor::VisitStmt_(op);
  }

 private:
  const SpaceOptions& options_;
  int64_t threads_[3] = {1, 1, 1};
  int64_t vthreads_ = 1;
};

}  // namespace

bool DisallowDynamicLoop(const Schedule& sch, std::string* error) {
  std::string loop;
  tir::PostOrderVisit(sch.Func()->body, [&](const ir::Object* node) {
    if (auto* f = dynamic_cast<const tir::ForNode*>(node)) {
      if (!tir::AsConstInt(f->extent) && loop.empty()) loop = f->loop_var->name_hint;
    }
  });
  if (loop.empty()) return true;
  *error = "DisallowDynamicLoop: the loop " + loop + " has a symbolic extent";
  return false;
}

bool RewriteCooperativeFetch(Schedule& sch, std::string* error) {
  for (const std::string& name : BlockNames(sch)) {
    SBlockRV rv = sch.GetSBlock(name);
    std::optional<int64_t> lanes = IntAnn(sch.Get(rv)->annotations, "meta_schedule.cooperative_fetch");
    if (!lanes) continue;
    std::vector<LoopRV> loops = sch.GetLoops(rv);
    std::optional<int64_t> tx;
    for (const LoopRV& l : loops) {
      tir::For f = sch.Get(l);
      if (ThreadTag(f) == "threadIdx.x") tx = tir::AsConstInt(f->extent) ? *tir::AsConstInt(f->extent) : -1;
    }
    if (!tx || *tx <= 0 || loops.empty()) {
      *error = "RewriteCooperativeFetch: block " + name + " is under no threadIdx.x loop of constant extent";
      return false;
    }
    sch.Unannotate(rv, "meta_schedule.cooperative_fetch");
    if (*lanes > 1) {
      std::vector<LoopRV> split = sch.Split(loops.back(), {std::nullopt, *tx, *lanes});
      sch.Vectorize(split[2]);
      sch.Bind(split[1], "threadIdx.x");
    } else {
      std::vector<LoopRV> split = sch.Split(loops.back(), {std::nullopt, *tx});
      sch.Bind(split[1], "threadIdx.x");
    }
  }
  return true;
}

void BindBlockThreadIdx(Schedule& sch, const SBlockRV& rv, int64_t max_threadblocks, int64_t max_threads_per_block,
                        const std::function<Schedule::Factor(int64_t)>& thread_extent) {
  const tir::SBlockRealizeNode* realize = RealizeOf(sch, rv);
  if (!realize) return;
  std::vector<LoopRV> loops = sch.GetLoops(rv);
  const int n = static_cast<int>(loops.size());
  int i_block = -1, i_thread = -1, i_multi_child = -1, i_spatial = -1;
  for (int i = 0; i < n; ++i) {
    tir::For f = sch.Get(loops[i]);
    const std::string tag = ThreadTag(f);
    if (StartsWith(tag, "blockIdx.") && i_block == -1) i_block = i;
    if (StartsWith(tag, "threadIdx.") && i_thread == -1) i_thread = i;
    if (f->kind != tir::ForKind::kSerial && i_multi_child == -1) i_multi_child = i;
    if (!dynamic_cast<const tir::ForNode*>(f->body.get()) &&
        !dynamic_cast<const tir::SBlockRealizeNode*>(f->body.get()) && i_multi_child == -1) {
      i_multi_child = i + 1;
    }
    if (SpatialLoop(realize, f) && i_spatial == i - 1) ++i_spatial;
  }
  if (i_multi_child == -1) i_multi_child = n;
  if (i_block != -1 && i_thread != -1) return;
  if (i_block != -1) return;  // blockIdx without threadIdx: TVM does not handle it either
  if (i_spatial == -1) {
    LoopRV unit = loops.empty() ? sch.AddUnitLoop(rv) : sch.AddUnitLoop(loops[0]);
    loops.insert(loops.begin(), unit);
    i_spatial = 0;
    if (i_thread != -1) ++i_thread;
    ++i_multi_child;
  }
  if (i_thread != -1) {
    const int num_fuse = std::min({i_multi_child, i_thread, i_spatial + 1});
    if (num_fuse <= 0) return;
    std::vector<LoopRV> fuse(loops.begin(), loops.begin() + num_fuse);
    LoopRV fused = fuse.size() == 1 ? fuse[0] : sch.Fuse(fuse);
    sch.Bind(fused, "blockIdx.x");
    return;
  }
  const int num_fuse = std::min(i_multi_child, i_spatial + 1);
  std::vector<LoopRV> fuse(loops.begin(), loops.begin() + num_fuse);
  LoopRV fused = fuse.size() == 1 ? fuse[0] : sch.Fuse(fuse);
  const int64_t* e = tir::AsConstInt(sch.Get(fused)->extent);
  const int64_t extent = e ? *e : std::numeric_limits<int64_t>::max();
  if (extent <= max_threadblocks * max_threads_per_block) {
    Schedule::Factor factor = thread_extent(std::min(extent, max_threads_per_block));
    std::vector<LoopRV> split = sch.SplitBy(fused, {std::monostate{}, factor});
    sch.Bind(split[0], "blockIdx.x");
    sch.Bind(split[1], "threadIdx.x");
  } else {
    std::vector<LoopRV> split = sch.Split(fused, {std::nullopt, max_threadblocks, max_threads_per_block});
    sch.Reorder({split[1], split[2], split[0]});
    sch.Bind(split[1], "blockIdx.x");
    sch.Bind(split[2], "threadIdx.x");
  }
}

bool RewriteUnboundBlock(Schedule& sch, const SpaceOptions& options, std::string* error) {
  try {
    for (const std::string& name : BlockNames(sch)) {
      SBlockRV rv = sch.GetSBlock(name);
      BindBlockThreadIdx(sch, rv, options.max_threadblocks, options.max_threads_per_block,
                         [&](int64_t max) -> Schedule::Factor { return std::min(max, options.max_threads_per_block); });
    }
  } catch (const std::exception& e) {
    *error = std::string("RewriteUnboundBlock: ") + e.what();
    return false;
  }
  return true;
}

bool VerifyGPUCode(const Schedule& sch, const SpaceOptions& options, std::string* error,
                   ir::IRModule* lowered) {
  ThreadExtentChecker checker(options);
  checker(sch.Func()->body);
  if (!checker.error.empty()) {
    *error = "VerifyGPUCode: " + checker.error;
    return false;
  }
  ir::IRModule kernels;
  try {
    DiagnosticList diags;
    kernels = codegen::LowerCuda(sch.mod(), options.target, diags);
    if (!kernels.defined()) {
      *error = "VerifyGPUCode: " + RenderDiagnostics(diags);
      return false;
    }
  } catch (const std::exception& e) {
    *error = std::string("VerifyGPUCode: the lowering failed: ") + e.what();
    return false;
  }
  for (const auto& f : kernels->functions) {
    auto prim = f.as_ref<tir::PrimFuncNode>();
    if (!prim.defined()) continue;
    KernelLimits limits(options);
    limits(prim->body);
    if (!limits.error.empty()) {
      *error = "VerifyGPUCode: " + limits.error;
      return false;
    }
  }
  if (lowered) *lowered = kernels;
  return true;
}

bool ApplyCudaPostprocs(Schedule& sch, const SpaceOptions& options, std::string* error,
                        ir::IRModule* lowered) {
  if (!DisallowDynamicLoop(sch, error)) return false;
  try {
    if (!RewriteCooperativeFetch(sch, error)) return false;
  } catch (const std::exception& e) {
    *error = std::string("RewriteCooperativeFetch: ") + e.what();
    return false;
  }
  return RewriteUnboundBlock(sch, options, error) && RewriteParallelVectorizeUnroll(sch, error) &&
         RewriteReductionBlock(sch, error) && VerifyGPUCode(sch, options, error, lowered);
}

}  // namespace wb::meta_schedule
