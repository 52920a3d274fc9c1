#include "tir/index_map.h"

#include <cctype>
#include <map>
#include <optional>
#include <unordered_map>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "arith/iter_affine_map.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace wb::tir {

void IndexMapNode::VisitFields(FieldVisitor* v) {
  Fields{v}("initial_indices", initial_indices, FieldKind::kDef)("final_indices", final_indices)(
      "inverse_index_map", inverse_index_map);
}

WB_REGISTER_NODE(IndexMapNode);

IndexMap MakeIndexMap(std::vector<Var> initial_indices, std::vector<PrimExpr> final_indices,
                      ObjectRef inverse_index_map, Span span) {
  ir::NodeBuilder<IndexMapNode> n;
  n->initial_indices = std::move(initial_indices);
  n->final_indices = std::move(final_indices);
  n->inverse_index_map = std::move(inverse_index_map);
  n->span = std::move(span);
  return n.Finish();
}

std::vector<PrimExpr> MapIndices(const IndexMap& map, const std::vector<PrimExpr>& indices) {
  if (indices.size() != map->initial_indices.size()) {
    throw std::invalid_argument("the index map takes " +
                                std::to_string(map->initial_indices.size()) +
                                " indices, but got " + std::to_string(indices.size()));
  }
  VarMap vmap;
  for (size_t i = 0; i < indices.size(); ++i) {
    PrimExpr v = indices[i];
    // The map's arithmetic is in its own index dtype; TVM casts the inputs the same way.
    if (v->dtype != map->initial_indices[i]->dtype) v = cast(map->initial_indices[i]->dtype, v);
    vmap[map->initial_indices[i].get()] = v;
  }
  arith::Analyzer analyzer;
  std::vector<PrimExpr> out;
  for (const PrimExpr& e : map->final_indices) out.push_back(analyzer.Simplify(Substitute(e, vmap)));
  return out;
}

std::vector<PrimExpr> MapShape(const IndexMap& map, const std::vector<PrimExpr>& shape) {
  if (shape.size() != map->initial_indices.size()) {
    throw std::invalid_argument("the index map takes " +
                                std::to_string(map->initial_indices.size()) +
                                " indices, but the shape has " + std::to_string(shape.size()) +
                                " dimensions");
  }
  arith::Analyzer analyzer;
  arith::RangeMap dom;
  for (size_t i = 0; i < shape.size(); ++i) {
    const Var& v = map->initial_indices[i];
    PrimExpr ext = shape[i]->dtype == v->dtype ? shape[i] : cast(v->dtype, shape[i]);
    dom[v] = ir::MakeRange(Zero(v->dtype), ext);
    analyzer.Bind(v, dom[v]);
  }
  std::vector<PrimExpr> out;
  for (const PrimExpr& e : map->final_indices) {
    arith::IntSet s = arith::EvalSet(e, dom, &analyzer);
    if (!s.HasLowerBound() || !s.HasUpperBound()) {
      throw std::invalid_argument("the index map's range cannot be bounded");
    }
    PrimExpr ext = analyzer.Simplify(
        add(sub(s.max_value, s.min_value), make_const(s.max_value->dtype, int64_t(1))));
    // Shapes keep the buffer's dtype where the map's arithmetic widened it.
    if (!shape.empty() && ext->dtype != shape[0]->dtype && ext.as<IntImmNode>()) {
      ext = make_const(shape[0]->dtype, ext.as<IntImmNode>()->value);
    }
    out.push_back(ext);
  }
  return out;
}

