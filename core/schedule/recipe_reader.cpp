// The recipe reader: core/script's CST of the recipe, evaluated statement by statement against
// the Schedule (the subset is described in recipe.h). Expressions evaluate to RecipeValues; a
// name is bound to a value, so a block name kept in a variable, a list of loops or a sampled
// value travel the same way a literal does. Primitives are called through the method registry.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "schedule/recipe.h"
#include "ir/dtype.h"
#include "schedule/tensor_intrin.h"
#include "script/parser_cst.h"
#include "script/tvmscript.h"

namespace wb::schedule {

namespace {

using script::detail::Cst;
using script::detail::FieldIds;
using script::detail::K;
using script::detail::Node;
using Value = RecipeValue;

// A statement that cannot run, unwinding to the statement loop.
struct Stop {};

class Reader {
 public:
  Reader(Schedule& sch, const Cst& cst, SourceFilePtr file, DiagnosticList& diagnostics)
      : sch_(sch), cst_(cst), file_(std::move(file)), diagnostics_(diagnostics) {
    DiagnosticList syntax;
    cst_.CollectSyntaxErrors(syntax);
    if (!syntax.empty()) syntax_error_ = syntax[0];
  }

  // Runs the module's statements up to the first that fails.
  void Run() {
    if (Statements(cst_.root()) && syntax_error_) diagnostics_.Add(*syntax_error_);
  }

 private:
  // Runs the statements under `parent`; false once one failed (reported).
  bool Statements(Node parent) {
    for (Node stmt : cst_.Children(parent)) {
      if (stmt->kind == K::kComment) continue;
      // Statements before a syntax error run, as they did when the reader went line by line.
      if (syntax_error_ && (stmt->begin >= syntax_error_->span.begin ||
                            (stmt->has_error && stmt->kind != K::kFunctionDefinition))) {
        diagnostics_.Add(*syntax_error_);
        syntax_error_.reset();
        return false;
      }
      try {
        Statement(stmt);
      } catch (const RecipeError& e) {
        diagnostics_.Error(e.message, Span(file_, e.begin, e.end));
        return false;
      } catch (const ScheduleError& e) {
        Diagnostic& d = diagnostics_.Error(e.what(), Span(file_, stmt->begin, stmt->end));
        if (e.span().defined()) d.Note("the block or loop the error concerns", e.span());
        return false;
      } catch (const std::invalid_argument& e) {
        diagnostics_.Error(e.what(), Span(file_, stmt->begin, stmt->end));
        return false;
      } catch (const Stop&) {
        return false;
      }
    }
    return true;
  }

  void Statement(Node stmt) {
    switch (stmt->kind) {
      case K::kExpressionStatement:
        for (Node e : cst_.Children(stmt)) {
          if (e->kind == K::kAssignment) {
            Assignment(e);
          } else if (e->kind == K::kAugmentedAssignment) {
            throw Unsupported(e, "an augmented assignment (`+=`)");
          } else {
            Eval(e);
          }
        }
        return;
      case K::kFunctionDefinition: return FunctionDefinition(stmt);
      case K::kDecoratedDefinition: return DecoratedDefinition(stmt);
      case K::kAssertStatement: return Assert(stmt);
      case K::kForStatement: throw Unsupported(stmt, "a `for` loop");
      case K::kWhileStatement: throw Unsupported(stmt, "a `while` loop");
      case K::kIfStatement: throw Unsupported(stmt, "an `if` statement");
      case K::kWithStatement: throw Unsupported(stmt, "a `with` statement");
      case K::kImportStatement:
      case K::kImportFromStatement:
      case K::kFutureImportStatement:
        throw RecipeError{"an import is not part of the recipe language: `sch` and `T` are "
                          "already defined",
                          stmt->begin, FirstLineEnd(stmt)};
      default: break;
    }
    throw Unsupported(stmt, std::string("a ") + Describe(stmt));
  }

  // `def apply_trace(sch: s_tir.Schedule) -> None:` as a trace prints itself: its body runs.
  void FunctionDefinition(Node def) {
    Node params = cst_.Field(def, FieldIds::parameters);
    NodeListOrEmpty list(cst_, params);
    bool one_sch = list.size() == 1;
    if (one_sch) {
      Node p = list[0];
      Node name = p->kind == K::kTypedParameter ? cst_.NamedChild(p, 0) : p;
      one_sch = name && name->kind == K::kIdentifier && cst_.Text(name) == "sch";
    }
    if (!one_sch) {
      throw RecipeError{"a function in a recipe must take the schedule alone: def f(sch): ...",
                        def->begin, FirstLineEnd(def)};
    }
    if (!Statements(cst_.Field(def, FieldIds::body))) throw Stop{};
  }

  // `@T.prim_func` over a function: TVMScript, parsed by core/script and bound to its name (a
  // tensor intrinsic's description or implementation). Its diagnostics point into the recipe.
  void DecoratedDefinition(Node stmt) {
    Node def = cst_.Field(stmt, FieldIds::definition);
    Node decorator = nullptr;
    for (Node d : cst_.Children(stmt)) {
      if (d->kind == K::kDecorator) decorator = d;
    }
    Node dexpr = decorator ? cst_.NamedChild(decorator, 0) : nullptr;
    if (dexpr && dexpr->kind == K::kCall) dexpr = cst_.Field(dexpr, FieldIds::function);
    std::string_view dname = dexpr ? cst_.Text(dexpr) : std::string_view();
    if (!def || def->kind != K::kFunctionDefinition ||
        (dname != "T.prim_func" && dname != "tvm.script.tirx.prim_func")) {
      throw RecipeError{"only a @T.prim_func definition (TVMScript) can be decorated in a recipe",
                        stmt->begin, FirstLineEnd(stmt)};
    }
    std::string_view text = file_->text();
    size_t line_start = text.rfind('\n', stmt->begin == 0 ? 0 : stmt->begin - 1);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    if (stmt->begin != line_start) {
      throw RecipeError{"a @T.prim_func in a recipe must be defined at the top level",
                        stmt->begin, FirstLineEnd(stmt)};
    }
    // The definition alone, at its own offsets: every other character blanked, lines kept.
    std::string alone(text.size(), ' ');
    for (size_t k = 0; k < text.size(); ++k) {
      if (text[k] == '\n' || (k >= stmt->begin && k < stmt->end)) alone[k] = text[k];
    }
    script::ParseResult parsed = script::Parse(alone, file_->path());
    if (!parsed.ok()) {
      for (Diagnostic d : parsed.diagnostics.items()) {
        if (d.span.defined()) d.span = Span(file_, d.span.begin, d.span.end);
        for (DiagnosticNote& note : d.notes) {
          if (note.span.defined()) note.span = Span(file_, note.span.begin, note.span.end);
        }
        diagnostics_.Add(std::move(d));
      }
      if (!diagnostics_.HasErrors()) {
        diagnostics_.Error("the @T.prim_func does not parse", Span(file_, stmt->begin, stmt->end));
      }
      throw Stop{};
    }
    Value v;
    v.kind = Value::Kind::kFunc;
    v.begin = stmt->begin;
    v.end = stmt->end;
    for (const ir::BaseFunc& f : parsed.module->functions) {
      if (auto p = f.as_ref<tir::PrimFuncNode>(); p.defined()) v.node = p;
    }
    Node name = cst_.Field(def, FieldIds::name);
    Assign(name, v, "the value");
  }

