// The LSP server: registers one handler per method, each translating protocol to a call on
// core/lang and core/workbench (as mlir-lsp-server's LSPServer does over MLIRServer). It owns the open
// documents, the message loop, cancellation and the debouncing of diagnostics.
//
// Threads: a reader thread frames and parses messages and records `$/cancelRequest`s as they
// arrive (so a request still queued behind a slow one can be cancelled); the main thread handles
// messages in order and publishes diagnostics once a document has been quiet for the delay.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "lang/document.h"
#include "protocol.h"
#include "transport.h"

namespace wb::lsp {

struct ServerOptions {
  // Quiet time after the last change before diagnostics are computed and published.
  std::chrono::milliseconds diagnostics_delay{150};
};

class Server {
 public:
  Server(Transport& transport, ServerOptions options);
  // Serves until `exit` or the end of input. Returns the process exit code (0 only after
  // `shutdown` then `exit`, as the spec asks).
  int Run();

 private:
  using Handler = std::function<json(const json& params)>;
  using NotificationHandler = std::function<void(const json& params)>;

  void Request(const std::string& method, Handler handler) { requests_[method] = std::move(handler); }
  void Notification(const std::string& method, NotificationHandler handler) {
    notifications_[method] = std::move(handler);
  }
  void RegisterHandlers();
  // Code actions and the `workbench/*` requests (code_actions.cpp).
  void RegisterWorkbenchHandlers();
  json OnCodeAction(const json& params);
  json OnResolveCodeAction(const json& action);

  void ReaderLoop();
  void ReadMessages();
  // Returns false when the server must stop.
  bool Handle(const json& message);
  void HandleRequest(const json& id, const std::string& method, const json& params);
  void PublishDueDiagnostics(bool all);
  void Publish(const lang::Document& doc);
  void Schedule(const std::string& uri, std::chrono::milliseconds delay);

  json OnInitialize(const json& params);
  void OnDidOpen(const json& params);
  void OnDidChange(const json& params);
  void OnDidClose(const json& params);
  lang::Document& DocumentOf(const json& params);

  Transport& transport_;
  ServerOptions options_;
  std::map<std::string, Handler> requests_;
  std::map<std::string, NotificationHandler> notifications_;
  std::map<std::string, std::unique_ptr<lang::Document>> documents_;
  bool initialized_ = false;
  // Whether the client resolves a code action's edit lazily (`codeAction/resolve`), so that
  // pass actions need not run every pass whenever the cursor moves.
  bool client_resolves_edits_ = false;
  bool shutdown_ = false;
  int exit_code_ = 1;

  // Shared with the reader thread.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<json> queue_;
  std::set<std::string> cancelled_;  // ids (as JSON text) of cancelled requests not yet answered
  bool end_of_input_ = false;

  std::map<std::string, std::chrono::steady_clock::time_point> pending_diagnostics_;
};

}  // namespace wb::lsp
