// workbench-lsp: the Language Server Protocol server for TVMScript, over stdin/stdout.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "server.h"

namespace {

void Usage(std::FILE* out) {
  std::fprintf(out,
               "usage: workbench-lsp [--diagnostics-delay-ms N]\n"
               "Speaks the Language Server Protocol 3.17 (JSON-RPC) on stdin/stdout for TVMScript\n"
               "files: diagnostics, hover, go to definition, references, symbols, completion,\n"
               "formatting, folding and highlights. Start it from an editor's LSP client.\n");
}

}  // namespace

int main(int argc, char** argv) {
  wb::lsp::ServerOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      Usage(stdout);
      return 0;
    }
    if (arg == "--diagnostics-delay-ms" && i + 1 < argc) {
      char* end = nullptr;
      long ms = std::strtol(argv[++i], &end, 10);
      if (*end != 0 || ms < 0) {
        std::fprintf(stderr, "workbench-lsp: --diagnostics-delay-ms needs a non-negative integer, got '%s'\n", argv[i]);
        return 2;
      }
      options.diagnostics_delay = std::chrono::milliseconds(ms);
      continue;
    }
    if (arg == "--stdio") continue;  // what VS Code's language client passes
    std::fprintf(stderr, "workbench-lsp: unknown argument '%s'\n", arg.c_str());
    Usage(stderr);
    return 2;
  }
  wb::lsp::Transport transport(stdin, stdout);
  wb::lsp::Server server(transport, options);
  int code = server.Run();
  std::fflush(stdout);
  // The reader thread may still be blocked reading stdin: leave without running destructors
  // that would race with it.
  std::_Exit(code);
}
