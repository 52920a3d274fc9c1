// A minimal LSP client for tests: starts the real workbench-lsp binary and speaks JSON-RPC over
// its stdin/stdout with Content-Length framing, as an editor does.
#pragma once

#include <QElapsedTimer>
#include <QProcess>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

using json = nlohmann::json;

class LspClient {
 public:
  explicit LspClient(QStringList args = {"--diagnostics-delay-ms", "20"}) {
    process_.setProgram(QStringLiteral(WB_LSP_BIN));
    process_.setArguments(args);
    process_.start();
    process_.waitForStarted(10000);
  }
  ~LspClient() {
    if (process_.state() != QProcess::NotRunning) {
      process_.kill();
      process_.waitForFinished(5000);
    }
  }

  QProcess& process() { return process_; }
  bool running() const { return process_.state() == QProcess::Running; }

  void SendRaw(const QByteArray& body) {
    process_.write("Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    process_.waitForBytesWritten(5000);
  }
  void Send(const json& message) { SendRaw(QByteArray::fromStdString(message.dump())); }

  int Request(const std::string& method, json params) {
    int id = next_id_++;
    Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return id;
  }
  void Notify(const std::string& method, json params) {
    Send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }

  // The next message matching `pred` (earlier non-matching messages are kept for later calls);
  // nullopt after `timeout_ms`.
  std::optional<json> WaitFor(const std::function<bool(const json&)>& pred, int timeout_ms = 20000) {
    QElapsedTimer timer;
    timer.start();
    while (true) {
      for (size_t i = 0; i < inbox_.size(); ++i) {
        if (pred(inbox_[i])) {
          json m = inbox_[i];
          inbox_.erase(inbox_.begin() + static_cast<long>(i));
          return m;
        }
      }
      if (timer.elapsed() > timeout_ms || process_.state() != QProcess::Running) {
        if (!ReadAvailable()) return std::nullopt;
        continue;
      }
      process_.waitForReadyRead(50);
      ReadAvailable();
    }
  }

  // How many received and not yet taken messages match `pred`.
  size_t Count(const std::function<bool(const json&)>& pred) const {
    return static_cast<size_t>(std::count_if(inbox_.begin(), inbox_.end(), pred));
  }

  // The response to request `id` (result or error); nullopt on timeout.
  std::optional<json> Response(int id, int timeout_ms = 20000) {
    return WaitFor([id](const json& m) { return m.contains("id") && m["id"] == id && !m.contains("method"); },
                   timeout_ms);
  }
  json Call(const std::string& method, json params) {
    auto r = Response(Request(method, std::move(params)));
    return r ? *r : json{{"error", {{"code", 0}, {"message", "no response (timeout)"}}}};
  }

  // The next publishDiagnostics for `uri` (with `version` when given).
  std::optional<json> Diagnostics(const std::string& uri, std::optional<int64_t> version = std::nullopt) {
    auto m = WaitFor([&](const json& m) {
      if (m.value("method", "") != "textDocument/publishDiagnostics") return false;
      const json& p = m["params"];
      return p["uri"] == uri && (!version || (p.contains("version") && p["version"] == *version));
    });
    if (!m) return std::nullopt;
    return (*m)["params"]["diagnostics"];
  }

  void Initialize() {
    auto r = Response(Request("initialize", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", json::object()}}));
    if (r) initialize_result_ = *r;
    Notify("initialized", json::object());
  }
  const json& initialize_result() const { return initialize_result_; }

  void Open(const std::string& uri, const std::string& text, int version = 1) {
    Notify("textDocument/didOpen",
           {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", version}, {"text", text}}}});
  }
  void Change(const std::string& uri, int version, json range, const std::string& text) {
    Notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", version}}},
                                      {"contentChanges", json::array({{{"range", range}, {"text", text}}})}});
  }

  int ShutdownAndExit() {
    Response(Request("shutdown", nullptr));
    Notify("exit", nullptr);
    process_.closeWriteChannel();
    process_.waitForFinished(10000);
    return process_.exitCode();
  }

 private:
  // Parses every complete message in the buffer; returns whether any was parsed.
  bool ReadAvailable() {
    buffer_ += process_.readAllStandardOutput();
    bool any = false;
    while (true) {
      int header_end = buffer_.indexOf("\r\n\r\n");
      if (header_end < 0) return any;
      QByteArray header = buffer_.left(header_end);
      int pos = header.indexOf("Content-Length:");
      if (pos < 0) return any;
      int length = header.mid(pos + 15).trimmed().split('\r').first().toInt();
      if (buffer_.size() < header_end + 4 + length) return any;
      QByteArray body = buffer_.mid(header_end + 4, length);
      buffer_.remove(0, header_end + 4 + length);
      inbox_.push_back(json::parse(body.toStdString()));
      any = true;
    }
  }

  QProcess process_;
  QByteArray buffer_;
  std::vector<json> inbox_;
  json initialize_result_;
  int next_id_ = 1;
};

inline json Pos(int line, int character) { return {{"line", line}, {"character", character}}; }
inline json Range(int l0, int c0, int l1, int c1) { return {{"start", Pos(l0, c0)}, {"end", Pos(l1, c1)}}; }
