// Mutators: each changes one decision of a candidate (schedule_rules.h), as TVM's do on a
// trace, with TVM's CPU probabilities. A mutator that has nothing to change returns nullopt.
// Not here yet: MutateComputeLocation (0.05 in TVM; there is no sample_compute_location site to
// mutate), so the others share the whole probability.
#pragma once

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "meta_schedule/schedule_rules.h"

namespace wb::meta_schedule {

struct Mutator {
  std::string name;
  double probability;
  std::optional<Candidate> (*apply)(const Candidate&, const std::vector<SampleSite>&,
                                    std::mt19937_64&);
};

// MutateTileSize: in one tiling decision, moves a divisor from one factor to another (the
// innermost factor kept within its bound).
std::optional<Candidate> MutateTileSize(const Candidate& c, const std::vector<SampleSite>& sites,
                                        std::mt19937_64& rng);
// MutateUnroll: another unroll step.
std::optional<Candidate> MutateUnroll(const Candidate& c, const std::vector<SampleSite>& sites,
                                      std::mt19937_64& rng);
// MutateParallel: another parallel limit among those that fuse a different number of loops.
std::optional<Candidate> MutateParallel(const Candidate& c, const std::vector<SampleSite>& sites,
                                        std::mt19937_64& rng);

// MutateComputeLocation: another of the candidate locations of one sample_compute_location (the
// later compute locations sampled again, since their candidates may have changed).
std::optional<Candidate> MutateComputeLocation(const Candidate& c, const std::vector<SampleSite>& sites,
                                               std::mt19937_64& rng);

// MutateTileSize 0.9, MutateComputeLocation 0.05, MutateUnroll 0.03, MutateParallel 0.02 (TVM's
// CPU list).
std::vector<Mutator> CpuMutators();

}  // namespace wb::meta_schedule
