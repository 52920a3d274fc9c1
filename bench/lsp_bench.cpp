// Latency of workbench-lsp as an editor sees it (issue 8's benchmark): starts the real server
// binary over pipes, opens a generated ~5,000-line TensorIR module and times, per request,
// from the moment the message is written to the moment its answer is read:
//   - diagnostics after a one-character edit (didChange until publishDiagnostics of that version),
//   - hover on a buffer use inside a function in the middle of the module,
//   - completion after `T.` on the document already analysed,
//   - completion sent right after a one-character edit (what typing does: includes the re-parse).
// Prints median and p95 against the targets (p95 < 50 ms hover/completion, < 200 ms
// diagnostics). The server runs with --diagnostics-delay-ms 0, so the debounce is not counted.
// Usage: bench_lsp [--server PATH] [LINES] [REPEATS]  (default server: workbench-lsp next to
// this binary's build tree, i.e. <build>/lsp/workbench-lsp; LINES 5000; REPEATS 50)
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include "generated_kernel.h"
#include <string>
#include <vector>

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;


std::vector<std::string> ModuleLines(int target_lines) {
  std::string s =
      "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n"
      "# from tvm.tirx.layout import Axis\n\n@I.ir_module\nclass Module:\n";
  for (int k = 0; static_cast<int>(std::count(s.begin(), s.end(), '\n')) < target_lines; ++k) s += GeneratedKernel(k);
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = s.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(s.substr(start, nl - start));
  }
  return lines;
}

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "bench_lsp: %s\n", what.c_str());
  std::exit(1);
}

// The server as a child process, spoken to with LSP's Content-Length framing.
class Server {
 public:
  // delay_ms < 0 leaves the server's own diagnostics delay (what an editor runs with).
  Server(const std::string& path, int delay_ms) {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) Fail("pipe failed");
    pid_ = fork();
    if (pid_ < 0) Fail("fork failed");
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      close(to_child[1]);
      close(from_child[0]);
      std::string delay = std::to_string(delay_ms);
      if (delay_ms >= 0) {
        execl(path.c_str(), path.c_str(), "--diagnostics-delay-ms", delay.c_str(), static_cast<char*>(nullptr));
      } else {
        execl(path.c_str(), path.c_str(), static_cast<char*>(nullptr));
      }
      std::fprintf(stderr, "bench_lsp: cannot start %s: %s\n", path.c_str(), std::strerror(errno));
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    in_ = to_child[1];
    out_ = from_child[0];
  }
  ~Server() {
    close(in_);
    close(out_);
    int status = 0;
    waitpid(pid_, &status, 0);
  }

  void Send(const json& message) {
    std::string body = message.dump();
    std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    for (size_t done = 0; done < frame.size();) {
      ssize_t n = write(in_, frame.data() + done, frame.size() - done);
      if (n <= 0) Fail("the server stopped reading its input");
      done += static_cast<size_t>(n);
    }
  }
  void Notify(const std::string& method, json params) {
    Send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  int Request(const std::string& method, json params) {
    int id = next_id_++;
    Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return id;
  }

  // The next whole message; fails after 30 s of silence (a hung server is a finding, not a wait).
  json Read() {
    for (;;) {
      size_t header_end = buffer_.find("\r\n\r\n");
      if (header_end != std::string::npos) {
        size_t at = buffer_.find("Content-Length:");
        if (at == std::string::npos || at > header_end) Fail("a message without Content-Length");
        size_t length = std::strtoul(buffer_.c_str() + at + 15, nullptr, 10);
        if (buffer_.size() >= header_end + 4 + length) {
          json message = json::parse(buffer_.substr(header_end + 4, length));
          buffer_.erase(0, header_end + 4 + length);
          if (message.value("method", "") == "textDocument/publishDiagnostics") {
            // Remembered here, because it may arrive while we wait for a response.
            const json& p = message["params"];
            published_[p["uri"].get<std::string>()] = {p.value("version", -1), p["diagnostics"]};
          }
          return message;
        }
      }
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, 30000) <= 0) Fail("no answer from the server within 30 s");
      char chunk[1 << 16];
      ssize_t n = read(out_, chunk, sizeof chunk);
      if (n <= 0) Fail("the server closed its output (crashed?)");
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }
  json WaitResponse(int id) {
    for (;;) {
      json m = Read();
      if (m.contains("id") && m["id"] == id && !m.contains("method")) {
        if (m.contains("error")) Fail("request failed: " + m["error"].dump());
        return m["result"];
      }
    }
  }
  // The diagnostics published for `version` of `uri` (or a later version), read or already seen.
  json WaitDiagnostics(const std::string& uri, int version) {
    for (;;) {
      auto it = published_.find(uri);
      if (it != published_.end() && it->second.first >= version) return it->second.second;
      Read();
    }
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  int next_id_ = 1;
  std::string buffer_;
  std::map<std::string, std::pair<int, json>> published_;  // uri -> last (version, diagnostics)
};

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

