#include "ir/structural_equal.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "ir/structural_mismatches.h"

namespace wb::ir {

bool IsBindableKind(TypeIndex index) {
  return index == TypeIndex::kVar || index == TypeIndex::kSizeVar || index == TypeIndex::kBuffer ||
         index == TypeIndex::kGlobalVar || index == TypeIndex::kRelaxVar ||
         index == TypeIndex::kDataflowVar;
}

namespace {

// One reflected field. Values are copied (the Fields adapter hands typed fields to the visitor as
// temporaries); nodes are kept as raw pointers, since the graphs being compared own them and
// outlive the comparison.
using Entries = std::vector<std::pair<std::string, const Object*>>;
// Raw bytes (a constant's data), viewed where the node keeps them: never copied.
struct Bytes {
  std::string_view data;
};
using FieldValue = std::variant<int64_t, double, bool, std::string, DataType, const Object*,
                                std::vector<const Object*>, Entries, Bytes>;

struct Field {
  const char* name;
  FieldKind kind;
  FieldValue value;
};

class FieldCollector final : public FieldVisitor {
 public:
  explicit FieldCollector(std::vector<Field>* out) : out_(out) {}

  void Visit(const char* name, int64_t* v, FieldKind k) override { Add(name, k, *v); }
  void Visit(const char* name, double* v, FieldKind k) override { Add(name, k, *v); }
  void Visit(const char* name, bool* v, FieldKind k) override { Add(name, k, *v); }
  void Visit(const char* name, std::string* v, FieldKind k) override { Add(name, k, *v); }
  void VisitBytes(const char* name, std::string* v, FieldKind k) override {
    Add(name, k, Bytes{*v});
  }
  void Visit(const char* name, DataType* v, FieldKind k) override { Add(name, k, *v); }
  void Visit(const char* name, ObjectRef* v, FieldKind k) override { Add(name, k, v->get()); }
  void Visit(const char* name, std::vector<ObjectRef>* v, FieldKind k) override {
    std::vector<const Object*> items;
    items.reserve(v->size());
    for (const ObjectRef& item : *v) items.push_back(item.get());
    Add(name, k, std::move(items));
  }
  void Visit(const char* name, AttrMap* v, FieldKind k) override {
    Entries entries;
    entries.reserve(v->size());
    for (const auto& [key, value] : *v) entries.emplace_back(key, value.get());
    Add(name, k, std::move(entries));
  }

 private:
  template <typename T>
  void Add(const char* name, FieldKind kind, T value) {
    if (kind == FieldKind::kIgnore) return;
    out_->push_back({name, kind, FieldValue(std::in_place_type<T>, std::move(value))});
  }

  std::vector<Field>* out_;
};

// The fields that take part in the comparison, in the node's canonical order.
void CollectFields(const Object* node, std::vector<Field>* out) {
  out->clear();
  FieldCollector collector(out);
  // A reading visitor leaves the node unchanged; VisitFields is non-const only for the loader.
  const_cast<Object*>(node)->VisitFields(&collector);
}

bool SameFloat(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

std::string FloatText(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, end);
}

const char* KeyOrNull(const Object* node) { return node ? node->type_key() : "null"; }

// One step of an access path: ".field", "[index]" or "[\"key\"]".
struct Step {
  enum Kind : uint8_t { kField, kIndex, kKey } kind = kField;
  const char* field = nullptr;
  size_t index = 0;
  std::string key;

  static Step Field(const char* name) { return {kField, name, 0, {}}; }
  static Step Index(size_t i) { return {kIndex, nullptr, i, {}}; }
  static Step Key(std::string k) { return {kKey, nullptr, 0, std::move(k)}; }
};

// The steps from a node to one of its children: a field, then maybe an index or a key.
struct Steps {
  std::array<Step, 2> items;
  uint8_t size = 0;
};

// Compares two graphs depth-first, in field order, and stops at the first difference (or, asked
// for every difference, records it, leaves the differing pair's insides alone and walks on). The
// walk uses an explicit stack of tasks, so the depth of the IR is bounded by memory, not by the
// thread's stack. The path to the current position is kept as steps and spelled out only when a
// difference is met.
class Comparer {
 public:
  Comparer(bool map_free_vars, bool explain, size_t limit = 1)
      : map_free_vars_(map_free_vars), explain_(explain), limit_(limit) {}

