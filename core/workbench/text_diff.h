// Line diffs of printed IR: which lines of the module before a pass differ from the module after
// it. The GUI highlights them side by side; batch reports print them as unified diffs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wb::workbench {

struct LineDiff {
  // For each line of each side: true when it is not part of the longest common subsequence.
  std::vector<bool> removed;  // lines of `before`
  std::vector<bool> added;    // lines of `after`
  bool identical() const;
};

std::vector<std::string_view> SplitLines(std::string_view text);
LineDiff DiffLines(std::string_view before, std::string_view after);
// `diff -u` style output with `context` lines around each change; empty when identical.
std::string UnifiedDiff(std::string_view before, std::string_view after,
                        const std::string& before_name, const std::string& after_name,
                        int context = 3);

}  // namespace wb::workbench
