// Regression manifests: what `workbench --batch MANIFEST.json` runs in CI. A manifest lists
// cases (an input module, an optional pipeline, what to check); paths are relative to the
// manifest, inputs may be globs, and `defaults` apply to every case. The format is documented
// by resources/manifest.schema.json.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostic.h"

namespace wb::workbench {

struct ManifestCase {
  std::string name;
  std::string input;     // absolute path
  std::string pipeline;  // empty: no passes
  double timeout_s = 120;
  // Checks.
  std::string ir_golden;                          // printed module after the pipeline
  std::map<std::string, std::string> pass_goldens;  // pass name -> printed module after it
};

struct Manifest {
  std::string path;
  std::string dir;
  std::vector<ManifestCase> cases;
};

// Reads and validates a manifest. Every problem is a diagnostic naming the case and the field
// ("case 'mlp': field 'pipeline' must be a string"). Globs expand in sorted order; a glob
// case named N gives cases "N/<file stem>".
std::optional<Manifest> LoadManifest(const std::string& path, DiagnosticList& diags);

}  // namespace wb::workbench
