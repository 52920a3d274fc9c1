#include "arith/canonical_simplify.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "arith/analyzer.h"
#include "arith/int_math.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace wb::arith {

using ir::TypeIndex;
using namespace tir;

namespace {

struct SumForm;

// ((index // lower) % upper) * scale; upper == kPosInf means no modulo.
struct SplitTerm {
  PrimExpr index;
  // When the atom is itself a sum that could not be split further, its form, so that a merge
  // that gives back the whole atom can expand it into the enclosing sum again.
  std::shared_ptr<const SumForm> index_sum;
  int64_t lower = 1;
  int64_t upper = kPosInf;
  int64_t scale = 1;
  // For a product of factors: the factors in a canonical order, so that x*y and y*x are one
  // index; null otherwise.
  PrimExpr key;

  bool SameSplit(const SplitTerm& o) const {
    return lower == o.lower && upper == o.upper && SameIndex(o);
  }
  bool SameIndex(const SplitTerm& o) const {
    if (index.same_as(o.index)) return true;
    if (key.defined() || o.key.defined()) {
      return ir::StructuralEqual(key.defined() ? key : index, o.key.defined() ? o.key : o.index, false);
    }
    return ir::StructuralEqual(index, o.index, false);
  }
  bool IsPlain() const { return lower == 1 && upper == kPosInf; }
};

// base + sum(terms); terms keep their order of first appearance so that the output is stable.
struct SumForm {
  DataType dtype;
  std::vector<SplitTerm> terms;
  int64_t base = 0;
};

void AddTerm(SumForm* dst, SplitTerm t) {
  for (size_t i = 0; i < dst->terms.size(); ++i) {
    if (dst->terms[i].SameSplit(t)) {
      dst->terms[i].scale = WrappingAdd(dst->terms[i].scale, t.scale);
      if (dst->terms[i].scale == 0) dst->terms.erase(dst->terms.begin() + i);
      return;
    }
  }
  if (t.scale != 0) dst->terms.push_back(std::move(t));
}

void AddInto(SumForm* dst, const SumForm& src, int64_t factor) {
  dst->base = WrappingAdd(dst->base, WrappingMul(src.base, factor));
  for (SplitTerm t : src.terms) {
    t.scale = WrappingMul(t.scale, factor);
    AddTerm(dst, std::move(t));
  }
}

SumForm Scaled(const SumForm& s, int64_t factor) {
  SumForm r{s.dtype, {}, 0};
  if (factor == 0) return r;
  AddInto(&r, s, factor);
  return r;
}

// Merges ((x//a) % b)*s + ((x//(a*b)) % c)*(s*b) into ((x//a) % (b*c))*s until none is left.
void MergeSplits(SumForm* s) {
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < s->terms.size() && !changed; ++i) {
      for (size_t j = 0; j < s->terms.size() && !changed; ++j) {
        const SplitTerm& lo = s->terms[i];
        const SplitTerm& hi = s->terms[j];
        if (i == j || lo.upper == kPosInf || !lo.SameIndex(hi)) continue;
        int64_t lower_product = 0, scale_product = 0, upper_product = 0;
        if (__builtin_mul_overflow(lo.lower, lo.upper, &lower_product) ||
            __builtin_mul_overflow(lo.scale, lo.upper, &scale_product) ||
            hi.lower != lower_product || hi.scale != scale_product) {
          continue;
        }
        if (hi.upper != kPosInf && __builtin_mul_overflow(lo.upper, hi.upper, &upper_product)) continue;
        SplitTerm merged = lo;
        merged.upper = hi.upper == kPosInf ? kPosInf : upper_product;
        s->terms.erase(s->terms.begin() + std::max(i, j));
        s->terms.erase(s->terms.begin() + std::min(i, j));
        if (merged.IsPlain() && merged.index_sum) {
          AddInto(s, *merged.index_sum, merged.scale);
        } else {
          AddTerm(s, std::move(merged));
        }
        changed = true;
      }
    }
  }
}

PrimExpr Const(DataType t, int64_t v) { return make_const(t, v); }

