// The `workbench` executable. `--batch` runs the headless core (core/driver, with its own option
// parser) and never creates a Qt application, so it needs no display; otherwise the desktop
// application opens FILE, or the bundled matmul example (or a workspace .json, or what was open
// last). The GUI's options are parsed by QCommandLineParser after QApplication, so Qt's own
// (`-platform offscreen`, `-style`, ...) work too.
//
// `--screenshot PNG` grabs the window once it is up and exits (how the README's pictures are
// made, under xvfb-run): `--tab passes|schedule` picks the right-hand tab, `--window-size WxH`
// the window's size, and
// `--profile-every-step` first profiles each schedule step so the build panel has its chart.
#include <QApplication>
#include <QCommandLineParser>
#include <QSize>
#include <QTabWidget>
#include <QTimer>
#include <iostream>
#include <string>
#include <vector>

#include "build_panel.h"
#include "driver/driver.h"
#include "main_window.h"
#include "pass_explorer.h"

namespace {

struct GuiOptions {
  QString file;
  QString screenshot;
  QString tab;
  QSize size;  // --window-size; empty: the remembered or default geometry
  bool profile_every_step = false;
};

const QCommandLineOption kScreenshot("screenshot", "Save a picture of the window to PNG, then exit.", "PNG");
const QCommandLineOption kTab("tab", "The right-hand tab to show: passes or schedule.", "TAB");
const QCommandLineOption kWindowSize("window-size", "Open the window at WIDTHxHEIGHT pixels.", "WxH");
const QCommandLineOption kProfileEveryStep("profile-every-step",
                                           "Profile each schedule step first (for --screenshot).");

void SetUp(QCommandLineParser* parser) {
  parser->setApplicationDescription(
      "The workbench: edit TVMScript, run pass pipelines, schedule TensorIR, build, run and profile.\n"
      "Headless: workbench --batch --help");
  parser->addHelpOption();
  parser->addVersionOption();
  parser->addPositionalArgument("file", "A TVMScript file or a workspace .json to open.", "[FILE|WORKSPACE.json]");
  parser->addOption(kScreenshot);
  parser->addOption(kTab);
  parser->addOption(kWindowSize);
  parser->addOption(kProfileEveryStep);
}

// False (with the reason on stderr) on an unknown option or a bad value.
bool ParseGuiOptions(QCommandLineParser& parser, const QStringList& arguments, GuiOptions* options) {
  if (!parser.parse(arguments)) {
    std::cerr << "workbench: " << parser.errorText().toStdString() << "\n" << parser.helpText().toStdString();
    return false;
  }
  options->screenshot = parser.value(kScreenshot);
  options->tab = parser.value(kTab);
  options->profile_every_step = parser.isSet(kProfileEveryStep);
  if (parser.isSet(kTab) && options->tab != "passes" && options->tab != "schedule") {
    std::cerr << "workbench: --tab takes 'passes' or 'schedule'\n";
    return false;
  }
  if (parser.isSet(kWindowSize)) {
    QStringList wh = parser.value(kWindowSize).split('x');
    bool w_ok = false, h_ok = false;
    if (wh.size() == 2) options->size = QSize(wh[0].toInt(&w_ok), wh[1].toInt(&h_ok));
    if (!w_ok || !h_ok || options->size.width() < 200 || options->size.height() < 200) {
      std::cerr << "workbench: --window-size takes WIDTHxHEIGHT in pixels, at least 200x200 "
                   "(got '" << parser.value(kWindowSize).toStdString() << "')\n";
      return false;
    }
  }
  const QStringList files = parser.positionalArguments();
  if (files.size() > 1) {
    std::cerr << "workbench: unexpected argument '" << files[1].toStdString() << "' (one FILE at most)\n";
    return false;
  }
  if (!files.isEmpty()) options->file = files[0];
  return true;
}

// Saves the window's picture when the scripted work is done, then quits.
void ScheduleScreenshot(wb::app::MainWindow& window, const GuiOptions& options) {
  auto grab = [&window, path = options.screenshot] {
    bool ok = window.grab().save(path);
    if (!ok) std::cerr << "workbench: cannot write " << path.toStdString() << "\n";
    QApplication::exit(ok ? 0 : 1);
  };
  if (options.profile_every_step) {
    window.ProfileEveryStep();
    if (window.profilingEveryStep()) {
      QObject::connect(window.build(), &wb::app::BuildPanel::jobFinished, &window, [&window, grab] {
        if (!window.profilingEveryStep()) QTimer::singleShot(300, &window, grab);
      });
      return;
    }
  }
  QTimer::singleShot(500, &window, grab);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--batch") {
    args.erase(args.begin());
    return wb::driver::RunBatch(args, std::cout, std::cerr);
  }
  QCoreApplication::setOrganizationName("workbench");
  QCoreApplication::setApplicationName("workbench");
  QCoreApplication::setApplicationVersion(QString::fromStdString(wb::driver::VersionText()).section(' ', 1));
  // Help and version need no display: answered before a QApplication would open one.
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h" || args[0] == "--version" || args[0] == "-v")) {
    QCommandLineParser parser;
    SetUp(&parser);
    if (args[0] == "--version" || args[0] == "-v") std::cout << wb::driver::VersionText() << "\n";
    else std::cout << parser.helpText().toStdString();
    return 0;
  }
  QApplication app(argc, argv);
  QCommandLineParser parser;
  SetUp(&parser);
  GuiOptions options;
  if (!ParseGuiOptions(parser, QApplication::arguments(), &options)) return 2;
  wb::app::MainWindow window;
  // No argument: what was open last time (file, pipeline, schedule), else the bundled example.
  if (!options.file.isEmpty()) {
    const QString& file = options.file;
    bool ok = file.endsWith(".json") ? window.OpenWorkspace(file) : window.OpenFile(file);
    if (!ok) return 2;
  } else if (!window.RestoreLastWorkspace() &&
             !window.OpenFile(QStringLiteral(":/examples/matmul.py"))) {
    return 2;
  }
  // Unsaved work that a previous run left behind (it crashed or was killed) is offered back.
  if (options.screenshot.isEmpty()) window.OfferRecovery();
  // Open on something to look at: the default pipeline over the document.
  window.RunPipeline(window.passes()->pipelineText());
  if (options.tab == "schedule") window.tabs()->setCurrentIndex(1);
  if (options.tab == "passes") window.tabs()->setCurrentIndex(0);
  if (options.size.isValid()) window.resize(options.size);
  window.show();
  if (!options.screenshot.isEmpty()) ScheduleScreenshot(window, options);
  return app.exec();
}
