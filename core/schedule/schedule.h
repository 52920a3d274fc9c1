// TensorIR schedules: primitives that rewrite the loop nests around SBlocks of a PrimFunc,
// named and checked as Apache TVM's s_tir schedule does (see shared/SCHEDULE.md). The IR is
// immutable, so every primitive produces a new IRModule; a failed primitive leaves the schedule
// exactly as it was (the old module is simply kept) and records nothing in the trace.
//
// Primitives live one family a file (core/schedule/*.cpp, core/schedule/primitive/*.cpp). A
// primitive resolves its handles with Get, builds the new statement, swaps it in with Replace
// (telling Replace which blocks it renamed or removed), makes handles for what it created with
// NewBlockRV/NewLoopRV and records itself with Record, in that order, after every check passed.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "ir/expr.h"
#include "schedule/trace.h"
#include "support/span.h"
#include "tir/index_map.h"
#include "tir/stmt.h"

namespace wb::schedule {

// A primitive that does not apply. `what()` is the rendered message: the primitive, then the
// reason with the block/loop it concerns named. `span()` is where that block/loop was written,
// when the module came from source (recipes report it as a note).
class ScheduleError : public std::runtime_error {
 public:
  ScheduleError(const std::string& primitive, const std::string& reason, Span span = {});
  const std::string& primitive() const { return primitive_; }
  const std::string& reason() const { return reason_; }
  const Span& span() const { return span_; }

 private:
  std::string primitive_;
  std::string reason_;
  Span span_;
};

// Handles name blocks and loops across module versions, as TVM's srefs do. A block is followed
// by its name within its function (TVM requires block names to be unique per function), so it
// survives primitives that add, drop or rebuild other blocks; a primitive that renames a block
// re-points its handles, one that removes it (compute_inline) expires them. A loop is followed
// by its loop variable, which split and fuse retire and reorder keeps.
struct SBlockRV {
  int id = -1;
};
struct LoopRV {
  int id = -1;
};

// What a Replace did to blocks besides rebuilding them in place.
struct ReplaceOptions {
  std::map<std::string, std::string> renamed_blocks;  // old name -> new name
  std::vector<std::string> removed_blocks;
};

class Schedule {
 public:
  // Works on the PrimFunc chosen as TVM's FindEntryFunc does: the one named "main", else the
  // only PrimFunc. Throws std::invalid_argument when there is none to choose.
  // `enable_check` off skips the checks TVM skips then (compact dataflow, stage pipeline).
  explicit Schedule(ir::IRModule mod, bool enable_check = true);

  const ir::IRModule& mod() const { return mod_; }
  const std::string& func_name() const { return func_name_; }
  const Trace& trace() const { return trace_; }
  bool enable_check() const { return enable_check_; }
  void WorkOn(const std::string& func_name);

  // --- Lookup (schedule.cpp, primitive/get_blocks.cpp) ---
  SBlockRV GetSBlock(const std::string& name, const std::optional<std::string>& func_name = {});
  std::vector<LoopRV> GetLoops(const SBlockRV& block);
  // The nearest blocks under the block's body or the loop, in pre-order.
  std::vector<SBlockRV> GetChildBlocks(const std::variant<SBlockRV, LoopRV>& block_or_loop);
  // The blocks of the same scope that write what `block` reads or writes (RAW, WAW), and those
  // that read or overwrite what it writes.
  std::vector<SBlockRV> GetProducers(const SBlockRV& block);
  std::vector<SBlockRV> GetConsumers(const SBlockRV& block);

  // --- Loop transformations (loop_transformation.cpp, reorder.cpp) ---
  // `factors`: at most one is nullopt (inferred). Returns the new loops, outer to inner.
  std::vector<LoopRV> Split(const LoopRV& loop, const std::vector<std::optional<int64_t>>& factors,
                            bool preserve_unit_iters = true, bool disable_predication = false);
  LoopRV Fuse(const std::vector<LoopRV>& loops, bool preserve_unit_iters = true);
  // Permutes loops of one single-branch chain; the loops keep their variables, so handles to them
  // stay valid. One loop or none: nothing changes (the call is still recorded).
  void Reorder(const std::vector<LoopRV>& loops);

