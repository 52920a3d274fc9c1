#include "main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTemporaryFile>
#include <QtConcurrent/QtConcurrent>

#include "build_panel.h"
#include "code_editor.h"
#include "frontend/load_module.h"
#include "go_menu.h"
#include "ir/structural_equal.h"
#include "pass_explorer.h"
#include "schedule_pane.h"
#include "workbench/workspace.h"

namespace wb::app {

namespace {

// Fusion takes a palette whole on every platform, so both themes look the same everywhere.
QPalette ThemePalette(MainWindow::Theme theme, QStyle* style) {
  if (theme == MainWindow::Theme::kLight) return style->standardPalette();
  QPalette p;
  const QColor window(45, 47, 51), base(33, 35, 38), text(220, 223, 228), disabled(120, 124, 130);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, disabled);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, QColor(255, 90, 90));
  p.setColor(QPalette::Light, QColor(70, 73, 78));
  p.setColor(QPalette::Midlight, QColor(58, 61, 66));
  p.setColor(QPalette::Mid, QColor(85, 88, 94));
  p.setColor(QPalette::Dark, QColor(25, 26, 28));
  p.setColor(QPalette::Shadow, QColor(10, 10, 10));
  p.setColor(QPalette::Highlight, QColor(52, 110, 190));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(90, 160, 240));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
    p.setColor(QPalette::Disabled, role, disabled);
  }
  return p;
}

}  // namespace

MainWindow::MainWindow() {
  setWindowTitle(tr("TVM Workbench"));
  editor_ = new CodeEditor;
  problems_ = new QListWidget;
  passes_ = new PassExplorer;
  schedule_ = new SchedulePane;
  tabs_ = new QTabWidget;
  tabs_->addTab(passes_, tr("Passes"));
  tabs_->addTab(schedule_, tr("Schedule"));

  auto* left = new QSplitter(Qt::Vertical);
  left->addWidget(editor_);
  left->addWidget(problems_);
  left->setStretchFactor(0, 4);
  left->setObjectName("editorSplitter");
  auto* main = new QSplitter(Qt::Horizontal);
  main->setObjectName("mainSplitter");
  main_splitter_ = main;
  main->addWidget(left);
  main->addWidget(tabs_);
  main->setStretchFactor(0, 1);
  main->setStretchFactor(1, 1);
  main->setSizes({560, 840});
  left->setSizes({700, 150});
  setCentralWidget(main);

  build_ = new BuildPanel;
  build_->SetSchedule(&schedule_->session());
  build_dock_ = new QDockWidget(tr("Build & Profile"), this);
  build_dock_->setObjectName("buildDock");
  build_dock_->setWidget(build_);
  addDockWidget(Qt::BottomDockWidgetArea, build_dock_);
  // Results, chart and views side by side under the editor; stacked when docked at a side.
  auto orient = [this](Qt::DockWidgetArea area) {
    bool side = area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea;
    build_->splitter()->setOrientation(side ? Qt::Vertical : Qt::Horizontal);
    // The table has seven columns: it gets the widest share side by side.
    build_->splitter()->setSizes(side ? QList<int>{160, 220, 280} : QList<int>{500, 460, 440});
  };
  orient(Qt::BottomDockWidgetArea);
  connect(build_dock_, &QDockWidget::dockLocationChanged, this, orient);
  connect(build_, &BuildPanel::sourceLocationActivated, this,
          [this](int line, int column) { editor_->GoTo(line, column); });
  connect(build_, &BuildPanel::jobFinished, this, &MainWindow::OnBuildJobFinished);

  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::Open);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  connect(recent_menu_, &QMenu::aboutToShow, this, &MainWindow::RebuildRecentMenu);
  file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::Save);
  file->addSeparator();
  file->addAction(tr("Open &Workspace..."), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Open workspace"), QString(),
                                                tr("Workspaces (*.json);;All files (*)"));
    if (!path.isEmpty()) OpenWorkspace(path);
  });
  file->addAction(tr("Save Workspace &As..."), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Save workspace"), QString(),
                                                tr("Workspaces (*.json)"));
    if (!path.isEmpty()) SaveWorkspace(path);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(tr("&Format (canonical TVMScript)"),
                  QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I), this,
                  &MainWindow::FormatDocument);
  InstallGoMenu(this, editor_);
  QMenu* passes = menuBar()->addMenu(tr("&Passes"));
  passes->addAction(tr("&Run pipeline"), QKeySequence(Qt::CTRL | Qt::Key_R), this,
                    [this] { StartPipeline(passes_->pipelineText()); });
  passes->addAction(tr("&Cancel pipeline"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Period),
                    passes_, &PassExplorer::Cancel);
  QMenu* sched = menuBar()->addMenu(tr("&Schedule"));
  sched->addAction(tr("&Undo step"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Z), this,
                   [this] { schedule_->undoButton()->click(); });
  sched->addAction(tr("&Redo step"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::SHIFT | Qt::Key_Z), this,
                   [this] { schedule_->redoButton()->click(); });
  build_menu_ = menuBar()->addMenu(tr("&Build"));
  build_menu_->addAction(tr("&Build"), QKeySequence(Qt::CTRL | Qt::Key_B), this, [this] {
    build_dock_->show();
    build_->Build();
  });
  build_menu_->addAction(tr("&Run and check"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R), this,
                         [this] {
                           build_dock_->show();
                           build_->Run();
                         });
  build_menu_->addAction(tr("&Profile"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), this, [this] {
    build_dock_->show();
    build_->Profile();
  });
  build_menu_->addAction(tr("Profile &every schedule step"),
                         QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::ALT | Qt::Key_P), this,
                         &MainWindow::ProfileEveryStep);
  build_menu_->addAction(tr("&Cancel"), QKeySequence(Qt::CTRL | Qt::Key_Period), this, [this] {
    profile_every_step_ = false;
    build_->Cancel();
  });
  view_menu_ = menuBar()->addMenu(tr("&View"));
  QMenu* theme = view_menu_->addMenu(tr("&Theme"));
  auto* themes = new QActionGroup(this);
  light_action_ = theme->addAction(tr("&Light"), this, [this] { SetTheme(Theme::kLight); });
  dark_action_ = theme->addAction(tr("&Dark"), this, [this] { SetTheme(Theme::kDark); });
  for (QAction* a : {light_action_, dark_action_}) {
    a->setCheckable(true);
    themes->addAction(a);
  }
  QAction* toggle = build_dock_->toggleViewAction();
  toggle->setText(tr("Build && &Profile panel"));
  toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
  view_menu_->addAction(toggle);

  debounce_.setSingleShot(true);
  debounce_.setInterval(250);
  connect(&debounce_, &QTimer::timeout, this, &MainWindow::ScheduleAnalysis);
  // Highlighting changes formats, which Qt also reports as a text change: only real edits count.
  connect(editor_, &QPlainTextEdit::textChanged, this, [this] {
    if (editor_->toPlainText().toStdString() != session_.text()) debounce_.start();
  });
  connect(&watcher_, &QFutureWatcher<workbench::Analysis>::finished, this, [this] {
    workbench::Analysis result = watcher_.result();
    if (rerun_after_current_) {
      rerun_after_current_ = false;
      ScheduleAnalysis();
      return;
    }
    ApplyAnalysis(std::move(result));
  });
  connect(problems_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    editor_->GoTo(item->data(Qt::UserRole).toInt(), item->data(Qt::UserRole + 1).toInt());
  });
  connect(passes_, &PassExplorer::runRequested, this, &MainWindow::StartPipeline);
  connect(passes_, &PassExplorer::runFinished, this,
          [this] { session_.AdoptRun(passes_->lastRun()); });
  passes_->SetDocument(editor_->document());

  SetTheme(QSettings().value("view/theme").toString() == "dark" ? Theme::kDark : Theme::kLight);
  RestoreWindowState();
}

