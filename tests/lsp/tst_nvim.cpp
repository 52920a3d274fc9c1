// A real editor against workbench-lsp: Neovim's built-in LSP client (nvim --headless) opens a
// TVMScript file with an error, receives the diagnostic and asks for a hover. Skipped, with a
// message, where nvim is not installed.
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using json = nlohmann::json;

class TestNvim : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void diagnosticsAndHoverInNeovim() {
    QString nvim = QStandardPaths::findExecutable("nvim");
    if (nvim.isEmpty()) QSKIP("nvim is not installed (scripts/bootstrap installs Debian's neovim)");
    QTemporaryDir dir;
    QFile source(QString::fromUtf8(qgetenv("WB_SOURCE_DIR")) + "/resources/examples/matmul.py");
    QVERIFY(source.open(QIODevice::ReadOnly));
    QByteArray text = source.readAll();
    // A second function with an undefined name: the diagnostic; a hover on buffer A of the
    // first one (a function that does not parse has nothing to hover).
    text += "\n\n    @T.prim_func\n    def broken(X: T.Buffer((4,), \"float32\")):\n        X[0] = vq\n";
    int at = text.indexOf("A[vi, vk] * B");
    QVERIFY(at > 0);
    int line = text.left(at).count('\n');
    int column = at - (text.lastIndexOf('\n', at) + 1);
    int error_at = text.indexOf("vq");
    int error_line = text.left(error_at).count('\n');
    int error_column = error_at - (text.lastIndexOf('\n', error_at) + 1);
    QString file = dir.filePath("matmul.py");
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(text);
    out.close();

    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("WB_LSP_BIN", WB_LSP_BIN);
    env.insert("WB_FILE", file);
    env.insert("WB_OUT", dir.filePath("result.json"));
    env.insert("WB_LINE", QString::number(line));
    env.insert("WB_CHAR", QString::number(column));  // on the buffer A
    env.insert("HOME", dir.path());  // no user configuration
    p.setProcessEnvironment(env);
    p.start(nvim, {"--headless", "--clean", "-c", "luafile " + QString(WB_NVIM_SCRIPT)});
    QVERIFY(p.waitForFinished(60000));

    QFile result(dir.filePath("result.json"));
    QVERIFY2(result.open(QIODevice::ReadOnly), qPrintable(p.readAllStandardError()));
    json r = json::parse(result.readAll().toStdString());
    QVERIFY2(!r.contains("error"), r.dump().c_str());
    QVERIFY2(r["diagnostics"].is_array() && !r["diagnostics"].empty(), r.dump().c_str());
    const json& d = r["diagnostics"][0];
    QCOMPARE(d["lnum"].get<int>(), error_line);
    QCOMPARE(d["col"].get<int>(), error_column);
    QVERIFY(d["message"].get<std::string>().find("vq") != std::string::npos);
    std::string hover = r.value("hover", "");
    QVERIFY2(hover.find("(256, 256)") != std::string::npos, r.dump().c_str());
  }
};

QTEST_APPLESS_MAIN(TestNvim)
#include "tst_nvim.moc"
