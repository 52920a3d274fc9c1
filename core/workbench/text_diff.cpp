#include "workbench/text_diff.h"

#include <algorithm>

namespace wb::workbench {

bool LineDiff::identical() const {
  return std::none_of(removed.begin(), removed.end(), [](bool b) { return b; }) &&
         std::none_of(added.begin(), added.end(), [](bool b) { return b; });
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

namespace {

// Myers' O(ND) shortest edit script over lines; returns the matched pairs.
std::vector<std::pair<int, int>> CommonLines(const std::vector<std::string_view>& a,
                                             const std::vector<std::string_view>& b) {
  // Trim the common prefix and suffix first: pass diffs are usually local.
  int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  int prefix = 0;
  while (prefix < n && prefix < m && a[prefix] == b[prefix]) ++prefix;
  int suffix = 0;
  while (suffix < n - prefix && suffix < m - prefix && a[n - 1 - suffix] == b[m - 1 - suffix]) {
    ++suffix;
  }
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < prefix; ++i) pairs.emplace_back(i, i);
  int an = n - prefix - suffix, bm = m - prefix - suffix;
  if (an > 0 && bm > 0) {
    int max = an + bm;
    std::vector<int> v(2 * max + 2, 0);
    std::vector<std::vector<int>> trace;
    int found_d = -1;
    for (int d = 0; d <= max && found_d < 0; ++d) {
      trace.push_back(v);
      for (int k = -d; k <= d; k += 2) {
        int x = (k == -d || (k != d && v[max + k - 1] < v[max + k + 1])) ? v[max + k + 1]
                                                                          : v[max + k - 1] + 1;
        int y = x - k;
        while (x < an && y < bm && a[prefix + x] == b[prefix + y]) ++x, ++y;
        v[max + k] = x;
        if (x >= an && y >= bm) {
          found_d = d;
          break;
        }
      }
    }
    // Walk back through the trace collecting diagonal moves.
    std::vector<std::pair<int, int>> middle;
    int x = an, y = bm;
    for (int d = found_d; d > 0; --d) {
      const std::vector<int>& pv = trace[d];
      int k = x - y;
      int prev_k = (k == -d || (k != d && pv[max + k - 1] < pv[max + k + 1])) ? k + 1 : k - 1;
      int prev_x = pv[max + prev_k];
      int prev_y = prev_x - prev_k;
      while (x > prev_x && y > prev_y) {
        --x, --y;
        middle.emplace_back(prefix + x, prefix + y);
      }
      x = prev_x, y = prev_y;
    }
    while (x > 0 && y > 0) {
      --x, --y;
      middle.emplace_back(prefix + x, prefix + y);
    }
    std::reverse(middle.begin(), middle.end());
    pairs.insert(pairs.end(), middle.begin(), middle.end());
  }
  for (int i = 0; i < suffix; ++i) pairs.emplace_back(n - suffix + i, m - suffix + i);
  return pairs;
}

}  // namespace

LineDiff DiffLines(std::string_view before, std::string_view after) {
  auto a = SplitLines(before);
  auto b = SplitLines(after);
  LineDiff diff;
  diff.removed.assign(a.size(), true);
  diff.added.assign(b.size(), true);
  for (auto [i, j] : CommonLines(a, b)) {
    diff.removed[i] = false;
    diff.added[j] = false;
  }
  return diff;
}

std::string UnifiedDiff(std::string_view before, std::string_view after,
                        const std::string& before_name, const std::string& after_name,
                        int context) {
  auto a = SplitLines(before);
  auto b = SplitLines(after);
  auto pairs = CommonLines(a, b);
  // Edit script as a list of (kind, a index, b index): ' ', '-', '+'.
  struct Op {
    char kind;
    int i, j;
  };
  std::vector<Op> ops;
  int i = 0, j = 0;
  for (auto [pi, pj] : pairs) {
    while (i < pi) ops.push_back({'-', i++, j});
    while (j < pj) ops.push_back({'+', i, j++});
    ops.push_back({' ', i++, j++});
  }
  while (i < static_cast<int>(a.size())) ops.push_back({'-', i++, j});
  while (j < static_cast<int>(b.size())) ops.push_back({'+', i, j++});
  if (std::all_of(ops.begin(), ops.end(), [](const Op& o) { return o.kind == ' '; })) return "";

  std::string out = "--- " + before_name + "\n+++ " + after_name + "\n";
  size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].kind == ' ') {
      ++k;
      continue;
    }
    size_t start = k >= size_t(context) ? k - context : 0;
    size_t end = k;
    // Extend the hunk while changes are within 2*context of each other.
    size_t last_change = k;
    while (end < ops.size()) {
      if (ops[end].kind != ' ') last_change = end;
      if (end - last_change > size_t(2 * context)) break;
      ++end;
    }
    end = std::min(ops.size(), last_change + context + 1);
    int a_start = ops[start].i, b_start = ops[start].j, a_len = 0, b_len = 0;
    std::string body;
    for (size_t h = start; h < end; ++h) {
      const Op& o = ops[h];
      if (o.kind != '+') ++a_len;
      if (o.kind != '-') ++b_len;
      body += o.kind;
      body += std::string(o.kind == '+' ? b[o.j] : a[o.i]);
      body += '\n';
    }
    out += "@@ -" + std::to_string(a_start + (a_len ? 1 : 0)) + "," + std::to_string(a_len) +
           " +" + std::to_string(b_start + (b_len ? 1 : 0)) + "," + std::to_string(b_len) +
           " @@\n" + body;
    k = end;
  }
  return out;
}

}  // namespace wb::workbench
