#include "transform/pass_control.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace wb::transform {

using nlohmann::json;

PassConfigRegistry& PassConfigRegistry::Global() {
  static PassConfigRegistry registry;
  return registry;
}

void PassConfigRegistry::Register(PassConfigOption option) {
  std::string key = option.key;
  options_[key] = std::move(option);
}

const PassConfigOption* PassConfigRegistry::Find(std::string_view key) const {
  auto it = options_.find(key);
  return it == options_.end() ? nullptr : &it->second;
}

std::vector<const PassConfigOption*> PassConfigRegistry::Options() const {
  std::vector<const PassConfigOption*> out;
  for (const auto& [key, option] : options_) out.push_back(&option);
  return out;
}

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<std::string> ConfigKeys() {
  std::vector<std::string> keys;
  for (const auto* option : PassConfigRegistry::Global().Options()) keys.push_back(option->key);
  return keys;
}

// " (did you mean A or B?)", or empty.
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates) {
  std::vector<std::string> near = NearMatches(name, candidates);
  if (near.empty()) return "";
  std::string out = " (did you mean ";
  for (size_t i = 0; i < near.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + near[i];
  }
  return out + "?)";
}

// A field's value from JSON, or null when it has the wrong type.
ir::ObjectRef FieldValue(const json& value, ParamType type) {
  switch (type) {
    case ParamType::kInt:
      if (value.is_number_integer()) return ir::MakeInt(value.get<int64_t>());
      return ir::ObjectRef();
    case ParamType::kFloat:
      if (value.is_number()) return ir::MakeFloat(value.get<double>());
      return ir::ObjectRef();
    case ParamType::kBool:
      if (value.is_boolean()) return ir::MakeBool(value.get<bool>());
      return ir::ObjectRef();
    case ParamType::kString:
      if (value.is_string()) return ir::MakeString(value.get<std::string>());
      return ir::ObjectRef();
    case ParamType::kStringList: {
      if (!value.is_array()) return ir::ObjectRef();
      std::vector<ir::ObjectRef> items;
      for (const json& item : value) {
        if (!item.is_string()) return ir::ObjectRef();
        items.push_back(ir::MakeString(item.get<std::string>()));
      }
      return ir::MakeArray(std::move(items));
    }
  }
  return ir::ObjectRef();
}

json ValueToJson(const ir::ObjectRef& value) {
  if (auto* b = value.as<ir::BoolObj>()) return b->value;
  if (auto* i = value.as<ir::IntObj>()) return i->value;
  if (auto* f = value.as<ir::FloatObj>()) return f->value;
  if (auto* s = value.as<ir::StringObj>()) return s->value;
  if (auto* a = value.as<ir::ArrayObj>()) {
    json out = json::array();
    for (const auto& item : a->items) out.push_back(ValueToJson(item));
    return out;
  }
  if (auto* m = value.as<ir::MapObj>()) {
    json out = json::object();
    for (const auto& [k, v] : m->items) out[k] = ValueToJson(v);
    return out;
  }
  return nullptr;
}

std::vector<std::string> PassNames() {
  std::vector<std::string> names;
  for (const auto* entry : PassRegistry::Global().Passes()) names.push_back(entry->name);
  return names;
}

bool CheckPassName(std::string_view name, const char* what, DiagnosticList& diags) {
  if (PassRegistry::Global().Find(name)) return true;
  if (name.empty()) {
    diags.Error(std::string("the name of a pass to ") + what + " is empty");
    return false;
  }
  std::string message = "cannot " + std::string(what) + " unknown pass '" + std::string(name) + "'";
  std::string hint = DidYouMean(name, PassNames());
  diags.Error(message + (hint.empty() ? " (--list-passes lists the passes)" : hint));
  return false;
}

void AddUnique(std::vector<std::string>& names, std::string_view name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
}

