// TensorIR schedules: primitives that rewrite the loop nests around SBlocks of a PrimFunc,
// named and checked as Apache TVM's s_tir schedule does (see shared/SCHEDULE.md). The IR is
// immutable, so every primitive produces a new IRModule; a failed primitive leaves the schedule
// exactly as it was (the old module is simply kept) and records nothing in the trace.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "schedule/trace.h"
#include "tir/stmt.h"

namespace wb::schedule {

// A primitive that does not apply. `what()` is the rendered message: the primitive, then the
// reason with the block/loop it concerns named.
class ScheduleError : public std::runtime_error {
 public:
  ScheduleError(const std::string& primitive, const std::string& reason);
  const std::string& primitive() const { return primitive_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string primitive_;
  std::string reason_;
};

// Handles name blocks and loops across module versions. A block is followed by its SBlock node
// (blocks rebuilt by a primitive are re-pointed); a loop by its loop variable, which split and
// fuse retire and reorder keeps, as TVM's sref reuse does.
struct SBlockRV {
  int id = -1;
};
struct LoopRV {
  int id = -1;
};

class Schedule {
 public:
  // Works on the PrimFunc chosen as TVM's FindEntryFunc does: the one named "main", else the
  // only PrimFunc. Throws std::invalid_argument when there is none to choose.
  explicit Schedule(ir::IRModule mod);

  const ir::IRModule& mod() const { return mod_; }
  const std::string& func_name() const { return func_name_; }
  const Trace& trace() const { return trace_; }
  void WorkOn(const std::string& func_name);

  SBlockRV GetSBlock(const std::string& name, const std::optional<std::string>& func_name = {});
  std::vector<LoopRV> GetLoops(const SBlockRV& block);

  // `factors`: at most one is nullopt (inferred). Returns the new loops, outer to inner.
  std::vector<LoopRV> Split(const LoopRV& loop, const std::vector<std::optional<int64_t>>& factors,
                            bool preserve_unit_iters = true, bool disable_predication = false);
  LoopRV Fuse(const std::vector<LoopRV>& loops, bool preserve_unit_iters = true);
  // Permutes loops of one single-branch chain; the loops keep their variables, so handles to them
  // stay valid. One loop or none: nothing changes (the call is still recorded).
  void Reorder(const std::vector<LoopRV>& loops);

  // Loop kinds (SCHEDULE.md §2.3). TVM's compact-dataflow check (enable_check) is not run yet;
  // the block-iter-type check is. `Bind` takes a thread tag such as "threadIdx.x".
  void Parallel(const LoopRV& loop);
  void Vectorize(const LoopRV& loop);
  void Bind(const LoopRV& loop, const std::string& thread_axis);
  // Marks the loop unrolled and drops any thread binding; never fails.
  void Unroll(const LoopRV& loop);

  // The IR node a handle stands for now; throws std::invalid_argument when it expired.
  tir::SBlock Get(const SBlockRV& rv) const;
  tir::For Get(const LoopRV& rv) const;

 private:
  // A block is held by its function and pre-order position (split, fuse and the loop-kind
  // primitives never add, drop or reorder blocks); a loop by its loop variable.
  struct RVEntry {
    bool is_block = false;
    std::string func_name;
    size_t preorder_index = 0;
    tir::Var loop_var;
  };

  tir::PrimFunc Func() const;
  // Replaces the statement `target` of the working function with `replacement`, re-pointing
  // block handles at the rebuilt copies of their blocks.
  void Replace(const tir::StmtNode* target, const tir::Stmt& replacement);
  int NewRV(RVEntry entry);
  void SetLoopKind(const LoopRV& rv, tir::ForKind kind, const std::string& thread_axis);

  ir::IRModule mod_;
  std::string func_name_;
  std::vector<RVEntry> rvs_;
  Trace trace_;
};

}  // namespace wb::schedule
