// `--check-each` with `--pipeline` and `--schedule`, in process (driver::RunBatch): every pass
// snapshot and every schedule step runs against the one before it on seeded inputs, and the
// first that changes the numbers is named with its max error (exit 1). The pass that breaks meaning
// on purpose comes from tests/testing (TestingBreakMeaning), the schedule step is registered here,
// by the test: neither is in the production registry.
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <sstream>

#include "driver/driver.h"
#include "schedule/recipe.h"
#include "schedule/schedule.h"
#include "testing/testing_passes.h"

using namespace wb;

namespace {

schedule::RecipeMethodRegistrar broken_step(
    "testing_break_meaning",
    {{}, false, schedule::RecipeReturns::kNothing,
     [](schedule::Schedule& sch, schedule::RecipeArgs&) -> std::vector<schedule::RecipeRV> {
       sch.ReplaceFunc(transform::testing::AddOneToFloatStores(sch.mod()->Lookup("main").as_ref<tir::PrimFuncNode>()));
       return {};
     }},
    {"testing", "for testing --check-each: adds 1 to every float store", {}});

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

}  // namespace

class TstCheckEach : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void theBrokenPassIsNamed() {
    QTemporaryDir tmp;
    std::string src = Write(tmp, "k.py", transform::testing::kAddOneKernel);
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
    std::string src = Write(tmp, "k.py", transform::testing::kAddOneKernel);
    std::string recipe = Write(tmp, "r.py",
                               "b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                               "l1, = sch.get_loops(block=b0)\n"
                               "l2, l3 = sch.split(loop=l1, factors=[None, 8])\n"
                               "sch.testing_break_meaning()\n"
                               "sch.unroll(loop=l3)\n");
    Result r = Batch({src, "--schedule", recipe, "--check-each"});
    QVERIFY2(r.code == 1, r.err.c_str());
    QVERIFY2(r.err.find("check step 3 `l2, l3 = sch.split(loop=l1, factors=[None, 8])` main: equal") !=
                 std::string::npos,
             r.err.c_str());
    QVERIFY2(r.err.find("--check-each: step 4 `sch.testing_break_meaning()` changed what function `main` "
                        "computes") != std::string::npos,
             r.err.c_str());
    QVERIFY2(r.err.find("max abs error 1") != std::string::npos, r.err.c_str());

    std::string good = Write(tmp, "g.py",
                             "b0 = sch.get_sblock(name=\"B\", func_name=\"main\")\n"
                             "l1, = sch.get_loops(block=b0)\n"
                             "l2, l3 = sch.split(loop=l1, factors=[None, 8])\n");
    Result ok = Batch({src, "--schedule", good, "--check-each"});
    QVERIFY2(ok.code == 0, ok.err.c_str());
  }

  void checkEachNeedsSomethingToCheck() {
    QTemporaryDir tmp;
    std::string src = Write(tmp, "k.py", transform::testing::kAddOneKernel);
    Result r = Batch({src, "--emit", "tvmscript", "--check-each"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.find("--check-each needs --pipeline or --schedule") != std::string::npos, r.err.c_str());
  }
};

QTEST_APPLESS_MAIN(TstCheckEach)
#include "tst_check_each.moc"
