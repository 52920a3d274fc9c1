// The Passes tab's pass context, driven through its real widgets offscreen: the form has a group
// for every registered config key with an editor per field, an opt level and a table of the
// passes to disable or require; a run takes what the form says (an unroll config unrolls, a
// disabled pass does not run, opt level 0 fuses nothing), and the form shows the same settings
// as batch options. Edit and resume runs only the passes after the edited one. Relax
// well-formedness findings reach the editor's problems list.
#include <QCheckBox>
#include <QFile>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>
#include <QToolButton>

#include "code_editor.h"
#include "main_window.h"
#include "pass_control_form.h"
#include "pass_explorer.h"
#include "transform/pass_control.h"

using wb::app::MainWindow;
using wb::app::PassControlForm;
using wb::app::PassExplorer;

namespace {

const char* kScale = R"(# from tvm.script import tirx as T

@T.prim_func
def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        B[i] = A[i] * T.float32(2.0)
)";

const char* kTwoOps = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            lv = R.add(x, x)
            gv = R.multiply(lv, lv)
            R.output(gv)
        return gv
)";

QString WriteFile(const QTemporaryDir& dir, const QString& name, const char* text) {
  QString path = dir.filePath(name);
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(text);
  return path;
}

QStringList PassNames(PassExplorer* px) {
  QStringList out;
  for (const auto& s : px->lastRun().snapshots) out << QString::fromStdString(s.name);
  return out;
}

}  // namespace

