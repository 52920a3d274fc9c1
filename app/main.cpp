// The `workbench` executable. `--batch` runs the headless core and never creates a Qt
// application (so it needs no display); otherwise the desktop application opens FILE, or the
// bundled matmul example (or a workspace .json, or what was open last).
//
// `--screenshot PNG` grabs the window once it is up and exits (how the README's pictures are
// made, under xvfb-run): `--tab passes|schedule` picks the right-hand tab, and
// `--profile-every-step` first profiles each schedule step so the build panel has its chart.
#include <QApplication>
#include <QTabWidget>
#include <QTimer>
#include <iostream>
#include <string>
#include <vector>

#include "build_panel.h"
#include "main_window.h"
#include "pass_explorer.h"
#include "workbench/batch.h"

namespace {

struct GuiOptions {
  QString file;
  QString screenshot;
  QString tab;
  bool profile_every_step = false;
};

// False (with the reason on stderr) on an unknown option or a missing value.
bool ParseGuiOptions(const std::vector<std::string>& args, GuiOptions* options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](QString* out) {
      if (i + 1 >= args.size()) {
        std::cerr << "workbench: " << a << " needs a value\n";
        return false;
      }
      *out = QString::fromStdString(args[++i]);
      return true;
    };
    if (a == "--screenshot") {
      if (!value(&options->screenshot)) return false;
    } else if (a == "--tab") {
      if (!value(&options->tab)) return false;
      if (options->tab != "passes" && options->tab != "schedule") {
        std::cerr << "workbench: --tab takes 'passes' or 'schedule'\n";
        return false;
      }
    } else if (a == "--profile-every-step") {
      options->profile_every_step = true;
    } else if (a.rfind("--", 0) == 0 || !options->file.isEmpty()) {
      std::cerr << "workbench: unexpected argument '" << a
                << "' (usage: workbench [FILE|WORKSPACE.json] [--screenshot PNG [--tab passes|schedule]"
                   " [--profile-every-step]], or workbench --batch ...)\n";
      return false;
    } else {
      options->file = QString::fromStdString(a);
    }
  }
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
    return wb::workbench::RunBatch(args, std::cout, std::cerr);
  }
  GuiOptions options;
  if (!ParseGuiOptions(args, &options)) return 2;
  QApplication app(argc, argv);
  QApplication::setOrganizationName("workbench");
  QApplication::setApplicationName("workbench");
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
  window.show();
  if (!options.screenshot.isEmpty()) ScheduleScreenshot(window, options);
  return app.exec();
}
