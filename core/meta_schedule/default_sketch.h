// The default schedule as a sketch of the search: core/dlight's trace for a function, with every
// split by constant factors that tile its loop exactly written as MetaSchedule writes a tiling
// (sample_perfect_tile whose decision is those factors, then split by the sampled values). Its
// candidate with the default decisions replays to the default schedule itself, so the search can
// start from it (TVM's population starts from the database's best) and MutateTileSize can change
// its tiles: a perfect tile is valid whatever its factors, so every mutated candidate is a valid
// schedule with the default's structure. A split that does not tile its loop exactly (a remainder
// under a predicate) stays fixed, since a perfect tile cannot express it; a rule's other choices
// (which loops are unrolled, vectorized, parallel, how B is packed) stay as the rule made them.
//
// The sketch is a candidate's sketch kDefaultSketch: ApplyDesignSpace replays it when the space
// carries one (SpaceOptions::default_sketch). For cpu targets no postprocessor runs on it (the
// rule's schedule is complete); for cuda targets VerifyGPUCode does (a mutated tile changes
// thread extents), and its lowered module goes to the build.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "meta_schedule/schedule_rules.h"
#include "schedule/trace.h"

namespace wb::meta_schedule {

struct DefaultSketch {
  schedule::Trace trace;  // the rule's trace, its exact constant splits made sampled tiles
  // The default schedule's decisions, one per sample_perfect_tile of `trace` in order (a
  // Candidate's decisions for kDefaultSketch).
  std::vector<std::vector<int64_t>> decisions;
  std::string rule;  // the dlight rule that made it
};

// The sketch of `rule`'s schedule `dflt` of `func` (as dlight made it: on `func` alone, named
// "main"), the innermost factor of each tile bounded by max(max_innermost_factor, the rule's own
// factor). nullopt (with *why) when no split of it tiles exactly, or when the rewritten trace
// does not replay to `dflt`'s function.
std::optional<DefaultSketch> MakeDefaultSketch(const tir::PrimFunc& func, const schedule::Schedule& dflt,
                                               const std::string& rule, int64_t max_innermost_factor,
                                               std::string* why);

// The default sketch with its reduction blocked, as TVM's "SSRSRS" tiles a reduction: where the
// rule orders reduction loops that no split made between the outer and inner parts of its
// sampled tiles (a matmul's k between the row and column tiles and the register tile), each such
// reduction loop is split in two by sample_perfect_tile (no bound on its inner factor), each
// sampled tile around them gets one level more, and the order becomes: the outer tiles, the
// outer reduction parts, the new levels, the inner reduction parts, the register tile. So the
// search can block the reduction for the caches (a k-tile outside several register tiles that
// reuse it), which the rule's structure cannot express. The init goes outside the outermost
// reduction part (decompose_reduction), the rule's later steps keep their loops (a later use of
// a reduction loop takes its inner part) and its closing queries of loops whose number blocking
// changes are dropped. Its default decisions (each new factor 1) compute what the default
// schedule computes, with unit loops: a sketch of its own (kBlockedSketch), not a replay of the
// default. nullopt (with *why) where the rule's order has no such reduction loop or the
// rewritten trace does not replay.
std::optional<DefaultSketch> MakeBlockedSketch(const tir::PrimFunc& func, const DefaultSketch& sketch,
                                               std::string* why);

// Replays `sketch` onto `func` with `candidate`'s decisions (missing ones sampled from `seed`);
// each sample_perfect_tile is a kTile site. The candidate keeps its sketch (kDefaultSketch or
// kBlockedSketch). The target's postprocessors as the header says.
SampledSchedule ApplyDefaultSketch(const tir::PrimFunc& func, const SpaceOptions& options,
                                   const DefaultSketch& sketch, const Candidate& candidate, int64_t seed);

}  // namespace wb::meta_schedule
