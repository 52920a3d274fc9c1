// What the roofline suites share: a small matmul with hand-countable FLOPs and bytes, and roofs
// planted in the peaks cache so that fractions can be checked against known figures.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/thread_pool.h"
#include "workbench/host_peaks.h"

namespace wb::test {

// 2 x 64^3 FLOPs; A and B read, the accumulator C written: 3 x 64 x 64 x 4 bytes.
inline constexpr const char* kMatmul64 = R"(# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// Roofs for this host at the runtime pool's thread count: 100 / 200 GFLOP/s, memory 10 / 20 GB/s,
// the L2 (`cache_bytes` a core) 50 / 100 GB/s, on one thread / every thread.
inline workbench::HostPeaks PlantedPeaks(int64_t cache_bytes) {
  workbench::HostPeaks p;
  p.cpu = workbench::HostCpuModel();
  p.threads = runtime::ThreadPool::GlobalNumThreads();
  p.vector_bits = 256;
  p.gflops_1 = 100;
  p.gflops_all = 200;
  p.gbytes_per_s_1 = 10;
  p.gbytes_per_s_all = 20;
  p.cache_bytes = cache_bytes;
  p.cache_gbytes_per_s_1 = 50;
  p.cache_gbytes_per_s_all = 100;
  p.measured_at = "2026-12-02T00:00:00Z";
  return p;
}

// Writes a cache file (workbench::HostPeaksCachePath()) that holds only `peaks`.
inline void PlantPeaks(const workbench::HostPeaks& peaks) {
  nlohmann::json doc = {
      {"hosts", {{workbench::HostPeaksKey(peaks.cpu, peaks.threads), workbench::ToJson(peaks)}}}};
  std::string path = workbench::HostPeaksCachePath();
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << doc.dump(2);
}

}  // namespace wb::test
