// The workbench window: the TVMScript editor with its problems list on the left, the pass
// pipeline explorer and the schedule pane in tabs on the right, the Build & Profile panel in a
// dock. Parsing and verification run off the UI thread as you type; builds and profiles too.
// The theme, the window's geometry, its docks and its splitters persist in QSettings.
#pragma once

#include <QFutureWatcher>
#include <QMainWindow>
#include <QTimer>

#include "workbench/session.h"

class QDockWidget;
class QListWidget;
class QMenu;
class QSplitter;
class QTabWidget;

namespace wb::app {

class BuildPanel;
class CodeEditor;
class PassExplorer;
class SchedulePane;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum class Theme { kLight, kDark };

  MainWindow();
  ~MainWindow() override;

  // Applies a theme to the whole application and remembers it for the next start.
  void SetTheme(Theme theme);
  Theme theme() const { return theme_; }
  // Geometry, dock layout and every named splitter's sizes (also saved when the window goes).
  void SaveWindowState() const;

  // Profiles the schedule's function at every step: undoes them all, then profiles and redoes
  // one step at a time (the chart gets one point a step; steps that leave the function as it
  // was are redone without a profile). Stops at the first failure or cancel, steps redone.
  void ProfileEveryStep();
  bool profilingEveryStep() const { return profile_every_step_; }

  // Loads a file (false, with a message box unless `quiet`, when it cannot be read).
  bool OpenFile(const QString& path, bool quiet = false);
  void SetText(const QString& text, const QString& path);
  // Re-analyzes now, on this thread (tests and "run" use this to avoid waiting).
  void AnalyzeNow();
  // Runs a pipeline and waits for it (main.cpp, tests); the UI's Run starts one instead.
  void RunPipeline(const QString& pipeline);
  // Starts a pipeline off the UI thread (false, with the reason shown, while one is running).
  bool StartPipeline(const QString& pipeline);
  void FormatDocument();

  // A workspace (JSON: the open file, the pipeline, the schedule recipe). Open returns false,
  // with the reason in the status bar (and a message box unless `quiet`), on any problem.
  bool SaveWorkspace(const QString& path);
  bool OpenWorkspace(const QString& path, bool quiet = false);
  // Reopens what was open when the last window closed; false when there is nothing to reopen.
  bool RestoreLastWorkspace();
  QStringList recentFiles() const;
  QMenu* recentMenu() const { return recent_menu_; }

  CodeEditor* editor() const { return editor_; }
  SchedulePane* schedule() const { return schedule_; }
  QTabWidget* tabs() const { return tabs_; }
  QListWidget* problems() const { return problems_; }
  PassExplorer* passes() const { return passes_; }
  BuildPanel* build() const { return build_; }
  QDockWidget* buildDock() const { return build_dock_; }
  QSplitter* mainSplitter() const { return main_splitter_; }
  QMenu* buildMenu() const { return build_menu_; }
  QMenu* viewMenu() const { return view_menu_; }
  const workbench::Session& session() const { return session_; }
  // True while a background analysis is pending or running.
  bool analysisPending() const;

 Q_SIGNALS:
  void analysisFinished();

 private:
  void ScheduleAnalysis();
  void RestoreWindowState();
  void OnBuildJobFinished();
  void ApplyAnalysis(workbench::Analysis analysis);
  void Open();
  void Save();
  void AddRecentFile(const QString& path);
  void RebuildRecentMenu();
  std::string WorkspaceJson(const QString& path) const;

  workbench::Session session_;
  QString path_;
  CodeEditor* editor_;
  QListWidget* problems_;
  PassExplorer* passes_;
  SchedulePane* schedule_;
  QTabWidget* tabs_;
  BuildPanel* build_;
  QDockWidget* build_dock_;
  QSplitter* main_splitter_;
  QMenu* recent_menu_;
  QMenu* build_menu_;
  QMenu* view_menu_;
  QAction* light_action_;
  QAction* dark_action_;
  Theme theme_ = Theme::kLight;
  bool profile_every_step_ = false;
  std::string scheduled_text_;  // the document text the schedule pane last took its module from
  QTimer debounce_;
  QFutureWatcher<workbench::Analysis> watcher_;
  bool rerun_after_current_ = false;
};

}  // namespace wb::app
