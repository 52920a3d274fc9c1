// This machine's ceilings for the roofline: FP32 FMA throughput and memory bandwidth, measured by
// the workbench's own micro benchmarks, on one thread and on every thread of the runtime's pool.
//
// - FMA: independent chains of fused multiply-adds in the widest vector registers the host has
//   (codegen::Target::Host(): 512-bit with AVX-512, 256-bit with AVX2 and FMA, else scalar
//   std::fma), enough chains to cover the FMA latency; 2 FLOPs per lane per FMA.
// - Memory bandwidth: a STREAM triad a[i] = b[i] + s * c[i] in the same registers, over three
//   arrays of 64 MiB each, far past any last-level cache, counted as STREAM counts it (12 bytes an
//   element: two reads, one write; the write-allocate read is not counted).
// - Cache bandwidth: the same triad, each thread on its own three arrays filling half of its L2
//   (codegen::Target::Host()), passed over again and again. A function whose bytes fit in the L2
//   of the cores it runs on stays there between the time evaluator's calls: its bandwidth roof is
//   this one, not memory's.
// Each figure is the best of a few short repetitions; the whole measurement takes well under a
// second on a current CPU. The figures are cached in a JSON file under the user's cache directory
// ($XDG_CACHE_HOME/workbench/host_peaks.json, else ~/.cache/workbench/), keyed by CPU model and
// thread count, so a machine is measured once; MeasureHostPeaks re-measures and replaces them.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace wb::workbench {

struct HostPeaks {
  std::string cpu;        // the CPU model (/proc/cpuinfo), else LLVM's name for the host CPU
  int threads = 1;        // the "all threads" figures' thread count
  int vector_bits = 0;    // the FMA benchmark's register width (32: scalar)
  double gflops_1 = 0;    // FP32 FMA, one thread
  double gflops_all = 0;  // FP32 FMA, every thread
  double gbytes_per_s_1 = 0;
  double gbytes_per_s_all = 0;
  int64_t cache_bytes = 0;          // the L2 of one core, which the cache triad fits in
  double cache_gbytes_per_s_1 = 0;  // the cache triad
  double cache_gbytes_per_s_all = 0;
  std::string measured_at;  // UTC, ISO 8601
  bool from_cache = false;  // read from the cache file rather than measured now
  // The roof of a function that runs on one thread or on all of them.
  double gflops(bool parallel) const { return parallel ? gflops_all : gflops_1; }
  double gbytes_per_s(bool parallel) const { return parallel ? gbytes_per_s_all : gbytes_per_s_1; }
  double cache_gbytes_per_s(bool parallel) const {
    return parallel ? cache_gbytes_per_s_all : cache_gbytes_per_s_1;
  }
  // Whether `bytes` a call fit in the L2 of the cores a function runs on.
  bool FitsInCache(double bytes, bool parallel) const {
    return bytes <= static_cast<double>(cache_bytes) * (parallel ? threads : 1);
  }
};

nlohmann::json ToJson(const HostPeaks& peaks);
// nullopt when a figure is missing, not positive or not finite.
std::optional<HostPeaks> HostPeaksFromJson(const nlohmann::json& j);

// The cache file: $XDG_CACHE_HOME/workbench/host_peaks.json, else $HOME/.cache/workbench/...
std::string HostPeaksCachePath();
// "<cpu model> x<threads>": a cache entry's key.
std::string HostPeaksKey(const std::string& cpu, int threads);
std::string HostCpuModel();

// Measures now (threads <= 0: the runtime thread pool's size) and stores the figures in the cache
// file, replacing this host's entry; a cache that cannot be written is said in *warning.
HostPeaks MeasureHostPeaks(int threads = 0, std::string* warning = nullptr);
// This host's cached figures for `threads`, measured (and cached) when there are none.
HostPeaks HostPeaksFor(int threads = 0, std::string* warning = nullptr);

}  // namespace wb::workbench