class TestGuiPassControl : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  void theFormHasEveryRegisteredKeyAndField() {
    PassControlForm form;
    auto groups = form.findChildren<QGroupBox*>();
    auto options = wb::transform::PassConfigRegistry::Global().Options();
    QCOMPARE(groups.size(), qsizetype(options.size()));
    for (const auto* option : options) {
      for (const auto& field : option->fields) {
        QWidget* editor = form.fieldEditor(QString::fromStdString(option->key), QString::fromStdString(field.name));
        QVERIFY2(editor, field.name.c_str());
        bool typed = field.type == wb::transform::ParamType::kBool ? qobject_cast<QCheckBox*>(editor) != nullptr
                     : field.type == wb::transform::ParamType::kInt ? qobject_cast<QSpinBox*>(editor) != nullptr
                                                                     : true;
        QVERIFY2(typed, field.name.c_str());
      }
    }
    QCOMPARE(form.passTable()->rowCount(), int(wb::transform::PassRegistry::Global().Passes().size()));
    // Untouched, it sets nothing.
    QVERIFY(form.control().empty());
    QCOMPARE(form.commandLine()->text(), QString("Batch: (the defaults)"));
  }

  void editsBecomeTheControlAndItsBatchOptions() {
    PassControlForm form;
    QSignalSpy changed(&form, &PassControlForm::changed);
    auto* step = qobject_cast<QSpinBox*>(form.fieldEditor("tirx.UnrollLoop", "auto_max_step"));
    QVERIFY(step);
    step->setValue(16);
    QVERIFY(form.fieldReset("tirx.UnrollLoop", "auto_max_step")->isEnabled());
    auto* explicit_unroll = qobject_cast<QCheckBox*>(form.fieldEditor("tirx.UnrollLoop", "explicit_unroll"));
    QVERIFY(explicit_unroll && explicit_unroll->isChecked());
    form.optLevel()->setValue(3);
    QVERIFY(form.SetPassDisabled("RemoveNoOp", true));
    QVERIFY(form.SetPassRequired("Simplify", true));
    QVERIFY(!form.SetPassDisabled("NoSuchPass", true));
    QVERIFY(changed.count() >= 4);
    wb::transform::PassControl control = form.control();
    QCOMPARE(control.opt_level.value_or(-1), 3);
    QCOMPARE(control.disabled_passes, std::vector<std::string>{"RemoveNoOp"});
    QCOMPARE(control.required_passes, std::vector<std::string>{"Simplify"});
    QCOMPARE(control.config.size(), size_t(1));
    QCOMPARE(form.commandLine()->text(),
             QString("Batch: --opt-level 3 --pass-config 'tirx.UnrollLoop={\"auto_max_step\":16}' "
                     "--disable-pass RemoveNoOp --require-pass Simplify"));
    // Reset takes the field back to its default, which is no setting at all.
    QTest::mouseClick(form.fieldReset("tirx.UnrollLoop", "auto_max_step"), Qt::LeftButton);
    QCOMPARE(step->value(), 0);
    QVERIFY(form.control().config.empty());
    // The form shows a control it is given.
    form.SetControl(control);
    QCOMPARE(step->value(), 16);
    QVERIFY(form.control().ToJson() == control.ToJson());
    // The filter hides the passes that do not match.
    form.passFilter()->setText("noop");
    int shown = 0;
    for (int row = 0; row < form.passTable()->rowCount(); ++row) shown += !form.passTable()->isRowHidden(row);
    QCOMPARE(shown, 1);
  }

  void aRunTakesWhatTheFormSays() {
    QTemporaryDir tmp;
    MainWindow w;
    QVERIFY(w.OpenFile(WriteFile(tmp, "scale.py", kScale), true));
    PassExplorer* px = w.passes();
    PassControlForm* form = px->passContext();
    w.RunPipeline("UnrollLoop, RemoveNoOp");
    QCOMPARE(PassNames(px), (QStringList{"UnrollLoop", "RemoveNoOp"}));
    QVERIFY(!px->lastRun().snapshots[0].changed());

    qobject_cast<QSpinBox*>(form->fieldEditor("tirx.UnrollLoop", "auto_max_step"))->setValue(8);
    QVERIFY(form->SetPassDisabled("RemoveNoOp", true));
    w.RunPipeline("UnrollLoop, RemoveNoOp");
    QVERIFY2(px->lastRun().ok(), qPrintable(px->statusLabel()->text()));
    QCOMPARE(PassNames(px), QStringList{"UnrollLoop"});
    QVERIFY(px->lastRun().snapshots[0].changed());
    px->passList()->setCurrentRow(0);
    QVERIFY(px->beforePane()->toPlainText().contains("for i in range(8):"));
    QVERIFY(!px->afterPane()->toPlainText().contains("for i"));
    QVERIFY(px->afterPane()->toPlainText().contains("B[7] = A[7] * T.float32(2.0)"));
    QVERIFY2(px->statusLabel()->text().contains("under --pass-config"), qPrintable(px->statusLabel()->text()));
  }

  void optLevelZeroFusesNothing() {
    QTemporaryDir tmp;
    MainWindow w;
    QVERIFY(w.OpenFile(WriteFile(tmp, "two_ops.py", kTwoOps), true));
    PassExplorer* px = w.passes();
    const QString pipeline = "LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR";
    w.RunPipeline(pipeline);
    QVERIFY2(px->lastRun().ok(), qPrintable(px->statusLabel()->text()));
    QVERIFY(px->lastRun().snapshots.back().AfterText().find("fused_add_multiply") != std::string::npos);
    px->passContext()->optLevel()->setValue(0);
    w.RunPipeline(pipeline);
    QVERIFY2(px->lastRun().ok(), qPrintable(px->statusLabel()->text()));
    QVERIFY(px->lastRun().snapshots.back().AfterText().find("fused_") == std::string::npos);
  }

  void editAndResumeRunsOnlyTheRemainingPasses() {
    QTemporaryDir tmp;
    MainWindow w;
    const char* block = R"(# from tvm.script import tirx as T

@T.prim_func
def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("B"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] * T.float32(2.0)
)";
    QVERIFY(w.OpenFile(WriteFile(tmp, "scale.py", block), true));
    PassExplorer* px = w.passes();
    px->setPipelineText("ConvertBlocksToOpaque, LowerOpaqueBlock, UnrollLoop, RemoveNoOp");
    w.RunPipeline(px->pipelineText());
    QCOMPARE(px->passList()->count(), 4);
    px->passList()->setCurrentRow(1);  // LowerOpaqueBlock
    QString after = px->afterPane()->toPlainText();
    QVERIFY(after.contains("B[i] = A[i] * T.float32(2.0)"));
    // A mistake in the edit is shown and nothing runs; the edit stays.
    px->afterPane()->setPlainText(QString(after).replace("A[i] *", "A[j] *"));
    QVERIFY(!px->ResumeFromSelected());
    QVERIFY2(px->statusLabel()->text().contains("undefined name 'j'"), qPrintable(px->statusLabel()->text()));
    QVERIFY(px->afterPane()->toPlainText().contains("A[j] *"));
    QVERIFY(!px->running());
    // A good edit: passes 3 and 4 run on it, the first two stay as they were.
    px->afterPane()->setPlainText(QString(after).replace("2.0", "3.0"));
    QSignalSpy finished(px, &PassExplorer::runFinished);
    QTest::mouseClick(px->resumeButton(), Qt::LeftButton);
    QVERIFY(finished.wait(20000));
    const auto& run = px->lastRun();
    QVERIFY2(run.ok(), qPrintable(px->statusLabel()->text()));
    QCOMPARE(run.resumed_after, 1);
    QCOMPARE(PassNames(px), (QStringList{"ConvertBlocksToOpaque", "LowerOpaqueBlock", "UnrollLoop", "RemoveNoOp"}));
    QCOMPARE(run.snapshots[2].index, 2);
    QVERIFY(run.snapshots[2].BeforeText().find("T.float32(3.0)") != std::string::npos);
    QVERIFY(run.snapshots[0].AfterText().find("T.float32(2.0)") != std::string::npos);
    QVERIFY2(px->statusLabel()->text().startsWith("Resumed after pass 2, edited: 4 passes"),
             qPrintable(px->statusLabel()->text()));
    QVERIFY(px->passList()->item(1)->text().contains("(edited after it)"));
  }

  void relaxFindingsAreProblemsInTheEditor() {
    QTemporaryDir tmp;
    MainWindow w;
    const char* impure = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y = R.add(x, x)
        z = R.memory.kill_tensor(x)
        return y
)";
    QVERIFY(w.OpenFile(WriteFile(tmp, "impure.py", impure), true));
    w.AnalyzeNow();
    QCOMPARE(w.problems()->count(), 1);
    QVERIFY2(w.problems()->item(0)->text().contains(
                 "impure call to relax.memory.kill_tensor inside a function annotated pure"),
             qPrintable(w.problems()->item(0)->text()));
    QCOMPARE(w.problems()->item(0)->data(Qt::UserRole).toInt(), 6);
  }
};

QTEST_MAIN(TestGuiPassControl)
#include "tst_gui_pass_control.moc"
