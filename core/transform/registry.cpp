#include "transform/registry.h"

#include <cctype>
#include <charconv>

namespace wb::transform {

using ir::ObjectRef;

const char* ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kInt:
      return "an int";
    case ParamType::kFloat:
      return "a float";
    case ParamType::kBool:
      return "a bool (True or False)";
    case ParamType::kString:
      return "a string";
    case ParamType::kStringList:
      return "a list of strings";
  }
  return "a value";
}

namespace {

const ObjectRef& Value(const PassArgs& args, const std::string& name) {
  auto it = args.values.find(name);
  if (it == args.values.end()) throw std::logic_error("pass argument '" + name + "' not declared");
  return it->second;
}

}  // namespace

int64_t PassArgs::Int(const std::string& name) const {
  return Value(*this, name).as<ir::IntObj>()->value;
}
double PassArgs::Float(const std::string& name) const {
  const ObjectRef& v = Value(*this, name);
  if (auto* i = v.as<ir::IntObj>()) return double(i->value);
  return v.as<ir::FloatObj>()->value;
}
bool PassArgs::Bool(const std::string& name) const {
  return Value(*this, name).as<ir::BoolObj>()->value;
}
std::string PassArgs::String(const std::string& name) const {
  return Value(*this, name).as<ir::StringObj>()->value;
}
std::vector<std::string> PassArgs::StringList(const std::string& name) const {
  std::vector<std::string> out;
  for (const auto& item : Value(*this, name).as<ir::ArrayObj>()->items) {
    out.push_back(item.as<ir::StringObj>()->value);
  }
  return out;
}

PassRegistry& PassRegistry::Global() {
  static PassRegistry registry;
  return registry;
}

void PassRegistry::Register(PassEntry entry) {
  std::string name = entry.name;
  passes_[name] = std::move(entry);
}

void PassRegistry::RegisterPipeline(std::string name, std::string text, std::string doc) {
  pipelines_[std::move(name)] = {std::move(text), std::move(doc)};
}

const PassEntry* PassRegistry::Find(std::string_view name) const {
  auto it = passes_.find(name);
  return it == passes_.end() ? nullptr : &it->second;
}

const std::string* PassRegistry::FindPipeline(std::string_view name) const {
  auto it = pipelines_.find(name);
  return it == pipelines_.end() ? nullptr : &it->second.first;
}

std::vector<const PassEntry*> PassRegistry::Passes() const {
  std::vector<const PassEntry*> out;
  for (const auto& [name, entry] : passes_) out.push_back(&entry);
  return out;
}

std::vector<std::string> PassRegistry::Pipelines() const {
  std::vector<std::string> out;
  for (const auto& [name, p] : pipelines_) out.push_back(name);
  return out;
}

namespace {

// A small recursive-descent reader for pipeline text.
class PipelineReader {
 public:
  PipelineReader(std::string_view text, DiagnosticList& diags, SourceFilePtr source)
      : text_(text), diags_(diags), source_(std::move(source)) {}

