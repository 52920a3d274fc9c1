#include "driver/manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "codegen/target.h"
#include "transform/pass_control.h"
#include "transform/registry.h"
#include "workbench/run_check.h"

namespace wb::driver {

namespace fs = std::filesystem;
using nlohmann::json;

bool NumericCheck::reference_is_directory() const { return !workbench::ParseReference(reference); }

namespace {

const std::set<std::string> kCaseFields = {"name",   "input",     "pipeline", "timeout_s",
                                           "checks", "target",    "schedule"};
const std::set<std::string> kCheckFields = {"ir_golden", "pass_goldens", "numeric", "timing"};
const std::set<std::string> kNumericFields = {"reference", "inputs", "seed", "rtol", "atol"};
const std::set<std::string> kTimingFields = {"baseline", "max_slowdown", "number", "repeat"};

// A recipe value that calls the schedule (`sch.`) is recipe text; anything else is a file.
bool IsInlineRecipe(const std::string& value) { return value.find("sch.") != std::string::npos; }

bool ReadFile(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream buf;
  buf << in.rdbuf();
  *text = buf.str();
  return true;
}

// Shell-style wildcard match on one path component (`*`, `?`).
bool WildcardMatch(const std::string& pattern, const std::string& text) {
  std::string re;
  for (char c : pattern) {
    if (c == '*') re += "[^/]*";
    else if (c == '?') re += "[^/]";
    else if (std::string("\\^$.|+()[]{}").find(c) != std::string::npos) re += std::string("\\") + c;
    else re += c;
  }
  return std::regex_match(text, std::regex(re));
}

bool HasWildcard(const std::string& s) { return s.find_first_of("*?") != std::string::npos; }

std::vector<std::string> ExpandGlob(const fs::path& pattern) {
  std::vector<std::string> out;
  fs::path dir = pattern.parent_path();
  std::string leaf = pattern.filename().string();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && WildcardMatch(leaf, entry.path().filename().string())) {
      out.push_back(entry.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

class Loader {
 public:
  Loader(std::string path, DiagnosticList& diags) : path_(std::move(path)), diags_(diags) {}

  std::optional<Manifest> Load() {
    std::ifstream in(path_);
    if (!in) {
      Error("cannot read manifest '" + path_ + "'");
      return std::nullopt;
    }
    std::stringstream buf;
    buf << in.rdbuf();
    json doc = json::parse(buf.str(), nullptr, false);
    if (doc.is_discarded()) {
      Error("manifest '" + path_ + "' is not valid JSON");
      return std::nullopt;
    }
    if (!doc.is_object()) {
      Error("the manifest must be a JSON object with a 'cases' list");
      return std::nullopt;
    }
    for (const auto& [key, value] : doc.items()) {
      if (key != "cases" && key != "defaults" && key != "$schema") {
        Error("unknown top-level field '" + key + "' (expected 'cases', 'defaults')");
      }
    }
    Manifest m;
    m.path = path_;
    m.dir = fs::absolute(fs::path(path_)).parent_path().string();
    json defaults = doc.value("defaults", json::object());
    if (!defaults.is_object()) {
      Error("field 'defaults' must be an object");
      defaults = json::object();
    }
    if (!doc.contains("cases") || !doc["cases"].is_array()) {
      Error("field 'cases' must be a list of cases");
      return std::nullopt;
    }
    std::set<std::string> names;
    int index = 0;
    for (const auto& raw : doc["cases"]) {
      ++index;
      std::string label = "case #" + std::to_string(index);
      if (!raw.is_object()) {
        Error(label + ": must be an object");
        continue;
      }
      json c = defaults;
      for (const auto& [k, v] : raw.items()) c[k] = v;
      if (raw.contains("name") && raw["name"].is_string()) {
        label = "case '" + raw["name"].get<std::string>() + "'";
      }
      ReadCase(c, label, m, names);
    }
    if (diags_.HasErrors()) return std::nullopt;
    return m;
  }

 private:
  void Error(std::string message) { diags_.Error(std::move(message), Span()); }

  bool String(const json& c, const char* field, const std::string& label, std::string* out,
              bool required) {
    if (!c.contains(field)) {
      if (required) Error(label + ": missing field '" + field + "'");
      return !required;
    }
    if (!c[field].is_string()) {
      Error(label + ": field '" + field + "' must be a string");
      return false;
    }
    *out = c[field].get<std::string>();
    return true;
  }

  std::string Resolve(const Manifest& m, const std::string& p) const {
    fs::path path(p);
    return (path.is_absolute() ? path : fs::path(m.dir) / path).lexically_normal().string();
  }

  void ReadCase(const json& c, const std::string& label, Manifest& m,
                std::set<std::string>& names) {
    for (const auto& [key, value] : c.items()) {
      const auto& control = transform::PassControlFields();
      if (!kCaseFields.count(key) && std::find(control.begin(), control.end(), key) == control.end()) {
        Error(label + ": unknown field '" + key + "'");
      }
    }
    ManifestCase base;
    transform::ReadPassControl(c, &base.control, diags_, label + ": ");
    String(c, "name", label, &base.name, true);
    std::string input;
    if (!String(c, "input", label, &input, true)) return;
    String(c, "pipeline", label, &base.pipeline, false);
    if (c.contains("timeout_s")) {
      if (!c["timeout_s"].is_number() || c["timeout_s"].get<double>() <= 0) {
        Error(label + ": field 'timeout_s' must be a positive number");
      } else {
        base.timeout_s = c["timeout_s"].get<double>();
      }
    }
    if (String(c, "target", label, &base.target, false)) {
      std::string why;
      if (!codegen::ParseTarget(base.target, &why)) {
        Error(label + ": field 'target': " + why);
      }
    }
    if (!base.pipeline.empty()) {
      DiagnosticList pipeline_diags;
      if (!transform::BuildPipeline(base.pipeline, pipeline_diags)) {
        std::string why = pipeline_diags.begin() != pipeline_diags.end()
                              ? pipeline_diags.begin()->message
                              : "does not build";
        Error(label + ": field 'pipeline': " + why);
      }
    }
    if (c.contains("schedule")) ReadSchedules(c["schedule"], label, m, &base);
    if (c.contains("checks")) {
      const json& checks = c["checks"];
      if (!checks.is_object()) {
        Error(label + ": field 'checks' must be an object");
      } else {
        for (const auto& [key, value] : checks.items()) {
          if (!kCheckFields.count(key)) Error(label + ": unknown check 'checks." + key + "'");
        }
        if (checks.contains("ir_golden")) {
          if (!checks["ir_golden"].is_string()) {
            Error(label + ": field 'checks.ir_golden' must be a path");
          } else {
            base.ir_golden = checks["ir_golden"].get<std::string>();
          }
        }
        if (checks.contains("pass_goldens")) {
          if (!checks["pass_goldens"].is_object()) {
            Error(label + ": field 'checks.pass_goldens' must map pass names to paths");
          } else {
            for (const auto& [pass, path] : checks["pass_goldens"].items()) {
              if (!path.is_string()) {
                Error(label + ": field 'checks.pass_goldens." + pass + "' must be a path");
              } else {
                base.pass_goldens[pass] = path.get<std::string>();
              }
            }
          }
        }
        if (checks.contains("numeric")) ReadNumeric(checks["numeric"], label, &base);
        if (checks.contains("timing")) ReadTiming(checks["timing"], label, &base);
      }
    }
    std::vector<std::string> inputs;
    if (HasWildcard(input)) {
      inputs = ExpandGlob(Resolve(m, input));
      if (inputs.empty()) Error(label + ": field 'input': no file matches '" + input + "'");
    } else {
      inputs.push_back(Resolve(m, input));
      if (!fs::exists(inputs.back())) {
        Error(label + ": field 'input': no such file '" + input + "'");
      }
    }
    bool glob = HasWildcard(input);
    for (const auto& file : inputs) {
      ManifestCase one = base;
      one.input = file;
      std::string stem = fs::path(file).stem().string();
      if (glob) one.name = base.name + "/" + stem;
      // Golden paths may use {name} (the file stem for globbed inputs).
      auto expand = [&](std::string p) {
        for (size_t pos; (pos = p.find("{name}")) != std::string::npos;) p.replace(pos, 6, stem);
        return Resolve(m, p);
      };
      if (!one.ir_golden.empty()) one.ir_golden = expand(one.ir_golden);
      for (auto& [pass, path] : one.pass_goldens) path = expand(path);
      if (one.numeric) {
        NumericCheck& n = *one.numeric;
        if (n.reference_is_directory()) n.reference = expand(n.reference);
        if (n.inputs != "random") {
          n.inputs = expand(n.inputs);
          if (!fs::is_directory(n.inputs)) {
            Error(label + ": field 'checks.numeric.inputs': no such directory '" + n.inputs + "'");
          }
        }
      }
      if (one.timing) {
        one.timing->baseline = expand(one.timing->baseline);
        CheckBaseline(one.timing->baseline, label);
      }
      if (!names.insert(one.name).second) {
        Error(label + ": duplicate case name '" + one.name + "'");
      }
      m.cases.push_back(std::move(one));
    }
  }

  // "schedule": {"func": "recipe.py" | "sch.split(...) ..."}.
  void ReadSchedules(const json& value, const std::string& label, const Manifest& m,
                     ManifestCase* out) {
    if (!value.is_object()) {
      Error(label + ": field 'schedule' must map function names to recipes");
      return;
    }
    for (const auto& [func, recipe] : value.items()) {
      std::string field = "field 'schedule." + func + "'";
      if (!recipe.is_string() || recipe.get<std::string>().empty()) {
        Error(label + ": " + field + " must be a recipe file or recipe text");
        continue;
      }
      std::string text = recipe.get<std::string>();
      if (IsInlineRecipe(text)) {
        out->schedules.push_back({func, text, "<manifest: schedule." + func + ">"});
        continue;
      }
      std::string path = Resolve(m, text);
      std::string contents;
      if (!ReadFile(path, &contents)) {
        Error(label + ": " + field + ": cannot read recipe file '" + text + "'");
        continue;
      }
      out->schedules.push_back({func, contents, path});
    }
  }

  // A number field of a check; false when present and wrong (reported).
  bool Number(const json& obj, const char* field, const std::string& label, const std::string& prefix,
              double min, bool integer, double* out) {
    if (!obj.contains(field)) return true;
    const json& v = obj[field];
    bool ok = v.is_number() && v.get<double>() >= min && (!integer || v.is_number_integer());
    if (!ok) {
      std::string what = integer ? (min > 0 ? "a positive integer" : "a non-negative integer")
                                 : (min > 0 ? "a number >= " + FormatNumber(min) : "a non-negative number");
      Error(label + ": field '" + prefix + field + "' must be " + what);
      return false;
    }
    *out = v.get<double>();
    return true;
  }

  static std::string FormatNumber(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
  }

  void ReadNumeric(const json& value, const std::string& label, ManifestCase* out) {
    const std::string prefix = "checks.numeric.";
    if (!value.is_object()) {
      Error(label + ": field 'checks.numeric' must be an object");
      return;
    }
    for (const auto& [key, v] : value.items()) {
      if (!kNumericFields.count(key)) Error(label + ": unknown field '" + prefix + key + "'");
    }
    NumericCheck n;
    for (const char* field : {"reference", "inputs"}) {
      if (!value.contains(field)) continue;
      if (!value[field].is_string() || value[field].get<std::string>().empty()) {
        Error(label + ": field '" + prefix + field + "' must be " +
              (std::string(field) == "reference" ? "\"auto\", \"interpreter\", \"compiled\", \"none\" or a directory of .npy outputs"
                                                 : "\"random\" or a directory of .npy inputs"));
        continue;
      }
      (std::string(field) == "reference" ? n.reference : n.inputs) = value[field].get<std::string>();
    }
    double seed = 0, rtol = 0, atol = 0;
    if (Number(value, "seed", label, prefix, 0, true, &seed)) n.seed = static_cast<uint64_t>(seed);
    if (value.contains("rtol") && Number(value, "rtol", label, prefix, 0, false, &rtol)) n.rtol = rtol;
    if (value.contains("atol") && Number(value, "atol", label, prefix, 0, false, &atol)) n.atol = atol;
    out->numeric = n;
  }

  void ReadTiming(const json& value, const std::string& label, ManifestCase* out) {
    const std::string prefix = "checks.timing.";
    if (!value.is_object()) {
      Error(label + ": field 'checks.timing' must be an object");
      return;
    }
    for (const auto& [key, v] : value.items()) {
      if (!kTimingFields.count(key)) Error(label + ": unknown field '" + prefix + key + "'");
    }
    TimingCheck t;
    if (!value.contains("baseline")) {
      Error(label + ": missing field 'checks.timing.baseline'");
    } else if (!value["baseline"].is_string() || value["baseline"].get<std::string>().empty()) {
      Error(label + ": field 'checks.timing.baseline' must be a path");
    } else {
      t.baseline = value["baseline"].get<std::string>();
    }
    double number = t.number, repeat = t.repeat;
    Number(value, "max_slowdown", label, prefix, 1, false, &t.max_slowdown);
    Number(value, "number", label, prefix, 1, true, &number);
    Number(value, "repeat", label, prefix, 1, true, &repeat);
    t.number = static_cast<int>(number);
    t.repeat = static_cast<int>(repeat);
    out->timing = t;
  }

  // A baseline file may be absent (--update-goldens writes it) but not malformed.
  void CheckBaseline(const std::string& path, const std::string& label) {
    if (!fs::exists(path)) return;
    std::string text;
    json doc;
    if (ReadFile(path, &text)) doc = json::parse(text, nullptr, false);
    bool ok = doc.is_object();
    if (ok) {
      for (const auto& [c, funcs] : doc.items()) {
        if (!funcs.is_object()) {
          ok = false;
          continue;
        }
        for (const auto& [f, seconds] : funcs.items()) {
          ok &= seconds.is_number() && seconds.get<double>() > 0;
        }
      }
    }
    if (!ok) {
      Error(label + ": field 'checks.timing.baseline': '" + path +
            "' is not a baseline file ({\"case\": {\"function\": seconds}})");
    }
  }

  std::string path_;
  DiagnosticList& diags_;
};

}  // namespace

std::optional<Manifest> LoadManifest(const std::string& path, DiagnosticList& diags) {
  return Loader(path, diags).Load();
}

}  // namespace wb::driver
