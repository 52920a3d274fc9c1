// What the dlight suites share: a Relax program legalized (and fused) to its kernels, each
// kernel scheduled by the default CPU rules for a target, and the checks every scheduled kernel
// must pass: the trace replays to the same function, the interpreter computes the same before
// and after on random inputs, and (for the host) the compiled scheduled kernel computes what
// the interpreter computes on the unscheduled one.
#pragma once

#include <QTest>
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "codegen/build.h"
#include "dlight/cpu/rules.h"
#include "ir/structural_equal.h"
#include "runtime/ndarray.h"
#include "schedule/recipe.h"
#include "script/tvmscript.h"
#include "tir/interpreter.h"
#include "tir/op.h"
#include "transform/registry.h"

namespace wb::dlight::testing {

// The PrimFuncs `relax` legalizes to (fused when `fuse`), by name.
inline std::vector<std::pair<std::string, tir::PrimFunc>> Kernels(const std::string& relax,
                                                                  bool fuse) {
  script::ParseResult parsed = script::Parse(relax, "case.py");
  if (!parsed.ok())
    qFatal("case does not parse: %s\n%s", RenderDiagnostics(parsed.diagnostics).c_str(),
           relax.c_str());
  DiagnosticList diags;
  auto pipeline = transform::BuildPipeline(
      fuse ? "LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR" : "LegalizeOps", diags);
  if (!pipeline) qFatal("pipeline does not build");
  ir::IRModule lowered = (*pipeline)(parsed.module);
  std::vector<std::pair<std::string, tir::PrimFunc>> out;
  for (size_t i = 0; i < lowered->size(); ++i) {
    if (auto f = lowered->functions[i].as_ref<tir::PrimFuncNode>(); f.defined()) {
      out.emplace_back(lowered->global_vars[i]->name_hint, f);
    }
  }
  return out;
}

inline codegen::Target TargetOf(const std::string& text) {
  std::string error;
  auto target = codegen::ParseTarget(text, &error);
  if (!target) qFatal("bad target %s: %s", text.c_str(), error.c_str());
  return *target;
}

// The range of the random integers a check gives integer buffers (indices, a quantized tensor),
// when the kernel needs them in range: gather, take, scatter index within their axis.
struct IntRange {
  int64_t low = -2, high = 2;
};

// Runs the unscheduled kernel and the scheduled one in the interpreter, and (`compiled`) the
// scheduled one compiled for the host, on the same random inputs (`symbolic` for every symbolic
// dim; every buffer filled, outputs too, so a schedule that leaves an element unwritten is
// caught); "" when every buffer agrees.
inline std::string CompareRuns(const tir::PrimFunc& original, const tir::PrimFunc& scheduled,
                               int64_t symbolic, uint64_t seed, bool compiled,
                               IntRange ints = {}) {
  std::vector<runtime::NDArray> want, interpreted, built_arrays;
  std::vector<tir::InterpArg> want_args, interp_args;
  std::vector<runtime::PackedArg> args;
  for (size_t p = 0; p < original->params.size(); ++p) {
    const tir::Buffer& buffer = original->buffer_map[p];
    if (!buffer.defined()) {
      want_args.emplace_back(symbolic);
      interp_args.emplace_back(symbolic);
      args.emplace_back(symbolic);
      continue;
    }
    std::vector<int64_t> shape;
    for (const auto& dim : buffer->shape) {
      const int64_t* n = tir::AsConstInt(dim);
      shape.push_back(n ? *n : symbolic);
    }
    runtime::NDArray a = runtime::NDArray::Empty(shape, tir::ToRuntimeDType(buffer->dtype));
    runtime::RandomFillOptions fill{seed * 100 + p, -2.0, 2.0};
    if (buffer->dtype.is_int() || buffer->dtype.is_uint()) {
      fill.low = static_cast<double>(buffer->dtype.is_uint() ? std::max<int64_t>(0, ints.low) : ints.low);
      fill.high = static_cast<double>(ints.high);
    }
    if (buffer->dtype.is_bool()) fill.low = fill.high = std::nullopt;
    runtime::FillRandom(a, fill);
    want.push_back(a);
    interpreted.push_back(a.Copy());
    built_arrays.push_back(a.Copy());
    want_args.emplace_back(want.back());
    interp_args.emplace_back(interpreted.back());
    args.emplace_back(built_arrays.back());
  }
  tir::InterpretResult ref = tir::InterpretModule(SingleFunctionModule(original), "main", want_args);
  if (!ref.ok()) return "the unscheduled kernel does not run: " + RenderDiagnostics(ref.diagnostics);
  tir::InterpretResult after =
      tir::InterpretModule(SingleFunctionModule(scheduled), "main", interp_args);
  if (!after.ok()) return "the scheduled kernel does not run: " + RenderDiagnostics(after.diagnostics);
  for (size_t i = 0; i < want.size(); ++i) {
    runtime::CompareResult c = runtime::Compare(interpreted[i], want[i]);
    if (!c.ok) return "interpreter: tensor " + std::to_string(i) + ": " + c.message;
  }
  if (!compiled) return "";
  codegen::BuildOptions as_given;
  as_given.default_schedule = false;
  codegen::BuildResult built =
      codegen::Build(SingleFunctionModule(scheduled), codegen::Target::Host(), as_given);
  if (!built.ok()) return "build failed: " + RenderDiagnostics(built.diagnostics);
  runtime::PackedFunc f = built.module.get_function("main");
  if (!f.defined()) return "no function main in the built module";
  try {
    f.Call(args);
  } catch (const runtime::Error& e) {
    return std::string("compiled call failed: ") + e.what();
  }
  for (size_t i = 0; i < want.size(); ++i) {
    runtime::Tolerance tol = runtime::DefaultTolerance(built_arrays[i].dtype());
    runtime::CompareResult c = runtime::Compare(built_arrays[i], want[i], tol);
    if (!c.ok) return "compiled: tensor " + std::to_string(i) + ": " + c.message;
  }
  return "";
}

// Schedules `func` by the default rules for `target` and checks it; returns the rule's name
// ("" when a check fails, with the reason as a warning). The trace must replay to the same
// function, and the schedule must compute what the kernel computes (CompareRuns, two seeds);
// `compiled`: also the compiled kernel (only for a target the host can run).
inline std::string CheckKernel(const std::string& name, const tir::PrimFunc& func,
                               const codegen::Target& target, bool compiled, int64_t symbolic = 7,
                               IntRange ints = {}) {
  std::optional<AppliedRule> applied = ApplyRules(func, target, cpu::DefaultRules());
  if (!applied) {
    qWarning("%s: no rule applies", name.c_str());
    return "";
  }
  const schedule::Schedule& sch = applied->schedule;
  std::string recipe = sch.trace().AsPython();
  ir::IRModule before = SingleFunctionModule(func);
  schedule::Schedule replay(before);
  DiagnosticList diags = schedule::ApplyRecipe(replay, recipe);
  if (!diags.empty() || !ir::StructuralEqual(replay.mod(), sch.mod())) {
    qWarning("%s: the trace does not replay:\n%s\n%s", name.c_str(), recipe.c_str(),
             diags.empty() ? "(another module)" : diags[0].message.c_str());
    return "";
  }
  for (uint64_t seed : {1, 2}) {
    std::string diff = CompareRuns(func, sch.Func(), symbolic, seed, compiled, ints);
    if (!diff.empty()) {
      qWarning("%s (%s, %s): %s\nrecipe:\n%s\n%s", name.c_str(), applied->rule.c_str(),
               target.str().c_str(), diff.c_str(), recipe.c_str(),
               script::PrintModule(sch.mod()).c_str());
      return "";
    }
  }
  return applied->rule;
}

// A tensor parameter of a Relax test program: its dims (a digit string is a constant, anything
// else a symbolic dim) and dtype.
struct TensorParam {
  std::string name;
  std::vector<std::string> dims;
  std::string dtype = "float32";
};

// A Relax main over `params` whose body binds `lines` in a dataflow block and returns gv.
inline std::string Program(const std::vector<TensorParam>& params,
                           const std::vector<std::string>& lines) {
  auto dims = [](const std::vector<std::string>& d) {
    std::string s = "(";
    for (size_t i = 0; i < d.size(); ++i)
      s += (i ? ", " : "") + (std::isdigit(d[i][0]) ? d[i] : "\"" + d[i] + "\"");
    return s + (d.size() == 1 ? ",)" : ")");
  };
  std::string s = "@I.ir_module\nclass Module:\n    @R.function\n    def main(";
  std::set<std::string> symbolic;
  for (size_t i = 0; i < params.size(); ++i) {
    s += (i ? ", " : "") + params[i].name + ": R.Tensor(" + dims(params[i].dims) + ", dtype=\"" +
         params[i].dtype + "\")";
    for (const auto& d : params[i].dims) {
      if (!std::isdigit(d[0])) symbolic.insert(d);
    }
  }
  s += "):\n";
  for (const auto& v : symbolic) s += "        " + v + " = T.int64()\n";
  s += "        with R.dataflow():\n";
  for (const auto& l : lines) s += "            " + l + "\n";
  s += "            R.output(gv)\n        return gv\n";
  return s;
}

// The targets every kernel is checked for: two descriptions and the host (compiled and run).
inline const std::vector<std::string> kTargets = {"avx2", "avx512", "host"};

inline int Lanes(const std::string& target) { return TargetOf(target).MaxVectorBits() / 32; }

// Checks every kernel of `relax` for every target; returns the rules chosen per target, joined
// by "," (for the kernel named `kernel`, else for every kernel, joined by "+"), or "(failed on
// TARGET)".
inline std::string CheckAll(const std::string& relax, bool fuse, const std::string& kernel = "",
                            int64_t symbolic = 7, IntRange ints = {}) {
  std::string rules;
  for (const std::string& t : kTargets) {
    codegen::Target target = t == "host" ? codegen::Target::Host() : TargetOf(t);
    auto kernels = Kernels(relax, fuse);
    if (kernels.empty()) qFatal("no kernels in\n%s", relax.c_str());
    std::string chosen;
    for (const auto& [name, func] : kernels) {
      std::string rule = CheckKernel(name, func, target, t == "host", symbolic, ints);
      if (rule.empty()) return "(failed on " + t + ")";
      if (kernel.empty() || name == kernel) chosen += (chosen.empty() ? "" : "+") + rule;
    }
    rules += (rules.empty() ? "" : ",") + chosen;
  }
  return rules;
}

// The rule expected on each of kTargets, given what it needs of each target's lanes.
inline std::string Expected(const std::function<std::string(int lanes)>& rule) {
  std::string s;
  for (const auto& t : kTargets) s += (s.empty() ? "" : ",") + rule(Lanes(t));
  return s;
}

}  // namespace wb::dlight::testing
