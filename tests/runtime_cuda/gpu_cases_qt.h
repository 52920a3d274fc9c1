// The GPU cases (gpu_cases.h) as Qt Test data rows: `cases_data()` adds a row per case of a
// suite, `cases()` runs the row's case, a CaseSkipped skips and a CaseFailed fails the row.
#pragma once

#include <QTest>

#include <exception>

#include "gpu_cases.h"

namespace wb::gpucases {

inline void AddRows(const char* suite) {
  QTest::addColumn<int>("index");
  const std::vector<Case>& all = Cases();
  for (size_t i = 0; i < all.size(); ++i) {
    if (std::string(all[i].suite) == suite) QTest::newRow(all[i].name) << static_cast<int>(i);
  }
}

inline void RunRow() {
  QFETCH(int, index);
  try {
    Cases().at(index).run();
  } catch (const CaseSkipped& s) {
    QSKIP(s.why.c_str());
  } catch (const CaseFailed& f) {
    QFAIL(f.what.c_str());
  } catch (const std::exception& e) {
    QFAIL((std::string("unexpected exception: ") + e.what()).c_str());
  }
}

}  // namespace wb::gpucases