std::string ShellQuoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::vector<std::string> NearMatches(std::string_view name, const std::vector<std::string>& candidates,
                                     size_t limit) {
  std::string lowered = Lower(name);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& candidate : candidates) {
    std::string other = Lower(candidate);
    size_t distance = EditDistance(lowered, other);
    // A prefix or a part of the name (`Unroll` for `UnrollLoop`) is as good as a typo.
    bool part = !lowered.empty() && lowered.size() >= 3 && other.find(lowered) != std::string::npos;
    size_t allowed = std::max<size_t>(2, std::max(lowered.size(), other.size()) / 3);
    if (distance <= allowed || part) scored.push_back({part ? std::min<size_t>(distance, 1) : distance, candidate});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // A much closer match makes the farther ones noise.
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < limit && scored[i].first <= scored[0].first + 1; ++i) {
    out.push_back(scored[i].second);
  }
  return out;
}

bool PassControl::empty() const {
  return !opt_level && config.empty() && disabled_passes.empty() && required_passes.empty();
}

void PassControl::ApplyTo(ir::PassContext& context) const {
  if (opt_level) context.opt_level = *opt_level;
  for (const auto& [key, value] : config) {
    ir::AttrMap merged;
    if (auto it = context.config.find(key); it != context.config.end()) {
      if (auto* map = it->second.as<ir::MapObj>()) merged = map->items;
    }
    if (auto* map = value.as<ir::MapObj>()) {
      for (const auto& [field, v] : map->items) merged[field] = v;
    }
    context.config[key] = ir::MakeMap(std::move(merged));
  }
  for (const auto& name : disabled_passes) AddUnique(context.disabled_passes, name);
  for (const auto& name : required_passes) AddUnique(context.required_passes, name);
}

json PassControl::ToJson() const {
  json out = json::object();
  if (opt_level) out["opt_level"] = *opt_level;
  if (!config.empty()) {
    json c = json::object();
    for (const auto& [key, value] : config) c[key] = ValueToJson(value);
    out["pass_config"] = c;
  }
  if (!disabled_passes.empty()) out["disabled_passes"] = disabled_passes;
  if (!required_passes.empty()) out["required_passes"] = required_passes;
  return out;
}

std::string PassControl::CommandLineText() const {
  std::string out;
  auto add = [&out](const std::string& s) { out += (out.empty() ? "" : " ") + s; };
  if (opt_level) add("--opt-level " + std::to_string(*opt_level));
  for (const auto& [key, value] : config) {
    add("--pass-config " + ShellQuoted(key + "=" + ValueToJson(value).dump()));
  }
  for (const auto& name : disabled_passes) add("--disable-pass " + name);
  for (const auto& name : required_passes) add("--require-pass " + name);
  return out;
}

ir::PassContext ContextWith(const PassControl& control) {
  ir::PassContext context = ir::PassContext::Current();
  control.ApplyTo(context);
  return context;
}

bool SetOptLevel(int64_t level, PassControl* control, DiagnosticList& diags) {
  if (level < 0 || level > kMaxOptLevel) {
    diags.Error("opt level " + std::to_string(level) + " is out of range (0 to " +
                std::to_string(kMaxOptLevel) + ")");
    return false;
  }
  control->opt_level = int(level);
  return true;
}

bool AddConfig(const std::string& key, const json& value, PassControl* control,
               DiagnosticList& diags) {
  const PassConfigOption* option = PassConfigRegistry::Global().Find(key);
  if (!option) {
    std::vector<std::string> keys = ConfigKeys();
    diags.Error("unknown pass config key '" + key + "'" + DidYouMean(key, keys) +
                "; the registered keys are: " + JoinNames(keys));
    return false;
  }
  std::vector<std::string> field_names;
  for (const auto& f : option->fields) field_names.push_back(f.name);
  if (!value.is_object()) {
    diags.Error("pass config '" + key + "' takes a JSON object of its fields (" +
                JoinNames(field_names) + "), got " + value.dump());
    return false;
  }
  ir::AttrMap fields;
  if (auto it = control->config.find(key); it != control->config.end()) {
    if (auto* map = it->second.as<ir::MapObj>()) fields = map->items;
  }
  bool ok = true;
  for (const auto& [name, v] : value.items()) {
    const PassParam* param = nullptr;
    for (const auto& f : option->fields) {
      if (f.name == name) param = &f;
    }
    if (!param) {
      diags.Error("pass config '" + key + "' has no field '" + name + "'" +
                  DidYouMean(name, field_names) + "; its fields are: " + JoinNames(field_names));
      ok = false;
      continue;
    }
    ir::ObjectRef converted = FieldValue(v, param->type);
    if (!converted.defined()) {
      diags.Error("pass config '" + key + "' field '" + name + "' expects " +
                  ParamTypeName(param->type) + ", got " + v.dump());
      ok = false;
      continue;
    }
    fields[name] = converted;
  }
  if (ok) control->config[key] = ir::MakeMap(std::move(fields));
  return ok;
}

