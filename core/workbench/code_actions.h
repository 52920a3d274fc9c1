// What an editor can do to a TVMScript document beyond reading it: run a pass or a pipeline
// over it, or apply a schedule primitive at a loop or block, each giving the new text of the
// whole document (the canonical printer's). The LSP server turns these into code actions and
// custom requests; nothing here knows JSON-RPC.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lang/analysis.h"

namespace wb::workbench {

// The new text of a document, or why there is none.
struct RewriteResult {
  std::optional<std::string> text;
  std::string error;
  // For schedule rewrites: the error's 1-based line and column in the recipe (0 when none).
  uint32_t error_line = 0;
  uint32_t error_column = 0;
  std::string trace;  // the schedule trace that produced `text`
};

// The pipelines and passes of the PassRegistry a code action may run, pipelines first.
struct PassChoice {
  std::string name;
  bool is_pipeline = false;
};
std::vector<PassChoice> PassChoices();

// Runs `pipeline` (a registered pipeline's name, a pass, or pass list text) over the document.
// Fails when the document does not parse, the pipeline text is wrong or a pass fails.
RewriteResult ApplyPipeline(const lang::Document& doc, const std::string& pipeline);

// Replays `recipe` onto the PrimFunc `func_name` of the document (empty: "main", else the only
// PrimFunc). A recipe error or a primitive that does not apply comes back as the error.
RewriteResult ApplySchedule(const lang::Document& doc, const std::string& recipe,
                            const std::string& func_name = "");

// One schedule primitive applicable at a position: its title, the recipe step, and the
// document's text after it (already checked to apply).
struct ScheduleAction {
  std::string title;
  std::string func_name;
  std::string recipe;
  std::string new_text;
};
// Split, fuse, reorder, parallel, vectorize and unroll at the loop under the cursor (or the
// innermost loop of the block under it), each offered only when it applies.
std::vector<ScheduleAction> ComputeScheduleActions(const lang::Document& doc, lang::TextPosition position);

}  // namespace wb::workbench
