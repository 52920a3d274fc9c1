#include "main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
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
#include <QSaveFile>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTemporaryFile>
#include <QTextBlock>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include "build_panel.h"
#include "code_editor.h"
#include "find_bar.h"
#include "frontend/load_module.h"
#include "go_menu.h"
#include "ir/structural_equal.h"
#include "pass_explorer.h"
#include "schedule_pane.h"
#include "tune_panel.h"
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
  editor_ = new CodeEditor;
  find_bar_ = new FindBar(editor_);
  problems_ = new QListWidget;
  passes_ = new PassExplorer;
  schedule_ = new SchedulePane;
  tabs_ = new QTabWidget;
  tabs_->addTab(passes_, tr("Passes"));
  tabs_->addTab(schedule_, tr("Schedule"));

  auto* editor_pane = new QWidget;
  auto* editor_layout = new QVBoxLayout(editor_pane);
  editor_layout->setContentsMargins(0, 0, 0, 0);
  editor_layout->setSpacing(0);
  editor_layout->addWidget(editor_);
  editor_layout->addWidget(find_bar_);
  auto* left = new QSplitter(Qt::Vertical);
  left->addWidget(editor_pane);
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
  // Linked views: the cursor on a binding (or in a PrimFunc) shows its kernel in the schedule tree
  // and its lines in the build's views; the cursor on a line of those views marks its bindings.
  connect(editor_, &QPlainTextEdit::cursorPositionChanged, this, [this] {
    if (build_dock_->isHidden() || !build_->session().build()) return;
    editor_->SetLinkedLines({});
    QString kernel = build_->LinkDocumentLine(editor_->textCursor().blockNumber() + 1);
    if (!kernel.isEmpty()) schedule_->ShowKernel(kernel);
  });
  connect(build_, &BuildPanel::viewLineLinked, this,
          [this](const QString& kernel, const QList<int>& lines) {
            editor_->SetLinkedLines(lines);
            schedule_->ShowKernel(kernel);
          });
  tune_ = new TunePanel;
  build_->views()->addTab(tune_, tr("Tune"));
  // The best schedule found (or any record) continues by hand in the schedule pane.
  connect(tune_, &TunePanel::openSchedule, this, [this](const QString& function, const QString& recipe) {
    schedule_->SelectFunction(function);
    if (schedule_->LoadRecipeText(recipe)) tabs_->setCurrentWidget(schedule_);
  });

  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&New"), QKeySequence::New, this, [this] {
    if (MaybeSave()) NewDocument();
  });
  file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::Open);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  connect(recent_menu_, &QMenu::aboutToShow, this, &MainWindow::RebuildRecentMenu);
  file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::Save);
  file->addAction(tr("Save &As..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this,
                  &MainWindow::SaveAs);
  file->addSeparator();
  file->addAction(tr("Open &Workspace..."), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Open workspace"), QString(),
                                                tr("Workspaces (*.json);;All files (*)"));
    if (!path.isEmpty() && MaybeSave()) OpenWorkspace(path);
  });
  file->addAction(tr("Save Workspace &As..."), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Save workspace"), QString(),
                                                tr("Workspaces (*.json)"));
    if (!path.isEmpty()) SaveWorkspace(path);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(tr("&Find..."), QKeySequence(Qt::CTRL | Qt::Key_F), find_bar_, &FindBar::ShowFind);
  edit->addAction(tr("&Replace..."), QKeySequence(Qt::CTRL | Qt::Key_H), find_bar_,
                  &FindBar::ShowReplace);
  edit->addAction(tr("Find &Next"), QKeySequence(Qt::Key_F3), find_bar_, &FindBar::FindNext);
  edit->addAction(tr("Find &Previous"), QKeySequence(Qt::SHIFT | Qt::Key_F3), find_bar_,
                  &FindBar::FindPrevious);
  edit->addSeparator();
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
  build_menu_->addAction(tr("&Tune"), this, [this] {
    build_dock_->show();
    build_->views()->setCurrentWidget(tune_);
    tune_->Tune();
  });
  build_menu_->addAction(tr("&Cancel"), QKeySequence(Qt::CTRL | Qt::Key_Period), this, [this] {
    profile_every_step_ = false;
    build_->Cancel();
    tune_->Cancel();
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
  connect(editor_->document(), &QTextDocument::modificationChanged, this, [this](bool modified) {
    setWindowModified(modified);
    // Back to the saved text (undone to it, or saved): there is nothing left to recover.
    if (!modified) {
      autosave_.stop();
      recovery_.Remove();
    }
  });
  autosave_.setSingleShot(true);
  autosave_.setInterval(kAutosaveDelayMs);
  connect(&autosave_, &QTimer::timeout, this, &MainWindow::Autosave);
  connect(editor_->document(), &QTextDocument::contentsChanged, this, [this] {
    if (editor_->document()->isModified()) autosave_.start();
  });
  UpdateTitle();
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
  // A window that goes with unsaved changes it did not ask about (the application was told to
  // quit without closing it) keeps its recovery copy for the next start; Autosave brings the
  // copy up to date first.
  if (documentModified()) {
    Autosave();
  } else {
    recovery_.Remove();
  }
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
    editor_->document()->setModified(true);  // never written anywhere yet: quitting must ask
    UpdateTitle();
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
    recent_menu_->addAction(path, this, [this, path] {
      if (MaybeSave()) OpenFile(path);
    });
  }
}

