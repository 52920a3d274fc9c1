// `--check-each` with `--pipeline` and `--schedule`, in process (driver::RunBatch): every pass
// snapshot and every schedule step runs against the one before it on seeded inputs, and the
// first that changes the numbers is named with its max error (exit 1). The pass and the schedule
// step that break meaning on purpose come from tests/testing (TestingBreakMeaning,
// sch.testing_break_meaning()), not from the production registry.
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <sstream>

#include "driver/driver.h"
#include "script/tvmscript.h"
#include "testing/testing_passes.h"
#include "transform/instrument.h"
#include "transform/registry.h"
#include "workbench/check_each.h"

using namespace wb;

namespace {

const char* const kAddOne = transform::testing::kAddOneKernel;

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result Batch(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = driver::RunBatch(args, out, err);
  return {code, out.str(), err.str()};
}

std::string Write(const QTemporaryDir& dir, const char* name, const std::string& text) {
  std::string path = dir.filePath(name).toStdString();
  std::ofstream(path) << text;
  return path;
}

// The passes of `pipeline` run on `text`, as transitions to check.
std::vector<workbench::Transition> Transitions(const char* text, const char* pipeline) {
  script::ParseResult parsed = script::Parse(text, "k.py");
  DiagnosticList diags;
  std::optional<ir::Pass> pass = transform::BuildPipeline(pipeline, diags);
  if (!parsed.ok() || !pass) return {};
  return workbench::PassTransitions(transform::RunPipeline(*pass, parsed.module));
}

}  // namespace

class TstCheckEach : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void theBrokenPassIsNamed() {
    QTemporaryDir tmp;
    std::string src = Write(tmp, "k.py", kAddOne);
    Result r = Batch({src, "--pipeline", "ConvertBlocksToOpaque, TestingBreakMeaning, LowerOpaqueBlock",
                      "--check-each"});
    QVERIFY2(r.code == 1, r.err.c_str());
    QVERIFY2(r.err.find("check pass 1 ConvertBlocksToOpaque: equal") != std::string::npos, r.err.c_str());
    QVERIFY2(r.err.find("--check-each: pass 2 TestingBreakMeaning changed what the module computes") !=
                 std::string::npos,
             r.err.c_str());
    QVERIFY2(r.err.find("max abs error 1") != std::string::npos, r.err.c_str());
    // The pass after it is not blamed.
    QVERIFY(r.err.find("pass 3 LowerOpaqueBlock changed") == std::string::npos);

    // Without the broken pass every pass is equal and the module is printed.
    Result good = Batch({src, "--pipeline", "ConvertBlocksToOpaque, LowerOpaqueBlock", "--check-each"});
    QVERIFY2(good.code == 0, good.err.c_str());
    QVERIFY2(good.err.find("check pass 2 LowerOpaqueBlock: equal") != std::string::npos, good.err.c_str());
    QVERIFY(good.out.find("def main") != std::string::npos);
  }

  void theBrokenStepIsNamed() {
    QTemporaryDir tmp;
    std::string src = Write(tmp, "k.py", kAddOne);
    std::string recipe = Write(tmp, "r.py",
                               "b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                               "l1, = sch.get_loops(block=b0)\n"
                               "l2, l3 = sch.split(loop=l1, factors=[None, 8])\n"
                               "sch.testing_break_meaning()\n"
                               "sch.unroll(loop=l3)\n");
    Result r = Batch({src, "--schedule", recipe, "--check-each"});
    QVERIFY2(r.code == 1, r.err.c_str());
    QVERIFY2(r.err.find("check step 3 `l2, l3 = sch.split(loop=l1, factors=[None, 8])`: equal") !=
                 std::string::npos,
             r.err.c_str());
    QVERIFY2(r.err.find("--check-each: step 4 `sch.testing_break_meaning()` changed what the module computes:\n"
                        "  function `main`: buffer") != std::string::npos,
             r.err.c_str());
    QVERIFY2(r.err.find("max abs error 1") != std::string::npos, r.err.c_str());

    std::string good = Write(tmp, "g.py",
                             "b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                             "l1, = sch.get_loops(block=b0)\n"
                             "l2, l3 = sch.split(loop=l1, factors=[None, 8])\n");
    Result ok = Batch({src, "--schedule", good, "--check-each"});
    QVERIFY2(ok.code == 0, ok.err.c_str());
  }

  // A function the interpreter will not run (here: over an iteration limit of 8) is checked
  // compiled, after against before, and a change is still found.
  void aFunctionTooLargeForTheInterpreterIsCheckedCompiled() {
    using Outcome = workbench::TransitionCheck::Outcome;
    workbench::EquivalenceOptions options;
    options.max_iterations = 8;
    std::vector<workbench::Transition> broken = Transitions(kAddOne, "TestingBreakMeaning");
    QCOMPARE(broken.size(), size_t(1));
    workbench::TransitionCheck c = workbench::CheckTransition(broken[0], options);
    QVERIFY2(c.outcome == Outcome::kChanged, c.lines.empty() ? "" : c.lines[0].c_str());
    QVERIFY2(c.changes[0].find("against the compiled function before it") != std::string::npos, c.changes[0].c_str());

    std::vector<workbench::Transition> good = Transitions(kAddOne, "ConvertBlocksToOpaque, LowerOpaqueBlock");
    QVERIFY(!good.empty());
    for (const auto& t : good) {
      workbench::TransitionCheck ok = workbench::CheckTransition(t, options);
      QVERIFY2(ok.outcome == Outcome::kEqual, ok.lines[0].c_str());
      QVERIFY2(ok.lines[0].find("against the compiled function before it") != std::string::npos, ok.lines[0].c_str());
    }
    // Through a cache, as CheckTransitions runs a sequence: each snapshot is built once (the
    // module after the first pass is the module before the second).
    QCOMPARE(good.size(), size_t(2));
    QVERIFY(good[0].after.same_as(good[1].before));
    workbench::CompiledCache cache;
    for (const auto& t : good) {
      QVERIFY(workbench::CheckTransition(t, options, &cache).outcome == Outcome::kEqual);
    }
    QCOMPARE(cache.builds(), 3);

    // Without the fallback it is only skipped, with the interpreter's reason.
    options.compiled_fallback = false;
    c = workbench::CheckTransition(broken[0], options);
    QVERIFY(c.outcome == Outcome::kSkipped);
  }

  void checkEachNeedsSomethingToCheck() {
    QTemporaryDir tmp;
    std::string src = Write(tmp, "k.py", kAddOne);
    Result r = Batch({src, "--emit", "tvmscript", "--check-each"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.find("--check-each needs --pipeline or --schedule") != std::string::npos, r.err.c_str());
  }
};

QTEST_APPLESS_MAIN(TstCheckEach)
#include "tst_check_each.moc"
