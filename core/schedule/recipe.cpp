#include "schedule/recipe.h"

#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <variant>

namespace wb::schedule {

namespace {

struct Token {
  enum class Kind { kName, kInt, kString, kPunct, kNewline, kEnd } kind;
  std::string text;  // for kString: the contents without quotes
  uint32_t begin = 0;
  uint32_t end = 0;
};

// Thrown inside the reader; turned into one diagnostic at the recipe boundary.
struct RecipeError {
  std::string message;
  uint32_t begin;
  uint32_t end;
};

std::vector<Token> Lex(std::string_view s) {
  std::vector<Token> out;
  int depth = 0;
  size_t i = 0;
  auto push = [&](Token::Kind k, std::string text, size_t b, size_t e) {
    out.push_back({k, std::move(text), static_cast<uint32_t>(b), static_cast<uint32_t>(e)});
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '\n') {
      // Inside brackets a newline continues the statement, as in Python.
      if (depth == 0 && !out.empty() && out.back().kind != Token::Kind::kNewline) {
        push(Token::Kind::kNewline, "\n", i, i + 1);
      }
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t b = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      push(Token::Kind::kName, std::string(s.substr(b, i - b)), b, i);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t b = i++;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      if (i < s.size() && (s[i] == '.' || std::isalpha(static_cast<unsigned char>(s[i])))) {
        throw RecipeError{"only integer literals are supported here", static_cast<uint32_t>(b),
                          static_cast<uint32_t>(i + 1)};
      }
      push(Token::Kind::kInt, std::string(s.substr(b, i - b)), b, i);
    } else if (c == '"' || c == '\'') {
      size_t b = i++;
      std::string text;
      while (i < s.size() && s[i] != c && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        text += s[i++];
      }
      if (i >= s.size() || s[i] != c) {
        throw RecipeError{"unterminated string literal", static_cast<uint32_t>(b),
                          static_cast<uint32_t>(i)};
      }
      ++i;
      push(Token::Kind::kString, text, b, i);
    } else if (std::string_view("()[],=.").find(c) != std::string_view::npos) {
      if (c == '(' || c == '[') ++depth;
      if ((c == ')' || c == ']') && depth > 0) --depth;
      push(Token::Kind::kPunct, std::string(1, c), i, i + 1);
      ++i;
    } else {
      throw RecipeError{std::string("unexpected character '") + c + "'", static_cast<uint32_t>(i),
                        static_cast<uint32_t>(i + 1)};
    }
  }
  push(Token::Kind::kNewline, "\n", s.size(), s.size());
  push(Token::Kind::kEnd, "", s.size(), s.size());
  return out;
}

// A value in a recipe, before it is checked against the parameter that receives it.
struct Value {
  enum class Kind { kNone, kBool, kInt, kString, kName, kList } kind = Kind::kNone;
  int64_t i = 0;
  std::string s;  // kString contents, kName identifier
  std::vector<Value> list;
  uint32_t begin = 0;
  uint32_t end = 0;
};

struct Arg {
  std::string key;  // empty: positional
  Value value;
};

struct Call {
  std::vector<Token> targets;  // names bound to the outputs; `_` discards
  bool list_target = false;    // `a, b = ...` or `a, = ...`
  std::string method;
  Token method_token;
  std::vector<Arg> args;
  uint32_t begin = 0;
  uint32_t end = 0;
};

class Reader {
 public:
  explicit Reader(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  // The next statement, or nullopt at the end.
  std::optional<Call> Next() {
    while (Peek().kind == Token::Kind::kNewline) ++pos_;
    if (Peek().kind == Token::Kind::kEnd) return std::nullopt;
    Call call;
    call.begin = Peek().begin;
    // Targets: a name list followed by '=', recognised by looking for '=' before the call.
    if (Peek().kind == Token::Kind::kName && Peek().text != "sch") {
      while (true) {
        call.targets.push_back(Expect(Token::Kind::kName, "a variable name"));
        if (IsPunct(",")) {
          ++pos_;
          call.list_target = true;
          if (IsPunct("=")) break;
          continue;
        }
        break;
      }
      ExpectPunct("=");
    }
    Token object = Expect(Token::Kind::kName, "`sch`");
    if (object.text != "sch") {
      throw RecipeError{"expected a call on the schedule `sch`, got `" + object.text + "`",
                        object.begin, object.end};
    }
    ExpectPunct(".");
    call.method_token = Expect(Token::Kind::kName, "a schedule method name");
    call.method = call.method_token.text;
    ExpectPunct("(");
    while (!IsPunct(")")) {
      Arg arg;
      if (Peek().kind == Token::Kind::kName && t_[pos_ + 1].kind == Token::Kind::kPunct &&
          t_[pos_ + 1].text == "=") {
        arg.key = Peek().text;
        pos_ += 2;
      }
      arg.value = ReadValue();
      call.args.push_back(std::move(arg));
      if (!IsPunct(",")) break;
      ++pos_;
    }
    call.end = ExpectPunct(")").end;
    if (Peek().kind != Token::Kind::kNewline) {
      throw RecipeError{"expected the end of the statement", Peek().begin, Peek().end};
    }
    return call;
  }

 private:
  const Token& Peek() const { return t_[pos_]; }
  bool IsPunct(const char* p) const {
    return Peek().kind == Token::Kind::kPunct && Peek().text == p;
  }
  Token Expect(Token::Kind kind, const std::string& what) {
    if (Peek().kind != kind) throw Unexpected(what);
    return t_[pos_++];
  }
  Token ExpectPunct(const char* p) {
    if (!IsPunct(p)) throw Unexpected(std::string("`") + p + "`");
    return t_[pos_++];
  }
  RecipeError Unexpected(const std::string& what) const {
    const Token& tok = Peek();
    std::string got = tok.kind == Token::Kind::kNewline ? "the end of the line"
                      : tok.kind == Token::Kind::kEnd   ? "the end of the recipe"
                                                        : "`" + tok.text + "`";
    return {"expected " + what + ", got " + got, tok.begin, tok.end};
  }

  Value ReadValue() {
    const Token& tok = Peek();
    Value v;
    v.begin = tok.begin;
    v.end = tok.end;
    if (tok.kind == Token::Kind::kInt) {
      try {
        v.i = std::stoll(tok.text);
      } catch (const std::out_of_range&) {
        throw RecipeError{"integer literal out of range", tok.begin, tok.end};
      }
      v.kind = Value::Kind::kInt;
    } else if (tok.kind == Token::Kind::kString) {
      v.kind = Value::Kind::kString;
      v.s = tok.text;
    } else if (tok.kind == Token::Kind::kName) {
      if (tok.text == "None") {
        v.kind = Value::Kind::kNone;
      } else if (tok.text == "True" || tok.text == "False") {
        v.kind = Value::Kind::kBool;
        v.i = tok.text == "True";
      } else {
        v.kind = Value::Kind::kName;
        v.s = tok.text;
      }
    } else if (IsPunct("[") || IsPunct("(")) {
      std::string close = IsPunct("[") ? "]" : ")";
      ++pos_;
      v.kind = Value::Kind::kList;
      while (!IsPunct(close.c_str())) {
        v.list.push_back(ReadValue());
        if (!IsPunct(",")) break;
        ++pos_;
      }
      v.end = ExpectPunct(close.c_str()).end;
      return v;
    } else {
      throw Unexpected("a value (None, True, False, an integer, a string, a list or a name)");
    }
    ++pos_;
    return v;
  }

  std::vector<Token> t_;
  size_t pos_ = 0;
};

// An RV bound to a recipe name.
using Bound = std::variant<SBlockRV, LoopRV>;

// Matches a call's arguments to a method's parameters, Python-style.
class Binder {
 public:
  Binder(const Call& call, std::vector<std::string> params, bool varargs_first) : call_(call) {
    size_t positional = 0;
    for (const Arg& a : call.args) {
      if (a.key.empty()) {
        if (seen_keyword_) {
          throw RecipeError{"positional argument follows keyword argument", a.value.begin,
                            a.value.end};
        }
        if (varargs_first) {
          varargs_.push_back(a.value);
        } else if (positional < params.size()) {
          named_[params[positional]] = a.value;
        } else {
          throw RecipeError{"sch." + call.method + "() takes at most " +
                                std::to_string(params.size()) + " arguments",
                            a.value.begin, a.value.end};
        }
        ++positional;
        continue;
      }
      seen_keyword_ = true;
      bool known = false;
      for (const auto& p : params) known |= p == a.key;
      if (!known) {
        throw RecipeError{
            "sch." + call.method + "() got an unexpected keyword argument '" + a.key + "'",
            a.value.begin, a.value.end};
      }
      if (named_.count(a.key)) {
        throw RecipeError{
            "sch." + call.method + "() got multiple values for argument '" + a.key + "'",
            a.value.begin, a.value.end};
      }
      named_[a.key] = a.value;
    }
  }
  const Value* Get(const std::string& name) const {
    auto it = named_.find(name);
    return it == named_.end() ? nullptr : &it->second;
  }
  const Value& Require(const std::string& name) const {
    const Value* v = Get(name);
    if (!v) {
      throw RecipeError{"sch." + call_.method + "() missing required argument '" + name + "'",
                        call_.begin, call_.end};
    }
    return *v;
  }
  const std::vector<Value>& varargs() const { return varargs_; }