  bool Equal(const ObjectRef& a, const ObjectRef& b) {
    tasks_.push_back(Task{Task::kCompare, a.get(), b.get(), false, 0, {}, {}, nullptr, nullptr});
    while (!tasks_.empty()) {
      Task task = std::move(tasks_.back());
      tasks_.pop_back();
      path_.resize(task.depth);
      for (uint8_t i = 0; i < task.steps.size; ++i) path_.push_back(std::move(task.steps.items[i]));
      located_a_ = task.located_a;
      located_b_ = task.located_b;
      switch (task.kind) {
        case Task::kCompare:
          if (!Compare(task.a, task.b, task.in_def)) return false;
          break;
        case Task::kBind:
          lhs_to_rhs_.emplace(task.a, task.b);
          rhs_to_lhs_.emplace(task.b, task.a);
          break;
        case Task::kFail:
          if (!Fail(task.a, task.b, std::move(task.reason))) return false;
          break;
      }
    }
    return mismatches_.empty();
  }

  std::optional<StructuralMismatch> TakeMismatch() {
    if (mismatches_.empty()) return std::nullopt;
    return std::move(mismatches_.front());
  }
  std::vector<StructuralMismatch> TakeMismatches() { return std::move(mismatches_); }
  // Differences beyond the limit (counted, not recorded).
  size_t more() const { return more_; }

 private:
  struct Task {
    enum Kind : uint8_t {
      kCompare,  // compare a and b
      kBind,     // a and b compared equal: map them to each other
      kFail,     // a difference found while expanding the parent, reported in walk order
    } kind;
    const Object* a;
    const Object* b;
    bool in_def;
    size_t depth;        // the path length of the parent
    Steps steps;         // from the parent to here
    std::string reason;  // kFail
    // The nearest ancestors (the parents or above) that have a span.
    const Object* located_a;
    const Object* located_b;
  };

  bool Compare(const Object* a, const Object* b, bool in_def) {
    if (a == nullptr || b == nullptr) {
      if (a == b) return true;
      return Fail(a, b, std::string(KeyOrNull(a)) + " vs " + KeyOrNull(b));
    }
    if (a->type_index() != b->type_index()) {
      return Fail(a, b, std::string(a->type_key()) + " vs " + b->type_key());
    }
    if (!IsBindableKind(a->type_index())) {
      Expand(a, b, in_def);
      return true;
    }
    // Bindable objects: keep the map between the two sides a bijection.
    auto ia = lhs_to_rhs_.find(a);
    auto ib = rhs_to_lhs_.find(b);
    if (ia != lhs_to_rhs_.end() || ib != rhs_to_lhs_.end()) {
      if (ia != lhs_to_rhs_.end() && ia->second == b) return true;
      return Fail(a, b, std::string(a->type_key()) + " bound to a different one on the other side");
    }
    if (!in_def && !map_free_vars_) {
      if (a != b) return Fail(a, b, std::string("different free ") + a->type_key());
      lhs_to_rhs_.emplace(a, b);
      rhs_to_lhs_.emplace(b, a);
      return true;
    }
    // Mapped once their own fields (dtype, shape...) compare equal.
    tasks_.push_back(Task{Task::kBind, a, b, in_def, path_.size(), {}, {}, located_a_, located_b_});
    Expand(a, b, in_def);
    return true;
  }

