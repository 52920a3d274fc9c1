// Shared helpers of the codegen tests: parse TVMScript, build with the LLVM codegen, run the
// compiled function and the reference interpreter on the same seeded random inputs, compare.
#pragma once

#include <QTest>

#include <string>
#include <variant>
#include <vector>

#include "codegen/build.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"

namespace wb::testing {

inline const char* kHeader = "from tvm.script import ir as I\nfrom tvm.script import tirx as T\n";

inline ir::IRModule ParseOk(const std::string& body) {
  script::ParseResult r = script::Parse(std::string(kHeader) + body, "test.py");
  if (!r.ok()) qFatal("parse failed: %s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

// `pipeline`: the lowering passes before MakePackedAPI; empty: Build's default.
inline runtime::Module BuildOk(const ir::IRModule& mod, const std::string& pipeline = "") {
  codegen::BuildOptions options;
  options.pipeline = pipeline;
  codegen::BuildResult r = codegen::Build(mod, codegen::Target::Host(), options);
  if (!r.ok()) qFatal("build failed: %s", RenderDiagnostics(r.diagnostics).c_str());
  return r.module;
}

// One argument: a tensor (shape, dtype, optional value range) or a scalar.
struct TensorSpec {
  TensorSpec(std::vector<int64_t> shape, std::string dtype = "float32", std::optional<double> low = {},
             std::optional<double> high = {})
      : shape(std::move(shape)), dtype(std::move(dtype)), low(low), high(high) {}
  std::vector<int64_t> shape;
  std::string dtype;
  std::optional<double> low, high;
};
using ArgSpec = std::variant<TensorSpec, int64_t, double>;

// Runs `func` of `mod` compiled and interpreted on the same random inputs; every tensor must
// agree within the dtype's tolerance (scaled by `tolerance_scale`). Returns "" or what differs.
inline std::string CompareWithInterpreter(const ir::IRModule& mod, const runtime::Module& built,
                                          const std::string& func, const std::vector<ArgSpec>& specs,
                                          uint64_t seed = 1, double tolerance_scale = 1) {
  std::vector<runtime::NDArray> compiled, interpreted;
  std::vector<runtime::PackedArg> args;
  std::vector<tir::InterpArg> iargs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (auto* t = std::get_if<TensorSpec>(&specs[i])) {
      auto dtype = runtime::DTypeFromString(t->dtype);
      if (!dtype) return "bad dtype " + t->dtype;
      runtime::NDArray a = runtime::NDArray::Empty(t->shape, *dtype);
      runtime::FillRandom(a, runtime::RandomFillOptions{seed * 100 + i, t->low, t->high});
      compiled.push_back(a);
      interpreted.push_back(a.Copy());
      args.emplace_back(compiled.back());
      iargs.emplace_back(interpreted.back());
    } else if (auto* n = std::get_if<int64_t>(&specs[i])) {
      args.emplace_back(*n);
      iargs.emplace_back(*n);
    } else {
      double v = std::get<double>(specs[i]);
      args.emplace_back(v);
      iargs.emplace_back(v);
    }
  }
  tir::InterpretResult ir = tir::InterpretModule(mod, func, iargs);
  if (!ir.ok()) return "interpreter: " + RenderDiagnostics(ir.diagnostics);
  runtime::PackedFunc f = built.get_function(func);
  if (!f.defined()) return "no function " + func + " in the built module";
  try {
    f.Call(args);
  } catch (const runtime::Error& e) {
    return std::string("compiled call failed: ") + e.what();
  }
  for (size_t i = 0; i < compiled.size(); ++i) {
    runtime::Tolerance tol = runtime::DefaultTolerance(compiled[i].dtype());
    tol.rtol *= tolerance_scale;
    tol.atol *= tolerance_scale;
    runtime::CompareResult c = runtime::Compare(compiled[i], interpreted[i], tol);
    if (!c.ok) return func + ": tensor " + std::to_string(i) + ": " + c.message;
  }
  return "";
}

}  // namespace wb::testing