  // `assert test` / `assert test, message`: a false test stops the recipe there.
  void Assert(Node stmt) {
    std::vector<Node> parts = cst_.Children(stmt);
    if (parts.empty()) throw Unsupported(stmt, "an empty `assert`");
    if (Truth(Eval(parts[0]))) return;
    std::string message = "assertion failed: " + std::string(cst_.Text(parts[0]));
    if (parts.size() > 1) {
      Value m = Eval(parts[1]);
      message += m.kind == Value::Kind::kString ? ": " + m.s : ": " + Repr(m);
    }
    throw RecipeError{message, parts[0]->begin, parts[0]->end};
  }

  void Assignment(Node n) {
    Node left = cst_.Field(n, FieldIds::left);
    Node right = cst_.Field(n, FieldIds::right);
    if (cst_.Field(n, FieldIds::type)) {
      throw Unsupported(n, "an annotated assignment");
    }
    if (!right) throw Unsupported(n, "a declaration without a value");
    if (right->kind == K::kAssignment) throw Unsupported(n, "a chained assignment");
    std::string source = "the value";
    if (std::optional<std::string> method = MethodOf(right)) {
      const RecipeMethod* m = FindRecipeMethod(*method);
      if (m && m->returns == RecipeReturns::kNothing) {
        throw RecipeError{"sch." + *method + "() returns nothing to assign", n->begin, n->end};
      }
      source = "sch." + *method + "()";
    }
    Value value = Eval(right);
    Assign(left, value, source);
  }

  // The method of `sch.method(...)`, or nullopt.
  std::optional<std::string> MethodOf(Node call) const {
    if (call->kind != K::kCall) return std::nullopt;
    Node fn = cst_.Field(call, FieldIds::function);
    if (fn->kind != K::kAttribute) return std::nullopt;
    Node obj = cst_.Field(fn, FieldIds::object);
    if (obj->kind != K::kIdentifier || cst_.Text(obj) != "sch") return std::nullopt;
    return std::string(cst_.Text(cst_.Field(fn, FieldIds::attribute)));
  }

  void Assign(Node target, const Value& value, const std::string& source) {
    switch (target->kind) {
      case K::kIdentifier: {
        std::string name(cst_.Text(target));
        if (name == "_") return;
        if (name == "sch" || name == "T") {
          throw RecipeError{"`" + name + "` cannot be rebound in a recipe", target->begin,
                            target->end};
        }
        env_[name] = value;
        return;
      }
      case K::kPatternList:
      case K::kTuplePattern:
      case K::kListPattern: return Unpack(target, value, source);
      case K::kParenthesized: return Assign(cst_.NamedChild(target, 0), value, source);
      default: break;
    }
    throw RecipeError{"only names, `_` and tuples of them can be assigned in a recipe",
                      target->begin, target->end};
  }

  void Unpack(Node target, const Value& value, const std::string& source) {
    NodeListOrEmpty items(cst_, target);
    uint32_t begin = items.size() ? items[0]->begin : target->begin;
    uint32_t end = items.size() ? items[items.size() - 1]->end : target->end;
    if (value.kind != Value::Kind::kList) {
      throw RecipeError{source + (source == "the value" ? " is " : " returns ") +
                            (value.kind == Value::Kind::kHandle ? "a single value"
                                                                : "not a list or tuple"),
                        begin, end};
    }
    size_t star = items.size();
    for (size_t k = 0; k < items.size(); ++k) {
      if (items[k]->kind != K::kListSplat) continue;
      if (star != items.size()) {
        throw RecipeError{"multiple starred names in one assignment", items[k]->begin,
                          items[k]->end};
      }
      star = k;
    }
    size_t fixed = items.size() - (star != items.size());
    bool fits = star == items.size() ? value.list.size() == fixed : value.list.size() >= fixed;
    if (!fits) {
      std::string verb = source == "the value" ? " has " : " returned ";
      throw RecipeError{source + verb + std::to_string(value.list.size()) + " values, but " +
                            (star == items.size() ? "" : "at least ") + std::to_string(fixed) +
                            " names unpack them",
                        begin, end};
    }
    size_t rest = value.list.size() - fixed;
    size_t at = 0;
    for (size_t k = 0; k < items.size(); ++k) {
      if (k == star) {
        Value list;
        list.kind = Value::Kind::kList;
        list.begin = value.begin;
        list.end = value.end;
        list.list.assign(value.list.begin() + at, value.list.begin() + at + rest);
        at += rest;
        Assign(cst_.NamedChild(items[k], 0), list, source);
      } else {
        Assign(items[k], value.list[at++], source);
      }
    }
  }

  // --- expressions -----------------------------------------------------------------------------