  // Queues the comparison of the fields of a and b, which have the same type. A difference in a
  // value field becomes a kFail task in its place, so that it is reported only if nothing before
  // it differs; nothing after it needs comparing, unless every difference is asked for.
  void Expand(const Object* a, const Object* b, bool in_def) {
    CollectFields(a, &fields_a_);
    CollectFields(b, &fields_b_);
    std::vector<Task> children;
    size_t depth = path_.size();
    const Object* la = a->span.defined() ? a : located_a_;
    const Object* lb = b->span.defined() ? b : located_b_;
    auto compare = [&](const Object* x, const Object* y, bool def, Steps steps) {
      children.push_back(Task{Task::kCompare, x, y, def, depth, std::move(steps), {}, la, lb});
    };
    auto fail = [&](const Object* x, const Object* y, Steps steps, std::string why) {
      children.push_back(Task{Task::kFail, x, y, false, depth, std::move(steps), std::move(why), la, lb});
    };
    size_t n = std::min(fields_a_.size(), fields_b_.size());
    bool differs = false;
    // Asked for every difference, the other fields are compared too (a loop's kind and its body).
    bool every = explain_ && limit_ > 1;
    for (size_t i = 0; i < n && (!differs || every); ++i) {
      const Field& fa = fields_a_[i];
      const Field& fb = fields_b_[i];
      bool def = in_def || fa.kind == FieldKind::kDef;
      auto here = [&](std::optional<Step> more = std::nullopt) {
        Steps steps;
        steps.items[steps.size++] = Step::Field(fa.name);
        if (more) steps.items[steps.size++] = std::move(*more);
        return steps;
      };
      std::string why = ValueDifference(fa.value, fb.value);
      if (!why.empty()) {
        fail(a, b, here(), std::move(why));
        differs = true;
      } else if (auto* x = std::get_if<const Object*>(&fa.value)) {
        compare(*x, std::get<const Object*>(fb.value), def, here());
      } else if (auto* xs = std::get_if<std::vector<const Object*>>(&fa.value)) {
        // Items in order; a length difference is reported at the first item without a partner.
        const auto& ys = std::get<std::vector<const Object*>>(fb.value);
        size_t m = std::min(xs->size(), ys.size());
        for (size_t j = 0; j < m; ++j) compare((*xs)[j], ys[j], def, here(Step::Index(j)));
        if (xs->size() != ys.size()) {
          fail(m < xs->size() ? (*xs)[m] : nullptr, m < ys.size() ? ys[m] : nullptr,
               here(Step::Index(m)),
               std::to_string(xs->size()) + " items vs " + std::to_string(ys.size()));
          differs = true;
        }
      } else if (auto* xe = std::get_if<Entries>(&fa.value)) {
        differs = !CompareEntries(*xe, std::get<Entries>(fb.value), def, here, compare, fail);
      }
    }
    if (!differs && fields_a_.size() != fields_b_.size()) {
      fail(a, b, {},
           std::to_string(fields_a_.size()) + " fields vs " + std::to_string(fields_b_.size()));
    }
    for (auto it = children.rbegin(); it != children.rend(); ++it) tasks_.push_back(std::move(*it));
  }

  // Entries in key order; a key present on one side only is reported at that key. False when
  // such a key was found.
  template <typename Here, typename CompareFn, typename FailFn>
  static bool CompareEntries(const Entries& x, const Entries& y, bool def, Here& here,
                             CompareFn& compare, FailFn& fail) {
    size_t i = 0;
    for (; i < x.size() && i < y.size(); ++i) {
      if (x[i].first != y[i].first) {
        bool left_only = x[i].first < y[i].first;
        const auto& only = left_only ? x[i] : y[i];
        fail(left_only ? only.second : nullptr, left_only ? nullptr : only.second,
             here(Step::Key(only.first)),
             left_only ? "key only on the left" : "key only on the right");
        return false;
      }
      compare(x[i].second, y[i].second, def, here(Step::Key(x[i].first)));
    }
    if (i < x.size()) {
      fail(x[i].second, nullptr, here(Step::Key(x[i].first)), "key only on the left");
      return false;
    }
    if (i < y.size()) {
      fail(nullptr, y[i].second, here(Step::Key(y[i].first)), "key only on the right");
      return false;
    }
    return true;
  }

