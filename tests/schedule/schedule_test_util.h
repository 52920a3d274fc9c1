// Helpers shared by the schedule test suites: parse a TVMScript module, compare a schedule's
// result with an expected module (structurally, and by running both through the interpreter),
// check that failing primitives leave the schedule alone, and replay a trace.
#pragma once

#include <QTest>
#include <string>

#include "ir/structural_equal.h"
#include "schedule/recipe.h"
#include "schedule/schedule.h"
#include "script/tvmscript.h"
#include "workbench/equivalence.h"

namespace wb::schedule::testing {

// Two elementwise stages through an intermediate B: the common input of the cache, inline and
// layout tests.
inline constexpr const char* kTwoStage = R"(@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(16, 16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
)";

// Applies `recipe` to `sch`, failing the test (with the first message) when it reports anything.
inline void Apply(Schedule& sch, const std::string& recipe) {
  DiagnosticList diags = ApplyRecipe(sch, recipe);
  QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
}

inline ir::IRModule ParseModule(const std::string& text) {
  script::ParseResult parsed = script::Parse(text);
  if (!parsed.ok()) {
    std::string all;
    for (const auto& d : parsed.diagnostics.items()) all += d.message + "\n";
    qFatal("test program does not parse: %s\n%s", all.c_str(), text.c_str());
  }
  return parsed.module;
}

// Both modules compute the same on seeded random inputs (the interpreter is the oracle).
inline void ExpectSameMeaning(const ir::IRModule& before, const ir::IRModule& after,
                              uint64_t seed = 0) {
  workbench::EquivalenceOptions options;
  options.seed = seed;
  std::vector<workbench::FunctionCheck> checks = workbench::CheckEquivalence(before, after, options);
  QVERIFY(!checks.empty());
  for (const auto& check : checks) {
    QVERIFY2(check.outcome == workbench::FunctionCheck::Outcome::kEqual, check.detail.c_str());
  }
}

// Fails the test unless `after` is structurally `expected` and computes what `before` does.
inline void ExpectModule(const ir::IRModule& before, const ir::IRModule& after,
                         const std::string& expected_text) {
  ir::IRModule expected = ParseModule(expected_text);
  if (!ir::StructuralEqual(after, expected)) {
    qWarning("got:\n%s", script::PrintModule(after).c_str());
    QFAIL("schedule result differs from the expected module");
  }
  ExpectSameMeaning(before, after);
}

template <typename F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const ScheduleError& e) {
    return e.what();
  }
  return "(no error)";
}

// A primitive that fails must leave the module and the trace as they were; returns its message.
template <typename F>
std::string FailsCleanly(Schedule& sch, F&& f) {
  ir::IRModule before = sch.mod();
  size_t steps = sch.trace().instructions().size();
  std::string message = ErrorOf(f);
  if (!sch.mod().same_as(before)) qWarning("module changed by a failing primitive");
  if (sch.trace().instructions().size() != steps) qWarning("trace grew on a failing primitive");
  return sch.mod().same_as(before) && sch.trace().instructions().size() == steps
             ? message
             : "(schedule changed)";
}

// The rendered message of a ScheduleError of `primitive` with `reason`.
inline std::string Rendered(const std::string& primitive, const std::string& reason) {
  return "ScheduleError: An error occurred in the schedule primitive '" + primitive +
         "'.\nError message: " + reason;
}

// Replays the trace of `sch` onto `original` and checks it gives the same module and trace.
inline void ExpectReplay(const ir::IRModule& original, const Schedule& sch) {
  Schedule replay(original);
  std::string recipe = sch.trace().AsPython();
  DiagnosticList diags = ApplyRecipe(replay, recipe);
  QVERIFY2(diags.empty(), diags.empty() ? "" : diags[0].message.c_str());
  if (!ir::StructuralEqual(replay.mod(), sch.mod())) {
    qWarning("recipe:\n%s\nreplayed:\n%s", recipe.c_str(),
             script::PrintModule(replay.mod()).c_str());
    QFAIL("replaying the trace gives another module");
  }
  QCOMPARE(replay.trace().AsPython(), recipe);
}

}  // namespace wb::schedule::testing
