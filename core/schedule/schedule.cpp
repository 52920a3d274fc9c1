#include "schedule/schedule.h"

#include <algorithm>

#include "arith/analyzer.h"
#include "schedule/ir_path.h"
#include "schedule/primitive/primitives.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace wb::schedule {

using namespace tir;

namespace {

std::string RenderError(const std::string& primitive, const std::string& reason) {
  return "ScheduleError: An error occurred in the schedule primitive '" + primitive +
         "'.\nError message: " + reason;
}

}  // namespace

ScheduleError::ScheduleError(const std::string& primitive, const std::string& reason, Span span)
    : std::runtime_error(RenderError(primitive, reason)),
      primitive_(primitive),
      reason_(reason),
      span_(std::move(span)) {}

Schedule::Schedule(ir::IRModule mod, bool enable_check)
    : mod_(std::move(mod)), enable_check_(enable_check) {
  if (!mod_.defined()) throw std::invalid_argument("Schedule needs a module");
  std::vector<std::string> prim_funcs;
  for (size_t i = 0; i < mod_->functions.size(); ++i) {
    if (mod_->functions[i].as<PrimFuncNode>())
      prim_funcs.push_back(mod_->global_vars[i]->name_hint);
  }
  if (std::find(prim_funcs.begin(), prim_funcs.end(), "main") != prim_funcs.end()) {
    func_name_ = "main";
  } else if (prim_funcs.size() == 1) {
    func_name_ = prim_funcs[0];
  }
}

void Schedule::WorkOn(const std::string& func_name) {
  ir::BaseFunc f = mod_->Lookup(func_name);
  if (!f.defined() || !f.as<PrimFuncNode>()) {
    throw std::invalid_argument("work_on: the module has no PrimFunc named \"" + func_name + "\"");
  }
  func_name_ = func_name;
}

PrimFunc Schedule::Func() const {
  if (func_name_.empty()) {
    throw std::invalid_argument(
        "The schedule does not know which function to be working on: call work_on, or pass "
        "func_name");
  }
  return Downcast<PrimFuncNode>(mod_->Lookup(func_name_));
}

int Schedule::NewRV(RVEntry entry) {
  rvs_.push_back(std::move(entry));
  return static_cast<int>(rvs_.size()) - 1;
}

SBlock Schedule::Get(const SBlockRV& rv) const {
  if (rv.id < 0 || rv.id >= static_cast<int>(rvs_.size()) || !rvs_[rv.id].is_block) {
    throw std::invalid_argument("The block random variable is not defined in this schedule");
  }
  const RVEntry& h = rvs_[rv.id];
  if (h.expired) throw std::invalid_argument("The block no longer exists in the IRModule");
  ir::BaseFunc base = mod_->Lookup(h.func_name);
  if (!base.defined() || !base.as<PrimFuncNode>()) {
    throw std::invalid_argument("The block no longer exists in the IRModule");
  }
  std::vector<SBlock> hits = FindBlocks(Downcast<PrimFuncNode>(base)->body, h.block_name);
  if (hits.empty()) throw std::invalid_argument("The block no longer exists in the IRModule");
  if (hits.size() > 1) {
    throw std::invalid_argument("The block `" + h.block_name + "` is not unique in function `" +
                                h.func_name + "`: blocks must have distinct names");
  }
  return hits[0];
}

For Schedule::Get(const LoopRV& rv) const {
  if (rv.id == kRootLoopRV || rv.id == kInlineLoopRV) {
    throw std::invalid_argument("The loop random variable is the " +
                                std::string(rv.id == kRootLoopRV ? "root" : "inline") +
                                " location of sample_compute_location, which only compute_at and "
                                "reverse_compute_at take");
  }
  if (rv.id < 0 || rv.id >= static_cast<int>(rvs_.size()) || rvs_[rv.id].is_block) {
    throw std::invalid_argument("The loop random variable is not defined in this schedule");
  }
  For loop = FindLoop(Func()->body, rvs_[rv.id].loop_var.get());
  if (!loop.defined()) throw std::invalid_argument("The loop no longer exists in the IRModule");
  return loop;
}

SBlockRV Schedule::GetSBlock(const std::string& name, const std::optional<std::string>& func_name) {
  std::string fname = func_name ? *func_name : func_name_;
  if (fname.empty()) Func();  // throws the "which function" error
  ir::BaseFunc base = mod_->Lookup(fname);
  if (!base.defined() || !base.as<PrimFuncNode>()) {
    throw std::invalid_argument("get_sblock: the module has no PrimFunc named \"" + fname + "\"");
  }
  std::vector<SBlock> hits = FindBlocks(Downcast<PrimFuncNode>(base)->body, name);
  if (hits.empty()) throw ScheduleError("get-block", "Cannot find a block with the name: " + name);
  if (hits.size() > 1) {
    throw ScheduleError("get-block",
                        "Found  " + std::to_string(hits.size()) + " blocks with the name: " + name);
  }
  SBlockRV rv{NewRV({true, fname, name, false, {}})};
  trace_.Append({"get_sblock",
                 {{"name", TraceValue::String(name)}, {"func_name", TraceValue::String(fname)}},
                 {TraceValue::Block(rv.id)},
                 false});
  return rv;
}

std::vector<LoopRV> Schedule::GetLoops(const SBlockRV& block) {
  SBlock b = Get(block);
  std::vector<const StmtNode*> path = PathTo(Func()->body, b.get());
  // Walk up from the block to the nearest enclosing block, collecting loops.
  std::vector<LoopRV> loops;
  for (size_t i = path.size() - 1; i-- > 0;) {
    // Only loops and blocks have srefs: other statements (SeqStmt, IfThenElse) are stepped over.
    if (ir::IsInstance<SBlockNode>(path[i])) break;
    if (!ir::IsInstance<ForNode>(path[i])) continue;
    loops.push_back(NewLoopRV(static_cast<const ForNode*>(path[i])->loop_var));
  }
  std::reverse(loops.begin(), loops.end());
  Instruction inst{"get_loops", {{"block", TraceValue::Block(block.id)}}, {}, true};
  for (const LoopRV& l : loops) inst.outputs.push_back(TraceValue::Loop(l.id));
  trace_.Append(std::move(inst));
  return loops;
}

void Schedule::Replace(const StmtNode* target, const Stmt& replacement,
                       const ReplaceOptions& options) {
  PrimFunc f = Func();
  Stmt body = ReplaceStmt(f->body, target, replacement);
  f.CopyOnWrite()->body = body;
  ir::IRModule mod = mod_;
  auto* m = mod.CopyOnWrite();
  for (size_t i = 0; i < m->global_vars.size(); ++i) {
    if (m->global_vars[i]->name_hint == func_name_) m->functions[i] = f;
  }
  mod_ = mod;
  // Renames are applied from the old names all at once, so swapping two names works.
  for (RVEntry& e : rvs_) {
    if (!e.is_block || e.expired || e.func_name != func_name_) continue;
    if (std::find(options.removed_blocks.begin(), options.removed_blocks.end(), e.block_name) !=
        options.removed_blocks.end()) {
      e.expired = true;
      continue;
    }
    auto it = options.renamed_blocks.find(e.block_name);
    if (it != options.renamed_blocks.end()) e.block_name = it->second;
  }
}

SBlockRV Schedule::NewBlockRV(const std::string& block_name) {
  Func();  // throws when there is no working function
  return SBlockRV{NewRV({true, func_name_, block_name, false, {}})};
}

LoopRV Schedule::NewLoopRV(const Var& loop_var) {
  return LoopRV{NewRV({false, "", "", false, loop_var})};
}

}  // namespace wb::schedule
