// Pass control from outside C++: the part of a PassContext that a user sets in every face of the
// workbench (batch `--opt-level N --pass-config KEY=JSON --disable-pass NAME --require-pass NAME`,
// a manifest case's fields, the LSP server's pipeline request, the GUI's form), read and checked
// here once so that each face reports the same mistakes the same way.
//
// Config keys are registered by the passes that read them (TVM's
// TVM_REGISTER_PASS_CONFIG_OPTION), each with typed fields:
//   "tirx.UnrollLoop": {"auto_max_step": int, "explicit_unroll": bool, ...}
// A value is checked against the key's fields, so a typo is an error naming the key and the
// known ones rather than an option silently ignored.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/transform.h"
#include "support/diagnostic.h"
#include "transform/registry.h"

namespace wb::transform {

// One registered config key: the option map a pass reads with PassContext::GetConfig(key, field).
struct PassConfigOption {
  std::string key;
  std::string doc;
  std::vector<PassParam> fields;  // each with its type, default and doc
};

class PassConfigRegistry {
 public:
  static PassConfigRegistry& Global();
  void Register(PassConfigOption option);
  const PassConfigOption* Find(std::string_view key) const;
  std::vector<const PassConfigOption*> Options() const;  // by key

 private:
  std::map<std::string, PassConfigOption, std::less<>> options_;
};

// Static registration from the file of the pass that reads the key.
struct PassConfigRegistrar {
  explicit PassConfigRegistrar(PassConfigOption option) {
    PassConfigRegistry::Global().Register(std::move(option));
  }
};

struct PassControl {
  std::optional<int> opt_level;
  // Key -> MapObj of the fields set (only those; a pass takes its default for the others).
  std::map<std::string, ir::ObjectRef> config;
  std::vector<std::string> disabled_passes;
  std::vector<std::string> required_passes;

  bool empty() const;
  // Sets these over `context`: the opt level when one is set, the config fields (merged into
  // the context's, these winning), and the pass lists (appended).
  void ApplyTo(ir::PassContext& context) const;
  // The settings as JSON, in the shape ReadPassControl reads: {"opt_level", "pass_config",
  // "disabled_passes", "required_passes"}, only those set.
  nlohmann::json ToJson() const;
  // "--opt-level 3 --pass-config 'tirx.UnrollLoop={...}' --disable-pass X": what batch takes.
  std::string CommandLineText() const;
};

// PassContext::Current() with `control` applied: what a face enters (PassContext::Scope) for a
// whole command, so that its pipelines and the builds' lowering pipelines all see it.
ir::PassContext ContextWith(const PassControl& control);

// The opt levels passes are registered at run from 0 to this (TVM's range).
inline constexpr int kMaxOptLevel = 4;

// Each returns false with a diagnostic on `diags` naming what is wrong.
bool SetOptLevel(int64_t level, PassControl* control, DiagnosticList& diags);
// "KEY=JSON" (batch): the JSON object's fields merged into the key's.
bool AddConfigText(std::string_view text, PassControl* control, DiagnosticList& diags);
// One key's value: a JSON object whose fields the key declares, each of its type.
bool AddConfig(const std::string& key, const nlohmann::json& value, PassControl* control,
               DiagnosticList& diags);
// A registered pass name (an unknown one is an error listing the near matches).
bool AddDisabledPass(std::string_view name, PassControl* control, DiagnosticList& diags);
bool AddRequiredPass(std::string_view name, PassControl* control, DiagnosticList& diags);

// The fields ReadPassControl reads, for readers that reject unknown fields.
const std::vector<std::string>& PassControlFields();
// Reads those fields of `object` (a manifest case, an LSP request's params) when present:
//   "opt_level": 0..4, "pass_config": {KEY: {FIELD: value}}, "disabled_passes": [NAME],
//   "required_passes": [NAME]
// Each error names the field, prefixed by `where` ("case 'mlp': ").
bool ReadPassControl(const nlohmann::json& object, PassControl* control, DiagnosticList& diags,
                     const std::string& where = "");

// Up to `limit` of `candidates` closest to `name` (edit distance, case-insensitive), closest
// first; those too far to be a typo are left out.
std::vector<std::string> NearMatches(std::string_view name,
                                     const std::vector<std::string>& candidates,
                                     size_t limit = 3);

}  // namespace wb::transform