void MainWindow::SetTheme(Theme theme) {
  theme_ = theme;
  QStyle* fusion = QStyleFactory::create("Fusion");
  if (fusion) QApplication::setStyle(fusion);
  QApplication::setPalette(ThemePalette(theme, QApplication::style()));
  (theme == Theme::kDark ? dark_action_ : light_action_)->setChecked(true);
  QSettings().setValue("view/theme", theme == Theme::kDark ? "dark" : "light");
}

void MainWindow::SaveWindowState() const {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  for (QSplitter* s : findChildren<QSplitter*>()) {
    if (!s->objectName().isEmpty()) settings.setValue("splitters/" + s->objectName(), s->saveState());
  }
}

void MainWindow::RestoreWindowState() {
  QSettings settings;
  if (!restoreGeometry(settings.value("window/geometry").toByteArray())) resize(1400, 900);
  // First start: the editor and the tabs keep most of the height.
  if (!restoreState(settings.value("window/state").toByteArray())) {
    resizeDocks({build_dock_}, {330}, Qt::Vertical);
  }
  for (QSplitter* s : findChildren<QSplitter*>()) {
    QByteArray state = settings.value("splitters/" + s->objectName()).toByteArray();
    if (!s->objectName().isEmpty() && !state.isEmpty()) s->restoreState(state);
  }
}

void MainWindow::ProfileEveryStep() {
  build_dock_->show();
  if (build_->busy()) return;
  while (schedule_->session().CanUndo()) schedule_->undoButton()->click();
  profile_every_step_ = build_->Profile();
}

