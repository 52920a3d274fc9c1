// A trace replayed onto a schedule instruction by instruction, through the recipe methods'
// handlers (schedule/recipe.h) but without printing the trace and reading the text back: what the
// tuner does for every candidate of a sketch (default_sketch.h) and for the database's records it
// starts from. The handlers are the ones ApplyRecipe calls, so a replay does what the trace's
// text would do; a value the trace holds as raw text that is neither a lambda, a number nor a
// ("read" | "write", i) pair (an annotation's dict) is not converted here, and the caller reads
// the text instead.
#pragma once

#include <string>

#include "schedule/schedule.h"
#include "schedule/trace.h"

namespace wb::meta_schedule {

enum class ReplayOutcome {
  kApplied,      // every instruction applied
  kFailed,       // an instruction did not apply (*error says which and why); the ones before stay
  kUnsupported,  // a value is not converted (nothing applied): replay the text instead
};

ReplayOutcome ReplayTrace(schedule::Schedule& sch, const schedule::Trace& trace, std::string* error);

}  // namespace wb::meta_schedule