void Report(const char* what, const std::vector<double>& ms, double target) {
  double p95 = Percentile(ms, 0.95);
  std::printf("%-34s median %8.2f ms   p95 %8.2f ms   (target p95 < %3.0f ms: %s)\n", what,
              Percentile(ms, 0.5), p95, target, p95 < target ? "met" : "MISSED");
}

json Pos(int line, int character) { return {{"line", line}, {"character", character}}; }

int FindLine(const std::vector<std::string>& lines, int from, const std::string& text) {
  for (int i = from; i < static_cast<int>(lines.size()); ++i) {
    if (lines[static_cast<size_t>(i)].find(text) != std::string::npos) return i;
  }
  Fail("generated module lacks '" + text + "'");
}

std::string DefaultServer(const char* argv0) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::canonical("/proc/self/exe", ec);
  if (ec) self = std::filesystem::absolute(argv0);
  // bench_lsp lives in <build>/bench/, the server in <build>/lsp/.
  std::filesystem::path candidate = self.parent_path().parent_path() / "lsp" / "workbench-lsp";
  if (std::filesystem::exists(candidate)) return candidate.string();
  return (self.parent_path() / "workbench-lsp").string();
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  setvbuf(stdout, nullptr, _IOLBF, 0);  // a dead server shows as a failed write with our message
  std::string server_path;
  std::vector<int> numbers;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--server" && i + 1 < argc) {
      server_path = argv[++i];
    } else if (!arg.empty() && std::all_of(arg.begin(), arg.end(), ::isdigit)) {
      numbers.push_back(std::atoi(arg.c_str()));
    } else {
      std::fprintf(stderr, "usage: bench_lsp [--server PATH] [LINES] [REPEATS]\n");
      return 2;
    }
  }
  int target_lines = numbers.size() > 0 ? numbers[0] : 5000;
  int repeats = numbers.size() > 1 ? std::max(1, numbers[1]) : 50;
  if (server_path.empty()) server_path = DefaultServer(argv[0]);
  if (access(server_path.c_str(), X_OK) != 0) Fail("no server binary at " + server_path + " (pass --server PATH)");

  std::vector<std::string> lines = ModuleLines(target_lines);
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  const std::string uri = "file:///bench/module.py";

  // Positions in a kernel in the middle of the module, so that neither end is favoured.
  int mid = FindLine(lines, static_cast<int>(lines.size()) / 2, "@T.prim_func");
  int comment = FindLine(lines, mid, "# with T.sblock(\"root\"):");
  int update = FindLine(lines, mid, "C[vi, vj] = C[vi, vj] + A[vi, vk]");
  int grid = FindLine(lines, mid, "in T.grid(");
  int hover_char = static_cast<int>(lines[static_cast<size_t>(update)].find("C[vi")) ;
  int completion_char = static_cast<int>(lines[static_cast<size_t>(grid)].find("T.grid(")) + 2;  // after "T."
  int comment_end = static_cast<int>(lines[static_cast<size_t>(comment)].size());

  // One editing session: the server, the document's version and whether our 'x' is in.
  struct Session {
    Server server;
    int version = 1;
    bool inserted = false;
  };
  auto Open = [&](Session& s) {
    s.server.WaitResponse(s.server.Request("initialize", {{"processId", getpid()}, {"rootUri", nullptr}, {"capabilities", json::object()}}));
    s.server.Notify("initialized", json::object());
    s.server.Notify("textDocument/didOpen",
                    {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", s.version}, {"text", text}}}});
    return s.server.WaitDiagnostics(uri, s.version);
  };
  // A one-character edit that keeps the module valid: add, then remove, an 'x' at the end of a
  // comment line, so every repetition re-parses the same 5,000 lines.
  auto Edit = [&](Session& s) {
    json change = s.inserted
                      ? json{{"range", {{"start", Pos(comment, comment_end)}, {"end", Pos(comment, comment_end + 1)}}}, {"text", ""}}
                      : json{{"range", {{"start", Pos(comment, comment_end)}, {"end", Pos(comment, comment_end)}}}, {"text", "x"}};
    s.inserted = !s.inserted;
    s.server.Notify("textDocument/didChange",
                    {{"textDocument", {{"uri", uri}, {"version", ++s.version}}}, {"contentChanges", json::array({change})}});
  };
  auto Shutdown = [&](Session& s) {
    s.server.WaitResponse(s.server.Request("shutdown", nullptr));
    s.server.Notify("exit", nullptr);
  };

  Session session{Server(server_path, 0)};
  Server& server = session.server;
  auto t0 = Clock::now();
  json first = Open(session);
  double open_ms = Ms(t0, Clock::now());
  std::printf("workbench-lsp: %s\nmodule: %zu lines, %zu bytes; %zu diagnostics on open; %d repeats\n",
              server_path.c_str(), lines.size(), text.size(), first.size(), repeats);
  std::printf("%-34s %8.2f ms (once)\n", "open to first diagnostics", open_ms);

  std::vector<double> diagnostics, hover, completion, completion_typing;
  size_t hover_bytes = 0, completion_items = 0;
  for (int r = 0; r < repeats; ++r) {
    auto a = Clock::now();
    Edit(session);
    json d = server.WaitDiagnostics(uri, session.version);
    diagnostics.push_back(Ms(a, Clock::now()));
    if (!d.empty()) Fail("the edit produced diagnostics: " + d.dump().substr(0, 300));
  }
  for (int r = 0; r < repeats; ++r) {
    auto a = Clock::now();
    json h = server.WaitResponse(server.Request(
        "textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", Pos(update, hover_char)}}));
    hover.push_back(Ms(a, Clock::now()));
    if (h.is_null()) Fail("hover on a buffer use answered null");
    hover_bytes = h.dump().size();
  }
  for (int r = 0; r < repeats; ++r) {
    auto a = Clock::now();
    json c = server.WaitResponse(server.Request(
        "textDocument/completion", {{"textDocument", {{"uri", uri}}}, {"position", Pos(grid, completion_char)}}));
    completion.push_back(Ms(a, Clock::now()));
    const json& items = c.is_object() ? c["items"] : c;
    if (!items.is_array() || items.empty()) Fail("completion after 'T.' answered no items");
    completion_items = items.size();
  }
  Shutdown(session);

  // Typing: completion sent right after the edit, against a server with its default debounce
  // (with delay 0 the diagnostics run would be queued ahead of the completion and timed with it).
  Session typing{Server(server_path, -1)};
  Open(typing);
  for (int r = 0; r < repeats; ++r) {
    auto a = Clock::now();
    Edit(typing);
    json c = typing.server.WaitResponse(typing.server.Request(
        "textDocument/completion", {{"textDocument", {{"uri", uri}}}, {"position", Pos(grid, completion_char)}}));
    completion_typing.push_back(Ms(a, Clock::now()));
    typing.server.WaitDiagnostics(uri, typing.version);  // let the server settle before the next edit
  }
  Shutdown(typing);

  Report("diagnostics after 1-char edit", diagnostics, 200);
  Report("hover (buffer use)", hover, 50);
  Report("completion after 'T.'", completion, 50);
  Report("completion right after an edit", completion_typing, 50);
  std::printf("(hover answer %zu bytes; %zu completion items)\n", hover_bytes, completion_items);

  return 0;
}