InverseResult Inverse(const IndexMap& map, const std::vector<PrimExpr>& shape) {
  if (shape.size() != map->initial_indices.size()) {
    return {{}, "the shape has " + std::to_string(shape.size()) + " dimensions, the map takes " +
                    std::to_string(map->initial_indices.size())};
  }
  arith::Analyzer analyzer;
  std::vector<std::pair<Var, Range>> iters;
  for (size_t i = 0; i < shape.size(); ++i) {
    const Var& v = map->initial_indices[i];
    PrimExpr ext = shape[i]->dtype == v->dtype ? shape[i] : cast(v->dtype, shape[i]);
    if (!ext.as<IntImmNode>()) return {{}, "only constant shapes can be inverted"};
    iters.push_back({v, ir::MakeRange(Zero(v->dtype), ext)});
  }
  arith::IterMapResult r =
      arith::DetectIterMap(map->final_indices, iters, make_const(DataType::Bool(), int64_t(1)),
                           arith::IterMapLevel::kBijective, &analyzer);
  if (!r.ok()) {
    std::string why = "the index map is not an affine bijection";
    if (!r.errors.empty()) why += ": " + r.errors.front();
    return {{}, why};
  }
  std::vector<PrimExpr> out_shape = MapShape(map, shape);
  DataType dtype = map->initial_indices.empty() ? DataType::Int(64)
                                                : map->initial_indices[0]->dtype;
  std::vector<Var> outputs;
  for (size_t j = 0; j < map->final_indices.size(); ++j) {
    Var y = MakeVar("axis" + std::to_string(j), map->final_indices[j]->dtype);
    analyzer.Bind(y, ir::MakeRange(Zero(y->dtype), cast(y->dtype, out_shape[j])));
    outputs.push_back(y);
  }
  // Each split `(mark // lower_factor) % extent * scale` of an output sum is one mixed-radix digit
  // of that output; a mark is the sum of its digits times their lower factors. Fused marks are
  // expanded in turn, outputs first (in a bijection every mark has one user).
  std::unordered_map<const arith::IterMark*, PrimExpr> value_of;
  std::vector<const arith::IterMark*> order;
  auto distribute = [&](const arith::IterSumExpr& sum, const PrimExpr& value) {
    PrimExpr residual = sum.base.defined() ? sub(value, cast(value->dtype, sum.base)) : value;
    for (const arith::IterSplitExpr& s : sum.args) {
      PrimExpr digit = floormod(floordiv(residual, make_const(value->dtype, s.scale)),
                                make_const(value->dtype, s.extent));
      PrimExpr part = mul(digit, make_const(value->dtype, s.lower_factor));
      const arith::IterMark* m = s.source.get();
      auto it = value_of.find(m);
      if (it == value_of.end()) {
        value_of[m] = part;
        order.push_back(m);
      } else {
        it->second = add(it->second, part);
      }
    }
  };
  for (size_t j = 0; j < r.indices.size(); ++j) distribute(r.indices[j], outputs[j]);
  for (size_t k = 0; k < order.size(); ++k) {
    const arith::IterMark* m = order[k];
    if (!m->var.defined()) distribute(m->sum, value_of[m]);
  }
  std::vector<PrimExpr> inverse;
  for (size_t i = 0; i < map->initial_indices.size(); ++i) {
    const Var& v = map->initial_indices[i];
    PrimExpr e;
    for (const auto& [mark, value] : value_of) {
      if (mark->var.get() == v.get()) e = value;
    }
    // An index of extent 1 is always 0, and the iter-map detection drops it as a constant. Where
    // the map passes it through (`lambda i, j: (j, i)`), its output (also of extent 1) stands
    // for it, as in TVM's inverse; otherwise it is 0.
    if (!e.defined() && IsConstInt(iters[i].second->extent, 1)) {
      PrimExpr passed = Zero(v->dtype);
      for (size_t j = 0; j < map->final_indices.size(); ++j) {
        if (map->final_indices[j].get() == v.get()) passed = cast(v->dtype, outputs[j]);
      }
      inverse.push_back(passed);  // not simplified: the output's range [0, 1) would make it 0
      continue;
    }
    if (!e.defined()) return {{}, "the initial index " + v->name_hint + " is not used by the map"};
    inverse.push_back(analyzer.Simplify(cast(v->dtype, e)));
  }
  (void)dtype;
  return {MakeIndexMap(outputs, inverse), ""};
}

