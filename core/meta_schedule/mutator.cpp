#include "meta_schedule/mutator.h"

#include <algorithm>

namespace wb::meta_schedule {

namespace {

std::vector<size_t> SitesOf(const std::vector<SampleSite>& sites, SampleSite::Kind kind,
                            const Candidate& c) {
  std::vector<size_t> out;
  for (size_t i = 0; i < sites.size() && i < c.decisions.size(); ++i) {
    if (sites[i].kind == kind) out.push_back(i);
  }
  return out;
}

size_t Pick(size_t n, std::mt19937_64& rng) {
  return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
}

std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 2; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

// The sample_categorical sites of `kind` with another choice to take.
std::vector<size_t> ChoiceSites(const std::vector<SampleSite>& sites, SampleSite::Kind kind,
                                const Candidate& c) {
  std::vector<size_t> out;
  for (size_t i : SitesOf(sites, kind, c)) {
    if (sites[i].choices.size() > 1 && c.decisions[i].size() == 1) out.push_back(i);
  }
  return out;
}

// The candidate with another choice at the sample_categorical `site`, uniformly among the others
// (the sampler's probabilities are uniform).
Candidate OtherChoice(const Candidate& c, const std::vector<SampleSite>& sites, size_t site,
                      std::mt19937_64& rng) {
  int64_t current = c.decisions[site][0];
  int64_t next = static_cast<int64_t>(Pick(sites[site].choices.size() - 1, rng));
  if (next >= current) ++next;
  Candidate out = c;
  out.decisions[site] = {next};
  return out;
}

}  // namespace

std::optional<Candidate> MutateTileSize(const Candidate& c, const std::vector<SampleSite>& sites,
                                        std::mt19937_64& rng) {
  std::vector<size_t> tiles;
  for (size_t i : SitesOf(sites, SampleSite::Kind::kTile, c)) {
    if (sites[i].extent > 1 && c.decisions[i].size() > 1) tiles.push_back(i);
  }
  std::vector<size_t> vectors = ChoiceSites(sites, SampleSite::Kind::kVectorLength, c);
  // A few tries: a draw may only break the innermost bound.
  for (int attempt = 0; attempt < 16 && !(tiles.empty() && vectors.empty()); ++attempt) {
    size_t pick = Pick(tiles.size() + vectors.size(), rng);
    if (pick >= tiles.size()) return OtherChoice(c, sites, vectors[pick - tiles.size()], rng);
    size_t site = tiles[pick];
    std::vector<int64_t> factors = c.decisions[site];
    std::vector<size_t> from;
    for (size_t i = 0; i < factors.size(); ++i) {
      if (factors[i] > 1) from.push_back(i);
    }
    if (from.empty()) continue;
    size_t x = from[Pick(from.size(), rng)];
    size_t y = Pick(factors.size() - 1, rng);
    if (y >= x) ++y;
    std::vector<int64_t> divisors = Divisors(factors[x]);
    int64_t d = divisors[Pick(divisors.size(), rng)];
    factors[x] /= d;
    factors[y] *= d;
    int64_t bound = sites[site].max_innermost_factor;
    if (bound != -1 && factors.back() > bound) continue;
    Candidate out = c;
    out.decisions[site] = factors;
    return out;
  }
  return std::nullopt;
}

std::optional<Candidate> MutateUnroll(const Candidate& c, const std::vector<SampleSite>& sites,
                                      std::mt19937_64& rng) {
  std::vector<size_t> unrolls = ChoiceSites(sites, SampleSite::Kind::kUnroll, c);
  if (unrolls.empty()) return std::nullopt;
  return OtherChoice(c, sites, unrolls[Pick(unrolls.size(), rng)], rng);
}

std::optional<Candidate> MutateThreadBinding(const Candidate& c,
                                             const std::vector<SampleSite>& sites,
                                             std::mt19937_64& rng) {
  std::vector<size_t> bindings = ChoiceSites(sites, SampleSite::Kind::kThreadExtent, c);
  if (bindings.empty()) return std::nullopt;
  return OtherChoice(c, sites, bindings[Pick(bindings.size(), rng)], rng);
}

std::optional<Candidate> MutateParallel(const Candidate& c, const std::vector<SampleSite>& sites,
                                        std::mt19937_64& rng) {
  for (size_t site : SitesOf(sites, SampleSite::Kind::kParallel, c)) {
    if (c.decisions[site].size() != 1) continue;
    int64_t current = c.decisions[site][0];
    // The limit fuses as many loops as the largest useful product within it.
    int64_t fused_now = 0;
    for (int64_t p : sites[site].choices) fused_now = p <= current ? p : fused_now;
    std::vector<int64_t> others;
    for (int64_t p : sites[site].choices) {
      if (p != fused_now && p > 1) others.push_back(p);
    }
    if (others.empty()) return std::nullopt;
    Candidate out = c;
    out.decisions[site] = {others[Pick(others.size(), rng)]};
    return out;
  }
  return std::nullopt;
}

std::optional<Candidate> MutateComputeLocation(const Candidate& c, const std::vector<SampleSite>& sites,
                                               std::mt19937_64& rng) {
  std::vector<size_t> locations;
  for (size_t i : SitesOf(sites, SampleSite::Kind::kComputeLocation, c)) {
    if (sites[i].choices.size() > 1 && c.decisions[i].size() == 1) locations.push_back(i);
  }
  if (locations.empty()) return std::nullopt;
  size_t site = locations[Pick(locations.size(), rng)];
  std::vector<int64_t> others;
  for (int64_t d : sites[site].choices) {
    if (d != c.decisions[site][0]) others.push_back(d);
  }
  if (others.empty()) return std::nullopt;
  Candidate out = c;
  out.decisions[site] = {others[Pick(others.size(), rng)]};
  // The sites after it were sampled on the old location's loops: sample them again.
  for (size_t i = site + 1; i < out.decisions.size(); ++i) {
    if (sites[i].kind == SampleSite::Kind::kComputeLocation) out.decisions[i].clear();
  }
  return out;
}

std::vector<Mutator> CudaMutators() {
  return {{"MutateTileSize", 0.9, MutateTileSize},
          {"MutateUnroll", 0.08, MutateUnroll},
          {"MutateThreadBinding", 0.02, MutateThreadBinding}};
}

std::vector<Mutator> DefaultMutators(const SpaceOptions& options) {
  return options.cuda ? CudaMutators() : CpuMutators();
}

std::vector<Mutator> CpuMutators() {
  return {{"MutateTileSize", 0.9, MutateTileSize},
          {"MutateComputeLocation", 0.05, MutateComputeLocation},
          {"MutateUnroll", 0.03, MutateUnroll},
          {"MutateParallel", 0.02, MutateParallel}};
}

}  // namespace wb::meta_schedule
