#include "meta_schedule/feature_extractor.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "tir/expr.h"
#include "tir/functor.h"

namespace wb::meta_schedule {

namespace {

struct Loop {
  const tir::VarNode* var;
  int64_t extent;
  tir::ForKind kind;
  int64_t auto_unroll;
};

using Env = std::map<const tir::VarNode*, int64_t>;
using Bindings = std::map<const tir::VarNode*, ir::PrimExpr>;

// Integer value of an index expression, with block iterators replaced by their bindings and
// loop variables taken from `env` (0 when absent); nullopt for what it cannot evaluate.
std::optional<int64_t> Eval(const ir::PrimExpr& e, const Env& env, const Bindings& bindings) {
  if (auto* i = dynamic_cast<const tir::IntImmNode*>(e.get())) return i->value;
  if (auto* v = dynamic_cast<const tir::VarNode*>(e.get())) {
    auto b = bindings.find(v);
    if (b != bindings.end()) return Eval(b->second, env, bindings);
    auto it = env.find(v);
    return it == env.end() ? 0 : it->second;
  }
  if (auto* c = dynamic_cast<const tir::CastNode*>(e.get())) return Eval(c->value, env, bindings);
  if (auto* bin = dynamic_cast<const tir::BinaryNode*>(e.get())) {
    auto a = Eval(bin->a, env, bindings), b = Eval(bin->b, env, bindings);
    if (!a || !b) return std::nullopt;
    if (dynamic_cast<const tir::AddNode*>(e.get())) return *a + *b;
    if (dynamic_cast<const tir::SubNode*>(e.get())) return *a - *b;
    if (dynamic_cast<const tir::MulNode*>(e.get())) return *a * *b;
    if (*b == 0) return std::nullopt;
    if (dynamic_cast<const tir::FloorDivNode*>(e.get()) || dynamic_cast<const tir::DivNode*>(e.get())) {
      int64_t q = *a / *b;
      return (*a % *b != 0 && ((*a < 0) != (*b < 0))) ? q - 1 : q;
    }
    if (dynamic_cast<const tir::FloorModNode*>(e.get()) || dynamic_cast<const tir::ModNode*>(e.get())) {
      int64_t m = *a % *b;
      return m != 0 && ((m < 0) != (*b < 0)) ? m + *b : m;
    }
    if (dynamic_cast<const tir::MinNode*>(e.get())) return std::min(*a, *b);
    if (dynamic_cast<const tir::MaxNode*>(e.get())) return std::max(*a, *b);
  }
  return std::nullopt;
}

// The flattened (row-major) index of an access.
std::optional<int64_t> Flat(const tir::Buffer& buffer, const std::vector<ir::PrimExpr>& indices,
                            const Env& env, const Bindings& bindings) {
  int64_t flat = 0;
  for (size_t d = 0; d < indices.size(); ++d) {
    int64_t dim = 1;
    if (d < buffer->shape.size()) {
      const int64_t* n = tir::AsConstInt(buffer->shape[d]);
      dim = n ? *n : 1;
    }
    auto v = Eval(indices[d], env, bindings);
    if (!v) return std::nullopt;
    flat = flat * dim + *v;
  }
  return flat;
}

struct Access {
  tir::Buffer buffer;
  std::vector<ir::PrimExpr> indices;
};

class Extractor {
 public:
  std::vector<std::vector<double>> rows;
  double alloc_bytes = 0;

  void Visit(const tir::Stmt& stmt) {
    if (!stmt.defined()) return;
    if (auto* f = dynamic_cast<const tir::ForNode*>(stmt.get())) {
      const int64_t* extent = tir::AsConstInt(f->extent);
      int64_t unroll = 0;
      auto it = f->annotations.find("pragma_auto_unroll_max_step");
      if (it != f->annotations.end()) {
        if (auto* i = dynamic_cast<const ir::IntObj*>(it->second.get())) unroll = i->value;
      }
      loops_.push_back({f->loop_var.get(), extent ? *extent : 1, f->kind, unroll});
      Visit(f->body);
      loops_.pop_back();
    } else if (auto* r = dynamic_cast<const tir::SBlockRealizeNode*>(stmt.get())) {
      for (size_t k = 0; k < r->iter_values.size() && k < r->block->iter_vars.size(); ++k) {
        bindings_[r->block->iter_vars[k]->var.get()] = r->iter_values[k];
      }
      for (const auto& b : r->block->alloc_buffers) {
        double n = b->dtype.bytes();
        for (const auto& d : b->shape) {
          const int64_t* e = tir::AsConstInt(d);
          n *= e ? static_cast<double>(*e) : 1.0;
        }
        alloc_bytes += n;
      }
      Visit(r->block->init);
      Visit(r->block->body);
    } else if (auto* s = dynamic_cast<const tir::SeqStmtNode*>(stmt.get())) {
      for (const auto& x : s->seq) Visit(x);
    } else if (auto* i = dynamic_cast<const tir::IfThenElseNode*>(stmt.get())) {
      Visit(i->then_case);
      Visit(i->else_case);
    } else if (auto* a = dynamic_cast<const tir::AttrStmtNode*>(stmt.get())) {
      Visit(a->body);
    } else if (auto* b = dynamic_cast<const tir::SBlockNode*>(stmt.get())) {
      Visit(b->init);
      Visit(b->body);
    } else if (auto* st = dynamic_cast<const tir::BufferStoreNode*>(stmt.get())) {
      Store(st);
    }
  }

