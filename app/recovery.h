// Crash recovery for the open document: a copy of its unsaved text, written a few seconds after
// each change into a recovery folder under the user's data directory (never over the user's own
// file), and removed once the document is saved or its changes are discarded. A recovery file
// still there when the workbench starts was left by a process that ended without closing its
// window (a crash, a kill, a power cut): the next start offers it back.
//
// One file a document and process, named after the document's path (untitled documents get a
// name of their own), holding JSON: the document's path, the text, when it was written and the writer's pid,
// so a start never offers the file of a workbench that is still running.
#pragma once

#include <QDateTime>
#include <QList>
#include <QString>

namespace wb::app {

// A recovery file left behind, as read back.
struct RecoveryFile {
  QString file;      // the recovery file itself
  QString document;  // the path of the document it holds ("" for an untitled one)
  QString text;
  QDateTime written;
};

class Recovery {
 public:
  // `directory`: where the recovery files live (created when first written).
  explicit Recovery(QString directory = DefaultDirectory());

  // <user data dir>/recovery (QStandardPaths::AppDataLocation).
  static QString DefaultDirectory();

  // The document being edited from now on: later writes go to its recovery file. An existing
  // recovery file of the previous document is removed (its changes were saved or discarded).
  void SetDocument(const QString& path);
  // Takes over a file left behind (the user recovered it): writes go there until SetDocument.
  void Adopt(const RecoveryFile& recovered);
  // Writes `text` as the current document's unsaved state (atomically: a crash while writing
  // leaves the previous copy). False when the file cannot be written.
  bool Write(const QString& text);
  // Removes the current document's recovery file (saved, or changes discarded).
  void Remove();
  // The current document's recovery file (it may not exist yet).
  const QString& file() const { return file_; }

  // The files left by processes that are no longer running, newest first. Unreadable files
  // are skipped (and left alone).
  QList<RecoveryFile> Pending() const;
  // Removes a file left behind (the user declined it).
  static void Discard(const RecoveryFile& recovered);

 private:
  QString FileFor(const QString& path);

  QString directory_;
  QString document_;
  QString file_;
};

}  // namespace wb::app
