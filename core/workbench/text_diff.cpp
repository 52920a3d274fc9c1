#include "workbench/text_diff.h"

#include <algorithm>
#include <unordered_map>

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

// Myers' O(ND) diff in linear space (Myers 1986, section 4b): find the middle snake of an optimal
// edit path by running the greedy search from both ends at once, then recurse on the two halves
// around it. Lines are interned to integers first, so each comparison is one integer compare.
// Space: two diagonal vectors of N+M+3 entries, shared by every level, and the matched pairs.
class LinearMyers {
 public:
  LinearMyers(const std::vector<int>& a, const std::vector<int>& b) : a_(a), b_(b) {
    size_t size = a.size() + b.size() + 3;
    forward_.resize(size);
    backward_.resize(size);
  }

  std::vector<std::pair<int, int>> Run() {
    Compare(0, static_cast<int>(a_.size()), 0, static_cast<int>(b_.size()));
    return std::move(pairs_);
  }

 private:
  struct Snake {
    int x0, y0, x1, y1;  // the diagonal run from (x0, y0) to (x1, y1), relative to the range
    int d;               // edit distance of the whole range
  };

  // Matches a[a0, a1) against b[b0, b1); appends the matched pairs in order.
  void Compare(int a0, int a1, int b0, int b1) {
    while (a0 < a1 && b0 < b1 && a_[a0] == b_[b0]) pairs_.emplace_back(a0++, b0++);
    int suffix = 0;
    while (a1 - suffix > a0 && b1 - suffix > b0 && a_[a1 - 1 - suffix] == b_[b1 - 1 - suffix]) {
      ++suffix;
    }
    a1 -= suffix;
    b1 -= suffix;
    if (a0 < a1 && b0 < b1) {
      Snake s = MiddleSnake(a0, a1, b0, b1);
      if (s.d > 1) {
        Compare(a0, a0 + s.x0, b0, b0 + s.y0);
        for (int x = s.x0, y = s.y0; x < s.x1; ++x, ++y) pairs_.emplace_back(a0 + x, b0 + y);
        Compare(a0 + s.x1, a1, b0 + s.y1, b1);
      } else {
        // One insertion or deletion: the shorter side is a subsequence of the longer one, and
        // any embedding of it is a longest common subsequence.
        bool a_short = a1 - a0 <= b1 - b0;
        int i = a_short ? a0 : b0, i_end = a_short ? a1 : b1, j = a_short ? b0 : a0;
        const std::vector<int>& shorter = a_short ? a_ : b_;
        const std::vector<int>& longer = a_short ? b_ : a_;
        for (; i < i_end; ++i, ++j) {
          while (longer[j] != shorter[i]) ++j;
          pairs_.push_back(a_short ? std::pair{i, j} : std::pair{j, i});
        }
      }
    }
    for (int k = 0; k < suffix; ++k) pairs_.emplace_back(a1 + k, b1 + k);
  }

  // Both searches advance one edit per round: forward_[k] is the furthest x reached on diagonal
  // k = x - y from (0, 0), backward_[k] the smallest x reached on diagonal k from (n, m). The
  // first diagonal on which they meet holds the middle snake.
  Snake MiddleSnake(int a0, int a1, int b0, int b1) {
    const int n = a1 - a0, m = b1 - b0, delta = n - m;
    const bool odd = (delta & 1) != 0;
    const int dmax = (n + m + 1) / 2;
    // Forward diagonals lie in [-dmax-1, dmax+1], backward ones in [delta-dmax-1, delta+dmax+1].
    auto f = [&](int k) -> int& { return forward_[k + dmax + 1]; };
    auto r = [&](int k) -> int& { return backward_[k - delta + dmax + 1]; };
    f(1) = 0;
    r(delta + 1) = n + 1;
    for (int d = 0; d <= dmax; ++d) {
      for (int k = -d; k <= d; k += 2) {
        int x = (k == -d || (k != d && f(k - 1) < f(k + 1))) ? f(k + 1) : f(k - 1) + 1;
        int y = x - k, x0 = x, y0 = y;
        while (x < n && y < m && a_[a0 + x] == b_[b0 + y]) ++x, ++y;
        f(k) = x;
        if (odd && k >= delta - (d - 1) && k <= delta + (d - 1) && x >= r(k)) {
          return {x0, y0, x, y, 2 * d - 1};
        }
      }
      for (int k = -d; k <= d; k += 2) {
        int kk = k + delta;
        int x = (k == -d || (k != d && r(kk + 1) - 1 < r(kk - 1))) ? r(kk + 1) - 1 : r(kk - 1);
        int y = x - kk, x1 = x, y1 = y;
        while (x > 0 && y > 0 && a_[a0 + x - 1] == b_[b0 + y - 1]) --x, --y;
        r(kk) = x;
        if (!odd && kk >= -d && kk <= d && x <= f(kk)) return {x, y, x1, y1, 2 * d};
      }
    }
    return {0, 0, 0, 0, n + m};  // not reached: the searches meet by round dmax
  }

  const std::vector<int>& a_;
  const std::vector<int>& b_;
  std::vector<int> forward_, backward_;
  std::vector<std::pair<int, int>> pairs_;
};

// The matched line pairs of a longest common subsequence of `a` and `b`, in order.
std::vector<std::pair<int, int>> CommonLines(const std::vector<std::string_view>& a,
                                             const std::vector<std::string_view>& b) {
  std::unordered_map<std::string_view, int> ids;
  ids.reserve(a.size() + b.size());
  auto intern = [&](const std::vector<std::string_view>& lines) {
    std::vector<int> out;
    out.reserve(lines.size());
    for (std::string_view line : lines) {
      out.push_back(ids.emplace(line, static_cast<int>(ids.size())).first->second);
    }
    return out;
  };
  std::vector<int> ia = intern(a), ib = intern(b);
  // A line that the other side lacks is never matched: leave it out of the search (which costs
  // time per edit) and map the matched positions back. The result stays a longest one.
  std::vector<char> in_a(ids.size(), 0), in_b(ids.size(), 0);
  for (int id : ia) in_a[id] = 1;
  for (int id : ib) in_b[id] = 1;
  std::vector<int> ka, kb, pos_a, pos_b;
  for (size_t i = 0; i < ia.size(); ++i) {
    if (in_b[ia[i]]) ka.push_back(ia[i]), pos_a.push_back(static_cast<int>(i));
  }
  for (size_t j = 0; j < ib.size(); ++j) {
    if (in_a[ib[j]]) kb.push_back(ib[j]), pos_b.push_back(static_cast<int>(j));
  }
  std::vector<std::pair<int, int>> pairs = LinearMyers(ka, kb).Run();
  for (auto& [i, j] : pairs) i = pos_a[i], j = pos_b[j];
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
