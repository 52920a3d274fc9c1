#include "arith/iter_affine_map.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "tir/op.h"

namespace wb::arith {

using ir::TypeIndex;
using namespace tir;

namespace {

using MarkPtr = std::shared_ptr<const IterMark>;

bool SameSplit(const IterSplitExpr& a, const IterSplitExpr& b) {
  return a.source == b.source && a.lower_factor == b.lower_factor && a.extent == b.extent;
}

bool SameSum(const IterSumExpr& a, const IterSumExpr& b) {
  if (a.args.size() != b.args.size() || !ir::StructuralEqual(a.base, b.base, false)) return false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!SameSplit(a.args[i], b.args[i]) || a.args[i].scale != b.args[i].scale) return false;
  }
  return true;
}

std::string ExprText(const PrimExpr& e);

class IterMapRewriter {
 public:
  IterMapRewriter(Analyzer* ana, std::vector<std::string>* errors, bool simplify_trivial,
                  bool allow_padding)
      : ana_(ana),
        errors_(errors),
        simplify_trivial_(simplify_trivial),
        allow_padding_(allow_padding) {}

  bool AddInput(const Var& var, const Range& range) {
    PrimExpr min = ana_->Simplify(range->min), extent = ana_->Simplify(range->extent);
    const int64_t* m = AsConstInt(min);
    const int64_t* e = AsConstInt(extent);
    if (!m || *m != 0) return Fail("iterator " + var->name_hint + " does not start at 0");
    if (!e || *e <= 0) {
      return Fail("iterator " + var->name_hint + " has no constant positive extent");
    }
    auto mark = std::make_shared<IterMark>();
    mark->var = var;
    mark->extent = *e;
    inputs_[var.get()] = mark;
    input_order_.push_back(mark);
    return true;
  }

  // A predicate `fused < c` narrows the fused iterator to extent c.
  bool AddPredicate(const PrimExpr& pred) {
    if (const int64_t* v = AsConstInt(pred); v && *v != 0) return true;
    if (auto* op = pred.as<AndNode>()) return AddPredicate(op->a) && AddPredicate(op->b);
    auto* cmp = pred.as<BinaryNode>();
    const int64_t* c = cmp ? AsConstInt(cmp->b) : nullptr;
    bool lt = pred->type_index() == TypeIndex::kLT, le = pred->type_index() == TypeIndex::kLE;
    if (!c || (!lt && !le)) {
      return Fail("predicate " + ExprText(pred) + " is not of the form `fused < constant`");
    }
    int64_t bound = lt ? *c : *c + 1;
    std::optional<IterSumExpr> sum = Rewrite(cmp->a);
    if (!sum) return false;
    if (!IsConstInt(sum->base, 0) || sum->args.size() < 2) {
      return Fail("predicate " + ExprText(pred) + " does not bound a fused iterator");
    }
    std::optional<IterSplitExpr> fused = Fuse(*sum, ExprText(cmp->a));
    if (!fused) return false;
    // Marks are shared read-only once detection returns; while it runs, this rewriter owns the
    // ones it created (Fuse makes them non-const) and may still narrow them.
    auto* mark = const_cast<IterMark*>(fused->source.get());
    if (fused->scale != 1 || bound <= 0 || bound > mark->extent) {
      return Fail("predicate " + ExprText(pred) + " does not narrow " + ExprText(cmp->a));
    }
    mark->extent = bound;
    return true;
  }