 private:
  void Store(const tir::BufferStoreNode* store) {
    std::vector<double> row(kStoreFeatures, 0.0);
    double iters = 1;
    for (const Loop& l : loops_) iters *= static_cast<double>(l.extent);
    std::vector<Access> accesses = {{store->buffer, store->indices}};
    tir::PostOrderVisit(store->value, [&](const ir::Object* node) {
      if (auto* load = dynamic_cast<const tir::BufferLoadNode*>(node)) {
        accesses.push_back({load->buffer, load->indices});
        return;
      }
      auto* e = dynamic_cast<const ir::PrimExprNode*>(node);
      if (!e) return;
      const bool fp = e->dtype.is_floating_point();
      if (dynamic_cast<const tir::AddNode*>(node) || dynamic_cast<const tir::SubNode*>(node)) {
        row[fp ? 0 : 5] += 1;
      } else if (dynamic_cast<const tir::MulNode*>(node)) {
        row[fp ? 1 : 5] += 1;
      } else if (dynamic_cast<const tir::DivNode*>(node) || dynamic_cast<const tir::ModNode*>(node) ||
                 dynamic_cast<const tir::FloorDivNode*>(node) ||
                 dynamic_cast<const tir::FloorModNode*>(node)) {
        row[fp ? 2 : 5] += 1;
      } else if (dynamic_cast<const tir::MinNode*>(node) || dynamic_cast<const tir::MaxNode*>(node)) {
        row[fp ? 3 : 5] += 1;
      } else if (auto* bin = dynamic_cast<const tir::BinaryNode*>(node)) {
        if (bin->a.defined() && bin->a->dtype.is_floating_point()) row[3] += 1;
      } else if (dynamic_cast<const tir::CallNode*>(node)) {
        row[4] += 1;
      }
    });
    for (int k = 0; k <= 5; ++k) row[k] *= iters;
    double vec_prod = 1, unroll_prod = 1, par_prod = 1;
    for (const Loop& l : loops_) {
      if (l.kind == tir::ForKind::kVectorized) row[6] += 1, vec_prod *= l.extent;
      if (l.kind == tir::ForKind::kUnrolled) row[8] += 1, unroll_prod *= l.extent;
      if (l.kind == tir::ForKind::kParallel) row[10] += 1, par_prod *= l.extent;
      row[12] = std::max<double>(row[12], static_cast<double>(l.auto_unroll));
    }
    row[7] = row[6] > 0 ? vec_prod : 0;
    row[9] = row[8] > 0 ? unroll_prod : 0;
    row[11] = row[10] > 0 ? par_prod : 0;
    row[13] = static_cast<double>(loops_.size());
    row[14] = iters;
    // Accesses: bytes, unique bytes, innermost stride, reuse.
    struct Measured {
      double bytes, unique, stride, reuse;
    };
    std::vector<Measured> measured;
    double unique_total = 0;
    for (const Access& a : accesses) {
      Env zero;
      std::optional<int64_t> base = Flat(a.buffer, a.indices, zero, bindings_);
      double unique = a.buffer->dtype.bytes();
      double stride = 0;
      for (size_t k = 0; k < loops_.size(); ++k) {
        Env one = {{loops_[k].var, 1}};
        std::optional<int64_t> moved = Flat(a.buffer, a.indices, one, bindings_);
        int64_t delta = base && moved ? std::abs(*moved - *base) : 1;
        if (delta != 0) unique *= static_cast<double>(loops_[k].extent);
        if (k + 1 == loops_.size()) stride = static_cast<double>(delta);
      }
      double bytes = iters * a.buffer->dtype.bytes();
      measured.push_back({bytes, unique, stride, bytes / unique});
      unique_total += unique;
    }
    std::sort(measured.begin(), measured.end(),
              [](const Measured& x, const Measured& y) { return x.bytes > y.bytes; });
    for (size_t i = 0; i < 3 && i < measured.size(); ++i) {
      row[15 + 4 * i] = measured[i].bytes;
      row[16 + 4 * i] = measured[i].unique;
      row[17 + 4 * i] = measured[i].stride;
      row[18 + 4 * i] = measured[i].reuse;
    }
    double flops = row[0] + row[1] + row[2] + row[3] + row[4];
    row[27] = unique_total > 0 ? flops / unique_total : 0;
    rows.push_back(std::move(row));
  }

  std::vector<Loop> loops_;
  Bindings bindings_;
};

}  // namespace

std::vector<std::vector<double>> ExtractStoreFeatures(const tir::PrimFunc& func) {
  Extractor extractor;
  extractor.Visit(func->body);
  for (auto& row : extractor.rows) row[28] = extractor.alloc_bytes;
  return extractor.rows;
}

std::vector<float> ExtractFeatures(const tir::PrimFunc& func) {
  std::vector<float> out(kFunctionFeatures, 0.0f);
  for (const auto& row : ExtractStoreFeatures(func)) {
    for (int k = 0; k < kStoreFeatures; ++k) {
      float v = static_cast<float>(std::log2(1.0 + std::max(0.0, row[k])));
      out[k] += v;
      out[kStoreFeatures + k] = std::max(out[kStoreFeatures + k], v);
    }
  }
  return out;
}

}  // namespace wb::meta_schedule