  std::optional<std::vector<PassSpec>> Read() {
    std::vector<PassSpec> specs;
    SkipSpace();
    if (pos_ == text_.size()) {
      Error("the pipeline is empty", pos_, pos_);
      return std::nullopt;
    }
    bool ok = true;
    while (pos_ < text_.size()) {
      auto spec = ReadPass();
      if (!spec) {
        ok = false;
        // Resynchronize at the next top-level comma.
        int depth = 0;
        while (pos_ < text_.size() && !(depth == 0 && text_[pos_] == ',')) {
          if (text_[pos_] == '(' || text_[pos_] == '[') ++depth;
          if (text_[pos_] == ')' || text_[pos_] == ']') --depth;
          ++pos_;
        }
      } else {
        specs.push_back(std::move(*spec));
      }
      SkipSpace();
      if (pos_ < text_.size()) {
        if (text_[pos_] != ',') {
          Error(std::string("expected ',' between passes, found '") + text_[pos_] + "'", pos_,
                pos_ + 1);
          return std::nullopt;
        }
        ++pos_;
        SkipSpace();
      }
    }
    if (!ok) return std::nullopt;
    return specs;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  void Error(std::string message, size_t begin, size_t end) {
    Span span;
    if (source_) span = Span(source_, uint32_t(begin), uint32_t(end));
    if (!source_) message += " (column " + std::to_string(begin + 1) + ")";
    diags_.Error(std::move(message), span);
  }

  std::string_view Identifier() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
            text_[pos_] == '.')) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  std::optional<PassSpec> ReadPass() {
    size_t start = pos_;
    std::string_view name = Identifier();
    if (name.empty()) {
      Error(std::string("expected a pass name, found '") + text_[pos_] + "'", pos_, pos_ + 1);
      return std::nullopt;
    }
    const PassEntry* entry = PassRegistry::Global().Find(name);
    if (!entry) {
      Error("unknown pass '" + std::string(name) + "'", start, pos_);
      return std::nullopt;
    }
    PassSpec spec;
    spec.name = entry->name;
    spec.column = uint32_t(start + 1);
    for (const auto& p : entry->params) spec.args.values[p.name] = p.default_value;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      ++pos_;
      SkipSpace();
      bool ok = true;
      while (pos_ < text_.size() && text_[pos_] != ')') {
        size_t arg_start = pos_;
        std::string arg(Identifier());
        SkipSpace();
        if (arg.empty() || pos_ >= text_.size() || text_[pos_] != '=') {
          Error("expected 'name=value' in the arguments of " + spec.name, arg_start,
                std::max(pos_, arg_start + 1));
          return std::nullopt;
        }
        ++pos_;
        SkipSpace();
        const PassParam* param = nullptr;
        for (const auto& p : entry->params) {
          if (p.name == arg) param = &p;
        }
        size_t value_start = pos_;
        ObjectRef value = ReadValue();
        if (!param) {
          std::string known;
          for (const auto& p : entry->params) known += (known.empty() ? "" : ", ") + p.name;
          Error("pass '" + spec.name + "' has no argument '" + arg + "'" +
                    (known.empty() ? std::string(" (it takes none)") : " (it takes: " + known + ")"),
                arg_start, arg_start + arg.size());
          ok = false;
        } else if (!value.defined() || !Matches(value, param->type)) {
          Error("argument '" + arg + "' of " + spec.name + " expects " +
                    ParamTypeName(param->type) + ", got '" +
                    std::string(text_.substr(value_start, pos_ - value_start)) + "'",
                value_start, std::max(pos_, value_start + 1));
          ok = false;
        } else {
          if (param->type == ParamType::kFloat && value.as<ir::IntObj>()) {
            value = ir::MakeFloat(double(value.as<ir::IntObj>()->value));
          }
          spec.args.values[arg] = value;
        }
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          SkipSpace();
        }
      }
      if (pos_ >= text_.size()) {
        Error("missing ')' after the arguments of " + spec.name, start, pos_);
        return std::nullopt;
      }
      ++pos_;
      if (!ok) return std::nullopt;
    }
    return spec;
  }

  static bool Matches(const ObjectRef& v, ParamType type) {
    switch (type) {
      case ParamType::kInt:
        return v.as<ir::IntObj>() != nullptr;
      case ParamType::kFloat:
        return v.as<ir::IntObj>() || v.as<ir::FloatObj>();
      case ParamType::kBool:
        return v.as<ir::BoolObj>() != nullptr;
      case ParamType::kString:
        return v.as<ir::StringObj>() != nullptr;
      case ParamType::kStringList: {
        auto* arr = v.as<ir::ArrayObj>();
        if (!arr) return false;
        for (const auto& item : arr->items) {
          if (!item.as<ir::StringObj>()) return false;
        }
        return true;
      }
    }
    return false;
  }

  // int, float, True/False, "string", [values]; null on anything else (pos_ moves past it).
  ObjectRef ReadValue() {
    if (pos_ >= text_.size()) return ObjectRef();
    char c = text_[pos_];
    if (c == '"' || c == '\'') {
      char quote = c;
      size_t start = ++pos_;
      while (pos_ < text_.size() && text_[pos_] != quote) ++pos_;
      std::string s(text_.substr(start, pos_ - start));
      if (pos_ < text_.size()) ++pos_;
      return ir::MakeString(std::move(s));
    }
    if (c == '[') {
      ++pos_;
      std::vector<ObjectRef> items;
      SkipSpace();
      while (pos_ < text_.size() && text_[pos_] != ']') {
        ObjectRef item = ReadValue();
        if (!item.defined()) return ObjectRef();
        items.push_back(item);
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') ++pos_;
        SkipSpace();
      }
      if (pos_ < text_.size()) ++pos_;
      return ir::MakeArray(std::move(items));
    }
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != ')' &&
           !std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
    std::string_view word = text_.substr(start, pos_ - start);
    if (word == "True") return ir::MakeBool(true);
    if (word == "False") return ir::MakeBool(false);
    int64_t i = 0;
    auto [p, ec] = std::from_chars(word.data(), word.data() + word.size(), i);
    if (ec == std::errc() && p == word.data() + word.size() && !word.empty()) return ir::MakeInt(i);
    double d = 0;
    auto [p2, ec2] = std::from_chars(word.data(), word.data() + word.size(), d);
    if (ec2 == std::errc() && p2 == word.data() + word.size() && !word.empty()) {
      return ir::MakeFloat(d);
    }
    return ObjectRef();
  }

  std::string_view text_;
  DiagnosticList& diags_;
  SourceFilePtr source_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<std::vector<PassSpec>> ParsePipeline(std::string_view text, DiagnosticList& diags,
                                                   const SourceFilePtr& source) {
  std::string_view trimmed = text;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) {
    trimmed.remove_prefix(1);
  }
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) {
    trimmed.remove_suffix(1);
  }
  if (const std::string* named = PassRegistry::Global().FindPipeline(trimmed)) {
    return PipelineReader(*named, diags, nullptr).Read();
  }
  return PipelineReader(text, diags, source).Read();
}