  Value Eval(Node n) {
    Value v;
    v.begin = n->begin;
    v.end = n->end;
    switch (n->kind) {
      case K::kInteger: return Integer(n);
      case K::kFloat: {
        std::string text(cst_.Text(n));
        text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
        v.kind = Value::Kind::kFloat;
        v.f = std::strtod(text.c_str(), nullptr);
        return v;
      }
      case K::kString:
      case K::kConcatenatedString: {
        Node fstring = nullptr;
        v.kind = Value::Kind::kString;
        v.s = script::detail::StringValue(cst_, n, &fstring);
        if (fstring) throw Unsupported(fstring, "an f-string");
        return v;
      }
      case K::kTrue:
      case K::kFalse:
        v.kind = Value::Kind::kBool;
        v.i = n->kind == K::kTrue;
        return v;
      case K::kNone: return v;
      case K::kIdentifier: return Name(n);
      case K::kList:
      case K::kTuple:
      case K::kExpressionList:
        v.kind = Value::Kind::kList;
        for (Node item : cst_.Children(n)) Append(v.list, item);
        return v;
      case K::kDictionary:
        v.kind = Value::Kind::kDict;
        for (Node pair : cst_.Children(n)) {
          if (pair->kind != K::kPair) throw Unsupported(pair, std::string("a ") + Describe(pair));
          v.list.push_back(Eval(cst_.Field(pair, FieldIds::key)));
          v.list.push_back(Eval(cst_.Field(pair, FieldIds::value)));
        }
        return v;
      case K::kParenthesized: return Eval(cst_.NamedChild(n, 0));
      case K::kUnaryOperator: return Unary(n);
      case K::kBinaryOperator: return Binary(n);
      case K::kComparisonOperator: return Comparison(n);
      case K::kBooleanOperator: {
        std::string op(cst_.Text(cst_.Field(n, FieldIds::operator_)));
        Value left = Eval(cst_.Field(n, FieldIds::left));
        // Python's `and` and `or` give an operand, the right one only when it decides.
        if ((op == "and") != Truth(left)) return At(left, n);
        return At(Eval(cst_.Field(n, FieldIds::right)), n);
      }
      case K::kNotOperator:
        v.kind = Value::Kind::kBool;
        v.i = !Truth(Eval(cst_.Field(n, FieldIds::argument)));
        return v;
      case K::kListComprehension: return Comprehension(n);
      case K::kSubscript: return Subscript(n);
      case K::kAttribute: return Attribute(n);
      case K::kCall: return Call(n);
      case K::kLambda:
        v.kind = Value::Kind::kLambda;
        v.s = LambdaText(n);
        return v;
      default: break;
    }
    throw Unsupported(n, std::string("a ") + Describe(n));
  }

  // A lambda's text with the recipe's integers it uses written in (`lambda i, j: (i, j // f)`
  // with `f` a sampled value), as TVM's index map takes a closure's values.
  std::string LambdaText(Node n) {
    std::vector<std::string> params;
    for (Node p : NodeListOrEmpty(cst_, cst_.Field(n, FieldIds::parameters)).items) {
      Node name = p->kind == K::kDefaultParameter ? cst_.Field(p, FieldIds::name) : p;
      params.emplace_back(cst_.Text(name));
    }
    std::vector<std::pair<Node, std::string>> subs;
    FreeIntegers(cst_.Field(n, FieldIds::body), params, subs);
    std::string text(cst_.Text(n));
    for (auto it = subs.rbegin(); it != subs.rend(); ++it) {
      text.replace(it->first->begin - n->begin, it->first->end - it->first->begin, it->second);
    }
    return text;
  }

  void FreeIntegers(Node n, const std::vector<std::string>& params,
                    std::vector<std::pair<Node, std::string>>& subs) {
    if (!n) return;
    if (n->kind == K::kIdentifier) {
      if (n->field == FieldIds::attribute || n->field == FieldIds::name) return;
      std::string name(cst_.Text(n));
      if (std::find(params.begin(), params.end(), name) != params.end()) return;
      auto it = env_.find(name);
      if (it == env_.end()) return;
      const Value& v = it->second;
      std::optional<int64_t> value;
      if (v.kind == Value::Kind::kInt) {
        value = v.i;
      } else if (v.kind == Value::Kind::kHandle && std::holds_alternative<Schedule::ExprRV>(v.rv)) {
        value = sch_.Get(std::get<Schedule::ExprRV>(v.rv));
      }
      if (value) {
        subs.emplace_back(n, *value < 0 ? "(" + std::to_string(*value) + ")"
                                        : std::to_string(*value));
      }
      return;
    }
    if (n->kind == K::kLambda) return;  // its own names
    for (uint32_t k = 0; k < n->count; ++k) FreeIntegers(n->kids[k], params, subs);
  }

  // Evaluates `item` onto `out`, spreading a `*starred` list.
  void Append(std::vector<Value>& out, Node item) {
    if (item->kind != K::kListSplat) {
      out.push_back(Eval(item));
      return;
    }
    Value list = Eval(cst_.NamedChild(item, 0));
    if (list.kind != Value::Kind::kList) {
      throw RecipeError{"only a list can be unpacked with `*`", item->begin, item->end};
    }
    for (Value e : list.list) {
      e.begin = item->begin;
      e.end = item->end;
      out.push_back(std::move(e));
    }
  }

  Value Integer(Node n) {
    std::string text(cst_.Text(n));
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    int base = 10;
    size_t skip = 0;
    if (text.size() > 2 && text[0] == '0') {
      char p = static_cast<char>(text[1] | 0x20);
      base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 10;
      if (base != 10) skip = 2;
    }
    errno = 0;
    char* end = nullptr;
    long long value = std::strtoll(text.c_str() + skip, &end, base);
    if (errno == ERANGE || *end != '\0') {
      throw RecipeError{"integer literal out of range", n->begin, n->end};
    }
    Value v;
    v.kind = Value::Kind::kInt;
    v.i = value;
    v.begin = n->begin;
    v.end = n->end;
    return v;
  }

  Value Name(Node n) {
    std::string name(cst_.Text(n));
    if (name == "sch") {
      throw RecipeError{"`sch` is the schedule: call a method on it, e.g. sch.get_sblock(\"B\")",
                        n->begin, n->end};
    }
    auto it = env_.find(name);
    if (it == env_.end()) throw RecipeError{"name '" + name + "' is not defined", n->begin, n->end};
    return At(it->second, n);
  }

  // `v` as written at `n`: its span and, for a handle, the text messages quote.
  Value At(Value v, Node n) const {
    v.begin = n->begin;
    v.end = n->end;
    if (v.kind == Value::Kind::kHandle) v.s = std::string(cst_.Text(n));
    return v;
  }

