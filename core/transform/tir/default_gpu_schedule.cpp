#include "transform/tir/default_gpu_schedule.h"

#include <limits>

#include "schedule/schedule.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform.h"
#include "transform/registry.h"

namespace wb::transform {

namespace {

using namespace tir;

constexpr int64_t kMaxThreadBlocks = 256;  // TVM's max_threadblocks

// Leaf blocks (no block inside), in pre-order.
std::vector<std::string> LeafBlocks(const Stmt& body) {
  std::vector<std::string> leaves;
  class Finder : public StmtVisitor {
   public:
    std::vector<std::string>* out;
    void VisitStmt_(const SBlockNode* op) override {
      const size_t before = out->size();
      ++depth;
      StmtVisitor::VisitStmt_(op);
      --depth;
      bool has_child = false;
      PostOrderVisit(op->body, [&](const Object* n) { has_child |= dynamic_cast<const SBlockNode*>(n) != nullptr; });
      if (!has_child && depth > 0) out->insert(out->begin() + static_cast<long>(before), op->name_hint);
    }
    int depth = 0;
  } finder;
  finder.out = &leaves;
  finder(body);
  return leaves;
}

void ThreadBind(schedule::Schedule& sch, const std::string& name, int64_t max_threads) {
  schedule::SBlockRV block = sch.GetSBlock(name);
  std::vector<schedule::LoopRV> loops = sch.GetLoops(block);
  for (const auto& l : loops) {
    if (sch.Get(l)->kind == ForKind::kThreadBinding) return;  // already scheduled
  }
  SBlock b = sch.Get(block);
  // A simple kernel: loop i drives iter var i (TVM's requirement too).
  if (!(loops.size() == b->iter_vars.size() || (loops.empty() && b->iter_vars.size() <= 1))) {
    throw ir::PassError(Diagnostic::Error(
        "DefaultGPUSchedule: block '" + name + "' has " + std::to_string(loops.size()) +
            " loops for " + std::to_string(b->iter_vars.size()) +
            " iteration variables; only simple kernels (one loop per iteration variable) are "
            "bound automatically, schedule it by hand",
        b->span));
  }
  std::vector<schedule::LoopRV> spatial;
  for (size_t i = 0; i < loops.size(); ++i) {
    if (b->iter_vars[i]->iter_type != IterVarType::kDataPar) continue;
    if (spatial.size() != i) {
      throw ir::PassError(Diagnostic::Error(
          "DefaultGPUSchedule: block '" + name + "' has a reduction loop outside the spatial loop '" +
              sch.Get(loops[i])->loop_var->name_hint + "'; reorder its loops or bind them by hand",
          b->span));
    }
    spatial.push_back(loops[i]);
  }
  if (spatial.empty()) {
    spatial.push_back(loops.empty() ? sch.AddUnitLoop(block) : sch.AddUnitLoop(loops[0]));
  }
  schedule::LoopRV fused = spatial.size() == 1 ? spatial[0] : sch.Fuse(spatial, false);
  int64_t product = std::numeric_limits<int64_t>::max();
  if (const int64_t* n = AsConstInt(sch.Get(fused)->extent)) product = *n;
  if (product > max_threads * kMaxThreadBlocks) {
    auto splits = sch.Split(fused, {std::nullopt, kMaxThreadBlocks, max_threads});
    sch.Reorder({splits[1], splits[2], splits[0]});
    sch.Bind(splits[1], "blockIdx.x");
    sch.Bind(splits[2], "threadIdx.x");
  } else {
    auto splits = sch.Split(fused, {std::nullopt, std::min(product, max_threads)});
    sch.Bind(splits[0], "blockIdx.x");
    sch.Bind(splits[1], "threadIdx.x");
  }
}

PrimFunc Schedule(const PrimFunc& func, int64_t max_threads) {
  std::vector<std::string> leaves = LeafBlocks(func->body);
  if (leaves.empty()) return func;
  ir::GlobalVar gv = ir::MakeGlobalVar("main");
  schedule::Schedule sch(ir::MakeIRModule({gv}, {func}));
  try {
    for (const auto& name : leaves) ThreadBind(sch, name, max_threads);
  } catch (const schedule::ScheduleError& e) {
    throw ir::PassError(Diagnostic::Error(
        "DefaultGPUSchedule: " + e.primitive() + " failed: " + e.reason(),
        e.span().defined() ? e.span() : func->span));
  }
  return Downcast<PrimFuncNode>(sch.mod()->Lookup("main"));
}

}  // namespace

ir::Pass DefaultGPUSchedule(int64_t max_threads_per_block) {
  return tir::CreatePrimFuncPass(
      [max_threads_per_block](PrimFunc func, const ir::IRModule&, const ir::PassContext&) {
        if (max_threads_per_block <= 0) {
          throw ir::PassError(Diagnostic::Error(
              "DefaultGPUSchedule: max_threads_per_block must be positive, got " +
              std::to_string(max_threads_per_block)));
        }
        return Schedule(func, max_threads_per_block);
      },
      0, "DefaultGPUSchedule");
}

static PassRegistrar registrar({"DefaultGPUSchedule",
                                "binds the unbound blocks of simple kernels to blockIdx.x / "
                                "threadIdx.x (fused spatial loops, split by max_threads_per_block)",
                                {{"max_threads_per_block", ParamType::kInt, ir::MakeInt(1024),
                                  "threads per block"}},
                                [](const PassArgs& args) {
                                  return DefaultGPUSchedule(args.Int("max_threads_per_block"));
                                }});

}  // namespace wb::transform
