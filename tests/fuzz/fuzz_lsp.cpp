// The LSP server's message handling, in process: the input is a session of JSON-RPC messages,
// one a line, that the harness frames (Content-Length) after an `initialize` and hands to the
// real Server as its input stream; the server answers into /dev/null. Whatever the messages (bad
// JSON, wrong types, positions past the end, edits of documents never opened), the server
// answers with results or errors and never crashes, hangs or trips a sanitizer.
//
// `exit` is dropped: Server::Run leaves its reader thread running after it (the process ends
// then), which is fine for the program and would not be for a harness that runs many sessions.
// An input that starts with "Content-Length" goes to the framing alone (Transport::ReadMessage).
#include <cstddef>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

#include "server.h"
#include "transport.h"

namespace {

std::FILE* Sink() {
  static std::FILE* sink = std::fopen("/dev/null", "w");
  return sink;
}

void Frame(std::string_view body, std::string* out) {
  *out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out->append(body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.rfind("Content-Length", 0) == 0) {
    std::string copy(input);
    std::FILE* in = fmemopen(copy.data(), copy.size(), "r");
    if (!in) return 0;
    wb::lsp::Transport transport(in, Sink());
    try {
      while (transport.ReadMessage()) {
      }
    } catch (const std::length_error&) {
      // A length over the limit: reported by the server, which stops reading.
    }
    std::fclose(in);
    return 0;
  }
  std::string stream;
  Frame(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}})", &stream);
  Frame(R"({"jsonrpc":"2.0","method":"initialized","params":{}})", &stream);
  size_t start = 0;
  while (start <= input.size()) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    std::string_view line = input.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    auto message = wb::lsp::json::parse(line, nullptr, false);
    if (message.is_object() && message.contains("method") && message["method"] == "exit") continue;
    Frame(line, &stream);
  }
  std::FILE* in = fmemopen(stream.data(), stream.size(), "r");
  if (!in) return 0;
  {
    wb::lsp::Transport transport(in, Sink());
    wb::lsp::ServerOptions options;
    options.diagnostics_delay = std::chrono::milliseconds(0);
    wb::lsp::Server server(transport, options);
    server.Run();
  }
  std::fclose(in);
  return 0;
}
