// Schedule recipes: the Python that `Trace::AsPython` prints, or that a user writes against
// TVM's API (`sch.split(l1, [None, 32])`), read and applied onto a Schedule. The accepted subset
// is statements of the form `[a, b, ... =] sch.method(args)`, with positional or keyword
// arguments, None/True/False, ints, strings, lists and tuples, RV names, and `#` comments;
// anything else is an error with its span, never silently skipped.
#pragma once

#include <string>
#include <string_view>

#include "schedule/schedule.h"
#include "support/diagnostic.h"

namespace wb::schedule {

// Applies `text` statement by statement. Stops at the first failing statement (a parse error or a
// primitive that does not apply) and reports it with that statement's span; the statements
// before it stay applied.
DiagnosticList ApplyRecipe(Schedule& sch, std::string_view text, std::string path = "<recipe>");

}  // namespace wb::schedule
