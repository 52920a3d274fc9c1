// `I.module_global_infos({"vdevice": [I.vdevice(...), ...]})`: module-level GlobalInfo objects.
// The dict is read from the syntax tree rather than through Eval because its values are
// constructor calls (`I.vdevice`) that are meaningful only here.

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
  if (p.Kind(slots[0]) != K::kString) {
    p.Fail(slots[0], "I.vdevice expects the target as a string such as \"cuda\"");
  }
  std::string target = p.StringLiteral(slots[0]);
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
