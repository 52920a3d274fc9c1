#include "ir/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/expr.h"

namespace wb::ir {

namespace {

// Not nlohmann::ordered_json: its objects are vectors of pairs with const keys, which copy their
// values (recursively) when they grow, so a deeply nested input would overflow the stack.
using Json = nlohmann::json;

// The shortest decimal text that reads back to the same double; locale-independent.
std::string DoubleText(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, end);
}

std::optional<double> ParseDouble(std::string_view text) {
  if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

// A JSON string literal; bytes that are not valid UTF-8 become U+FFFD.
std::string Quote(std::string_view s) {
  bool plain = std::all_of(s.begin(), s.end(),
                           [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  if (plain) return '"' + std::string(s) + '"';
  return Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A data type by name when the name reads back to the same type, otherwise (types the text form
// cannot spell, such as a 32-bit handle) by its packed bits.
std::string DataTypeText(DataType t) {
  std::string name = t.ToString();
  if (auto back = DataType::Parse(name); back && *back == t) return Quote(name);
  return std::to_string(t.Pack());
}

// ---------------------------------------------------------------------------------------------
// Saving: nodes are numbered in post-order, so every node comes after the nodes it refers to, and
// then written one a line. Both walks use explicit stacks: deep IR does not reach the thread's
// stack limit. The text is written directly; a JSON document object per node costs several times
// as much.

// The nodes a node refers to, in field order.
class ChildCollector final : public FieldVisitor {
 public:
  explicit ChildCollector(std::vector<const Object*>* out) : out_(out) {}
  void Visit(const char*, int64_t*, FieldKind) override {}
  void Visit(const char*, double*, FieldKind) override {}
  void Visit(const char*, bool*, FieldKind) override {}
  void Visit(const char*, std::string*, FieldKind) override {}
  void VisitBytes(const char*, std::string*, FieldKind) override {}
  void Visit(const char*, DataType*, FieldKind) override {}
  void Visit(const char*, ObjectRef* v, FieldKind) override { out_->push_back(v->get()); }
  void Visit(const char*, std::vector<ObjectRef>* v, FieldKind) override {
    for (const ObjectRef& item : *v) out_->push_back(item.get());
  }
  void Visit(const char*, AttrMap* v, FieldKind) override {
    for (const auto& [key, value] : *v) out_->push_back(value.get());
  }

 private:
  std::vector<const Object*>* out_;
};

using NodeIndex = std::unordered_map<const Object*, size_t>;

// The nodes of the graph under `root`, each once, children before parents; `index` gets each
// node's position.
std::vector<const Object*> PostOrder(const Object* root, NodeIndex* index) {
  struct Frame {
    const Object* node;
    std::vector<const Object*> children;
    size_t next = 0;
  };
  std::vector<const Object*> order;
  std::vector<Frame> stack;
  auto enter = [&](const Object* node) {
    if (node == nullptr || index->count(node)) return;
    Frame frame{node, {}, 0};
    ChildCollector collector(&frame.children);
    // A reading visitor leaves the node unchanged; VisitFields is non-const only for the loader.
    const_cast<Object*>(node)->VisitFields(&collector);
    stack.push_back(std::move(frame));
  };
  enter(root);
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.next < frame.children.size()) {
      enter(frame.children[frame.next++]);  // may invalidate `frame`
      continue;
    }
    index->emplace(frame.node, order.size());
    order.push_back(frame.node);
    stack.pop_back();
  }
  return order;
}

// Writes the fields of one node, its references as the indices PostOrder gave.
class FieldWriter final : public FieldVisitor {
 public:
  explicit FieldWriter(const NodeIndex& index) : index_(index) {}

  const std::string& text() const { return text_; }

  void Visit(const char* name, int64_t* v, FieldKind) override { Set(name, std::to_string(*v)); }
  void Visit(const char* name, double* v, FieldKind) override { Set(name, Quote(DoubleText(*v))); }
  void Visit(const char* name, bool* v, FieldKind) override { Set(name, *v ? "true" : "false"); }
  void Visit(const char* name, std::string* v, FieldKind) override { Set(name, Quote(*v)); }
  void Visit(const char* name, DataType* v, FieldKind) override { Set(name, DataTypeText(*v)); }
  void Visit(const char* name, ObjectRef* v, FieldKind) override { Set(name, Reference(v->get())); }
  void Visit(const char* name, std::vector<ObjectRef>* v, FieldKind) override {
    std::string items = "[";
    for (size_t i = 0; i < v->size(); ++i) {
      if (i > 0) items += ", ";
      items += Reference((*v)[i].get());
    }
    Set(name, items + "]");
  }
  void Visit(const char* name, AttrMap* v, FieldKind) override {
    std::string items = "{";
    for (const auto& [key, value] : *v) {
      if (items.size() > 1) items += ", ";
      items += Quote(key) + ": " + Reference(value.get());
    }
    Set(name, items + "}");
  }

 private:
  std::string Reference(const Object* node) const {
    return node ? std::to_string(index_.at(node)) : "null";
  }

  void Set(const char* name, const std::string& value) {
    if (!text_.empty()) text_ += ", ";
    text_ += '"';
    text_ += name;  // reflection names are identifiers: nothing to escape
    text_ += "\": ";
    text_ += value;
  }

  const NodeIndex& index_;
  std::string text_;
};

// ---------------------------------------------------------------------------------------------
// Loading: nodes are built in file order, each from nodes already built, so a file cannot make a
// reference cycle.

// "string \"abc\"", "number 3", "array": what a JSON value is, for messages. Arrays and objects
// are not printed: they may be huge or deeply nested (dump() recurses).
std::string Describe(const Json& j) {
  if (j.is_structured()) return j.type_name();
  std::string text = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(j.type_name()) + " " + text;
}

class Loader final : public FieldVisitor {
 public:
  ObjectRef Load(const std::string& text) {
    Json doc;
    try {
      doc = Json::parse(text);
    } catch (const Json::parse_error& e) {
      // Drop nlohmann's "[json.exception.parse_error.101] " prefix.
      std::string_view what = e.what();
      if (auto pos = what.find("] "); pos != std::string_view::npos) what.remove_prefix(pos + 2);
      return Fail("not valid JSON: " + std::string(what));
    }
    if (!doc.is_object())
      return Fail("expected a JSON object with \"root\", \"nodes\" and \"version\"");
    auto version = doc.find("version");
    if (version == doc.end()) return Fail("missing \"version\"");
    if (!version->is_string() || version->get<std::string>() != kJSONVersion) {
      return Fail("unsupported version " + Describe(*version) + "; this build reads \"" +
                  kJSONVersion + "\"");
    }
    auto nodes = doc.find("nodes");
    if (nodes == doc.end() || !nodes->is_array()) return Fail("\"nodes\" must be an array");
    for (const Json& entry : *nodes) {
      ObjectRef node = LoadNode(entry);
      if (!node.defined()) return ObjectRef();
      nodes_.push_back(std::move(node));
    }
    auto root = doc.find("root");
    if (root == doc.end()) return Fail("missing \"root\"");
    if (root->is_null()) return ObjectRef();
    std::optional<size_t> index = IndexOf(*root);
    if (!index) {
      return Fail("\"root\" " + Describe(*root) + " is not the index of one of the " +
                  std::to_string(nodes_.size()) + " nodes");
    }
    return nodes_[*index];
  }

  const std::string& error() const { return error_; }

  bool writes() const override { return true; }

  void Visit(const char* name, int64_t* v, FieldKind) override {
    const Json* j = Find(name);
    if (!j) return;
    if (!j->is_number_integer() ||
        (j->is_number_unsigned() &&
         j->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))) {
      FailField(name, "expects a 64-bit integer, got " + Describe(*j));
      return;
    }
    *v = j->get<int64_t>();
  }
  void Visit(const char* name, double* v, FieldKind) override {
    const Json* j = Find(name);
    if (!j) return;
    std::optional<double> value;
    if (j->is_string()) value = ParseDouble(j->get<std::string>());
    if (j->is_number()) value = j->get<double>();
    if (!value) {
      FailField(name, "expects a number or a decimal string (\"0.5\", \"nan\", \"-inf\"), got " +
                          Describe(*j));
      return;
    }
    *v = *value;
  }
  void Visit(const char* name, bool* v, FieldKind) override {
    const Json* j = Find(name);
    if (!j) return;
    if (!j->is_boolean()) {
      FailField(name, "expects true or false, got " + Describe(*j));
      return;
    }
    *v = j->get<bool>();
  }
  void Visit(const char* name, std::string* v, FieldKind) override {
    const Json* j = Find(name);
    if (!j) return;
    if (!j->is_string()) {
      FailField(name, "expects a string, got " + Describe(*j));
      return;
    }
    *v = j->get<std::string>();
  }
  void Visit(const char* name, DataType* v, FieldKind) override {
    const Json* j = Find(name);
    if (!j) return;
    std::optional<DataType> t;
    if (j->is_string()) t = DataType::Parse(j->get<std::string>());
    if (j->is_number_unsigned() && j->get<uint64_t>() <= UINT32_MAX) {
      t = DataType::Unpack(j->get<uint32_t>());
    }
    if (!t) {
      FailField(name, "expects a data type such as \"float32x4\", got " + Describe(*j));
      return;
    }
    *v = *t;
  }
  void Visit(const char* name, ObjectRef* v, FieldKind) override {
    const Json* j = Find(name);
    if (!j) return;
    last_field_ = name;
    last_item_ = nullptr;
    if (Resolve(name, *j, v)) last_item_ = v->get();
  }
  void Visit(const char* name, std::vector<ObjectRef>* v, FieldKind) override {
    const Json* j = Find(name);
    if (!j) return;
    last_field_ = name;
    last_item_ = nullptr;
    if (!j->is_array()) {
      FailField(name, "expects an array of node indices, got " + Describe(*j));
      return;
    }
    std::vector<ObjectRef> items(j->size());
    for (size_t i = 0; i < items.size(); ++i) {
      if (!Resolve(name, (*j)[i], &items[i])) return;
    }
    *v = std::move(items);
  }
  void Visit(const char* name, AttrMap* v, FieldKind) override {
    const Json* j = Find(name);
    if (!j) return;
    if (!j->is_object()) {
      FailField(name, "expects an object of node indices, got " + Describe(*j));
      return;
    }
    AttrMap items;
    for (const auto& [key, value] : j->items()) {
      if (!Resolve(name, value, &items[key])) return;
    }
    *v = std::move(items);
  }

 private:
  ObjectRef LoadNode(const Json& entry) {
    node_index_ = nodes_.size();
    type_key_ = "?";
    if (!entry.is_object()) return Fail(Where() + "expected an object, got " + Describe(entry));
    auto type = entry.find("type");
    if (type == entry.end() || !type->is_string()) {
      return Fail(Where() + "\"type\" must be a type key such as \"tirx.Add\"");
    }
    type_key_ = type->get<std::string>();
    TypeIndex index = TypeIndexOfKey(type_key_);
    if (index == TypeIndex::kCount) return Fail(Where() + "unknown node type");
    ObjectRef node(CreateEmptyNode(index));
    if (!node.defined()) return Fail(Where() + "this node type cannot be loaded (no factory)");

    static const Json kNoFields = Json::object();
    auto fields = entry.find("fields");
    if (fields != entry.end() && !fields->is_object()) {
      return Fail(Where() + "\"fields\" must be an object, got " + Describe(*fields));
    }
    fields_ = fields == entry.end() ? &kNoFields : &*fields;
    seen_.clear();
    last_field_ = nullptr;
    try {
      // The node is still private to the loader; this is how it gets its fields.
      const_cast<Object*>(node.get())->VisitFields(this);
    } catch (const std::logic_error& e) {
      // Thrown by the Fields adapter's Downcast right after we set last_field_.
      if (!failed_ && last_field_ && last_item_) {
        FailField(last_field_, std::string("cannot hold a ") + last_item_->type_key());
      } else if (!failed_ && last_field_) {
        FailField(last_field_, std::string("has an item of the wrong kind (") + e.what() + ")");
      } else if (!failed_) {
        Fail(Where() + e.what());
      }
    }
    if (failed_) return ObjectRef();
    for (const auto& [key, value] : fields_->items()) {
      bool known = false;
      for (const char* name : seen_) known = known || key == name;
      if (!known) return Fail(Where() + "no field '" + key + "' in " + type_key_);
    }
    if (auto* module = node.as<IRModuleNode>();
        module && module->global_vars.size() != module->functions.size()) {
      return Fail(Where() + std::to_string(module->global_vars.size()) + " global_vars but " +
                  std::to_string(module->functions.size()) + " functions");
    }
    return node;
  }

  // Fields added after documents of this version were first written: an older document leaves
  // them out, which means the field's default (no global infos, no vdevice).
  bool MayBeAbsent(const char* name) const {
    static constexpr std::pair<std::string_view, std::string_view> kLateFields[] = {
        {"ir.IRModule", "global_infos"},
        {"relax.TensorType", "vdevice"},
    };
    for (const auto& [type, field] : kLateFields) {
      if (type_key_ == type && field == name) return true;
    }
    return false;
  }

  // The field `name` of the node being loaded; null when missing (a failure unless the field
  // may be absent, which leaves its default).
  const Json* Find(const char* name) {
    if (failed_) return nullptr;
    seen_.push_back(name);
    auto it = fields_->find(name);
    if (it == fields_->end()) {
      if (!MayBeAbsent(name)) FailField(name, "is missing");
      return nullptr;
    }
    return &*it;
  }

  std::optional<size_t> IndexOf(const Json& j) const {
    if (!j.is_number_integer()) return std::nullopt;
    if (j.is_number_unsigned()) {
      uint64_t i = j.get<uint64_t>();
      if (i < nodes_.size()) return size_t(i);
      return std::nullopt;
    }
    int64_t i = j.get<int64_t>();
    if (i >= 0 && uint64_t(i) < nodes_.size()) return size_t(i);
    return std::nullopt;
  }

  // A node reference: an index of an earlier node, or null.
  bool Resolve(const char* name, const Json& j, ObjectRef* out) {
    if (j.is_null()) {
      *out = ObjectRef();
      return true;
    }
    std::optional<size_t> index = IndexOf(j);
    if (!index) {
      FailField(name, "refers to " + Describe(j) + ", which is not the index of a node listed " +
                          "before this one");
      return false;
    }
    *out = nodes_[*index];
    return true;
  }

  std::string Where() const {
    return "node " + std::to_string(node_index_) + " (" + type_key_ + "): ";
  }

  void FailField(const char* name, const std::string& what) {
    Fail(Where() + "field '" + name + "' " + what);
  }

  ObjectRef Fail(std::string message) {
    if (!failed_) {
      failed_ = true;
      error_ = std::move(message);
    }
    return ObjectRef();
  }

  std::vector<ObjectRef> nodes_;
  size_t node_index_ = 0;
  std::string type_key_;
  const Json* fields_ = nullptr;
  std::vector<const char*> seen_;
  const char* last_field_ = nullptr;
  const Object* last_item_ = nullptr;
  bool failed_ = false;
  std::string error_;
};

}  // namespace

std::string SaveJSON(const ObjectRef& node) {
  NodeIndex index;
  std::vector<const Object*> nodes = PostOrder(node.get(), &index);
  std::string root = node.defined() ? std::to_string(index.at(node.get())) : "null";
  std::string out = "{\n  \"root\": " + root + ",\n  \"nodes\": [";
  for (size_t i = 0; i < nodes.size(); ++i) {
    FieldWriter writer(index);
    const_cast<Object*>(nodes[i])->VisitFields(&writer);
    out += i == 0 ? "\n    " : ",\n    ";
    out += "{\"type\": " + Quote(nodes[i]->type_key()) + ", \"fields\": {" + writer.text() + "}}";
  }
  out += nodes.empty() ? "],\n" : "\n  ],\n";
  out += "  \"version\": " + Quote(kJSONVersion) + "\n}\n";
  return out;
}

ObjectRef LoadJSON(const std::string& text, std::string* error) {
  Loader loader;
  ObjectRef result;
  std::string message;
  try {
    result = loader.Load(text);
    message = loader.error();
  } catch (const std::exception& e) {
    result = ObjectRef();
    message = std::string("internal error while loading IR from JSON: ") + e.what();
  }
  if (error) *error = std::move(message);
  return result;
}

}  // namespace wb::ir
