// The language analysis of the editor's text (lang/analysis.h, the same answers the LSP
// server gives) kept as a parsed and indexed snapshot, rebuilt off the UI thread after each edit.
// Hover, highlights, navigation and completion are then look-ups in a snapshot, cheap enough
// for the UI thread; only parsing and indexing, the slow part, runs in the background.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <memory>
#include <string>
#include <vector>

#include "lang/analysis.h"

namespace wb::app {

struct EditorSnapshot {
  // Parsed and indexed before it is published, so that queries on it never write to it (a
  // Document computes its parse and index lazily, and is not safe to fill from two threads).
  std::shared_ptr<const lang::Document> doc;
  std::vector<lang::DocumentSymbol> symbols;
};

class EditorAnalysis : public QObject {
  Q_OBJECT

 public:
  explicit EditorAnalysis(QObject* parent = nullptr);
  ~EditorAnalysis() override;

  // The text changed: rebuilds in the background, one build at a time, the latest text winning.
  void SetText(const QString& text);
  // The snapshot of the latest text; waits for, or does, the build on this thread when the
  // background one lags behind (for explicit commands, which need the answer now).
  std::shared_ptr<const EditorSnapshot> Current();
  // The last finished snapshot, possibly of older text; null before the first.
  std::shared_ptr<const EditorSnapshot> latest() const { return latest_; }
  // Whether latest() is of the latest text (positions in it are valid in the editor).
  bool upToDate() const;

 Q_SIGNALS:
  // A snapshot was published (not necessarily of the latest text: see upToDate()).
  void snapshotReady();

 private:
  void Start();
  void OnFinished();
  void Publish(std::shared_ptr<const EditorSnapshot> snapshot);
  // The next document: the latest one changed to the latest text, so that it keeps its last
  // version that parsed (navigation keeps working while the current text does not parse).
  lang::Document NextDocument() const;
  static std::shared_ptr<const EditorSnapshot> Build(lang::Document doc);

  std::string text_;
  int64_t version_ = 0;
  bool in_flight_ = false;
  std::shared_ptr<const EditorSnapshot> latest_;
  QFutureWatcher<std::shared_ptr<const EditorSnapshot>> watcher_;
};

}  // namespace wb::app