void MainWindow::OnBuildJobFinished() {
  if (!profile_every_step_) return;
  const auto& run = build_->session().lastRun();
  const auto& built = build_->session().build();
  bool profiled = built && built->ok() && run && run->profiled && run->state == workbench::OutcomeState::kOk &&
                  run->step == static_cast<int>(schedule_->session().steps().size());
  if (!profiled) {
    profile_every_step_ = false;
    return;
  }
  // On to the next step that changes the function: a recipe loaded from a file has a step per
  // statement, and its lookups (get_sblock, get_loops) change nothing worth timing.
  while (schedule_->session().CanRedo()) {
    schedule_->redoButton()->click();
    const workbench::ScheduleStep& step = schedule_->session().steps().back();
    if (!ir::StructuralEqual(step.before, step.after)) {
      profile_every_step_ = build_->Profile();
      return;
    }
  }
  profile_every_step_ = false;
}

MainWindow::~MainWindow() {
  SaveWindowState();
  QSettings settings;
  if (!path_.isEmpty()) {
    try {
      settings.setValue("workspace/last", QString::fromStdString(WorkspaceJson(QString())));
    } catch (const std::exception&) {
      // Reopening the last workspace is a convenience: never let it break closing the window.
    }
  }
  watcher_.waitForFinished();
}

bool MainWindow::OpenFile(const QString& path, bool quiet) {
  if (frontend::IsONNXPath(path.toStdString())) {
    // An ONNX model opens as a new, unsaved TVMScript document: the imported module, printed.
    script::ParseResult imported = frontend::LoadModule(path.toStdString());
    if (!imported.ok()) {
      if (!quiet) {
        QMessageBox::warning(this, tr("Import ONNX model"),
                             QString::fromStdString(RenderDiagnostics(imported.diagnostics)));
      }
      return false;
    }
    SetText(QString::fromStdString(script::PrintModule(imported.module)), QString());
    AddRecentFile(path);
    return true;
  }
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (!quiet) QMessageBox::warning(this, tr("Open"), tr("Cannot read %1").arg(path));
    return false;
  }
  SetText(QString::fromUtf8(f.readAll()), path);
  AddRecentFile(path);
  return true;
}

void MainWindow::AddRecentFile(const QString& path) {
  if (path.startsWith(':')) return;  // bundled examples are always at hand
  QSettings settings;
  QStringList recent = settings.value("recentFiles").toStringList();
  QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > 10) recent.removeLast();
  settings.setValue("recentFiles", recent);
}

QStringList MainWindow::recentFiles() const {
  return QSettings().value("recentFiles").toStringList();
}

void MainWindow::RebuildRecentMenu() {
  recent_menu_->clear();
  QStringList recent = recentFiles();
  if (recent.isEmpty()) recent_menu_->addAction(tr("(none yet)"))->setEnabled(false);
  for (const QString& path : recent) {
    recent_menu_->addAction(path, this, [this, path] { OpenFile(path); });
  }
}

std::string MainWindow::WorkspaceJson(const QString& path) const {
  workbench::Workspace ws;
  ws.file = path_.startsWith(':') ? path_.toStdString()
                                  : QFileInfo(path_).absoluteFilePath().toStdString();
  ws.pipeline = passes_->pipelineText().toStdString();
  ws.schedule_func = schedule_->session().func_name();
  ws.recipe = schedule_->session().RecipeText();
  return workbench::WorkspaceToJson(ws, path.toStdString());
}

bool MainWindow::SaveWorkspace(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) {
    statusBar()->showMessage(tr("Cannot write %1").arg(path));
    return false;
  }
  f.write(QByteArray::fromStdString(WorkspaceJson(path)));
  statusBar()->showMessage(tr("saved workspace %1").arg(path));
  return true;
}

bool MainWindow::OpenWorkspace(const QString& path, bool quiet) {
  DiagnosticList diags;
  auto ws = workbench::LoadWorkspace(path.toStdString(), diags);
  auto fail = [&](const QString& why) {
    statusBar()->showMessage(why);
    if (!quiet) QMessageBox::warning(this, tr("Open workspace"), why);
    return false;
  };
  if (!ws) return fail(QString::fromStdString(diags[0].message));
  if (!OpenFile(QString::fromStdString(ws->file), true)) {
    return fail(tr("The workspace's file %1 cannot be read").arg(QString::fromStdString(ws->file)));
  }
  if (!ws->pipeline.empty()) passes_->setPipelineText(QString::fromStdString(ws->pipeline));
  if (!ws->schedule_func.empty())
    schedule_->SelectFunction(QString::fromStdString(ws->schedule_func));
  if (!ws->recipe.empty() && !schedule_->LoadRecipeText(QString::fromStdString(ws->recipe))) {
    return fail(
        tr("The workspace's schedule does not apply: %1").arg(schedule_->messageLabel()->text()));
  }
  statusBar()->showMessage(tr("opened workspace %1").arg(path));
  return true;
}