  // --- Loop kinds (for_kind.cpp, SCHEDULE.md §2.3) ---
  // parallel/vectorize/bind run TVM's compact-dataflow check when enable_check is on, then the
  // block-iter-type check. `Bind` takes a thread tag such as "threadIdx.x".
  void Parallel(const LoopRV& loop);
  void Vectorize(const LoopRV& loop);
  void Bind(const LoopRV& loop, const std::string& thread_axis);
  // Marks the loop unrolled and drops any thread binding; never fails.
  void Unroll(const LoopRV& loop);

  // --- Cache stages (primitive/cache.cpp, primitive/reindex.cpp; SCHEDULE.md §2.4) ---
  SBlockRV CacheRead(const SBlockRV& block, int read_buffer_index,
                     const std::string& storage_scope,
                     const std::vector<SBlockRV>& consumer_blocks = {});
  SBlockRV CacheWrite(const SBlockRV& block, int write_buffer_index,
                      const std::string& storage_scope,
                      const std::vector<SBlockRV>& consumer_blocks = {});
  // `buffer_type` is "read" or "write".
  SBlockRV ReIndex(const SBlockRV& block, const std::string& buffer_type, int buffer_index);

  // --- Compute location (primitive/compute_location.cpp, SCHEDULE.md §2.5) ---
  void ComputeAt(const SBlockRV& block, const LoopRV& loop, bool preserve_unit_loops = false,
                 int index = -1);
  void ReverseComputeAt(const SBlockRV& block, const LoopRV& loop,
                        bool preserve_unit_loops = false, int index = -1);
  // --- Inlining (primitive/compute_inline.cpp) ---
  void ComputeInline(const SBlockRV& block);
  void ReverseComputeInline(const SBlockRV& block);

  // The IR node a handle stands for now; throws std::invalid_argument when it expired.
  tir::SBlock Get(const SBlockRV& rv) const;
  tir::For Get(const LoopRV& rv) const;

  // --- For primitive implementations ---
  // The working PrimFunc; throws std::invalid_argument when there is none.
  tir::PrimFunc Func() const;
  // Replaces the statement `target` of the working function with `replacement`. Block handles
  // keep following their blocks by name; `options` says which blocks were renamed or removed.
  void Replace(const tir::StmtNode* target, const tir::Stmt& replacement,
               const ReplaceOptions& options = {});
  // Handles for a block of the working function (by name) and for a loop (by variable).
  SBlockRV NewBlockRV(const std::string& block_name);
  LoopRV NewLoopRV(const tir::Var& loop_var);
  // Appends a succeeded primitive to the trace.
  void Record(Instruction inst) { trace_.Append(std::move(inst)); }

  // ==== sched-b: reduction, blockize, annotations, layout, sampling ==========================
  // Bodies in core/schedule/primitive/{reduction,blockize,annotate,layout,sampling}.cpp; the
  // recipe methods of the same names are registered there.

  // A sampled integer (TVM's ExprRV); usable as a split factor through SplitBy.
  struct ExprRV {
    int id = -1;
  };

  // --- Reduction (primitive/reduction.cpp, SCHEDULE.md §2.6) ---
  // The init of reduction `block` becomes block `<name>_init` placed before `loop`, over copies
  // of the loops its bindings use; the block is renamed `<name>_update` (its handles follow).
  // Returns the init block.
  SBlockRV DecomposeReduction(const SBlockRV& block, const LoopRV& loop);
  // Factors the reduction over `loop` into block `<name>_rf` writing `<buffer>_rf` (the loop's
  // extent inserted at `factor_axis`, negative counts from the end); the block keeps its name
  // and reduces `<buffer>_rf` over `loop`. Returns the rfactor block.
  SBlockRV RFactor(const LoopRV& loop, int64_t factor_axis);

  // --- blockize (primitive/blockize.cpp, §2.7) ---
  // The loops under `loop` (inclusive) and their single block become the body of a new block
  // `<name>_o`; returns it.
  SBlockRV Blockize(const LoopRV& loop, bool preserve_unit_iters = true);

