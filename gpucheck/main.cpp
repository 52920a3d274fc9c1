// wb-gpucheck: the GPU check in one executable that needs no build where it runs (no Qt, LLVM
// linked in), so that a GPU machine with only the CUDA driver, NVRTC and cuBLAS on it runs the
// whole check. scripts/gpu-check packs it and runs it there.
//
//   wb-gpucheck probe              the device, or "no GPU: <why>" (exit 3)
//   wb-gpucheck cases [--json F]   the GPU test cases (tests/runtime_cuda/gpu_cases.cpp); test
//                                  data from $WB_TEST_DATA_DIR
//   wb-gpucheck bench [--json F]   bench_cuda (also --probe, --compile-only DIR)
//   wb-gpucheck batch ARGS...      `workbench --batch ARGS...`
//   wb-gpucheck version
// Exit codes: 0 passed, 1 a check failed, 2 bad usage or setup, 3 no GPU (nothing ran on one;
// every case that needs one was skipped, and no other check failed).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "gpu_cases.h"
#include "runtime/cuda/cuda_device_api.h"
#include "runtime/cuda/cuda_driver.h"

int BenchCudaMain(int argc, char** argv);

namespace {

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoGpu = 3;

int Probe() {
  std::string why;
  if (!wb::runtime::cuda::CudaAvailable(&why)) {
    std::printf("no GPU: %s\n", why.c_str());
    return kExitNoGpu;
  }
  try {
    wb::runtime::cuda::CudaDeviceInfo info = wb::runtime::cuda::GetDeviceInfo(0);
    std::printf("cuda(0): %s, %s, %d SMs, %.0f GiB, peak memory bandwidth %.0f GB/s\n", info.name.c_str(),
                info.arch().c_str(), info.sm_count, info.total_memory / double(1 << 30), info.peak_bandwidth_gbps);
  } catch (const std::exception& e) {
    std::printf("the CUDA device cannot be queried: %s\n", e.what());
    return kExitFailed;
  }
  return 0;
}

int Cases(const std::string& json_path) {
  using namespace wb::gpucases;
  int passed = 0, failed = 0, skipped = 0;
  nlohmann::json report = nlohmann::json::array();
  for (const Case& c : wb::gpucases::Cases()) {
    std::string name = std::string(c.suite) + "/" + c.name;
    std::string status = "pass", message;
    auto start = std::chrono::steady_clock::now();
    try {
      c.run();
    } catch (const CaseSkipped& s) {
      status = "skip";
      message = s.why;
    } catch (const CaseFailed& f) {
      status = "fail";
      message = f.what;
    } catch (const std::exception& e) {
      status = "fail";
      message = std::string("unexpected exception: ") + e.what();
    } catch (...) {
      status = "fail";
      message = "unexpected exception of an unknown type";
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    (status == "pass" ? passed : status == "fail" ? failed : skipped) += 1;
    std::printf("%-5s %s (%.2f s)%s%s\n", status == "pass" ? "PASS" : status == "fail" ? "FAIL" : "SKIP", name.c_str(),
                seconds, message.empty() ? "" : ": ", message.c_str());
    std::fflush(stdout);
    report.push_back({{"name", name}, {"status", status}, {"seconds", seconds}, {"message", message}});
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  if (!json_path.empty()) {
    std::ofstream(json_path) << nlohmann::json{{"passed", passed}, {"failed", failed}, {"skipped", skipped},
                                               {"cases", report}}
                                    .dump(2)
                             << "\n";
  }
  if (failed) return kExitFailed;
  return passed == 0 ? kExitNoGpu : 0;
}

int Usage() {
  std::fprintf(stderr,
               "usage: wb-gpucheck probe | cases [--json FILE] | bench [--json FILE | --probe | --compile-only DIR] "
               "| batch ARGS... | version\n");
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string command = argv[1];
  try {
    if (command == "probe") return Probe();
    if (command == "version") {
      std::printf("%s\n", wb::driver::VersionText().c_str());
      return 0;
    }
    if (command == "cases") {
      if (argc == 2) return Cases("");
      if (argc == 4 && std::strcmp(argv[2], "--json") == 0) return Cases(argv[3]);
      return Usage();
    }
    if (command == "bench") return BenchCudaMain(argc - 1, argv + 1);
    if (command == "batch") {
      std::vector<std::string> args(argv + 2, argv + argc);
      return wb::driver::RunBatch(args, std::cout, std::cerr);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wb-gpucheck %s: %s\n", command.c_str(), e.what());
    return kExitFailed;
  }
  return Usage();
}