namespace {

int64_t Gcd(int64_t a, int64_t b) { return b == 0 ? a : Gcd(b, a % b); }

bool UsesVar(const PrimExpr& e, const VarNode* v) {
  bool found = false;
  PostOrderVisit(e, [&](const Object* n) { found |= n == v; });
  return found;
}

// The product of the constant floor divisors between `e` and the variable `v` inside it: TVM's
// lower factor of the split that `e` is of `v` (`i // 4` is 4, `i` is 1).
int64_t LowerFactor(const PrimExpr& e, const VarNode* v) {
  if (auto* d = e.as<FloorDivNode>()) {
    auto* c = d->b.as<IntImmNode>();
    return c && c->value > 0 ? c->value * LowerFactor(d->a, v) : 1;
  }
  int64_t f = 1;
  auto visit = [&](const PrimExpr& x) {
    if (x.defined() && UsesVar(x, v)) f = std::max(f, LowerFactor(x, v));
  };
  if (auto* a = e.as<AddNode>()) visit(a->a), visit(a->b);
  if (auto* s = e.as<SubNode>()) visit(s->a), visit(s->b);
  if (auto* m = e.as<MulNode>()) visit(m->a), visit(m->b);
  if (auto* m = e.as<FloorModNode>()) visit(m->a);
  return f;
}

// TVM's padding factor of an initial index: the least common multiple of divisor times lower
// factor over every floordiv / floormod by a constant applied to an expression of that index
// alone.
void CollectPaddingFactors(const PrimExpr& e, const std::vector<Var>& vars,
                           std::vector<int64_t>* factors) {
  PostOrderVisit(e, [&](const Object* n) {
    const PrimExpr* dividend = nullptr;
    const PrimExpr* divisor = nullptr;
    if (auto* d = dynamic_cast<const FloorDivNode*>(n)) dividend = &d->a, divisor = &d->b;
    if (auto* m = dynamic_cast<const FloorModNode*>(n)) dividend = &m->a, divisor = &m->b;
    if (!dividend) return;
    auto* c = divisor->as<IntImmNode>();
    if (!c || c->value <= 0) return;
    int used = -1;
    for (size_t i = 0; i < vars.size(); ++i) {
      if (!UsesVar(*dividend, vars[i].get())) continue;
      if (used >= 0) return;
      used = static_cast<int>(i);
    }
    if (used < 0) return;
    int64_t f = c->value * LowerFactor(*dividend, vars[used].get());
    int64_t& acc = (*factors)[used];
    acc = acc / Gcd(acc, f) * f;
  });
}

}  // namespace

PaddedInverseResult NonSurjectiveInverse(const IndexMap& map, const std::vector<PrimExpr>& shape) {
  PaddedInverseResult out;
  if (shape.size() != map->initial_indices.size()) {
    out.error = "the shape has " + std::to_string(shape.size()) + " dimensions, the map takes " +
                std::to_string(map->initial_indices.size());
    return out;
  }
  std::vector<int64_t> factors(shape.size(), 1);
  for (const PrimExpr& e : map->final_indices) CollectPaddingFactors(e, map->initial_indices, &factors);
  std::vector<PrimExpr> padded_shape;
  PrimExpr padding = make_const(DataType::Bool(), int64_t(0));
  std::vector<std::pair<const VarNode*, PrimExpr>> conditions;
  for (size_t i = 0; i < shape.size(); ++i) {
    auto* ext = shape[i].as<IntImmNode>();
    if (!ext) {
      out.error = "padding a buffer of symbolic shape is not supported";
      return out;
    }
    int64_t f = factors[i], e = ext->value;
    int64_t padded = (e + f - 1) / f * f;
    padded_shape.push_back(make_const(shape[i]->dtype, padded));
    if (padded == e) continue;
    // The added points: the last group of the factor, from the old extent on. Written `c <= x`,
    // the form TVM's simplifier gives every `x >= c`.
    const Var& v = map->initial_indices[i];
    PrimExpr cond = logical_and(
        equal(floordiv(v, make_const(v->dtype, f)), make_const(v->dtype, e / f)),
        less_equal(make_const(v->dtype, e % f), floormod(v, make_const(v->dtype, f))));
    padding = logical_or(padding, cond);
  }
  InverseResult inv = Inverse(map, padded_shape);
  if (!inv.inverse.defined()) {
    out.error = inv.error;
    return out;
  }
  VarMap vmap;
  for (size_t i = 0; i < map->initial_indices.size(); ++i) {
    vmap[map->initial_indices[i].get()] = inv.inverse->final_indices[i];
  }
  arith::Analyzer analyzer;
  std::vector<PrimExpr> new_shape = MapShape(map, shape);
  for (size_t j = 0; j < inv.inverse->initial_indices.size(); ++j) {
    const Var& y = inv.inverse->initial_indices[j];
    analyzer.Bind(y, ir::MakeRange(Zero(y->dtype), cast(y->dtype, new_shape[j])));
  }
  out.inverse = inv.inverse;
  out.padding = analyzer.Simplify(Substitute(padding, vmap));
  return out;
}

// --- text ------------------------------------------------------------------------------------