std::string MainWindow::WorkspaceJson(const QString& path) const {
  workbench::Workspace ws;
  ws.file = path_.startsWith(':') ? path_.toStdString()
                                  : QFileInfo(path_).absoluteFilePath().toStdString();
  ws.pipeline = passes_->pipelineText().toStdString();
  ws.schedule_func = schedule_->session().func_name();
  ws.recipe = schedule_->session().RecipeText();
  ws.other_recipes = schedule_->session().OtherRecipes();
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
  // The other functions' schedules first, each replayed with that function selected.
  for (const auto& [func, recipe] : ws->other_recipes) {
    schedule_->SelectFunction(QString::fromStdString(func));
    if (schedule_->session().func_name() != func ||
        !schedule_->LoadRecipeText(QString::fromStdString(recipe))) {
      return fail(tr("The workspace's schedule of %1 does not apply: %2")
                      .arg(QString::fromStdString(func), schedule_->messageLabel()->text()));
    }
  }
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
  recovery_.SetDocument(path);
  editor_->setPlainText(text);
  editor_->document()->setModified(false);
  autosave_.stop();
  UpdateTitle();
  AnalyzeNow();
}

void MainWindow::UpdateTitle() {
  // [*] is where Qt shows the modified mark (setWindowModified).
  setWindowTitle(tr("TVM Workbench — %1[*]").arg(path_.isEmpty() ? tr("untitled") : path_));
  setWindowModified(documentModified());
}

bool MainWindow::documentModified() const { return editor_->document()->isModified(); }

bool MainWindow::MaybeSave() {
  if (!documentModified()) return true;
  QMessageBox box(QMessageBox::Warning, tr("Unsaved changes"),
                  tr("%1 has unsaved changes.")
                      .arg(path_.isEmpty() ? tr("The untitled document") : QFileInfo(path_).fileName()),
                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
  box.setObjectName("savePrompt");
  box.setInformativeText(tr("Save them before going on?"));
  box.setDefaultButton(QMessageBox::Save);
  box.setEscapeButton(QMessageBox::Cancel);
  switch (box.exec()) {
    case QMessageBox::Save:
      return Save();
    case QMessageBox::Discard:
      // The user let the changes go: the recovery copy goes with them.
      autosave_.stop();
      recovery_.Remove();
      return true;
    default:
      return false;
  }
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!MaybeSave()) {
    event->ignore();
    return;
  }
  // Discarded: the window goes without its changes, and without a recovery copy of them.
  editor_->document()->setModified(false);
  event->accept();
}

void MainWindow::NewDocument() {
  SetText(QString(), QString());
  statusBar()->showMessage(tr("new document"));
}

void MainWindow::Autosave() {
  autosave_.stop();
  if (!documentModified()) return;
  if (!recovery_.Write(editor_->toPlainText())) {
    statusBar()->showMessage(tr("Cannot write the recovery copy %1").arg(recovery_.file()));
  }
}

QString MainWindow::DescribeRecovery(const RecoveryFile& recovered) const {
  const QStringList lines = recovered.text.split('\n');
  const qsizetype count = recovered.text.count('\n') + (recovered.text.endsWith('\n') ? 0 : 1);
  QString size = count == 1 ? tr("1 line") : tr("%1 lines").arg(count);
  if (recovered.document.isEmpty()) return tr("An untitled document of %1.").arg(size);
  QFile f(recovered.document);
  if (!f.open(QIODevice::ReadOnly)) {
    return tr("%1; the file %2 no longer exists or cannot be read.").arg(size, recovered.document);
  }
  const QStringList saved = QString::fromUtf8(f.readAll()).split('\n');
  // The changed lines lie between the longest common head and tail of the two versions.
  qsizetype head = 0;
  while (head < lines.size() && head < saved.size() && lines[head] == saved[head]) ++head;
  qsizetype tail = 0;
  while (tail < lines.size() - head && tail < saved.size() - head &&
         lines[lines.size() - 1 - tail] == saved[saved.size() - 1 - tail]) {
    ++tail;
  }
  if (head == lines.size() && head == saved.size()) {
    return tr("%1, the same as the saved file.").arg(size);
  }
  qsizetype first = head + 1, last = std::max(head + 1, lines.size() - tail);
  QString where = first == last ? tr("line %1 differs").arg(first)
                                : tr("lines %1-%2 differ").arg(first).arg(last);
  return tr("%1; %2 from the saved file (the recovered text is under Show Details).").arg(size, where);
}

