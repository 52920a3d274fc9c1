#include "schedule/recipe.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <variant>

namespace wb::schedule {

namespace {

struct Token {
  enum class Kind { kName, kInt, kString, kPunct, kNewline, kEnd, kFloat, kLambda } kind;
  std::string text;  // for kString: the contents without quotes
  uint32_t begin = 0;
  uint32_t end = 0;
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
      if (s.substr(b, i - b) == "lambda") {
        // A lambda (transform_layout's index map) runs to the `,` or `)` that ends the argument;
        // tir::ParseIndexMapLambda reads it.
        int inner = 0;
        bool body = false;
        while (i < s.size() && s[i] != '\n') {
          char d = s[i];
          if (d == ':') body = true;
          if (d == '(' || d == '[') ++inner;
          if (d == ')' || d == ']') {
            if (inner == 0) break;
            --inner;
          }
          if (d == ',' && inner == 0 && body) break;
          ++i;
        }
        size_t e = i;
        while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
        push(Token::Kind::kLambda, std::string(s.substr(b, e - b)), b, e);
        continue;
      }
      push(Token::Kind::kName, std::string(s.substr(b, i - b)), b, i);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t b = i++;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      bool is_float = false;
      if (i < s.size() && s[i] == '.') {
        is_float = true;
        ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      }
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        is_float = true;
        ++i;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      }
      if (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
        throw RecipeError{"malformed number", static_cast<uint32_t>(b),
                          static_cast<uint32_t>(i + 1)};
      }
      push(is_float ? Token::Kind::kFloat : Token::Kind::kInt, std::string(s.substr(b, i - b)),
           b, i);
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

using Value = RecipeValue;

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
    } else if (tok.kind == Token::Kind::kFloat) {
      v.kind = Value::Kind::kFloat;
      v.f = std::stod(tok.text);
    } else if (tok.kind == Token::Kind::kLambda) {
      v.kind = Value::Kind::kLambda;
      v.s = tok.text;
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

// The method table; a function-local static so registrars of any file may run first.
std::map<std::string, RecipeMethod>& Registry() {
  static std::map<std::string, RecipeMethod> table;
  return table;
}

// The methods' descriptions, by name (kept apart from RecipeMethod so that its aggregate
// initialisers in the primitives' files stay as they are).
std::map<std::string, RecipeDoc>& Docs() {
  static std::map<std::string, RecipeDoc> table;
  return table;
}

class Applier {
 public:
  explicit Applier(Schedule& sch) : sch_(sch) {}

  void Apply(const Call& call) {
    const RecipeMethod* method = FindRecipeMethod(call.method);
    if (!method) {
      throw RecipeError{"unknown or unsupported schedule method `" + call.method + "`",
                        call.method_token.begin, call.method_token.end};
    }
    if (method->returns == RecipeReturns::kNothing && !call.targets.empty()) {
      throw RecipeError{"sch." + call.method + "() returns nothing to assign", call.begin,
                        call.end};
    }
    RecipeArgs args = Bind(call, *method);
    std::vector<RecipeRV> outputs = method->apply(sch_, args);
    BindTargets(call, outputs, method->returns == RecipeReturns::kList);
  }

 private:
  // Matches the call's arguments to the method's parameters, Python-style.
  RecipeArgs Bind(const Call& call, const RecipeMethod& method) {
    std::map<std::string, Value> named;
    std::vector<Value> varargs;
    size_t positional = 0;
    bool seen_keyword = false;
    for (const Arg& a : call.args) {
      if (a.key.empty()) {
        if (seen_keyword) {
          throw RecipeError{"positional argument follows keyword argument", a.value.begin,
                            a.value.end};
        }
        if (method.varargs) {
          varargs.push_back(a.value);
        } else if (positional < method.params.size()) {
          named[method.params[positional]] = a.value;
        } else {
          throw RecipeError{"sch." + call.method + "() takes at most " +
                                std::to_string(method.params.size()) + " arguments",
                            a.value.begin, a.value.end};
        }
        ++positional;
        continue;
      }
      seen_keyword = true;
      if (std::find(method.params.begin(), method.params.end(), a.key) == method.params.end()) {
        throw RecipeError{
            "sch." + call.method + "() got an unexpected keyword argument '" + a.key + "'",
            a.value.begin, a.value.end};
      }
      if (named.count(a.key)) {
        throw RecipeError{
            "sch." + call.method + "() got multiple values for argument '" + a.key + "'",
            a.value.begin, a.value.end};
      }
      named[a.key] = a.value;
    }
    return RecipeArgs(sch_, call.method, std::move(named), std::move(varargs), env_, call.begin,
                      call.end);
  }

  void BindTargets(const Call& call, const std::vector<RecipeRV>& outputs, bool list_output) {
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
    for (size_t i = 0; i < call.targets.size() && i < outputs.size(); ++i) {
      if (call.targets[i].text != "_") env_[call.targets[i].text] = outputs[i];
    }
  }

  Schedule& sch_;
  std::map<std::string, RecipeRV> env_;
};

// --- The methods of schedule.cpp, loop_transformation.cpp, reorder.cpp and for_kind.cpp ---------

using Outputs = std::vector<RecipeRV>;

RecipeMethodRegistrar reg_get_sblock(
    "get_sblock", {{"name", "func_name"}, false, RecipeReturns::kSingle,
                   [](Schedule& sch, RecipeArgs& args) -> Outputs {
                     std::optional<std::string> func;
                     if (args.Has("func_name")) func = args.String("func_name");
                     return {sch.GetSBlock(args.String("name"), func)};
                   }},
    {"lookup",
     "the block named `name`",
     {{"name", RecipeParamKind::kString, "the block's name", ""},
      {"func_name", RecipeParamKind::kString, "the PrimFunc to look in", "None"}}});

RecipeMethodRegistrar reg_get_loops("get_loops",
                                    {{"block"}, false, RecipeReturns::kList,
                                     [](Schedule& sch, RecipeArgs& args) -> Outputs {
                                       std::vector<LoopRV> loops =
                                           sch.GetLoops(args.Block("block"));
                                       return Outputs(loops.begin(), loops.end());
                                     }},
                                    {"lookup",
                                     "the loops above the block, outer to inner",
                                     {{"block", RecipeParamKind::kBlock, "the block", ""}}});

RecipeMethodRegistrar reg_split(
    "split", {{"loop", "factors", "preserve_unit_iters", "disable_predication"}, false,
              RecipeReturns::kList, [](Schedule& sch, RecipeArgs& args) -> Outputs {
                const Value& fv = args.Require("factors");
                if (fv.kind != Value::Kind::kList) {
                  throw RecipeArgs::TypeError(fv, "factors", "a list");
                }
                std::vector<std::optional<int64_t>> factors;
                for (const Value& f : fv.list) {
                  if (f.kind == Value::Kind::kNone) {
                    factors.push_back(std::nullopt);
                  } else if (f.kind == Value::Kind::kInt) {
                    // TVM's older API spelled the inferred factor -1.
                    factors.push_back(f.i == -1 ? std::nullopt : std::optional<int64_t>(f.i));
                  } else if (f.kind == Value::Kind::kFloat) {
                    throw RecipeError{"only integer literals are supported here", f.begin, f.end};
                  } else if (args.IsExpr(f)) {
                    factors.push_back(std::nullopt);  // placeholder: see the sampled path below
                  } else {
                    throw RecipeArgs::TypeError(f, "a factor", "an integer or None");
                  }
                }
                // Sampled factors (`v0, v1 = sch.sample_perfect_tile(...)`) go through SplitBy,
                // which records them by name.
                bool sampled = false;
                for (const Value& f : fv.list) sampled |= args.IsExpr(f);
                if (sampled) {
                  std::vector<Schedule::Factor> by;
                  for (size_t k = 0; k < fv.list.size(); ++k) {
                    if (args.IsExpr(fv.list[k])) {
                      by.push_back(args.ExprOf(fv.list[k]));
                    } else if (factors[k]) {
                      by.push_back(*factors[k]);
                    } else {
                      by.push_back(std::monostate{});
                    }
                  }
                  std::vector<LoopRV> loops = sch.SplitBy(
                      args.Loop("loop"), by, args.Bool("preserve_unit_iters", true),
                      args.Bool("disable_predication", false));
                  return Outputs(loops.begin(), loops.end());
                }
                std::vector<LoopRV> loops =
                    sch.Split(args.Loop("loop"), factors, args.Bool("preserve_unit_iters", true),
                              args.Bool("disable_predication", false));
                return Outputs(loops.begin(), loops.end());
              }},
    {"loop transformations",
     "split the loop into nested loops of the given extents",
     {{"loop", RecipeParamKind::kLoop, "the loop to split", ""},
      {"factors", RecipeParamKind::kFactors,
       "the new loops' extents, outer to inner; one None is inferred", ""},
      {"preserve_unit_iters", RecipeParamKind::kBool, "keep iterators of extent 1 in bindings",
       "True"},
      {"disable_predication", RecipeParamKind::kBool,
       "do not guard a non-dividing split with a predicate", "False"}}});

std::vector<LoopRV> LoopVarargs(RecipeArgs& args) {
  std::vector<LoopRV> loops;
  for (const Value& v : args.varargs()) loops.push_back(args.LoopOf(v));
  return loops;
}

RecipeMethodRegistrar reg_fuse("fuse", {{"preserve_unit_iters"}, true, RecipeReturns::kSingle,
                                        [](Schedule& sch, RecipeArgs& args) -> Outputs {
                                          return {sch.Fuse(LoopVarargs(args),
                                                           args.Bool("preserve_unit_iters", true))};
                                        }},
                               {"loop transformations",
                                "fuse consecutive loops of one nest into one loop",
                                {{"loops", RecipeParamKind::kLoops,
                                  "the loops to fuse, outer to inner", ""},
                                 {"preserve_unit_iters", RecipeParamKind::kBool,
                                  "keep iterators of extent 1 in bindings", "True"}}});

RecipeMethodRegistrar reg_reorder("reorder", {{}, true, RecipeReturns::kNothing,
                                              [](Schedule& sch, RecipeArgs& args) -> Outputs {
                                                sch.Reorder(LoopVarargs(args));
                                                return {};
                                              }},
                                  {"loop transformations",
                                   "reorder loops of one nest",
                                   {{"loops", RecipeParamKind::kLoops,
                                     "the loops in their new order, outer to inner", ""}}});

RecipeMethod LoopKindMethod(void (Schedule::*apply)(const LoopRV&)) {
  return {{"loop"}, false, RecipeReturns::kNothing,
          [apply](Schedule& sch, RecipeArgs& args) -> Outputs {
            (sch.*apply)(args.Loop("loop"));
            return {};
          }};
}
RecipeDoc LoopKindDoc(const char* summary) {
  return {"loop kinds", summary, {{"loop", RecipeParamKind::kLoop, "the loop", ""}}};
}
RecipeMethodRegistrar reg_parallel("parallel", LoopKindMethod(&Schedule::Parallel),
                                   LoopKindDoc("run the loop's iterations in parallel threads"));
RecipeMethodRegistrar reg_vectorize("vectorize", LoopKindMethod(&Schedule::Vectorize),
                                    LoopKindDoc("turn the loop into vector operations"));
RecipeMethodRegistrar reg_unroll("unroll", LoopKindMethod(&Schedule::Unroll),
                                 LoopKindDoc("unroll the loop"));
RecipeMethodRegistrar reg_bind("bind", {{"loop", "thread_axis"}, false, RecipeReturns::kNothing,
                                        [](Schedule& sch, RecipeArgs& args) -> Outputs {
                                          sch.Bind(args.Loop("loop"), args.String("thread_axis"));
                                          return {};
                                        }},
                               {"GPU",
                                "bind the loop to a GPU thread axis",
                                {{"loop", RecipeParamKind::kLoop, "the loop", ""},
                                 {"thread_axis", RecipeParamKind::kThreadAxis,
                                  "the thread axis, e.g. threadIdx.x", ""}}});

}  // namespace

RecipeMethodRegistrar::RecipeMethodRegistrar(std::string name, RecipeMethod method,
                                             RecipeDoc doc) {
  // The description names the method's parameters in order (the positional ones first for a
  // varargs method), so a parameter added to one and not the other fails at startup.
  std::vector<std::string> documented;
  for (const RecipeParamDoc& p : doc.params) documented.push_back(p.name);
  std::vector<std::string> expected = method.params;
  if (method.varargs && !documented.empty()) expected.insert(expected.begin(), documented[0]);
  if (documented != expected || doc.summary.empty() || doc.group.empty()) {
    std::fprintf(stderr, "recipe method `%s`: its description does not match its parameters\n",
                 name.c_str());
    std::abort();
  }
  if (!Registry().emplace(name, std::move(method)).second) {
    std::fprintf(stderr, "recipe method `%s` registered twice\n", name.c_str());
    std::abort();
  }
  Docs().emplace(name, std::move(doc));
}

const RecipeDoc* FindRecipeDoc(const std::string& name) {
  auto it = Docs().find(name);
  return it == Docs().end() ? nullptr : &it->second;
}

const RecipeMethod* FindRecipeMethod(const std::string& name) {
  auto it = Registry().find(name);
  return it == Registry().end() ? nullptr : &it->second;
}

std::vector<std::string> RecipeMethodNames() {
  std::vector<std::string> out;
  for (const auto& [name, method] : Registry()) out.push_back(name);
  return out;
}

RecipeArgs::RecipeArgs(Schedule& sch, std::string method, std::map<std::string, RecipeValue> named,
                       std::vector<RecipeValue> varargs, const std::map<std::string, RecipeRV>& env,
                       uint32_t begin, uint32_t end)
    : sch_(sch),
      method_(std::move(method)),
      named_(std::move(named)),
      varargs_(std::move(varargs)),
      env_(env),
      begin_(begin),
      end_(end) {}

const RecipeValue* RecipeArgs::Get(const std::string& name) const {
  auto it = named_.find(name);
  return it == named_.end() ? nullptr : &it->second;
}

const RecipeValue& RecipeArgs::Require(const std::string& name) const {
  const RecipeValue* v = Get(name);
  if (!v) {
    throw RecipeError{"sch." + method_ + "() missing required argument '" + name + "'", begin_,
                      end_};
  }
  return *v;
}

bool RecipeArgs::Has(const std::string& name) const {
  const RecipeValue* v = Get(name);
  return v && v->kind != RecipeValue::Kind::kNone;
}

RecipeError RecipeArgs::TypeError(const RecipeValue& v, const std::string& what,
                                  const std::string& want) {
  return {what + " must be " + want, v.begin, v.end};
}

std::variant<SBlockRV, LoopRV> RecipeArgs::BlockOrLoop(const std::string& name) {
  const RecipeValue& v = Require(name);
  if (v.kind == RecipeValue::Kind::kName) {
    auto it = env_.find(v.s);
    if (it != env_.end() && std::holds_alternative<LoopRV>(it->second)) {
      return std::get<LoopRV>(it->second);
    }
  }
  return BlockOf(v);
}

int64_t RecipeArgs::IntOf(const RecipeValue& v, const std::string& what) {
  if (v.kind != RecipeValue::Kind::kInt) throw TypeError(v, what, "an integer");
  return v.i;
}

int64_t RecipeArgs::Int(const std::string& name) { return IntOf(Require(name), name); }

bool RecipeArgs::IsExpr(const RecipeValue& v) const {
  if (v.kind != RecipeValue::Kind::kName) return false;
  auto it = env_.find(v.s);
  return it != env_.end() && std::holds_alternative<Schedule::ExprRV>(it->second);
}

Schedule::ExprRV RecipeArgs::ExprOf(const RecipeValue& v) {
  if (v.kind != RecipeValue::Kind::kName) throw TypeError(v, "value", "a sampled value");
  auto it = env_.find(v.s);
  if (it == env_.end()) throw RecipeError{"name '" + v.s + "' is not defined", v.begin, v.end};
  if (!std::holds_alternative<Schedule::ExprRV>(it->second)) {
    throw RecipeError{"'" + v.s + "' is not a sampled value", v.begin, v.end};
  }
  return std::get<Schedule::ExprRV>(it->second);
}

int64_t RecipeArgs::ExprValueOf(const RecipeValue& v) { return sch_.Get(ExprOf(v)); }

int64_t RecipeArgs::Int(const std::string& name, int64_t dflt) {
  const RecipeValue* v = Get(name);
  return v ? IntOf(*v, name) : dflt;
}

bool RecipeArgs::Bool(const std::string& name, bool dflt) {
  const RecipeValue* v = Get(name);
  if (!v) return dflt;
  if (v->kind != RecipeValue::Kind::kBool) throw TypeError(*v, name, "True or False");
  return v->i != 0;
}

std::string RecipeArgs::StringOf(const RecipeValue& v, const std::string& what) {
  if (v.kind != RecipeValue::Kind::kString) throw TypeError(v, what, "a string");
  return v.s;
}

std::string RecipeArgs::String(const std::string& name) { return StringOf(Require(name), name); }

std::vector<SBlockRV> RecipeArgs::BlockList(const std::string& name) {
  const RecipeValue* v = Get(name);
  if (!v || v->kind == RecipeValue::Kind::kNone) return {};
  if (v->kind != RecipeValue::Kind::kList) throw TypeError(*v, name, "a list of blocks");
  std::vector<SBlockRV> out;
  for (const RecipeValue& e : v->list) out.push_back(BlockOf(e));
  return out;
}

SBlockRV RecipeArgs::BlockOf(const RecipeValue& v) {
  // As in TVM's Python API, a block may be given by name.
  if (v.kind == RecipeValue::Kind::kString) return sch_.GetSBlock(v.s);
  if (v.kind != RecipeValue::Kind::kName) throw TypeError(v, "block", "a block or a block name");
  auto it = env_.find(v.s);
  if (it == env_.end()) throw RecipeError{"name '" + v.s + "' is not defined", v.begin, v.end};
  if (!std::holds_alternative<SBlockRV>(it->second)) {
    throw RecipeError{"'" + v.s + "' is a loop, not a block", v.begin, v.end};
  }
  return std::get<SBlockRV>(it->second);
}

LoopRV RecipeArgs::LoopOf(const RecipeValue& v) {
  if (v.kind != RecipeValue::Kind::kName) throw TypeError(v, "loop", "a loop");
  auto it = env_.find(v.s);
  if (it == env_.end()) throw RecipeError{"name '" + v.s + "' is not defined", v.begin, v.end};
  if (!std::holds_alternative<LoopRV>(it->second)) {
    throw RecipeError{"'" + v.s + "' is a block, not a loop", v.begin, v.end};
  }
  return std::get<LoopRV>(it->second);
}

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
        Diagnostic& d = diagnostics.Error(e.what(), Span(file, call->begin, call->end));
        if (e.span().defined()) d.Note("the block or loop the error concerns", e.span());
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
