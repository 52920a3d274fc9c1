// Parse + verify + print throughput on a generated TensorIR module (issue 2's benchmark).
// Prints lines per second end to end and how parsing splits between the CST (our lexer and
// recursive-descent parser) and the IR builder. Usage: bench_tvmscript [LINES] [REPEATS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "script/parser_cst.h"
#include "generated_kernel.h"
#include "script/tvmscript.h"
#include "tir/verifier.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}


std::string Module(int target_lines, int* lines) {
  std::string s =
      "# from tvm.script import ir as I\n# from tvm.script import tirx as T\n"
      "# from tvm.tirx.layout import Axis\n\n@I.ir_module\nclass Module:\n";
  *lines = static_cast<int>(std::count(s.begin(), s.end(), '\n'));
  for (int k = 0;; ++k) {
    std::string kernel = GeneratedKernel(k);
    s += kernel;
    *lines += static_cast<int>(std::count(kernel.begin(), kernel.end(), '\n'));
    if (*lines >= target_lines) break;
  }
  return s;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Wall time, plus this thread's CPU time: on a shared, loaded machine the CPU time is the figure
// that does not count waiting for a core.
struct Stamp {
  Clock::time_point wall;
  double cpu;
  static Stamp Now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return {Clock::now(), ts.tv_sec + ts.tv_nsec * 1e-9};
  }
};

struct Phase {
  std::vector<double> wall, cpu;
  void Add(const Stamp& a, const Stamp& b) {
    wall.push_back(Seconds(a.wall, b.wall));
    cpu.push_back(b.cpu - a.cpu);
  }
};

void Row(const char* name, double wall, double cpu, const char* extra = "") {
  std::printf("  %-20s %8.2f ms wall %8.2f ms cpu%s\n", name, wall * 1e3, cpu * 1e3, extra);
}

}  // namespace

int main(int argc, char** argv) {
  int target = argc > 1 ? std::atoi(argv[1]) : 20000;
  int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  int lines = 0;
  std::string text = Module(target, &lines);

  Phase cst_phase, parse_phase, verify_phase, print_phase;
  for (int r = 0; r < repeats; ++r) {
    {
      auto file = std::make_shared<wb::SourceFile>("bench.py", text);
      Stamp t0 = Stamp::Now();
      wb::script::detail::Cst cst(file, file->text(), 0);
      Stamp t1 = Stamp::Now();
      if (!cst.ok()) return 1;
      cst_phase.Add(t0, t1);
    }

    Stamp p0 = Stamp::Now();
    wb::script::ParseResult parsed = wb::script::Parse(text, "bench.py");
    Stamp p1 = Stamp::Now();
    if (!parsed.ok()) {
      std::fprintf(stderr, "bench: the generated module did not parse:\n%s",
                   wb::RenderDiagnostics(parsed.diagnostics).c_str());
      return 1;
    }
    wb::DiagnosticList findings = wb::tir::VerifyWellFormed(parsed.module);
    Stamp p2 = Stamp::Now();
    std::string printed = wb::script::Print(parsed);
    Stamp p3 = Stamp::Now();
    if (findings.HasErrors()) {
      std::fprintf(stderr, "bench: verifier found errors:\n%s",
                   wb::RenderDiagnostics(findings).c_str());
      return 1;
    }
    parse_phase.Add(p0, p1);
    verify_phase.Add(p1, p2);
    print_phase.Add(p2, p3);
  }
  double cst = Median(cst_phase.wall), parse = Median(parse_phase.wall),
         verify = Median(verify_phase.wall), print = Median(print_phase.wall);
  double cst_c = Median(cst_phase.cpu), parse_c = Median(parse_phase.cpu),
         verify_c = Median(verify_phase.cpu), print_c = Median(print_phase.cpu);
  double total = parse + verify + print, total_c = parse_c + verify_c + print_c;
  std::printf("module: %d lines, %zu bytes; median of %d runs\n", lines, text.size(), repeats);
  Row("CST (lex + parse)", cst, cst_c);
  Row("IR builder", parse - cst, parse_c - cst_c, "  (parse minus CST)");
  Row("verify", verify, verify_c);
  Row("print", print, print_c);
  Row("end to end", total, total_c);
  std::printf("  lines/s: %.0f wall, %.0f cpu (target 100000)\n", lines / total, lines / total_c);
  return 0;
}
