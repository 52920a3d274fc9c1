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

// Replays `sketch` onto `func` with `candidate`'s decisions (missing ones sampled from `seed`);
// each sample_perfect_tile is a kTile site. The target's postprocessors as the header says.
SampledSchedule ApplyDefaultSketch(const tir::PrimFunc& func, const SpaceOptions& options,
                                   const DefaultSketch& sketch, const Candidate& candidate, int64_t seed);

}  // namespace wb::meta_schedule
