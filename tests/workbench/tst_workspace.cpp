// Workspace files (JSON) and the "changed functions only" filter of the pass view.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "script/tvmscript.h"
#include "transform/instrument.h"
#include "transform/registry.h"
#include "workbench/changed_functions.h"
#include "workbench/workspace.h"

using namespace wb;
using namespace wb::workbench;

class TestWorkspace : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void roundTripWithARelativeFile() {
    QTemporaryDir dir;
    std::string module = dir.filePath("kernels/matmul.py").toStdString();
    std::string path = dir.filePath("matmul.workbench.json").toStdString();
    Workspace ws{module, "LowerInitBlock, RemoveNoOp", "main", "b0 = sch.get_sblock(name=\"C\")\n",
                 {{"relu", "b0 = sch.get_sblock(name=\"R\")\n"}}};
    QVERIFY(!SaveWorkspace(ws, path).HasErrors());
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    QVERIFY2(text.contains("\"file\": \"kernels/matmul.py\""), text.constData());
    DiagnosticList diags;
    auto back = LoadWorkspace(path, diags);
    QVERIFY(back);
    QCOMPARE(back->file, module);
    QCOMPARE(back->pipeline, ws.pipeline);
    QCOMPARE(back->schedule_func, ws.schedule_func);
    QCOMPARE(back->recipe, ws.recipe);
    QVERIFY(back->other_recipes == ws.other_recipes);
  }

  void withoutAWorkspacePathTheFileStaysAbsolute() {
    Workspace ws{"/abs/m.py", "", "", ""};
    QVERIFY(QString::fromStdString(WorkspaceToJson(ws, "")).contains("\"file\": \"/abs/m.py\""));
  }

  void badFilesAreMessages() {
    DiagnosticList d1;
    QVERIFY(!WorkspaceFromJson("not json", "w.json", d1));
    QVERIFY(QString::fromStdString(d1[0].message).contains("not a workspace file"));
    DiagnosticList d2;
    QVERIFY(!WorkspaceFromJson(R"({"file": 3})", "w.json", d2));
    QVERIFY(QString::fromStdString(d2[0].message).contains("\"file\" must be a string"));
    DiagnosticList d3;
    QVERIFY(!WorkspaceFromJson(R"({"version": 99})", "w.json", d3));
    QVERIFY(QString::fromStdString(d3[0].message).contains("newer"));
    DiagnosticList d4;
    QVERIFY(!WorkspaceFromJson(R"({"schedule": "x"})", "w.json", d4));
    DiagnosticList d7;
    QVERIFY(!WorkspaceFromJson(R"({"schedule": {"others": {"f": 1}}})", "w.json", d7));
    QVERIFY(QString::fromStdString(d7[0].message).contains("\"f\" must be a string"));
    DiagnosticList d5;
    QVERIFY(!LoadWorkspace("/nonexistent/w.json", d5));
    QVERIFY(QString::fromStdString(d5[0].message).contains("cannot read"));
    // Bundled resources keep their ":/" path.
    DiagnosticList d6;
    auto ws = WorkspaceFromJson(R"({"file": ":/examples/matmul.py"})", "/tmp/w.json", d6);
    QVERIFY(ws);
    QCOMPARE(ws->file, std::string(":/examples/matmul.py"));
  }

  void changedFunctionsOfAPass() {
    const char* text = R"(# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def reduce(A: T.Buffer((8,), "float32"), B: T.Buffer((1,), "float32")):
        for k in range(8):
            with T.sblock("B"):
                vk = T.axis.reduce(8, k)
                with T.init():
                    B[0] = T.float32(0.0)
                B[0] = B[0] + A[vk]

    @T.prim_func
    def copy(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i]
)";
    script::ParseResult parsed = script::Parse(text, "m.py");
    QVERIFY2(parsed.ok(), RenderDiagnostics(parsed.diagnostics).c_str());
    DiagnosticList diags;
    auto pass = transform::BuildPipeline("LowerInitBlock", diags);
    QVERIFY(pass);
    auto run = transform::RunPipeline(*pass, parsed.module);
    QVERIFY(run.ok());
    auto changed = ChangedFunctions(run.snapshots[0].before, run.snapshots[0].after);
    QCOMPARE(changed, std::vector<std::string>{"reduce"});
    ir::IRModule only = OnlyFunctions(run.snapshots[0].after, changed);
    QCOMPARE(only->functions.size(), size_t(1));
    std::string printed = script::PrintModule(only);
    QVERIFY(QString::fromStdString(printed).contains("def reduce("));
    QVERIFY(!QString::fromStdString(printed).contains("def copy("));
    QVERIFY(ChangedFunctions(parsed.module, parsed.module).empty());
  }
};

QTEST_APPLESS_MAIN(TestWorkspace)
#include "tst_workspace.moc"
