// A golden case of a lowering pass suite: TVMScript before and after, by name.
#pragma once

#include <QTest>

#include "lowering_check.h"

namespace wb::testing {

struct GoldenCase {
  const char* name;
  const char* before;
  const char* after;
};

// Adds one data row per case (column "index") for a data-driven Qt Test function.
template <size_t N>
void AddGoldenRows(const GoldenCase (&cases)[N]) {
  QTest::addColumn<int>("index");
  for (size_t i = 0; i < N; ++i) QTest::newRow(cases[i].name) << static_cast<int>(i);
}

}  // namespace wb::testing
