// The workbench window: the TVMScript editor with its problems list on the left, the pass
// pipeline explorer and the schedule pane in tabs on the right, the Build & Profile panel in a
// dock. Parsing and verification run off the UI thread as you type; builds and profiles too.
// The theme, the window's geometry, its docks and its splitters persist in QSettings.
//
// The document is never lost: the title marks unsaved changes ([*]), anything that would
// replace or close a modified document asks to save, discard or cancel first, and the unsaved
// text is copied to a recovery file a few seconds after each change (recovery.h), offered back
// by the next start if this one ends without closing its window.
#pragma once

#include <QFutureWatcher>
#include <QMainWindow>
#include <QTimer>

#include "recovery.h"
#include "workbench/session.h"

class QDockWidget;
class QListWidget;
class QMenu;
class QSplitter;
class QTabWidget;

namespace wb::app {

class BuildPanel;
class CodeEditor;
class FindBar;
class PassExplorer;
class TunePanel;
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

  // Loads a file (false, with a message box unless `quiet`, when it cannot be read). It is
  // read as text and parsed, never run. Replaces the document without asking: the menu's
  // actions ask first (MaybeSave).
  bool OpenFile(const QString& path, bool quiet = false);
  // The document from now on: `text`, unmodified, saved to `path` ("" for an untitled one).
  void SetText(const QString& text, const QString& path);
  const QString& documentPath() const { return path_; }
  bool documentModified() const;

  // Before the document is replaced or closed: when it has unsaved changes, asks whether to
  // save them, discard them or cancel. True when the document may go (saved, discarded or
  // unmodified), false when the user cancelled or the save failed.
  bool MaybeSave();
  // An empty untitled document (after MaybeSave).
  void NewDocument();
  // Saves to the document's path, or asks for one (Save As) when it has none; false when not
  // saved. SaveTo writes to `path` and makes it the document's path.
  bool Save();
  bool SaveAs();
  bool SaveTo(const QString& path);
  // Offers, one at a time (newest first), the unsaved documents that a workbench which ended
  // without closing its window left behind, with what would be restored. Recover loads the
  // chosen one (as a modified document: nothing is written over the user's file until they
  // save); Discard removes the copy; Keep for later leaves it for the next start. True when a
  // document was recovered.
  bool OfferRecovery();
  Recovery& recovery() { return recovery_; }
  // Writes the recovery copy of a modified document now (the timer does it
  // kAutosaveDelayMs after the last change).
  void Autosave();
  // How long after the last change the recovery copy is written.
  static constexpr int kAutosaveDelayMs = 2000;
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
  FindBar* findBar() const { return find_bar_; }
  SchedulePane* schedule() const { return schedule_; }
  QTabWidget* tabs() const { return tabs_; }
  QListWidget* problems() const { return problems_; }
  PassExplorer* passes() const { return passes_; }
  BuildPanel* build() const { return build_; }
  // The Build & Profile panel's Tune tab.
  TunePanel* tune() const { return tune_; }
  QDockWidget* buildDock() const { return build_dock_; }
  QSplitter* mainSplitter() const { return main_splitter_; }
  QMenu* buildMenu() const { return build_menu_; }
  QMenu* viewMenu() const { return view_menu_; }
  const workbench::Session& session() const { return session_; }
  // True while a background analysis is pending or running.
  bool analysisPending() const;

 Q_SIGNALS:
  void analysisFinished();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void ScheduleAnalysis();
  void RestoreWindowState();
  void OnBuildJobFinished();
  void ApplyAnalysis(workbench::Analysis analysis);
  void Open();
  void UpdateTitle();
  // The recovery prompt's account of what would be restored, against the file on disk.
  QString DescribeRecovery(const RecoveryFile& recovered) const;
  void AddRecentFile(const QString& path);
  void RebuildRecentMenu();
  std::string WorkspaceJson(const QString& path) const;

  workbench::Session session_;
  QString path_;
  CodeEditor* editor_;
  FindBar* find_bar_;
  Recovery recovery_;
  QTimer autosave_;
  QListWidget* problems_;
  PassExplorer* passes_;
  SchedulePane* schedule_;
  QTabWidget* tabs_;
  BuildPanel* build_;
  TunePanel* tune_;
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