namespace {

// Python precedence levels used by the lambda text.
enum { kSum = 1, kProduct = 2, kAtom = 3 };

std::string ExprText(const PrimExpr& e, int* prec) {
  *prec = kAtom;
  if (auto* i = e.as<IntImmNode>()) {
    if (i->value < 0) *prec = kSum;
    return std::to_string(i->value);
  }
  if (auto* v = e.as<VarNode>()) return v->name_hint;
  if (auto* b = e.as<BinaryNode>()) {
    const char* op = nullptr;
    int p = kAtom;
    switch (b->type_index()) {
      case ir::TypeIndex::kAdd: op = "+", p = kSum; break;
      case ir::TypeIndex::kSub: op = "-", p = kSum; break;
      case ir::TypeIndex::kMul: op = "*", p = kProduct; break;
      case ir::TypeIndex::kFloorDiv: op = "//", p = kProduct; break;
      case ir::TypeIndex::kFloorMod: op = "%", p = kProduct; break;
      default: break;
    }
    int pa = kAtom, pb = kAtom;
    std::string a = ExprText(b->a, &pa), c = ExprText(b->b, &pb);
    if (op) {
      if (pa < p) a = "(" + a + ")";
      if (pb <= p) c = "(" + c + ")";
      *prec = p;
      return a + " " + op + " " + c;
    }
    if (b->type_index() == ir::TypeIndex::kMin) return "T.min(" + a + ", " + c + ")";
    if (b->type_index() == ir::TypeIndex::kMax) return "T.max(" + a + ", " + c + ")";
  }
  if (auto* c = e.as<CastNode>()) {
    int p = kAtom;
    return "T.Cast(\"" + c->dtype.ToString() + "\", " + ExprText(c->value, &p) + ")";
  }
  return std::string("<") + e->type_key() + ">";
}

class LambdaReader {
 public:
  LambdaReader(std::string_view s, DataType dtype) : s_(s), dtype_(dtype) {}

  IndexMap Read() {
    Skip();
    if (!Word("lambda")) throw Error("expected `lambda`");
    std::vector<Var> params;
    while (true) {
      Skip();
      std::string name = Name();
      if (name.empty()) throw Error("expected a parameter name");
      for (const Var& p : params) {
        if (p->name_hint == name) throw Error("duplicate parameter `" + name + "`");
      }
      params.push_back(MakeVar(name, dtype_));
      Skip();
      if (Eat(',')) continue;
      if (Eat(':')) break;
      throw Error("expected `,` or `:`");
    }
    params_ = &params;
    std::vector<PrimExpr> out;
    Skip();
    size_t save = pos_;
    bool tuple = false;
    if (Eat('(') || Eat('[')) {
      char close = s_[pos_ - 1] == '(' ? ')' : ']';
      // `(a, b)` is the tuple of indices; `(a + b) * 2` is one index that starts with a
      // parenthesis: the text decides by what follows the closing bracket.
      bool comma = false;
      try {
        while (!Eat(close)) {
          out.push_back(Sum());
          if (Eat(close)) break;
          if (!Eat(',')) throw Error(std::string("expected `,` or `") + close + "`");
          comma = true;
        }
        Skip();
        tuple = pos_ == s_.size();
      } catch (const Failure&) {
        if (close == ']' || comma) throw;
      }
      // `(a, b) ...`: a tuple cannot continue an expression.
      if (!tuple && (comma || close == ']')) throw Error("unexpected text after the lambda");
      if (!tuple) {
        pos_ = save;
        out.clear();
      }
    }
    if (!tuple) out.push_back(Sum());
    Skip();
    if (pos_ < s_.size()) throw Error("unexpected text after the lambda");
    if (out.empty()) throw Error("the lambda returns no indices");
    return MakeIndexMap(params, out);
  }

  struct Failure {
    std::string message;
    size_t offset;
  };

 private:
  Failure Error(const std::string& m) const { return {m, pos_}; }
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    size_t end = pos_ + w.size();
    if (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_'))
      return false;
    pos_ = end;
    return true;
  }
  std::string Name() {
    size_t b = pos_;
    if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      while (pos_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
        ++pos_;
    }
    return std::string(s_.substr(b, pos_ - b));
  }
  PrimExpr Sum() {
    PrimExpr e = Product();
    while (true) {
      Skip();
      if (Eat('+')) {
        e = add(e, Product());
      } else if (pos_ < s_.size() && s_[pos_] == '-') {
        ++pos_;
        e = sub(e, Product());
      } else {
        return e;
      }
    }
  }
  PrimExpr Product() {
    PrimExpr e = Unary();
    while (true) {
      Skip();
      if (s_.substr(pos_, 2) == "//") {
        pos_ += 2;
        e = floordiv(e, Unary());
      } else if (Eat('*')) {
        e = mul(e, Unary());
      } else if (Eat('%')) {
        e = floormod(e, Unary());
      } else {
        return e;
      }
    }
  }
  PrimExpr Unary() {
    Skip();
    if (Eat('-')) return neg(Unary());
    if (Eat('(')) {
      PrimExpr e = Sum();
      if (!Eat(')')) throw Error("expected `)`");
      return e;
    }
    if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      size_t b = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      return make_const(dtype_, static_cast<int64_t>(std::stoll(std::string(s_.substr(b, pos_ - b)))));
    }
    size_t b = pos_;
    std::string name = Name();
    if (name.empty()) throw Error("expected an index expression");
    // A dotted callee: a constant, `T.int64(4)` or `tirx.const(0, i.dtype)`.
    std::string dotted = name;
    while (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      std::string part = Name();
      if (part.empty()) {
        pos_ = b;
        throw Error("expected an index expression");
      }
      dotted += "." + part;
    }
    if (dotted != name) {
      if (!Eat('(')) {
        pos_ = b;
        throw Error("`" + dotted + "` is not a parameter of the lambda");
      }
      return Constant(dotted, b);
    }
    for (const Var& p : *params_) {
      if (p->name_hint == name) return p;
    }
    pos_ = b;
    throw Error("`" + name + "` is not a parameter of the lambda");
  }