bool AddConfigText(std::string_view text, PassControl* control, DiagnosticList& diags) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    diags.Error("pass config '" + std::string(text) +
                "' is not KEY=JSON (e.g. tirx.UnrollLoop={\"auto_max_step\": 16})");
    return false;
  }
  std::string key(text.substr(0, eq));
  std::string_view value_text = text.substr(eq + 1);
  json value = json::parse(value_text.begin(), value_text.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    diags.Error("pass config '" + key + "': the value is not valid JSON: " + std::string(value_text));
    return false;
  }
  return AddConfig(key, value, control, diags);
}

bool AddDisabledPass(std::string_view name, PassControl* control, DiagnosticList& diags) {
  if (!CheckPassName(name, "disable", diags)) return false;
  AddUnique(control->disabled_passes, name);
  return true;
}

bool AddRequiredPass(std::string_view name, PassControl* control, DiagnosticList& diags) {
  if (!CheckPassName(name, "require", diags)) return false;
  AddUnique(control->required_passes, name);
  return true;
}

const std::vector<std::string>& PassControlFields() {
  static const std::vector<std::string> fields = {"opt_level", "pass_config", "disabled_passes",
                                                  "required_passes"};
  return fields;
}

bool ReadPassControl(const json& object, PassControl* control, DiagnosticList& diags,
                     const std::string& where) {
  if (!object.is_object()) return true;
  size_t errors = diags.ErrorCount();
  // Messages from the setters get the field's name in front.
  auto prefixed = [&](const char* field, auto&& set) {
    DiagnosticList local;
    set(local);
    for (const auto& d : local) diags.Error(where + "field '" + field + "': " + d.message, d.span);
  };
  if (object.contains("opt_level")) {
    const json& v = object["opt_level"];
    if (!v.is_number_integer()) {
      diags.Error(where + "field 'opt_level' must be an integer from 0 to " +
                  std::to_string(kMaxOptLevel));
    } else {
      prefixed("opt_level", [&](DiagnosticList& d) { SetOptLevel(v.get<int64_t>(), control, d); });
    }
  }
  if (object.contains("pass_config")) {
    const json& v = object["pass_config"];
    if (!v.is_object()) {
      diags.Error(where + "field 'pass_config' must map config keys to objects, e.g. "
                          "{\"tirx.UnrollLoop\": {\"auto_max_step\": 16}}");
    } else {
      for (const auto& [key, value] : v.items()) {
        prefixed("pass_config", [&](DiagnosticList& d) { AddConfig(key, value, control, d); });
      }
    }
  }
  for (const char* field : {"disabled_passes", "required_passes"}) {
    if (!object.contains(field)) continue;
    const json& v = object[field];
    bool strings = v.is_array() && std::all_of(v.begin(), v.end(), [](const json& n) { return n.is_string(); });
    if (!strings) {
      diags.Error(where + "field '" + field + "' must be a list of pass names");
      continue;
    }
    bool disable = std::string(field) == "disabled_passes";
    for (const json& name : v) {
      prefixed(field, [&](DiagnosticList& d) {
        std::string n = name.get<std::string>();
        disable ? AddDisabledPass(n, control, d) : AddRequiredPass(n, control, d);
      });
    }
  }
  return diags.ErrorCount() == errors;
}

}  // namespace wb::transform
