#include "editor_analysis.h"

#include <QtConcurrent/QtConcurrent>

#include "lang/analysis_index.h"

namespace wb::app {

EditorAnalysis::EditorAnalysis(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<std::shared_ptr<const EditorSnapshot>>::finished, this,
          &EditorAnalysis::OnFinished);
}

EditorAnalysis::~EditorAnalysis() { watcher_.waitForFinished(); }

// SetText bumps the version only when the text changes, and every snapshot carries the version it
// was built from: comparing versions answers without comparing the whole text on every cursor move.
bool EditorAnalysis::upToDate() const { return latest_ && latest_->doc->version() == version_; }

void EditorAnalysis::SetText(const QString& text) {
  std::string utf8 = text.toStdString();
  if (utf8 == text_ && (latest_ || in_flight_)) return;
  text_ = std::move(utf8);
  ++version_;
  if (!in_flight_) Start();
}

lang::Document EditorAnalysis::NextDocument() const {
  if (!latest_) return lang::Document("editor.py", text_, version_);
  lang::Document next = *latest_->doc;
  next.ApplyChange(std::nullopt, text_, version_);
  return next;
}

std::shared_ptr<const EditorSnapshot> EditorAnalysis::Build(lang::Document doc) {
  auto snapshot = std::make_shared<EditorSnapshot>();
  auto owned = std::make_shared<lang::Document>(std::move(doc));
  try {
    owned->Parsed();
    lang::SymbolIndex::Of(*owned);
    snapshot->symbols = lang::ComputeDocumentSymbols(*owned);
  } catch (const std::exception&) {
    // The analyses answer from whatever parsed; a failure here only leaves the outline empty.
  }
  snapshot->doc = std::move(owned);
  return snapshot;
}

void EditorAnalysis::Start() {
  in_flight_ = true;
  watcher_.setFuture(QtConcurrent::run(&EditorAnalysis::Build, NextDocument()));
}

void EditorAnalysis::OnFinished() {
  // Current() may have taken this result already, and a signal of an earlier build may still
  // be queued while a newer one runs.
  if (!in_flight_ || !watcher_.future().isFinished()) return;
  in_flight_ = false;
  Publish(watcher_.result());
  if (!upToDate()) Start();
}

void EditorAnalysis::Publish(std::shared_ptr<const EditorSnapshot> snapshot) {
  if (latest_ && snapshot->doc->version() <= latest_->doc->version()) return;
  latest_ = std::move(snapshot);
  Q_EMIT snapshotReady();
}

std::shared_ptr<const EditorSnapshot> EditorAnalysis::Current() {
  if (in_flight_) {
    watcher_.waitForFinished();
    in_flight_ = false;
    Publish(watcher_.result());
  }
  if (!upToDate()) Publish(Build(NextDocument()));
  return latest_;
}

}  // namespace wb::app