  std::optional<IterSumExpr> Rewrite(const PrimExpr& e) {
    if (AsConstInt(e)) return IterSumExpr{{}, e};
    PrimExpr zero = make_const(e->dtype, int64_t(0));
    if (auto* var = e.as<VarNode>()) {
      auto it = inputs_.find(var);
      // Any other variable is fixed while the iterators run.
      if (it == inputs_.end()) return IterSumExpr{{}, e};
      if (it->second->extent == 1 && simplify_trivial_) return IterSumExpr{{}, zero};
      return IterSumExpr{{IterSplitExpr{it->second, 1, it->second->extent, 1}}, zero};
    }
    auto* op = e.as<BinaryNode>();
    switch (e->type_index()) {
      case TypeIndex::kAdd:
      case TypeIndex::kSub: {
        auto a = Rewrite(op->a), b = Rewrite(op->b);
        if (!a || !b) return std::nullopt;
        AddInto(&*a, *b, e->type_index() == TypeIndex::kAdd ? 1 : -1);
        return a;
      }
      case TypeIndex::kMul: {
        auto a = Rewrite(op->a), b = Rewrite(op->b);
        if (!a || !b) return std::nullopt;
        if (!a->args.empty() && !b->args.empty()) {
          Fail(ExprText(e) + " multiplies two iterators; it is not affine");
          return std::nullopt;
        }
        if (a->args.empty()) std::swap(a, b);
        if (a->args.empty()) return IterSumExpr{{}, ana_->Simplify(tir::mul(a->base, b->base))};
        PrimExpr base = ana_->Simplify(b->base);
        const int64_t* factor = AsConstInt(base);
        if (!factor) {
          Fail(ExprText(e) + " scales an iterator by a non-constant factor");
          return std::nullopt;
        }
        IterSumExpr r{{}, make_const(e->dtype, int64_t(0))};
        AddInto(&r, *a, *factor);
        return r;
      }
      case TypeIndex::kFloorDiv:
      case TypeIndex::kFloorMod: {
        bool is_div = e->type_index() == TypeIndex::kFloorDiv;
        PrimExpr rhs = ana_->Simplify(op->b);
        const int64_t* c = AsConstInt(rhs);
        if (!c || *c <= 0) {
          Fail(ExprText(e) + " divides by a non-constant or non-positive value");
          return std::nullopt;
        }
        auto a = Rewrite(op->a);
        if (!a) return std::nullopt;
        return DivMod(*a, *c, is_div, e);
      }
      default:
        Fail(ExprText(e) + " is not an affine expression of the iterators");
        return std::nullopt;
    }
  }

  // The whole sum as one split: itself when it has one term, else a fused iterator.
  std::optional<IterSplitExpr> Fuse(const IterSumExpr& sum, const std::string& text) {
    if (sum.args.size() == 1) return sum.args[0];
    std::vector<IterSplitExpr> args = sum.args;
    std::sort(args.begin(), args.end(),
              [](const IterSplitExpr& a, const IterSplitExpr& b) { return a.scale < b.scale; });
    // Scales must chain: each term's scale is the previous scale times the previous extent.
    int64_t base_scale = args[0].scale;
    if (base_scale <= 0) {
      Fail(text + " has a negative or zero iterator scale");
      return std::nullopt;
    }
    int64_t expected = base_scale;
    IterSumExpr fused_sum{{}, make_const(sum.base->dtype, int64_t(0))};
    for (const IterSplitExpr& a : args) {
      if (a.scale != expected) {
        Fail(text + " cannot be fused into one iterator: the terms overlap or leave gaps "
             "(scale " + std::to_string(a.scale) + " where " + std::to_string(expected) +
             " is needed)");
        return std::nullopt;
      }
      IterSplitExpr inner = a;
      inner.scale = a.scale / base_scale;
      fused_sum.args.push_back(inner);
      expected = a.scale * a.extent;
    }
    // Largest scale first, as the fused expression is written.
    std::reverse(fused_sum.args.begin(), fused_sum.args.end());
    int64_t extent = expected / base_scale;
    for (const MarkPtr& m : fused_) {
      if (SameSum(m->sum, fused_sum)) return IterSplitExpr{m, 1, m->extent, base_scale};
    }
    auto mark = std::make_shared<IterMark>();
    mark->sum = fused_sum;
    mark->extent = extent;
    fused_.push_back(mark);
    return IterSplitExpr{mark, 1, extent, base_scale};
  }

  const std::vector<MarkPtr>& inputs() const { return input_order_; }

  bool Fail(const std::string& msg) {
    errors_->push_back(msg);
    return false;
  }

 private:
  void AddInto(IterSumExpr* dst, const IterSumExpr& src, int64_t factor) {
    dst->base = ana_->Simplify(
        tir::add(dst->base, tir::mul(src.base, make_const(src.base->dtype, factor))));
    for (IterSplitExpr s : src.args) {
      s.scale *= factor;
      auto it = std::find_if(dst->args.begin(), dst->args.end(),
                             [&](const IterSplitExpr& d) { return SameSplit(d, s); });
      if (it != dst->args.end()) {
        it->scale += s.scale;
        if (it->scale == 0) dst->args.erase(it);
      } else if (s.scale != 0) {
        dst->args.push_back(s);
      }
    }
  }

