#include "codegen/target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/TargetParser/X86TargetParser.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "runtime/thread_pool.h"

namespace wb::codegen {

namespace {

const std::vector<std::pair<std::string, std::string>>& Tags() {
  static const std::vector<std::pair<std::string, std::string>> tags = {
      {"host", "llvm -mcpu=native"},
      {"avx2", "llvm -mcpu=haswell"},
      {"avx512", "llvm -mcpu=skylake-avx512"},
      {"generic", "llvm -mcpu=x86-64"},
      // TVM's NVIDIA tags: the static shared memory a block may use without opting in (48 KiB).
      {"nvidia/h200", "cuda -arch=sm_90 -max_threads_per_block=1024 -max_shared_memory_per_block=49152 -thread_warp_size=32"},
      {"nvidia/h100", "cuda -arch=sm_90 -max_threads_per_block=1024 -max_shared_memory_per_block=49152 -thread_warp_size=32"},
      {"nvidia/a100", "cuda -arch=sm_80 -max_threads_per_block=1024 -max_shared_memory_per_block=49152 -thread_warp_size=32"},
      {"nvidia/rtx4090", "cuda -arch=sm_89 -max_threads_per_block=1024 -max_shared_memory_per_block=49152 -thread_warp_size=32"},
  };
  return tags;
}

std::vector<std::string> Split(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == sep) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The CPU's features: the host's when the CPU is the host's, else the ones LLVM's X86 parser
// knows the CPU to have.
std::map<std::string, bool> CpuFeatures(const std::string& cpu, bool is_host) {
  std::map<std::string, bool> features;
  if (is_host) {
    for (const auto& entry : llvm::sys::getHostCPUFeatures()) {
      features[entry.getKey().str()] = entry.getValue();
    }
    return features;
  }
  llvm::SmallVector<llvm::StringRef, 64> list;
  llvm::X86::getFeaturesForCPU(cpu, list, /*NeedPlus=*/false);
  for (auto f : list) features[f.str()] = true;
  return features;
}

// The size of the host's cache of `level` ("Data" or "Unified" type) from sysfs, or 0 when the
// system does not say.
int64_t HostCacheBytes(int level) {
  for (int index = 0; index < 8; ++index) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size");
    int found_level = 0;
    std::string type, size;
    if (!(level_file >> found_level) || !(type_file >> type) || !(size_file >> size)) continue;
    if (found_level != level || type == "Instruction") continue;
    char* end = nullptr;
    int64_t n = std::strtoll(size.c_str(), &end, 10);
    if (*end == 'K') n <<= 10;
    if (*end == 'M') n <<= 20;
    return n;
  }
  return 0;
}

// Caches from the host when the CPU is the host's, else what CPUs with this vector ISA commonly have
// (AVX-512 server cores: 2 MiB L2; others 512 KiB).
void SetCaches(Target* target, bool is_host_cpu) {
  bool wide = target->HasFeature("avx512f");
  target->l1d_cache_bytes = 32 << 10;
  target->l2_cache_bytes = wide ? (2 << 20) : (512 << 10);
  target->l3_cache_bytes = 32 << 20;
  if (!is_host_cpu) return;
  if (int64_t n = HostCacheBytes(1)) target->l1d_cache_bytes = n;
  if (int64_t n = HostCacheBytes(2)) target->l2_cache_bytes = n;
  if (int64_t n = HostCacheBytes(3)) target->l3_cache_bytes = n;
}

CudaArchDetector& ArchDetector() {
  static CudaArchDetector detector;
  return detector;
}

// `cuda` with its options (words[0] is "cuda").
std::optional<Target> ParseCuda(const std::vector<std::string>& words, Target target, std::string* error) {
  auto fail = [&](std::string message) -> std::optional<Target> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  target.kind = "cuda";
  target.max_threads_per_block = 1024;
  target.max_shared_memory_per_block = 49152;
  target.thread_warp_size = 32;
  std::string host_text = "llvm";
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    auto eq = w.find('=');
    if (w.rfind("-", 0) != 0 || eq == std::string::npos) {
      return fail("target option '" + w + "' is not of the form -key=value");
    }
    std::string key = w.substr(1, eq - 1);
    std::string value = w.substr(eq + 1);
    if (value.empty()) return fail("target option -" + key + " has an empty value");
    auto positive = [&](int* field) -> bool {
      char* end = nullptr;
      long n = std::strtol(value.c_str(), &end, 10);
      if (*end != '\0' || n <= 0 || n > (1L << 30)) return false;
      *field = static_cast<int>(n);
      return true;
    };
    if (key == "arch") {
      bool ok = value.rfind("sm_", 0) == 0 && value.size() >= 5 && std::isdigit(static_cast<unsigned char>(value[3])) &&
                std::isdigit(static_cast<unsigned char>(value[4]));
      for (size_t k = 5; ok && k < value.size(); ++k) {
        ok = std::isdigit(static_cast<unsigned char>(value[k])) || (k + 1 == value.size() && (value[k] == 'a' || value[k] == 'f'));
      }
      if (!ok) return fail("-arch must be a CUDA architecture like sm_90 (got '" + value + "')");
      target.arch = value;
    } else if (key == "max_threads_per_block") {
      if (!positive(&target.max_threads_per_block)) return fail("-max_threads_per_block must be a positive integer (got '" + value + "')");
    } else if (key == "max_shared_memory_per_block") {
      if (!positive(&target.max_shared_memory_per_block)) return fail("-max_shared_memory_per_block must be a positive integer (got '" + value + "')");
    } else if (key == "thread_warp_size") {
      if (!positive(&target.thread_warp_size)) return fail("-thread_warp_size must be a positive integer (got '" + value + "')");
    } else if (key == "host") {
      host_text = value;
    } else {
      return fail("unknown target option -" + key +
                  " for cuda (known: -arch, -max_threads_per_block, -max_shared_memory_per_block, "
                  "-thread_warp_size, -host)");
    }
  }
  if (target.arch.empty() && ArchDetector()) target.arch = ArchDetector()();
  if (target.arch.empty()) target.arch = "sm_90";
  std::string host_error;
  auto host = ParseTarget(host_text, &host_error);
  if (!host) return fail("-host: " + host_error);
  if (host->kind != "llvm") return fail("-host must be an llvm target (got '" + host_text + "')");
  target.host = std::make_shared<const Target>(*host);
  return target;
}

}  // namespace