  // How two values of the same field differ ("int32 vs int64"); empty when they do not, or when
  // they hold nodes (compared by tasks of their own).
  static std::string ValueDifference(const FieldValue& x, const FieldValue& y) {
    if (x.index() != y.index()) return "fields of different kinds";
    if (auto* v = std::get_if<int64_t>(&x)) {
      int64_t w = std::get<int64_t>(y);
      return *v == w ? "" : std::to_string(*v) + " vs " + std::to_string(w);
    }
    if (auto* v = std::get_if<double>(&x)) {
      double w = std::get<double>(y);
      return SameFloat(*v, w) ? "" : FloatText(*v) + " vs " + FloatText(w);
    }
    if (auto* v = std::get_if<bool>(&x)) {
      bool w = std::get<bool>(y);
      return *v == w ? "" : std::string(*v ? "true" : "false") + " vs " + (w ? "true" : "false");
    }
    if (auto* v = std::get_if<std::string>(&x)) {
      const std::string& w = std::get<std::string>(y);
      return *v == w ? "" : "\"" + *v + "\" vs \"" + w + "\"";
    }
    if (auto* v = std::get_if<DataType>(&x)) {
      DataType w = std::get<DataType>(y);
      return *v == w ? "" : v->ToString() + " vs " + w.ToString();
    }
    if (auto* v = std::get_if<Bytes>(&x)) {
      std::string_view a = v->data, b = std::get<Bytes>(y).data;
      if (a == b) return "";
      if (a.size() != b.size()) {
        return std::to_string(a.size()) + " bytes vs " + std::to_string(b.size()) + " bytes";
      }
      size_t at = std::mismatch(a.begin(), a.end(), b.begin()).first - a.begin();
      return "the bytes differ first at byte " + std::to_string(at) + " of " +
             std::to_string(a.size());
    }
    return "";
  }

  // Records the difference (when asked to explain); false stops the walk, true (below the limit of
  // differences to record) goes on past it.
  bool Fail(const Object* a, const Object* b, std::string reason) {
    if (!explain_) return false;
    if (mismatches_.size() >= limit_) {
      ++more_;
      return limit_ > 1;
    }
    std::string path = PathText();
    auto located = [](const Object* x, const Object* above) {
      return ObjectRef(x && x->span.defined() ? x : above);
    };
    mismatches_.push_back(StructuralMismatch{path, path, ObjectRef(a), ObjectRef(b), std::move(reason),
                                             located(a, located_a_), located(b, located_b_)});
    return limit_ > 1;
  }

  std::string PathText() const {
    std::string out = "root";
    for (const Step& step : path_) {
      switch (step.kind) {
        case Step::kField:
          out += '.';
          out += step.field;
          break;
        case Step::kIndex:
          out += '[' + std::to_string(step.index) + ']';
          break;
        case Step::kKey:
          out += "[\"";
          for (char c : step.key) {
            if (c == '"' || c == '\\') out += '\\';
            out += c;
          }
          out += "\"]";
          break;
      }
    }
    return out;
  }

  bool map_free_vars_;
  bool explain_;
  std::unordered_map<const Object*, const Object*> lhs_to_rhs_;
  std::unordered_map<const Object*, const Object*> rhs_to_lhs_;
  std::vector<Task> tasks_;
  std::vector<Step> path_;
  const Object* located_a_ = nullptr;  // of the task being run
  const Object* located_b_ = nullptr;
  std::vector<Field> fields_a_;  // scratch for Expand
  std::vector<Field> fields_b_;
  size_t limit_;
  std::vector<StructuralMismatch> mismatches_;
  size_t more_ = 0;
};

}  // namespace

bool StructuralEqual(const ObjectRef& a, const ObjectRef& b, bool map_free_vars) {
  return Comparer(map_free_vars, /*explain=*/false).Equal(a, b);
}

std::optional<StructuralMismatch> FindFirstMismatch(const ObjectRef& a, const ObjectRef& b,
                                                    bool map_free_vars) {
  Comparer comparer(map_free_vars, /*explain=*/true);
  if (comparer.Equal(a, b)) return std::nullopt;
  return comparer.TakeMismatch();
}

std::vector<StructuralMismatch> FindMismatches(const ObjectRef& a, const ObjectRef& b, size_t limit,
                                               size_t* more, bool map_free_vars) {
  // A limit of one would stop at the first: that is FindFirstMismatch.
  Comparer comparer(map_free_vars, /*explain=*/true, std::max<size_t>(limit, 2));
  comparer.Equal(a, b);
  std::vector<StructuralMismatch> out = comparer.TakeMismatches();
  size_t extra = comparer.more();
  if (out.size() > limit) {
    extra += out.size() - limit;
    out.resize(limit);
  }
  if (more) *more = extra;
  return out;
}

}  // namespace wb::ir