  std::optional<IterSumExpr> DivMod(IterSumExpr a, int64_t c, bool is_div, const PrimExpr& e) {
    PrimExpr cexpr = make_const(e->dtype, c);
    if (a.args.empty()) {
      return IterSumExpr{{}, ana_->Simplify(is_div ? tir::floordiv(a.base, cexpr)
                                                   : tir::floormod(a.base, cexpr))};
    }
    // floordiv(x + b*c, c) == floordiv(x, c) + b; other offsets would need padding.
    if (!ana_->CanProveEqual(tir::floormod(a.base, cexpr), make_const(e->dtype, int64_t(0)))) {
      Fail(ExprText(e) + ": the offset " + ExprText(a.base) + " is not a multiple of " +
           std::to_string(c));
      return std::nullopt;
    }
    PrimExpr base_q = ana_->Simplify(tir::floordiv(a.base, cexpr));
    PrimExpr zero = make_const(e->dtype, int64_t(0));
    a.base = zero;
    std::optional<IterSplitExpr> s = Fuse(a, ExprText(e));
    if (!s) return std::nullopt;
    if (s->scale % c == 0) {
      if (!is_div) return IterSumExpr{{}, zero};
      s->scale /= c;
      return IterSumExpr{{*s}, base_q};
    }
    if (c % s->scale != 0) {
      Fail(ExprText(e) + ": " + std::to_string(c) + " and the iterator scale " +
           std::to_string(s->scale) + " do not divide each other");
      return std::nullopt;
    }
    int64_t k = c / s->scale;
    // A split reaching its source's end divides as if the source were padded up to a multiple
    // of k (`v // 16` over v < 127 has 8 values, `v % 16` 16): the pieces then overlap the
    // source's end, which only a map that is not checked for tiling may have.
    bool padded =
        allow_padding_ && s->extent % k != 0 && s->lower_factor * s->extent == s->source->extent;
    if (padded) {
      if (is_div)
        return IterSumExpr{{{s->source, s->lower_factor * k, (s->extent + k - 1) / k, 1}}, base_q};
      return IterSumExpr{{{s->source, s->lower_factor, k, s->scale}}, zero};
    }
    if (s->extent % k != 0) {
      Fail(ExprText(e) + ": the iterator extent " + std::to_string(s->extent) +
           " is not divisible by " + std::to_string(k));
      return std::nullopt;
    }
    if (is_div) {
      IterSplitExpr r{s->source, s->lower_factor * k, s->extent / k, 1};
      if (r.extent == 1) return IterSumExpr{{}, base_q};
      return IterSumExpr{{r}, base_q};
    }
    IterSplitExpr r{s->source, s->lower_factor, k, s->scale};
    return IterSumExpr{{r}, zero};
  }

  Analyzer* ana_;
  std::vector<std::string>* errors_;
  bool simplify_trivial_;
  bool allow_padding_;
  std::map<const VarNode*, MarkPtr> inputs_;
  std::vector<MarkPtr> input_order_;
  std::vector<MarkPtr> fused_;
};

std::string MarkName(const IterMark* m) {
  if (m->var.defined()) return m->var->name_hint;
  std::string s = "(";
  for (size_t i = 0; i < m->sum.args.size(); ++i) {
    if (i) s += " + ";
    s += MarkName(m->sum.args[i].source.get());
  }
  return s + ")";
}

std::string ExprText(const PrimExpr& e) {
  // Short and readable enough for an error message; the printer lives in a later module.
  switch (e->type_index()) {
    case TypeIndex::kIntImm: return std::to_string(*AsConstInt(e));
    case TypeIndex::kVar:
    case TypeIndex::kSizeVar: return e.as<VarNode>()->name_hint;
    default: break;
  }
  auto* op = e.as<BinaryNode>();
  if (!op) return e->type_key();
  const char* sym = "?";
  switch (e->type_index()) {
    case TypeIndex::kAdd: sym = " + "; break;
    case TypeIndex::kSub: sym = " - "; break;
    case TypeIndex::kMul: sym = " * "; break;
    case TypeIndex::kFloorDiv: sym = " // "; break;
    case TypeIndex::kFloorMod: sym = " % "; break;
    case TypeIndex::kLT: sym = " < "; break;
    case TypeIndex::kLE: sym = " <= "; break;
    default: return std::string(e->type_key()) + "(" + ExprText(op->a) + ", " + ExprText(op->b) + ")";
  }
  return "(" + ExprText(op->a) + sym + ExprText(op->b) + ")";
}

