#include "main_window.h"

#include <QAction>
#include <QApplication>
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
#include <QTabWidget>
#include <QTemporaryFile>
#include <QtConcurrent/QtConcurrent>

#include "code_editor.h"
#include "pass_explorer.h"
#include "schedule_pane.h"
#include "workbench/workspace.h"

namespace wb::app {

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
  auto* main = new QSplitter(Qt::Horizontal);
  main->addWidget(left);
  main->addWidget(tabs_);
  main->setStretchFactor(0, 1);
  main->setStretchFactor(1, 1);
  main->setSizes({560, 840});
  left->setSizes({700, 150});
  setCentralWidget(main);

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
  QMenu* passes = menuBar()->addMenu(tr("&Passes"));
  passes->addAction(tr("&Run pipeline"), QKeySequence(Qt::CTRL | Qt::Key_R), this,
                    [this] { RunPipeline(passes_->pipelineText()); });
  QMenu* sched = menuBar()->addMenu(tr("&Schedule"));
  sched->addAction(tr("&Undo step"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Z), this,
                   [this] { schedule_->undoButton()->click(); });
  sched->addAction(tr("&Redo step"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::SHIFT | Qt::Key_Z), this,
                   [this] { schedule_->redoButton()->click(); });

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
  connect(passes_, &PassExplorer::runRequested, this, &MainWindow::RunPipeline);

  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  if (!settings.contains("window/geometry")) resize(1400, 850);
}

MainWindow::~MainWindow() {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
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
  AnalyzeNow();
  const auto& run = session_.RunPipeline(pipeline.toStdString());
  passes_->ShowRun(run);
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
                                              tr("TVMScript (*.py);;All files (*)"));
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
