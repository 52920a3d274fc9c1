// `I.module_global_infos({"vdevice": [I.vdevice(...), ...]})`: module-level GlobalInfo objects.
// The dict is read from the syntax tree rather than through Eval because its values are
// constructor calls (`I.vdevice`) that are meaningful only here.

#include <map>
#include <string>
#include <vector>

#include "ir/global_info.h"
#include "script/parser_core.h"

namespace wb::script::detail {

namespace {

// TVM's `I.vdevice(target, vdevice_id=0, memory_scope="global")`.
ir::VDevice ParseVDevice(Parser& p, Node call) {
  const auto f = p.F();
  if (p.Kind(call) != K::kCall || p.Text(p.Field(call, f.function)) != "I.vdevice") {
    p.Fail(call, "expected I.vdevice(...) in the \"vdevice\" list");
  }
  static constexpr const char* kParams[] = {"target", "vdevice_id", "memory_scope"};
  Node slots[3] = {};
  size_t positional = 0;
  for (Node a : p.cst_->Children(p.Field(call, f.arguments))) {
    if (p.Kind(a) == K::kComment) continue;
    if (p.Kind(a) == K::kKeywordArgument) {
      std::string_view key = p.Text(p.Field(a, f.name));
      size_t i = 0;
      while (i < 3 && key != kParams[i]) ++i;
      if (i == 3) {
        p.Fail(a, "I.vdevice has no parameter '" + std::string(key) +
                      "' (expected target, vdevice_id, memory_scope)");
      }
      if (!IsNull(slots[i])) p.Fail(a, "I.vdevice got '" + std::string(key) + "' twice");
      slots[i] = p.Field(a, f.value);
      continue;
    }
    if (positional == 3) p.Fail(a, "I.vdevice takes at most 3 arguments");
    if (!IsNull(slots[positional])) {
      p.Fail(a, std::string("I.vdevice got '") + kParams[positional] + "' twice");
    }
    slots[positional++] = a;
  }
  if (IsNull(slots[0])) p.Fail(call, "I.vdevice needs a target, e.g. I.vdevice(\"llvm\")");
  if (p.Kind(slots[0]) != K::kString && p.Kind(slots[0]) != K::kDictionary) {
    p.Fail(slots[0], "I.vdevice expects the target as a string such as \"cuda\" or a config dict");
  }
  // A config dict ({"kind": "opencl", "device": "adreno"}) becomes the target's text, as
  // T.target keeps it.
  std::string target = p.Kind(slots[0]) == K::kString ? p.StringLiteral(slots[0])
                                                      : p.TargetText(p.Eval(slots[0]), slots[0]);
  if (target.empty()) p.Fail(slots[0], "the I.vdevice target must not be empty");
  int64_t id = 0;
  if (!IsNull(slots[1])) {
    id = p.ToInt(p.Eval(slots[1]), slots[1]);
    if (id < 0) p.Fail(slots[1], "vdevice_id must be non-negative, got " + std::to_string(id));
  }
  std::string scope = "global";
  if (!IsNull(slots[2])) {
    if (p.Kind(slots[2]) != K::kString) p.Fail(slots[2], "memory_scope must be a string");
    scope = p.StringLiteral(slots[2]);
  }
  return ir::MakeVDevice(std::move(target), id, std::move(scope), p.SpanOf(call));
}

}  // namespace

ir::VDevice Parser::LookupVDevice(const std::string& text, Node n) {
  // Split "kind[:index[:scope]]".
  std::vector<std::string> parts;
  size_t start = 0;
  while (parts.size() < 2) {
    size_t colon = text.find(':', start);
    if (colon == std::string::npos) break;
    parts.push_back(text.substr(start, colon - start));
    start = colon + 1;
  }
  parts.push_back(text.substr(start));
  const std::string& kind = parts[0];
  int64_t index = 0;
  bool index_ok = !kind.empty();
  if (parts.size() > 1) {
    const std::string& digits = parts[1];
    index_ok = index_ok && !digits.empty() && digits.size() < 10 &&
               digits.find_first_not_of("0123456789") == std::string::npos;
    if (index_ok) index = std::stoll(digits);
  }
  if (!index_ok || (parts.size() > 2 && parts[2].empty())) {
    Fail(n, "a vdevice is written \"kind\" or \"kind:index\" (e.g. \"cuda:0\"), got \"" + text +
                "\"");
  }
  auto it = module_global_infos_.find(ir::kVDeviceInfoKey);
  const auto* list = it == module_global_infos_.end() ? nullptr : it->second.as<ir::ArrayObj>();
  if (!list || list->items.empty()) {
    Fail(n, "vdevice \"" + text + "\" is not declared: the module has no "
            "I.module_global_infos({\"vdevice\": [...]})");
  }
  std::vector<ir::VDevice> of_kind;
  std::string declared;
  std::map<std::string, int64_t> seen;
  for (const ObjectRef& item : list->items) {
    auto* d = item.as<ir::VDeviceNode>();
    if (!d) continue;
    std::string k = ir::VDeviceKind(*d);
    if (!declared.empty()) declared += ", ";
    declared += "\"" + k + ":" + std::to_string(seen[k]++) + "\"";
    if (k == kind) of_kind.push_back(ir::GetRef(d));
  }
  if (of_kind.empty()) {
    Fail(n, "no vdevice of kind \"" + kind + "\" in the module's global infos (declared: " +
                declared + ")");
  }
  if (index >= int64_t(of_kind.size())) {
    Fail(n, "vdevice \"" + text + "\" is out of range: the module declares " +
                std::to_string(of_kind.size()) + " vdevice" + (of_kind.size() == 1 ? "" : "s") +
                " of kind \"" + kind + "\"");
  }
  const ir::VDevice& found = of_kind[size_t(index)];
  if (parts.size() > 2 && parts[2] != found->memory_scope) {
    Fail(n, "vdevice \"" + kind + ":" + std::to_string(index) + "\" has memory scope \"" +
                found->memory_scope + "\", not \"" + parts[2] + "\"");
  }
  return found;
}

void Parser::ParseModuleGlobalInfos(Node call) {
  const auto f = F();
  std::vector<Node> args;
  for (Node a : cst_->Children(Field(call, f.arguments))) {
    if (Kind(a) != K::kComment) args.push_back(a);
  }
  if (args.size() != 1 || Kind(args[0]) != K::kDictionary) {
    Fail(call, "I.module_global_infos expects one dict, e.g. {\"vdevice\": [I.vdevice(\"llvm\")]}");
  }
  for (Node pair : cst_->Children(args[0])) {
    if (Kind(pair) == K::kComment) continue;
    if (Kind(pair) != K::kPair) Fail(pair, "unsupported dictionary entry");
    Node key_node = Field(pair, f.key), list = Field(pair, f.value);
    if (Kind(key_node) != K::kString) Fail(key_node, "a global info kind must be a string");
    std::string key = StringLiteral(key_node);
    // VDevice is the only GlobalInfo kind TVMScript writes today.
    if (key != ir::kVDeviceInfoKey) {
      Fail(key_node, "unknown global info kind \"" + key + "\" (expected \"vdevice\")");
    }
    if (module_global_infos_.count(key)) Fail(key_node, "global info \"" + key + "\" given twice");
    if (Kind(list) != K::kList) Fail(list, "the \"vdevice\" entry must be a list of I.vdevice(...)");
    std::vector<ObjectRef> items;
    for (Node item : cst_->Children(list)) {
      if (Kind(item) == K::kComment) continue;
      items.push_back(ParseVDevice(*this, item));
    }
    module_global_infos_[key] = ir::MakeArray(std::move(items));
  }
}

}  // namespace wb::script::detail
