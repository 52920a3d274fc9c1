// Parse + verify + print throughput on a generated TensorIR module (issue 2's benchmark).
// Prints lines per second end to end and how parsing splits between tree-sitter's CST and our
// IR builder. Usage: bench_tvmscript [LINES] [REPEATS]
#include <tree_sitter/api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "script/tvmscript.h"
#include "tir/verifier.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// One PrimFunc of ~30 lines: a matmul-with-epilogue kernel, varied by index.
std::string Kernel(int k) {
  std::string n = std::to_string(16 + k % 7 * 16);
  std::string name = "kernel_" + std::to_string(k);
  std::string s;
  s += "    @T.prim_func\n";
  s += "    def " + name + "(A: T.Buffer((" + n + ", " + n + "), \"float32\"), B: T.Buffer((" + n +
       ", " + n + "), \"float32\"), D: T.Buffer((" + n + ", " + n + "), \"float32\")):\n";
  s += "        T.func_attr({\"tir.noalias\": True})\n";
  s += "        # with T.sblock(\"root\"):\n";
  s += "        C = T.sblock_alloc_buffer((" + n + ", " + n + "))\n";
  s += "        for i, j, k in T.grid(" + n + ", " + n + ", " + n + "):\n";
  s += "            with T.sblock(\"C\"):\n";
  s += "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n";
  s += "                T.reads(A[vi, vk], B[vk, vj])\n";
  s += "                T.writes(C[vi, vj])\n";
  s += "                with T.init():\n";
  s += "                    C[vi, vj] = T.float32(0.0)\n";
  s += "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
  s += "        for i, j in T.grid(" + n + ", " + n + "):\n";
  s += "            with T.sblock(\"D\"):\n";
  s += "                vi, vj = T.axis.remap(\"SS\", [i, j])\n";
  s += "                T.reads(C[vi, vj])\n";
  s += "                T.writes(D[vi, vj])\n";
  s += "                D[vi, vj] = T.max(C[vi, vj] * T.float32(0.5) + T.float32(1.0), T.float32(0.0))\n";
  s += "        for i_0 in range(" + n + "):\n";
  s += "            for i_1 in T.vectorized(4):\n";
  s += "                with T.sblock(\"E\"):\n";
  s += "                    vi = T.axis.spatial(" + n + ", i_0)\n";
  s += "                    vj = T.axis.spatial(4, i_1)\n";
  s += "                    T.reads(D[vi, vj])\n";
  s += "                    T.writes(D[vi, vj])\n";
  s += "                    if vi % 2 == 0:\n";
  s += "                        D[vi, vj] = T.exp(D[vi, vj]) - T.float32(1.0)\n";
  s += "                    else:\n";
  s += "                        D[vi, vj] = T.sqrt(T.fabs(D[vi, vj]))\n";
  s += "\n";
  return s;
}

std::string Module(int target_lines, int* lines) {
  std::string s =
      "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n"
      "# from tvm.tirx.layout import Axis\n\n@I.ir_module\nclass Module:\n";
  for (int k = 0;; ++k) {
    s += Kernel(k);
    *lines = static_cast<int>(std::count(s.begin(), s.end(), '\n'));
    if (*lines >= target_lines) break;
  }
  return s;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int target = argc > 1 ? std::atoi(argv[1]) : 20000;
  int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  int lines = 0;
  std::string text = Module(target, &lines);

  std::vector<double> ts_times, parse_times, verify_times, print_times;
  for (int r = 0; r < repeats; ++r) {
    TSParser* parser = ts_parser_new();
    ts_parser_set_language(parser, tree_sitter_python());
    auto t0 = Clock::now();
    TSTree* tree = ts_parser_parse_string(parser, nullptr, text.data(), text.size());
    auto t1 = Clock::now();
    ts_tree_delete(tree);
    ts_parser_delete(parser);
    ts_times.push_back(Seconds(t0, t1));

    auto p0 = Clock::now();
    wb::script::ParseResult parsed = wb::script::Parse(text, "bench.py");
    auto p1 = Clock::now();
    if (!parsed.ok()) {
      std::fprintf(stderr, "bench: the generated module did not parse:\n%s",
                   wb::RenderDiagnostics(parsed.diagnostics).c_str());
      return 1;
    }
    wb::DiagnosticList findings = wb::tir::VerifyWellFormed(parsed.module);
    auto p2 = Clock::now();
    std::string printed = wb::script::Print(parsed);
    auto p3 = Clock::now();
    if (findings.HasErrors()) {
      std::fprintf(stderr, "bench: verifier found errors:\n%s",
                   wb::RenderDiagnostics(findings).c_str());
      return 1;
    }
    parse_times.push_back(Seconds(p0, p1));
    verify_times.push_back(Seconds(p1, p2));
    print_times.push_back(Seconds(p2, p3));
  }
  double ts = Median(ts_times), parse = Median(parse_times), verify = Median(verify_times),
         print = Median(print_times);
  double total = parse + verify + print;
  std::printf("module: %d lines, %zu bytes; median of %d runs\n", lines, text.size(), repeats);
  std::printf("  tree-sitter CST      %8.2f ms\n", ts * 1e3);
  std::printf("  IR builder           %8.2f ms  (parse %.2f ms minus CST)\n", (parse - ts) * 1e3,
              parse * 1e3);
  std::printf("  verify               %8.2f ms\n", verify * 1e3);
  std::printf("  print                %8.2f ms\n", print * 1e3);
  std::printf("  end to end           %8.2f ms  = %.0f lines/s (target 100000)\n", total * 1e3,
              lines / total);
  return 0;
}