  int64_t IntOperand(const Value& v, const std::string& op) const {
    if (v.kind == Value::Kind::kInt || v.kind == Value::Kind::kBool) return v.i;
    throw RecipeError{"`" + op + "` takes integers in a recipe", v.begin, v.end};
  }

  Value Unary(Node n) {
    std::string op(cst_.Text(cst_.Field(n, FieldIds::operator_)));
    Value x = Eval(cst_.Field(n, FieldIds::argument));
    Value v = x;
    v.begin = n->begin;
    v.end = n->end;
    if (x.kind == Value::Kind::kFloat && (op == "-" || op == "+")) {
      if (op == "-") v.f = -x.f;
      return v;
    }
    int64_t i = IntOperand(x, op);
    v.kind = Value::Kind::kInt;
    if (op == "-") {
      v.i = -i;
    } else if (op == "+") {
      v.i = i;
    } else {
      throw Unsupported(n, "the operator `" + op + "`");
    }
    return v;
  }

  Value Binary(Node n) {
    std::string op(cst_.Text(cst_.Field(n, FieldIds::operator_)));
    Value a = Eval(cst_.Field(n, FieldIds::left));
    Value b = Eval(cst_.Field(n, FieldIds::right));
    Value v;
    v.begin = n->begin;
    v.end = n->end;
    if (op == "+" && a.kind == Value::Kind::kList && b.kind == Value::Kind::kList) {
      v.kind = Value::Kind::kList;
      v.list = a.list;
      v.list.insert(v.list.end(), b.list.begin(), b.list.end());
      return v;
    }
    int64_t x = IntOperand(a, op);
    int64_t y = IntOperand(b, op);
    v.kind = Value::Kind::kInt;
    if (op == "+") {
      v.i = x + y;
    } else if (op == "-") {
      v.i = x - y;
    } else if (op == "*") {
      v.i = x * y;
    } else if (op == "//" || op == "%") {
      if (y == 0) throw RecipeError{"integer division by zero", n->begin, n->end};
      // Python's floor division and modulo.
      int64_t q = x / y, r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) {
        --q;
        r += y;
      }
      v.i = op == "//" ? q : r;
    } else {
      throw Unsupported(n, "the operator `" + op + "`");
    }
    return v;
  }

  Value Subscript(Node n) {
    Value list = Eval(cst_.Field(n, FieldIds::value));
    std::vector<Node> subs;
    for (uint32_t k = 0; k < n->count; ++k) {
      if (n->kids[k]->field == FieldIds::subscript) subs.push_back(n->kids[k]);
    }
    if (list.kind == Value::Kind::kDict && subs.size() == 1 && subs[0]->kind != K::kSlice) {
      Value key = Eval(subs[0]);
      for (size_t k = 0; k < list.list.size(); k += 2) {
        if (Equal(list.list[k], key)) return At(list.list[k + 1], n);
      }
      throw RecipeError{"no key " + Repr(key) + " in the dict", subs[0]->begin, subs[0]->end};
    }
    if (list.kind != Value::Kind::kList) {
      throw RecipeError{"only lists, tuples and dicts can be indexed in a recipe", list.begin,
                        list.end};
    }
    if (subs.size() != 1) throw Unsupported(n, "a multi-dimensional subscript");
    Node sub = subs[0];
    int64_t size = static_cast<int64_t>(list.list.size());
    if (sub->kind != K::kSlice) {
      int64_t i = IntOperand(Eval(sub), "[]");
      if (i < -size || i >= size) throw RecipeError{"list index out of range", sub->begin, sub->end};
      return At(list.list[static_cast<size_t>(i < 0 ? i + size : i)], n);
    }
    // A slice's parts: expressions separated by ':' tokens.
    std::optional<int64_t> part[3];
    int which = 0;
    for (uint32_t k = 0; k < sub->count; ++k) {
      Node c = sub->kids[k];
      if (!c->named) {
        ++which;
      } else if (which < 3) {
        Value p = Eval(c);
        if (p.kind != Value::Kind::kNone) part[which] = IntOperand(p, "[:]");
      }
    }
    int64_t step = part[2].value_or(1);
    if (step == 0) throw RecipeError{"slice step cannot be zero", sub->begin, sub->end};
    auto clamp = [&](std::optional<int64_t> x, int64_t dflt) {
      if (!x) return dflt;
      int64_t i = *x < 0 ? *x + size : *x;
      return step > 0 ? std::clamp<int64_t>(i, 0, size) : std::clamp<int64_t>(i, -1, size - 1);
    };
    int64_t lo = clamp(part[0], step > 0 ? 0 : size - 1);
    int64_t hi = clamp(part[1], step > 0 ? size : -1);
    Value v;
    v.kind = Value::Kind::kList;
    v.begin = n->begin;
    v.end = n->end;
    for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) {
      v.list.push_back(list.list[static_cast<size_t>(i)]);
    }
    return v;
  }

  // A field of an IR node read with `sch.get`; other attributes are only callees (`sch.split`,
  // `T.int32`).
  Value Attribute(Node n) {
    Node obj = cst_.Field(n, FieldIds::object);
    std::string field(cst_.Text(cst_.Field(n, FieldIds::attribute)));
    auto not_a_value = [&] {
      return RecipeError{"`" + std::string(cst_.Text(n)) + "` is not a value in a recipe",
                         n->begin, n->end};
    };
    if (obj->kind == K::kIdentifier && !env_.count(std::string(cst_.Text(obj)))) {
      throw not_a_value();
    }
    Value node = Eval(obj);
    if (node.kind != Value::Kind::kNode) throw not_a_value();
    Value v;
    v.begin = n->begin;
    v.end = n->end;
    if (const auto* loop = node.node.as<tir::ForNode>()) {
      if (field == "extent" || field == "min") {
        const auto* imm = (field == "extent" ? loop->extent : loop->min).as<tir::IntImmNode>();
        if (!imm) {
          throw RecipeError{"the loop's " + field + " is not a constant", n->begin, n->end};
        }
        v.kind = Value::Kind::kInt;
        v.i = imm->value;
        return v;
      }
      if (field == "loop_var") {
        v.kind = Value::Kind::kNode;
        v.node = loop->loop_var;
        v.s = std::string(cst_.Text(n));
        return v;
      }
      if (field == "annotations") return Annotations(loop->annotations, n);
    } else if (const auto* block = node.node.as<tir::SBlockNode>()) {
      if (field == "name_hint") {
        v.kind = Value::Kind::kString;
        v.s = block->name_hint;
        return v;
      }
      if (field == "annotations") return Annotations(block->annotations, n);
    } else if (const auto* var = node.node.as<tir::VarNode>()) {
      if (field == "name" || field == "name_hint") {
        v.kind = Value::Kind::kString;
        v.s = var->name_hint;
        return v;
      }
    }
    throw RecipeError{"a recipe reads only a loop's .extent, .min, .loop_var (and its .name) and "
                      ".annotations, and a block's .name_hint and .annotations",
                      n->begin, n->end};
  }

