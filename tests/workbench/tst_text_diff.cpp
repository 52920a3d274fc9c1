// Line diffs: changed lines on each side and unified diff output.
#include <QTest>

#include <random>

#include "workbench/text_diff.h"

using namespace wb::workbench;

class TestTextDiff : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void identical() {
    LineDiff d = DiffLines("a\nb\nc", "a\nb\nc");
    QVERIFY(d.identical());
    QCOMPARE(QString::fromStdString(UnifiedDiff("a\nb", "a\nb", "x", "y")), QString());
  }

  void changedLineInTheMiddle() {
    LineDiff d = DiffLines("a\nb\nc\nd", "a\nB\nc\nd");
    QCOMPARE(d.removed, (std::vector<bool>{false, true, false, false}));
    QCOMPARE(d.added, (std::vector<bool>{false, true, false, false}));
  }

  void insertionsAndDeletions() {
    LineDiff d = DiffLines("x\na\nb\nc", "a\nb\nnew\nc\nend");
    QCOMPARE(d.removed, (std::vector<bool>{true, false, false, false}));
    QCOMPARE(d.added, (std::vector<bool>{false, false, true, false, true}));
  }

  void unifiedFormat() {
    std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10";
    std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10";
    QCOMPARE(QString::fromStdString(UnifiedDiff(before, after, "a.py", "b.py")),
             QString("--- a.py\n+++ b.py\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"));
  }

  // The common lines found form a valid subsequence of both sides, and applying the diff's
  // markings reproduces each side's kept lines in the same order.
  void randomizedConsistency() {
    std::mt19937 rng(7);
    for (int round = 0; round < 300; ++round) {
      std::string a, b;
      int n = rng() % 12, m = rng() % 12;
      for (int i = 0; i < n; ++i) a += std::string(1, char('a' + rng() % 4)) + "\n";
      for (int i = 0; i < m; ++i) b += std::string(1, char('a' + rng() % 4)) + "\n";
      LineDiff d = DiffLines(a, b);
      auto la = SplitLines(a), lb = SplitLines(b);
      std::vector<std::string_view> ka, kb;
      for (size_t i = 0; i < la.size(); ++i) if (!d.removed[i]) ka.push_back(la[i]);
      for (size_t i = 0; i < lb.size(); ++i) if (!d.added[i]) kb.push_back(lb[i]);
      QCOMPARE(ka, kb);
      // Minimality against a DP longest common subsequence.
      std::vector<std::vector<int>> dp(la.size() + 1, std::vector<int>(lb.size() + 1, 0));
      for (size_t i = 1; i <= la.size(); ++i)
        for (size_t j = 1; j <= lb.size(); ++j)
          dp[i][j] = la[i - 1] == lb[j - 1] ? dp[i - 1][j - 1] + 1
                                            : std::max(dp[i - 1][j], dp[i][j - 1]);
      QCOMPARE(int(ka.size()), dp[la.size()][lb.size()]);
    }
  }

  // Longer sides, skewed lengths and small alphabets (many equal lines, many ways to match)
  // drive the middle-snake recursion through odd and even deltas; the result must stay a
  // longest common subsequence.
  void randomizedAgainstDynamicProgramming() {
    std::mt19937 rng(11);
    for (int round = 0; round < 1500; ++round) {
      int n = rng() % 60, m = round % 4 == 0 ? rng() % 5 : rng() % 60;
      int alphabet = 1 + rng() % 6;
      std::vector<std::string> la(n), lb(m);
      for (auto& l : la) l = std::string(1, char('a' + rng() % alphabet));
      for (auto& l : lb) l = std::string(1, char('a' + rng() % alphabet));
      // Some rounds: `b` is `a` with a few edits, as a pass makes.
      if (round % 3 == 0) {
        lb = la;
        for (int e = rng() % 4; e > 0; --e) {
          size_t at = lb.empty() ? 0 : rng() % lb.size();
          if (rng() % 2 && !lb.empty()) lb.erase(lb.begin() + at);
          else lb.insert(lb.begin() + at, "new" + std::to_string(e));
        }
      }
      std::string a, b;
      for (auto& l : la) a += l + "\n";
      for (auto& l : lb) b += l + "\n";
      LineDiff d = DiffLines(a, b);
      QCOMPARE(d.removed.size(), la.size());
      QCOMPARE(d.added.size(), lb.size());
      std::vector<std::string> ka, kb;
      for (size_t i = 0; i < la.size(); ++i) if (!d.removed[i]) ka.push_back(la[i]);
      for (size_t j = 0; j < lb.size(); ++j) if (!d.added[j]) kb.push_back(lb[j]);
      QCOMPARE(ka, kb);
      std::vector<std::vector<int>> dp(la.size() + 1, std::vector<int>(lb.size() + 1, 0));
      for (size_t i = 1; i <= la.size(); ++i)
        for (size_t j = 1; j <= lb.size(); ++j)
          dp[i][j] = la[i - 1] == lb[j - 1] ? dp[i - 1][j - 1] + 1
                                            : std::max(dp[i - 1][j], dp[i][j - 1]);
      QCOMPARE(int(ka.size()), dp[la.size()][lb.size()]);
    }
  }

  // A lowering dump's size: 50,000 lines, a change every seventh line, plus a block of lines
  // moved (lines both sides share, so the search itself has edits to make). The quadratic
  // trace this replaced needed gigabytes here.
  void fiftyThousandLines() {
    std::string a, b;
    int changed = 0;
    for (int i = 0; i < 50000; ++i) {
      std::string line = "  x_" + std::to_string(i % 500) + " = T.float32(" + std::to_string(i) + ")";
      a += line + "\n";
      if (i % 7 == 3) {
        b += line + "  # changed\n";
        ++changed;
      } else {
        b += line + "\n";
      }
    }
    b += "  tail\n";
    LineDiff d = DiffLines(a, b);
    int removed = 0, added = 0;
    for (bool r : d.removed) removed += r;
    for (bool x : d.added) added += x;
    QCOMPARE(removed, changed);
    QCOMPARE(added, changed + 1);
    QVERIFY(d.added.back());
    // Lines shared by both sides in a different order: x_0..x_99 of the first 100 lines moved
    // to the end of the second side. Exactly those 100 are the edits on each side.
    std::string c, e;
    std::vector<std::string> lines;
    for (int i = 0; i < 20000; ++i) lines.push_back("v" + std::to_string(i % 3000));
    for (auto& l : lines) c += l + "\n";
    for (size_t i = 100; i < lines.size(); ++i) e += lines[i] + "\n";
    for (int i = 0; i < 100; ++i) e += lines[i] + "\n";
    LineDiff moved = DiffLines(c, e);
    removed = added = 0;
    for (bool r : moved.removed) removed += r;
    for (bool x : moved.added) added += x;
    QCOMPARE(removed, 100);
    QCOMPARE(added, 100);
  }
};

QTEST_APPLESS_MAIN(TestTextDiff)
#include "tst_text_diff.moc"
