// A workspace: what the workbench window reopens on. Saved as JSON:
//   {"version": 1, "file": "matmul.py", "pipeline": "LowerInitBlock, ...",
//    "schedule": {"func": "main", "recipe": "b0 = sch.get_sblock(...)\n...",
//                 "others": {"relu": "..."}}}
// `others` holds the recipes of the other functions that have schedule steps.
// `file` is stored relative to the workspace file when it lies under the same folder, so a
// workspace moves with its module.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "support/diagnostic.h"

namespace wb::workbench {

struct Workspace {
  std::string file;  // absolute once loaded
  std::string pipeline;
  std::string schedule_func;
  std::string recipe;
  std::map<std::string, std::string> other_recipes;  // function name -> recipe
};

// The JSON text of `ws` saved at `workspace_path`.
std::string WorkspaceToJson(const Workspace& ws, const std::string& workspace_path);
// Reads a workspace; every problem (not JSON, a wrong field type, a newer version) is a
// diagnostic and gives nullopt.
std::optional<Workspace> WorkspaceFromJson(const std::string& text, const std::string& workspace_path,
                                           DiagnosticList& diags);

DiagnosticList SaveWorkspace(const Workspace& ws, const std::string& path);
std::optional<Workspace> LoadWorkspace(const std::string& path, DiagnosticList& diags);

}  // namespace wb::workbench