  // A block's or loop's annotations as a dict of recipe values.
  Value Annotations(const ir::AttrMap& annotations, Node n) const {
    Value v;
    v.kind = Value::Kind::kDict;
    v.begin = n->begin;
    v.end = n->end;
    for (const auto& [key, value] : annotations) {
      Value k;
      k.kind = Value::Kind::kString;
      k.s = key;
      v.list.push_back(std::move(k));
      v.list.push_back(FromObject(value, n));
    }
    return v;
  }

  // An annotation value (a boxed Python value or a constant) as the recipe's value; any other IR
  // object is a node, equal only to itself.
  Value FromObject(const ir::ObjectRef& o, Node n) const {
    Value v;
    v.begin = n->begin;
    v.end = n->end;
    if (const auto* x = o.as<ir::IntObj>()) {
      v.kind = Value::Kind::kInt;
      v.i = x->value;
    } else if (const auto* x = o.as<ir::BoolObj>()) {
      v.kind = Value::Kind::kBool;
      v.i = x->value;
    } else if (const auto* x = o.as<ir::FloatObj>()) {
      v.kind = Value::Kind::kFloat;
      v.f = x->value;
    } else if (const auto* x = o.as<ir::StringObj>()) {
      v.kind = Value::Kind::kString;
      v.s = x->value;
    } else if (const auto* x = o.as<tir::IntImmNode>()) {
      v.kind = x->dtype.is_bool() ? Value::Kind::kBool : Value::Kind::kInt;
      v.i = x->value;
    } else if (const auto* x = o.as<tir::FloatImmNode>()) {
      v.kind = Value::Kind::kFloat;
      v.f = x->value;
    } else if (const auto* x = o.as<tir::StringImmNode>()) {
      v.kind = Value::Kind::kString;
      v.s = x->value;
    } else if (const auto* x = o.as<ir::ArrayObj>()) {
      v.kind = Value::Kind::kList;
      for (const ir::ObjectRef& item : x->items) v.list.push_back(FromObject(item, n));
    } else if (const auto* x = o.as<ir::MapObj>()) {
      v = Annotations(x->items, n);
    } else {
      v.kind = Value::Kind::kNode;
      v.node = o;
    }
    return v;
  }

  // Python's truth of a value.
  static bool Truth(const Value& v) {
    switch (v.kind) {
      case Value::Kind::kNone: return false;
      case Value::Kind::kBool:
      case Value::Kind::kInt: return v.i != 0;
      case Value::Kind::kFloat: return v.f != 0;
      case Value::Kind::kString: return !v.s.empty();
      case Value::Kind::kList:
      case Value::Kind::kDict: return !v.list.empty();
      default: return true;
    }
  }

  // A value as a message shows it.
  static std::string Repr(const Value& v) {
    switch (v.kind) {
      case Value::Kind::kNone: return "None";
      case Value::Kind::kBool: return v.i ? "True" : "False";
      case Value::Kind::kInt: return std::to_string(v.i);
      case Value::Kind::kFloat: return std::to_string(v.f);
      case Value::Kind::kString: return "\"" + v.s + "\"";
      case Value::Kind::kList: {
        std::string out = "[";
        for (size_t k = 0; k < v.list.size(); ++k) out += (k ? ", " : "") + Repr(v.list[k]);
        return out + "]";
      }
      default: return v.s.empty() ? "<value>" : v.s;
    }
  }

  static bool IsNumber(const Value& v) {
    return v.kind == Value::Kind::kInt || v.kind == Value::Kind::kBool ||
           v.kind == Value::Kind::kFloat;
  }
  static double Number(const Value& v) {
    return v.kind == Value::Kind::kFloat ? v.f : static_cast<double>(v.i);
  }