  // --- Annotations and storage (primitive/annotate.cpp, §2.8) ---
  // `ann_val`: an int, float, bool or string object, or an array of them. An existing key is
  // kept (TVM never overwrites); the call is still recorded.
  void Annotate(const std::variant<SBlockRV, LoopRV>& block_or_loop, const std::string& ann_key,
                const ir::ObjectRef& ann_val);
  void Unannotate(const std::variant<SBlockRV, LoopRV>& block_or_loop, const std::string& ann_key);
  void StorageAlign(const SBlockRV& block, int64_t buffer_index, int64_t axis, int64_t factor,
                    int64_t offset);
  // Renames the written buffer `<name>_<scope>` where it is allocated; the same scope is a no-op.
  void SetScope(const SBlockRV& block, int64_t buffer_index, const std::string& storage_scope);
  // Gives the buffer the block writes (`buffer_index`) the dtype `dtype` where it is allocated:
  // stores cast their value to it and loads cast back, so values that do not survive the round
  // trip change (TVM calls it unsafe). The same dtype changes nothing and is still recorded.
  void UnsafeSetDType(const SBlockRV& block, int64_t buffer_index, const std::string& dtype);
  // Wraps the block's realize (or the loop) in `for u in range(1)`; returns the new loop.
  LoopRV AddUnitLoop(const std::variant<SBlockRV, LoopRV>& block_or_loop);

  // Permutes the block's iter vars and their bindings (primitive/reorder_block_iter_var.cpp);
  // `new_order[k]` is the old position of the k-th iter var and must be a permutation.
  void ReorderBlockIterVar(const SBlockRV& block, const std::vector<int64_t>& new_order);

  // --- Layout (primitive/layout.cpp, §2.9) ---
  // ("read" | "write", index) into the block's regions, or a buffer name the block accesses.
  using BufferSpec = std::variant<std::pair<std::string, int64_t>, std::string>;
  // `pad_value`: null, a constant of the buffer's dtype (else TVM's padding type error), or an
  // IndexMap from the new indices to such a value. A map that would pad is refused without one.
  void TransformLayout(const SBlockRV& block, const BufferSpec& buffer,
                       const tir::IndexMap& index_map, const ir::ObjectRef& pad_value = {},
                       bool assume_injective_transform = false);
  // Pads the block's iters to multiples of `padding` (one per iter), through `<buf>_pad` copies.
  void PadEinsum(const SBlockRV& block, const std::vector<int64_t>& padding);

  // --- Sampling (primitive/sampling.cpp, §2.10) ---
  // Seeds the schedule's generator (TVM's Park-Miller); the default seed is 1.
  void Seed(int64_t seed);
  std::vector<ExprRV> SamplePerfectTile(const LoopRV& loop, int64_t n,
                                        int64_t max_innermost_factor = 16,
                                        const std::optional<std::vector<int64_t>>& decision = {});
  // `decision` is the index of the chosen candidate.
  ExprRV SampleCategorical(const std::vector<int64_t>& candidates, const std::vector<double>& probs,
                           std::optional<int64_t> decision = {});
  // The sampled value; std::invalid_argument when the handle is unknown or undefined.
  int64_t Get(const ExprRV& rv) const;
  // split whose factors may be sampled values; the trace names them (`factors=[v2, v3]`).
  using Factor = std::variant<std::monostate, int64_t, ExprRV>;
  std::vector<LoopRV> SplitBy(const LoopRV& loop, const std::vector<Factor>& factors,
                              bool preserve_unit_iters = true, bool disable_predication = false);

  // Implementation details of the primitives above (not API).
  tir::Stmt BlockOrLoop(const std::variant<SBlockRV, LoopRV>& rv) const;
  void ReplaceFunc(const tir::PrimFunc& func);
  ExprRV NewExprRV(std::optional<int64_t> value);
  int64_t NextRandom();
  int64_t SampleInt(int64_t lo, int64_t hi);
  int64_t rand_state_ = 1;
  std::vector<std::optional<int64_t>> expr_values_;
  // ==== end of sched-b ========================================================================
 private:
  struct RVEntry {
    bool is_block = false;
    std::string func_name;
    std::string block_name;
    bool expired = false;
    tir::Var loop_var;
  };

  int NewRV(RVEntry entry);
  void SetLoopKind(const LoopRV& rv, tir::ForKind kind, const std::string& thread_axis);
  void ComputeAtImpl(const SBlockRV& block, const LoopRV& loop, bool preserve_unit_loops,
                     int index, bool reverse);

  ir::IRModule mod_;
  std::string func_name_;
  bool enable_check_ = true;
  std::vector<RVEntry> rvs_;
  Trace trace_;
};

}  // namespace wb::schedule
