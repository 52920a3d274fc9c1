#include "workbench/workspace.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace wb::workbench {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kVersion = 1;

fs::path FolderOf(const std::string& workspace_path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(fs::path(workspace_path), ec);
  return ec ? fs::path() : absolute.parent_path();
}

}  // namespace

std::string WorkspaceToJson(const Workspace& ws, const std::string& workspace_path) {
  std::string file = ws.file;
  // With no workspace path (the "last workspace" kept in the settings) the file stays absolute.
  if (!file.empty() && !workspace_path.empty() && fs::path(file).is_absolute()) {
    std::error_code ec;
    fs::path folder = fs::absolute(fs::path(workspace_path), ec).parent_path();
    fs::path rel = ec ? fs::path() : fs::relative(fs::path(file), folder, ec);
    if (!ec && !rel.empty() && rel.native().rfind("..", 0) != 0) file = rel.generic_string();
  }
  json schedule = {{"func", ws.schedule_func}, {"recipe", ws.recipe}};
  if (!ws.other_recipes.empty()) schedule["others"] = ws.other_recipes;
  json j = {{"version", kVersion}, {"file", file}, {"pipeline", ws.pipeline}, {"schedule", schedule}};
  return j.dump(2) + "\n";
}

std::optional<Workspace> WorkspaceFromJson(const std::string& text, const std::string& workspace_path,
                                           DiagnosticList& diags) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    diags.Error(workspace_path + ": not a workspace file (expected a JSON object)");
    return std::nullopt;
  }
  auto string_field = [&](const json& obj, const char* key, std::string* out) {
    if (!obj.contains(key)) return true;
    if (!obj[key].is_string()) {
      diags.Error(workspace_path + ": \"" + key + "\" must be a string");
      return false;
    }
    *out = obj[key].get<std::string>();
    return true;
  };
  if (j.contains("version") && (!j["version"].is_number_integer() || j["version"].get<int>() > kVersion)) {
    diags.Error(workspace_path + ": workspace version " + j["version"].dump() +
                " is newer than this workbench understands (" + std::to_string(kVersion) + ")");
    return std::nullopt;
  }
  Workspace ws;
  bool ok = string_field(j, "file", &ws.file) && string_field(j, "pipeline", &ws.pipeline);
  if (ok && j.contains("schedule")) {
    if (!j["schedule"].is_object()) {
      diags.Error(workspace_path + ": \"schedule\" must be an object with \"func\" and \"recipe\"");
      return std::nullopt;
    }
    ok = string_field(j["schedule"], "func", &ws.schedule_func) &&
         string_field(j["schedule"], "recipe", &ws.recipe);
    if (ok && j["schedule"].contains("others")) {
      const json& others = j["schedule"]["others"];
      if (!others.is_object()) {
        diags.Error(workspace_path + ": \"schedule\".\"others\" must be an object of function names to recipes");
        return std::nullopt;
      }
      for (const auto& [name, recipe] : others.items()) {
        ok = ok && string_field(others, name.c_str(), &ws.other_recipes[name]);
      }
    }
  }
  if (!ok) return std::nullopt;
  if (!ws.file.empty() && fs::path(ws.file).is_relative() && ws.file[0] != ':') {
    ws.file = (FolderOf(workspace_path) / ws.file).lexically_normal().string();
  }
  return ws;
}

DiagnosticList SaveWorkspace(const Workspace& ws, const std::string& path) {
  DiagnosticList diags;
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    diags.Error("cannot write the workspace file " + path);
    return diags;
  }
  out << WorkspaceToJson(ws, path);
  if (!out.good()) diags.Error("writing the workspace file " + path + " failed");
  return diags;
}

std::optional<Workspace> LoadWorkspace(const std::string& path, DiagnosticList& diags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.Error("cannot read the workspace file " + path);
    return std::nullopt;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return WorkspaceFromJson(buffer.str(), path, diags);
}

}  // namespace wb::workbench
