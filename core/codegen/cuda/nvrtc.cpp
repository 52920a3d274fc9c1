// NVRTC: CUDA C -> PTX or CUBIN at run time. Built only when CMake found the toolkit's NVRTC
// (WB_HAVE_NVRTC); otherwise NvrtcCompile fails with a message saying so. A compile error's
// log gets the generated source line it points at appended, so a message like
// `kernels.cu(12): error: ...` shows the line without opening the source.
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

#include "codegen/cuda/codegen_cuda.h"

#ifdef WB_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace wb::codegen {

namespace {

// "sm_90" / "sm_90a" -> 90 / "90a"; empty when the text is not an sm_ architecture.
std::string ArchNumber(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0 || arch.size() < 5) return "";
  std::string n = arch.substr(3);
  size_t digits = 0;
  while (digits < n.size() && std::isdigit(static_cast<unsigned char>(n[digits]))) ++digits;
  if (digits < 2 || (digits != n.size() && n.substr(digits) != "a" && n.substr(digits) != "f")) return "";
  return n;
}

// Appends, after each `<file>(<line>): error` line of the log, the source line it names.
std::string AnnotateLog(const std::string& log, const std::string& file, const std::string& code) {
  std::vector<std::string> lines;
  std::istringstream src(code);
  for (std::string l; std::getline(src, l);) lines.push_back(l);
  std::istringstream in(log);
  std::ostringstream out;
  for (std::string l; std::getline(in, l);) {
    out << l << "\n";
    std::string prefix = file + "(";
    if (l.rfind(prefix, 0) != 0) continue;
    size_t close = l.find(')', prefix.size());
    if (close == std::string::npos || l.find("error", close) == std::string::npos) continue;
    int n = std::atoi(l.substr(prefix.size(), close - prefix.size()).c_str());
    if (n >= 1 && n <= static_cast<int>(lines.size())) {
      out << "  generated source line " << n << ": " << lines[n - 1] << "\n";
    }
  }
  return out.str();
}

#ifdef WB_HAVE_NVRTC
// Where cuda_fp16.h / cuda_bf16.h live: $CUDA_HOME, $CUDA_PATH, then the toolkit CMake found.
std::string CudaIncludeDir() {
  std::vector<std::string> candidates;
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* v = std::getenv(env); v && *v) candidates.push_back(std::string(v) + "/include");
  }
#ifdef WB_CUDA_INCLUDE_DIR
  candidates.push_back(WB_CUDA_INCLUDE_DIR);
#endif
  candidates.push_back("/usr/local/cuda/include");
  std::error_code ec;
  for (const auto& dir : candidates) {
    if (std::filesystem::exists(dir + "/cuda_fp16.h", ec)) return dir;
  }
  return "";
}
#endif

}  // namespace

bool NvrtcAvailable() {
#ifdef WB_HAVE_NVRTC
  return true;
#else
  return false;
#endif
}

NvrtcResult NvrtcCompile(const std::string& code, const std::string& arch, const std::string& format) {
  NvrtcResult result;
  if (format != "ptx" && format != "cubin") {
    result.log = "NVRTC: unknown output format '" + format + "' (expected \"ptx\" or \"cubin\")";
    return result;
  }
  std::string number = ArchNumber(arch);
  if (number.empty()) {
    result.log = "NVRTC: '" + arch + "' is not a CUDA architecture (expected e.g. sm_90)";
    return result;
  }
#ifndef WB_HAVE_NVRTC
  (void)code;
  result.log = "NVRTC is not available: this build has no CUDA toolkit (configure with WB_ENABLE_CUDA=ON "
               "where the toolkit is installed)";
  return result;
#else
  const std::string file = "workbench_kernels.cu";
  nvrtcProgram prog = nullptr;
  nvrtcResult rc = nvrtcCreateProgram(&prog, code.c_str(), file.c_str(), 0, nullptr, nullptr);
  if (rc != NVRTC_SUCCESS) {
    result.log = std::string("NVRTC: cannot create the program: ") + nvrtcGetErrorString(rc);
    return result;
  }
  // PTX for the virtual architecture (the driver JITs it for the device), CUBIN for the real one.
  std::vector<std::string> options = {
      (format == "ptx" ? "--gpu-architecture=compute_" : "--gpu-architecture=sm_") + number,
      "--std=c++17",
  };
  std::string include = CudaIncludeDir();
  if (!include.empty()) options.push_back("--include-path=" + include);
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  rc = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 0) nvrtcGetProgramLog(prog, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (rc != NVRTC_SUCCESS) {
    result.log = "NVRTC: compilation for " + arch + " failed (" + nvrtcGetErrorString(rc) + "):\n" +
                 AnnotateLog(log, file, code);
    if (include.empty()) result.log += "(no CUDA include directory was found for cuda_fp16.h: set CUDA_HOME)\n";
    nvrtcDestroyProgram(&prog);
    return result;
  }
  result.log = log;
  size_t size = 0;
  if (format == "ptx") {
    nvrtcGetPTXSize(prog, &size);
    result.binary.resize(size);
    nvrtcGetPTX(prog, result.binary.data());
    if (result.binary.empty() || result.binary.back() != '\0') result.binary.push_back('\0');
  } else {
    nvrtcGetCUBINSize(prog, &size);
    result.binary.resize(size);
    if (size > 0) nvrtcGetCUBIN(prog, result.binary.data());
    if (size == 0) result.log += "NVRTC produced no CUBIN for " + arch;
  }
  nvrtcDestroyProgram(&prog);
  return result;
#endif
}

}  // namespace wb::codegen
