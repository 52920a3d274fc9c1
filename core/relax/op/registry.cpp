#include "relax/op/registry.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>

namespace wb::relax {

namespace {

struct Registry {
  std::map<std::string, std::unique_ptr<OpInfo>, std::less<>> by_name;
  std::map<std::string, const OpInfo*, std::less<>> by_script_name;
  std::map<const Object*, const OpInfo*> by_node;
};

Registry& GetRegistry() {
  static Registry registry;
  return registry;
}

const ObjectRef* FindAttrValue(const Call& call, const char* name) {
  auto it = call->attrs.find(name);
  return it == call->attrs.end() ? nullptr : &it->second;
}

}  // namespace

const char* OpPatternKindName(OpPatternKind kind) {
  switch (kind) {
    case OpPatternKind::kElemWise:
      return "kElemWise";
    case OpPatternKind::kBroadcast:
      return "kBroadcast";
    case OpPatternKind::kInjective:
      return "kInjective";
    case OpPatternKind::kCommReduce:
      return "kCommReduce";
    case OpPatternKind::kOutEWiseFusable:
      return "kOutEWiseFusable";
    case OpPatternKind::kTuple:
      return "kTuple";
    case OpPatternKind::kOpaque:
      return "kOpaque";
  }
  return "?";
}

InferResult InferResult::Error(std::string message) {
  InferResult r;
  r.message_ = std::move(message);
  return r;
}

std::string OpInfo::script_name() const {
  constexpr std::string_view kPrefix = "relax.";
  return name.rfind(kPrefix, 0) == 0 ? name.substr(kPrefix.size()) : name;
}

const AttrField* OpInfo::FindAttr(std::string_view attr) const {
  for (const auto& a : attrs) {
    if (a.name == attr) return &a;
  }
  return nullptr;
}

void RegisterOp(OpInfo info) {
  Registry& r = GetRegistry();
  if (r.by_name.count(info.name)) throw std::logic_error("relax op registered twice: " + info.name);
  NodeBuilder<ir::OpNode> node;
  node->name = info.name;
  info.op = node.Finish();
  auto owned = std::make_unique<OpInfo>(std::move(info));
  const OpInfo* p = owned.get();
  r.by_script_name[p->script_name()] = p;
  r.by_node[p->op.get()] = p;
  r.by_name.emplace(p->name, std::move(owned));
}

const OpInfo* FindOp(std::string_view name) {
  const Registry& r = GetRegistry();
  auto it = r.by_name.find(name);
  return it == r.by_name.end() ? nullptr : it->second.get();
}

const OpInfo* FindOpByScriptName(std::string_view script_name) {
  const Registry& r = GetRegistry();
  auto it = r.by_script_name.find(script_name);
  return it == r.by_script_name.end() ? nullptr : it->second;
}

const OpInfo* InfoOf(const ir::Op& op) {
  if (!op.defined()) return nullptr;
  const Registry& r = GetRegistry();
  auto it = r.by_node.find(op.get());
  if (it != r.by_node.end()) return it->second;
  // An equal op node from elsewhere (e.g. loaded from JSON) is the same op.
  return FindOp(op->name);
}

ir::Op GetOp(std::string_view name) {
  const OpInfo* info = FindOp(name);
  if (!info) throw std::logic_error("unknown relax op " + std::string(name));
  return info->op;
}

std::vector<const OpInfo*> AllOps() {
  std::vector<const OpInfo*> out;
  for (const auto& [name, info] : GetRegistry().by_name) out.push_back(info.get());
  return out;
}

void SetLegalize(std::string_view name, FLegalize legalize) {
  auto& r = GetRegistry();
  auto it = r.by_name.find(name);
  if (it == r.by_name.end()) throw std::logic_error("unknown relax op " + std::string(name));
  it->second->legalize = std::move(legalize);
}

Call MakeOpCall(std::string_view name, std::vector<Expr> args, AttrMap attrs,
                std::vector<Type> sinfo_args, Span span) {
  const OpInfo* info = FindOp(name);
  if (!info) info = FindOpByScriptName(name);
  if (!info)
    throw DiagnosticError(Diagnostic::Error("unknown Relax op '" + std::string(name) + "'", span));
  size_t most = info->arg_names.size();
  size_t least = info->variadic ? most - 1 : most - info->optional_args;
  bool count_ok = args.size() >= least && (info->variadic || args.size() <= most);
  if (!count_ok) {
    std::string count = info->variadic  ? "at least " + std::to_string(least)
                        : least == most ? std::to_string(most)
                                        : std::to_string(least) + " to " + std::to_string(most);
    throw DiagnosticError(Diagnostic::Error(info->script_name() + " takes " + count + " argument" +
                                                (most == 1 ? "" : "s") + ", got " +
                                                std::to_string(args.size()),
                                            span));
  }
  for (const auto& [key, value] : attrs) {
    if (!info->FindAttr(key)) {
      throw DiagnosticError(
          Diagnostic::Error(info->script_name() + " has no attribute '" + key + "'", span));
    }
  }
  std::vector<const AttrField*> following;
  for (const AttrField& field : info->attrs) {
    if (attrs.count(field.name)) continue;
    if (field.default_from.empty()) {
      attrs[field.name] = field.default_value;
    } else {
      following.push_back(&field);
    }
  }
  for (const AttrField* field : following) attrs[field->name] = attrs[field->default_from];
  return MakeCall(info->op, std::move(args), std::move(attrs), std::move(sinfo_args),
                  std::move(span));
}

int64_t AttrInt(const Call& call, const char* name) {
  const ObjectRef* v = FindAttrValue(call, name);
  if (v) {
    if (auto* i = v->as<ir::IntObj>()) return i->value;
    if (auto* b = v->as<ir::BoolObj>()) return b->value;
  }
  return 0;
}

double AttrFloat(const Call& call, const char* name) {
  const ObjectRef* v = FindAttrValue(call, name);
  if (v) {
    if (auto* f = v->as<ir::FloatObj>()) return f->value;
    if (auto* i = v->as<ir::IntObj>()) return static_cast<double>(i->value);
  }
  return 0;
}

bool AttrBool(const Call& call, const char* name) {
  const ObjectRef* v = FindAttrValue(call, name);
  if (v) {
    if (auto* b = v->as<ir::BoolObj>()) return b->value;
    if (auto* i = v->as<ir::IntObj>()) return i->value != 0;
  }
  return false;
}

std::string AttrString(const Call& call, const char* name) {
  const ObjectRef* v = FindAttrValue(call, name);
  if (v) {
    if (auto* s = v->as<ir::StringObj>()) return s->value;
  }
  return "";
}

DataType AttrDataType(const Call& call, const char* name) {
  std::string text = AttrString(call, name);
  if (text.empty() || text == "void") return DataType::Void();
  return DataType::Parse(text).value_or(DataType::Void());
}

std::vector<int64_t> AttrInts(const Call& call, const char* name) {
  std::vector<int64_t> out;
  const ObjectRef* v = FindAttrValue(call, name);
  if (!v) return out;
  if (auto* a = v->as<ir::ArrayObj>()) {
    for (const auto& item : a->items) {
      if (auto* i = item.as<ir::IntObj>()) out.push_back(i->value);
    }
  } else if (auto* i = v->as<ir::IntObj>()) {
    out.push_back(i->value);
  }
  return out;
}

bool AttrIsNone(const Call& call, const char* name) {
  const ObjectRef* v = FindAttrValue(call, name);
  return !v || !v->defined();
}

ObjectRef IntArray(const std::vector<int64_t>& values) {
  std::vector<ObjectRef> items;
  for (int64_t v : values) items.push_back(ir::MakeInt(v));
  return ir::MakeArray(std::move(items));
}

ObjectRef DTypeAttr(DataType dtype) { return ir::MakeString(dtype.ToString()); }

}  // namespace wb::relax
