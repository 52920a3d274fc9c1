#include "ir/structural_hash.h"

#include <bit>
#include <cmath>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/structural_equal.h"

namespace wb::ir {

namespace {

// The finalizer of SplitMix64: every input bit affects every output bit.
uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t Combine(uint64_t seed, uint64_t value) {
  return Mix(seed ^ (Mix(value) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

// FNV-1a: deterministic across runs, unlike std::hash.
uint64_t HashBytes(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return Mix(h ^ s.size());
}

// Distinguishes the cases that would otherwise hash the same small integers.
enum Tag : uint64_t {
  kNullTag = 0x6e756c6c,
  kNodeTag,
  kFirstBindingTag,
  kBoundTag,
  kFreeTag,
  kArrayTag,
  kMapTag,
  kBytesTag,
};

// One thing a node contributes to its hash, in field order: a value, or a child node whose hash
// is combined in when it is done.
struct Token {
  uint64_t value = 0;
  const Object* child = nullptr;
  bool is_child = false;
  bool in_def = false;
};

class TokenCollector final : public FieldVisitor {
 public:
  TokenCollector(std::vector<Token>* out, bool in_def) : out_(out), in_def_(in_def) {}

  void Visit(const char*, int64_t* v, FieldKind k) override {
    if (k != FieldKind::kIgnore) Value(uint64_t(*v));
  }
  void Visit(const char*, double* v, FieldKind k) override {
    if (k == FieldKind::kIgnore) return;
    // StructuralEqual treats every NaN as equal.
    Value(std::isnan(*v) ? 0x7ff8000000000000ULL : std::bit_cast<uint64_t>(*v));
  }
  void Visit(const char*, bool* v, FieldKind k) override {
    if (k != FieldKind::kIgnore) Value(*v ? 1 : 0);
  }
  void Visit(const char*, std::string* v, FieldKind k) override {
    if (k != FieldKind::kIgnore) Value(HashBytes(*v));
  }
  // The bytes themselves, not their hex (a model's weights are tens of megabytes).
  void VisitBytes(const char*, std::string* v, FieldKind k) override {
    if (k != FieldKind::kIgnore) Value(Combine(kBytesTag, HashBytes(*v)));
  }
  void Visit(const char*, DataType* v, FieldKind k) override {
    if (k != FieldKind::kIgnore) Value(v->Pack());
  }
  void Visit(const char*, ObjectRef* v, FieldKind k) override {
    if (k != FieldKind::kIgnore) Child(v->get(), k);
  }
  void Visit(const char*, std::vector<ObjectRef>* v, FieldKind k) override {
    if (k == FieldKind::kIgnore) return;
    Value(Combine(kArrayTag, v->size()));
    for (const ObjectRef& item : *v) Child(item.get(), k);
  }
  void Visit(const char*, AttrMap* v, FieldKind k) override {
    if (k == FieldKind::kIgnore) return;
    Value(Combine(kMapTag, v->size()));
    for (const auto& [key, value] : *v) {
      Value(HashBytes(key));
      Child(value.get(), k);
    }
  }

 private:
  void Value(uint64_t v) { out_->push_back(Token{v, nullptr, false, false}); }
  // Everything below a kDef field is in a binding position.
  void Child(const Object* node, FieldKind k) {
    out_->push_back(Token{0, node, true, in_def_ || k == FieldKind::kDef});
  }

  std::vector<Token>* out_;
  bool in_def_;
};

// Hashes depth-first in field order, the order StructuralEqual compares in; that is what makes
// "order of first occurrence" agree between the two. An explicit stack of frames, one per node
// being hashed, keeps deep IR off the thread's stack.
class Hasher {
 public:
  explicit Hasher(bool map_free_vars) : map_free_vars_(map_free_vars) {}

  uint64_t Hash(const Object* root) {
    if (std::optional<uint64_t> h = Enter(root, false)) return *h;
    for (;;) {
      Frame& frame = frames_.back();
      if (frame.next == frame.tokens.size()) {
        uint64_t h = frame.acc;
        frames_.pop_back();
        if (frames_.empty()) return h;
        frames_.back().acc = Combine(frames_.back().acc, h);
        continue;
      }
      Token token = frame.tokens[frame.next++];
      if (!token.is_child) {
        frame.acc = Combine(frame.acc, token.value);
        continue;
      }
      // Enter may push a frame, which invalidates `frame`.
      if (std::optional<uint64_t> h = Enter(token.child, token.in_def)) {
        frames_.back().acc = Combine(frames_.back().acc, *h);
      }
    }
  }

 private:
  struct Frame {
    uint64_t acc;
    std::vector<Token> tokens;
    size_t next = 0;
  };

  // The hash of `node` when it needs no walk of its fields; otherwise pushes its frame.
  std::optional<uint64_t> Enter(const Object* node, bool in_def) {
    if (node == nullptr) return kNullTag;
    TypeIndex index = node->type_index();
    uint64_t seed = Combine(kNodeTag, uint64_t(index));
    if (IsBindableKind(index)) {
      if (auto it = binding_order_.find(node); it != binding_order_.end()) {
        return Combine(Combine(seed, kBoundTag), it->second);
      }
      uint64_t order = binding_order_.size();
      binding_order_.emplace(node, order);
      if (!in_def && !map_free_vars_) {
        // StructuralEqual compares such a variable by identity; the address is enough then.
        return Combine(Combine(seed, kFreeTag), uint64_t(reinterpret_cast<uintptr_t>(node)));
      }
      seed = Combine(Combine(seed, kFirstBindingTag), order);
    }
    Frame frame{seed, {}, 0};
    TokenCollector collector(&frame.tokens, in_def);
    // A reading visitor leaves the node unchanged; VisitFields is non-const only for the loader.
    const_cast<Object*>(node)->VisitFields(&collector);
    frames_.push_back(std::move(frame));
    return std::nullopt;
  }

  bool map_free_vars_;
  std::vector<Frame> frames_;
  std::unordered_map<const Object*, uint64_t> binding_order_;
};

}  // namespace

uint64_t StructuralHash(const ObjectRef& node, bool map_free_vars) {
  return Hasher(map_free_vars).Hash(node.get());
}

}  // namespace wb::ir