// Checks that the splits of each iterator tile it: no overlap, and for bijective maps no gap
// and every iterator used.
bool CheckMapping(const std::vector<IterSplitExpr>& top, const std::vector<MarkPtr>& inputs,
                  IterMapLevel level, IterMapRewriter* rw) {
  std::map<const IterMark*, std::vector<IterSplitExpr>> uses;
  std::set<const IterMark*> expanded;
  std::vector<IterSplitExpr> work = top;
  while (!work.empty()) {
    IterSplitExpr s = work.back();
    work.pop_back();
    uses[s.source.get()].push_back(s);
    if (!s.source->var.defined() && expanded.insert(s.source.get()).second) {
      for (const IterSplitExpr& inner : s.source->sum.args) work.push_back(inner);
    }
  }
  bool ok = true;
  if (level == IterMapLevel::kBijective) {
    for (const MarkPtr& m : inputs) {
      if (m->extent > 1 && !uses.count(m.get())) {
        ok = rw->Fail("iterator " + m->var->name_hint + " is not used by any index, so the map "
                      "is not bijective");
      }
    }
  }
  for (auto& [mark, splits] : uses) {
    std::sort(splits.begin(), splits.end(), [](const IterSplitExpr& a, const IterSplitExpr& b) {
      return a.lower_factor < b.lower_factor;
    });
    int64_t covered = 1;
    for (const IterSplitExpr& s : splits) {
      if (s.lower_factor < covered) {
        ok = rw->Fail("iterator " + MarkName(mark) + " is used by overlapping splits");
        break;
      }
      if (s.lower_factor > covered && level == IterMapLevel::kBijective) {
        ok = rw->Fail("iterator " + MarkName(mark) + " is not covered: its part below factor " +
                      std::to_string(s.lower_factor) + " is unused");
        break;
      }
      covered = s.lower_factor * s.extent;
    }
    if (ok && level == IterMapLevel::kBijective && covered != mark->extent) {
      ok = rw->Fail("iterator " + MarkName(mark) + " of extent " + std::to_string(mark->extent) +
                    " is only covered up to " + std::to_string(covered));
    }
  }
  return ok;
}

}  // namespace

IterMapResult DetectIterMap(const std::vector<PrimExpr>& indices,
                            const std::vector<std::pair<Var, Range>>& input_iters,
                            const PrimExpr& predicate, IterMapLevel level, Analyzer* analyzer,
                            bool simplify_trivial_iterators) {
  Analyzer local;
  Analyzer* ana = analyzer ? analyzer : &local;
  IterMapResult result;
  IterMapRewriter rw(ana, &result.errors, simplify_trivial_iterators,
                     /*allow_padding=*/level == IterMapLevel::kNoCheck);
  for (const auto& [var, range] : input_iters) {
    if (!rw.AddInput(var, range)) return result;
  }
  if (predicate.defined() && !rw.AddPredicate(predicate)) return result;
  std::vector<IterSumExpr> sums;
  std::vector<IterSplitExpr> top;
  for (const PrimExpr& index : indices) {
    std::optional<IterSumExpr> sum = rw.Rewrite(index);
    if (!sum) return result;
    // Every level fuses the index into one iterator, as TVM's rewrite does; only the checks
    // that the iterators' splits tile them depend on the level.
    if (!sum->args.empty()) {
      IterSumExpr no_base = *sum;
      no_base.base = make_const(index->dtype, int64_t(0));
      std::optional<IterSplitExpr> one = rw.Fuse(no_base, ExprText(index));
      if (!one) return result;
      top.push_back(*one);
      sum = IterSumExpr{{*one}, sum->base};
    }
    sums.push_back(*sum);
  }
  if (level != IterMapLevel::kNoCheck && !CheckMapping(top, rw.inputs(), level, &rw)) {
    return result;
  }
  result.indices = std::move(sums);
  return result;
}

namespace {

PrimExpr MarkToExpr(const IterMark& mark, DataType dtype) {
  if (mark.var.defined()) return mark.var;
  return NormalizeIterMapToExpr(mark.sum, dtype);
}

}  // namespace