void SetCudaArchDetector(CudaArchDetector detector) { ArchDetector() = std::move(detector); }

Target Target::Host() {
  std::string error;
  return *ParseTarget("llvm", &error);
}

std::vector<std::pair<std::string, std::string>> TargetTags() { return Tags(); }

std::optional<Target> ParseTarget(std::string_view text, std::string* error) {
  auto fail = [&](std::string message) -> std::optional<Target> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  std::vector<std::string> words = Split(text, ' ');
  if (words.empty()) return fail("empty target: expected e.g. 'llvm -mcpu=native'");
  Target target;
  for (const auto& [name, expansion] : Tags()) {
    if (words[0] == name) {
      if (words.size() > 1) return fail("target tag '" + name + "' takes no options");
      target.tag = name;
      words = Split(expansion, ' ');
      break;
    }
  }
  if (words[0] == "cuda") return ParseCuda(words, target, error);
  if (words[0] != "llvm") {
    std::string known;
    for (const auto& [name, _] : Tags()) known += ", " + name;
    return fail("unknown target kind '" + words[0] + "': expected 'llvm', 'cuda' or a tag (" +
                known.substr(2) + ")");
  }
  std::string mcpu = "native";
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    auto eq = w.find('=');
    if (w.rfind("-", 0) != 0 || eq == std::string::npos) {
      return fail("target option '" + w + "' is not of the form -key=value");
    }
    std::string key = w.substr(1, eq - 1);
    std::string value = w.substr(eq + 1);
    if (value.empty()) return fail("target option -" + key + " has an empty value");
    if (key == "mcpu") {
      mcpu = value;
    } else if (key == "mattr") {
      for (auto& a : Split(value, ',')) {
        if (a[0] != '+' && a[0] != '-') {
          return fail("-mattr entry '" + a + "' must start with '+' or '-'");
        }
        target.mattr.push_back(a);
      }
    } else if (key == "mtriple") {
      target.mtriple = value;
    } else if (key == "opt-level") {
      if (value.size() != 1 || value[0] < '0' || value[0] > '3') {
        return fail("-opt-level must be 0, 1, 2 or 3 (got '" + value + "')");
      }
      target.opt_level = value[0] - '0';
    } else if (key == "num-cores") {
      int n = std::atoi(value.c_str());
      if (n <= 0) return fail("-num-cores must be a positive integer (got '" + value + "')");
      target.num_cores = n;
    } else {
      return fail("unknown target option -" + key +
                  " (known: -mcpu, -mattr, -mtriple, -opt-level, -num-cores)");
    }
  }
  std::string host_triple = llvm::sys::getProcessTriple();
  if (target.mtriple.empty()) target.mtriple = host_triple;
  llvm::Triple triple(target.mtriple);
  bool is_host_cpu = mcpu == "native";
  if (is_host_cpu) mcpu = llvm::sys::getHostCPUName().str();
  if (!is_host_cpu && triple.isX86() && !llvm::X86::parseArchX86(mcpu, /*Only64Bit=*/true)) {
    return fail("unknown -mcpu '" + mcpu + "' for " + target.mtriple);
  }
  target.mcpu = mcpu;
  std::map<std::string, bool> features = CpuFeatures(mcpu, is_host_cpu);
  for (const auto& a : target.mattr) features[a.substr(1)] = a[0] == '+';
  for (const auto& [name, on] : features) {
    if (on) target.features.push_back("+" + name);
  }
  if (target.num_cores == 0) target.num_cores = runtime::ThreadPool::GlobalNumThreads();
  // The host's CPU named explicitly (as Target::str() writes the host) is the host too.
  SetCaches(&target, (is_host_cpu || mcpu == llvm::sys::getHostCPUName()) && target.mtriple == host_triple);
  return target;
}

std::string Target::str() const {
  std::ostringstream os;
  os << kind;
  if (is_cuda()) {
    os << " -arch=" << arch << " -max_threads_per_block=" << max_threads_per_block
       << " -max_shared_memory_per_block=" << max_shared_memory_per_block << " -thread_warp_size=" << thread_warp_size;
    return os.str();
  }
  if (!mcpu.empty()) os << " -mcpu=" << mcpu;
  if (!mattr.empty()) {
    os << " -mattr=";
    for (size_t i = 0; i < mattr.size(); ++i) os << (i ? "," : "") << mattr[i];
  }
  if (opt_level != 3) os << " -opt-level=" << opt_level;
  return os.str();
}

bool Target::HasFeature(std::string_view feature) const {
  std::string f = "+" + std::string(feature);
  return std::find(features.begin(), features.end(), f) != features.end();
}

int Target::MaxVectorBits() const {
  if (HasFeature("avx512f")) return 512;
  if (HasFeature("avx")) return 256;
  return 128;
}

int Target::NumVectorRegisters() const {
  if (HasFeature("avx512f")) return 32;
  if (llvm::Triple(mtriple).isAArch64()) return 32;
  return 16;
}

}  // namespace wb::codegen