  // Python's `==`: handles are equal when they are the same handle (TVM's random variables are
  // objects), IR nodes when they are the same node, sampled values by their value.
  bool Equal(const Value& a, const Value& b) const {
    if (IsNumber(a) && IsNumber(b)) {
      if (a.kind != Value::Kind::kFloat && b.kind != Value::Kind::kFloat) return a.i == b.i;
      return Number(a) == Number(b);
    }
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case Value::Kind::kNone: return true;
      case Value::Kind::kString:
      case Value::Kind::kLambda: return a.s == b.s;
      case Value::Kind::kList:
        if (a.list.size() != b.list.size()) return false;
        for (size_t k = 0; k < a.list.size(); ++k) {
          if (!Equal(a.list[k], b.list[k])) return false;
        }
        return true;
      case Value::Kind::kHandle:
        if (a.rv.index() != b.rv.index()) return false;
        if (const auto* x = std::get_if<SBlockRV>(&a.rv)) {
          return x->id == std::get<SBlockRV>(b.rv).id;
        }
        if (const auto* x = std::get_if<LoopRV>(&a.rv)) return x->id == std::get<LoopRV>(b.rv).id;
        return std::get<Schedule::ExprRV>(a.rv).id == std::get<Schedule::ExprRV>(b.rv).id;
      case Value::Kind::kDict: {
        if (a.list.size() != b.list.size()) return false;
        for (size_t k = 0; k < a.list.size(); k += 2) {
          bool found = false;
          for (size_t m = 0; m < b.list.size() && !found; m += 2) {
            found = Equal(a.list[k], b.list[m]) && Equal(a.list[k + 1], b.list[m + 1]);
          }
          if (!found) return false;
        }
        return true;
      }
      case Value::Kind::kNode:
      case Value::Kind::kFunc: return a.node.same_as(b.node);
      default: return false;
    }
  }

  // `a < b`, `a == b != c`, `x in xs`, `x is None`: chained as Python chains them, each operand
  // evaluated once and only when it is needed.
  Value Comparison(Node n) {
    std::vector<Node> operands;
    std::vector<std::string> ops;
    bool last_op = false;
    for (uint32_t k = 0; k < n->count; ++k) {
      Node c = n->kids[k];
      if (c->field == FieldIds::operator_) {
        std::string tok(cst_.Text(c));
        if (last_op) {
          ops.back() += " " + tok;
        } else {
          ops.push_back(tok);
        }
        last_op = true;
      } else if (c->named) {
        operands.push_back(c);
        last_op = false;
      }
    }
    Value result;
    result.kind = Value::Kind::kBool;
    result.i = 1;
    result.begin = n->begin;
    result.end = n->end;
    Value left = Eval(operands[0]);
    for (size_t k = 0; k < ops.size() && k + 1 < operands.size(); ++k) {
      Value right = Eval(operands[k + 1]);
      if (!Compare(ops[k], left, right, n)) {
        result.i = 0;
        return result;
      }
      left = std::move(right);
    }
    return result;
  }

  bool Compare(const std::string& op, const Value& a, const Value& b, Node n) const {
    if (op == "==") return Equal(a, b);
    if (op == "!=") return !Equal(a, b);
    if (op == "is" || op == "is not") {
      if (a.kind != Value::Kind::kNone && b.kind != Value::Kind::kNone) {
        throw RecipeError{"`" + op + "` compares with None only in a recipe", n->begin, n->end};
      }
      return (a.kind == b.kind) == (op == "is");
    }
    if (op == "in" || op == "not in") {
      bool found = false;
      if (b.kind == Value::Kind::kList) {
        for (const Value& e : b.list) found = found || Equal(a, e);
      } else if (b.kind == Value::Kind::kDict) {
        for (size_t k = 0; k < b.list.size(); k += 2) found = found || Equal(a, b.list[k]);
      } else if (b.kind == Value::Kind::kString && a.kind == Value::Kind::kString) {
        found = b.s.find(a.s) != std::string::npos;
      } else {
        throw RecipeError{"`" + op + "` looks in a list or a dict, or for a string in a string, in a recipe",
                          b.begin, b.end};
      }
      return found == (op == "in");
    }
    int order;
    if (IsNumber(a) && IsNumber(b)) {
      if (a.kind != Value::Kind::kFloat && b.kind != Value::Kind::kFloat) {
        order = a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
      } else {
        order = Number(a) < Number(b) ? -1 : Number(a) > Number(b) ? 1 : 0;
      }
    } else if (a.kind == Value::Kind::kString && b.kind == Value::Kind::kString) {
      int c = a.s.compare(b.s);
      order = c < 0 ? -1 : c > 0 ? 1 : 0;
    } else {
      throw RecipeError{"`" + op + "` orders numbers or strings in a recipe", n->begin, n->end};
    }
    if (op == "<") return order < 0;
    if (op == "<=") return order <= 0;
    if (op == ">") return order > 0;
    if (op == ">=") return order >= 0;
    throw Unsupported(n, "the operator `" + op + "`");
  }

  // `[expr for x in xs if cond ...]`: the clauses nest left to right as Python's do; the names
  // they bind are the comprehension's own.
  Value Comprehension(Node n) {
    Value out;
    out.kind = Value::Kind::kList;
    out.begin = n->begin;
    out.end = n->end;
    std::vector<Node> clauses;
    for (Node c : cst_.Children(n)) {
      if (c->kind == K::kForInClause || c->kind == K::kIfClause) clauses.push_back(c);
    }
    std::map<std::string, Value> saved = env_;
    try {
      Clauses(cst_.Field(n, FieldIds::body), clauses, 0, out.list);
    } catch (...) {
      env_ = std::move(saved);
      throw;
    }
    env_ = std::move(saved);
    return out;
  }

  void Clauses(Node body, const std::vector<Node>& clauses, size_t k, std::vector<Value>& out) {
    if (k == clauses.size()) {
      out.push_back(Eval(body));
      return;
    }
    Node clause = clauses[k];
    if (clause->kind == K::kIfClause) {
      if (Truth(Eval(cst_.NamedChild(clause, 0)))) Clauses(body, clauses, k + 1, out);
      return;
    }
    Value items = Eval(cst_.Field(clause, FieldIds::right));
    if (items.kind != Value::Kind::kList) {
      throw RecipeError{"a comprehension in a recipe runs over a list", items.begin, items.end};
    }
    for (const Value& item : items.list) {
      Assign(cst_.Field(clause, FieldIds::left), item, "the value");
      Clauses(body, clauses, k + 1, out);
    }
  }

  // The one handle argument of `sch.get(x)`.
  Value GetArgument(Node call) {
    std::vector<Value> args = Positional(call, "sch.get()");
    if (args.size() != 1) {
      throw RecipeError{"sch.get() takes one block, loop or sampled value", call->begin,
                        call->end};
    }
    if (args[0].kind != Value::Kind::kHandle) {
      throw RecipeArgs::TypeError(args[0], "sch.get()'s argument", "a block, loop or sampled value");
    }
    return args[0];
  }

  // The arguments of a call that takes positional arguments only.
  std::vector<Value> Positional(Node call, const std::string& what) {
    std::vector<Value> out;
    for (Node a : cst_.Children(cst_.Field(call, FieldIds::arguments))) {
      if (a->kind == K::kKeywordArgument || a->kind == K::kDictionarySplat) {
        throw RecipeError{what + " takes no keyword arguments", a->begin, a->end};
      }
      Append(out, a);
    }
    return out;
  }

  Value Call(Node n) {
    Node fn = cst_.Field(n, FieldIds::function);
    if (std::optional<std::string> method = MethodOf(n)) {
      if (*method == "get") {
        // A sampled value's integer, or the block or loop as it stands in the IR now.
        Value handle = GetArgument(n);
        Value v;
        v.begin = n->begin;
        v.end = n->end;
        v.s = std::string(cst_.Text(n));
        if (const auto* e = std::get_if<Schedule::ExprRV>(&handle.rv)) {
          v.kind = Value::Kind::kInt;
          v.i = sch_.Get(*e);
        } else if (const auto* b = std::get_if<SBlockRV>(&handle.rv)) {
          v.kind = Value::Kind::kNode;
          v.node = sch_.Get(*b);
        } else {
          v.kind = Value::Kind::kNode;
          v.node = sch_.Get(std::get<LoopRV>(handle.rv));
        }
        return v;
      }
      return MethodCall(n, *method, cst_.Field(fn, FieldIds::attribute));
    }
    if (fn->kind == K::kAttribute &&
        cst_.Text(cst_.Field(fn, FieldIds::attribute)) == "same_as") {
      Node obj = cst_.Field(fn, FieldIds::object);
      if (obj->kind != K::kIdentifier || env_.count(std::string(cst_.Text(obj)))) {
        Value self = Eval(obj);
        std::vector<Value> args = Positional(n, "same_as()");
        if (self.kind != Value::Kind::kNode || args.size() != 1) {
          throw RecipeError{"same_as() compares an IR node read with sch.get() with one other",
                            n->begin, n->end};
        }
        Value v;
        v.kind = Value::Kind::kBool;
        v.i = args[0].kind == Value::Kind::kNode && self.node.same_as(args[0].node);
        v.begin = n->begin;
        v.end = n->end;
        return v;
      }
    }
    std::string callee(cst_.Text(fn));
    for (const char* prefix : {"tvm.tirx.", "tvm.tir.", "tirx.", "tir.", ""}) {
      if (callee == std::string(prefix) + "TensorIntrin.register") return RegisterIntrin(n);
    }
    if (callee == "len") {

      std::vector<Value> args = Positional(n, "len()");
      if (args.size() != 1 || args[0].kind != Value::Kind::kList) {
        throw RecipeError{"len() takes one list", n->begin, n->end};
      }
      Value v;
      v.kind = Value::Kind::kInt;
      v.i = static_cast<int64_t>(args[0].list.size());
      v.begin = n->begin;
      v.end = n->end;
      return v;
    }
    for (const char* prefix : {"T.", "tvm.tirx.", "tvm.tir.", "tirx.", "tir."}) {
      if (callee.rfind(prefix, 0) == 0) return Constructor(n, callee.substr(std::string(prefix).size()));
    }
    throw RecipeError{"`" + callee + "` cannot be called in a recipe: only methods of `sch`, "
                      "T./tvm.tirx. constants, TensorIntrin.register and len() can",
                      fn->begin, fn->end};
  }

  // `tvm.tirx.TensorIntrin.register(name, desc, impl, override=False)` of @T.prim_funcs the
  // recipe defines.
  Value RegisterIntrin(Node n) {
    static const char* const kParams[] = {"name", "desc", "impl", "override"};
    std::map<std::string, Value> args;
    size_t positional = 0;
    for (Node a : cst_.Children(cst_.Field(n, FieldIds::arguments))) {
      if (a->kind == K::kKeywordArgument) {
        std::string key(cst_.Text(cst_.Field(a, FieldIds::name)));
        if (std::find(std::begin(kParams), std::end(kParams), key) == std::end(kParams)) {
          throw RecipeError{
              "TensorIntrin.register() got an unexpected keyword argument '" + key + "'",
              a->begin, a->end};
        }
        args[key] = Eval(cst_.Field(a, FieldIds::value));
      } else if (a->kind == K::kListSplat || a->kind == K::kDictionarySplat || positional >= 4) {
        throw RecipeError{"TensorIntrin.register() takes name, desc, impl and override",
                          a->begin, a->end};
      } else {
        args[kParams[positional++]] = Eval(a);
      }
    }
    for (const char* required : {"name", "desc", "impl"}) {
      if (!args.count(required)) {
        throw RecipeError{std::string("TensorIntrin.register() missing required argument '") +
                              required + "'",
                          n->begin, n->end};
      }
    }
    if (args["name"].kind != Value::Kind::kString) {
      throw RecipeArgs::TypeError(args["name"], "the intrinsic's name", "a string");
    }
    for (const char* which : {"desc", "impl"}) {
      if (args[which].kind != Value::Kind::kFunc) {
        throw RecipeArgs::TypeError(args[which], which, "a @T.prim_func defined in the recipe");
      }
    }
    bool override = false;
    if (args.count("override")) {
      if (args["override"].kind != Value::Kind::kBool) {
        throw RecipeArgs::TypeError(args["override"], "override", "True or False");
      }
      override = args["override"].i != 0;
    }
    try {
      RegisterTensorIntrin(args["name"].s, args["desc"].node.as_ref<tir::PrimFuncNode>(),
                           args["impl"].node.as_ref<tir::PrimFuncNode>(), override);
    } catch (const std::invalid_argument& e) {
      throw RecipeError{e.what(), n->begin, n->end};
    }
    Value v;
    v.begin = n->begin;
    v.end = n->end;
    return v;
  }

  // `T.int64(4)`, `T.float32(0)`, `tvm.tirx.IntImm("int32", 4)`, `tvm.tirx.const(0, "float32")`,
  // `T.index_map(lambda ...)`.
  Value Constructor(Node n, const std::string& name) {
    std::vector<Value> args = Positional(n, std::string(cst_.Text(cst_.Field(n, FieldIds::function))) + "()");
    std::string dtype;
    Value x;
    if (name == "IntImm" || name == "FloatImm") {
      if (args.size() != 2 || args[0].kind != Value::Kind::kString) {
        throw RecipeError{name + "() takes a dtype string and a value", n->begin, n->end};
      }
      dtype = args[0].s;
      x = args[1];
    } else if (name == "const") {
      if (args.empty() || args.size() > 2 ||
          (args.size() == 2 && args[1].kind != Value::Kind::kString)) {
        throw RecipeError{"const() takes a value and a dtype string", n->begin, n->end};
      }
      x = args[0];
      dtype = args.size() == 2 ? args[1].s
              : x.kind == Value::Kind::kFloat ? "float32"
                                              : "int32";
    } else if (name == "index_map") {
      if (args.size() != 1 || args[0].kind != Value::Kind::kLambda) {
        throw RecipeError{"T.index_map() takes one lambda here", n->begin, n->end};
      }
      return args[0];
    } else {
      std::optional<ir::DataType> t = ir::DataType::Parse(name);
      if (!t || t->lanes() != 1 || args.size() != 1) {
        throw RecipeError{"`" + std::string(cst_.Text(cst_.Field(n, FieldIds::function))) +
                              "` is not a constant constructor a recipe knows",
                          n->begin, n->end};
      }
      dtype = name;
      x = args[0];
    }
    std::optional<ir::DataType> t = ir::DataType::Parse(dtype);
    if (!t || t->lanes() != 1) throw RecipeError{"unknown dtype \"" + dtype + "\"", n->begin, n->end};
    Value v;
    v.begin = n->begin;
    v.end = n->end;
    v.dtype = t->ToString();
    if (t->is_floating_point()) {
      if (x.kind != Value::Kind::kInt && x.kind != Value::Kind::kFloat && x.kind != Value::Kind::kBool) {
        throw RecipeArgs::TypeError(x, "the constant", "a number");
      }
      v.kind = Value::Kind::kFloat;
      v.f = x.kind == Value::Kind::kFloat ? x.f : static_cast<double>(x.i);
    } else {
      if (x.kind != Value::Kind::kInt && x.kind != Value::Kind::kBool) {
        throw RecipeArgs::TypeError(x, "the constant", "an integer");
      }
      v.kind = t->is_bool() ? Value::Kind::kBool : Value::Kind::kInt;
      v.i = x.i;
    }
    return v;
  }

  Value MethodCall(Node n, const std::string& name, Node name_node) {
    const RecipeMethod* method = FindRecipeMethod(name);
    if (!method) {
      throw RecipeError{"unknown or unsupported schedule method `" + name + "`",
                        name_node->begin, name_node->end};
    }
    std::map<std::string, Value> named;
    std::vector<Value> varargs;
    size_t positional = 0;
    for (Node a : cst_.Children(cst_.Field(n, FieldIds::arguments))) {
      if (a->kind == K::kDictionarySplat) throw Unsupported(a, "a `**` argument");
      if (a->kind == K::kKeywordArgument) {
        std::string key(cst_.Text(cst_.Field(a, FieldIds::name)));
        Value value = Eval(cst_.Field(a, FieldIds::value));
        if (std::find(method->params.begin(), method->params.end(), key) ==
            method->params.end()) {
          throw RecipeError{
              "sch." + name + "() got an unexpected keyword argument '" + key + "'", value.begin,
              value.end};
        }
        if (named.count(key)) {
          throw RecipeError{"sch." + name + "() got multiple values for argument '" + key + "'",
                            value.begin, value.end};
        }
        named[key] = std::move(value);
        continue;
      }
      std::vector<Value> values;
      Append(values, a);
      for (Value& value : values) {
        if (method->varargs) {
          varargs.push_back(std::move(value));
        } else if (positional < method->params.size()) {
          named[method->params[positional]] = std::move(value);
        } else {
          throw RecipeError{"sch." + name + "() takes at most " +
                                std::to_string(method->params.size()) + " arguments",
                            value.begin, value.end};
        }
        ++positional;
      }
    }
    RecipeArgs args(sch_, name, std::move(named), std::move(varargs), n->begin, n->end);
    if (method->returns == RecipeReturns::kValue) {
      Value v = method->evaluate(sch_, args);
      v.begin = n->begin;
      v.end = n->end;
      return v;
    }
    std::vector<RecipeRV> outputs = method->apply(sch_, args);
    Value v;
    v.begin = n->begin;
    v.end = n->end;
    std::string text(cst_.Text(n));
    auto handle = [&](const RecipeRV& rv, std::string s) {
      Value h;
      h.kind = Value::Kind::kHandle;
      h.rv = rv;
      h.s = std::move(s);
      h.begin = n->begin;
      h.end = n->end;
      return h;
    };
    if (method->returns == RecipeReturns::kSingle && !outputs.empty()) {
      return handle(outputs[0], text);
    }
    if (method->returns == RecipeReturns::kList) {
      v.kind = Value::Kind::kList;
      for (size_t k = 0; k < outputs.size(); ++k) {
        // A sampled value that has none (sample_perfect_tile's outer factor of a symbolic loop)
        // is None, as TVM returns it.
        const auto* e = std::get_if<Schedule::ExprRV>(&outputs[k]);
        if (e && e->id >= 0 && static_cast<size_t>(e->id) < sch_.expr_values_.size() &&
            !sch_.expr_values_[static_cast<size_t>(e->id)]) {
          Value none;
          none.begin = n->begin;
          none.end = n->end;
          v.list.push_back(std::move(none));
          continue;
        }
        v.list.push_back(handle(outputs[k], text + "[" + std::to_string(k) + "]"));
      }
    }
    return v;
  }

  // --- messages --------------------------------------------------------------------------------

  // A Python construct outside the recipe language, at its first line.
  RecipeError Unsupported(Node n, const std::string& what) const {
    return {what + " is not part of the recipe language, which is assignments and calls on "
                   "`sch`",
            n->begin, FirstLineEnd(n)};
  }

  uint32_t FirstLineEnd(Node n) const {
    std::string_view text = cst_.Text(n);
    size_t nl = text.find('\n');
    return nl == std::string_view::npos ? n->end : n->begin + static_cast<uint32_t>(nl);
  }

  std::string Describe(Node n) const {
    std::string kind = n->kind == K::kOther && n->type ? n->type : script::detail::KindName(n->kind);
    std::replace(kind.begin(), kind.end(), '_', ' ');
    return kind;
  }

  // The named children of a node that may be null.
  struct NodeListOrEmpty {
    NodeListOrEmpty(const Cst& cst, Node n) {
      if (n) items = cst.Children(n);
    }
    size_t size() const { return items.size(); }
    Node operator[](size_t i) const { return items[i]; }
    std::vector<Node> items;
  };

  Schedule& sch_;
  const Cst& cst_;
  SourceFilePtr file_;
  DiagnosticList& diagnostics_;
  std::optional<Diagnostic> syntax_error_;
  std::map<std::string, Value> env_;
};

}  // namespace

DiagnosticList ApplyRecipe(Schedule& sch, std::string_view text, std::string path) {
  auto file = std::make_shared<SourceFile>(std::move(path), std::string(text));
  DiagnosticList diagnostics;
  Cst cst(file, file->text(), 0);
  Reader(sch, cst, file, diagnostics).Run();
  return diagnostics;
}

}  // namespace wb::schedule
