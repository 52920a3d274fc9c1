// The workbench window: the TVMScript editor with its problems list on the left, the pass
// pipeline explorer and the schedule pane in tabs on the right. Parsing and verification run
// off the UI thread as you type.
#pragma once

#include <QFutureWatcher>
#include <QMainWindow>
#include <QTimer>

#include "workbench/session.h"

class QListWidget;
class QMenu;
class QTabWidget;

namespace wb::app {

class CodeEditor;
class PassExplorer;
class SchedulePane;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  MainWindow();
  ~MainWindow() override;

  // Loads a file (false, with a message box unless `quiet`, when it cannot be read).
  bool OpenFile(const QString& path, bool quiet = false);
  void SetText(const QString& text, const QString& path);
  // Re-analyzes now, on this thread (tests and "run" use this to avoid waiting).
  void AnalyzeNow();
  void RunPipeline(const QString& pipeline);
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
  const workbench::Session& session() const { return session_; }
  // True while a background analysis is pending or running.
  bool analysisPending() const;

 Q_SIGNALS:
  void analysisFinished();

 private:
  void ScheduleAnalysis();
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
  QMenu* recent_menu_;
  std::string scheduled_text_;  // the document text the schedule pane last took its module from
  QTimer debounce_;
  QFutureWatcher<workbench::Analysis> watcher_;
  bool rerun_after_current_ = false;
};

}  // namespace wb::app
