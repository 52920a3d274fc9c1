#include "driver/regression_timing.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace wb::driver {

namespace {

using nlohmann::json;

// The baseline file as JSON; an empty object when it does not exist yet. (LoadManifest has
// already rejected a malformed one.)
json ReadBaseline(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return json::object();
  std::stringstream buf;
  buf << in.rdbuf();
  json doc = json::parse(buf.str(), nullptr, false);
  return doc.is_object() ? doc : json::object();
}

std::string Millis(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g ms", seconds * 1e3);
  return text;
}

// Four significant digits: more would only record noise in the committed file.
double Rounded(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", seconds);
  return std::stod(text);
}

}  // namespace

CheckResult JudgeTiming(const ManifestCase& c, const std::string& func, double median_s, bool update) {
  CheckResult check{"timing", func, false, "", ""};
  check.seconds = median_s;
  json baseline = ReadBaseline(c.timing->baseline);
  const json* entry = nullptr;
  if (baseline.contains(c.name) && baseline[c.name].is_object() && baseline[c.name].contains(func)) {
    entry = &baseline[c.name][func];
  }
  if (entry && entry->is_number() && entry->get<double>() > 0) {
    check.baseline_s = entry->get<double>();
    check.ratio = median_s / *check.baseline_s;
  }
  if (update) {
    check.passed = true;
    check.message = "median " + Millis(median_s) + " (baseline to be rewritten)";
    return check;
  }
  if (!check.ratio) {
    check.message = "case '" + c.name + "': function '" + func + "' has no entry in the baseline '" +
                    c.timing->baseline + "' (run with --update-goldens)";
    return check;
  }
  char ratio[64];
  std::snprintf(ratio, sizeof(ratio), "%.3fx (allowed %gx)", *check.ratio, c.timing->max_slowdown);
  check.passed = *check.ratio <= c.timing->max_slowdown;
  check.message = "median " + Millis(median_s) + ", baseline " + Millis(*check.baseline_s) + ": " + ratio;
  if (!check.passed) check.message = "slower than the baseline: " + check.message;
  return check;
}

std::vector<std::string> UpdateBaselines(const std::vector<const ManifestCase*>& cases,
                                         const std::vector<CaseResult>& results) {
  // baseline file -> case -> function -> seconds, from the cases that measured something.
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> measured;
  for (size_t i = 0; i < cases.size() && i < results.size(); ++i) {
    if (!cases[i]->timing) continue;
    for (const auto& check : results[i].checks) {
      if (check.kind == "timing" && check.seconds) {
        measured[cases[i]->timing->baseline][cases[i]->name][check.name] = Rounded(*check.seconds);
      }
    }
  }
  std::vector<std::string> lines;
  for (const auto& [path, by_case] : measured) {
    json doc = ReadBaseline(path);
    bool changed = false;
    for (const auto& [name, funcs] : by_case) {
      for (const auto& [func, seconds] : funcs) {
        json& slot = doc[name][func];
        std::string entry = path + ": " + name + "/" + func + ": ";
        if (slot.is_number() && slot.get<double>() == seconds) continue;
        lines.push_back(entry + (slot.is_number() ? Millis(slot.get<double>()) + " -> " : "added ") +
                        Millis(seconds));
        slot = seconds;
        changed = true;
      }
    }
    if (!changed) continue;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    std::ofstream out(path, std::ios::binary);
    out << doc.dump(2) << "\n";
    if (!out.good()) lines.push_back("cannot write baseline '" + path + "'");
  }
  return lines;
}

}  // namespace wb::driver
