#include "recovery.h"

#include <signal.h>

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>
#include <algorithm>
#include <cerrno>
#include <atomic>

namespace wb::app {

namespace {

// Whether the process that wrote a recovery file still runs (then the file is its live copy).
// A pid reused by an unrelated process since keeps a file back until that process ends too.
bool ProcessRuns(qint64 pid) {
  if (pid <= 0) return false;
  if (pid == QCoreApplication::applicationPid()) return true;
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

}  // namespace

Recovery::Recovery(QString directory) : directory_(std::move(directory)) { SetDocument(QString()); }

QString Recovery::DefaultDirectory() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/recovery";
}

QString Recovery::FileFor(const QString& path) {
  if (path.isEmpty()) {
    // Untitled documents of this process, each its own file.
    static std::atomic<int> untitled{0};
    return QStringLiteral("%1/untitled-%2-%3.json")
        .arg(directory_)
        .arg(QCoreApplication::applicationPid())
        .arg(++untitled);
  }
  QString absolute = path.startsWith(':') ? path : QFileInfo(path).absoluteFilePath();
  QByteArray hash = QCryptographicHash::hash(absolute.toUtf8(), QCryptographicHash::Sha1).toHex();
  // The name shows whose copy it is to someone looking in the folder; the hash tells documents
  // of the same name apart, and the pid keeps a copy left by an earlier crash from being
  // overwritten by this process's own copy of the same document before it is offered.
  return QStringLiteral("%1/%2-%3-%4.json")
      .arg(directory_, QFileInfo(path).fileName(), QString::fromLatin1(hash.left(16)))
      .arg(QCoreApplication::applicationPid());
}

void Recovery::SetDocument(const QString& path) {
  Remove();
  document_ = path;
  file_ = FileFor(path);
}

void Recovery::Adopt(const RecoveryFile& recovered) {
  document_ = recovered.document;
  file_ = recovered.file;
}

bool Recovery::Write(const QString& text) {
  if (!QDir().mkpath(directory_)) return false;
  QJsonObject o;
  o["document"] = document_;
  o["text"] = text;
  o["written"] = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
  o["pid"] = QCoreApplication::applicationPid();
  QSaveFile f(file_);
  if (!f.open(QIODevice::WriteOnly)) return false;
  f.write(QJsonDocument(o).toJson(QJsonDocument::Compact));
  return f.commit();
}

void Recovery::Remove() {
  if (!file_.isEmpty()) QFile::remove(file_);
}

QList<RecoveryFile> Recovery::Pending() const {
  QList<RecoveryFile> found;
  for (const QFileInfo& info : QDir(directory_).entryInfoList({"*.json"}, QDir::Files)) {
    QFile f(info.absoluteFilePath());
    if (!f.open(QIODevice::ReadOnly)) continue;
    QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    if (!o["text"].isString() || ProcessRuns(o["pid"].toInteger())) continue;
    RecoveryFile r;
    r.file = info.absoluteFilePath();
    r.document = o["document"].toString();
    r.text = o["text"].toString();
    r.written = QDateTime::fromString(o["written"].toString(), Qt::ISODateWithMs);
    if (!r.written.isValid()) r.written = info.lastModified();
    found.push_back(std::move(r));
  }
  std::sort(found.begin(), found.end(),
            [](const RecoveryFile& a, const RecoveryFile& b) { return a.written > b.written; });
  return found;
}

void Recovery::Discard(const RecoveryFile& recovered) { QFile::remove(recovered.file); }

}  // namespace wb::app
