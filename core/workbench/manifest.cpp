#include "workbench/manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

namespace wb::workbench {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::set<std::string> kCaseFields = {"name",   "input",     "pipeline", "timeout_s",
                                           "checks", "target",    "schedule"};
const std::set<std::string> kCheckFields = {"ir_golden", "pass_goldens", "numeric", "timing"};

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
      if (!kCaseFields.count(key)) Error(label + ": unknown field '" + key + "'");
    }
    ManifestCase base;
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
    if (c.contains("target") && c["target"] != "none") {
      Error(label + ": field 'target': building and running is not supported yet; "
            "use IR checks only");
    }
    if (c.contains("schedule")) {
      Error(label + ": field 'schedule': schedule recipes are not supported yet");
    }
    if (c.contains("checks")) {
      const json& checks = c["checks"];
      if (!checks.is_object()) {
        Error(label + ": field 'checks' must be an object");
      } else {
        for (const auto& [key, value] : checks.items()) {
          if (!kCheckFields.count(key)) {
            Error(label + ": unknown check 'checks." + key + "'");
          } else if (key == "numeric" || key == "timing") {
            Error(label + ": check 'checks." + key + "' is not supported yet (it needs the CPU build)");
          }
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
      if (!names.insert(one.name).second) {
        Error(label + ": duplicate case name '" + one.name + "'");
      }
      m.cases.push_back(std::move(one));
    }
  }

  std::string path_;
  DiagnosticList& diags_;
};

}  // namespace

std::optional<Manifest> LoadManifest(const std::string& path, DiagnosticList& diags) {
  return Loader(path, diags).Load();
}

}  // namespace wb::workbench
