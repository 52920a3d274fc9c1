// The compilation target, TVM style: `llvm -mcpu=native` (the default: this host's CPU and its
// features), `llvm -mcpu=skylake-avx512 -mattr=+avx512f,-avx512bw`, `llvm -mtriple=...`, or a
// tag name that stands for one of those ("host", "avx2", "avx512"). Passes query it for the
// vector width, the register file, the caches and the core count (the default schedules of
// core/dlight choose their tiles from them); the LLVM codegen builds its TargetMachine from it.
// NVIDIA GPUs: `cuda -arch=sm_90 -max_threads_per_block=1024 -max_shared_memory_per_block=49152
// -thread_warp_size=32 -host=llvm`, or a tag ("nvidia/h200", ...). A bare `cuda` takes the
// architecture the registered detector reports (the CUDA runtime registers one that asks the
// present GPU), else sm_90.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wb::codegen {

struct Target {
  std::string kind = "llvm";
  std::string mtriple;               // empty: the host triple
  std::string mcpu;                  // resolved: "native" becomes the host's CPU name
  std::vector<std::string> mattr;    // as given: "+avx512f", "-avx512bw"
  std::vector<std::string> features; // resolved: the CPU's features with mattr applied ("+x")
  std::string tag;                   // the tag it was made from, if any
  int num_cores = 0;                 // the runtime thread pool's size at parse time
  int opt_level = 3;                 // -opt-level=N (LLVM's O0..O3)
  // The memory hierarchy, in bytes per core (L3: the whole cache): read from the host for
  // `-mcpu=native`, else typical figures for the CPU's vector ISA.
  int64_t l1d_cache_bytes = 0;
  int64_t l2_cache_bytes = 0;
  int64_t l3_cache_bytes = 0;

  // kind "cuda" (TVM's attribute names).
  std::string arch;                      // -arch=sm_90
  int max_threads_per_block = 0;         // -max_threads_per_block=1024
  int max_shared_memory_per_block = 0;   // bytes, -max_shared_memory_per_block=49152
  int thread_warp_size = 0;              // -thread_warp_size=32
  std::shared_ptr<const Target> host;    // the host code's target: -host=<llvm target or tag>
  bool is_cuda() const { return kind == "cuda"; }

  // The host: `llvm -mcpu=native`.
  static Target Host();
  // Canonical text, e.g. "llvm -mcpu=rocketlake -mattr=+avx512f".
  std::string str() const;
  bool HasFeature(std::string_view feature) const;  // "avx512f" (no sign)
  // The widest SIMD register the target has, in bits (128, 256 or 512).
  int MaxVectorBits() const;
  // SIMD registers the ISA names (32 zmm with AVX-512, 16 xmm/ymm otherwise on x86-64).
  int NumVectorRegisters() const;
};

// Parses target text. On failure returns nullopt with a message naming the bad option.
std::optional<Target> ParseTarget(std::string_view text, std::string* error);
// The tag names ParseTarget accepts, with the text each stands for.
std::vector<std::pair<std::string, std::string>> TargetTags();

// Reports the present GPU's architecture ("sm_90"), or "" when there is none. ParseTarget asks
// it for a `cuda` target without -arch; null (the default) means "no detection": sm_90.
using CudaArchDetector = std::function<std::string()>;
void SetCudaArchDetector(CudaArchDetector detector);

}  // namespace wb::codegen
