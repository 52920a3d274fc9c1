// The workbench window: the TVMScript editor with its problems list on the left, the pass
// pipeline explorer on the right. Parsing and verification run off the UI thread as you type.
#pragma once

#include <QFutureWatcher>
#include <QMainWindow>
#include <QTimer>

#include "workbench/session.h"

class QListWidget;

namespace wb::app {

class CodeEditor;
class PassExplorer;

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

  CodeEditor* editor() const { return editor_; }
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

  workbench::Session session_;
  QString path_;
  CodeEditor* editor_;
  QListWidget* problems_;
  PassExplorer* passes_;
  QTimer debounce_;
  QFutureWatcher<workbench::Analysis> watcher_;
  bool rerun_after_current_ = false;
};

}  // namespace wb::app
