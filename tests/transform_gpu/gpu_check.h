// Shared helpers of the GPU lowering suites: parsing TVMScript, float arrays with seeded random
// contents, and running a PrimFunc (or a module's function) through the reference interpreter,
// which simulates the GPU (thread blocks, barriers, warp shuffles, shared-memory races).
#pragma once

#include <QTest>

#include <random>
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"

namespace wb::testing {

inline const char* kGpuHeader =
    "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n\n";

inline ir::IRModule ParseGpu(const std::string& body) {
  auto r = script::Parse(std::string(kGpuHeader) + body, "case.py");
  if (!r.ok()) qFatal("%s\n%s", RenderDiagnostics(r.diagnostics).c_str(), body.c_str());
  return r.module;
}

inline runtime::NDArray Floats(std::vector<int64_t> shape, uint64_t seed) {
  auto a = runtime::NDArray::Empty(std::move(shape), runtime::DLDataType{2, 32, 1});
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto* p = reinterpret_cast<float*>(a.ElementData());
  for (int64_t i = 0; i < a.NumElements(); ++i) p[i] = seed ? dist(rng) : 0.0f;
  return a;
}

inline const float* F(const runtime::NDArray& a) {
  return reinterpret_cast<const float*>(a.ElementData());
}

// Runs `name` of `module`; returns the rendered diagnostics ("" when the run succeeded).
inline std::string Run(const ir::IRModule& module, const std::string& name,
                       std::vector<tir::InterpArg> args) {
  auto r = tir::InterpretModule(module, name, std::move(args));
  return r.ok() ? "" : RenderDiagnostics(r.diagnostics);
}

}  // namespace wb::testing
