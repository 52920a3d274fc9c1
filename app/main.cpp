// The `workbench` executable. `--batch` runs the headless core and never creates a Qt
// application (so it needs no display); otherwise the desktop application opens FILE, or the
// bundled matmul example (or a workspace .json, or what was open last).
#include <QApplication>
#include <iostream>
#include <string>
#include <vector>

#include "main_window.h"
#include "pass_explorer.h"
#include "workbench/batch.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--batch") {
    args.erase(args.begin());
    return wb::workbench::RunBatch(args, std::cout, std::cerr);
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName("workbench");
  QApplication::setApplicationName("workbench");
  wb::app::MainWindow window;
  // No argument: what was open last time (file, pipeline, schedule), else the bundled example.
  if (!args.empty()) {
    QString file = QString::fromStdString(args[0]);
    bool ok = file.endsWith(".json") ? window.OpenWorkspace(file) : window.OpenFile(file);
    if (!ok) return 2;
  } else if (!window.RestoreLastWorkspace() &&
             !window.OpenFile(QStringLiteral(":/examples/matmul.py"))) {
    return 2;
  }
  // Open on something to look at: the default pipeline over the document.
  window.RunPipeline(window.passes()->pipelineText());
  window.show();
  return app.exec();
}
