// The compilation target, TVM style: `llvm -mcpu=native` (the default: this host's CPU and its
// features), `llvm -mcpu=skylake-avx512 -mattr=+avx512f,-avx512bw`, `llvm -mtriple=...`, or a
// tag name that stands for one of those ("host", "avx2", "avx512"). Passes query it for the
// vector width and the core count; the LLVM codegen builds its TargetMachine from it.
#pragma once

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

  // The host: `llvm -mcpu=native`.
  static Target Host();
  // Canonical text, e.g. "llvm -mcpu=rocketlake -mattr=+avx512f".
  std::string str() const;
  bool HasFeature(std::string_view feature) const;  // "avx512f" (no sign)
  // The widest SIMD register the target has, in bits (128, 256 or 512).
  int MaxVectorBits() const;
};

// Parses target text. On failure returns nullopt with a message naming the bad option.
std::optional<Target> ParseTarget(std::string_view text, std::string* error);
// The tag names ParseTarget accepts, with the text each stands for.
std::vector<std::pair<std::string, std::string>> TargetTags();

}  // namespace wb::codegen
