// What the CPU and CUDA schedule rules share (schedule_rules.cpp, schedule_rules_cuda.cpp): the
// sampler, which takes a candidate's decision for each sampling site in turn, samples where the
// candidate has none, and records the site and what was taken; ParallelizeVectorizeUnroll; and
// the CUDA rules' entry points, which ApplyDesignSpace and NumSketches call after AutoInline.
#pragma once

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "meta_schedule/schedule_rules.h"
#include "schedule/primitive/primitives.h"

namespace wb::meta_schedule {

using schedule::LoopRV;
using schedule::SBlockRV;
using schedule::Schedule;

class Sampler {
 public:
  Sampler(Schedule& sch, const Candidate& given, SampledSchedule* out)
      : sch_(sch), given_(given), out_(out) {}

  std::vector<Schedule::ExprRV> Tile(const LoopRV& loop, int64_t n, int64_t max_innermost) {
    SampleSite site;
    site.kind = SampleSite::Kind::kTile;
    const int64_t* extent = tir::AsConstInt(sch_.Get(loop)->extent);
    if (!extent) throw std::invalid_argument("a loop extent is symbolic");
    site.extent = *extent;
    site.max_innermost_factor = max_innermost;
    const std::vector<int64_t>* given = Given();
    std::optional<std::vector<int64_t>> decision;
    if (given && static_cast<int64_t>(given->size()) == n) decision = *given;
    std::vector<Schedule::ExprRV> rvs = sch_.SamplePerfectTile(loop, n, max_innermost, decision);
    std::vector<int64_t> taken;
    for (const auto& rv : rvs) taken.push_back(sch_.Get(rv));
    Record(site, taken);
    return rvs;
  }

  // sample_categorical, uniform over `choices`; the decision is the index.
  Schedule::ExprRV Categorical(const std::vector<int64_t>& choices,
                               SampleSite::Kind kind = SampleSite::Kind::kUnroll) {
    SampleSite site;
    site.kind = kind;
    site.choices = choices;
    const std::vector<int64_t>* given = Given();
    std::optional<int64_t> decision;
    if (given && given->size() == 1 && (*given)[0] >= 0 &&
        (*given)[0] < static_cast<int64_t>(choices.size())) {
      decision = (*given)[0];
    }
    std::vector<double> probs(choices.size(), 1.0 / static_cast<double>(choices.size()));
    Schedule::ExprRV rv = sch_.SampleCategorical(choices, probs, decision);
    int64_t value = sch_.Get(rv);
    int64_t index = std::find(choices.begin(), choices.end(), value) - choices.begin();
    if (decision) index = *decision;
    Record(site, {index});
    return rv;
  }

  // sample_compute_location: the candidate's decision (repaired by the primitive when it is no
  // longer a candidate), else a uniform draw.
  LoopRV ComputeLocation(const SBlockRV& block) {
    SampleSite site;
    site.kind = SampleSite::Kind::kComputeLocation;
    const std::vector<int64_t>* given = Given();
    std::optional<int64_t> decision;
    if (given && given->size() == 1) decision = (*given)[0];
    int64_t taken = -1;
    LoopRV loop = schedule::SampleComputeLocation(sch_, block, decision, &site.choices, &taken);
    Record(site, {taken});
    return loop;
  }

  // Not sampled (TVM's parallel annotation is fixed until MutateParallel changes it).
  int64_t ParallelLimit(int64_t dflt, std::vector<int64_t> useful) {
    SampleSite site;
    site.kind = SampleSite::Kind::kParallel;
    site.choices = std::move(useful);
    const std::vector<int64_t>* given = Given();
    int64_t limit = given && given->size() == 1 && (*given)[0] > 0 ? (*given)[0] : dflt;
    Record(site, {limit});
    return limit;
  }

 private:
  const std::vector<int64_t>* Given() const {
    size_t i = out_->sites.size();
    if (i < given_.decisions.size() && !given_.decisions[i].empty()) return &given_.decisions[i];
    return nullptr;
  }
  void Record(const SampleSite& site, std::vector<int64_t> taken) {
    out_->sites.push_back(site);
    out_->candidate.decisions.push_back(std::move(taken));
  }

  Schedule& sch_;
  const Candidate& given_;
  SampledSchedule* out_;
};

// TVM's ParallelizeVectorizeUnroll on the root block: meta_schedule.parallel (the limit
// max_jobs_per_core x cores, when max_jobs_per_core > 0), meta_schedule.vectorize
// (max_vectorize_extent, when > 0) and meta_schedule.unroll_explicit (sample_categorical over
// unroll_max_steps), which RewriteParallelVectorizeUnroll turns into loop kinds.
void ParallelizeVectorizeUnroll(Schedule& sch, Sampler& sampler, const SpaceOptions& options);

// The CUDA space's sketches, on the function after AutoInline (NumSketches).
int CudaSketches(Schedule& sch, const SpaceOptions& options);
// The CUDA rules after AutoInline, for `sketch`.
void CudaRules(Schedule& sch, Sampler& sampler, const SpaceOptions& options, int sketch);

}  // namespace wb::meta_schedule