bool MainWindow::RestoreLastWorkspace() {
  QString json = QSettings().value("workspace/last").toString();
  if (json.isEmpty()) return false;
  QTemporaryFile f;
  if (!f.open()) return false;
  f.write(json.toUtf8());
  f.flush();
  return OpenWorkspace(f.fileName(), true);
}

void MainWindow::SetText(const QString& text, const QString& path) {
  path_ = path;
  setWindowTitle(tr("TVM Workbench — %1").arg(path));
  editor_->setPlainText(text);
  AnalyzeNow();
}

bool MainWindow::analysisPending() const { return debounce_.isActive() || watcher_.isRunning(); }

void MainWindow::ScheduleAnalysis() {
  if (watcher_.isRunning()) {
    rerun_after_current_ = true;
    return;
  }
  watcher_.setFuture(QtConcurrent::run(workbench::Analyze, editor_->toPlainText().toStdString(),
                                       path_.toStdString()));
}

void MainWindow::AnalyzeNow() {
  debounce_.stop();
  watcher_.waitForFinished();
  rerun_after_current_ = false;
  ApplyAnalysis(workbench::Analyze(editor_->toPlainText().toStdString(), path_.toStdString()));
}

void MainWindow::ApplyAnalysis(workbench::Analysis analysis) {
  // A result for text that has changed since is stale; the pending timer will redo it.
  if (analysis.text != editor_->toPlainText().toStdString()) return;
  session_.SetAnalysis(std::move(analysis));
  const DiagnosticList& diags = session_.analysis().diagnostics;
  problems_->clear();
  for (const auto& d : diags) {
    auto pos = d.span.start();
    auto* item = new QListWidgetItem(QStringLiteral("%1:%2: %3: %4")
                                         .arg(pos.line)
                                         .arg(pos.column)
                                         .arg(QString::fromUtf8(SeverityName(d.severity)))
                                         .arg(QString::fromStdString(d.message)));
    item->setData(Qt::UserRole, static_cast<int>(pos.line));
    item->setData(Qt::UserRole + 1, static_cast<int>(pos.column));
    item->setForeground(d.severity == Severity::kError ? QColor("#c0392b") : QColor("#b7950b"));
    problems_->addItem(item);
  }
  editor_->highlighter()->Refresh();
  editor_->SetDiagnostics(diags);
  build_->SetBlockedReason(session_.analysis().parse.ok()
                               ? QString()
                               : tr("Nothing to build: the document does not parse (see the problems)"));
  // The schedule follows the document while it parses; the recipe is replayed onto each new
  // version (the pane says so when it no longer applies).
  if (session_.analysis().parse.ok() && session_.text() != scheduled_text_) {
    scheduled_text_ = session_.text();
    schedule_->SetModule(session_.analysis().parse.module);
  }
  statusBar()->showMessage(diags.HasErrors() ? tr("%1 problem(s)").arg(diags.size())
                                             : tr("parsed and verified"));
  Q_EMIT analysisFinished();
}

void MainWindow::RunPipeline(const QString& pipeline) {
  passes_->WaitForRun();
  StartPipeline(pipeline);
  passes_->WaitForRun();
}

bool MainWindow::StartPipeline(const QString& pipeline) {
  if (passes_->running()) return passes_->StartRun(ir::IRModule(), pipeline);  // says why not
  AnalyzeNow();
  const script::ParseResult& parse = session_.analysis().parse;
  return passes_->StartRun(parse.ok() ? parse.module : ir::IRModule(), pipeline);
}

void MainWindow::FormatDocument() {
  AnalyzeNow();
  DiagnosticList diags;
  auto text = session_.Formatted(diags);
  if (!text) {
    statusBar()->showMessage(QString::fromStdString(diags[0].message));
    return;
  }
  editor_->setPlainText(QString::fromStdString(*text));
  AnalyzeNow();
}

void MainWindow::Open() {
  QString path = QFileDialog::getOpenFileName(this, tr("Open TVMScript"), QString(),
                                              tr("TVMScript (*.py);;ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) OpenFile(path);
}

void MainWindow::Save() {
  QString path = path_;
  if (path.isEmpty() || path.startsWith(':')) {
    path = QFileDialog::getSaveFileName(this, tr("Save TVMScript"), QString(), tr("*.py"));
    if (path.isEmpty()) return;
  }
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) {
    QMessageBox::warning(this, tr("Save"), tr("Cannot write %1").arg(path));
    return;
  }
  f.write(editor_->toPlainText().toUtf8());
  path_ = path;
  statusBar()->showMessage(tr("saved %1").arg(path));
}

}  // namespace wb::app
