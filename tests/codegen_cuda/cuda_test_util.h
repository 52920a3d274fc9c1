// Shared helpers of the CUDA codegen tests: device PrimFuncs from TVMScript, their CUDA C, and
// NVRTC compilation of it to PTX for sm_90 (skipped with a message in a build without NVRTC).
#pragma once

#include <QTest>

#include <cstdio>
#include <string>

#include "codegen/build.h"
#include "codegen/cuda/codegen_cuda.h"
#include "script/tvmscript.h"

namespace wb::testing {

inline const char* kCudaHeader = "from tvm.script import ir as I\nfrom tvm.script import tirx as T\n";

inline ir::IRModule ParseDevice(const std::string& body) {
  script::ParseResult r = script::Parse(std::string(kCudaHeader) + body, "kernel.py");
  if (!r.ok()) qFatal("parse failed: %s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

inline codegen::CudaSource GenerateOk(const ir::IRModule& mod) {
  try {
    return codegen::CodegenCUDA(mod, "sm_90");
  } catch (const codegen::CodegenError& e) {
    qFatal("CodegenCUDA failed: %s", e.what());
  }
}

// The CodegenError message for a module the codegen must refuse ("" when it did not throw).
inline std::string GenerateError(const ir::IRModule& mod) {
  try {
    codegen::CodegenCUDA(mod, "sm_90");
  } catch (const codegen::CodegenError& e) {
    return e.what();
  }
  return "";
}

inline bool Contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

}  // namespace wb::testing

// Checks that the generated code holds `fragment`, printing the code when it does not.
#define CUDA_EXPECT(code, fragment)                                                                  \
  do {                                                                                               \
    if (!::wb::testing::Contains(code, fragment)) {                                                  \
      std::fprintf(stderr, "--- generated ---\n%s--- end ---\n", std::string(code).c_str());        \
    }                                                                                                \
    QVERIFY2(::wb::testing::Contains(code, fragment), (std::string("missing: ") + (fragment)).c_str()); \
  } while (0)

// Compiles the code to PTX for sm_90 with NVRTC; the test fails with NVRTC's log on an error and
// is skipped (after its textual checks) where this build has no NVRTC.
#define CUDA_EXPECT_COMPILES(code)                                                                   \
  do {                                                                                               \
    if (!::wb::codegen::NvrtcAvailable()) QSKIP("no NVRTC in this build (CUDA toolkit not found)");  \
    ::wb::codegen::NvrtcResult _r = ::wb::codegen::NvrtcCompile(code, "sm_90", "ptx");               \
    QVERIFY2(_r.ok(), (_r.log + "\n--- generated ---\n" + (code)).c_str());                          \
  } while (0)
