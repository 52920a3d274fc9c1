#include "transport.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace wb::lsp {

namespace {
// Far above any source file an editor sends, far below what would exhaust memory.
constexpr long kMaxMessageBytes = 1L << 30;
}  // namespace

std::optional<std::string> Transport::ReadMessage() {
  while (true) {
    long length = -1;
    char line[1024];
    bool any_header = false;
    while (std::fgets(line, sizeof line, in_)) {
      size_t n = std::strlen(line);
      while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
      if (n == 0) {
        if (any_header) break;
        continue;  // stray blank lines between messages
      }
      any_header = true;
      if (strncasecmp(line, "Content-Length:", 15) == 0) length = std::strtol(line + 15, nullptr, 10);
    }
    if (!any_header) return std::nullopt;  // end of input
    if (length < 0) {
      if (std::feof(in_)) return std::nullopt;
      continue;  // a header block without a length: skip it
    }
    if (length > kMaxMessageBytes) {
      throw std::length_error("message of " + std::to_string(length) + " bytes exceeds the limit of " +
                              std::to_string(kMaxMessageBytes));
    }
    // Read in chunks, so that a header claiming a large length costs memory only as the bytes
    // really arrive (a truncated stream ends the loop at what it sent).
    std::string body;
    constexpr size_t kChunk = size_t{1} << 20;
    while (body.size() < static_cast<size_t>(length)) {
      const size_t at = body.size();
      const size_t want = std::min(kChunk, static_cast<size_t>(length) - at);
      body.resize(at + want);
      const size_t got = std::fread(body.data() + at, 1, want, in_);
      if (got < want) return std::nullopt;
    }
    return body;
  }
}

void Transport::Send(const json& message) {
  std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(write_mutex_);
  std::fprintf(out_, "Content-Length: %zu\r\n\r\n", body.size());
  std::fwrite(body.data(), 1, body.size(), out_);
  std::fflush(out_);
}

void Transport::Respond(const json& id, json result) {
  Send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Transport::RespondError(const json& id, int code, const std::string& message) {
  Send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void Transport::Notify(const std::string& method, json params) {
  Send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

}  // namespace wb::lsp