  // The arguments of a constant constructor after its `(`: `T.<dtype>(N)`, or
  // `[tvm.]tirx.const(N[, DTYPE])` / `T.const(...)` where DTYPE is a string or a parameter's
  // `.dtype` (`i.dtype`, `i.ty.dtype`: the lambda's index dtype).
  PrimExpr Constant(const std::string& callee, size_t begin) {
    size_t dot = callee.rfind('.');
    std::string prefix = callee.substr(0, dot), fn = callee.substr(dot + 1);
    bool known_prefix = prefix == "T" || prefix == "tirx" || prefix == "tvm.tirx" ||
                        prefix == "tir" || prefix == "tvm.tir";
    std::optional<DataType> dtype;
    if (fn != "const") dtype = DataType::Parse(fn);
    if (!known_prefix || (fn != "const" && (!dtype || prefix != "T"))) {
      pos_ = begin;
      throw Error("`" + callee + "` is not a constant constructor an index map knows");
    }
    Skip();
    bool negative = Eat('-');
    Skip();
    size_t b = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (b == pos_) throw Error("expected an integer constant");
    int64_t value = std::stoll(std::string(s_.substr(b, pos_ - b)));
    if (negative) value = -value;
    if (fn == "const") {
      dtype = dtype_;
      if (Eat(',')) {
        Skip();
        if (Eat('"') || Eat('\'')) {
          char quote = s_[pos_ - 1];
          size_t q = pos_;
          while (pos_ < s_.size() && s_[pos_] != quote) ++pos_;
          dtype = DataType::Parse(std::string(s_.substr(q, pos_ - q)));
          if (!dtype || !Eat(quote)) throw Error("expected a dtype string");
        } else {
          std::string param = Name();
          bool found = false;
          for (const Var& p : *params_) found |= p->name_hint == param;
          if (!found) throw Error("expected a dtype: a string or a parameter's `.dtype`");
          bool dotted_dtype = Eat('.');
          if (dotted_dtype && Word("ty")) dotted_dtype = Eat('.');
          if (!dotted_dtype || !Word("dtype")) throw Error("expected a parameter's `.dtype`");
          for (const Var& p : *params_) {
            if (p->name_hint == param) dtype = p->dtype;
          }
        }
      }
    }
    if (!Eat(')')) throw Error("expected `)`");
    return make_const(*dtype, value);
  }

  std::string_view s_;
  DataType dtype_;
  size_t pos_ = 0;
  const std::vector<Var>* params_ = nullptr;
};

}  // namespace

std::string IndexMapLambdaText(const IndexMap& map) {
  std::string out = "lambda ";
  for (size_t i = 0; i < map->initial_indices.size(); ++i) {
    out += (i ? ", " : "") + map->initial_indices[i]->name_hint;
  }
  out += ": (";
  for (size_t i = 0; i < map->final_indices.size(); ++i) {
    int prec = 0;
    out += (i ? ", " : "") + ExprText(map->final_indices[i], &prec);
  }
  if (map->final_indices.size() == 1) out += ",";
  return out + ")";
}

IndexMap ParseIndexMapLambda(std::string_view text, DataType index_dtype, std::string* error,
                             size_t* error_offset) {
  try {
    return LambdaReader(text, index_dtype).Read();
  } catch (const LambdaReader::Failure& f) {
    if (error) *error = f.message;
    if (error_offset) *error_offset = f.offset;
    return {};
  }
}

}  // namespace wb::tir
