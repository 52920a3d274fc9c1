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
};

QTEST_APPLESS_MAIN(TestTextDiff)
#include "tst_text_diff.moc"
