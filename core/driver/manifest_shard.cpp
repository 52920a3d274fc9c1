#include "driver/manifest_shard.h"
#include "driver/version.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace wb::driver {

using nlohmann::json;

namespace {

// FNV-1a, 64 bits: the same on every machine and compiler (std::hash is not), which is what
// lets shards run on different machines agree.
uint64_t Fnv1a(std::string_view bytes, uint64_t hash = 0xcbf29ce484222325ull) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string Hex(uint64_t v) {
  std::ostringstream os;
  os << std::hex;
  os.width(16);
  os.fill('0');
  os << v;
  return os.str();
}

bool ParsePositive(std::string_view text, int* out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size() && *out > 0;
}

// The manifest as the shards saw it: its bytes and the cases they expanded to (a glob's cases
// depend on the files present, not only on the text).
std::string ManifestDigest(const Manifest& m) {
  std::ifstream in(m.path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  uint64_t h = Fnv1a(bytes.str());
  for (const auto& c : m.cases) h = Fnv1a(std::string_view(c.name.c_str(), c.name.size() + 1), h);
  return Hex(h);
}

// One input of a merge: a shard's report and where it came from.
struct ShardReport {
  std::string path;
  json doc;
  Shard shard;
};

std::optional<ShardReport> ReadShardReport(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read report '" + path + "'";
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  ShardReport r{path, json::parse(text.str(), nullptr, false), {}};
  if (!r.doc.is_object() || !r.doc.contains("cases") || !r.doc["cases"].is_array()) {
    *error = "'" + path + "' is not a JSON report of `workbench --batch MANIFEST --json`";
    return std::nullopt;
  }
  const json& run = r.doc.contains("run") ? r.doc["run"] : json();
  auto is_text = [&](const char* key) {
    return run.is_object() && run.contains(key) && run[key].is_string();
  };
  if (!is_text("manifest_digest") || !is_text("version")) {
    *error =
        "'" + path + "' does not say which run wrote it (no 'run'): written by an older workbench?";
    return std::nullopt;
  }
  if (!run.contains("shard")) {
    *error = "'" + path + "' is the report of a whole run, not of a shard (--shard K/N)";
    return std::nullopt;
  }
  std::optional<Shard> shard;
  std::string why;
  if (is_text("shard")) shard = ParseShard(run["shard"].get<std::string>(), &why);
  if (!shard) {
    *error = "'" + path + "': run.shard is not K/N";
    return std::nullopt;
  }
  r.shard = *shard;
  for (const auto& c : r.doc["cases"]) {
    if (!c.is_object() || !c.contains("index") || !c["index"].is_number_unsigned()) {
      *error = "'" + path + "': a case without its index in the manifest";
      return std::nullopt;
    }
  }
  return r;
}

// Why two shard reports cannot be merged, or empty when they can.
std::string Mismatch(const ShardReport& a, const ShardReport& b) {
  const json& ra = a.doc["run"];
  const json& rb = b.doc["run"];
  auto field = [](const json& run, const char* key) { return run.value(key, std::string()); };
  auto both = [&](const std::string& what, const std::string& va, const std::string& vb) {
    return "'" + a.path + "' and '" + b.path + "' " + what + " ('" + va + "' and '" + vb + "')";
  };
  if (field(ra, "manifest_digest") != field(rb, "manifest_digest")) {
    return both("are reports of different manifests",
                field(ra, "manifest") + " " + field(ra, "manifest_digest"),
                field(rb, "manifest") + " " + field(rb, "manifest_digest"));
  }
  if (field(ra, "version") != field(rb, "version")) {
    return both("were written by different workbench versions", field(ra, "version"),
                field(rb, "version"));
  }
  if (field(ra, "filter") != field(rb, "filter")) {
    return both("ran different --filter", field(ra, "filter"), field(rb, "filter"));
  }
  if (a.shard.count != b.shard.count) {
    return both("are shards of different splits", ShardName(a.shard), ShardName(b.shard));
  }
  if (a.shard.index == b.shard.index) {
    return "shard " + ShardName(a.shard) + " is given twice: '" + a.path + "' and '" + b.path + "'";
  }
  return {};
}

}  // namespace

std::optional<Shard> ParseShard(const std::string& text, std::string* error) {
  size_t slash = text.find('/');
  Shard s;
  if (slash == std::string::npos ||
      !ParsePositive(std::string_view(text).substr(0, slash), &s.index) ||
      !ParsePositive(std::string_view(text).substr(slash + 1), &s.count)) {
    *error = "--shard needs K/N with positive integers K and N (got '" + text + "')";
    return std::nullopt;
  }
  if (s.index > s.count) {
    *error = "--shard " + text + ": K must be at most N";
    return std::nullopt;
  }
  return s;
}

std::string ShardName(const Shard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

bool InShard(const std::string& case_name, const Shard& shard) {
  return Fnv1a(case_name) % static_cast<uint64_t>(shard.count) ==
         static_cast<uint64_t>(shard.index - 1);
}

Manifest SelectShard(const Manifest& manifest, const Shard& shard) {
  Manifest out = manifest;
  out.cases.clear();
  for (const auto& c : manifest.cases) {
    if (InShard(c.name, shard)) out.cases.push_back(c);
  }
  return out;
}

std::string StampReport(const std::string& report_json, const Manifest& full,
                        const std::optional<Shard>& shard, const std::string& filter) {
  json doc = json::parse(report_json);
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < full.cases.size(); ++i) index[full.cases[i].name] = i;
  for (auto& c : doc["cases"]) c["index"] = index.at(c["name"].get<std::string>());
  json run = {{"manifest", std::filesystem::path(full.path).filename().string()},
              {"manifest_digest", ManifestDigest(full)},
              {"version", WorkbenchVersion()},
              {"filter", filter},
              {"cases_in_manifest", full.cases.size()}};
  if (shard) run["shard"] = ShardName(*shard);
  doc["run"] = std::move(run);
  return doc.dump(2) + "\n";
}

int MergedReport::ExitCode() const {
  for (const auto& c : report.cases) {
    if (c.status == "error") return 2;
  }
  return report.failed() ? 1 : 0;
}

std::optional<MergedReport> MergeReports(const std::vector<std::string>& paths,
                                         std::string* error) {
  if (paths.empty()) {
    *error = "--merge-reports needs the JSON reports of the shards";
    return std::nullopt;
  }
  std::vector<ShardReport> shards;
  for (const auto& path : paths) {
    auto r = ReadShardReport(path, error);
    if (!r) return std::nullopt;
    for (const auto& other : shards) {
      std::string why = Mismatch(other, *r);
      if (!why.empty()) {
        *error = why;
        return std::nullopt;
      }
    }
    shards.push_back(std::move(*r));
  }
  int count = shards[0].shard.count;
  std::vector<bool> present(count + 1, false);
  for (const auto& s : shards) present[s.shard.index] = true;
  for (int k = 1; k <= count; ++k) {
    if (!present[k]) {
      *error = "shard " + ShardName({k, count}) + " is missing: a merge needs all " +
               std::to_string(count);
      return std::nullopt;
    }
  }
  // Every case once, in manifest order.
  std::map<uint64_t, std::pair<json, const ShardReport*>> cases;
  for (const auto& s : shards) {
    for (const auto& c : s.doc["cases"]) {
      auto [it, fresh] = cases.emplace(c["index"].get<uint64_t>(), std::make_pair(c, &s));
      if (!fresh) {
        *error = "case '" + c.value("name", std::string()) + "' is in both '" +
                 it->second.second->path + "' and '" + s.path + "'";
        return std::nullopt;
      }
    }
  }
  json merged_cases = json::array();
  for (auto& [i, entry] : cases) merged_cases.push_back(std::move(entry.first));
  MergedReport merged;
  std::optional<RegressionReport> report;
  try {
    report = ParseReportJson(json{{"cases", merged_cases}}.dump());
  } catch (const json::exception&) {
    report.reset();
  }
  if (!report) {
    *error = "the shards' reports hold a case that is not a report's case";
    return std::nullopt;
  }
  merged.report = std::move(*report);
  json doc = json::parse(ReportJson(merged.report));
  for (size_t i = 0; i < doc["cases"].size(); ++i)
    doc["cases"][i]["index"] = merged_cases[i]["index"];
  json run = shards[0].doc["run"];
  run.erase("shard");
  run["merged_shards"] = count;
  doc["run"] = std::move(run);
  merged.json = doc.dump(2) + "\n";
  return merged;
}

}  // namespace wb::driver
