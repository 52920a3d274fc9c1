// JSON-RPC 2.0 over the LSP base protocol: messages framed by a `Content-Length` header on a
// byte stream (stdin/stdout). Reading and writing are separate so a reader thread can watch for
// `$/cancelRequest` while the main thread works, and writes from any thread are serialized.
#pragma once

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace wb::lsp {

using json = nlohmann::json;

// JSON-RPC and LSP error codes.
enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kServerNotInitialized = -32002,
  kRequestFailed = -32803,
  kRequestCancelled = -32800,
  kContentModified = -32801,
};

class Transport {
 public:
  Transport(std::FILE* in, std::FILE* out) : in_(in), out_(out) {}

  // The next message body; nullopt at end of input. A header block without Content-Length
  // is skipped; a body over 1 GiB throws std::length_error (the framing is
  // then lost).
  std::optional<std::string> ReadMessage();

  void Send(const json& message);
  void Respond(const json& id, json result);
  void RespondError(const json& id, int code, const std::string& message);
  void Notify(const std::string& method, json params);

 private:
  std::FILE* in_;
  std::FILE* out_;
  std::mutex write_mutex_;
};

}  // namespace wb::lsp
