#include "codegen/target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/TargetParser/X86TargetParser.h>

#include <algorithm>
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

}  // namespace

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
  if (words[0] != "llvm") {
    std::string known;
    for (const auto& [name, _] : Tags()) known += ", " + name;
    return fail("unknown target kind '" + words[0] + "': expected 'llvm' or a tag (" +
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
  if (target.num_cores == 0) target.num_cores = runtime::ThreadPool::Global().num_threads();
  return target;
}

std::string Target::str() const {
  std::ostringstream os;
  os << kind;
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

}  // namespace wb::codegen
