#include "server.h"

#include <thread>

#include "lang/analysis.h"
#include "protocol.h"

namespace wb::lsp {

using namespace lang;
using Clock = std::chrono::steady_clock;

namespace {

const json& TextDocument(const json& params) { return params.at("textDocument"); }

}  // namespace

Server::Server(Transport& transport, ServerOptions options) : transport_(transport), options_(options) {
  RegisterHandlers();
}

void Server::RegisterHandlers() {
  Request("initialize", [this](const json& p) { return OnInitialize(p); });
  Request("shutdown", [this](const json&) {
    shutdown_ = true;
    return json(nullptr);
  });
  Notification("initialized", [](const json&) {});
  Notification("textDocument/didOpen", [this](const json& p) { OnDidOpen(p); });
  Notification("textDocument/didChange", [this](const json& p) { OnDidChange(p); });
  Notification("textDocument/didClose", [this](const json& p) { OnDidClose(p); });
  Notification("textDocument/didSave", [](const json&) {});

  Request("textDocument/hover", [this](const json& p) {
    auto hover = ComputeHover(DocumentOf(p), ToPosition(p.at("position")));
    return hover ? ToJson(*hover) : json(nullptr);
  });
  Request("textDocument/definition", [this](const json& p) {
    return Locations(UriOf(p), FindDefinition(DocumentOf(p), ToPosition(p.at("position"))));
  });
  Request("textDocument/references", [this](const json& p) {
    bool declaration = p.contains("context") && p["context"].value("includeDeclaration", false);
    return Locations(UriOf(p), FindReferences(DocumentOf(p), ToPosition(p.at("position")), declaration));
  });
  Request("textDocument/documentHighlight", [this](const json& p) {
    json out = json::array();
    for (const Highlight& h : ComputeHighlights(DocumentOf(p), ToPosition(p.at("position")))) out.push_back(ToJson(h));
    return out;
  });
  Request("textDocument/documentSymbol", [this](const json& p) {
    json out = json::array();
    for (const DocumentSymbol& s : ComputeDocumentSymbols(DocumentOf(p))) out.push_back(ToJson(s));
    return out;
  });
  Request("textDocument/completion", [this](const json& p) {
    json items = json::array();
    for (const CompletionItem& c : ComputeCompletion(DocumentOf(p), ToPosition(p.at("position")))) {
      items.push_back(ToJson(c));
    }
    return json{{"isIncomplete", false}, {"items", std::move(items)}};
  });
  Request("textDocument/formatting", [this](const json& p) {
    const Document& doc = DocumentOf(p);
    FormatResult result = FormatDocument(doc);
    if (!result.text) throw RpcError(kRequestFailed, result.error);
    if (*result.text == doc.text()) return json::array();
    TextRange whole{{0, 0}, doc.PositionOf(static_cast<uint32_t>(doc.text().size()))};
    return json::array({{{"range", ToJson(whole)}, {"newText", *result.text}}});
  });
  Request("textDocument/signatureHelp", [this](const json& p) {
    auto help = ComputeSignatureHelp(DocumentOf(p), ToPosition(p.at("position")));
    return help ? ToJson(*help) : json(nullptr);
  });
  Request("textDocument/semanticTokens/full", [this](const json& p) {
    return json{{"data", SemanticTokensData(ComputeSemanticTokens(DocumentOf(p)))}};
  });
  Request("workspace/symbol", [this](const json& p) {
    std::string query = p.value("query", "");
    json out = json::array();
    for (const auto& [uri, doc] : documents_) {
      for (const WorkspaceSymbol& s : ComputeWorkspaceSymbols(*doc, query)) out.push_back(ToJson(uri, s));
    }
    return out;
  });
  RegisterWorkbenchHandlers();
  Request("textDocument/foldingRange", [this](const json& p) {
    json out = json::array();
    for (const FoldingRange& r : ComputeFoldingRanges(DocumentOf(p))) out.push_back(ToJson(r));
    return out;
  });
}

json Server::OnInitialize(const json& params) {
  if (initialized_) throw RpcError(kInvalidRequest, "initialize was already called");
  if (params.is_object() && params.contains("initializationOptions")) {
    const json& init = params["initializationOptions"];
    if (init.is_object() && init.contains("diagnosticsDelayMs")) {
      options_.diagnostics_delay = std::chrono::milliseconds(init["diagnosticsDelayMs"].get<int64_t>());
    }
  }
  if (params.is_object() && params.contains("capabilities")) {
    const json caps = params["capabilities"];
    json::json_pointer ptr("/textDocument/codeAction/resolveSupport/properties");
    if (caps.is_object() && caps.contains(ptr) && caps[ptr].is_array()) {
      for (const json& prop : caps[ptr]) client_resolves_edits_ |= prop == "edit";
    }
  }
  initialized_ = true;  // only once the params were understood
  json capabilities = {
      {"positionEncoding", "utf-16"},
      {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", false}}},
      {"hoverProvider", true},
      {"definitionProvider", true},
      {"referencesProvider", true},
      {"documentHighlightProvider", true},
      {"documentSymbolProvider", true},
      {"completionProvider", {{"triggerCharacters", {".", "\""}}, {"resolveProvider", false}}},
      {"documentFormattingProvider", true},
      {"foldingRangeProvider", true},
      {"signatureHelpProvider", {{"triggerCharacters", {"(", ","}}, {"retriggerCharacters", {"="}}}},
      {"semanticTokensProvider",
       {{"legend", {{"tokenTypes", SemanticTokenTypes()}, {"tokenModifiers", SemanticTokenModifiers()}}},
        {"full", true}}},
      {"workspaceSymbolProvider", true},
      {"codeActionProvider",
       {{"codeActionKinds", {"refactor.rewrite", "source"}}, {"resolveProvider", true}}},
  };
  return {{"capabilities", capabilities}, {"serverInfo", {{"name", "workbench-lsp"}, {"version", "0.1"}}}};
}

Document& Server::DocumentOf(const json& params) {
  std::string uri = UriOf(params);
  auto it = documents_.find(uri);
  if (it == documents_.end()) throw RpcError(kInvalidParams, "document not open: " + uri);
  return *it->second;
}

void Server::OnDidOpen(const json& params) {
  const json& td = TextDocument(params);
  std::string uri = td.at("uri").get<std::string>();
  documents_[uri] = std::make_unique<Document>(uri, td.at("text").get<std::string>(), td.value("version", 0));
  Schedule(uri, std::chrono::milliseconds(0));
}

void Server::OnDidChange(const json& params) {
  Document& doc = DocumentOf(params);
  int64_t version = TextDocument(params).value("version", doc.version() + 1);
  for (const json& change : params.at("contentChanges")) {
    std::optional<TextRange> range;
    if (change.contains("range")) range = ToRange(change["range"]);
    doc.ApplyChange(range, change.at("text").get<std::string>(), version);
  }
  Schedule(doc.uri(), options_.diagnostics_delay);
}

void Server::OnDidClose(const json& params) {
  std::string uri = UriOf(params);
  documents_.erase(uri);
  pending_diagnostics_.erase(uri);
  transport_.Notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
}

void Server::Schedule(const std::string& uri, std::chrono::milliseconds delay) {
  pending_diagnostics_[uri] = Clock::now() + delay;
}

void Server::Publish(const Document& doc) {
  json diagnostics = json::array();
  for (const DocumentDiagnostic& d : ComputeDiagnostics(doc)) diagnostics.push_back(ToJson(doc.uri(), d));
  transport_.Notify("textDocument/publishDiagnostics",
                    {{"uri", doc.uri()}, {"version", doc.version()}, {"diagnostics", std::move(diagnostics)}});
}

void Server::PublishDueDiagnostics(bool all) {
  auto now = Clock::now();
  for (auto it = pending_diagnostics_.begin(); it != pending_diagnostics_.end();) {
    if (!all && it->second > now) {
      ++it;
      continue;
    }
    auto doc = documents_.find(it->first);
    it = pending_diagnostics_.erase(it);
    if (doc == documents_.end()) continue;
    try {
      Publish(*doc->second);
    } catch (const std::exception& e) {
      transport_.Notify("window/logMessage",
                        {{"type", 1}, {"message", std::string("diagnostics failed: ") + e.what()}});
    }
  }
}

void Server::ReaderLoop() {
  try {
    ReadMessages();
  } catch (const std::exception& e) {
    // E.g. a Content-Length too large to allocate: the framing is lost, so input ends here.
    transport_.Notify("window/logMessage", {{"type", 1}, {"message", std::string("cannot read input: ") + e.what()}});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  end_of_input_ = true;
  wake_.notify_one();
}

void Server::ReadMessages() {
  while (auto body = transport_.ReadMessage()) {
    json message = json::parse(*body, nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded()) {
      transport_.RespondError(nullptr, kParseError, "invalid JSON in message body");
      continue;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (message.is_object() && message.value("method", "") == "$/cancelRequest") {
      if (message.contains("params") && message["params"].is_object() && message["params"].contains("id")) {
        cancelled_.insert(message["params"]["id"].dump());
      }
      continue;
    }
    queue_.push_back(std::move(message));
    wake_.notify_one();
  }
}

int Server::Run() {
  std::thread reader([this] { ReaderLoop(); });
  // The reader blocks in fread on stdin, which cannot be interrupted portably; once the main
  // loop is done the process exits, so it is detached rather than joined.
  reader.detach();
  while (true) {
    PublishDueDiagnostics(false);
    json message;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      auto ready = [&] { return !queue_.empty() || end_of_input_; };
      if (pending_diagnostics_.empty()) {
        wake_.wait(lock, ready);
      } else {
        auto next = pending_diagnostics_.begin()->second;
        for (const auto& [uri, due] : pending_diagnostics_) next = std::min(next, due);
        if (!wake_.wait_until(lock, next, ready)) continue;
      }
      if (queue_.empty()) break;  // end of input without `exit`
      message = std::move(queue_.front());
      queue_.pop_front();
    }
    if (!Handle(message)) return exit_code_;
  }
  return 1;
}

bool Server::Handle(const json& message) {
  if (!message.is_object()) {
    transport_.RespondError(nullptr, kInvalidRequest, "a JSON-RPC message must be an object");
    return true;
  }
  json id = message.contains("id") ? message["id"] : json();
  bool has_id = message.contains("id");
  if (!message.contains("method") || !message["method"].is_string()) {
    // A response to a request of ours (we send none that expect one) is ignored.
    if (has_id && (message.contains("result") || message.contains("error"))) return true;
    transport_.RespondError(id, kInvalidRequest, "a JSON-RPC request needs a string \"method\"");
    return true;
  }
  if (has_id && !id.is_number_integer() && !id.is_string()) {
    transport_.RespondError(nullptr, kInvalidRequest, "a request id must be an integer or a string");
    return true;
  }
  std::string method = message["method"].get<std::string>();
  json params = message.contains("params") ? message["params"] : json::object();
  if (method == "exit") {
    exit_code_ = shutdown_ ? 0 : 1;
    return false;
  }
  if (has_id) {
    HandleRequest(id, method, params);
    return true;
  }
  if (!initialized_ || shutdown_) return true;  // notifications are dropped before initialize
  auto it = notifications_.find(method);
  if (it == notifications_.end()) return true;  // unknown notifications are ignored (spec)
  try {
    it->second(params);
  } catch (const std::exception& e) {
    transport_.Notify("window/logMessage", {{"type", 1}, {"message", method + " failed: " + e.what()}});
  }
  return true;
}

void Server::HandleRequest(const json& id, const std::string& method, const json& params) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (cancelled_.erase(id.dump())) {
      transport_.RespondError(id, kRequestCancelled, "request cancelled: " + method);
      return;
    }
  }
  if (!initialized_ && method != "initialize") {
    transport_.RespondError(id, kServerNotInitialized, "the server is not initialized yet: send initialize first");
    return;
  }
  if (shutdown_) {
    transport_.RespondError(id, kInvalidRequest, "the server is shutting down: only exit is accepted");
    return;
  }
  auto it = requests_.find(method);
  if (it == requests_.end()) {
    transport_.RespondError(id, kMethodNotFound, "unknown method: " + method);
    return;
  }
  // A request sees the diagnostics-independent current text; pending diagnostics stay pending.
  try {
    transport_.Respond(id, it->second(params));
  } catch (const RpcError& e) {
    transport_.RespondError(id, e.code, e.what());
  } catch (const json::exception& e) {
    transport_.RespondError(id, kInvalidParams, method + ": invalid params: " + e.what());
  } catch (const std::exception& e) {
    transport_.RespondError(id, kInternalError, method + " failed: " + e.what());
  } catch (...) {
    transport_.RespondError(id, kInternalError, method + " failed with an unknown exception");
  }
}

}  // namespace wb::lsp