// The modulus of a split as TVM's SplitExpr holds it, on the index itself:
// (x // lower) % upper == (x % (lower * upper)) // lower. kPosInf when there is none, or when
// the product overflows (the term is then written divide-first).
int64_t IndexModulus(const SplitTerm& t) {
  int64_t m = 0;
  if (t.upper == kPosInf || __builtin_mul_overflow(t.lower, t.upper, &m)) return kPosInf;
  return m;
}

// TVM's normal form of a split: x % (lower * upper) // lower, times the scale.
PrimExpr EmitTerm(const SplitTerm& t, int64_t abs_scale, DataType dtype) {
  PrimExpr e = t.index;
  int64_t modulus = IndexModulus(t);
  if (t.upper != kPosInf && modulus == kPosInf) {
    if (t.lower != 1) e = MakeBinary(TypeIndex::kFloorDiv, e, Const(dtype, t.lower));
    e = MakeBinary(TypeIndex::kFloorMod, e, Const(dtype, t.upper));
  } else {
    if (modulus != kPosInf) e = MakeBinary(TypeIndex::kFloorMod, e, Const(dtype, modulus));
    if (t.lower != 1) e = MakeBinary(TypeIndex::kFloorDiv, e, Const(dtype, t.lower));
  }
  if (abs_scale != 1) e = MakeBinary(TypeIndex::kMul, e, Const(dtype, abs_scale));
  return e;
}

// TVM's order of a sum: the terms by descending scale, then descending divisor and modulus
// (stable, so terms of one index stay together); the positive terms added, then a positive
// constant, then the negative terms and a negative constant subtracted: `i*4 + j + 1 - k`,
// `8 - i*3`, `0 - i` when nothing is positive.
PrimExpr Emit(const SumForm& s) {
  std::vector<const SplitTerm*> order;
  for (const SplitTerm& t : s.terms) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const SplitTerm* a, const SplitTerm* b) {
    if (a->scale != b->scale) return a->scale > b->scale;
    if (a->lower != b->lower) return a->lower > b->lower;
    return IndexModulus(*a) > IndexModulus(*b);
  });
  PrimExpr res;
  for (const SplitTerm* t : order) {
    if (t->scale <= 0) continue;
    PrimExpr e = EmitTerm(*t, t->scale, s.dtype);
    res = res.defined() ? MakeBinary(TypeIndex::kAdd, res, e) : e;
  }
  if (s.base > 0) {
    res = res.defined() ? MakeBinary(TypeIndex::kAdd, res, Const(s.dtype, s.base)) : Const(s.dtype, s.base);
  }
  for (const SplitTerm* t : order) {
    if (t->scale >= 0) continue;
    if (!res.defined()) res = Const(s.dtype, 0);
    res = MakeBinary(TypeIndex::kSub, res, EmitTerm(*t, WrappingSub(0, t->scale), s.dtype));
  }
  if (!res.defined()) return Const(s.dtype, s.base);
  if (s.base < 0) return MakeBinary(TypeIndex::kSub, res, Const(s.dtype, WrappingSub(0, s.base)));
  return res;
}

SumForm FromConst(DataType t, int64_t v) { return SumForm{t, {}, v}; }

SumForm FromAtom(const PrimExpr& e) {
  if (const int64_t* v = AsConstInt(e)) return FromConst(e->dtype, *v);
  SumForm s{e->dtype, {}, 0};
  s.terms.push_back(SplitTerm{e, nullptr, 1, kPosInf, 1});
  return s;
}

// The sum as a single plain term, to be divided or reduced as a whole.
SplitTerm AsAtomTerm(const SumForm& s) {
  if (s.base == 0 && s.terms.size() == 1 && s.terms[0].scale == 1 && s.terms[0].IsPlain()) {
    return s.terms[0];
  }
  return SplitTerm{Emit(s), std::make_shared<SumForm>(s), 1, kPosInf, 1};
}

// A total order on factors that does not depend on addresses where it can avoid it, so that
// output is the same from run to run: variables by name first, then any expression by its
// name-independent structural hash.
bool FactorAfter(const PrimExpr& x, const PrimExpr& y) {
  auto* vx = x.as<VarNode>();
  auto* vy = y.as<VarNode>();
  if (vx && !vy) return false;
  if (vy && !vx) return true;
  if (vx && vy && vx->name_hint != vy->name_hint) return vx->name_hint > vy->name_hint;
  uint64_t hx = ir::StructuralHash(x), hy = ir::StructuralHash(y);
  if (hx != hy) return hx > hy;
  return x.get() > y.get();
}