PrimExpr NormalizeIterMapToExpr(const IterSumExpr& sum, DataType dtype) {
  // TVM's forms: a split of the whole source is the source; a split reaching the source's end
  // is `source // lower`; any other is `source % (lower * extent) // lower`.
  // The base first: here it may hold outer loops' terms (`k_0 * 32 + k_1`).
  PrimExpr res = sum.base.defined() ? sum.base : make_const(dtype, int64_t(0));
  for (const IterSplitExpr& s : sum.args) {
    PrimExpr e = MarkToExpr(*s.source, dtype);
    if (s.lower_factor * s.extent == s.source->extent) {
      if (s.extent == 1 && s.source->extent != 1) {
        e = make_const(dtype, int64_t(0));
      } else {
        e = tir::floordiv(e, make_const(dtype, s.lower_factor));
      }
    } else {
      e = tir::floordiv(tir::floormod(e, make_const(dtype, s.lower_factor * s.extent)),
                        make_const(dtype, s.lower_factor));
    }
    res = tir::add(res, tir::mul(e, make_const(dtype, s.scale)));
  }
  return res;
}

std::vector<std::pair<Var, PrimExpr>> InverseAffineIterMap(const std::vector<IterSumExpr>& indices,
                                                           const std::vector<PrimExpr>& outputs) {
  // Sums and splits in reverse post-order of a depth-first walk from the indices: a fused
  // iterator's sum comes after every split of it, so its value is complete when it is split.
  struct Item {
    const IterSumExpr* sum;
    const IterSplitExpr* split;
  };
  std::vector<Item> order;
  std::set<const void*> visited;
  std::function<void(const IterSumExpr*)> visit_sum;
  auto visit_split = [&](const IterSplitExpr* s) {
    if (!visited.insert(s).second) return;
    if (!s->source->var.defined()) visit_sum(&s->source->sum);
    order.push_back({nullptr, s});
  };
  visit_sum = [&](const IterSumExpr* e) {
    if (!visited.insert(e).second) return;
    for (const IterSplitExpr& a : e->args) visit_split(&a);
    order.push_back({e, nullptr});
  };
  for (const IterSumExpr& e : indices) visit_sum(&e);
  std::reverse(order.begin(), order.end());

  // The value propagated into each sum or split so far; absent is TVM's initial 0, which its
  // folding `0 + x` drops.
  std::map<const void*, PrimExpr> value;
  auto accumulate = [&](const void* key, PrimExpr v) {
    auto it = value.find(key);
    if (it == value.end()) {
      value.emplace(key, std::move(v));
    } else {
      it->second = add(it->second, v);
    }
  };
  for (size_t i = 0; i < indices.size() && i < outputs.size(); ++i) value[&indices[i]] = outputs[i];
  std::vector<std::pair<Var, PrimExpr>> inverse;
  for (const Item& item : order) {
    if (item.sum) {
      auto it = value.find(item.sum);
      if (it == value.end()) continue;
      PrimExpr input = it->second;
      if (item.sum->base.defined()) input = sub(input, cast(input->dtype, item.sum->base));
      const std::vector<IterSplitExpr>& args = item.sum->args;
      if (args.size() == 1) {
        auto prev = value.find(&args[0]);
        PrimExpr v = prev == value.end() ? input : add(prev->second, input);
        value[&args[0]] = mul(v, make_const(input->dtype, args[0].scale));
        continue;
      }
      for (size_t k = args.size(); k > 0; --k) {
        const IterSplitExpr& s = args[k - 1];
        PrimExpr part = floordiv(input, make_const(input->dtype, s.scale));
        if (k > 1) part = floormod(part, make_const(input->dtype, s.extent));
        accumulate(&s, part);
      }
      continue;
    }
    auto it = value.find(item.split);
    if (it == value.end()) continue;
    PrimExpr input = mul(it->second, make_const(it->second->dtype, item.split->lower_factor));
    const IterMark& mark = *item.split->source;
    if (!mark.var.defined()) {
      accumulate(&mark.sum, input);
      continue;
    }
    auto found = std::find_if(inverse.begin(), inverse.end(),
                              [&](const auto& p) { return p.first.get() == mark.var.get(); });
    if (found == inverse.end()) {
      inverse.emplace_back(mark.var, input);
    } else {
      found->second = add(found->second, input);
    }
  }
  return inverse;
}

}  // namespace wb::arith
