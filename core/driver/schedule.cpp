// `workbench --batch FILE --schedule RECIPE [--func NAME] [--check | --check-each]`: the module
// after a schedule recipe (TVM's trace syntax), checked as a whole (--check) or step by step
// (--check-each) against the unscheduled function on seeded inputs.
#include <ostream>

#include "driver/commands.h"
#include "driver/module_input.h"

namespace wb::driver {

int RunScheduleCommand(const BatchOptions& opts, std::ostream& out, std::ostream& err) {
  script::ParseResult parsed;
  if (!ParseFileOrReport(opts.files[0], &parsed, opts.color, err)) return ParseFailureCode(parsed);
  if (int rc = ApplyScheduleOption(opts, &parsed.module, err)) return rc;
  out << script::Print(parsed) << "\n";
  return 0;
}

}  // namespace wb::driver
