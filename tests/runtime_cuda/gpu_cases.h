// The GPU test cases as plain functions, without Qt: the Qt suites (tst_cuda_device,
// tst_cuda_run) run them as data rows, and the GPU check executable (gpucheck/) runs them where
// neither Qt nor a build exists. A case returns when it passed and throws CaseSkipped (no CUDA
// device, with the reason) or CaseFailed ("file:line: what was expected") otherwise; any other
// exception is a failure too.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace wb::gpucases {

struct CaseSkipped {
  std::string why;
};
struct CaseFailed {
  std::string what;
};

struct Case {
  const char* suite;  // "device" (the CUDA runtime), "run" (builds run on the GPU), "vm" (the Relax VM)
  const char* name;
  void (*run)();
};

// Every case, in the order they run.
const std::vector<Case>& Cases();

// The text of tests/runtime_cuda/data/<name>, from $WB_TEST_DATA_DIR (CaseFailed when missing).
std::string ReadTestFile(const std::string& name);

// Throws CaseSkipped("no CUDA device: <reason>") where kernels cannot run.
void RequireCuda();

[[noreturn]] void Fail(const char* file, int line, const std::string& what);

template <typename A, typename B>
void Compare(const A& actual, const B& expected, const char* actual_text, const char* expected_text,
             const char* file, int line) {
  if (actual == expected) return;
  std::ostringstream os;
  os << actual_text << " == " << expected_text << ": got " << actual << ", expected " << expected;
  Fail(file, line, os.str());
}

}  // namespace wb::gpucases

#define GC_CHECK(cond) \
  do {                 \
    if (!(cond)) ::wb::gpucases::Fail(__FILE__, __LINE__, #cond); \
  } while (0)
#define GC_CHECK2(cond, message) \
  do {                           \
    if (!(cond)) ::wb::gpucases::Fail(__FILE__, __LINE__, std::string(#cond) + ": " + (message)); \
  } while (0)
#define GC_COMPARE(actual, expected) \
  ::wb::gpucases::Compare((actual), (expected), #actual, #expected, __FILE__, __LINE__)
#define GC_FAIL(message) ::wb::gpucases::Fail(__FILE__, __LINE__, (message))