 private:
  const Call& call_;
  std::map<std::string, Value> named_;
  std::vector<Value> varargs_;
  bool seen_keyword_ = false;
};

class Applier {
 public:
  explicit Applier(Schedule& sch) : sch_(sch) {}

  void Apply(const Call& call) {
    std::vector<Bound> outputs;
    bool list_output = true;
    bool returns_nothing = call.method == "parallel" || call.method == "vectorize" ||
                           call.method == "unroll" || call.method == "bind" ||
                           call.method == "reorder";
    if (returns_nothing && !call.targets.empty()) {
      throw RecipeError{"sch." + call.method + "() returns nothing to assign", call.begin,
                        call.end};
    }
    if (call.method == "get_sblock") {
      Binder b(call, {"name", "func_name"}, false);
      std::optional<std::string> func;
      if (const Value* f = b.Get("func_name"); f && f->kind != Value::Kind::kNone) {
        func = String(*f, "func_name");
      }
      outputs.push_back(sch_.GetSBlock(String(b.Require("name"), "name"), func));
      list_output = false;
    } else if (call.method == "get_loops") {
      Binder b(call, {"block"}, false);
      for (const LoopRV& l : sch_.GetLoops(Block(b.Require("block")))) outputs.push_back(l);
    } else if (call.method == "split") {
      Binder b(call, {"loop", "factors", "preserve_unit_iters", "disable_predication"}, false);
      const Value& fv = b.Require("factors");
      if (fv.kind != Value::Kind::kList) throw TypeError(fv, "factors", "a list");
      std::vector<std::optional<int64_t>> factors;
      for (const Value& f : fv.list) {
        if (f.kind == Value::Kind::kNone) {
          factors.push_back(std::nullopt);
        } else if (f.kind == Value::Kind::kInt) {
          // TVM's older API spelled the inferred factor -1.
          factors.push_back(f.i == -1 ? std::nullopt : std::optional<int64_t>(f.i));
        } else {
          throw TypeError(f, "a factor", "an integer or None");
        }
      }
      for (const LoopRV& l :
           sch_.Split(Loop(b.Require("loop")), factors, Bool(b, "preserve_unit_iters", true),
                      Bool(b, "disable_predication", false))) {
        outputs.push_back(l);
      }
    } else if (call.method == "fuse") {
      Binder b(call, {"preserve_unit_iters"}, true);
      std::vector<LoopRV> loops;
      for (const Value& v : b.varargs()) loops.push_back(Loop(v));
      outputs.push_back(sch_.Fuse(loops, Bool(b, "preserve_unit_iters", true)));
      list_output = false;
    } else if (call.method == "reorder") {
      Binder b(call, {}, true);
      std::vector<LoopRV> loops;
      for (const Value& v : b.varargs()) loops.push_back(Loop(v));
      sch_.Reorder(loops);
    } else if (call.method == "parallel" || call.method == "vectorize" || call.method == "unroll") {
      Binder b(call, {"loop"}, false);
      LoopRV loop = Loop(b.Require("loop"));
      if (call.method == "parallel") sch_.Parallel(loop);
      if (call.method == "vectorize") sch_.Vectorize(loop);
      if (call.method == "unroll") sch_.Unroll(loop);
    } else if (call.method == "bind") {
      Binder b(call, {"loop", "thread_axis"}, false);
      sch_.Bind(Loop(b.Require("loop")), String(b.Require("thread_axis"), "thread_axis"));
    } else {
      throw RecipeError{"unknown or unsupported schedule method `" + call.method + "`",
                        call.method_token.begin, call.method_token.end};
    }
    BindTargets(call, outputs, list_output);
  }

