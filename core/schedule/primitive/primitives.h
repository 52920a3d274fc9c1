// decompose_padding (primitive/decompose_padding.cpp), transform_block_layout
// (primitive/transform_block_layout.cpp) and merge (primitive/merge.cpp): primitives that are
// free functions on a Schedule rather than members, so that adding them does not touch
// schedule.h (which nearly every schedule file includes). They follow the members' protocol: resolve the handles, check everything, Replace,
// make the new handles, Record.
#pragma once

#include "schedule/schedule.h"
#include "tir/index_map.h"

namespace wb::schedule {

// TVM's decompose_padding: the block `B[...] = T.if_then_else(in_bound, value, pad_const)`
// becomes two. Block `<name>_pad_const` writes the constant everywhere the block wrote, over
// copies of the loops from the innermost one up to `loop` (inclusive), placed just before
// `loop`; the block itself keeps its name and writes `value` on the in-bound region only: its
// iterators are shifted to start at that region's minimum, and the loops of its single-child
// chain under `loop` that bind an iterator directly shrink to the region's extent (the others
// keep the in-bound condition as the block predicate). Returns the `_pad_const` block.
//
// Checks, in TVM's order: the block is complete in its scope; `loop` is one of its loops; the
// body matches the pattern (a store of an if_then_else with a constant pad value and an in-bound
// value without side effects), the in-bound condition is not always true, and each of its
// conjuncts bounds one iterator (`1 <= vi`, `vi < 129`, `vi - 3 >= 0`).
SBlockRV DecomposePadding(Schedule& sch, const SBlockRV& block, const LoopRV& loop);
// TVM's can_decompose_padding: whether DecomposePadding would apply; changes nothing.
bool CanDecomposePadding(const Schedule& sch, const SBlockRV& block, const LoopRV& loop);

// The three flags TVM's schedule state keeps per block (SCHEDULE.md §1.3), computed from the
// current function: the block's binding is affine over the loops of its scope; it reads what its
// scope's producers write (region cover; the root block: true); and, as a scope, its children
// have region cover with no write-after-read between them (stage pipeline; a leaf: true).
struct CachedFlags {
  bool affine_binding = false;
  bool region_cover = false;
  bool stage_pipeline = false;
};
CachedFlags GetCachedFlags(const Schedule& sch, const SBlockRV& block);

// TVM's get_output_blocks: the blocks below `scope_block` (nested ones included, in pre-order)
// that write a buffer which their own scope root does not allocate.
std::vector<SBlockRV> GetOutputBlocks(Schedule& sch, const SBlockRV& scope_block);

// TVM's transform_block_layout: re-indexes the block's iteration space by `index_map` (one
// parameter per iterator). The block gets iterators `v0, v1, ...` over the map's image of its
// domain and a new nest of serial loops `ax0, ax1, ...` binding them one to one; the body reads
// the old iterators through the map's inverse. The loops around the block must start at 0 and
// bind its iterators one to one, in order, with the block their only child; each new iterator
// mixes only iterators of one kind (spatial or reduction); the map must be bijective affine.
void TransformBlockLayout(Schedule& sch, const SBlockRV& block, const tir::IndexMap& index_map);

// TVM's merge: loops of different nests of one sequence, each the same number of loops below
// their lowest common ancestor with the same extents level by level, become one nest of serial
// loops `<var>_m` (named after the first loop's nest) whose body runs each given loop's body in
// the order given; it takes the place of the last given loop's nest. Returns the innermost
// merged loop. TVM's checks (no annotation or thread binding, loops start at 0, each nest a
// single chain, same scope, depth and extents), and one TVM does not make: merging interleaves
// the nests' iterations (and moves a nest past the statements between), so the nests, and the
// statements they move past, must not write what another one reads or writes.
LoopRV Merge(Schedule& sch, const std::vector<LoopRV>& loops);

// TVM's loop_partition: the loop (constant min and extent, no annotation or thread binding)
// becomes consecutive loops `<var>0, <var>1, ...` over ranges of the given lengths (one None takes
// what the others leave; without one, a last range takes it), each a copy of the body under an
// opaque block `<block>_<var><k>_partition`, all under an opaque block `<block>_<var>_common` in
// the loop's place (`<block>`: the first block under the loop). The copies' loops and iterators
// are fresh variables and their blocks are renamed `<name>_<var><k>`, so handles to the blocks
// under the loop expire; a block bound directly to the loop variable gets that iterator's domain
// narrowed to its range. Departures from TVM, for soundness: a loop that binds a reduction
// iterator of a block with an init is refused (TVM's copies would each restart the reduction);
// block regions stay per-instance (TVM widens them to the iterators' domains, which later
// primitives take for one instance's accesses); the partition and common blocks get the regions
// their bodies access (TVM leaves them empty, hiding the accesses from dependence analysis); a
// loop not starting at 0 is cut from its min (TVM cuts from 0 and loses iterations).
// `preserve_unit_iters` is recorded and, as in TVM, has no effect. Returns the new loops.
std::vector<LoopRV> LoopPartition(Schedule& sch, const LoopRV& loop,
                                  const std::vector<Schedule::Factor>& factors,
                                  bool preserve_unit_iters = true);

// TVM's cache_inplace, for a block that reads and writes the buffer (its `read_buffer_index`-th
// read) in place: inside the innermost loop around the block (else its scope), a stage
// `<buf>_<scope>` copies the buffer into a new `<scope>` buffer of its shape just before the
// block, the block (and what it nests, opaque uses of the buffer's data included) works on the
// copy, and a stage copies what the block writes back just after it. TVM names both stages
// `<buf>_<scope>`; handles follow blocks by name, so the second is `<buf>_<scope>_1`. The regions
// are the block's, through its bindings (TVM copies them as written, which only works for blocks
// without iterators), and the copy-in covers the written region too, so that the copy-back
// never writes values the block did not produce. Returns the two stages.
std::vector<SBlockRV> CacheInplace(Schedule& sch, const SBlockRV& block, int read_buffer_index,
                                   const std::string& storage_scope);

// TVM's reindex_cache_read (`is_read`) / reindex_cache_write: cache_read / cache_write whose
// cache `<buf>_<scope>` is indexed by `index_map` of the block's iters (its shape the map's image
// of their domains). The block must access the buffer at a single point, and the iters that index
// the buffer must be those the map uses. The stage copies one point per instance of those iters,
// under copies of the loops (between the block and the stage's place) that bind them; it goes
// where cache_read / cache_write would put it, and only the block itself is redirected. Returns
// the stage.
SBlockRV ReindexCache(Schedule& sch, const SBlockRV& block, int buffer_index,
                      const std::string& storage_scope, const tir::IndexMap& index_map,
                      bool is_read);

// TVM's read_at / write_at: at each iteration of `loop` (an ancestor of `block`), a block
// `<buf>_<scope>` (annotated auto_copy) copies the region of the buffer (the block's
// `buffer_index`-th read / write) that the loop's body reads / writes, relaxed over the loops
// under `loop` and, for shared and global scopes, over the thread loops above it, between the
// buffer and a new `<buf>_<scope>` buffer of its shape. read_at copies in before the first
// statement of the body that reads the buffer, and those statements from there on read the new
// buffer; write_at copies out after the last statement that writes it, and the statements up to
// there write it. The copy block's iterators `v0, ...` are bound to the loops of `loop`'s nest its
// region uses. Refused (TVM fails an internal check): a write of the buffer after its first read
// (read_at), a read after its last write (write_at); and, where TVM goes on and reads what was
// never written, write_at over a block reading the buffer that no init of it writes first.
SBlockRV ReadAt(Schedule& sch, const LoopRV& loop, const SBlockRV& block, int read_buffer_index,
                const std::string& storage_scope);
SBlockRV WriteAt(Schedule& sch, const LoopRV& loop, const SBlockRV& block, int write_buffer_index,
                 const std::string& storage_scope);

// TVM's rolling_buffer: the buffer `block` writes (its `write_buffer_index`-th), computed at a tile
// loop (the lowest common ancestor of the block and its consumers), keeps along one axis only
// the tile one iteration writes: the axis whose tile start (`v * stride`, `floordiv(v * stride,
// d)` or `v` for a tile loop `v`) moves with the outermost loop, when consecutive tiles overlap.
// Accesses index that axis modulo the tile's extent, the iterator at the axis' position of the
// blocks accessing the buffer becomes opaque, their regions are re-inferred, and the block's
// predicate skips the rows of each overlapping axis the previous tile computed
// (`v < 1 or row >= overlap`). TVM's checks (not an output block, only RAW dependences, the LCA
// a loop, a rolling pattern), and what it assumes: the consumers read only what the block writes
// under that loop, the tile loops are serial and start at 0, and the block's iterator d indexes
// dimension d of the buffer.
void RollingBuffer(Schedule& sch, const SBlockRV& block, int write_buffer_index);

// TVM's fuse_reduction_epilogue: a reduction into `temp` (init `temp[...] = c`, update
// `temp[...] = g(temp[...], ...)`) and an epilogue `D[...] = E(temp[...])` over the reduction's
// data-parallel iterators, E reading temp once through additions and min/max only (a bias
// `temp + C`, a ReLU `max(temp + C, 0)`, a clip `min(max(temp, lo), hi)`, in any operand order),
// become the reduction block writing D with init `D[...] = E(c)` and update `D[...] = E(g(D))`
// where the addend beside temp is dropped (TVM's rule); the epilogue is removed (its handles
// expire) and temp's allocation is kept, as TVM keeps it. A bias keeps the program's meaning; a
// ReLU or clip then applies at every reduction step, which is what the primitive means in TVM.
// TVM's checks (stage pipeline, a single write, a reduction and a complete block, not an output
// block, the body pattern, with TVM's BodyAnalysisError message) and, for the meaning, more: the
// epilogue is temp's only reader, and the blocks between the two neither access D nor write what
// E reads.
void FuseReductionEpilogue(Schedule& sch, const SBlockRV& reduction_block,
                           const SBlockRV& epilogue_block);

// TVM's annotate_buffer_access: the block's `buffer_index`-th read (`buf_type` "read") or write
// region becomes the ranges `gen_new_ranges` gives from its iterators (two final indices per
// dimension, start and stop), and the index is added to its `explicit_read_region` /
// `explicit_write_region` annotation. As in TVM the region is the user's claim and is not
// checked against the accesses; primitives that copy by regions (cache stages) trust it.
void AnnotateBufferAccess(Schedule& sch, const SBlockRV& block, int buffer_index,
                          const std::string& buf_type, const tir::IndexMap& gen_new_ranges);
// Reads TVM's `lambda vi, vj: ((vi - 1, vi + 1), vj)` (pairs are start and stop, a lone
// expression a point) as a map to the flattened bounds; null with `error` set on failure.
tir::IndexMap ParseRangesLambda(std::string_view text, ir::DataType index_dtype,
                                std::string* error);

// The two locations of TVM's sample_compute_location that are not loops, as loop handles:
// compute_at (reverse_compute_at) of the root location leaves the block where it is, of the
// inline location inlines it (compute_inline, reverse_compute_inline). Any other primitive
// refuses them as undefined loops.
inline constexpr int kRootLoopRV = -2;
inline constexpr int kInlineLoopRV = -3;

// TVM's CollectComputeLocation: where `block` may be computed, as sample_compute_location's
// decisions in increasing order: -2 (inline, when compute_inline applies), -1 (root), then i
// for the i-th loop of the first consumer's get_loops at which compute_at applies, among the
// loops down to the consumers' lowest common loop, skipping unit loops, the data-parallel loops
// after a reduction loop and the reduction loops after the last data-parallel one.
std::vector<int64_t> ComputeLocationCandidates(const Schedule& sch, const SBlockRV& block);

// TVM's sample_compute_location: one of the candidates, uniformly, or `decision` (kept when it is
// still a candidate, else the candidate before it, else root, as TVM repairs a replayed one).
// Returns the loop handle (kRootLoopRV / kInlineLoopRV for -1 / -2); the trace records the
// decision. `candidates` and `taken`, when given, receive ComputeLocationCandidates and the
// decision taken (what a tuner records as the site's choices and decision).
LoopRV SampleComputeLocation(Schedule& sch, const SBlockRV& block, std::optional<int64_t> decision = {},
                             std::vector<int64_t>* candidates = nullptr, int64_t* taken = nullptr);

}  // namespace wb::schedule
