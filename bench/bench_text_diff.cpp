// The line diff behind the pass explorer's before/after panes (workbench/text_diff.h) on
// lowering-dump-sized inputs: time, and peak memory growth of this process, for
//  1. 50,000 lines with a change every seventh line, 50,000 lines with a block of shared lines
//     moved, and 50,000 lines with every seventh line replaced by a copy of another (the search
//     itself has edits to make in the last two), against GNU diff on the same files (`diff
//     --minimal`, a process, so its time includes writing its output to /dev/null);
//  2. 12,000 lines with 4,000 changed, against the quadratic-space Myers it replaced (kept here
//     as the reference, run last so that its peak shows as growth).
// Usage: bench_text_diff [LINES]   (default 50000)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "workbench/text_diff.h"

namespace {

using namespace wb::workbench;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
long PeakKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// The previous implementation: Myers' greedy search keeping every round's diagonal vector to
// walk the path back (O(D^2) memory); returns the number of matched lines.
size_t QuadraticCommon(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  int n = static_cast<int>(a.size()), m = static_cast<int>(b.size()), max = n + m;
  std::vector<int> v(2 * max + 2, 0);
  std::vector<std::vector<int>> trace;
  int found = -1;
  for (int d = 0; d <= max && found < 0; ++d) {
    trace.push_back(v);
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[max + k - 1] < v[max + k + 1])) ? v[max + k + 1]
                                                                        : v[max + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[max + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  return static_cast<size_t>((n + m - found) / 2);
}

size_t Kept(const LineDiff& d) {
  return static_cast<size_t>(std::count(d.removed.begin(), d.removed.end(), false));
}

double GnuDiff(const std::string& a, const std::string& b) {
  if (std::system("command -v diff > /dev/null 2>&1") != 0) return -1;
  std::ofstream("/tmp/bench_text_diff_a.txt") << a;
  std::ofstream("/tmp/bench_text_diff_b.txt") << b;
  double t0 = Now();
  int rc = std::system("diff --minimal /tmp/bench_text_diff_a.txt /tmp/bench_text_diff_b.txt > /dev/null");
  double t = Now() - t0;
  std::remove("/tmp/bench_text_diff_a.txt");
  std::remove("/tmp/bench_text_diff_b.txt");
  return (rc == -1) ? -1 : t;
}

void Against(const char* what, const std::string& a, const std::string& b) {
  long rss0 = PeakKb();
  double t0 = Now();
  LineDiff d = DiffLines(a, b);
  double t = Now() - t0;
  long grown = PeakKb() - rss0;
  double gnu = GnuDiff(a, b);
  std::printf("%-44s %8.3f s  peak +%6ld KB  %zu lines kept", what, t, grown, Kept(d));
  if (gnu > 0) std::printf("   GNU diff --minimal %.3f s (ratio %.2f)", gnu, t / gnu);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  int lines = argc > 1 ? std::atoi(argv[1]) : 50000;
  // 1. Lowering-dump sized.
  std::string a, b;
  for (int i = 0; i < lines; ++i) {
    std::string line = "  x_" + std::to_string(i % 500) + " = T.float32(" + std::to_string(i) + ")";
    a += line + "\n";
    b += line + (i % 7 == 3 ? "  # changed\n" : "\n");
  }
  Against((std::to_string(lines) + " lines, every 7th changed:").c_str(), a, b);
  std::string c, e;
  std::vector<std::string> shared;
  for (int i = 0; i < lines; ++i) shared.push_back("v" + std::to_string(i % 3000));
  for (auto& l : shared) c += l + "\n";
  for (size_t i = 1000; i < shared.size(); ++i) e += shared[i] + "\n";
  for (int i = 0; i < 1000; ++i) e += shared[i] + "\n";
  Against((std::to_string(lines) + " lines, 1,000 shared lines moved:").c_str(), c, e);
  // Every 7th line replaced by another line of the file: no line is left out of the search,
  // which makes its ~14,000 edits one by one (the O((N+M)D) worst case of these three).
  std::string f, g;
  for (int i = 0; i < lines; ++i) {
    f += "  y = x_" + std::to_string(i % 500) + "\n";
    g += "  y = x_" + std::to_string((i % 7 == 3 ? i + 250 : i) % 500) + "\n";
  }
  Against((std::to_string(lines) + " lines, every 7th another line's copy:").c_str(), f, g);
  // 2. The case: 4,000 changed lines.
  {
    std::string a, b;
    for (int i = 0; i < 12000; ++i) {
      a += "  v" + std::to_string(i % 700) + " = x[" + std::to_string(i) + "]\n";
      b += (i % 3 == 0 ? "  w" : "  v") + std::to_string(i % 700) + " = x[" + std::to_string(i) + "]\n";
    }
    long rss0 = PeakKb();
    double t0 = Now();
    LineDiff d = DiffLines(a, b);
    double t_new = Now() - t0;
    long grown_new = PeakKb() - rss0;
    auto la = SplitLines(a), lb = SplitLines(b);
    rss0 = PeakKb();
    t0 = Now();
    size_t kept_old = QuadraticCommon(la, lb);
    double t_old = Now() - t0;
    long grown_old = PeakKb() - rss0;
    std::printf("12,000 lines, 4,000 changed:\n  linear-space %8.3f s  peak +%7ld KB  %zu kept\n"
                "  quadratic    %8.3f s  peak +%7ld KB  %zu kept   (time ratio %.2g)\n",
                t_new, grown_new, Kept(d), t_old, grown_old, kept_old, t_new / t_old);
    if (kept_old != Kept(d)) std::printf("  MISMATCH: the two disagree on the common lines\n");
  }
  return 0;
}
