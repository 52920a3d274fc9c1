// Mutators: each changes one decision of a candidate (schedule_rules.h), as TVM's do on a
// trace, with TVM's probabilities for the CPU and for CUDA. A mutator that has nothing to change
// returns nullopt.
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
// innermost factor kept within its bound); or, as TVM's does, takes another vector length for
// one cooperative fetch (kVectorLength: cuda). The site is drawn uniformly among both kinds.
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

// MutateThreadBinding: another thread count for one loop split and bound to threadIdx.x by a
// sampled extent (kThreadExtent: CrossThreadReduction, AutoBind).
std::optional<Candidate> MutateThreadBinding(const Candidate& c,
                                             const std::vector<SampleSite>& sites,
                                             std::mt19937_64& rng);

// MutateTileSize 0.9, MutateComputeLocation 0.05, MutateUnroll 0.03, MutateParallel 0.02 (TVM's
// CPU list).
std::vector<Mutator> CpuMutators();
// MutateTileSize 0.9, MutateUnroll 0.08, MutateThreadBinding 0.02 (TVM's CUDA list).
std::vector<Mutator> CudaMutators();
// The list for the space's target.
std::vector<Mutator> DefaultMutators(const SpaceOptions& options);

}  // namespace wb::meta_schedule