 private:
  void BindTargets(const Call& call, const std::vector<Bound>& outputs, bool list_output) {
    if (call.targets.empty()) return;
    if (!list_output || !call.list_target) {
      if (call.targets.size() != 1 || call.list_target) {
        throw RecipeError{"sch." + call.method + "() returns a single value", call.begin, call.end};
      }
      // `loops = sch.get_loops(b)` would bind a list, which the recipe cannot index.
      if (list_output) {
        throw RecipeError{"sch." + call.method + "() returns a list: unpack it, e.g. `a, b = ...`",
                          call.targets[0].begin, call.targets[0].end};
      }
    } else if (call.targets.size() != outputs.size()) {
      throw RecipeError{"sch." + call.method + "() returned " + std::to_string(outputs.size()) +
                            " values, but " + std::to_string(call.targets.size()) +
                            " names unpack them",
                        call.targets.front().begin, call.targets.back().end};
    }
    for (size_t i = 0; i < call.targets.size(); ++i) {
      if (call.targets[i].text != "_") env_[call.targets[i].text] = outputs[i];
    }
  }

  static RecipeError TypeError(const Value& v, const std::string& what, const std::string& want) {
    return {what + " must be " + want, v.begin, v.end};
  }
  std::string String(const Value& v, const std::string& what) {
    if (v.kind != Value::Kind::kString) throw TypeError(v, what, "a string");
    return v.s;
  }
  bool Bool(const Binder& b, const std::string& name, bool dflt) {
    const Value* v = b.Get(name);
    if (!v) return dflt;
    if (v->kind != Value::Kind::kBool) throw TypeError(*v, name, "True or False");
    return v->i != 0;
  }
  const Bound& Lookup(const Value& v) {
    auto it = env_.find(v.s);
    if (it == env_.end()) throw RecipeError{"name '" + v.s + "' is not defined", v.begin, v.end};
    return it->second;
  }
  SBlockRV Block(const Value& v) {
    // As in TVM's Python API, a block may be given by name.
    if (v.kind == Value::Kind::kString) return sch_.GetSBlock(v.s);
    if (v.kind != Value::Kind::kName) throw TypeError(v, "block", "a block or a block name");
    const Bound& b = Lookup(v);
    if (!std::holds_alternative<SBlockRV>(b)) {
      throw RecipeError{"'" + v.s + "' is a loop, not a block", v.begin, v.end};
    }
    return std::get<SBlockRV>(b);
  }
  LoopRV Loop(const Value& v) {
    if (v.kind != Value::Kind::kName) throw TypeError(v, "loop", "a loop");
    const Bound& b = Lookup(v);
    if (!std::holds_alternative<LoopRV>(b)) {
      throw RecipeError{"'" + v.s + "' is a block, not a loop", v.begin, v.end};
    }
    return std::get<LoopRV>(b);
  }

  Schedule& sch_;
  std::map<std::string, Bound> env_;
};

}  // namespace

DiagnosticList ApplyRecipe(Schedule& sch, std::string_view text, std::string path) {
  auto file = std::make_shared<SourceFile>(std::move(path), std::string(text));
  DiagnosticList diagnostics;
  try {
    Reader reader(Lex(text));
    Applier applier(sch);
    while (std::optional<Call> call = reader.Next()) {
      try {
        applier.Apply(*call);
      } catch (const ScheduleError& e) {
        diagnostics.Error(e.what(), Span(file, call->begin, call->end));
        return diagnostics;
      } catch (const std::invalid_argument& e) {
        diagnostics.Error(e.what(), Span(file, call->begin, call->end));
        return diagnostics;
      }
    }
  } catch (const RecipeError& e) {
    diagnostics.Error(e.message, Span(file, e.begin, e.end));
  }
  return diagnostics;
}

}  // namespace wb::schedule
