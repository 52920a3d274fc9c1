// What the dlight suites share: a Relax program legalized (and fused) to its kernels, each
// kernel scheduled by the default CPU rules for a target, and the checks every scheduled kernel
// must pass: the trace replays to the same function, the interpreter computes the same before
// and after on random inputs, and (for the host) the compiled scheduled kernel computes what
// the interpreter computes on the unscheduled one.
#pragma once

#include <QTest>
#include <map>
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
#include "workbench/equivalence.h"

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

// Runs the scheduled kernel compiled for the host and the unscheduled one in the interpreter on
// the same random inputs (`symbolic` for every symbolic dim); "" when every buffer agrees.
inline std::string CompareCompiled(const tir::PrimFunc& original, const tir::PrimFunc& scheduled,
                                   int64_t symbolic, uint64_t seed) {
  codegen::BuildOptions as_given;
  as_given.default_schedule = false;
  codegen::BuildResult built =
      codegen::Build(SingleFunctionModule(scheduled), codegen::Target::Host(), as_given);
  if (!built.ok()) return "build failed: " + RenderDiagnostics(built.diagnostics);
  std::vector<runtime::NDArray> compiled, interpreted;
  std::vector<runtime::PackedArg> args;
  std::vector<tir::InterpArg> iargs;
  for (size_t p = 0; p < original->params.size(); ++p) {
    const tir::Buffer& buffer = original->buffer_map[p];
    if (!buffer.defined()) {
      args.emplace_back(symbolic);
      iargs.emplace_back(symbolic);
      continue;
    }
    std::vector<int64_t> shape;
    for (const auto& dim : buffer->shape) {
      const int64_t* n = tir::AsConstInt(dim);
      shape.push_back(n ? *n : symbolic);
    }
    runtime::NDArray a = runtime::NDArray::Empty(shape, tir::ToRuntimeDType(buffer->dtype));
    runtime::FillRandom(a, runtime::RandomFillOptions{seed * 100 + p, -2.0, 2.0});
    compiled.push_back(a);
    interpreted.push_back(a.Copy());
    args.emplace_back(compiled.back());
    iargs.emplace_back(interpreted.back());
  }
  tir::InterpretResult ref = tir::InterpretModule(SingleFunctionModule(original), "main", iargs);
  if (!ref.ok()) return "interpreter: " + RenderDiagnostics(ref.diagnostics);
  runtime::PackedFunc f = built.module.get_function("main");
  if (!f.defined()) return "no function main in the built module";
  try {
    f.Call(args);
  } catch (const runtime::Error& e) {
    return std::string("compiled call failed: ") + e.what();
  }
  for (size_t i = 0; i < compiled.size(); ++i) {
    runtime::Tolerance tol = runtime::DefaultTolerance(compiled[i].dtype());
    runtime::CompareResult c = runtime::Compare(compiled[i], interpreted[i], tol);
    if (!c.ok) return "tensor " + std::to_string(i) + ": " + c.message;
  }
  return "";
}

// Schedules `func` by the default rules for `target` and checks it; returns the rule's name.
// `compiled`: also run the compiled kernel (only for a target the host can run).
inline std::string CheckKernel(const std::string& name, const tir::PrimFunc& func,
                               const codegen::Target& target, bool compiled, int64_t symbolic = 7) {
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
  workbench::EquivalenceOptions options;
  options.symbolic_extent = symbolic;
  for (const auto& check : workbench::CheckEquivalence(before, sch.mod(), options)) {
    if (check.outcome != workbench::FunctionCheck::Outcome::kEqual) {
      qWarning("%s (%s, %s): interpreter: %s: %s\n%s", name.c_str(), applied->rule.c_str(),
               target.str().c_str(), workbench::OutcomeName(check.outcome), check.detail.c_str(),
               script::PrintModule(sch.mod()).c_str());
      return "";
    }
  }
  if (compiled) {
    for (uint64_t seed : {1, 2}) {
      std::string diff = CompareCompiled(func, sch.Func(), symbolic, seed);
      if (!diff.empty()) {
        qWarning("%s (%s): compiled: %s\nrecipe:\n%s\n%s", name.c_str(), applied->rule.c_str(),
                 diff.c_str(), recipe.c_str(), script::PrintModule(sch.mod()).c_str());
        return "";
      }
    }
  }
  return applied->rule;
}

}  // namespace wb::dlight::testing