bool MainWindow::OfferRecovery() {
  for (const RecoveryFile& r : recovery_.Pending()) {
    QMessageBox box(this);
    box.setObjectName("recoveryPrompt");
    box.setIcon(QMessageBox::Warning);
    box.setWindowTitle(tr("Recover unsaved changes"));
    box.setText(tr("The workbench did not close normally. Unsaved changes to %1, copied at %2, "
                   "can be recovered.")
                    .arg(r.document.isEmpty() ? tr("an untitled document") : r.document,
                         r.written.toLocalTime().toString("yyyy-MM-dd hh:mm:ss")));
    box.setInformativeText(DescribeRecovery(r));
    box.setDetailedText(r.text);
    QPushButton* recover = box.addButton(tr("&Recover"), QMessageBox::AcceptRole);
    QPushButton* discard = box.addButton(tr("&Discard"), QMessageBox::DestructiveRole);
    QPushButton* later = box.addButton(tr("&Keep for later"), QMessageBox::RejectRole);
    box.setDefaultButton(recover);
    box.setEscapeButton(later);
    box.exec();
    if (box.clickedButton() == discard) {
      Recovery::Discard(r);
      continue;
    }
    if (box.clickedButton() != recover || !MaybeSave()) continue;
    SetText(r.text, r.document);
    // The copy is this process's now: written again with its pid, so a second workbench
    // started meanwhile does not offer it, and removed when the document is saved.
    recovery_.Adopt(r);
    editor_->document()->setModified(true);
    Autosave();
    statusBar()->showMessage(tr("recovered unsaved changes to %1")
                                 .arg(r.document.isEmpty() ? tr("an untitled document") : r.document));
    return true;
  }
  return false;
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
  build_->SetDocumentModule(session_.analysis().parse.ok() ? session_.analysis().parse.module : ir::IRModule());
  tune_->SetModule(session_.analysis().parse.ok() ? session_.analysis().parse.module : ir::IRModule());
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
  // One edit that replaces only what changed (the longest common head and tail stay), so that
  // undo takes the whole format back in one step and a cursor outside the change stays put.
  const QString before = editor_->toPlainText();
  const QString after = QString::fromStdString(*text);
  if (before == after) {
    statusBar()->showMessage(tr("already canonical"));
    return;
  }
  qsizetype head = 0;
  while (head < before.size() && head < after.size() && before[head] == after[head]) ++head;
  qsizetype tail = 0;
  while (tail < before.size() - head && tail < after.size() - head &&
         before[before.size() - 1 - tail] == after[after.size() - 1 - tail]) {
    ++tail;
  }
  QTextCursor cursor = editor_->textCursor();
  const int position = cursor.position();
  const int line = cursor.blockNumber();
  const int column = cursor.positionInBlock();
  QTextCursor edit(editor_->document());
  edit.beginEditBlock();
  edit.setPosition(static_cast<int>(head));
  edit.setPosition(static_cast<int>(before.size() - tail), QTextCursor::KeepAnchor);
  edit.insertText(after.mid(head, after.size() - head - tail));
  edit.endEditBlock();
  // A cursor inside the rewritten part keeps its line and column (as near as the line allows).
  if (position > head && position < before.size() - tail) {
    QTextBlock block = editor_->document()->findBlockByNumber(
        std::min(line, editor_->document()->blockCount() - 1));
    QTextCursor placed(block);
    placed.setPosition(block.position() + std::min(column, block.length() - 1));
    editor_->setTextCursor(placed);
  }
  AnalyzeNow();
}

void MainWindow::Open() {
  QString path = QFileDialog::getOpenFileName(this, tr("Open TVMScript"), QString(),
                                              tr("TVMScript (*.py);;ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty() && MaybeSave()) OpenFile(path);
}

bool MainWindow::Save() {
  // A bundled example is read-only: saving it means choosing a file of one's own.
  if (path_.isEmpty() || path_.startsWith(':')) return SaveAs();
  return SaveTo(path_);
}

bool MainWindow::SaveAs() {
  QString start = path_.startsWith(':') ? QFileInfo(path_).fileName() : path_;
  QString path = QFileDialog::getSaveFileName(this, tr("Save TVMScript"), start,
                                              tr("TVMScript (*.py);;All files (*)"));
  return !path.isEmpty() && SaveTo(path);
}

bool MainWindow::SaveTo(const QString& path) {
  // Written to a temporary file and renamed over the old one: a failure half way (a full
  // disk) leaves the user's file as it was.
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(editor_->toPlainText().toUtf8()) < 0 || !f.commit()) {
    QMessageBox::warning(this, tr("Save"), tr("Cannot write %1: %2").arg(path, f.errorString()));
    return false;
  }
  if (path != path_) {
    path_ = path;
    recovery_.SetDocument(path);  // the old name's copy goes
    AddRecentFile(path);
  }
  editor_->document()->setModified(false);  // and with it the recovery copy
  UpdateTitle();
  statusBar()->showMessage(tr("saved %1").arg(path));
  return true;
}

}  // namespace wb::app