bool IsIndexArith(const PrimExpr& e) {
  if (!e->dtype.is_integer() || !e->dtype.is_scalar()) return false;
  switch (e->type_index()) {
    case TypeIndex::kIntImm:
    case TypeIndex::kAdd:
    case TypeIndex::kSub:
    case TypeIndex::kMul:
    case TypeIndex::kDiv:
    case TypeIndex::kMod:
    case TypeIndex::kFloorDiv:
    case TypeIndex::kFloorMod:
      return true;
    default:
      return false;
  }
}

class CanonicalMutator : public ExprMutator {
 public:
  explicit CanonicalMutator(Analyzer* analyzer) : analyzer_(analyzer) {}

  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (IsIndexArith(e)) return Emit(ToSum(e));
    return ExprMutator::VisitExpr(e);
  }

 private:
  SumForm ToSum(const PrimExpr& e) {
    if (!IsIndexArith(e)) return FromAtom(ExprMutator::VisitExpr(e));
    if (const int64_t* v = AsConstInt(e)) return FromConst(e->dtype, *v);
    auto* op = e.as<BinaryNode>();
    switch (e->type_index()) {
      case TypeIndex::kAdd:
      case TypeIndex::kSub: {
        SumForm a = ToSum(op->a);
        AddInto(&a, ToSum(op->b), e->type_index() == TypeIndex::kAdd ? 1 : -1);
        MergeSplits(&a);
        return a;
      }
      case TypeIndex::kMul: {
        SumForm a = ToSum(op->a), b = ToSum(op->b);
        if (b.terms.empty()) return Scaled(a, b.base);
        if (a.terms.empty()) return Scaled(b, a.base);
        return Product(Emit(a), Emit(b), e->dtype);
      }
      case TypeIndex::kFloorDiv:
      case TypeIndex::kDiv:
      case TypeIndex::kFloorMod:
      case TypeIndex::kMod: {
        bool is_div = e->type_index() == TypeIndex::kFloorDiv || e->type_index() == TypeIndex::kDiv;
        bool trunc = e->type_index() == TypeIndex::kDiv || e->type_index() == TypeIndex::kMod;
        SumForm a = ToSum(op->a), b = ToSum(op->b);
        bool const_divisor = b.terms.empty() && b.base > 0;
        // A sum of unsigned terms wraps modulo 2^bits, so D*c + N may wrap and then
        // floordiv(D*c + N, c) is not D + floordiv(N, c): unsigned division stays whole.
        if (e->dtype.is_uint()) const_divisor = false;
        // Truncation agrees with floor division exactly when the dividend is non-negative.
        if (const_divisor && trunc && analyzer_->const_int_bound(Emit(a)).min_value < 0) {
          const_divisor = false;
        }
        if (const_divisor) return is_div ? DivByConst(a, b.base) : ModByConst(a, b.base);
        return FromAtom(MakeBinary(e->type_index(), Emit(a), Emit(b)));
      }
      default:
        return FromAtom(e);
    }
  }

  // A product of non-constants, as TVM's MulAndNormalize writes it: the factors of both sides
  // in their order (x * y * z), the constant factors gathered into the term's scale
  // (x * (y * 2) is x * y scaled by 2). x*y and y*x are one term: the key orders the factors.
  SumForm Product(const PrimExpr& x, const PrimExpr& y, DataType dtype) {
    std::vector<PrimExpr> factors;
    int64_t scale = 1;
    bool overflow = false;
    std::function<void(const PrimExpr&)> collect = [&](const PrimExpr& f) {
      if (f->type_index() == TypeIndex::kMul) {
        auto* m = f.as<BinaryNode>();
        collect(m->a);
        collect(m->b);
      } else if (const int64_t* c = AsConstInt(f)) {
        overflow = overflow || __builtin_mul_overflow(scale, *c, &scale);
      } else {
        factors.push_back(f);
      }
    };
    collect(x);
    collect(y);
    if (overflow || scale == 0) {
      PrimExpr a = x, b = y;
      if (FactorAfter(a, b)) std::swap(a, b);
      return FromAtom(MakeBinary(TypeIndex::kMul, a, b));
    }
    PrimExpr product = factors[0];
    for (size_t i = 1; i < factors.size(); ++i) product = MakeBinary(TypeIndex::kMul, product, factors[i]);
    std::vector<PrimExpr> sorted = factors;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const PrimExpr& a, const PrimExpr& b) { return FactorAfter(b, a); });
    PrimExpr key = sorted[0];
    for (size_t i = 1; i < sorted.size(); ++i) key = MakeBinary(TypeIndex::kMul, key, sorted[i]);
    SumForm s{dtype, {}, 0};
    SplitTerm t{product, nullptr, 1, kPosInf, scale};
    t.key = key;
    s.terms.push_back(std::move(t));
    return s;
  }

  // floordiv(D*c + N, c) == D + floordiv(N, c) for every integer D: the divisible terms come out.
  SumForm DivByConst(const SumForm& s, int64_t c) {
    SumForm result{s.dtype, {}, FloorDiv(s.base, c)};
    SumForm rest{s.dtype, {}, FloorMod(s.base, c)};
    for (const SplitTerm& t : s.terms) {
      if (t.scale % c == 0) {
        SplitTerm d = t;
        d.scale /= c;
        AddTerm(&result, d);
      } else {
        rest.terms.push_back(t);
      }
    }
    if (!rest.terms.empty()) {
      ConstIntBound b = analyzer_->const_int_bound(Emit(rest));
      if (b.min_value != kNegInf && b.max_value != kPosInf &&
          FloorDiv(b.min_value, c) == FloorDiv(b.max_value, c)) {
        result.base = WrappingAdd(result.base, FloorDiv(b.min_value, c));
      } else {
        AddTerm(&result, DivTerm(rest, c));
      }
    }
    MergeSplits(&result);
    return result;
  }

  SplitTerm DivTerm(const SumForm& rest, int64_t c) {
    if (rest.base == 0 && rest.terms.size() == 1 && rest.terms[0].scale > 0 &&
        c % rest.terms[0].scale == 0) {
      // ((x//a) % b)*s // (s*k) == (x // (a*k)) % (b/k) when k divides b.
      SplitTerm t = rest.terms[0];
      int64_t k = c / t.scale;
      if (t.upper == kPosInf || t.upper % k == 0) {
        t.lower *= k;
        if (t.upper != kPosInf) t.upper /= k;
        t.scale = 1;
        return t;
      }
    }
    SplitTerm t = AsAtomTerm(rest);
    t.lower = c;
    return t;
  }

  // floormod(D*c + N, c) == floormod(N, c).
  SumForm ModByConst(const SumForm& s, int64_t c) {
    SumForm rest{s.dtype, {}, FloorMod(s.base, c)};
    for (const SplitTerm& t : s.terms) {
      if (t.scale % c != 0) rest.terms.push_back(t);
    }
    if (rest.terms.empty()) return rest;
    ConstIntBound b = analyzer_->const_int_bound(Emit(rest));
    if (b.min_value != kNegInf && b.max_value != kPosInf &&
        FloorDiv(b.min_value, c) == FloorDiv(b.max_value, c)) {
      // The quotient is one constant q: floormod(N, c) == N - q*c.
      rest.base = WrappingSub(rest.base, WrappingMul(FloorDiv(b.min_value, c), c));
      return rest;
    }
    if (rest.base == 0 && rest.terms.size() == 1 && rest.terms[0].scale > 0 &&
        c % rest.terms[0].scale == 0) {
      // ((x//a) % b)*s % (s*k) == ((x//a) % k)*s when k divides b.
      SplitTerm t = rest.terms[0];
      int64_t k = c / t.scale;
      if (t.upper == kPosInf || t.upper % k == 0) {
        t.upper = k;
        SumForm r{s.dtype, {}, 0};
        r.terms.push_back(t);
        return r;
      }
    }
    SplitTerm t = AsAtomTerm(rest);
    t.upper = c;
    SumForm r{s.dtype, {}, 0};
    r.terms.push_back(t);
    return r;
  }

  Analyzer* analyzer_;
};

}  // namespace

PrimExpr CanonicalSimplifier::operator()(const PrimExpr& expr) {
  CanonicalMutator mutator(parent_);
  return mutator(expr);
}

}  // namespace wb::arith