std::string ParamValueText(const ObjectRef& value) {
  if (auto* b = value.as<ir::BoolObj>()) return b->value ? "True" : "False";
  if (auto* i = value.as<ir::IntObj>()) return std::to_string(i->value);
  if (auto* f = value.as<ir::FloatObj>()) {
    // The shortest text that reads back to the same double; "2.0" rather than "2" so that it
    // reads as a float wherever it is pasted.
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), f->value);
    std::string text(buffer, ec == std::errc() ? end : buffer);
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
    return text;
  }
  if (auto* str = value.as<ir::StringObj>()) {
    char quote = str->value.find('"') == std::string::npos ? '"' : '\'';
    return quote + str->value + quote;
  }
  if (auto* arr = value.as<ir::ArrayObj>()) {
    std::string out = "[";
    for (size_t i = 0; i < arr->items.size(); ++i) {
      if (i) out += ", ";
      out += ParamValueText(arr->items[i]);
    }
    return out + "]";
  }
  return "?";
}

namespace {

bool SameValue(const ObjectRef& a, const ObjectRef& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined()) return false;
  if (auto* x = a.as<ir::BoolObj>())
    return b.as<ir::BoolObj>() && x->value == b.as<ir::BoolObj>()->value;
  if (auto* x = a.as<ir::IntObj>()) {
    if (auto* y = b.as<ir::IntObj>()) return x->value == y->value;
    if (auto* y = b.as<ir::FloatObj>()) return double(x->value) == y->value;
    return false;
  }
  if (auto* x = a.as<ir::FloatObj>()) {
    if (auto* y = b.as<ir::FloatObj>()) return x->value == y->value;
    if (auto* y = b.as<ir::IntObj>()) return x->value == double(y->value);
    return false;
  }
  if (auto* x = a.as<ir::StringObj>())
    return b.as<ir::StringObj>() && x->value == b.as<ir::StringObj>()->value;
  if (auto* x = a.as<ir::ArrayObj>()) {
    auto* y = b.as<ir::ArrayObj>();
    if (!y || x->items.size() != y->items.size()) return false;
    for (size_t i = 0; i < x->items.size(); ++i) {
      if (!SameValue(x->items[i], y->items[i])) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

bool IsDefaultValue(const PassParam& param, const ObjectRef& value) {
  return SameValue(param.default_value, value);
}

std::string PipelineText(const std::vector<PassSpec>& specs) {
  std::string out;
  for (const PassSpec& spec : specs) {
    if (!out.empty()) out += ", ";
    out += spec.name;
    const PassEntry* entry = PassRegistry::Global().Find(spec.name);
    if (!entry) continue;
    std::string args;
    for (const PassParam& param : entry->params) {
      auto it = spec.args.values.find(param.name);
      if (it == spec.args.values.end() || IsDefaultValue(param, it->second)) continue;
      if (!args.empty()) args += ", ";
      args += param.name + "=" + ParamValueText(it->second);
    }
    if (!args.empty()) out += "(" + args + ")";
  }
  return out;
}

std::optional<ir::Pass> BuildPipeline(std::string_view text, DiagnosticList& diags) {
  auto specs = ParsePipeline(text, diags);
  if (!specs) return std::nullopt;
  std::vector<ir::Pass> passes;
  for (const auto& spec : *specs) {
    passes.push_back(PassRegistry::Global().Find(spec.name)->factory(spec.args));
  }
  return ir::Sequential(std::move(passes), "pipeline");
}

}  // namespace wb::transform
