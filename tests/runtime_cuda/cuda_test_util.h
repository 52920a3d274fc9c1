// Shared helpers of the CUDA runtime tests: the hand-written add_one PTX kernel (data/) and the
// skip for machines without a CUDA device.
#pragma once

#include <QTest>

#include <fstream>
#include <sstream>
#include <string>

#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/cuda_module.h"

namespace wb::testing {

inline std::string ReadTestFile(const std::string& name) {
  const char* dir = std::getenv("WB_TEST_DATA_DIR");
  std::ifstream in(std::string(dir ? dir : ".") + "/" + name);
  if (!in) qFatal("cannot read test data %s", name.c_str());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// add_one(float* a, int n), launched with blockIdx.x and threadIdx.x.
inline runtime::Module AddOneModule() {
  runtime::cuda::CudaFunctionInfo info{"add_one", {"handle", "int32"}, {"blockIdx.x", "threadIdx.x"}};
  return runtime::cuda::CudaModuleCreate(ReadTestFile("add_one.ptx"), "ptx", {info},
                                         {{"cuda", "// hand-written PTX\n"}});
}

}  // namespace wb::testing

// Skips the test where CUDA kernels cannot run, saying why.
#define WB_REQUIRE_CUDA()                                                   \
  do {                                                                      \
    std::string why_;                                                       \
    if (!wb::runtime::cuda::CudaAvailable(&why_)) {                         \
      QSKIP(("no CUDA device: " + why_).c_str());                           \
    }                                                                       \
  } while (0)
